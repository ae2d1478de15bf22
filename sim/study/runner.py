"""The batch runner: an experiment's deals in chunks, in parallel, streamed to Parquet.

Each (game, player, chunk of deals) is one task (:mod:`.chunks`). A task plays its deals
(inside one compiled kernel when the player has one, else through the
Python play loop: :mod:`.rows`) and writes one Parquet file atomically (a dot-named
temporary, then ``os.replace``) to ``OUT/game=<g>/player=<p>/part-<first>-<last>.parquet``, where ``<g>``
is the game's slug, or ``slug@dialect`` for a dialect (its rows say ``game`` = slug and ``dialect``), so
two dialects of one game never share a folder.
An existing part is therefore always complete, which is what makes resuming
safe: a rerun plans the same chunks and skips those already on disk (:mod:`.resume`), so a
run killed at any moment completes with every deal exactly once.

Rows depend only on (game, player, seed, deal): deals and the players'
random streams are keyed by deal id, never by chunk or worker, so the rows
are the same whatever ``jobs``, chunk size or backend (:mod:`.workers`; ``elapsed_us`` and ``cpu_us`` aside).

With the Dask backend the workers write the parts themselves, so on a
real cluster ``OUT`` must be a filesystem every worker shares.

``OUT/_manifest.json`` (:mod:`.dataset`) records the experiment, package
version, git commit, and the start and end. An experiment with another
identity is refused, never mixed in.

This module holds :func:`run` itself: the arguments checked, the folder
locked, the manifest kept up to date around the playing, what was done.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .chunks import already, plan
from .dataset import LOCK, MANIFEST, locked, remove_stale_temporaries, write_json_atomic
from .errors import ArgumentError
from .experiment import Experiment, ExperimentError
from .progress import want_progress
from .provenance import git_commit, now
from .resume import prepare, survey
from .rows import play_rows
from .workers import dask_client, execute


@dataclass
class RunSummary:
    out: Path
    deals_total: int  #: games the experiment asks for (deals x games x players)
    deals_already: int  #: of them, already on disk before this run
    deals_played: int
    replaced: list[Path]  #: damaged parts found, removed and played again
    seconds: float
    finished: bool
    worker_mb: float = 0.0  #: the most memory a worker held (peak resident set, MB; 0: nothing played)

    @property
    def deals_per_s(self) -> float:
        return self.deals_played / self.seconds if self.seconds > 0 else 0.0


def _warm_up(exp: Experiment) -> None:
    """Compile (or load) the kernels once before workers start, so they share numba's cache: the built-in loop
    with the first built-in compiled player, and each compiled plug-in's decision (a compile error then stops
    the run here, before any worker starts)."""
    kernels = [c for c in exp.players if c.spec.kernel is not None][:1]
    plugins = [c for c in exp.players if c.spec.decide is not None]
    first = exp.deals_of(exp.games[0].full_slug)[0] if exp.unknowns_of else exp.first
    for choice in kernels + plugins:
        play_rows(exp.games[0], choice, exp.seed, first, first)


def run(
    exp: Experiment,
    out: str | Path,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: bool | None = None,
    reason: str | None = None,
    meter: Any = None,
) -> RunSummary:
    """Play every deal of ``exp`` not yet in ``out``; return what was done. ``reason``: why its deal range is what
    it is, kept in the manifest if the folder's range changes (:func:`.resume.prepare`). ``meter``: the caller's
    progress (``update(n)`` for each deal played) in place of this run's own bar or lines."""
    if jobs < 1:
        raise ArgumentError("{jobs} must be at least 1, got {got}", got=jobs)
    if backend not in ("loky", "dask"):
        raise ExperimentError(f"unknown backend {backend!r} (known: loky, dask)")
    if scheduler and backend != "dask":
        raise ArgumentError("{scheduler} needs {dask}")
    out = Path(out)
    with contextlib.ExitStack() as stack:
        # a remote scheduler is checked before anything is written; a local cluster starts only if needed
        client = stack.enter_context(dask_client(jobs, scheduler)) if scheduler else None
        return _run(exp, out, jobs, backend, client, progress, reason, meter)


def _run(exp: Experiment, out: Path, jobs: int, backend: str, client: Any, progress: bool | None,
         reason: str | None = None, meter: Any = None) -> RunSummary:
    new = not (out / MANIFEST).exists()
    made = [p for p in (out, *out.parents) if not p.exists()]
    manifest = prepare(exp, out, reason)
    with locked(out):
        try:
            return _locked_run(exp, out, jobs, backend, client, progress, manifest, meter)
        except BaseException:
            if new:
                _unstart(out, made)
            raise


def _unstart(out: Path, made: list[Path]) -> None:
    """A new folder's run that failed before any part was written leaves nothing: not its manifest (which would make
    the folder another experiment's to the next run), nor its lock, nor the folders it made."""
    if any(out.glob("game=*/player=*/part-*.parquet")):
        return
    for name in (MANIFEST, LOCK):
        with contextlib.suppress(OSError):
            (out / name).unlink()
    remove_stale_temporaries(out)
    for folder in [*sorted(out.glob("game=*/player=*"), reverse=True), *sorted(out.glob("game=*"), reverse=True), *made]:
        with contextlib.suppress(OSError):
            folder.rmdir()  # (only if empty)


def _locked_run(exp: Experiment, out: Path, jobs: int, backend: str, client: Any, progress: bool | None,
                manifest: dict, meter: Any = None) -> RunSummary:
    t0 = time.perf_counter()
    remove_stale_temporaries(out)
    covered, damaged = survey(out, exp)
    total = exp.n_games
    held = already(exp, covered)
    todo = total - held
    run_info = {"started": now(), "finished": None, "jobs": jobs, "backend": backend, "deals_to_play": todo,
                "games": [g.full_slug for g in exp.games], "deal_range": [exp.first, exp.end], "git_commit": git_commit(), "cpu_seconds": None}
    manifest.setdefault("runs", []).append(run_info)
    manifest["finished"] = None
    write_json_atomic(manifest, out / MANIFEST)
    tally = {"played": 0, "cpu": 0.0, "mb": 0.0}  # what the run has put on disk so far, kept when it is stopped
    try:
        if todo:
            _warm_up(exp)
            chunks = plan(exp, covered)
            jobs = min(jobs, _tasks(exp))  # never more workers than tasks
            if backend == "loky":
                jobs = _fitting(exp, jobs)
            if jobs > (os.cpu_count() or 1) and backend == "loky":
                print(f"castle run: {jobs} worker processes on this machine's {os.cpu_count()} CPUs: they will share them",
                      file=sys.stderr)
            execute(chunks, todo, str(out), jobs, backend, client, want_progress(progress), tally, meter)
    finally:  # a stopped run still records what it played and the CPU that took
        stopped = tally["played"] != todo
        run_info["stopped" if stopped else "finished"] = now()
        run_info["games_played"] = tally["played"]
        run_info["cpu_seconds"] = round(tally["cpu"], 6)  # to the microsecond: a stopped run may hold one 0.2 ms deal
        if not stopped:
            manifest["finished"] = run_info["finished"]
        write_json_atomic(manifest, out / MANIFEST)
    return RunSummary(out, total, held, tally["played"], damaged, time.perf_counter() - t0, not stopped, tally["mb"])


def _fitting(exp: Experiment, jobs: int, machine_mb: float | None = None) -> int:
    """``jobs``, or fewer when that many workers of the experiment's hungriest player would not fit in this machine's
    free memory (``machine_mb``: given by a test), said in one line: a worker killed for memory loses its solve in
    progress and stops the run."""
    from ..solver.memory import capped, player_mb

    return capped(jobs, max(player_mb(c.params) for c in exp.players), "castle run", machine_mb)


def _tasks(exp: Experiment) -> int:
    """How many tasks the experiment's plan holds at most (a listed deal is a task of its own)."""
    if exp.unknowns_of:
        return max(1, exp.n_games)
    blocks = -(-(exp.end - exp.first + exp.first % exp.chunk_size) // exp.chunk_size)
    return blocks * len(exp.games) * len(exp.players)
