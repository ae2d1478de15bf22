"""What one ``castle solve`` of an easy board costs as a whole process (issue 53): the start, not the search.

One process per board is how a script or another program asks (Solvitaire answers in 0.03-0.09 s), so the
start-up counts: importing NumPy and numba, loading the kernels from numba's cache, reading the board. Three
commands are run ``--runs`` times each, interleaved, in fresh processes from an empty folder:

1. ``python -c pass``: the interpreter alone, the floor;
2. ``castle --help``: the command line without the engine;
3. ``castle solve beleaguered-castle --board FILE``, FILE being deal 10 of Beleaguered Castle (won in under a
   thousand positions, a millisecond of search).

Each row is the median wall time and the median CPU time (user + system, of the process and its children);
on a busy machine the CPU column says more than the wall one. The kernels must be in numba's cache first: the
script runs the solve once, untimed, before the timed runs.

    python benchmarks/bench_startup.py            # about 15 s on two idle cores
    python benchmarks/bench_startup.py --runs 21
    git archive COMMIT sim | tar -x -C /tmp/before   # the same, of another commit's code, beside this one's
    python benchmarks/bench_startup.py --before /tmp/before
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASTLE = Path(sys.executable).with_name("castle")
GAME, DEAL = "beleaguered-castle", 10


def timed(argv: list[str], cwd: str, env: dict | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="timed runs of each command (median reported)")
    parser.add_argument("--before", type=Path, help="a folder holding another commit's sim/ (git archive COMMIT sim): "
                        "its solve timed too, on this environment's packages (its first run compiles its own cache)")
    args = parser.parse_args()
    before = {**os.environ, "PYTHONPATH": str(args.before.resolve())} if args.before else None
    with tempfile.TemporaryDirectory() as here:
        board = Path(here) / "board.txt"
        board.write_text(subprocess.run([str(CASTLE), "deal", GAME, str(DEAL)], capture_output=True, text=True,
                                        check=True).stdout)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "castle --help": [str(CASTLE), "--help"],
            f"castle solve {GAME} --board (deal {DEAL})": [str(CASTLE), "solve", GAME, "--board", str(board)],
        }
        envs = {name: None for name in commands}
        if before:
            commands["the same, code of --before"] = commands[list(commands)[-1]]
            envs["the same, code of --before"] = before
        for name in list(commands)[2:]:  # (untimed: numba's cache filled if it was not)
            answer = subprocess.run(commands[name], capture_output=True, text=True, check=True, cwd=here, env=envs[name])
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():
                times[name].append(timed(argv, here, envs[name]))
    load = os.getloadavg()[0]
    print(f"castle solve answered: {answer.stdout.splitlines()[0]}")
    print(f"{args.runs} runs each, {os.cpu_count()} CPUs, load average {load:.1f} at the end "
          "(another job slows the wall column)\n")
    print(f"{'command':<48} {'wall median':>12} {'CPU median':>11}")
    for name, rows in times.items():
        wall = statistics.median(w for w, _ in rows)
        cpu = statistics.median(c for _, c in rows)
        print(f"{name:<48} {wall:>10.3f} s {cpu:>9.3f} s")


if __name__ == "__main__":
    main()
