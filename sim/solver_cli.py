"""The `castle solve` command: is this deal (or board) winnable?"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from .deals import DEFAULT_SEED
from .game import Game
from .rules import FoundationBase
from .solver import DEFAULT_BUDGET_NODES, DEFAULT_BUDGET_SECONDS, DEFAULT_TABLE_SIZE, solve


def _fail(message: str) -> None:
    print(f"castle: {message}", file=sys.stderr)
    raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""

    @app.command("solve")
    def solve_cmd(
        game: str = typer.Argument(..., help="game slug or alias, see `castle games`"),
        deal: Optional[str] = typer.Argument(None, help="deal number, or pysol:N (or give --board)"),
        board: Optional[Path] = typer.Option(None, "--board", help="a board text file instead of a deal"),
        seed: int = typer.Option(DEFAULT_SEED, help="seed of the deal numbering"),
        budget_nodes: int = typer.Option(DEFAULT_BUDGET_NODES, min=1, help="positions to search at most"),
        budget_seconds: float = typer.Option(DEFAULT_BUDGET_SECONDS, min=0.0, help="CPU seconds to search at most"),
        table_size: int = typer.Option(DEFAULT_TABLE_SIZE, help="transposition table slots (power of two; 16 bytes each; all bases together)"),
        bases: bool = typer.Option(False, "--bases", help="solve once per base rank (games whose base is chosen)"),
        shorten: bool = typer.Option(True, "--shorten/--no-shorten", help="shortcut the winning line (it stays a replayed win)"),
        as_json: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
    ) -> None:
        """Solve a deal exactly: won (with the moves), lost (proved) or unknown (budget spent)."""
        g = Game(game)
        if (deal is None) == (board is None):
            _fail("give a DEAL or --board FILE, not both and not neither")
        state = g.from_board(board.read_text()) if board is not None else g.deal(deal, seed)
        if table_size < 1024 or table_size & (table_size - 1):
            _fail(f"--table-size must be a power of two of at least 1024, not {table_size}")
        if bases and not (g.rules.foundation_base == FoundationBase.FIRST_CARD_SHARED and state.base_rank is None and state.cards_home == 0):
            _fail(f"--bases needs a game whose shared base is still to choose ({g.rules.slug} here)")
        result = solve(g, state, budget_nodes=budget_nodes, budget_seconds=budget_seconds,
                       table_size=table_size, bases=bases, shorten=shorten)
        if as_json:
            typer.echo(json.dumps(result.to_dict()))
            return
        typer.echo(f"{result.result} ({result.nodes:,} positions, {result.seconds:.2f} s)")
        if result.bases is not None:
            typer.echo("bases: " + " ".join(f"{b}={v}" for b, v in result.to_dict()["bases"].items()))
        if result.moves:
            typer.echo(" ".join(str(m) for m in result.moves))
