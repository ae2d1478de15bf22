"""``castle run`` and ``castle report``: an experiment into a dataset, and a dataset into a report."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import List, Optional

import typer

from . import options
from .errors import Interrupted, UserError, terminate_as_interrupt


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("run")(run_cmd)
    app.command("report")(report_cmd)


def run_cmd(
    experiments: Optional[List[Path]] = typer.Argument(None, help="experiment files (TOML), run one after the other; flags override their fields", show_default=False),
    game: Optional[List[str]] = options.games(),
    player: Optional[List[str]] = options.players(),
    deals: Optional[int] = options.deals(),
    deal_range: Optional[str] = options.deal_range(),
    seed: Optional[int] = options.seed(None, draws=True),
    chunk_size: Optional[int] = typer.Option(None, help="deals per task and per Parquet file", show_default=False),
    jobs: int = options.jobs("worker processes (loky) or local Dask workers", least=None),
    out: Optional[Path] = typer.Option(None, help="results directory [default: the file's out, else data/<experiment name>, relative to here]", show_default=False),
    backend: str = typer.Option("loky", help="loky (this machine) or dask"),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address (default: a local cluster)", show_default=False),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress", help="progress bar [default: on a terminal]", show_default=False),
    halfwidth: Optional[float] = typer.Option(None, "--halfwidth", help="play the solver in phases (player phased, the default then) "
                                              "until each game's winnability is known to ±H points: a pilot, then Neyman's "
                                              "rates and a fixed number of deals (sim/precision/)", show_default=False),
    cpu_hours: Optional[float] = typer.Option(None, "--cpu-hours", help="with --halfwidth: stop when this much CPU is spent", show_default=False),
    pilot: Optional[int] = typer.Option(None, "--pilot", help="with --halfwidth: the pilot's deals [default: 1000]", show_default=False),
    settle: Optional[str] = typer.Option(None, "--settle", help="with --halfwidth: the player that solves the deals left unknown "
                                         "at the full budget again, the pilot's to plan and the run's after it, or none "
                                         "[default: settle]", show_default=False),
    plan: bool = typer.Option(False, "--plan", help="with --halfwidth: print the plan (phases, deals, CPU-hours, wall time on "
                              "--jobs, memory) and stop; nothing is played or written"),
    unknowns_of: Optional[List[Path]] = typer.Option(None, "--unknowns-of", help="play only the deals this results folder's exact "
                                                      "runs left unknown at their full budget (repeatable; player settle, the "
                                                      "default then, solves them again deeper)", show_default=False),
) -> None:
    """Play an experiment (games x players x deals) into a Parquet dataset; rerun to resume.

    --deals N plays deals 1 to N; --deal-range A:B plays A to B-1 (deal 0 too, from 0:N). With --halfwidth H (or
    halfwidth = H in the experiment file) the deals played are chosen for the precision: the deal range's start is
    where the pilot begins, and the run plays as many deals after it as the design needs. It says its plan before the
    pilot and again after it; --plan says it and stops."""
    from ..study.experiment import ExperimentError, read_toml
    from ..study.halfwidth import build_run
    from ..study.paths import DATA_DIR
    from ..study.runner import run

    if out is not None and experiments and len(experiments) > 1:
        raise UserError("--out names one results folder: give one experiment file with it")
    files = experiments or []
    try:
        tables = [read_toml(f) for f in files] if files else [{}]
        if unknowns_of:
            tables = [t | {"unknowns_of": [str(f) for f in unknowns_of]} for t in tables]
        built = []
        for k, table in enumerate(tables):  # every experiment checked before any is played: a bad second file must not
            try:                            # stop a call half done
                built.append(build_run(table, halfwidth=halfwidth, cpu_hours=cpu_hours, pilot=pilot, settle=settle, plan=plan,
                                       games=game, players=player, deals=deals, deal_range=deal_range, seed=seed,
                                       chunk_size=chunk_size, from_file=bool(files)))
            except ExperimentError as e:
                raise UserError(f"{_where(files, k)}{_flagged(e)}") from None
        targets = [out or (Path(exp.out) if exp.out else DATA_DIR / exp.name) for exp, _ in built]
        _check_all(built, targets, files)
        for (exp, want), target in zip(built, targets):
            if want is None and exp.unknowns_of and not exp.n_games:  # (a rerun finding every unknown settled: done, not wrong)
                typer.echo(f"castle run: nothing to play: the exact runs of {', '.join(exp.unknowns_of)} left no deal of "
                           f"{', '.join(g.full_slug for g in exp.games)} unknown that is not solved already", err=True)
                continue
            if want is None:
                _say(run(exp, target, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress))
                continue
            from ..precision import run_to_halfwidth

            for summary in run_to_halfwidth(exp, target, *want.args, say=lambda line: typer.echo(line, err=not plan),
                                            plan_only=plan, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress):
                if summary is not None:
                    _say(summary)
    except (ExperimentError, TypeError, ValueError) as e:
        text = _flagged(e)
        raise UserError(text.splitlines()[0] if text else e.__class__.__name__) from None


#: how ``castle run`` names the runner's arguments in its messages: by its flags (the runner names them in its words)
FLAGS = {"jobs": "--jobs", "scheduler": "--scheduler", "dask": "--backend dask", "out": "--out", "halfwidth": "--halfwidth",
         "cpu_hours": "--cpu-hours", "pilot": "--pilot", "settle": "--settle", "deals": "--deals", "deal_range": "--deal-range",
         "unknowns_of": "--unknowns-of", "plan": "--plan"}


def _flagged(error: Exception) -> str:
    """The error's message as ``castle run`` says it: an argument the runner names in its own words, by its flag."""
    from ..study.errors import ArgumentError

    return error.worded(FLAGS) if isinstance(error, ArgumentError) else str(error)


def _where(files, k: int) -> str:
    """Which file a message is about, when the call gives several."""
    return f"{files[k]}: " if len(files) > 1 else ""


def _check_all(built, targets, files) -> None:
    """Every experiment of the call checked against its results folder, and against the others, before any is played:
    a bad second file must not stop a call half done."""
    from ..kernels.legal import ENGINE_VERSION
    from ..study.experiment import ExperimentError
    from ..study.dataset import MANIFEST
    from ..study.resume import check, conflict

    seen: dict[Path, int] = {}
    for k, ((exp, want), target) in enumerate(zip(built, targets)):
        where = _where(files, k)
        try:
            if want is not None:  # the whole request and the folder, before any pilot is played
                from ..precision.folder import check_request

                check_request(exp, target, *want.args)
        except ExperimentError as e:
            raise UserError(f"{where}{_flagged(e)}") from None
        key = Path(os.path.abspath(target))
        if key in seen:
            j = seen[key]
            other = built[j][0]
            problem = conflict(json.loads(json.dumps(other.identity(ENGINE_VERSION))), json.loads(json.dumps(exp.identity(ENGINE_VERSION))),
                                {p.label: {q.name: q.default for q in p.spec.all_params} for p in exp.players})
            if problem or want is not None:
                names = [str(files[i]) if i < len(files) else built[i][0].name for i in (j, k)]
                raise UserError(f"{names[0]} and {names[1]} both write to {target} but are different experiments "
                                f"(they differ in {problem or 'halfwidth'}): give one of them another out")
        seen.setdefault(key, k)
        outer = next((p for p in key.parents if (p / MANIFEST).is_file()), None)
        if outer is not None:  # castle report then refuses the outer dataset: refused here, before anything is written
            raise UserError(f"{where}{target} is inside the dataset {os.path.relpath(outer)}: the outer one could not be "
                            "reported then; choose another --out")
        try:
            if want is None:
                check(exp, target)
        except ExperimentError as e:
            raise UserError(f"{where}{_flagged(e)}") from None


def _say(summary) -> None:
    for path in summary.replaced:
        typer.echo(f"castle run: {path} was damaged (it did not read back whole): played again", err=True)
    skipped = f", {summary.deals_already:,} of {summary.deals_total:,} already there" if summary.deals_already else ""
    typer.echo(
        f"{summary.deals_played:,} {'game' if summary.deals_played == 1 else 'games'} played in {summary.seconds:.1f} s ({summary.deals_per_s:,.0f}/s){skipped}; results in {summary.out}"
    )


def report_cmd(
    data: Optional[Path] = typer.Argument(None, help="result dataset folder, or a folder of them such as data/published (default: data/default, relative to here)", show_default=False),
    out: Optional[Path] = typer.Option(None, "--out", help="report folder (default: reports/<dataset name>, relative to here)", show_default=False),
    reference: Optional[Path] = typer.Option(None, "--reference", help="the shipped study, for perfect play where the dataset has no solver rows (default: data/published here, else the checkout's)", show_default=False),
    replays: bool = typer.Option(True, "--replays/--no-replays", help="write replay pages of a few telling deals beside the report"),
) -> None:
    """Build the HTML report (figures, tables, replays) of a result dataset."""
    import matplotlib

    matplotlib.use("Agg")  # files, never a window (the notebooks keep their inline figures)
    from analysis.load import ResultsError
    from analysis.report import build_report

    from ..replay import write_replay
    from ..study.paths import DEFAULT_DATA, REPORTS_DIR

    from ..study.dataset import check_path

    data = data or DEFAULT_DATA
    out = out or REPORTS_DIR / data.name
    for path, parquet in ((data, True), (out, False), (reference, True)):
        if path is not None:
            try:
                check_path(path, parquet=parquet, new=path is out)
                path.resolve()  # the report compares the folders resolved: a symbolic link that loops fails there
            except ValueError as e:
                raise UserError(str(e)) from None
            except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a loop, later ones OSError
                raise UserError(f"{path}: Too many levels of symbolic links (a link that leads back to itself)") from None
    if reference is not None and not reference.is_dir():
        raise UserError(f"--reference {reference}: no such folder")
    try:
        with terminate_as_interrupt():  # SIGTERM clears up the half-built report as Ctrl-C does
            index = build_report(data, out, reference=reference or "default", replays=write_replay if replays else None)
    except ResultsError as e:
        raise UserError(str(e)) from None
    except KeyboardInterrupt:
        raise Interrupted(f"{out} is as it was: the report is built aside and swapped in whole") from None
    typer.echo(str(index))
