"""Do the designs agree with solving every deal, on real deals? A table for the note.

The coverage benchmark (``design_coverage.py``) resamples the shipped rows; this one plays each design for real on
seed 0's deals 1-2,000 of Streets and Alleys and Beleaguered Castle and sets it beside the full-budget effort run on
the same deals (``data/published/solver-effort``: the solver with pruning rule 5, 200 million positions a deal).
Two checks, both exact:

* every deal the design settles (in any phase) has the effort run's verdict, when the effort run settled it too
  (a proof cannot differ: a difference is a bug);
* the effort run's estimate, its unknowns counted both ways, meets the design's 95% interval.

The designs' rows go to ``--out`` (``castle run``, so a rerun resumes and reuses them):

    python benchmarks/design_real_data.py                  # about 4 CPU-minutes, --jobs 2
    python benchmarks/design_real_data.py --out /tmp/real --jobs 1

Exit status 1 if a check fails.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.designs import estimate  # noqa: E402
from analysis.load import load_results  # noqa: E402

EFFORT = ROOT / "data" / "published" / "solver-effort"
DEALS = "1:2001"  #: the effort run's deals
DESIGNS = {  # game: {design: the phased player's label}
    "streets-and-alleys": {
        "three-phase (the study's)": "phased:rate=0.14,rate2=0.2",
        "two-phase 100k, 7%": "phased:first=100000,middle=0,rate=0.07",
    },
    "beleaguered-castle": {
        "three-phase (the study's)": "phased:rate=0.14",
        "two-phase 100k, 7%": "phased:first=100000,middle=0,rate=0.07",
    },
}


def play(game: str, player: str, out: Path, jobs: int) -> None:
    """The design's rows on the effort run's deals (``castle run`` resumes what is there)."""
    castle = Path(sys.executable).with_name("castle")
    cmd = [str(castle), "run", "--game", game, "--player", player, "--deal-range", DEALS, "--seed", "0",
           "--jobs", str(jobs), "--out", str(out), "--no-progress"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"castle run failed ({' '.join(cmd[1:])}): {done.stderr.strip().splitlines()[-1]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "design-real", help="where the designs' rows go")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)

    effort_rows = load_results(EFFORT)
    failed = False
    print(f"{'game':20s} {'design':26s} {'estimate':>9s} {'95% interval':>17s} {'solved':>7s} {'CPU-s':>8s} "
          f"{'effort (range)':>17s} {'meets':>6s} {'verdicts differ':>22s}")
    for game, designs in DESIGNS.items():
        full = effort_rows[effort_rows.game == game]
        e = estimate(full)
        lo_e, hi_e = e.estimate - e.unknown / 2, e.estimate + e.unknown / 2
        for name, player in designs.items():
            out = args.out / f"{game}-{name.split()[0]}"
            play(game, player, out, args.jobs)
            rows = load_results(out, games=[game])
            d = estimate(rows)
            settled = rows[~rows.left.fillna(False).astype(bool) & rows.result.isin(["won", "lost"])]
            both = settled.merge(full[full.result.isin(["won", "lost"])], on=["seed", "deal"], suffixes=("", "_full"))
            differ = both.deal[both.result.astype(str) != both.result_full.astype(str)].tolist()
            meets = hi_e >= d.lo and lo_e <= d.hi
            failed |= bool(differ) or not meets
            print(f"{game:20s} {name:26s} {d.estimate:9.3%} {d.lo:8.3%}-{d.hi:8.3%} {d.solved:7,d} "
                  f"{d.cpu_seconds:8.0f} {lo_e:8.3%}-{hi_e:8.3%} {'yes' if meets else 'NO':>6s} "
                  f"{(', '.join(map(str, differ)) if differ else 'none'):>7s} of {len(both):,d} both settled")
        print(f"{game:20s} {'effort run (every deal)':26s} {e.estimate:9.3%} {e.lo:8.3%}-{e.hi:8.3%} {e.solved:7,d} "
              f"{e.cpu_seconds:8.0f}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
