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

``OUT/_manifest.json`` records the experiment, package version, git commit,
and the start and end; its name starts with ``_`` so that
``pandas.read_parquet(OUT)`` reads the parts and nothing else. An
experiment with another identity is refused, never mixed in.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from . import compiled_players as K
from .experiment import Experiment, ExperimentError
from .game import Game
from .engine import rules_array
from .players import PlayerChoice, play_choice, weights
from .rules import FoundationBase, Rules, find_game

#: bumped whenever the engine or a built-in player changes the games it plays; in every row
ENGINE_VERSION = 1
MANIFEST = "_manifest.json"
LOCK = "_lock"
RESULTS = ("won", "stuck", "gave_up")  # the kernels' outcome codes, in order

_DICT = pa.dictionary(pa.int32(), pa.string())
BASE_SCHEMA = pa.schema(
    [
        ("game", _DICT),
        ("player", _DICT),
        ("player_params", pa.string()),
        ("seed", pa.int64()),
        ("deal", pa.int64()),
        ("result", pa.string()),
        ("won", pa.bool_()),
        ("moves", pa.int32()),
        ("cards_home", pa.int8()),
        ("base_rank", pa.int8()),
        ("max_empty_piles", pa.int8()),
        ("positions", pa.int32()),
        ("elapsed_us", pa.int64()),
        ("rules_version", pa.int16()),
        ("engine_version", pa.int16()),
    ]
)


def schema_for(players: tuple[PlayerChoice, ...] | list[PlayerChoice]) -> pa.Schema:
    """The row schema of an experiment: the base columns plus every player's extra ones (null elsewhere).

    Every part of a dataset carries the same schema, so readers that take the
    schema from the first file still see the solver's ``nodes``.
    """
    schema = BASE_SCHEMA
    for choice in players:
        for name, type_name in choice.spec.extra_columns:
            if schema.get_field_index(name) < 0:
                schema = schema.append(pa.field(name, pa.type_for_alias(type_name)))
    return schema


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
    extra = tuple((n, t) for n, t in _extra_columns(exp.players))
    chunks = []
    for first in range(exp.first, exp.end, exp.chunk_size):
        last = min(first + exp.chunk_size, exp.end) - 1
        for rules in exp.games:
            for choice in exp.players:
                chunks.append(Chunk(rules.slug, choice, exp.seed, first, last, extra))
    return chunks


def _extra_columns(players) -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for choice in players:
        for name, t in choice.spec.extra_columns:
            seen.setdefault(name, t)
    return list(seen.items())


# --------------------------------------------------------------------------
# playing one chunk
# --------------------------------------------------------------------------

_cycles_per_us: float | None = None


def cycles_per_us() -> float:
    """The cycle counter's rate, measured once per process against ``perf_counter``."""
    global _cycles_per_us
    if _cycles_per_us is None:
        c0, t0 = K.cycle_counter(), time.perf_counter()
        while time.perf_counter() - t0 < 0.02:
            pass
        c1, t1 = K.cycle_counter(), time.perf_counter()
        _cycles_per_us = max((c1 - c0) / ((t1 - t0) * 1e6), 1e-9)
    return _cycles_per_us


def _base_column(rules: Rules, base: np.ndarray) -> pa.Array:
    if rules.foundation_base != FoundationBase.FIRST_CARD_SHARED:
        return pa.nulls(len(base), pa.int8())
    return pa.array(base, pa.int8(), mask=base < 0)


def play_rows(rules: Rules, choice: PlayerChoice, seed: int, first: int, last: int, schema: pa.Schema = BASE_SCHEMA) -> pa.Table:
    """Play deals ``first..last`` of ``seed`` with ``choice``: one row per deal, as an Arrow table."""
    deals = np.arange(first, last + 1, dtype=np.int64)
    n = len(deals)
    spec = choice.spec
    extra: dict[str, list] = {name: [None] * n for name in schema.names[len(BASE_SCHEMA) :]}
    if spec.kind is not None:
        out = np.zeros((n, K.N_OUT), np.int64)
        K.play_chunk(rules_array(rules), spec.kind, weights(choice.params), seed, deals, choice.max_moves, spec.salt, out)
        result = np.array(RESULTS, dtype=object)[out[:, K.C_RESULT]]
        moves, home, base = out[:, K.C_MOVES], out[:, K.C_HOME], out[:, K.C_BASE]
        max_empty, positions = out[:, K.C_MAX_EMPTY], out[:, K.C_POSITIONS]
        elapsed = np.rint(out[:, K.C_CYCLES] / cycles_per_us()).astype(np.int64)
    else:
        game = Game(rules)
        result = np.empty(n, dtype=object)
        moves, home, base, max_empty, positions, elapsed = (np.zeros(n, np.int64) for _ in range(6))
        for k, deal in enumerate(deals):
            t0 = time.perf_counter_ns()
            rec = play_choice(choice, game.deal(int(deal), seed), seed, int(deal))
            elapsed[k] = (time.perf_counter_ns() - t0) // 1000
            result[k] = rec.result
            moves[k] = len(rec.moves)
            home[k] = rec.cards_home
            base[k] = -1 if rec.base_rank is None else rec.base_rank
            max_empty[k] = rec.max_empty_piles
            positions[k] = rec.positions
            for name in extra:
                extra[name][k] = rec.extra.get(name)
    columns = {
        "game": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([rules.slug])),
        "player": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([choice.label])),
        "player_params": pa.array([choice.params_json] * n, pa.string()),
        "seed": pa.array(np.full(n, seed, np.int64)),
        "deal": pa.array(deals),
        "result": pa.array(result.tolist(), pa.string()),
        "won": pa.array(result == "won", pa.bool_()),
        "moves": pa.array(moves, pa.int32()),
        "cards_home": pa.array(home, pa.int8()),
        "base_rank": _base_column(rules, base),
        "max_empty_piles": pa.array(max_empty, pa.int8()),
        "positions": pa.array(positions, pa.int32()),
        "elapsed_us": pa.array(elapsed, pa.int64()),
        "rules_version": pa.array(np.full(n, rules.version, np.int16)),
        "engine_version": pa.array(np.full(n, ENGINE_VERSION, np.int16)),
    }
    for name in extra:
        columns[name] = pa.array(extra[name], schema.field(name).type)
    return pa.table(columns, schema=schema)


def write_atomic(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` so that ``path`` exists only once complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table, tmp, compression="zstd")
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def run_chunk(chunk: Chunk, out: str) -> int:
    """Play and write one chunk (in a worker); return its number of deals (0 if already on disk)."""
    path = Path(out) / chunk.relpath()
    if path.exists():
        return 0
    rules = find_game(chunk.game)
    schema = BASE_SCHEMA
    for col, t in chunk.extra:
        schema = schema.append(pa.field(col, pa.type_for_alias(t)))
    table = play_rows(rules, chunk.choice, chunk.seed, chunk.first, chunk.last, schema)
    write_atomic(table, path)
    return chunk.n_deals


# --------------------------------------------------------------------------
# the manifest and the output directory
# --------------------------------------------------------------------------


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _package_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("castle-sim")
    except PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=here, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if rev.returncode != 0:
        return None
    return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def _write_json_atomic(data: dict, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


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
            "package_version": _package_version(),
            "git_commit": _git_commit(),
            "started": _now(),
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
        _write_json_atomic(manifest, out / MANIFEST)
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
    if any(c.spec.kind is not None for c in exp.players):
        out = np.zeros((1, K.N_OUT), np.int64)
        K.play_chunk(rules_array(exp.games[0]), K.GREEDY, np.zeros(K.N_WEIGHTS) + 1, 0, np.zeros(1, np.int64), 2, 0, out)


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
        run_info = {"started": _now(), "finished": None, "jobs": jobs, "backend": backend, "chunks_to_play": len(todo)}
        manifest["runs"].append(run_info)
        _write_json_atomic(manifest, out / MANIFEST)
        played = 0
        if todo:
            _warm_up(exp)
            played = _execute(todo, str(out), jobs, backend, client, _want_progress(progress))
        run_info["finished"] = _now()
        if all((out / c.relpath()).exists() for c in chunks):
            manifest["finished"] = manifest["finished"] or run_info["finished"]
        _write_json_atomic(manifest, out / MANIFEST)
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
