"""``castle show``: a deal or a board as a picture (SVG, or PNG through cairosvg)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from . import options
from ..core import files
from ..core.deals import DEFAULT_SEED
from .errors import UserError

#: what ``--out`` may end with
PICTURE_SUFFIXES = (".svg", ".png")


def register(app: typer.Typer) -> None:
    app.command("show")(show)


def show(
    game: str = typer.Argument(..., help="game slug or alias, see `castle games`"),
    deal: Optional[str] = typer.Argument(None, help="deal number or pysol:N (or give --board)", show_default=False),
    seed: int = options.seed(),
    board: Optional[str] = typer.Option(None, "--board", help="a board text file (or - for standard input) instead of a deal", show_default=False),
    move: Optional[str] = typer.Option(None, "--move", help="outline a legal move's source and target, e.g. 3-F or 1-8", show_default=False),
    out: Optional[Path] = typer.Option(None, "--out", help="write FILE.svg or FILE.png (PNG needs cairosvg) instead of SVG on standard output", show_default=False),
    explain: bool = typer.Option(False, "--explain", help="with the probability that the deal is winnable and its reasons (castle explain) in a legend under it; each card a reason names is framed and carries that reason's numbered badge (green: it helps, red: it stands in the way)"),
) -> None:
    """Draw a deal or a board as an SVG picture (or PNG with --out FILE.png)."""
    from ..game import Game

    suffix = check_out(out, PICTURE_SUFFIXES)
    g = Game(game)
    state, title = position_of(g, deal, board, seed)
    played = None
    if move is not None:
        played = _legal(state, move)
        title += f" · next move {played}"
    from ..render.svg import board_svg

    marks, legend = {}, []
    if explain:
        marks, legend, title = _explained(g, state, title)
    svg = board_svg(state, move=played, title=title, marks=marks, legend=legend)
    if out is None:
        typer.echo(svg)
        return
    if suffix == ".png":
        from ..render.png import PngUnavailable, svg_to_png

        try:
            data = svg_to_png(svg)
        except PngUnavailable as e:
            raise UserError(str(e)) from None
    else:
        data = svg + "\n"
    files.write_atomic(out, data)  # the old picture stays whole until the new one is
    typer.echo(f"wrote {out}")


def _explained(g, state, title: str) -> tuple[dict[int, list[int]], list, str]:
    """The cards to mark (card -> the numbers of the reasons naming it, each a badge), the legend (a badge and its
    reason a line, then what the points are) and the title with the probability: what ``castle explain`` says of
    the deal, drawn."""
    from ..explain import ModelError, explain
    from ..explain.reasons import cards_of
    from ..explain.words import POINTS_NOTE, POINTS_NOTE_SHAP, points_text
    from ..render.marks import Entry

    try:
        (e,) = explain(g, [state])
    except ModelError as err:
        raise UserError(str(err)) from None
    marks: dict[int, list[int]] = {}
    legend = []
    for i, r in enumerate(e.reasons, 1):
        cards = cards_of(r.feature, state)
        for c in cards:
            marks.setdefault(c, []).append(i)
        tone = "" if r.helps is None else "help" if r.helps else "hinder"
        points = "" if r.points is None else f"{points_text(r.points)} · "
        legend.append(Entry(str(i), tone, f"{points}{r.text}", bool(cards)))
    if any(r.points is not None for r in e.reasons):
        legend.append(Entry("", "", "Badges mark the cards a reason names (a hollow badge: a reason about no single "
                            "card). " + _sentence(POINTS_NOTE if e.points_by == "usual" else POINTS_NOTE_SHAP), True))
    p = "over 99%" if 0.995 <= e.p_win < 1 else "under 1%" if 0 < e.p_win < 0.005 else f"{e.p_win:.0%}"
    return marks, legend, f"{title} · {p} winnable" + (" (for certain)" if e.certain else "")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def check_out(out: Optional[Path], suffixes: tuple[str, ...]) -> str | None:
    """``--out``'s extension, checked before any work is done (and its folder, so nothing is computed for nothing)."""
    if out is None:
        return None
    suffix = out.suffix.lower()
    if suffix not in suffixes:
        what = f"unknown extension {suffix!r}" if suffix else "no extension"
        raise UserError(f"--out {out}: {what}; use {' or '.join(suffixes)}")
    folder = out.parent
    if not folder.is_dir():
        raise UserError(f"--out {out}: {'no folder' if not folder.exists() else 'not a folder'} {folder}")
    if out.is_dir():
        raise UserError(f"--out {out}: is a folder")
    return suffix


def position_of(g, deal: Optional[str], board: Optional[str], seed: int):
    """The state of DEAL or of --board FILE (exactly one), and a title naming it."""
    from .boards import items

    if (deal is None) == (board is None):
        raise UserError("give a DEAL or --board FILE (one of them)")
    found = items(g, [deal if board is None else board], board is not None, seed)
    if len(found) != 1:
        raise UserError(f"--board {board}: {len(found)} boards; give one")
    item = found[0]
    state = item.state(g, seed)
    if item.key == "deal":
        title = f"{g.rules.name}, deal {item.name}" + (f" (seed {seed})" if seed != DEFAULT_SEED and not item.name.startswith("pysol") else "")
    else:
        title = f"{g.rules.name}, board {'from standard input' if item.name.startswith('-') else Path(item.name).name}"
    return state, title


def _legal(state, text: str):
    """The move ``text`` if it is legal here; an :class:`IllegalMoveError` saying why if not."""
    from ..core.moves import Move

    m = Move.from_str(text)
    if not state.is_legal(m):
        state.copy().push(m)  # raises IllegalMoveError with the reference engine's reason
    return m
