"""``castle solve``: is this deal (or board) winnable?"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..core.deals import DEFAULT_SEED
from ..solver.limits import DEFAULT_BUDGET_NODES, DEFAULT_BUDGET_SECONDS, DEFAULT_TABLE_SIZE
from .errors import UserError


def register(app: typer.Typer) -> None:
    app.command("solve")(solve_cmd)


def solve_cmd(
    game: str = typer.Argument(..., help="game slug or alias, see `castle games`"),
    deal: Optional[str] = typer.Argument(None, help="deal number, or pysol:N (or give --board)", show_default=False),
    board: Optional[Path] = typer.Option(None, "--board", help="a board text file instead of a deal", show_default=False),
    seed: int = typer.Option(DEFAULT_SEED, help="seed of the deal numbering"),
    budget_nodes: int = typer.Option(DEFAULT_BUDGET_NODES, help="positions to search at most"),
    budget_seconds: float = typer.Option(DEFAULT_BUDGET_SECONDS, help="CPU seconds to search at most"),
    table_size: int = typer.Option(DEFAULT_TABLE_SIZE, help="transposition table slots (power of two; 16 bytes each; all bases together)"),
    bases: bool = typer.Option(False, "--bases", help="solve once per base rank (games whose base is chosen)"),
    shorten: bool = typer.Option(True, "--shorten/--no-shorten", help="shortcut the winning line (it stays a replayed win)"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """Solve a deal exactly: won (with the moves), lost (proved) or unknown (budget spent)."""
    from ..core.game import Game
    from ..solver.answer import base_to_choose, solve
    from ..solver.limits import check_limits

    g = Game(game)
    if (deal is None) == (board is None):
        raise UserError("give a DEAL or --board FILE, not both and not neither")
    problem = check_limits(budget_nodes, budget_seconds, table_size)
    if problem:
        raise UserError(problem.replace("budget_", "--budget-").replace("table_size", "--table-size"))
    state = g.from_board(_read_board(board)) if board is not None else g.deal(deal, seed)
    if bases and not base_to_choose(g.rules, state.array):
        raise UserError(f"--bases needs a game whose shared base is still to choose ({g.rules.slug} here)")
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


def _read_board(path: Path) -> str:
    """A board file's text; a file that is not text is bad input, not a crash."""
    try:
        return path.read_text()
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a board text file (it is not UTF-8 text)") from None
