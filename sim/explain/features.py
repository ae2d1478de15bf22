"""The features of a deal, each with a name and a meaning in words, computed by one compiled kernel.

Two kinds: the **layout**'s (how deep the cards the foundations need lie,
what lies on what, the moves at the start; for a shared base still to
choose, how the bases compare) and the **play** of cheap probe players
from the deal (:data:`PROBES`: how many cards each gets home, how many
moves it plays, how many piles it empties, how far behind it leaves its
worst suit). :func:`features` computes them for any states of any game of
the family in a few milliseconds a deal (:mod:`sim.kernels.features`);
nothing in them names a game: a new rule field or game needs only a model
trained for it.

>>> [f.name for f in FEATURES][:2]
['depth_next_C', 'depth_next_D']
>>> feature("blockers").meaning
'cards lying on a card (any suit) that must go home before them'
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..core.cards import SUITS

#: a suit's name, by its index (C D H S)
SUIT_NAMES = ("Clubs", "Diamonds", "Hearts", "Spades")


@dataclass(frozen=True)
class Probe:
    """A cheap player whose game from the deal is a feature: its short name, its player label, who it is in words."""

    name: str
    player: str  #: the player and its parameters, as ``castle play --player`` takes them
    who: str  #: the player in words, as a reason names it

    @property
    def label(self) -> str:
        return self.player


#: the probe players, cheapest first: a few milliseconds a deal together
PROBES: tuple[Probe, ...] = (
    Probe("greedy", "greedy:max_moves=300", "a greedy player"),
    Probe("strategist", "strategist:max_moves=300", "the strategist (the rule sheet's advice)"),
    Probe("lookahead", "lookahead:depth=2,max_moves=100,mobility=0", "a two-move lookahead"),
    Probe("beam", "beam:budget=5000", "a quick beam search (5,000 positions)"),
)


@dataclass(frozen=True)
class Feature:
    """One column of :func:`features`: its name, what it counts, and how a reason says it.

    ``says`` is a format string over the value (``{n}``, or ``{cards}``: "5
    cards", ``{cards_lie}``: "1 card lies", and the like: :func:`sim.explain.words.say`)
    and the deal's context (:func:`sim.explain.reasons.context`): ``{card}``
    the card a suit's foundation needs next, ``{who}`` a probe in words,
    ``{last}`` the rank that goes home last. ``zero`` says a value of 0 when
    the count reads badly there ("the Ace of Spades is free to go home at
    once", not "lies under no card"). ``better`` is which way a player
    expects it to help: 1 the more the better, -1 the fewer, 0 neither (a
    reason whose push goes the other way is told as the model's surprise).
    """

    name: str
    meaning: str
    says: str
    kind: str  #: "layout" (the deal as it lies) or "play" (a probe's game from it)
    slot: int  #: its column in the kernel's output
    suit: int = -1  #: the suit it is about (-1: none)
    probe: str = ""  #: the probe it is about ("": none)
    better: int = 0  #: 1: more helps a player, -1: fewer helps, 0: neither
    zero: str = ""  #: what a value of 0 says, when ``says`` would read badly ("" : ``says``)


def _layout() -> list[Feature]:
    from ..kernels import features as features_kernel
    from ..kernels.play import game_rows

    rows: list[Feature] = []
    for s, suit in enumerate(SUITS):
        rows.append(Feature(f"depth_next_{suit}", f"cards lying on the next card the {SUIT_NAMES[s]} foundation needs",
                            "the {card} lies under {cards}", "layout", features_kernel.F_NEXT + s, suit=s, better=-1,
                            zero="the {card} is free to go home at once"))
    for s, suit in enumerate(SUITS):
        rows.append(Feature(f"depth_second_{suit}", f"cards lying on the card the {SUIT_NAMES[s]} foundation needs after that",
                            "the {card2}, next after the {card}, lies under {cards}", "layout", features_kernel.F_SECOND + s, suit=s,
                            better=-1, zero="the {card2} lies free on top of a pile, ready to follow the {card} home"))
    free = "every card the foundations need next lies free on top of a pile"
    plain = (  # slot, name, meaning, says, better, zero
        (features_kernel.F_NEXT_MAX, "depth_next_max", "cards lying on the deepest of the four cards the foundations need next",
         "the deepest card the foundations need next lies under {cards}", -1, free),
        (features_kernel.F_NEXT_SUM, "depth_next_sum", "cards lying on the four cards the foundations need next, summed",
         "the four cards the foundations need next lie under {cards} in all", -1, free),
        (features_kernel.F_LOW_SUM, "depth_low_sum", "cards lying on the first three cards each foundation needs, summed (12 cards)",
         "the first three cards each foundation needs lie under {cards} in all", -1, ""),
        (features_kernel.F_UNDER_SUIT, "under_own_suit", "cards lying under a card of their own suit that goes home after them",
         "{cards_lie} under a later card of the same suit", -1, ""),
        (features_kernel.F_SUIT_PAIRS, "own_suit_pairs", "pairs of cards of one suit in one pile, the later one above the earlier",
         "{pairs_lie} the wrong way round in a pile (a later card of a suit above an earlier one)", -1, ""),
        (features_kernel.F_BLOCKERS, "blockers", "cards lying on a card (any suit) that must go home before them",
         "{cards_lie} on a card that must go home first", -1, ""),
        (features_kernel.F_LAST_UP, "last_not_bottom", "cards of the rank that goes home last (Kings from an Ace base) not at the bottom of their pile",
         "{lasts_lie} on other cards instead of at the bottom of a pile", -1, "every {last} lies at the bottom of a pile"),
        (features_kernel.F_UNDER_LAST, "under_last", "cards lying under a card of the rank that goes home last",
         "{cards_lie} under a {last}", -1, ""),
        (features_kernel.F_RUN_CARDS, "run_cards", "cards already resting on a card they could be built on",
         "{cards_rest} on a card they could be built on", 1, ""),
        (features_kernel.F_LONGEST_RUN, "longest_run", "cards in the longest run already built",
         "the longest run already built holds {cards}", 1, "no run is built yet"),
        (features_kernel.F_MOVES, "moves_start", "legal moves at the start", "{moves_are} legal at the start", 1, ""),
        (features_kernel.F_HOME_MOVES, "home_moves_start", "cards that can go to a foundation at once", "{cards_can} go home at once", 1, ""),
        (features_kernel.F_MOVABLE, "movable_tops", "piles whose top card can move at the start", "{piles_have} a top card that can move", 1, ""),
        (features_kernel.F_HOME, "cards_home_start", "cards on the foundations at the start", "{cards_start} on the foundations", 1, ""),
        (features_kernel.F_EMPTY, "empty_piles_start", "empty tableau piles at the start", "{piles_start} empty", 1, ""),
        (features_kernel.F_LOW_TOP, "low_on_top", "cards among the next three each foundation needs lying on top of a pile",
         "{n_of} the first three cards each foundation needs {lie} free on top of a pile", 1, ""),
        (features_kernel.F_TALLEST, "tallest_pile", "cards in the tallest pile", "the tallest pile holds {cards}", -1, ""),
        (features_kernel.F_BASES_TOP, "bases_on_top", "base ranks showing on top of a pile, so a foundation can start there at once (base still to choose)",
         "{ranks_show} on top of a pile, so a foundation can start there at once", 1, ""),
        (features_kernel.F_BASE_DEPTH, "base_depth_best", "cards lying on the four cards of the shallowest base rank, summed (base still to choose)",
         "the four {base}s, the shallowest base, lie under {cards} in all", -1, "the four {base}s all lie free on top of piles"),
        (features_kernel.F_BASE_DEPTH2, "base_depth_second", "the same at the second shallowest base rank (base still to choose)",
         "the second shallowest base's four cards lie under {cards} in all", -1, ""),
        (features_kernel.F_BASE_BURIED, "base_buried_fewest", "cards under a later card of their suit at the base that leaves fewest (base still to choose)",
         "whatever the base, {cards_lie} under a later card of the same suit", -1, ""),
        (features_kernel.F_BASES_GOOD, "bases_good", "base ranks within 2 buried cards of that fewest (base still to choose)",
         "{ranks_leave} about as few cards buried as the best", 1, ""),
    )
    rows += [Feature(name, meaning, says, "layout", slot, better=better, zero=zero)
             for slot, name, meaning, says, better, zero in plain]
    return rows


def _play() -> list[Feature]:
    from ..kernels import features as features_kernel
    from ..kernels.play import game_rows

    fields = (  # slot, field, meaning, says, better
        (features_kernel.PR_HOME, "home", "cards {who} gets home", "{who} gets {cards} home", 1),
        (features_kernel.PR_MOVES, "moves", "moves {who} plays before it stops", "{who} plays {moves} before it stops", 0),
        (features_kernel.PR_EMPTY, "empty", "the most empty piles {who} has at once", "{who} has {piles} empty at once at most", 1),
        (features_kernel.PR_WORST_SUIT, "worst_suit", "cards {who} gets home in its worst suit", "{who} gets {cards} of its worst suit home", 1),
    )
    rows = []
    for k, probe in enumerate(PROBES):
        for slot, field, meaning, says, better in fields:
            rows.append(Feature(f"{probe.name}_{field}", meaning.format(who=probe.who), says, "play",
                                features_kernel.N_STATIC + k * features_kernel.N_PROBE + slot, probe=probe.name, better=better))
    return rows


FEATURES: tuple[Feature, ...] = tuple(sorted(_layout() + _play(), key=lambda f: f.slot))
NAMES: tuple[str, ...] = tuple(f.name for f in FEATURES)
_BY_NAME = {f.name: f for f in FEATURES}
assert [f.slot for f in FEATURES] == list(range(len(FEATURES))), "every kernel slot named once"


def feature(name: str) -> Feature:
    """The feature called ``name``."""
    return _BY_NAME[name]


def probe(name: str) -> Probe:
    """The probe called ``name``."""
    return next(p for p in PROBES if p.name == name)


def _without_imports(source: str) -> str:
    """The source without its import statements (a parenthesised import's continuation lines too)."""
    import ast

    lines = source.splitlines(keepends=True)
    drop = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            drop.update(range(node.lineno - 1, node.end_lineno))
    return "".join(line for k, line in enumerate(lines) if k not in drop)


@lru_cache(maxsize=1)
def feature_hash() -> str:
    """A digest of what the features are: the kernel's source, the columns' names and slots, the probes and their versions.

    A model records it; a model made for other features does not load. The
    source is read without its import lines: a helper the kernel calls
    moving to another module is not a change of features.
    """
    from ..kernels import features as features_kernel
    from ..players.registry import parse_player

    h = hashlib.sha256(_without_imports(Path(features_kernel.__file__).read_text()).encode())
    for f in FEATURES:
        h.update(f"{f.slot}\t{f.name}\n".encode())
    for p in PROBES:
        choice = parse_player(p.player)
        h.update(f"{p.name}\t{choice.label}\t{choice.spec.version}\n".encode())
    return h.hexdigest()[:16]


@lru_cache(maxsize=1)
def _probe_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the kernel reads of the probes: kinds, parameter records, move caps, stream salts."""
    from ..players.compiled import kind_of, weights
    from ..players.registry import parse_player

    choices = [parse_player(p.player) for p in PROBES]
    return (np.array([kind_of(c) for c in choices], np.int64), np.concatenate([weights(c.params) for c in choices]),
            np.array([c.max_moves for c in choices], np.int64), np.array([c.salt for c in choices], np.int64))


def state_arrays(states) -> np.ndarray:
    """States (a :class:`~sim.game.State`, a list of them, or state arrays) as one int8 array, a state a row."""
    from ..game import State
    from ..kernels.layout import STATE_SIZE

    if isinstance(states, State):
        states = [states]
    if isinstance(states, np.ndarray):
        arr = states.reshape(-1, STATE_SIZE) if states.ndim == 1 else states
    else:
        arr = np.array([s.array if isinstance(s, State) else s for s in states], np.int8).reshape(-1, STATE_SIZE)
    return np.ascontiguousarray(arr, np.int8)


def features(game, states):
    """The features of ``states`` (positions of ``game``: a :class:`~sim.game.Game`, its slug or rules), as a
    DataFrame with a row per state and a column per name of :data:`NAMES`; NaN where a feature does not apply.

    >>> from sim.game import Game
    >>> g = Game("beleaguered-castle")
    >>> row = features(g, g.deal(1)).iloc[0]
    >>> int(row.cards_home_start), int(row.depth_next_S) >= 0
    (4, True)
    """
    import pandas as pd

    from ..game import Game
    from ..kernels import features as features_kernel
    from ..kernels.play import game_rows
    from ..kernels.play import game_rows

    g = game if isinstance(game, Game) else Game(game)
    arr = state_arrays(states)
    out = np.empty((len(arr), len(NAMES)), np.float64)
    features_kernel.deal_features(arr, g.rules_array, *_probe_arrays(), out, game_rows(1))
    return pd.DataFrame(out, columns=list(NAMES))


#: the columns saying how many cards each probe got home: 52 is a win
WIN_COLUMNS: tuple[str, ...] = tuple(f"{p.name}_home" for p in PROBES)


def won_by_probe(X, columns=WIN_COLUMNS) -> np.ndarray:
    """Which rows of ``X`` a probe won (every card home, by those of ``columns`` it holds): winnable for certain."""
    cols = [c for c in columns if c in X.columns]
    if not cols:
        return np.zeros(len(X), bool)
    return (X[cols].to_numpy() >= 52).any(axis=1)
