"""Why a deal is easy or hard: the few features that push its probability most up or down, in words.

:func:`explain` computes a game's features for some deals or boards,
predicts with the game's shipped model and turns the features that move
each deal's chance most into :class:`Reason` s, in a player's words
(:mod:`.words`): "stands in the way: the Ace of Spades lies under 5 cards
(usually under 3 cards)", "helps: a quick beam search (5,000 positions)
gets 31 cards home". A reason's ``points`` are what it does to the chance
(:mod:`.effects`: the probability, less the probability were that one thing
as on a usual deal); its ``contribution`` is the model's own number (its
SHAP value on the log-odds of winning). A probe's win is a reason with
neither: it makes the deal winnable for certain.

>>> from sim.game import Game
>>> g = Game("streets-and-alleys")
>>> state = g.from_board(g.deal(3).board_text())
>>> context(state)["card"][3]
'Ace of Spades'
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..core.rules import FoundationBase
from .effects import effects
from .features import FEATURES, NAMES, PROBES, feature, features, won_by_probe
from .words import probe_says, say, side, usual_text

__all__ = ["Reason", "Explanation", "explain", "context", "cards_of", "card_name", "say", "probe_says", "target_bases"]

RANK_NAMES = ("Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen", "King")
SUIT_NAMES = ("Clubs", "Diamonds", "Hearts", "Spades")
#: how many reasons a deal gets by default (3 to 5 are asked for)
REASONS = 4


@dataclass(frozen=True)
class Reason:
    """One feature of a deal (or a probe's game), in words, and what it does to the deal's chance of being winnable."""

    feature: str
    value: float
    contribution: float | None  #: its SHAP value on the log-odds of winning; None for a probe's win (certain)
    points: float | None  #: points of probability it adds (+) or takes (−) (:mod:`.effects`); None: certain, or no model
    usual: float | None  #: its value on a usual deal of the game (None: not known)
    text: str  #: its side and the fact: "helps: ...", "stands in the way: ..."

    @property
    def helps(self) -> bool | None:
        return None if self.points is None else self.points > 0

    def to_dict(self) -> dict:
        def num(v):
            return None if v is None or v != v else (int(v) if float(v).is_integer() else round(float(v), 3))

        return {"feature": self.feature, "value": num(self.value), "usual": num(self.usual),
                "contribution": None if self.contribution is None else round(self.contribution, 4),
                "points": None if self.points is None else round(self.points, 2), "helps": self.helps, "text": self.text}


@dataclass
class Explanation:
    """A deal's calibrated probability of being winnable, and its reasons."""

    p_win: float
    reasons: list[Reason]
    certain: bool  #: a probe won it: winnable for certain
    features: dict = field(default_factory=dict)
    cpu_ms: float = 0.0  #: features and model, this deal's share of the call
    p_model: float | None = None  #: the model's own probability, before a probe's win makes it certain
    points_by: str = "usual"  #: how the points were taken (:func:`.effects.effects`)

    def to_dict(self) -> dict:
        return {"p_win": round(self.p_win, 4), "certain": self.certain,
                "p_model": None if self.p_model is None else round(self.p_model, 4), "points_by": self.points_by,
                "reasons": [r.to_dict() for r in self.reasons], "cpu_ms": round(self.cpu_ms, 2)}


def target_bases(state) -> list[int]:
    """The base each suit's foundation counts from, as the features take it: its own once set; while a shared base
    is to choose, the rank whose four cards lie shallowest in all (ties: the lower); independent bases, each suit's
    shallowest card (as :func:`sim.kernels.evaluate.choose_target_bases`)."""
    pos = state.position()
    bases = list(pos.bases)
    if all(b >= 0 for b in bases):
        return bases
    depth = {c: len(pile) - 1 - i for pile in pos.piles for i, c in enumerate(pile)}
    policy = state.rules.foundation_base
    if policy == FoundationBase.FIRST_CARD_SHARED:
        totals = [sum(max(depth.get(s * 13 + rank, 0), 0) for s in range(4)) for rank in range(13)]
        best = int(np.argmin(totals))
        return [b if b >= 0 else best for b in bases]
    out = []
    for s, b in enumerate(bases):
        if b >= 0:
            out.append(b)
            continue
        held = [(depth[s * 13 + rank], rank) for rank in range(13) if s * 13 + rank in depth]
        out.append(min(held)[1] if held else -1)
    return out


def card_name(card: int) -> str:
    """``"Ace of Spades"``."""
    return f"{RANK_NAMES[card % 13]} of {SUIT_NAMES[card // 13]}"


def context(state) -> dict:
    """What the reasons' words need of a deal: per suit the card its foundation needs next (``card``) and after it
    (``card2``), the rank that goes home last (``last``) and the base aimed at (``base``)."""
    bases = target_bases(state)
    home = state.position().foundations
    card, card2 = [], []
    for s in range(4):
        b = bases[s]
        card.append(card_name(s * 13 + (b + home[s]) % 13) if b >= 0 and home[s] < 13 else "")
        card2.append(card_name(s * 13 + (b + home[s] + 1) % 13) if b >= 0 and home[s] < 12 else "")
    b0 = next((b for b in bases if b >= 0), 0)
    return {"card": card, "card2": card2, "last": RANK_NAMES[(b0 + 12) % 13], "base": RANK_NAMES[b0]}


def cards_of(name: str, state) -> list[int]:
    """The cards a layout feature of ``state`` speaks of, to mark on its picture (``castle show --explain``); [] for a
    probe's feature, a probe (a reason made of its four features) or a count of moves or piles.

    >>> from sim.game import Game
    >>> g = Game("streets-and-alleys")
    >>> [card_name(c) for c in cards_of("depth_next_S", g.deal(3))]
    ['Ace of Spades']
    """
    if name not in NAMES or feature(name).probe:
        return []
    pos = state.position()
    bases, home = target_bases(state), pos.foundations
    n_tableau = state.rules.n_tableau

    def order(card: int) -> int:  # how many cards of its suit go home before it
        b = bases[card // 13]
        return (card % 13 - b) % 13 if b >= 0 else 13

    def needed(suit: int, k: int) -> int | None:  # the k-th card (0: next) its foundation still needs
        b = bases[suit]
        return suit * 13 + (b + home[suit] + k) % 13 if b >= 0 and home[suit] + k < 13 else None

    piles = [list(p) for p in pos.piles[:n_tableau]]
    where = {c: (i, j) for i, p in enumerate(piles) for j, c in enumerate(p)}

    def depth(c: int) -> int:
        i, j = where[c]
        return len(piles[i]) - 1 - j

    f = feature(name)
    if name.startswith(("depth_next_", "depth_second_")) and f.suit >= 0:
        c = needed(f.suit, 0 if name.startswith("depth_next_") else 1)
        return [c] if c in where else []
    nexts = [c for c in (needed(s, 0) for s in range(4)) if c in where]
    lows = [c for s in range(4) for c in (needed(s, k) for k in range(3)) if c in where]
    if name == "depth_next_max":
        return [max(nexts, key=depth)] if nexts else []
    if name == "depth_next_sum":
        return nexts
    if name == "depth_low_sum":
        return lows
    if name == "low_on_top":
        return [c for c in lows if depth(c) == 0]
    if name in ("under_own_suit", "own_suit_pairs"):  # the buried card (its suit's later card lies above it)
        return [c for p in piles for j, c in enumerate(p)
                if any(d // 13 == c // 13 and order(d) > order(c) for d in p[j + 1:])]
    if name == "blockers":  # the cards that lie on one that must go home before them
        return [d for p in piles for j, d in enumerate(p) if any(order(c) < order(d) for c in p[:j])]
    if name == "last_not_bottom":
        return [c for p in piles for j, c in enumerate(p) if j > 0 and order(c) == 12]
    if name == "under_last":
        return [c for p in piles for j, c in enumerate(p) if any(order(d) == 12 for d in p[j + 1:])]
    if name == "home_moves_start":
        return [p[-1] for p in piles if p and p[-1] in nexts]
    return []


def reasons_of(row, contrib, points, ctx: dict, typical: dict, k: int = REASONS) -> list[Reason]:
    """The ``k`` reasons of one deal that move its chance most (either way), most first; a probe's win first of all.

    A layout feature is a reason of its own; a probe's four features make one reason (its game, in words, its
    cards home as its value). ``row``: the deal's features, ``contrib``: their contributions, ``points``: each
    candidate's points (:func:`.effects.effects`), all Series; ``typical``: the usual values. A candidate that moves
    the chance not at all is no reason.
    """
    out: list[Reason] = []
    winner = next((p.name for p in PROBES if row[f"{p.name}_home"] >= 52), None)
    if winner:  # a win is certain: it comes first
        out.append(Reason(winner, float(row[f"{winner}_home"]), None, None, None, probe_says(winner, row)))
    ranked = sorted(((name, float(pts)) for name, pts in points.items() if name != winner and pts != 0),
                    key=lambda kv: -abs(kv[1]))
    for name, pts in ranked[: max(k - len(out), 0)]:
        probe = name not in NAMES
        column = f"{name}_home" if probe else name
        cols = [c for c in contrib.index if c != "bias" and (feature(c).probe == name if probe else c == name)]
        value, usual = float(row[column]), typical.get(column)
        fact = probe_says(name, row) if probe else say(name, value, ctx)
        extra = usual_text(name, typical)
        text = f"{side(feature(column), value, usual, pts)}: {fact}" + (f" ({extra})" if extra else "")
        out.append(Reason(name, value, float(contrib[cols].sum()), pts, usual, text))
    return out


def constant_reason(model) -> Reason:
    """What a constant model says: the share of its solved deals that are winnable."""
    t = model.training
    n = t.get("won", 0) + t.get("lost", 0)
    share = "every one" if t.get("lost", 0) == 0 else f"{t.get('won', 0):,}"
    return Reason("base_rate", model.base_rate, None, None, None,
                  f"{share} of the {n:,} solved deals of this game {'is' if share == 'every one' else 'are'} winnable: no layout tells them apart")


def explain(game, states, model=None, k: int = REASONS) -> list[Explanation]:
    """Each state's calibrated probability of being winnable and its ``k`` reasons (3 to 5), with its game's shipped
    model (or ``model``); a :class:`~sim.explain.model.ModelError` if the game has none or it does not fit."""
    from ..game import Game
    from .model import model_for

    g = game if isinstance(game, Game) else Game(game)
    model = model or model_for(g.rules.full_slug)
    states = list(states)
    features(g, [])  # the kernel and the booster loaded first: their loading is no deal's cost
    model.booster
    t0 = time.process_time()
    X = features(g, states)
    p = model.predict(X)
    contrib = model.contributions(X)
    p_model, points, by = effects(model, X, contrib)
    per_deal = (time.process_time() - t0) * 1000 / max(len(states), 1)
    certain = won_by_probe(X)
    out = []
    for i, state in enumerate(states):
        row = X.iloc[i]
        rs = reasons_of(row, contrib.iloc[i], points.iloc[i], context(state), model.typical, k)
        if model.constant and not certain[i]:
            rs = [constant_reason(model), *rs][:k]
        out.append(Explanation(float(p[i]), rs, bool(certain[i]),
                               {f.name: (None if row[f.name] != row[f.name] else float(row[f.name])) for f in FEATURES}, per_deal,
                               None if model.constant else float(p_model[i]), by))
    return out
