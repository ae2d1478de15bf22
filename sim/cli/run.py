"""``castle run`` and ``castle report``: an experiment into a dataset, and a dataset into a report."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import List, Optional

import typer

from .errors import Interrupted, UserError, terminate_as_interrupt


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("run")(run_cmd)
    app.command("report")(report_cmd)


def run_cmd(
    experiments: Optional[List[Path]] = typer.Argument(None, help="experiment files (TOML), run one after the other; flags override their fields", show_default=False),
    game: Optional[List[str]] = typer.Option(None, "--game", help="a game to play (repeatable)", show_default=False),
    player: Optional[List[str]] = typer.Option(None, "--player", help="a player, e.g. lookahead:depth=3 (repeatable)", show_default=False),
    deals: Optional[int] = typer.Option(None, help="play deals 1 to N (the study's numbering, as PySol's; deal 0 through --deal-range 0:N)", show_default=False),
    deal_range: Optional[str] = typer.Option(None, help="play deals A to B-1, given as A:B (END excluded)", show_default=False),
    seed: Optional[int] = typer.Option(None, help="seed of the deals and the players' draws", show_default=False),
    chunk_size: Optional[int] = typer.Option(None, help="deals per task and per Parquet file", show_default=False),
    jobs: int = typer.Option(1, help="worker processes (loky) or local Dask workers"),
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
    from ..study.experiment import ExperimentError, build, read_toml
    from ..study.paths import DATA_DIR
    from ..study.runner import run

    if out is not None and experiments and len(experiments) > 1:
        raise UserError("--out names one results folder: give one experiment file with it")
    if (cpu_hours is not None or pilot is not None or settle is not None) and halfwidth is None and not experiments:
        raise UserError("--cpu-hours, --pilot and --settle go with --halfwidth")
    if plan and halfwidth is None and not experiments:
        raise UserError("--plan goes with --halfwidth: it says what a run to a half-width will do and cost")
    if halfwidth is not None and not experiments and not player:
        player = ["phased"]  # the one player a design can be made of: no need to name it
    if unknowns_of and halfwidth is not None:
        raise UserError("--unknowns-of plays the deals a run left unknown, not a design: it does not go with --halfwidth")
    if unknowns_of and not experiments and not player:
        player = ["settle"]  # the player made for them
    try:
        tables = [read_toml(f) for f in experiments] if experiments else [{}]
        if unknowns_of:
            tables = [t | {"unknowns_of": [str(f) for f in unknowns_of]} for t in tables]
        precision = [{k: t.pop(k) for k in PRECISION_KEYS if k in t} for t in tables]
        built = [build(t, games=game, players=player, deals=deals, deal_range=deal_range, seed=seed, chunk_size=chunk_size,
                       from_file=bool(experiments)) for t in tables]
        if plan and any((halfwidth if halfwidth is not None else t.get("halfwidth")) is None for t in precision):
            raise UserError("--plan goes with --halfwidth (halfwidth): it says what a run to a half-width will do and cost")
        targets = [out or (Path(exp.out) if exp.out else DATA_DIR / exp.name) for exp in built]
        _check_all(built, targets, precision, halfwidth, cpu_hours, pilot, experiments or [], settle)
        for exp, asked, target in zip(built, precision, targets):
            h = halfwidth if halfwidth is not None else asked.get("halfwidth")
            if h is None and exp.unknowns_of and not exp.n_games:  # (a rerun finding every unknown settled: done, not wrong)
                typer.echo(f"castle run: nothing to play: the exact runs of {', '.join(exp.unknowns_of)} left no deal of "
                           f"{', '.join(g.full_slug for g in exp.games)} unknown that is not solved already", err=True)
                continue
            if h is None:
                _say(run(exp, target, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress))
                continue
            from ..precision import run_to_halfwidth

            for summary in run_to_halfwidth(exp, target, *_precision(h, asked, cpu_hours, pilot, settle),
                                            say=lambda line: typer.echo(line, err=not plan), plan_only=plan, jobs=jobs,
                                            backend=backend, scheduler=scheduler, progress=progress):
                if summary is not None:
                    _say(summary)
    except (ExperimentError, TypeError, ValueError) as e:
        text = _flagged(e)
        raise UserError(text.splitlines()[0] if text else e.__class__.__name__) from None


#: how ``castle run`` names the runner's arguments in its messages: by its flags (the runner names them in its words)
FLAGS = {"jobs": "--jobs", "scheduler": "--scheduler", "dask": "--backend dask", "out": "--out", "halfwidth": "--halfwidth",
         "cpu_hours": "--cpu-hours", "pilot": "--pilot", "settle": "--settle", "deals": "--deals", "deal_range": "--deal-range",
         "unknowns_of": "--unknowns-of"}


def _flagged(error: Exception) -> str:
    """The error's message as ``castle run`` says it: an argument the runner names in its own words, by its flag."""
    from ..study.errors import ArgumentError

    return error.worded(FLAGS) if isinstance(error, ArgumentError) else str(error)


#: the experiment file's fields that ask for a precision instead of a deal range (they are not part of its identity)
PRECISION_KEYS = ("halfwidth", "cpu_hours", "pilot", "settle")


def _check_all(built, targets, precision, halfwidth, cpu_hours, pilot, files, settle=None) -> None:
    """Every experiment of the call checked against its results folder, and against the others, before any is played:
    a bad second file must not stop a call half done."""
    from ..kernels.legal import ENGINE_VERSION
    from ..study.experiment import ExperimentError
    from ..study.dataset import MANIFEST
    from ..study.resume import check, conflict

    seen: dict[Path, int] = {}
    for k, (exp, target, asked) in enumerate(zip(built, targets, precision)):
        where = f"{files[k]}: " if len(files) > 1 else ""
        h = halfwidth if halfwidth is not None else asked.get("halfwidth")
        if h is None and (cpu_hours is not None or pilot is not None or settle is not None or asked):
            raise UserError(f"{where}--cpu-hours, --pilot and --settle (cpu_hours, pilot, settle) go with --halfwidth (halfwidth)")
        if h is not None and exp.unknowns_of:
            raise UserError(f"{where}unknowns_of plays the deals a run left unknown, not a design: it does not go with "
                            "--halfwidth (halfwidth)")
        if h is not None:  # the whole request and the folder, before any pilot is played
            from ..precision.folder import check_request

            try:
                check_request(exp, target, h, *_precision(h, asked, cpu_hours, pilot, settle)[1:])
            except ExperimentError as e:
                raise UserError(f"{where}{_flagged(e)}") from None
        key = Path(os.path.abspath(target))
        if key in seen:
            j = seen[key]
            other = built[j]
            problem = conflict(json.loads(json.dumps(other.identity(ENGINE_VERSION))), json.loads(json.dumps(exp.identity(ENGINE_VERSION))),
                                {p.label: {q.name: q.default for q in p.spec.all_params} for p in exp.players})
            if problem or h is not None:
                names = [str(files[i]) if i < len(files) else built[i].name for i in (j, k)]
                raise UserError(f"{names[0]} and {names[1]} both write to {target} but are different experiments "
                                f"(they differ in {problem or 'halfwidth'}): give one of them another out")
        seen.setdefault(key, k)
        outer = next((p for p in key.parents if (p / MANIFEST).is_file()), None)
        if outer is not None:  # castle report then refuses the outer dataset: refused here, before anything is written
            raise UserError(f"{where}{target} is inside the dataset {os.path.relpath(outer)}: the outer one could not be "
                            "reported then; choose another --out")
        try:
            if h is None:
                check(exp, target)
        except ExperimentError as e:
            raise UserError(f"{where}{_flagged(e)}") from None


def _precision(h, asked: dict, cpu_hours, pilot, settle) -> tuple:
    """(half-width, CPU cap, pilot, settle player, whether it was asked for) of a run to a half-width: the flags', else
    the experiment file's, else the defaults (checked by :func:`sim.precision.folder.check_request`)."""
    from ..precision import PILOT_DEALS

    given = settle is not None or "settle" in asked
    return (h, cpu_hours if cpu_hours is not None else asked.get("cpu_hours"),
            pilot if pilot is not None else asked.get("pilot", PILOT_DEALS),
            settle if settle is not None else asked.get("settle", "settle"), given)


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
            index = build_report(data, out, reference=reference or "default", replays=replays)
    except ResultsError as e:
        raise UserError(str(e)) from None
    except KeyboardInterrupt:
        raise Interrupted(f"{out} is as it was: the report is built aside and swapped in whole") from None
    typer.echo(str(index))
