"""The batch runner: an experiment's deals in chunks, in parallel, streamed to Parquet.

Each (game, player, chunk of deals) is one task. A task plays its deals
(inside one compiled kernel when the player has one, else through the
Python play loop) and writes one Parquet file atomically (a dot-named
temporary, then ``os.replace``) to ``OUT/game=<g>/player=<p>/part-<first>-<last>.parquet``.
An existing part is therefore always complete, which is what makes resuming
safe: a rerun plans the same chunks and skips those already on disk, so a
run killed at any moment completes with every deal exactly once.

Rows depend only on (game, player, seed, deal): deals and the players'
random streams are keyed by deal id, never by chunk or worker, so the rows
are the same whatever ``jobs``, chunk size or backend (``elapsed_us`` aside).

With ``--backend dask`` the workers write the parts themselves, so on a
real cluster ``OUT`` must be a filesystem every worker shares.

``OUT/_manifest.json`` (:mod:`.dataset`) records the experiment, package
version, git commit, and the start and end. An experiment with another
identity is refused, never mixed in.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote

import numpy as np
import pyarrow as pa

from ..core.game import Game
from ..core.outcome import RESULTS, WON, Result
from ..core.rules import FoundationBase, Rules, find_game
from ..kernels import play as P
from ..kernels.engine import ENGINE_VERSION
from ..kernels.layout import rules_array
from ..players.compiled import kind_of, weights
from ..players.loop import play_choice
from ..players.registry import PlayerChoice
from .dataset import MANIFEST, git_commit, now, package_version, schema, write_atomic, write_json_atomic
from .experiment import Experiment, ExperimentError

LOCK = "_lock"


# --------------------------------------------------------------------------
# chunks
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """Deals ``first`` to ``last`` (inclusive) of one game and one player: one task, one file."""

    game: str
    choice: PlayerChoice  #: travels with the task, so players registered at run time work in workers too
    seed: int
    first: int
    last: int
    extra: tuple[tuple[str, str], ...] = ()  #: the experiment's extra columns

    @property
    def n_deals(self) -> int:
        return self.last - self.first + 1

    def relpath(self) -> str:
        return f"game={quote(self.game, safe='')}/player={quote(self.choice.label, safe='')}/part-{self.first}-{self.last}.parquet"


def plan(exp: Experiment) -> list[Chunk]:
    """Every chunk of the experiment, in an order that interleaves games and players.

    Chunk boundaries are multiples of ``chunk_size`` counted from the range's
    start, so the same experiment always plans the same files.
    """
    extra = tuple(c for p in exp.players for c in p.spec.extra_columns)
    chunks = []
    for first in range(exp.first, exp.end, exp.chunk_size):
        last = min(first + exp.chunk_size, exp.end) - 1
        for rules in exp.games:
            for choice in exp.players:
                chunks.append(Chunk(rules.slug, choice, exp.seed, first, last, extra))
    return chunks


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


def play_rows(rules: Rules, choice: PlayerChoice, seed: int, first: int, last: int, row_schema: pa.Schema | None = None) -> pa.Table:
    """Play deals ``first..last`` of ``seed`` with ``choice``: one row per deal, as an Arrow table.

    A compiled player plays the whole chunk inside the kernel; any other
    goes through the Python play loop deal by deal. Both give record rows
    of the same kernel layout, made into columns in one place.
    """
    row_schema = row_schema or schema(choice.spec.extra_columns)
    deals = np.arange(first, last + 1, dtype=np.int64)
    n = len(deals)
    out = np.zeros((n, P.N_OUT), np.int64)
    extra: dict[str, list] = {f.name: [None] * n for f in row_schema if f.name not in _ROW_NAMES}
    if choice.spec.compiled:
        P.play_chunk(rules_array(rules), kind_of(choice), weights(choice.params), seed, deals, choice.max_moves, choice.spec.salt, out)
        elapsed = np.rint(out[:, P.C_CYCLES] / cycles_per_us()).astype(np.int64)
    else:
        game = Game(rules)
        elapsed = np.zeros(n, np.int64)
        for k, deal in enumerate(deals):
            t0 = time.perf_counter_ns()
            rec = play_choice(choice, game.deal(int(deal), seed), seed, int(deal))
            elapsed[k] = (time.perf_counter_ns() - t0) // 1000
            out[k] = [Result(rec.result).code, len(rec.moves), rec.cards_home, -1 if rec.base_rank is None else rec.base_rank,
                      rec.max_empty_piles, rec.positions, 0]
            for name in extra:
                extra[name][k] = rec.extra.get(name)
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
        "rules_version": pa.array(np.full(n, rules.version, np.int16)),
        "engine_version": pa.array(np.full(n, ENGINE_VERSION, np.int16)),
        "player_version": pa.array(np.full(n, choice.spec.version, np.int16)),
    }
    for name, values in extra.items():
        columns[name] = pa.array(values, row_schema.field(name).type)
    return pa.table(columns, schema=row_schema)


_ROW_NAMES = {f.name for f in schema()}


def run_chunk(chunk: Chunk, out: str) -> int:
    """Play and write one chunk (in a worker); return its number of deals (0 if already on disk)."""
    path = Path(out) / chunk.relpath()
    if path.exists():
        return 0
    table = play_rows(find_game(chunk.game), chunk.choice, chunk.seed, chunk.first, chunk.last, schema(chunk.extra))
    write_atomic(table, path)
    return chunk.n_deals


# --------------------------------------------------------------------------
# the output directory
# --------------------------------------------------------------------------


def read_manifest(out: Path) -> dict | None:
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        raise ExperimentError(f"{path} is unreadable; not touching {out}") from None


def _first_difference(a: dict, b: dict) -> str:
    keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    return ", ".join(keys)


def prepare(exp: Experiment, out: Path) -> dict:
    """Check ``out`` may receive ``exp`` (new, empty, or holding the same experiment); return the manifest."""
    identity = exp.identity(ENGINE_VERSION)
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"output {out} exists and is not a directory")
    manifest = read_manifest(out) if out.exists() else None
    if manifest is None:
        if out.exists() and any(out.iterdir()):
            raise ExperimentError(f"output {out} is not empty and holds no castle experiment; choose another --out")
        manifest = {
            "experiment": {"name": exp.name, "description": exp.description, **identity},
            "package_version": package_version(),
            "git_commit": git_commit(),
            "started": now(),
            "finished": None,
            "runs": [],
        }
    else:
        held = manifest.get("experiment", {})
        held_identity = {k: held.get(k) for k in identity}
        if held_identity != json.loads(json.dumps(identity)):
            raise ExperimentError(
                f"{out} holds a different experiment ({held.get('name')!r}; differs in {_first_difference(held_identity, json.loads(json.dumps(identity)))}); "
                "refusing to mix them: choose another --out"
            )
        return manifest  # the same experiment: resume (the lock checks we may write)
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_json_atomic(manifest, out / MANIFEST)
    except OSError as e:
        raise ExperimentError(f"cannot write to {out}: {e.strerror or e}") from None
    return manifest


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
    for tmp in out.glob("game=*/player=*/.part-*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


# --------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------


@dataclass
class RunSummary:
    out: Path
    chunks: int
    chunks_skipped: int
    deals_played: int
    seconds: float

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
    """Play every chunk of ``exp`` not yet in ``out``; return what was done."""
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
        manifest = read_manifest(out) or manifest  # as the last run left it
        _remove_stale_temporaries(out)
        chunks = plan(exp)
        todo = [c for c in chunks if not (out / c.relpath()).exists()]
        run_info = {"started": now(), "finished": None, "jobs": jobs, "backend": backend, "chunks_to_play": len(todo)}
        manifest["runs"].append(run_info)
        write_json_atomic(manifest, out / MANIFEST)
        played = 0
        if todo:
            _warm_up(exp)
            played = _execute(todo, str(out), jobs, backend, client, _want_progress(progress))
        run_info["finished"] = now()
        if all((out / c.relpath()).exists() for c in chunks):
            manifest["finished"] = manifest["finished"] or run_info["finished"]
        write_json_atomic(manifest, out / MANIFEST)
    return RunSummary(out, len(chunks), len(chunks) - len(todo), played, time.perf_counter() - t0)


def _want_progress(progress: bool | None) -> bool:
    return sys.stderr.isatty() if progress is None else progress


def _execute(todo: list[Chunk], out: str, jobs: int, backend: str, client: Any, progress: bool) -> int:
    from joblib import Parallel, delayed, parallel_config
    from tqdm import tqdm

    total = sum(c.n_deals for c in todo)
    bar = tqdm(total=total, unit="deal", unit_scale=True, disable=not progress, dynamic_ncols=True, smoothing=0.1)
    played = 0
    tasks = (delayed(run_chunk)(c, out) for c in todo)
    with contextlib.ExitStack() as stack:
        if backend == "dask":
            if client is None:
                stack.enter_context(_dask_client(jobs, None))
            stack.enter_context(parallel_config(backend="dask"))
            parallel = Parallel(n_jobs=-1, return_as="generator_unordered", batch_size=1)
        elif jobs == 1:
            parallel = Parallel(n_jobs=1, return_as="generator_unordered")
        else:
            parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered", batch_size=1)
        for n in parallel(tasks):
            played += n
            bar.update(n)
    bar.close()
    return played


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
