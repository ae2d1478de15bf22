"""Runner throughput, end to end (playing, Arrow, Parquet, manifest): the tables of issue 3.

1. ``greedy`` on Streets and Alleys with ``--jobs 2`` over ``--deals`` deals
   (1,000,000 by default; target: at most 90 s on two cores).
2. Deals per second for every built-in player on every study game, with one
   job and with two, and the speed-up of two over one (target: 1.8).
3. Deals per CPU-second of one process (playing, Arrow and Parquet, timed
   with ``process_time``): what a core delivers however busy the machine
   is, so tables 1 and 2 can be judged against it on a shared machine.

Run from the repository root: ``python benchmarks/bench_runner.py`` (add
``--deals 200000`` for a shorter first table; the script says when it
extrapolates). Timings are wall clock on whatever else the machine is doing;
the script prints the load average so a busy machine shows. Table 2 also
gives the CPU seconds each run used in all its processes: on a machine
others keep busy, ``2 x CPU(1 job) / CPU(2 jobs)`` is the speed-up two
otherwise idle cores would give if the work divides evenly (it counts the
parallel overhead, not the imbalance at the end of a run).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from sim.study.experiment import build
from sim.players.registry import parse_player
from sim.core.rules import STUDY_GAMES, find_game
from sim.study.dataset import write_atomic
from sim.study.rows import play_rows
from sim.study.runner import run

GAMES = tuple(g.slug for g in STUDY_GAMES)
#: deals per (player, game) in the second table: a few seconds each
SAMPLES = {"random": 2_000, "greedy": 40_000, "strategist": 40_000, "lookahead": 600}


def cpu_seconds() -> float:
    """CPU time of this process and its live children (the loky workers), if psutil is there."""
    try:
        import psutil
    except ImportError:
        return float("nan")
    me = psutil.Process()
    total = 0.0
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def timed_run(game: str, player: str, deals: int, jobs: int, chunk_size: int, root: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (all processes) of one fresh end-to-end run."""
    out = Path(tempfile.mkdtemp(dir=root))
    shutil.rmtree(out)
    exp = build({}, games=[game], players=[player], deals=deals, chunk_size=chunk_size)
    c0, t0 = cpu_seconds(), time.perf_counter()
    summary = run(exp, out, jobs=jobs, progress=False)
    seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    assert summary.deals_played == deals
    shutil.rmtree(out)
    return seconds, cpu


def cpu_rate(game: str, player: str, deals: int, root: Path) -> float:
    """Deals per CPU-second of this process: play, build the Arrow table, write Parquet."""
    rules, choice = find_game(game), parse_player(player)
    play_rows(rules, choice, 0, 0, 1)  # compiled already; touch the code paths
    t0 = time.process_time()
    for first in range(0, deals, 1000):
        table = play_rows(rules, choice, 0, first, min(first + 1000, deals) - 1)
        write_atomic(table, root / "cpu" / f"part-{first}.parquet")
    return deals / (time.process_time() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1_000_000, help="deals of the greedy Streets and Alleys run")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the sample sizes of tables 2 and 3")
    ap.add_argument("--skip-big", action="store_true", help="leave out the first table")
    ap.add_argument("--only-cpu", action="store_true", help="only the third table")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="castle-bench-"))
    try:
        print(f"cores: {os.cpu_count()}, load average at start: {os.getloadavg()[0]:.2f}")
        timed_run("streets-and-alleys", "greedy", 2_000, 2, 1_000, root)  # compile, start the workers

        if not args.skip_big and not args.only_cpu:
            n = args.deals
            s, _ = timed_run("streets-and-alleys", "greedy", n, 2, 10_000, root)
            print("\n## greedy, Streets and Alleys, --jobs 2, end to end including Parquet\n")
            print("| deals | seconds | deals/s | seconds for 1,000,000 |")
            print("|---:|---:|---:|---:|")
            note = "" if n == 1_000_000 else " (extrapolated)"
            print(f"| {n:,} | {s:.1f} | {n / s:,.0f} | {s * 1_000_000 / n:.1f}{note} |")

        if not args.only_cpu:
            wall_table(args, root)
        print("\n## deals per CPU-second, one process (play + Arrow + Parquet)\n")
        print("| player | game | deals | deals per CPU-s |")
        print("|---|---|---:|---:|")
        for player, base in SAMPLES.items():
            n = max(20, int(base * args.scale))
            for game in GAMES:
                print(f"| {player} | {game} | {n:,} | {cpu_rate(game, player, n, root):,.0f} |", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def wall_table(args, root: Path) -> None:
    """Table 2: fresh end-to-end runs with one job and with two."""
    print("\n## deals per second by player and game, end to end\n")
    print(f"load average now: {os.getloadavg()[0]:.2f}\n")
    print("| player | game | deals | 1 job deals/s | 2 jobs deals/s | speed-up | CPU-s 1 job | CPU-s 2 jobs | 2 x CPU ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for player, base in SAMPLES.items():
        n = max(20, int(base * args.scale))
        chunk = max(10, n // 20)
        for game in GAMES:
            one, cpu1 = timed_run(game, player, n, 1, chunk, root)
            two, cpu2 = timed_run(game, player, n, 2, chunk, root)
            print(
                f"| {player} | {game} | {n:,} | {n / one:,.0f} | {n / two:,.0f} | {one / two:.2f} "
                f"| {cpu1:.1f} | {cpu2:.1f} | {2 * cpu1 / cpu2:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
