"""``castle games`` and ``castle deal``: the games, and any deal as board text (no compiled code loaded)."""

from __future__ import annotations

from enum import Enum

import typer

from . import options
from ..core.jsontext import dumps


class Format(str, Enum):
    text = "text"
    json = "json"


def register(app: typer.Typer) -> None:
    app.command("games")(games)
    app.command("deal")(deal)


def games() -> None:
    """List the games, one line each; under a game, its dialects (``game@dialect``), one line each."""
    from ..core.rules import DIALECTS, GAMES, dialects_of, with_dialect

    described = {d.name: d.description for d in DIALECTS}
    lines = []
    for rules in GAMES:
        lines.append((rules.slug, rules.description))
        lines += [(f"  {with_dialect(rules, d).full_slug}", described[d]) for d in dialects_of(rules)]
    width = max(len(name) for name, _ in lines)
    for name, text in lines:
        typer.echo(f"{name:<{width}}  {text}")


def deal(
    game: str = typer.Argument(..., help="game slug or alias, see `castle games`"),
    deal: str = typer.Argument(..., help="deal number, or pysol:N for PySol FC's game N"),
    seed: int = options.seed(),
    format: Format = typer.Option(Format.text, "--format", help="text (board format) or json"),
) -> None:
    """Print a deal in the board text format."""
    from ..core.board import format_board
    from ..core.cards import SUITS, card_str
    from ..core.deals import deal_position
    from ..core.rules import SHEET, find_game

    from .boards import check_seed

    rules = find_game(game)
    check_seed(seed)
    pos = deal_position(rules, deal, seed)
    board = format_board(pos)
    if format is Format.json:
        typer.echo(dumps({
            "game": rules.slug, **({"dialect": rules.dialect} if rules.dialect != SHEET else {}), "deal": deal, "seed": seed,
            "piles": [[card_str(c) for c in p] for p in pos.piles],
            "foundations": {SUITS[s]: pos.foundations[s] for s in range(4)},
            "board": board,
        }))
    else:
        typer.echo(board, nl=False)
