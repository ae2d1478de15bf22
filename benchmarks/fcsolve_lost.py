"""Do our lost verdicts agree with fc-solve's? A random sample of Beleaguered Castle deals our exact runs proved lost.

Blake & Gent's Solvitaire and our solver are compared by their winnability (the README's test); that comparison
means something only if our verdicts are right. A win is checked by replaying it; a loss only another exhaustive
search can confirm. So this draws deals our exact runs in ``data/published`` proved lost (every run of the game:
the plain runs and the solver in phases, one verdict per deal), uniformly at random with a fixed seed
(:func:`analysis.solvitaire.lost_sample`), runs Freecell Solver on each (``fc-solve -g beleaguered_castle``,
exhaustive; ``--cap`` CPU seconds a deal) and prints each verdict and a summary line.

    python benchmarks/fcsolve_lost.py                       # 100 deals, seed 51 (under a minute)
    python benchmarks/fcsolve_lost.py --deals 20 --seed 7   # another sample

A random lost deal is mostly a quick loss (fc-solve proves the hundred in seconds): the sample checks the verdicts
as the estimate counts them, each deal once, not the hardest proofs (fc-solve takes gigabytes on those).

Exit status 1 if fc-solve calls one of them won (a verdict of ours would be wrong).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.designs import exact_mask  # noqa: E402
from analysis.load import load_results  # noqa: E402
from analysis.solvitaire import LOST_SAMPLE_SEED, lost_sample  # noqa: E402
from sim.game import Game  # noqa: E402
from sim.solver import fcsolve  # noqa: E402

GAME = "beleaguered-castle"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "published", help="the study's results")
    ap.add_argument("--deals", type=int, default=100, help="how many lost deals to draw")
    ap.add_argument("--seed", type=int, default=LOST_SAMPLE_SEED, help="the sample's seed")
    ap.add_argument("--cap", type=float, default=300.0, help="fc-solve's CPU seconds a deal (past it: unknown)")
    args = ap.parse_args(argv)
    if not fcsolve.available():
        print("fcsolve_lost: fc-solve is not installed (apt-get install freecell-solver-bin)", file=sys.stderr)
        return 2
    rows = load_results(args.data, games=[GAME], columns=["game", "player", "seed", "deal", "result"], judged_only=True)
    rows = rows[exact_mask(rows.player)]
    lost = int(rows.groupby(["seed", "deal"]).result.agg(lambda r: "won" not in set(r) and "lost" in set(r)).sum())
    sample = lost_sample(rows, GAME, args.deals, args.seed)
    drawn = f"drawn at random (seed {args.seed})"
    game = Game(GAME)
    counts = {"lost": 0, "won": 0, "unknown": 0}
    print(f"{'seed':>4} {'deal':>7} {'fc-solve':>9} {'states':>12} {'seconds':>8}")
    for seed, deal in zip(sample.seed, sample.deal):
        t = time.perf_counter()
        fc = fcsolve.run(game.deal(int(deal), int(seed)), timeout=args.cap)
        counts[fc.result] += 1
        states = f"{fc.states:,}" if fc.states is not None else ""
        print(f"{int(seed):>4} {int(deal):>7} {fc.result:>9} {states:>12} {time.perf_counter() - t:8.2f}", flush=True)
    print(f"{len(sample)} of the {lost:,} Beleaguered Castle deals data/published proves lost, {drawn}: fc-solve agrees "
          f"on {counts['lost']}, calls {counts['won']} won, leaves {counts['unknown']} unknown within {args.cap:g} s")
    return 1 if counts["won"] else 0


if __name__ == "__main__":
    sys.exit(main())
