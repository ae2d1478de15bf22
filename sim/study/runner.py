"""The batch runner: an experiment's deals in chunks, in parallel, streamed to Parquet.

Each (game, player, chunk of deals) is one task. A task plays its deals
(inside one compiled kernel when the player has one, else through the
Python play loop) and writes one Parquet file atomically (a dot-named
temporary, then ``os.replace``) to ``OUT/game=<g>/player=<p>/part-<first>-<last>.parquet``, where ``<g>``
is the game's slug, or ``slug@dialect`` for a dialect (its rows say ``game`` = slug and ``dialect``), so
two dialects of one game never share a folder.
An existing part is therefore always complete, which is what makes resuming
safe: a rerun plans the same chunks and skips those already on disk, so a
run killed at any moment completes with every deal exactly once.

Rows depend only on (game, player, seed, deal): deals and the players'
random streams are keyed by deal id, never by chunk or worker, so the rows
are the same whatever ``jobs``, chunk size or backend (``elapsed_us`` and ``cpu_us`` aside).

With ``--backend dask`` the workers write the parts themselves, so on a
real cluster ``OUT`` must be a filesystem every worker shares.

``OUT/_manifest.json`` (:mod:`.dataset`) records the experiment, package
version, git commit, and the start and end. An experiment with another
identity is refused, never mixed in.
"""

from __future__ import annotations

import bisect
import contextlib
import fcntl
import fnmatch
import re
import json
import os
import socket
import struct
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import quote

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pyarrow.parquet as pq

from ..game import Game
from ..core.outcome import RESULTS, WON, Result
from ..core.rules import FoundationBase, Rules, find_game
from ..kernels import play as P
from ..kernels.engine import ENGINE_VERSION
from ..kernels.layout import rules_array
from ..players.compiled import kind_of, weights
from ..players.loop import play_choice
from ..players.spec import PlayerChoice
from .dataset import MANIFEST, PathError, check_path, schema, write_atomic, write_json_atomic
from .experiment import Experiment, ExperimentError
from .interrupt import terminate_as_interrupt
from .provenance import git_commit, now, package_version

LOCK = "_lock"
#: the name of a manifest being written (``write_json_atomic``): a killed run may leave one
_MANIFEST_TEMPORARY = f".{MANIFEST}.*.tmp"


# --------------------------------------------------------------------------
# chunks
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """Deals ``first`` to ``last`` (inclusive) of one game and one player: one task, one file."""

    game: str  #: the game's full name (``Rules.full_slug``: ``slug@dialect`` for a dialect)
    choice: PlayerChoice  #: travels with the task, so players registered at run time work in workers too
    seed: int
    first: int
    last: int
    extra: tuple[tuple[str, str], ...] = ()  #: the experiment's extra columns

    @property
    def n_deals(self) -> int:
        return self.last - self.first + 1

    def relpath(self) -> str:
        return f"game={quote(self.game, safe='@')}/player={quote(self.choice.label, safe='')}/part-{self.first}-{self.last}.parquet"


def plan(exp: Experiment, covered: dict[tuple[str, str], list[tuple[int, int]]] | None = None) -> Iterator[Chunk]:
    """The chunks still to play, lazily, in an order that interleaves games and players.

    Chunk boundaries are the multiples of ``chunk_size`` (counted from deal 0,
    whatever the range), so a rerun or an extension plans the same files; deals
    already ``covered`` (per game full name and player label: sorted inclusive
    ranges on disk) are left out, so no deal is ever played twice.
    """
    covered = covered or {}
    extra = tuple(c for p in exp.players for c in p.spec.extra_columns)
    start = exp.first
    while start < exp.end:
        stop = min((start // exp.chunk_size + 1) * exp.chunk_size, exp.end)
        for rules in exp.games:
            for choice in exp.players:
                for a, b in _gaps(start, stop - 1, covered.get((rules.full_slug, choice.label), ())):
                    yield Chunk(rules.full_slug, choice, exp.seed, a, b, extra)
        start = stop


def _gaps(first: int, last: int, ranges) -> Iterator[tuple[int, int]]:
    """The parts of ``first..last`` outside the sorted, disjoint inclusive ``ranges``."""
    k = bisect.bisect_right(ranges, (first, float("inf"))) - 1
    k = max(k, 0)
    at = first
    for a, b in ranges[k:]:
        if a > last:
            break
        if b < at:
            continue
        if a > at:
            yield at, a - 1
        at = max(at, b + 1)
    if at <= last:
        yield at, last


def _overlap(first: int, end: int, ranges) -> int:
    """How many deals of ``first..end-1`` the inclusive ``ranges`` cover."""
    return sum(max(0, min(b, end - 1) - max(a, first) + 1) for a, b in ranges)


# --------------------------------------------------------------------------
# playing one chunk
# --------------------------------------------------------------------------

_cycles_per_us: float | None = None


def cycles_per_us() -> float:
    """The cycle counter's rate, measured once per process against ``perf_counter``."""
    global _cycles_per_us
    if _cycles_per_us is None:
        c0, t0 = P.cycle_counter(), time.perf_counter()
        while time.perf_counter() - t0 < 0.02:
            pass
        c1, t1 = P.cycle_counter(), time.perf_counter()
        _cycles_per_us = max((c1 - c0) / ((t1 - t0) * 1e6), 1e-9)
    return _cycles_per_us


#: with a ``report``, about how long the deals between two reports take (tqdm redraws its bar at most every 0.1 s)
REPORT_SECONDS = 0.1


def play_rows(rules: Rules, choice: PlayerChoice, seed: int, first: int, last: int, row_schema: pa.Schema | None = None,
              report: Callable[[int], None] | None = None) -> pa.Table:
    """Play deals ``first..last`` of ``seed`` with ``choice``: one row per deal, as an Arrow table.

    A compiled player plays the whole chunk inside the kernel; any other
    goes through the Python play loop deal by deal. Both give record rows
    of the same kernel layout, made into columns in one place.

    With ``report`` (the progress bar's), the deals are played in steps,
    ``report(k)`` after each step of ``k`` deals: the first deal alone, then
    steps of about :data:`REPORT_SECONDS` at the pace of the step before.
    Steps are sized by time because a step costs a kernel call and a report
    (about 0.1 ms) while a deal takes from 0.05 ms (greedy) to seconds (the
    solver): the bar moves several times a second whatever the player, and
    a fast player's chunk is still two or three kernel calls. Each deal is
    dealt and played from its own id, so the rows are those of one call;
    only ``cpu_us`` (a call's CPU time shared out among its deals) follows
    the steps.
    """
    row_schema = row_schema or schema(choice.spec.extra_columns)
    deals = np.arange(first, last + 1, dtype=np.int64)
    n = len(deals)
    out = np.zeros((n, P.N_OUT), np.int64)
    extra: dict[str, list] = {f.name: [None] * n for f in row_schema if f.name not in _ROW_NAMES}
    elapsed = np.zeros(n, np.int64)
    cpu = np.zeros(n, np.int64)
    if choice.spec.compiled:
        player = (rules_array(rules), kind_of(choice), weights(choice.params))
    else:
        game = Game(rules)
    at, step = 0, n if report is None else 1
    while at < n:
        stop = min(at + step, n)
        t0 = time.perf_counter()
        if choice.spec.compiled:
            c0 = time.process_time_ns()
            P.play_chunk(*player, seed, deals[at:stop], choice.max_moves, choice.spec.salt, out[at:stop])
            call_cpu_us = (time.process_time_ns() - c0) / 1000
            cycles = out[at:stop, P.C_CYCLES].astype(np.float64)
            # the call's CPU time, shared out by each deal's share of the cycles (one kernel call has one CPU clock)
            cpu[at:stop] = np.rint(cycles / max(cycles.sum(), 1.0) * call_cpu_us).astype(np.int64)
        else:
            for k in range(at, stop):
                deal = int(deals[k])
                t1, c0 = time.perf_counter_ns(), time.process_time_ns()
                rec = play_choice(choice, game.deal(deal, seed), seed, deal)
                elapsed[k] = (time.perf_counter_ns() - t1) // 1000
                cpu[k] = (time.process_time_ns() - c0) // 1000
                out[k] = [Result(rec.result).code, len(rec.moves), rec.cards_home, -1 if rec.base_rank is None else rec.base_rank,
                          rec.max_empty_piles, rec.positions, 0]
                for name in extra:
                    extra[name][k] = rec.extra.get(name)
        if report is not None:
            report(stop - at)
            step = max(1, int((stop - at) * REPORT_SECONDS / max(time.perf_counter() - t0, 1e-6)))
        at = stop
    if choice.spec.compiled:
        elapsed = np.rint(out[:, P.C_CYCLES].astype(np.float64) / cycles_per_us()).astype(np.int64)
    result = np.array(RESULTS, dtype=object)[out[:, P.C_RESULT]]
    base = out[:, P.C_BASE]
    shared = rules.foundation_base == FoundationBase.FIRST_CARD_SHARED
    columns = {
        "game": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([rules.slug])),
        "player": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([choice.label])),
        "player_params": pa.array([choice.params_json] * n, pa.string()),
        "seed": pa.array(np.full(n, seed, np.int64)),
        "deal": pa.array(deals),
        "result": pa.array(result.tolist(), pa.string()),
        "won": pa.array(result == RESULTS[WON], pa.bool_()),
        "moves": pa.array(out[:, P.C_MOVES], pa.int32()),
        "cards_home": pa.array(out[:, P.C_HOME], pa.int8()),
        "base_rank": pa.array(base, pa.int8(), mask=base < 0) if shared else pa.nulls(n, pa.int8()),
        "max_empty_piles": pa.array(out[:, P.C_MAX_EMPTY], pa.int8()),
        "positions": pa.array(out[:, P.C_POSITIONS], pa.int32()),
        "elapsed_us": pa.array(elapsed, pa.int64()),
        "cpu_us": pa.array(cpu, pa.int64()),
        "dialect": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([rules.dialect])),
        "rules_version": pa.array(np.full(n, rules.version, np.int16)),
        "engine_version": pa.array(np.full(n, ENGINE_VERSION, np.int16)),
        "player_version": pa.array(np.full(n, choice.spec.version, np.int16)),
    }
    for name, values in extra.items():
        columns[name] = pa.array(values, row_schema.field(name).type)
    return pa.table(columns, schema=row_schema)


_ROW_NAMES = {f.name for f in schema()}


def run_chunk(chunk: Chunk, out: str, report: Callable[[int], None] | None = None) -> tuple[int, float]:
    """Play and write one chunk (in a worker); return its number of deals and the CPU seconds they took.

    ``report`` (see :func:`play_rows`) hears of the deals as they are played, before the part is written.
    """
    path = Path(out) / chunk.relpath()
    table = play_rows(find_game(chunk.game), chunk.choice, chunk.seed, chunk.first, chunk.last, schema(chunk.extra), report)
    write_atomic(table, path)
    return chunk.n_deals, pa.compute.sum(table.column("cpu_us")).as_py() / 1e6


# --------------------------------------------------------------------------
# the output directory
# --------------------------------------------------------------------------


def read_manifest(out: Path) -> dict | None:
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError):
        manifest = None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("experiment"), dict):
        raise ExperimentError(f"{path} is unreadable; not touching {out}")
    return manifest


def _conflict(held: dict, new: dict, defaults: dict[str, dict]) -> str | None:
    """What makes ``new`` rows incompatible with the rows ``held`` describes, or None.

    A dataset may grow (more deals, games, players) as long as every row it
    holds would be played the same: same seed and engine, and each game and
    player it already has at the same version and parameters. A parameter
    a player gained after the rows were played, at its default (``defaults``:
    label -> parameter -> default), plays them as before.
    """
    for key in ("seed", "engine_version"):
        if held.get(key) != new[key]:
            return key
    for section in ("games", "players", "player_versions"):
        have = held.get(section) or {}
        for name, value in new[section].items():
            if section == "players" and name in have:
                value = {k: v for k, v in value.items() if k in have[name] or v != defaults[name].get(k)}
            if name in have and have[name] != value:
                return f"{section} ({name})"
    return None


def _left_by_a_killed_start(entry: Path) -> bool:
    """What a run killed before its first manifest was in place can leave: the lock, a half-written manifest.

    A folder holding only these is still empty: the rerun starts it afresh.
    """
    return entry.is_file() and (entry.name == LOCK or fnmatch.fnmatch(entry.name, _MANIFEST_TEMPORARY))


def check(exp: Experiment, out: Path) -> dict | None:
    """Refuse, before anything is written, an ``out`` that cannot receive ``exp``; the manifest it holds, if any.

    ``out`` must be a folder (or not exist yet) whose name the Parquet
    library can take, and either hold this experiment's manifest with rows
    ``exp`` would play the same, or nothing a killed start did not leave.
    Nothing is written: a command with several experiments checks them all
    before it plays any.
    """
    out = Path(out)
    try:
        check_path(out)
    except PathError as e:
        raise ExperimentError(str(e)) from None
    identity = json.loads(json.dumps(exp.identity(ENGINE_VERSION)))
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"output {out} exists and is not a directory")
    manifest = read_manifest(out) if out.exists() else None
    if manifest is None:
        if out.exists() and any(not _left_by_a_killed_start(f) for f in out.iterdir()):
            raise ExperimentError(f"output {out} is not empty and holds no castle experiment; choose another --out")
        return None
    held = manifest["experiment"]
    problem = _conflict(held, identity, {p.label: {q.name: q.default for q in p.spec.all_params} for p in exp.players})
    if problem:
        raise ExperimentError(
            f"{out} holds a different experiment ({held.get('name')!r}; differs in {problem}); "
            "refusing to mix them: choose another --out"
        )
    return manifest


def prepare(exp: Experiment, out: Path) -> dict:
    """Check ``out`` may receive ``exp`` (new, empty, or holding rows it would play the same); return the manifest.

    The manifest's ``experiment`` describes everything the folder holds: an
    extension adds its games, players and deal range to it.
    """
    identity = json.loads(json.dumps(exp.identity(ENGINE_VERSION)))
    manifest = check(exp, out)
    if manifest is None:
        manifest = {
            "experiment": {"name": exp.name, "description": exp.description, **identity},
            "package_version": package_version(),
            "git_commit": git_commit(),
            "started": now(),
            "finished": None,
            "runs": [],
        }
    else:
        held = manifest["experiment"]
        for section in ("games", "players", "player_versions"):
            held[section] = {**(held.get(section) or {}), **identity[section]}
        first, end = held.get("deal_range") or identity["deal_range"]
        held["deal_range"] = [min(first, exp.first), max(end, exp.end)]
        return manifest
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_json_atomic(manifest, out / MANIFEST)
    except OSError as e:
        raise ExperimentError(f"cannot write to {out}: {e.strerror or e}") from None
    return manifest


_PART = re.compile(r"part-(\d+)-(\d+)\.parquet")


def survey(out: Path, exp: Experiment) -> tuple[dict[tuple[str, str], list[tuple[int, int]]], list[Path]]:
    """The deals each (game, player) of ``exp`` already has on disk, and the parts found damaged (removed).

    A part counts only if it reads back with one row per deal of its name,
    of its game, player (label and parameters) and seed. One that does not
    read back as Parquet (truncated: a full disk, a crash in a copy) is
    damaged: removed, to be played again. A file that reads back but holds
    other rows (a part of another dataset, of another seed or other
    parameters), one named as no part is (``part-0-2-copy.parquet``), or
    two parts holding the same deals, were not written by this experiment
    and are not the run's to delete: the run is refused, naming them, and
    nothing is changed.
    """
    covered: dict[tuple[str, str], list[tuple[int, int]]] = {}
    damaged: list[Path] = []
    foreign: list[tuple[Path, str]] = []
    for rules in exp.games:
        for choice in exp.players:
            folder = out / Chunk(rules.full_slug, choice, exp.seed, 0, 0).relpath().rsplit("/", 1)[0]
            ranges: list[tuple[int, int, Path]] = []
            for path in sorted(folder.glob("part-*.parquet")) if folder.is_dir() else ():
                m = _PART.fullmatch(path.name)
                if not path.is_file():
                    foreign.append((path, "it is not a file"))
                    continue
                if not m:
                    foreign.append((path, "castle names its parts part-FIRST-LAST.parquet"))
                    continue
                problem = _part_problem(path, rules, choice, exp.seed, int(m[1]), int(m[2]))
                if problem is None:
                    ranges.append((int(m[1]), int(m[2]), path))
                elif problem == _DAMAGED:
                    damaged.append(path)
                else:
                    foreign.append((path, problem))
            ranges.sort()
            for (a, b, first_path), (c, d, path) in zip(ranges, ranges[1:]):
                if c <= b:
                    foreign.append((path, f"its deals {c}-{d} overlap those of {first_path.name}"))
            covered[(rules.full_slug, choice.label)] = [(a, b) for a, b, _ in ranges]
    if foreign:
        path, why = foreign[0]
        more = f"; and {len(foreign) - 1} more such file{'s' if len(foreign) > 2 else ''}" if len(foreign) > 1 else ""
        raise ExperimentError(f"{path} is not a part of this experiment ({why}){more}: move it out of {out} "
                              "(nothing was played or removed)")
    for path in damaged:
        path.unlink(missing_ok=True)
    return covered, damaged


#: what :func:`_part_problem` says of a part that does not read back (to be played again)
_DAMAGED = "damaged"


def _part_problem(path: Path, rules: Rules, choice: PlayerChoice, seed: int, first: int, last: int) -> str | None:
    """None if ``path`` is the part this experiment writes for these deals; :data:`_DAMAGED` if it does not read back
    as Parquet; else what makes it another file (read back whole, so never removed)."""
    try:
        names = set(pq.read_schema(path).names)
    except (OSError, ValueError, pa.ArrowException):
        return _DAMAGED
    wanted = ["game", "dialect", "player", "player_params", "seed", "deal", "rules_version", "engine_version", "player_version"]
    missing = [c for c in wanted if c not in names]
    if missing:
        return f"it has no {', '.join(missing)} column{'s' if len(missing) > 1 else ''}"
    try:
        table = pq.read_table(path, columns=wanted)
    except (OSError, ValueError, pa.ArrowException):
        return _DAMAGED
    deals = table.column("deal").to_numpy(zero_copy_only=False)

    def values(column: str) -> set:
        return set(table.column(column).to_pylist())

    if len(deals) != last - first + 1 or not bool((deals == np.arange(first, last + 1)).all()):
        return f"its rows are not deals {first} to {last}, one each"
    for column, expected in (("game", rules.slug), ("dialect", rules.dialect), ("player", choice.label), ("seed", seed),
                             ("rules_version", rules.version), ("engine_version", ENGINE_VERSION),
                             ("player_version", choice.spec.version)):
        held = values(column)
        if held != {expected}:
            return f"its rows' {column} is {', '.join(sorted(map(str, held)))}, this experiment's {expected}"
    defaults = {q.name: q.default for q in choice.spec.all_params}
    for text in values("player_params"):
        try:
            params = json.loads(text)
        except (TypeError, ValueError):
            params = None
        # a parameter the player gained after these rows were played, at its default, plays them as before
        if not isinstance(params, dict) or params != {k: v for k, v in choice.params.items() if k in params or v != defaults.get(k)}:
            return f"its rows' player parameters are {text}, this experiment's {choice.params_json}"
    return None


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """One run at a time per directory (another would race on the same chunks)."""
    try:
        fd = os.open(out / LOCK, os.O_CREAT | os.O_RDWR, 0o644)
    except OSError as e:
        raise ExperimentError(f"cannot write to {out}: {e.strerror or e}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ExperimentError(f"another run is writing into {out}; wait for it or choose another --out") from None
        yield
    finally:
        os.close(fd)


def _remove_stale_temporaries(out: Path) -> None:
    """Temporaries a killed run left (a part or the manifest half written): never read, removed."""
    for tmp in [*out.glob("game=*/player=*/.part-*.tmp"), *out.glob(_MANIFEST_TEMPORARY)]:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


# --------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------


@dataclass
class RunSummary:
    out: Path
    deals_total: int  #: games the experiment asks for (deals x games x players)
    deals_already: int  #: of them, already on disk before this run
    deals_played: int
    replaced: list[Path]  #: damaged parts found, removed and played again
    seconds: float
    finished: bool

    @property
    def deals_per_s(self) -> float:
        return self.deals_played / self.seconds if self.seconds > 0 else 0.0


def _warm_up(exp: Experiment) -> None:
    """Compile (or load) the kernels once before workers start, so they share numba's cache."""
    compiled = [c for c in exp.players if c.spec.compiled]
    if compiled:
        play_rows(exp.games[0], compiled[0], exp.seed, 0, 0)


def run(
    exp: Experiment,
    out: str | Path,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: bool | None = None,
) -> RunSummary:
    """Play every deal of ``exp`` not yet in ``out``; return what was done."""
    if jobs < 1:
        raise ExperimentError(f"--jobs must be at least 1, got {jobs}")
    if backend not in ("loky", "dask"):
        raise ExperimentError(f"unknown backend {backend!r} (known: loky, dask)")
    if scheduler and backend != "dask":
        raise ExperimentError("--scheduler needs --backend dask")
    out = Path(out)
    with contextlib.ExitStack() as stack:
        # a remote scheduler is checked before anything is written; a local cluster starts only if needed
        client = stack.enter_context(_dask_client(jobs, scheduler)) if scheduler else None
        return _run(exp, out, jobs, backend, client, progress)


def _run(exp: Experiment, out: Path, jobs: int, backend: str, client: Any, progress: bool | None) -> RunSummary:
    manifest = prepare(exp, out)
    t0 = time.perf_counter()
    with _locked(out):
        _remove_stale_temporaries(out)
        covered, damaged = survey(out, exp)
        total = exp.n_deals * len(exp.games) * len(exp.players)
        already = sum(_overlap(exp.first, exp.end, ranges) for ranges in covered.values())
        todo = total - already
        run_info = {"started": now(), "finished": None, "jobs": jobs, "backend": backend, "deals_to_play": todo,
                    "deal_range": [exp.first, exp.end], "git_commit": git_commit(), "cpu_seconds": None}
        manifest["runs"].append(run_info)
        manifest["finished"] = None
        write_json_atomic(manifest, out / MANIFEST)
        tally = {"played": 0, "cpu": 0.0}  # what the run has put on disk so far, kept when it is stopped
        try:
            if todo:
                _warm_up(exp)
                chunks = plan(exp, covered)
                blocks = -(-(exp.end - exp.first + exp.first % exp.chunk_size) // exp.chunk_size)
                jobs = min(jobs, blocks * len(exp.games) * len(exp.players))  # never more workers than tasks
                if jobs > (os.cpu_count() or 1) and backend == "loky":
                    print(f"castle run: --jobs {jobs} is more than this machine's {os.cpu_count()} CPUs; the runs will share them",
                          file=sys.stderr)
                _execute(chunks, todo, str(out), jobs, backend, client, _want_progress(progress), tally)
        finally:  # a stopped run still records what it played and the CPU that took
            stopped = tally["played"] != todo
            run_info["stopped" if stopped else "finished"] = now()
            run_info["games_played"] = tally["played"]
            run_info["cpu_seconds"] = round(tally["cpu"], 6)  # to the microsecond: a stopped run may hold one 0.2 ms deal
            if not stopped:
                manifest["finished"] = run_info["finished"]
            write_json_atomic(manifest, out / MANIFEST)
    return RunSummary(out, total, already, tally["played"], damaged, time.perf_counter() - t0, not stopped)


def _want_progress(progress: bool | None) -> bool:
    return sys.stderr.isatty() if progress is None else progress


class _Progress:
    """A bar on a terminal; elsewhere (a run in the background, a log) a line a minute with the time left."""

    EVERY = 60.0

    def __init__(self, total: int, bar: bool):
        from tqdm import tqdm

        self.total, self.done, self.t0, self.last = total, 0, time.perf_counter(), time.perf_counter()
        self.bar = tqdm(total=total, unit="game", unit_scale=True, dynamic_ncols=True, smoothing=0.1) if bar else None

    def update(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
            return
        now_ = time.perf_counter()
        if now_ - self.last >= self.EVERY or self.done == self.total:
            self.last = now_
            spent = now_ - self.t0
            left = spent / self.done * (self.total - self.done) if self.done else float("nan")
            print(f"castle run: {self.done:,} of {self.total:,} games ({100 * self.done / self.total:.1f}%) in "
                  f"{_duration(spent)}; about {_duration(left)} left", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _duration(seconds: float) -> str:
    if seconds != seconds:
        return "?"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _execute(chunks: Iterator[Chunk], total: int, out: str, jobs: int, backend: str, client: Any, bar: bool,
             tally: dict) -> None:
    """Play the chunks on ``jobs`` workers, adding each finished chunk's games and CPU seconds to ``tally``
    (``played``, ``cpu``) as it lands, so a stopped run knows what it did.

    The progress bar hears of the deals as they are played, several times a
    second (:func:`play_rows`'s ``report``): directly with one job, through
    :func:`_reports_from_workers` from loky's workers. Dask's come a chunk at
    a time, as each lands: a finer report would need a channel every worker
    can reach (on a cluster, not this machine's socket), and Dask plays a
    lost worker's chunk again elsewhere, so its deals reported so far would
    count twice.
    """
    from joblib import Parallel, delayed, parallel_config

    progress = _Progress(total, bar)
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(terminate_as_interrupt())  # joblib then stops its workers
            if backend == "dask":
                if client is None:
                    stack.enter_context(_dask_client(jobs, None))
                stack.enter_context(parallel_config(backend="dask"))
                parallel = Parallel(n_jobs=-1, return_as="generator_unordered", batch_size=1)
                report = None
            elif jobs == 1:
                parallel = Parallel(n_jobs=1, return_as="generator_unordered")
                report = progress.update
            else:
                parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered", batch_size=1)
                report = _SendReport(stack.enter_context(_reports_from_workers(progress)))
            for n, seconds in parallel(delayed(run_chunk)(c, out, report) for c in chunks):
                tally["played"] += n
                tally["cpu"] += seconds
                if report is None:
                    progress.update(n)
    finally:
        progress.close()


_REPORT = struct.Struct("<q")  #: one report: a number of deals played (-1 ends the reading)


@contextlib.contextmanager
def _reports_from_workers(progress: _Progress) -> Iterator[str]:
    """The address of a socket the loky workers send their reports to (:class:`_SendReport`); a thread of
    this process reads them into ``progress`` until the block is left.

    A datagram socket on this machine, in a private temporary folder,
    rather than a ``multiprocessing.Manager`` queue: a Manager is one more
    process, to stop on every path (a kill -9 of the run would leave it
    behind), and its proxy, passed with each task, opens two authenticated
    connections a task to count its references (about 2 ms a task, several
    percent of a greedy chunk). Here no process is added and a report is one
    small message, sent before its task ends: a finished task's reports are
    all read before the block's own end message.
    """
    with tempfile.TemporaryDirectory(prefix="castle-run-") as folder, socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        address = os.path.join(folder, "progress")
        sock.bind(address)

        def read() -> None:
            while (n := _REPORT.unpack(sock.recv(_REPORT.size))[0]) >= 0:
                # a bar that cannot be drawn (stderr closed) must not stop the reading: the workers would wait to send
                with contextlib.suppress(Exception):
                    progress.update(n)

        reader = threading.Thread(target=read, name="castle-progress", daemon=True)
        reader.start()
        try:
            yield address
        finally:
            _SendReport(address)(-1)
            reader.join()


@dataclass(frozen=True)
class _SendReport:
    """``report(n)`` in a loky worker: ``n`` deals played, sent to :func:`_reports_from_workers`' socket."""

    address: str

    def __call__(self, n: int) -> None:
        # a report that cannot be sent (the run is gone, or not reading for a second) is lost, never the chunk
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.settimeout(1.0)
            sock.sendto(_REPORT.pack(n), self.address)


@contextlib.contextmanager
def _dask_client(jobs: int, scheduler: str | None) -> Iterator[Any]:
    """A client of the cluster at ``scheduler``, or of a local cluster of ``jobs`` worker processes."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ExperimentError("--backend dask needs the 'distributed' package (pip install dask distributed)") from None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError) as e:
            raise ExperimentError(f"cannot reach the Dask scheduler at {scheduler}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        with client:
            yield client
        return
    with LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster, Client(cluster) as client:
        yield client
