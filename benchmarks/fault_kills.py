"""Kill a run with SIGKILL at many random moments; after each, it is resumed. Every deal must end up on disk
exactly once, with rows identical to an uninterrupted run (``elapsed_us``/``cpu_us`` aside).

The writes are slowed (``tests/faults.py``) so that kills also land inside the part write, the rename
that publishes a part and the manifest write, not only while deals are played.

    python benchmarks/fault_kills.py --kills 20
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from sim.study.dataset import played_rows

ROOT = Path(__file__).resolve().parents[1]
CASTLE = [sys.executable, "-c", "from sim.cli import main; main()"]
RUN = ["run", "--game", "sa", "--game", "sc", "--player", "greedy", "--player", "strategist", "--deals", "400",
       "--chunk-size", "20", "--jobs", "1", "--no-progress"]




def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        whole, out = Path(tmp) / "whole", Path(tmp) / "killed"
        subprocess.run(CASTLE + RUN + ["--out", str(whole)], check=True, capture_output=True)
        slowed = [sys.executable, str(ROOT / "tests" / "faults.py"), "0.03"] + RUN + ["--out", str(out)]
        print("| kill | after s | parts on disk | temporaries left | finished before the kill |")
        print("|---:|---:|---:|---:|---|")
        for k in range(1, args.kills + 1):
            proc = subprocess.Popen(slowed, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            wait = rng.uniform(0.3, 4.0)  # from 0.3 s: kills also land while the first manifest is written
            time.sleep(wait)
            finished = proc.poll() is not None
            if not finished:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            parts = len(list(out.rglob("part-*.parquet")))
            temps = len(list(out.rglob("*.tmp")))
            print(f"| {k} | {wait:.2f} | {parts} | {temps} | {'yes' if finished else 'no'} |", flush=True)
        done = subprocess.run(CASTLE + RUN + ["--out", str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        same = played_rows(out).equals(played_rows(whole))
        df = pd.read_parquet(out)
        once = not df.duplicated(["game", "player", "deal"]).any() and len(df) == 400 * 4
        print(f"\nresumed to the end: {done.stdout.strip()}")
        print(f"every deal exactly once: {once}; rows identical to the uninterrupted run: {same}; "
              f"temporaries left: {len(list(out.rglob('*.tmp')))}")
        return 0 if same and once else 1


if __name__ == "__main__":
    sys.exit(main())
