"""Do the designs' 95% intervals cover the truth, at the sizes the study runs them? A table for the note.

Populations are the shipped solver rows of Streets and Alleys and Beleaguered Castle (seed 0, deals 0-9,999 at
60 million positions): each deal's verdict and the positions it took, so a phase of ``b`` positions settles exactly
the deals that took at most ``b`` (the solver's rounds are the same up to any cap below a million positions, and
past it the portfolio's beam only wins sooner). Each replication draws ``n`` deals with replacement and fresh
subsampling draws, runs the design's estimator, and checks that its interval holds the population's share (both
ways for the population's own unknowns). Also a plain run of 10,000 deals combined with a phased run, as the study
combines them.

    python benchmarks/design_coverage.py                 # 2,000 replications, n = 10,000 / 50,000 / 200,000
    python benchmarks/design_coverage.py --reps 500 --sizes 10000
    python benchmarks/design_coverage.py --settled       # with the unknowns solved again (perfect_play, settle rows)

``--settled``: a fixed half of the population's unknowns settle when solved again deeper (each with a verdict drawn
once); each replication's deals left unknown at the last phase get ``settle`` rows, and :func:`perfect_play` puts
their verdicts in place. The truth is the settled population's (its remaining unknowns both ways).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from analysis.designs import Estimate, combine, phased_interval, phased_mean, plain_estimate  # noqa: E402
from analysis.load import load_results  # noqa: E402
from test_designs import phased_arrays  # noqa: E402

DESIGNS = {  # name: (first, middle, rate, rate2)
    "three-phase 50k/2M, 14%/20% (the study's Streets and Alleys run)": (50_000, 2_000_000, 0.14, 0.20),
    "three-phase 50k/2M, 14%/25% (the study's Beleaguered Castle run)": (50_000, 2_000_000, 0.14, 0.25),
    "two-phase 100k, 7%": (100_000, 0, 0.07, 1.0),
}


def population(game: str):
    df = load_results(ROOT / "data" / "published" / "winnability-streets-beleaguered", games=[game], columns=["game", "result", "nodes"])
    return (df.result == "won").to_numpy(), df.nodes.to_numpy(), (df.result == "unknown").to_numpy()


def run(game: str, design: tuple, n: int, reps: int, rng, with_plain: bool = False) -> tuple[float, float, float]:
    """Coverage, mean half-width (points) and the spread of (estimate - truth) / standard error."""
    y, nodes, unknown = population(game)
    lo_truth, hi_truth = (y & ~unknown).mean(), (y | unknown).mean()
    covered, widths, zs = 0, [], []
    for _ in range(reps):
        i = rng.integers(0, len(y), n)
        arrays = phased_arrays(y[i], nodes[i], unknown[i], rng.random(n), rng.random(n), *design)
        m0, m1, v0, lo, hi = phased_interval(*arrays)
        if with_plain:
            j = rng.integers(0, len(y), 10_000)
            won, unk = int((y[j] & ~unknown[j]).sum()), int(unknown[j].sum())
            # each part with its variance's parts on each side: the combination's quantile is Satterthwaite's over them
            first = plain_estimate(game, "solver", won, unk, 10_000, 0.0)
            sides = [tuple(phased_mean(*arrays, won)[2]) for won in (0, 1)]
            e = combine([first, Estimate(game, "phased", "phased", (m0 + m1) / 2, lo, hi, n, 0, 0.0, v0, m1 - m0,
                                         parts=sides[0], parts_won=sides[1])], game)
            lo, hi, m0, v0 = e.lo, e.hi, e.estimate - e.unknown / 2, e.variance
        covered += lo <= lo_truth and hi_truth <= hi
        widths.append((hi - lo) / 2)
        zs.append((m0 - lo_truth) / math.sqrt(v0))
    return covered / reps, 100 * float(np.mean(widths)), float(np.std(zs))


def run_settled(game: str, design: tuple, n: int, reps: int, rng) -> tuple[float, float, float]:
    """:func:`run` with the unknowns solved again, through the analysis's own :func:`perfect_play`."""
    import json

    import pandas as pd

    from analysis.designs import perfect_play

    y, nodes, unknown = population(game)
    fixed = np.random.default_rng(5)
    settles = unknown & (fixed.random(len(y)) < 0.5)
    y2 = np.where(settles, fixed.random(len(y)) < 0.5, y)
    unknown2 = unknown & ~settles
    lo_truth, hi_truth = (y2 & ~unknown2).mean(), (y2 | unknown2).mean()
    params = json.dumps({"middle": design[1]})
    covered, widths, zs = 0, [], []
    for _ in range(reps):
        i = rng.integers(0, len(y), n)
        phase, left, result = phased_arrays(y[i], nodes[i], unknown[i], rng.random(n), rng.random(n), *design)
        rows = pd.DataFrame({"game": game, "player": "phased", "player_params": params, "seed": 0, "deal": np.arange(n),
                             "result": result, "phase": phase, "left": left, "cpu_us": 1})
        k = np.flatnonzero((result == "unknown") & ~left)
        again = pd.DataFrame({"game": game, "player": "settle", "seed": 0, "deal": k, "cpu_us": 1,
                              "result": np.where(settles[i[k]], np.where(y2[i[k]], "won", "lost"), "unknown")})
        e = perfect_play(pd.concat([rows, again], ignore_index=True), game)
        covered += e.lo <= lo_truth and hi_truth <= e.hi
        widths.append(e.half_width)
        zs.append((e.estimate - e.unknown / 2 - lo_truth) / math.sqrt(e.variance))
    return covered / reps, 100 * float(np.mean(widths)), float(np.std(zs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 200_000])
    ap.add_argument("--settled", action="store_true", help="the study's three-phase designs with the unknowns solved again")
    args = ap.parse_args()
    rng = np.random.default_rng(2026)
    print(f"| game | design | deals | replications | coverage | mean ± points | sd of (estimate − truth)/se | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    if args.settled:
        for game, (name, design) in zip(("streets-and-alleys", "beleaguered-castle"), list(DESIGNS.items())[:2]):
            for n in args.sizes:
                t = time.time()
                cov, width, sd = run_settled(game, design, n, args.reps, rng)
                print(f"| {game} | {name}, half the unknowns settled again | {n:,} | {args.reps:,} | {100 * cov:.2f}% | "
                      f"{width:.3f} | {sd:.3f} | {time.time() - t:.0f} |", flush=True)
        return
    for game in ("streets-and-alleys", "beleaguered-castle"):
        for name, design in DESIGNS.items():
            for n in args.sizes:
                for with_plain in (False, True):
                    t = time.time()
                    cov, width, sd = run(game, design, n, args.reps, rng, with_plain)
                    label = name + (" + plain 10,000" if with_plain else "")
                    print(f"| {game} | {label} | {n:,} | {args.reps:,} | {100 * cov:.2f}% | {width:.3f} | {sd:.3f} | {time.time() - t:.0f} |",
                          flush=True)


if __name__ == "__main__":
    main()
