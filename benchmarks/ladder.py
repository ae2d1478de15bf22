"""The ladder: win rate and CPU per deal of given players on given deals of the three games of the study.

    python benchmarks/ladder.py --deals 1:101 greedy "beam:width=32,grow=2,budget=100000,patience=30" beam

Plays through the runner (sim.study.rows.play_rows), so CPU is measured as in any dataset.
"""

from __future__ import annotations

import argparse

import numpy as np

from sim.core.rules import STUDY_GAMES, find_game
from sim.players.registry import parse_player
from sim.study.experiment import parse_deal_range
from sim.study.rows import play_rows

GAMES = tuple(g.slug for g in STUDY_GAMES)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("players", nargs="+")
    ap.add_argument("--deals", default="1:101", help="first:end (end excluded)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", default=",".join(GAMES))
    args = ap.parse_args()
    first, end = parse_deal_range(args.deals)
    print(f"{'player':50s} {'game':20s} {'won':>7s} {'ms/deal':>9s} {'p90 ms':>8s}")
    for spec in args.players:
        choice = parse_player(spec)
        for game in args.games.split(","):
            rules = find_game(game)
            play_rows(rules, choice, args.seed, first, first)  # compile outside the measurement
            t = play_rows(rules, choice, args.seed, first, end - 1).to_pandas()
            cpu = t.cpu_us.to_numpy() / 1000
            print(f"{choice.label:50s} {game:20s} {t.won.mean():7.1%} {cpu.mean():9.1f} {np.percentile(cpu, 90):8.1f}", flush=True)


if __name__ == "__main__":
    main()
