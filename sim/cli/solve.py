"""``castle solve``: is this deal (or board) winnable? Many deals or boards in one call, on ``--jobs`` processes."""

from __future__ import annotations

import sys
import time
from functools import partial
from typing import List, Optional

import typer

from . import options
from ..core.jsontext import finite
from ..core.limits import DEFAULT_BUDGET_NODES, DEFAULT_BUDGET_SECONDS, DEFAULT_TABLE_SIZE
from .boards import Item, each, echo_lines, game_fields, items
from .errors import UserError


def register(app: typer.Typer) -> None:
    app.command("solve")(solve_cmd)


def solve_cmd(
    game: str = typer.Argument(..., help="game slug or alias, see `castle games`"),
    deals: Optional[List[str]] = typer.Argument(None, help="deal numbers or pysol:N; with --board, board files, folders of them, or - (standard input, boards separated by blank lines)", show_default=False),
    board: bool = options.boards(),
    seed: int = options.seed(),
    budget_nodes: int = typer.Option(DEFAULT_BUDGET_NODES, help="positions to search at most, per deal"),
    budget_seconds: float = typer.Option(DEFAULT_BUDGET_SECONDS, help="CPU seconds to search at most, per deal"),
    table_size: int = typer.Option(DEFAULT_TABLE_SIZE, help="transposition table slots (power of two; 16 bytes each; all bases together)"),
    bases: bool = typer.Option(False, "--bases", help="solve once per base rank (games whose base is chosen)"),
    shorten: bool = typer.Option(True, "--shorten/--no-shorten", help="shortcut the winning line (it stays a replayed win)"),
    portfolio: bool = typer.Option(True, "--portfolio/--no-portfolio", help="give a deal unsettled after a million positions to the strongest beam once"),
    most_home: bool = typer.Option(False, "--most-home", help="also the most cards home of any reachable position (no pruning: slower)"),
    dead_end: bool = typer.Option(False, "--dead-end", help="prove at once that a position from which no card can ever go home is lost (pruning rule 5: fewer unknowns on hard deals)"),
    jobs: int = options.jobs("processes solving at once (several deals or boards)"),
    as_json: bool = options.as_json(),
) -> None:
    """Solve deals exactly: won (with the moves), lost (proved) or unknown (budget spent).

    One deal takes up to --budget-seconds of CPU (60 by default) and, with
    --bases, about that again for each base still open; the table grows to
    at most --table-size slots of 16 bytes (2 GB by default; the search's
    path can take about as much again), and once full there forgets its
    cheapest proved losses to go on.
    """
    from ..game import Game
    from ..solver.answer import base_to_choose
    from ..core.limits import check_limits

    g = Game(game)
    problem = check_limits(budget_nodes, budget_seconds, table_size)
    if problem:
        raise UserError(problem.replace("budget_", "--budget-").replace("table_size", "--table-size"))
    todo = items(g, deals or [], board, seed)
    if bases and not all(base_to_choose(g.rules, it.state(g, seed).array) for it in todo):
        raise UserError(f"--bases needs a game whose shared base is still to choose ({g.rules.slug} here)")
    work = partial(_solve, g.rules.full_slug, seed, dict(budget_nodes=budget_nodes, budget_seconds=budget_seconds,
                                                    table_size=table_size, bases=bases, shorten=shorten, portfolio=portfolio,
                                                    most_home=most_home, dead_end=dead_end))
    if len(todo) > 1 or as_json:
        if jobs > 1 and len(todo) > 1:
            from ..solver.memory import capped, worker_mb

            jobs = capped(min(jobs, len(todo)), worker_mb([(table_size, budget_nodes)])[0], "castle solve")
        echo_lines(map(finite, each(work, todo, jobs)))  # (NaN and Infinity as null: strict JSON)
        return
    progress = _Ticker() if sys.stderr.isatty() else None
    try:
        row = work(todo[0], progress=progress)
    finally:
        if progress is not None:
            progress.clear()
    most = f", at most {row['most_home']} cards home" if "most_home" in row else ""
    typer.echo(f"{row['result']} ({row['nodes']:,} positions, {row['seconds']:.2f} s{most})")
    if "bases" in row:
        typer.echo("bases: " + " ".join(f"{b}={v}" for b, v in row["bases"].items()))
    if row["moves"]:
        typer.echo(" ".join(row["moves"]))


def _solve(name: str, seed: int, params: dict, item: Item, progress=None) -> dict:
    """One item's answer as a JSON-ready row (in a worker when there are several)."""
    from ..game import Game
    from ..solver.answer import solve

    game = Game(name)
    result = solve(game, item.state(game, seed), progress=progress, **params)
    return {**game_fields(game.rules), item.key: item.name, **({"seed": seed} if item.key == "deal" else {}), **result.to_dict()}


class _Ticker:
    """One line on the terminal, redrawn at most twice a second: positions, problems settled, time left."""

    def __init__(self) -> None:
        self.last = 0.0

    def __call__(self, nodes: int, settled: int, problems: int, left: float) -> None:
        now = time.monotonic()
        if now - self.last < 0.5:
            return
        self.last = now
        bases = f", {settled} of {problems} bases settled" if problems > 1 else ""
        sys.stderr.write(f"\r{nodes:,} positions{bases}, at most {max(left, 0):.0f} CPU-s left ")
        sys.stderr.flush()

    def clear(self) -> None:
        if self.last:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
