"""The move list beside the board and the review's note on top: one game's moves as HTML.

Why apart: each move is written once, as an item of the list, with its card,
its verdict's colour (``mark-<verdict>`` classes, :data:`MARKS`) and the
review's badges (:data:`BADGES`: the first mistake and what would have kept
the deal, the critical moves); the note on top sums the review up. It is text
of one :class:`~sim.replay.record.Replay`, independent of the board and the
script (:mod:`sim.replay.page` puts the page together).
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from ..core.cards import rank_of, suit_of
from ..core.moves import Move
from ..render.svg import moved_card, rank_label

if TYPE_CHECKING:
    from .record import Replay

__all__ = ["BADGES", "MARKS", "alternatives_text", "card_text", "legend", "move_item", "move_name", "review_html"]


def card_text(card: int | None) -> str:
    return "?" if card is None else rank_label(rank_of(card)) + "♣♦♥♠"[suit_of(card)]


def move_name(pos, move: Move) -> str:
    """A move as the page names it in words: its notation and the card it takes from ``pos`` (before it is played),
    ``3-7 (J♠)``; ``castle play --review`` and ``castle replay`` name moves by this too."""
    return f"{move} ({card_text(moved_card(pos, move, played=False))})"


def _card_html(card: int) -> str:
    r = rank_label(rank_of(card))
    colour = "red" if suit_of(card) in (1, 2) else "black"
    return f'<span class="c {colour}">{r}{"♣♦♥♠"[suit_of(card)]}</span>'


def _move_html(move: Move, card: int | None) -> str:
    what = _card_html(card) if card is not None else ""
    where = "to its foundation" if move.to_foundation else f"to pile {move.target + 1}"
    return f'{what} <span class="mv">{html.escape(str(move))}</span> <span class="to">{where}</span>'


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


def legend(marks: list[str | None], badges: tuple[str, ...] = ()) -> str:
    present = list(dict.fromkeys(m for m in marks if m))
    order = [m for m in MARKS if m in present] + [m for m in present if m not in MARKS]
    if not order and not badges:
        return ""
    items = "".join(f'<li class="{_mark_class(m)}">{html.escape(MARKS.get(m, m))}</li>' for m in order)
    items += "".join(f'<li class="badge-key"><span class="badge {b}">{BADGES[b][0]}</span> {BADGES[b][1]}</li>' for b in badges)
    return f'<ul class="legend" aria-label="what the colours of the moves mean">{items}</ul>'


def _badge(kind: str) -> str:
    text, title = BADGES[kind]
    return f' <span class="badge {kind}" title="{html.escape(title, quote=True)}">{text}</span>'


def alternatives_text(rep: Replay) -> str:
    """The moves that would have kept the deal at the first mistake's position, each with its card."""
    pos = rep.positions[rep.first_mistake]
    return ", ".join(move_name(pos, m) for m in rep.alternatives)


def move_item(rep: Replay, i: int, move: Move, card: int | None) -> str:
    """One move of the list (``i`` from 1): its verdict's colour, and the review's badges and alternatives."""
    classes = [_mark_class(rep.marks[i - 1])] if rep.marks and rep.marks[i - 1] else []
    badges, after = "", ""
    if rep.first_mistake == i - 1:
        classes.append("first-mistake")
        badges += _badge("mistake")
        kept = alternatives_text(rep) or "no other move was proved to keep it"
        after = f'<div class="instead">would have kept the deal: {html.escape(kept)}</div>'
    if i - 1 in rep.critical:
        classes.append("critical")
        badges += _badge("critical")
    attr = f' class="{" ".join(classes)}"' if classes else ""
    return (f'<li data-step="{i}"{attr}><a href="#move={i}"><span class="n">{i}.</span> {_move_html(move, card)}{badges}</a>'
            f'{after}</li>')


def review_html(rep: Replay) -> str:
    """The note on top of a reviewed game: what the solver found, with a link to the first mistake."""
    if rep.review_note is None:
        return ""
    if rep.first_mistake is not None:
        k = rep.first_mistake + 1
        kept = alternatives_text(rep)
        named = move_name(rep.positions[k - 1], rep.moves[k - 1])
        why = f" Why: {html.escape(rep.why)}." if rep.why else ""
        text = (f'<a href="#move={k}">Move {k}, {html.escape(named)}</a>, is the first mistake: the deal was '
                f'winnable before it and is lost after it.{why} '
                + (f"Would have kept the deal: {html.escape(kept)}." if kept else "No other move was proved to keep it."))
    else:
        note = rep.review_note
        text = html.escape(note[0].upper() + note[1:]) + "."
    if rep.critical:
        links = ", ".join(f'<a href="#move={i + 1}">{i + 1}</a>' for i in rep.critical)
        text += (f" Critical move{'s' * (len(rep.critical) != 1)} (the only move that kept the deal winnable there): "
                 f"{links}.")
    counts = {m: rep.marks.count(m) for m in MARKS} if rep.marks else {}
    told = ", ".join(f"{counts[m]} {MARKS[m].replace('keeps', 'keep' if counts[m] != 1 else 'keeps')}" for m in MARKS if counts.get(m))
    if told:
        text += f" Moves: {html.escape(told)}."
    return f'<p class="note review"><b>Reviewed by the solver.</b> {text}</p>'
