"""The move list beside the board and the review's note on top: one game's moves as what the page shows.

Why apart: each move is said once, as an item of the list, with its card,
its verdict's colour (``mark-<verdict>`` classes, :data:`MARKS`) and the
review's badges (:data:`BADGES`: the first mistake and what would have kept
the deal, the critical moves); the note on top sums the review up. It is the
text of one :class:`~sim.replay.record.Replay`, as plain values: the page's
template (``templates/replay.html.j2``, autoescaped) lays them out, and
:mod:`sim.replay.page` puts the page together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.cards import rank_of, suit_of
from ..core.moves import Move
from ..render.svg import moved_card, rank_label

if TYPE_CHECKING:
    from .record import Replay

__all__ = ["BADGES", "MARKS", "Card", "Item", "Review", "alternatives_text", "card_text", "legend", "items", "move_name", "review"]


def card_text(card: int | None) -> str:
    return "?" if card is None else rank_label(rank_of(card)) + "♣♦♥♠"[suit_of(card)]


def move_name(pos, move: Move) -> str:
    """A move as the page names it in words: its notation and the card it takes from ``pos`` (before it is played),
    ``3-7 (J♠)``; ``castle play --review`` and ``castle replay`` name moves by this too."""
    return f"{move} ({card_text(moved_card(pos, move, played=False))})"


@dataclass(frozen=True)
class Card:
    """A card as the list writes it: its rank and suit sign, in red or black."""

    text: str
    colour: str

    @classmethod
    def of(cls, card: int) -> Card:
        return cls(card_text(card), "red" if suit_of(card) in (1, 2) else "black")


#: what each verdict mark means, in the legend's order (other values are shown as they are)
MARKS = {
    "keeps": "keeps the deal winnable",
    "loses": "loses a winnable deal",
    "lost": "played in a game already lost",
    "unknown": "not settled",
}
#: the review's badges, as the legend explains them
BADGES = {
    "mistake": ("first mistake", "the first move that lost the winnable deal"),
    "critical": ("critical", "the only move that kept the deal winnable there"),
}


def _mark_class(mark: str) -> str:
    return "mark-" + re.sub(r"[^a-z0-9-]+", "-", str(mark).lower()).strip("-")


def legend(marks: list[str | None], badges: tuple[str, ...] = ()) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """What the colours of the moves mean: (class, meaning) per verdict present, (kind, badge, meaning) per badge."""
    present = list(dict.fromkeys(m for m in marks if m))
    order = [m for m in MARKS if m in present] + [m for m in present if m not in MARKS]
    return [(_mark_class(m), MARKS.get(m, m)) for m in order], [(b, *BADGES[b]) for b in badges]


@dataclass(frozen=True)
class Item:
    """One move of the list: its number (from 1), classes, card, move, where it went, badges, what would have kept it."""

    step: int
    classes: str
    card: Card | None
    move: str
    where: str
    badges: tuple[tuple[str, str, str], ...]  #: (kind, text, title) each
    instead: str | None  #: at the first mistake: the moves that would have kept the deal


def alternatives_text(rep: Replay) -> str:
    """The moves that would have kept the deal at the first mistake's position, each with its card."""
    pos = rep.positions[rep.first_mistake]
    return ", ".join(move_name(pos, m) for m in rep.alternatives)


def _item(rep: Replay, i: int, move: Move, card: int | None) -> Item:
    """One move of the list (``i`` from 1): its verdict's colour, and the review's badges and alternatives."""
    classes = [_mark_class(rep.marks[i - 1])] if rep.marks and rep.marks[i - 1] else []
    badges, instead = [], None
    if rep.first_mistake == i - 1:
        classes.append("first-mistake")
        badges.append(("mistake", *BADGES["mistake"]))
        instead = alternatives_text(rep) or "no other move was proved to keep it"
    if i - 1 in rep.critical:
        classes.append("critical")
        badges.append(("critical", *BADGES["critical"]))
    where = "to its foundation" if move.to_foundation else f"to pile {move.target + 1}"
    return Item(i, " ".join(classes), None if card is None else Card.of(card), str(move), where, tuple(badges), instead)


def items(rep: Replay) -> list[Item]:
    """Every move of the game, as the list shows it."""
    return [_item(rep, i, m, c) for i, (m, c) in enumerate(zip(rep.moves, rep.cards), start=1)]


@dataclass(frozen=True)
class Review:
    """The note on top of a reviewed game: the first mistake (its move number and text, what would have kept the
    deal) or the review's own sentence, the critical moves (numbers from 1), how many moves got each verdict."""

    first: int | None
    move: str
    kept: str
    said: str
    critical: tuple[int, ...]
    told: str
    why: str = ""  #: why the first mistake lost, in words (the kind of mistake), or empty


def review(rep: Replay) -> Review | None:
    """What the solver found, for the note on top (None: the game was not reviewed)."""
    if rep.review_note is None:
        return None
    first = None if rep.first_mistake is None else rep.first_mistake + 1
    note = rep.review_note
    counts = {m: rep.marks.count(m) for m in MARKS} if rep.marks else {}
    told = ", ".join(f"{counts[m]} {MARKS[m].replace('keeps', 'keep' if counts[m] != 1 else 'keeps')}" for m in MARKS if counts.get(m))
    named = "" if first is None else move_name(rep.positions[first - 1], rep.moves[first - 1])
    return Review(first, named, "" if first is None else alternatives_text(rep),
                  note[0].upper() + note[1:] if note else note, tuple(i + 1 for i in rep.critical), told,
                  (rep.why or "") if first is not None else "")
