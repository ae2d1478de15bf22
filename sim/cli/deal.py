"""``castle games`` and ``castle deal``: the games, and any deal as board text (no compiled code loaded)."""

from __future__ import annotations

import json
from enum import Enum

import typer

from ..core.deals import DEFAULT_SEED


class Format(str, Enum):
    text = "text"
    json = "json"


def register(app: typer.Typer) -> None:
    app.command("games")(games)
    app.command("deal")(deal)


def games() -> None:
    """List the games, one line each."""
    from ..core.rules import GAMES

    width = max(len(r.slug) for r in GAMES)
    for rules in GAMES:
        typer.echo(f"{rules.slug:<{width}}  {rules.description}")


def deal(
    game: str = typer.Argument(..., help="game slug or alias, see `castle games`"),
    deal: str = typer.Argument(..., help="deal number, or pysol:N for PySol FC's game N"),
    seed: int = typer.Option(DEFAULT_SEED, help="seed of the deal numbering"),
    format: Format = typer.Option(Format.text, "--format", help="text (board format) or json"),
) -> None:
    """Print a deal in the board text format."""
    from ..core.board import format_board
    from ..core.cards import SUITS, card_str
    from ..core.deals import deal_position
    from ..core.rules import find_game

    rules = find_game(game)
    pos = deal_position(rules, deal, seed)
    board = format_board(pos)
    if format is Format.json:
        typer.echo(json.dumps({
            "game": rules.slug, "deal": deal, "seed": seed,
            "piles": [[card_str(c) for c in p] for p in pos.piles],
            "foundations": {SUITS[s]: pos.foundations[s] for s in range(4)},
            "board": board,
        }))
    else:
        typer.echo(board, nl=False)
