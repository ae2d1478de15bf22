"""``castle bench``: the compiled engine against the reference engine, moves per second, like against like."""

from __future__ import annotations

import typer

from . import options
from ..core.jsontext import dumps


def register(app: typer.Typer) -> None:
    app.command("bench")(bench)


#: bounds the arrays of the playouts fit in memory under (past 2**63 numba cannot take the move cap at all)
MAX_DEALS, MAX_REFERENCE_DEALS, MAX_MOVES = 1_000_000, 100_000, 1_000_000


def bench(
    deals: int = typer.Option(2000, min=1, max=MAX_DEALS, help="deals per game for the compiled engine (deals 1 to N)"),
    reference_deals: int = typer.Option(20, min=1, max=MAX_REFERENCE_DEALS, help="deals per game for the reference engine (deals 1 to N)"),
    max_moves: int = typer.Option(1000, min=1, max=MAX_MOVES, help="move cap per playout"),
    as_json: bool = options.as_json(help="one JSON object instead of the table"),
) -> None:
    """Random playouts: compiled engine against the reference engine, moves per second."""
    from ..study.bench import run_bench

    results = run_bench(deals=deals, reference_deals=reference_deals, max_moves=max_moves)
    if as_json:
        typer.echo(dumps(results, indent=2))
        return
    typer.echo("moves/s of random playouts; compiled and reference: legal moves and the move only (the ratio: like against "
               "like); play loop: the runner's whole games (each position hashed and recorded too)")
    typer.echo(f"{'game':<30} {'compiled':>12} {'reference':>10} {'ratio':>6} {'play loop':>12}")
    for slug, row in results.items():
        typer.echo(f"{slug:<30} {row['compiled_moves_per_s']:>12,.0f} {row['reference_moves_per_s']:>10,.0f} "
                   f"{row['ratio']:>6,.0f} {row['play_loop_moves_per_s']:>12,.0f}")
