"""A reason in a player's words: what a feature's value says, which side it is on, and how many points it moves.

A reason reads from the player's side: first whether it ``helps`` or
``stands in the way``, then the fact ("the Ace of Spades is free to go
home at once"), then what a usual deal of the game has ("usually under 3
cards"). Its number is in points of probability (:mod:`.effects`): the
model's chance that the deal is winnable, less its chance were that one
thing as on a usual deal. When the model's finding goes against what a
player would expect (an Ace free at once that counts against the deal), the
words say so rather than read backwards.

>>> say("blockers", 1, {})
'1 card lies on a card that must go home first'
>>> say("depth_next_S", 0, {"card": ["", "", "", "Ace of Spades"]})
'the Ace of Spades is free to go home at once'
>>> side(feature("depth_next_S"), 0, 3, -4.0)
'counts against it, surprisingly'
>>> points_text(-15.2), points_text(0.43), points_text(0.004)
('−15 points', '+0.4 points', '+<0.1 points')
"""

from __future__ import annotations

from .features import PROBES, feature

#: what the bracketed numbers are, in a player's words (``castle explain`` and ``castle show --explain`` print it)
POINTS_NOTE = ("points: how much each reason adds to (+) or takes from (−) the chance that the deal is winnable: "
               "the model's chance for this deal, less its chance were that one thing as on a usual deal of the game")
#: the same for a model file that holds no usual values (made before they were kept): its contributions instead
POINTS_NOTE_SHAP = ("points: how much each reason adds to (+) or takes from (−) the chance that the deal is winnable: "
                    "the model's chance for this deal, less its chance without that feature's share of the model's score")
HELPS, HINDERS = "helps", "stands in the way"
#: a reason whose value a player would read the other way (the model's finding, not a rule of play)
SURPRISE_HELPS, SURPRISE_HINDERS = "helps, surprisingly", "counts against it, surprisingly"


def count(n: float, one: str, many: str | None = None, verb: tuple[str, str] | None = None) -> str:
    """``"no card"``, ``"1 card"``, ``"5 cards"`` (``verb``: its singular and plural, ``"1 card lies"``)."""
    many = many or one + "s"
    shown = f"{n:g}" if isinstance(n, float) else str(n)
    word = "no " + one if n == 0 else f"{shown} {one if n == 1 else many}"
    if verb:
        word += " " + (verb[0] if n in (0, 1) else verb[1])
    return word


def say(name: str, value: float, ctx: dict) -> str:
    """The feature ``name`` at ``value`` in words (the fact alone), for the deal of context ``ctx``
    (:func:`sim.explain.reasons.context`)."""
    f = feature(name)
    n = value if value == value else 0
    n = int(n) if float(n).is_integer() else float(n)
    who = next((p.who for p in PROBES if p.name == f.probe), "")
    if f.probe and name.endswith("_home") and n >= 52:
        return f"{who} wins it: winnable for certain"
    last = ctx.get("last", "King")
    words = {
        "n": n, "who": who, "cards": count(n, "card"), "piles": count(n, "pile"), "moves": count(n, "move"),
        "cards_lie": count(n, "card", verb=("lies", "lie")), "cards_can": count(n, "card", verb=("can", "can")),
        "cards_rest": count(n, "card", verb=("already rests", "already rest")),
        "cards_start": count(n, "card", verb=("starts", "start")), "piles_start": count(n, "pile", verb=("starts", "start")),
        "pairs_lie": count(n, "pair", verb=("of one suit lies", "of one suit lie")),
        "lasts_lie": count(n, last, verb=("lies", "lie")), "moves_are": count(n, "move", verb=("is", "are")),
        "piles_have": count(n, "pile", verb=("has", "have")), "ranks_show": count(n, "base rank", verb=("shows", "show")),
        "ranks_leave": count(n, "base rank", verb=("leaves", "leave")),
        "n_of": "none of" if n == 0 else f"{n} of", "lie": "lies" if n in (0, 1) else "lie",
        "last": last, "base": ctx.get("base", "Ace"),
        "card": ctx.get("card", [""] * 4)[f.suit] if f.suit >= 0 else "",
        "card2": ctx.get("card2", [""] * 4)[f.suit] if f.suit >= 0 else "",
    }
    return (f.zero if n == 0 and f.zero else f.says).format(**words)


def probe_says(name: str, row) -> str:
    """A probe's game from the deal in words: cards home, moves, piles emptied."""
    p = next(p for p in PROBES if p.name == name)
    home, moves, empty = (int(row[f"{name}_{f}"]) for f in ("home", "moves", "empty"))
    if home >= 52:
        return f"{p.who} wins it in {count(moves, 'move')}: winnable for certain"
    text = f"{p.who} gets {count(home, 'card')} home in {count(moves, 'move')}"
    return text + _emptied(empty)


def _emptied(empty) -> str:
    return f", with up to {count(empty, 'pile')} empty at once" if empty else ", never emptying a pile"


def usual_text(name: str, typical: dict) -> str:
    """What a usual deal of the game has (``typical``: the model's usual values): ``"usually under 3 cards"``,
    ``"usually 4"``, a probe's ``"usually 4 cards home in 25 moves, no pile empty"`` ("" if not known)."""
    def shown(v: float):
        return int(v) if float(v).is_integer() else round(float(v), 1)

    if any(p.name == name for p in PROBES):
        home, moves, empty = (typical.get(f"{name}_{k}") for k in ("home", "moves", "empty"))
        if home is None or moves is None:
            return ""
        text = f"usually {count(shown(home), 'card')} home in {count(shown(moves), 'move')}"
        return text + ("" if empty is None else _emptied(shown(empty)))
    usual = typical.get(name)
    if usual is None:
        return ""
    u = shown(usual)
    f = feature(name)
    if "under {cards}" in f.says:
        return f"usually under {count(u, 'card')}"
    return f"usually {u}"


def side(f, value: float, usual: float | None, points: float) -> str:
    """Which side a reason is on, from the player's seat: it helps, or stands in the way; when the model's finding
    goes against what a player expects of that value (``f.better`` and the value against the usual one), it says
    so: "counts against it, surprisingly" (an Ace free at once that the model finds goes with lost deals)."""
    helps = points > 0
    if f.better and usual is not None and value == value and value != usual:
        expect_help = (value - usual) * f.better > 0
        if expect_help != helps:
            return SURPRISE_HELPS if helps else SURPRISE_HINDERS
    return HELPS if helps else HINDERS


def points_text(points: float) -> str:
    """Points of probability, signed, a true minus sign: ``"+12 points"``, ``"−0.4 points"`` (one decimal under 1)."""
    size = abs(points)
    if size < 0.05:  # a deal the model is all but sure of: nothing moves it much
        return f"{'+' if points >= 0 else '−'}<0.1 points"
    shown = f"{size:.1f}" if round(size, 1) < 1 else f"{size:.0f}"
    unit = "point" if shown == "1" else "points"
    return f"{'+' if points >= 0 else '−'}{shown} {unit}"
