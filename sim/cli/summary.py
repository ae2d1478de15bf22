"""``castle summary``: each game and player's estimate in its design, with its interval, deals and CPU."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .errors import UserError


def register(app: typer.Typer) -> None:
    app.command("summary")(summary)


def summary(
    data: Optional[Path] = typer.Argument(None, help="result dataset folder, or a folder of them such as data/published (default: data/default)",
                                          show_default=False),
    json_lines: bool = typer.Option(False, "--json", help="one JSON line per estimate: game, player, design, estimate, lo, hi "
                                                          "(fractions), deals, cpu_seconds, solved_again"),
) -> None:
    """The share of deals each player won, and each game's winnability under perfect play over all its solver runs,
    each estimated in the design it was played in (plain, or the phased player's two- and three-phase designs),
    with a 95% interval, the deals and the CPU it took.

    Perfect play ("perfect play" rows) joins every run of the solver and of the solver in phases: the plain runs'
    deals with one verdict per deal, and each phased run's other deals as a stratum of their own (analysis/designs.py);
    the ``settle`` player's verdicts (deals those runs left unknown, solved again deeper) in place of those unknowns.
    """
    from analysis.designs import estimates
    from analysis.load import ResultsError, load_study, study_parts
    from analysis.scan import CheapRows, memory_limit

    from ..study.paths import DEFAULT_DATA

    data = data or DEFAULT_DATA
    try:
        memory_limit()  # (before the rows are read: a bad setting is said at once)
        df, _ = load_study(data, judged_only=True)  # (the heuristic players' rows are counted where they lie)
        cheap = CheapRows(study_parts(data))
    except ResultsError as e:
        raise UserError(str(e)) from None
    try:
        rows = estimates(df, cheap)
    finally:
        cheap.close()
    if json_lines:
        for e in rows:
            typer.echo(e.to_json())
        return
    if not rows:
        typer.echo(f"no estimates in {data}: none of its runs is a design (a settle run's verdicts only take the place of "
                   "other runs' unknowns: read it with them)")
        return
    width = max([len(e.player) for e in rows] + [6])
    dw = max([len(e.described) for e in rows] + [6])
    typer.echo(f"{'game':<30} {'player':<{width}} {'design':<{dw}} {'estimate':>9} {'95% interval':>19} {'deals':>9} {'CPU-h':>8}")
    for e in rows:
        typer.echo(f"{e.game:<30} {e.player:<{width}} {e.described:<{dw}} {100 * e.estimate:8.3f}% "
                   f"{100 * e.lo:8.3f}-{100 * e.hi:7.3f}% {e.deals:>9,} {e.cpu_seconds / 3600:8.2f}")
