"""Making rows: a chunk of deals played into an Arrow table of the dataset's schema, and written as one part.

Its own module because it is the one place rows are made: the runner's
workers, the benchmarks and the tests all call :func:`play_rows`, so a row
is the same whoever asks for it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

from ..game import Game
from ..core.outcome import RESULTS, WON, Result
from ..core.rules import FoundationBase, Rules, find_game
from ..kernels import play as play_kernel
from ..kernels.legal import ENGINE_VERSION
from ..kernels.layout import rules_array
from ..core.deals import PYSOL_SEED, deal_position
from ..game import array_of
from ..kernels.plugin import F_AT
from ..players.compiled import kind_of, weights
from ..players.plugin import PluginFault, compile_decision, fault_message, view_for
from ..players.loop import play_choice
from ..players.registry import is_builtin
from ..players.spec import PlayerChoice, PlayerFault
from .chunks import Chunk
from .dataset import schema, write_atomic


_cycles_per_us: float | None = None


def cycles_per_us() -> float:
    """The cycle counter's rate, measured once per process against ``perf_counter``."""
    global _cycles_per_us
    if _cycles_per_us is None:
        c0, t0 = play_kernel.cycle_counter(), time.perf_counter()
        while time.perf_counter() - t0 < 0.02:
            pass
        c1, t1 = play_kernel.cycle_counter(), time.perf_counter()
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
    out = play_kernel.game_rows(n)
    extra: dict[str, list] = {f.name: [None] * n for f in row_schema if f.name not in _ROW_NAMES}
    elapsed = np.zeros(n, np.int64)
    cpu = np.zeros(n, np.int64)
    starts = _starts(rules, seed, deals) if choice.spec.compiled else None
    if choice.spec.compiled:
        r = rules_array(rules)
        plugin = view_for(choice, r) if choice.spec.decide is not None else None
        player = (r, kind_of(choice), weights(choice.params)) if plugin is None else None
    else:
        game = Game(rules)
    at, step = 0, n if report is None else 1
    while at < n:
        stop = min(at + step, n)
        t0 = time.perf_counter()
        if choice.spec.compiled:
            c0 = time.process_time_ns()
            if plugin is None:
                play_kernel.play_chunk(*player, seed, deals[at:stop], starts[at:stop] if len(starts) else starts, choice.max_moves, choice.salt, out[at:stop])
            else:
                _play_plugin(choice, r, plugin, seed, deals[at:stop], starts[at:stop] if len(starts) else starts, out[at:stop])
            call_cpu_us = (time.process_time_ns() - c0) / 1000
            cycles = out["cycles"][at:stop].astype(np.float64)
            # the call's CPU time, shared out by each deal's share of the cycles (one kernel call has one CPU clock)
            cpu[at:stop] = np.rint(cycles / max(cycles.sum(), 1.0) * call_cpu_us).astype(np.int64)
        else:
            for k in range(at, stop):
                deal = int(deals[k])
                t1, c0 = time.perf_counter_ns(), time.process_time_ns()
                rec = _play_python(choice, game, seed, deal)
                elapsed[k] = (time.perf_counter_ns() - t1) // 1000
                cpu[k] = (time.process_time_ns() - c0) // 1000
                out[k] = record_row(rec)
                for name in extra:
                    extra[name][k] = rec.extra.get(name)
        if report is not None:
            report(stop - at)
            step = max(1, int((stop - at) * REPORT_SECONDS / max(time.perf_counter() - t0, 1e-6)))
        at = stop
    if choice.spec.compiled:
        elapsed = np.rint(out["cycles"].astype(np.float64) / cycles_per_us()).astype(np.int64)
    result = np.array(RESULTS, dtype=object)[out["result"]]
    base = out["base_rank"]
    shared = rules.foundation_base == FoundationBase.FIRST_CARD_SHARED
    columns = {
        "game": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([rules.slug])),
        "player": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([choice.label])),
        "player_params": pa.array([choice.params_json] * n, pa.string()),
        "seed": pa.array(np.full(n, seed, np.int64)),
        "deal": pa.array(deals),
        "result": pa.array(result.tolist(), pa.string()),
        "won": pa.array(result == RESULTS[WON], pa.bool_()),
        **{name: pa.array(out[name], type_) for name, type_ in _COUNTED},
        "base_rank": pa.array(base, pa.int8(), mask=base < 0) if shared else pa.nulls(n, pa.int8()),
        "elapsed_us": pa.array(elapsed, pa.int64()),
        "cpu_us": pa.array(cpu, pa.int64()),
        "dialect": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([rules.dialect])),
        "rules_version": pa.array(np.full(n, rules.version, np.int16)),
        "engine_version": pa.array(np.full(n, ENGINE_VERSION, np.int16)),
        "player_version": pa.array(np.full(n, choice.spec.version, np.int16)),
    }
    for name, values in extra.items():
        columns[name] = pa.array(values, row_schema.field(name).type)
    if choice.spec.source is not None:  # where the player came from, and its code's hash
        columns["player_source"] = pa.array([choice.spec.source.label] * n, pa.string())
        columns["player_sha256"] = pa.array([choice.spec.source.sha256] * n, pa.string())
    return pa.table(columns, schema=row_schema)


_ROW_NAMES = {f.name for f in schema()}
#: the record's fields that become their column as they are (a count): the rest are read above (result, base_rank,
#: cycles); their order in the table is the schema's, whatever this one's
_COUNTED = tuple((f.name, f.type) for f in schema() if f.name in play_kernel.GAME_ROW.names and f.name not in ("result", "base_rank"))


def record_row(rec) -> tuple:
    """A :class:`~sim.players.record.GameRecord` as a kernel's record (:data:`~sim.kernels.play.GAME_ROW`), field by name."""
    values = {"result": Result(rec.result).code, "moves": len(rec.moves), "cards_home": rec.cards_home,
              "base_rank": -1 if rec.base_rank is None else rec.base_rank, "max_empty_piles": rec.max_empty_piles,
              "positions": rec.positions, "cycles": 0}
    return tuple(values[name] for name in play_kernel.GAME_ROW.names)


def _starts(rules: Rules, seed: int, deals: np.ndarray) -> np.ndarray:
    """The starting positions the compiled loop plays: none (it deals a seed's deals itself), or PySol's deals."""
    if seed != PYSOL_SEED or not len(deals):
        return play_kernel.NO_STARTS
    return np.stack([array_of(deal_position(rules, int(d), seed)) for d in deals])


def _play_plugin(choice: PlayerChoice, r: np.ndarray, v, seed: int, deals: np.ndarray, starts: np.ndarray, out: np.ndarray) -> None:
    """A compiled plug-in's chunk; its compile error, exception or broken rule of the kit as one :class:`PluginFault`."""
    fn = choice.spec.decide
    compile_decision(choice)
    try:
        played = play_kernel.plugin_loops()[0](r, fn, v, seed, deals, starts, choice.max_moves, choice.salt, out)
    except Exception as e:  # numba's typing errors and the decision's own exceptions alike
        at = int(v.book[F_AT])
        where = f", deal {int(deals[at])}" if 0 <= at < len(deals) and not _is_compile_error(e) else ""
        raise PluginFault(f"player {choice.label}{where}: {_first_line(e)}") from None
    if played < len(deals):
        raise PluginFault(f"player {choice.label}, deal {int(deals[played])}: {fault_message(choice, v)}")


def _play_python(choice: PlayerChoice, game: Game, seed: int, deal: int):
    """One deal by a Python player; a player from a file, module or entry point that raises is one line naming it."""
    if choice.spec.source is None and is_builtin(choice.spec):
        return play_choice(choice, game.deal(deal, seed), seed, deal)
    try:
        return play_choice(choice, game.deal(deal, seed), seed, deal)
    except PlayerFault:
        raise
    except Exception as e:
        raise PlayerFault(f"player {choice.label}, deal {deal}: {_first_line(e)}") from None


def _is_compile_error(e: BaseException) -> bool:
    from numba.core.errors import NumbaError

    return isinstance(e, NumbaError)


def _first_line(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).splitlines() if x.strip()]
    text = next((x for x in lines if not x.startswith(("Failed in", "During:"))), lines[0] if lines else "")
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def run_chunk(chunk: Chunk, out: str, report: Callable[[int], None] | None = None) -> tuple[int, float, float]:
    """Play and write one chunk (in a worker); return its number of deals, the CPU seconds they took, and the most
    memory the worker has held so far (its peak resident set, MB: what a plan of the run's memory is measured by).

    ``report`` (see :func:`play_rows`) hears of the deals as they are played, before the part is written.
    """
    path = Path(out) / chunk.relpath()
    table = play_rows(find_game(chunk.game), chunk.choice, chunk.seed, chunk.first, chunk.last, schema(chunk.extra), report)
    write_atomic(table, path)
    return chunk.n_deals, pa.compute.sum(table.column("cpu_us")).as_py() / 1e6, peak_mb()


def peak_mb() -> float:
    """This process's peak resident memory so far, MB (0 where the platform does not say)."""
    try:
        import resource
    except ImportError:  # (Windows)
        return 0.0
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / (1 << 20) if sys.platform == "darwin" else kb / 1024  # bytes on macOS, KiB elsewhere
