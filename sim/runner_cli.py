"""The `castle` commands of the runner: ``castle run`` and ``castle players``."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("run")(run_cmd)
    app.command("players")(players_cmd)


def run_cmd(
    experiment: Optional[Path] = typer.Argument(None, help="experiment file (TOML); flags override its fields", show_default=False),
    game: Optional[List[str]] = typer.Option(None, "--game", help="a game to play (repeatable)", show_default=False),
    player: Optional[List[str]] = typer.Option(None, "--player", help="a player, e.g. lookahead:depth=3 (repeatable)", show_default=False),
    deals: Optional[int] = typer.Option(None, help="play deals 0 to N-1", show_default=False),
    deal_range: Optional[str] = typer.Option(None, help="play deals A to B-1, given as A:B", show_default=False),
    seed: Optional[int] = typer.Option(None, help="seed of the deals and the players' draws", show_default=False),
    chunk_size: Optional[int] = typer.Option(None, help="deals per task and per Parquet file", show_default=False),
    jobs: int = typer.Option(1, help="worker processes (loky) or local Dask workers"),
    out: Optional[Path] = typer.Option(None, help="results directory [default: data/<experiment name>]", show_default=False),
    backend: str = typer.Option("loky", help="loky (this machine) or dask"),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address (default: a local cluster)", show_default=False),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress", help="progress bar [default: on a terminal]", show_default=False),
) -> None:
    """Play an experiment (games x players x deals) into a Parquet dataset; rerun to resume."""
    from .experiment import build, read_toml
    from .paths import DATA_DIR
    from .runner import run

    data = read_toml(experiment) if experiment is not None else {}
    exp = build(data, games=game, players=player, deals=deals, deal_range=deal_range, seed=seed, chunk_size=chunk_size)
    target = out if out is not None else DATA_DIR / exp.name
    summary = run(exp, target, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress)
    skipped = f", {summary.chunks_skipped} of {summary.chunks} chunks already there" if summary.chunks_skipped else ""
    typer.echo(
        f"{summary.deals_played:,} games played in {summary.seconds:.1f} s ({summary.deals_per_s:,.0f}/s){skipped}; results in {summary.out}"
    )


def players_cmd() -> None:
    """List the players, each with its parameters and their defaults."""
    from .players import registry

    players = registry()
    width = max(len(n) for n in players)
    for name, spec in players.items():
        kind = "compiled" if spec.kind is not None else "python"
        typer.echo(f"{name:<{width}}  [{kind}] {spec.summary}")
        pw = max((len(f"{p.name}={p.default}") for p in spec.all_params), default=0)
        for p in spec.all_params:
            typer.echo(f"{'':<{width}}    {f'{p.name}={p.default}':<{pw}}  {p.help}")
