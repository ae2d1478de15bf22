"""The times the README states, measured as a user meets them (issue 53): wall, CPU and peak memory of one process.

Two measures, each one whole ``castle`` process run once (each takes minutes: run it on a quiet machine):

- ``--report DATA``: ``castle report DATA`` into a temporary folder (what ``make figures`` runs beside the
  notebooks; ``data/published`` is the study's);
- ``--compile``: the first run on a cold numba cache: the default experiment's four players on the study's
  three games, 10 deals each, with ``NUMBA_CACHE_DIR`` an empty temporary folder (so the project's own cache is
  left as it is), against the same run once that cache is warm. The difference is what compiling costs the
  first ``make study``.

Peak memory is the largest resident set of the process or of any child it waited for (``ru_maxrss``).

    python benchmarks/bench_timings.py --report data/published
    python benchmarks/bench_timings.py --compile
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASTLE = Path(sys.executable).with_name("castle")
STUDY = ["--game", "selective-castle", "--game", "streets-and-alleys", "--game", "beleaguered-castle",
         "--player", "random", "--player", "greedy", "--player", "strategist", "--player", "lookahead:depth=3",
         "--deals", "10"]


def measure(argv: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, children included) and peak resident GB of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {err.strip()[-300:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1e6


def row(name: str, wall: float, cpu: float, gb: float) -> None:
    print(f"{name:<44} {wall:>9.1f} s {cpu:>9.1f} s {gb:>8.2f} GB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, help="a results folder: time `castle report` of it")
    parser.add_argument("--compile", action="store_true", help="time the first run on a cold numba cache")
    args = parser.parse_args()
    if not args.report and not args.compile:
        parser.error("give --report DATA, --compile, or both")
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start (another job slows the wall "
          "column)\n")
    print(f"{'what':<44} {'wall':>11} {'CPU':>11} {'peak RSS':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.report:
            row(f"castle report {args.report}", *measure([str(CASTLE), "report", str(args.report), "--out",
                                                           str(Path(tmp) / "report")]))
        if args.compile:
            cold = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba")}
            for name in ("first run (cold numba cache)", "second run (cache warm)"):
                out = Path(tmp) / name.split()[0]
                row(f"castle run, 4 players x 3 games x 10: {name.split()[0]}",
                    *measure([str(CASTLE), "run", *STUDY, "--out", str(out)], cold))


if __name__ == "__main__":
    main()
