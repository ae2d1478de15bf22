"""Seconds and peak memory of ``castle report`` and ``castle summary`` on datasets of millions of rows.

The target: both handle datasets of millions of rows with memory flat in rows (the 1-million and
10-million runs differ by at most 0.5 GB). Datasets of greedy games are built once with ``castle run``
into ``--data`` and reused (a rerun of a finished run is a no-op). Each command runs in a child of
its own, so its wall seconds and peak RSS are its alone. With ``--against`` the same commands run
with another checkout's code (a git worktree of the baseline) on the same datasets, interleaved in
the same process, and the ratios are printed.

    python benchmarks/report_scale.py --millions 1,4,10 --against ../baseline-checkout
    python benchmarks/report_scale.py --millions 0.2          # a quick check
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASTLE = [sys.executable, "-c", "import sys; from sim.cli import main; sys.argv=['castle']+sys.argv[1:]; main()"]
#: runs its arguments as its only child; last line of stdout: wall seconds, the child's max RSS, its exit status
WRAP = [sys.executable, "-c",
        "import resource,subprocess,sys,time; t=time.perf_counter(); r=subprocess.run(sys.argv[1:]); "
        "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)"]
#: ru_maxrss is in KiB on Linux, in bytes on macOS
RSS_UNIT = 1 if sys.platform == "darwin" else 1024
COMMANDS = ("report", "summary")
TARGET_GB = 0.5


def env_for(checkout: Path) -> dict[str, str]:
    """This environment with the checkout's code first on the path (ahead of the editable install)."""
    return {**os.environ, "PYTHONPATH": str(checkout)}


def check_code(checkout: Path, cwd: Path) -> None:
    """Stop unless ``import sim`` in a child finds the checkout's package, so a ratio compares the two codes."""
    found = subprocess.run([sys.executable, "-c", "import sim; print(sim.__file__)"], env=env_for(checkout),
                           cwd=cwd, capture_output=True, text=True)
    where = Path(found.stdout.strip() or ".").resolve()
    if found.returncode != 0 or (checkout / "sim") not in where.parents:
        sys.exit(f"report_scale: {checkout} does not supply the sim package (found {where})")


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def build(data: Path, millions: float, games: list[str], cwd: Path) -> tuple[Path, int, str | None]:
    """The dataset of ``millions`` rows of greedy play, built or finished here: its folder, its rows, an error."""
    per_game = round(millions * 1_000_000) // len(games)
    out = data / f"greedy-{millions:g}m-{'-'.join(games)}"
    cmd = CASTLE + ["run"] + [a for g in games for a in ("--game", g)] + [
        "--player", "greedy", "--deal-range", f"1:{per_game + 1}", "--chunk-size", "50000", "--jobs", "2",
        "--out", str(out), "--no-progress"]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env_for(ROOT), cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        return out, per_game * len(games), last_line(done.stderr)
    print(f"{out.name}: {last_line(done.stdout)} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    return out, per_game * len(games), None


def measure(args: list[str], checkout: Path, cwd: Path) -> tuple[float, float] | str:
    """Wall seconds and peak GB of one castle command run with the checkout's code, or its error line."""
    done = subprocess.run(WRAP + CASTLE + args, env=env_for(checkout), cwd=cwd, capture_output=True, text=True)
    try:
        seconds, rss, code = last_line(done.stdout).split()
        seconds, gb, code = float(seconds), int(rss) * RSS_UNIT / 2**30, int(code)
    except ValueError:
        return last_line(done.stderr)
    return (seconds, gb) if code == 0 else last_line(done.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--millions", default="1,4,10", help="dataset sizes in millions of rows, comma separated")
    ap.add_argument("--games", default="streets-and-alleys", help="one or two games, comma separated; rows split evenly")
    ap.add_argument("--data", type=Path, default=Path("data/bench-report-scale"), help="where datasets are built and reused")
    ap.add_argument("--against", type=Path, help="another checkout (git worktree) whose code is the baseline")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each command; the median is printed")
    ap.add_argument("--keep", action="store_true", help="keep the report folders (their location is printed)")
    args = ap.parse_args()
    sizes = sorted({float(m) for m in args.millions.split(",") if m.strip()})
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    if not 1 <= len(games) <= 2:
        ap.error("--games takes one or two games")
    if not sizes or min(sizes) * 1_000_000 < len(games) or args.repeat < 1:
        ap.error("--millions needs at least one deal per game and --repeat at least 1")
    codes = {"current": ROOT}
    if args.against:
        if not (args.against / "sim" / "cli").is_dir():
            ap.error(f"--against {args.against}: not a checkout of this repository")
        codes["baseline"] = args.against.resolve()
    data = args.data.resolve()
    data.mkdir(parents=True, exist_ok=True)

    tmp = Path(tempfile.mkdtemp(prefix="castle-report-scale-"))
    cwd = tmp / "cwd"
    cwd.mkdir()
    results: dict[tuple[float, str, str], tuple[float, float] | str] = {}
    try:
        for checkout in codes.values():
            check_code(checkout, cwd)
        print(f"cores: {os.cpu_count()}, load average at start: {os.getloadavg()[0]:.2f}")
        print(f"games: {', '.join(games)}; datasets in {data}; current {ROOT}"
              + (f"; baseline {codes['baseline']}" if args.against else "") + f"; median of {args.repeat}\n")
        print("| rows | command | code | seconds | peak GB |")
        print("|---:|---|---|---:|---:|")
        for millions in sizes:
            dataset, rows, error = build(data, millions, games, cwd)
            if error:
                print(f"| {rows:,} | run (build) | current | {error} | |", flush=True)
                continue
            for command in COMMANDS:
                runs: dict[str, list] = {code: [] for code in codes}
                for r in range(args.repeat):  # the codes interleaved, so a busy spell hits both
                    for code, checkout in codes.items():
                        extra = (["--out", str(tmp / f"{dataset.name}-{code}-{r}"), "--no-replays"]
                                 if command == "report" else ["--json"])
                        runs[code].append(measure([command, str(dataset), *extra], checkout, cwd))
                for code, got in runs.items():
                    failed = [g for g in got if isinstance(g, str)]
                    if failed:
                        results[millions, command, code] = failed[0]
                        print(f"| {rows:,} | {command} | {code} | {failed[0]} | |", flush=True)
                        continue
                    seconds, gb = statistics.median(s for s, _ in got), statistics.median(g for _, g in got)
                    results[millions, command, code] = (seconds, gb)
                    print(f"| {rows:,} | {command} | {code} | {seconds:.2f} | {gb:.2f} |", flush=True)
                now, base = results[millions, command, "current"], results.get((millions, command, "baseline"))
                if isinstance(now, tuple) and isinstance(base, tuple):
                    print(f"| {rows:,} | {command} | current / baseline | {now[0] / base[0]:.2f} "
                          f"| {now[1] / base[1]:.2f} |", flush=True)

        if len(sizes) > 1:
            low, high = sizes[0], sizes[-1]
            print(f"\n## peak memory, {low:g} million rows against {high:g} million "
                  f"(target: memory flat in rows, at most {TARGET_GB} GB apart)\n")
            print(f"| command | code | GB at {low:g}m | GB at {high:g}m | difference GB | within {TARGET_GB} GB |")
            print("|---|---|---:|---:|---:|---|")
            for command in COMMANDS:
                for code in codes:
                    a, b = results.get((low, command, code)), results.get((high, command, code))
                    if isinstance(a, tuple) and isinstance(b, tuple):
                        diff = b[1] - a[1]
                        print(f"| {command} | {code} | {a[1]:.2f} | {b[1]:.2f} | {diff:+.2f} "
                              f"| {'yes' if abs(diff) <= TARGET_GB else 'no'} |")
                    else:
                        print(f"| {command} | {code} | | | (a run failed) | |")
    finally:
        if args.keep:
            print(f"\nreport folders kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
