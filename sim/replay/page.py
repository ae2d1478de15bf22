"""The replay page put together: the board, the game's steps as JSON, the move list, the notes, one HTML file.

Why apart: this is where a :class:`~sim.replay.record.Replay` becomes the
page, and nothing here plays: the board is :func:`~sim.render.svg.board_svg`
of the deal, every position a compact JSON step the page's script
moves the card glyphs to, the move list and the review's note come from
:mod:`sim.replay.movelist`, and the template (:mod:`sim.replay.template`,
Jinja2, autoescaped) lays them out. :func:`write_replay`
records the game and writes its page in one call (the report's).
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

from markupsafe import Markup

from ..core import files
from ..core.board import Position
from ..core.cards import RANKS, SUITS, suit_of
from ..core.deals import DEFAULT_SEED
from ..core.jsontext import script_json
from ..core.moves import Move
from ..core.rules import MAX_PILES, Rules
from ..render.svg import CARD_H, FAN, Layout, base_label, board_svg, moved_card
from .movelist import alternatives_text, card_text, items, legend
from .movelist import review as review_of
from .record import Replay, record_replay
from .template import render

__all__ = ["ENDINGS", "replay_html", "write_replay"]

#: what the page says about each way a game ends
ENDINGS = {
    "won": "won: all 52 cards are home",
    "stuck": "stuck: no legal move is left",
    "gave_up": "gave up: the player stopped on this position (no move to a position it had not seen, or the move cap)",
    "lost": "the solver proved this deal lost: no sequence of moves wins it, so there is no game to replay",
    "unknown": "the solver's budget ran out before it found a win or proved there is none, so there is no game to replay",
}

LIST_W = 256  #: the move list's width beside the board
SIDE_BY_SIDE = 0.72  #: the smallest scale of the board kept beside the move list; narrower, the list goes below


def _pile_or_suit(move: Move, card: int | None, source: bool) -> int | str | None:
    """Where a move's outline goes: a pile index, or the suit letter of a foundation."""
    if source:
        return SUITS[move.source - MAX_PILES] if move.from_foundation else move.source
    if move.to_foundation:
        return SUITS[suit_of(card)] if card is not None else None
    return move.target


def _step(rules: Rules, pos: Position, move: Move | None, card: int | None) -> dict:
    """One position as the page's JSON: piles, foundation counts, base letters, the move that led here."""
    bases = [base_label(rules, pos, s).split()[-1] for s in range(4)]
    d = {"p": pos.piles, "f": pos.foundations, "b": "".join("T" if b == "10" else b for b in bases)}
    if move is not None:
        d["m"] = str(move)
        d["c"] = card
        d["h"] = [_pile_or_suit(move, card, True), _pile_or_suit(move, card, False)]
    return d


def replay_html(rep: Replay, back: str | None = None) -> str:
    """The page: one HTML file, no network. ``back``: a relative URL for a "back to the report" link on top."""
    rules = rep.rules
    rows = max(max((len(p) for p in pos.piles[: rules.n_tableau]), default=1) for pos in rep.positions)
    lay = Layout(rules, max(rows, 1), title=False)
    svg = board_svg(rep.positions[0], rules, rows=rows)
    steps = [_step(rules, rep.positions[0], None, None)]
    steps += [_step(rules, pos, m, c) for pos, m, c in zip(rep.positions[1:], rep.moves, rep.cards)]
    n = len(rep.moves)
    solver_only = rep.result in ("lost", "unknown")
    ending = ENDINGS.get(rep.result, rep.result)
    if rep.legal_at_end:
        final = rep.positions[-1]
        ending += f"; its legal moves ({len(rep.legal_at_end)}): " + ", ".join(
            f"{m} ({card_text(moved_card(final, m, played=False))})" for m in rep.legal_at_end)
    elif rep.result == "gave_up":
        ending += "; no legal move is left"
    ending = ending[0].upper() + ending[1:] + "." if solver_only else "At the end: " + ending + "."
    data = {
        "layout": lay.to_json(),
        "fanH": FAN, "cardH": CARD_H,
        "nTableau": rules.n_tableau,
        "ranks": RANKS, "suits": SUITS,
        "steps": steps,
        "result": rep.result,
        "name": rules.name,
        "end": ENDINGS.get(rep.result, rep.result).split(":")[0],
    }
    summary = ({"lost": "proved lost", "unknown": "unknown (budget spent)"}[rep.result] if solver_only else
               f"{rep.result.replace('_', ' ')} after {n} move{'s' * (n != 1)}, {rep.cards_home}/52 cards home")
    nodes = rep.extra.get("nodes")
    if isinstance(nodes, numbers.Real) and math.isfinite(nodes):  # (a count not known is not shown as nan)
        summary += f" ({nodes:,} positions searched)"
    marks = rep.marks
    if marks is not None and len(marks) != n:
        raise ValueError(f"{len(marks)} marks for {n} moves")
    if rep.review_note is not None:
        data["review"] = {"first": None if rep.first_mistake is None else rep.first_mistake + 1,
                          "instead": alternatives_text(rep) if rep.first_mistake is not None else "",
                          "critical": [i + 1 for i in rep.critical]}
    badges = tuple(b for b, on in (("mistake", rep.first_mistake is not None), ("critical", bool(rep.critical))) if on)
    legend_marks, legend_badges = legend(marks or [], badges)
    return render(
        title=rep.title, summary=summary, result=rep.result, rules=rules.description, ending=ending, back=back,
        n=n, tidied_from=rep.tidied_from, review=review_of(rep), moves=items(rep), marks=legend_marks, badges=legend_badges,
        board=Markup(svg),  # (drawn by sim.render.svg, its text escaped there)
        data=Markup(script_json(data)),  # strict (NaN and Infinity as null), and nothing in it can end the <script>
        width=lay.width, list_width=LIST_W, narrow=round(SIDE_BY_SIDE * lay.width) + LIST_W + 18 + 40,
    )


def write_replay(game, deal: int | str, player: str | None, seed: int = DEFAULT_SEED, path: str | Path = "replay.html", *,
                 max_moves: int | None = None, back: str | None = None, tidy: bool = True, review: bool = False,
                 moves=None) -> Replay:
    """Play ``deal`` of ``seed`` with ``player`` and write its replay page to ``path``; the :class:`Replay` (``.path`` set).

    ``back``: a URL relative to the page (e.g. ``"../index.html"``) for a "back to the report" link on top.
    ``review`` and ``moves``: as :func:`record_replay`.
    """
    rep = record_replay(game, deal, player, seed, max_moves=max_moves, tidy=tidy, review=review, moves=moves)
    path = Path(path)
    files.write_atomic(path, replay_html(rep, back=back))
    rep.path = path
    return rep
