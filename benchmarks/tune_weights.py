"""Tune the evaluation's weights for a player by coordinate search on training deals; print each step.

    python benchmarks/tune_weights.py "beam:width=32,budget=100000,patience=30" --deals 1000000:1000100

The objective is the number of deals won over the games (by default the three of the study)
(plus a thousandth of the mean cards home, to break ties); each weight in
turn is multiplied or divided by ``--step`` (or set from 0 to 1) while that
improves it, until a sweep changes nothing or ``--sweeps`` are done.
Training deals should lie outside every deal range the study reports
(the study's are below 50,000). Plays through the runner, so the players
are exactly the ones the study runs.
"""

from __future__ import annotations

import argparse
import time

from joblib import Parallel, delayed

from sim.core.rules import STUDY_GAMES
from sim.players.builtin import EVAL_PARAMS
from sim.players.registry import parse_player
from sim.study.experiment import parse_deal_range
from sim.study.rows import play_rows


def _wins(spec: str, slug: str, seed: int, first: int, last: int) -> tuple[int, float]:
    from sim.core.rules import find_game

    t = play_rows(find_game(slug), parse_player(spec), seed, first, last)
    return int(sum(t.column("won").to_pylist())), float(sum(t.column("cards_home").to_pylist()))


def objective(spec: str, games: list[str], seed: int, first: int, end: int, jobs: int) -> tuple[float, dict[str, int]]:
    """Deals won (plus a thousandth of mean cards home) by ``spec`` on ``first..end-1`` of each game."""
    step = max(1, (end - first) // jobs)
    tasks = [(g, a, min(a + step, end) - 1) for g in games for a in range(first, end, step)]
    out = Parallel(n_jobs=jobs)(delayed(_wins)(spec, g, seed, a, b) for g, a, b in tasks)
    won: dict[str, int] = {g: 0 for g in games}
    home = 0.0
    for (g, _, _), (w, h) in zip(tasks, out):
        won[g] += w
        home += h
    n = (end - first) * len(games)
    return sum(won.values()) + home / n / 1000, won


def spec_with(base: str, weights: dict[str, float]) -> str:
    name, _, rest = base.partition(":")
    params = dict(item.split("=") for item in rest.split(",") if item)
    params.update({k: f"{v:g}" for k, v in weights.items()})
    return name + ":" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("player", help="the player to tune, with its fixed parameters")
    ap.add_argument("--deals", default="1000000:1000100", help="training deals first:end (end excluded), per game")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--weights", default=",".join(p.name for p in EVAL_PARAMS), help="the weights to tune, comma-separated")
    ap.add_argument("--step", type=float, default=2.0)
    ap.add_argument("--sweeps", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--games", default=",".join(g.slug for g in STUDY_GAMES), help="the games to tune on, comma-separated")
    args = ap.parse_args()
    first, end = parse_deal_range(args.deals)
    games = args.games.split(",")
    choice = parse_player(args.player)
    weights = {k: float(choice.params[k]) for k in args.weights.split(",")}
    t0 = time.perf_counter()
    best, won = objective(spec_with(args.player, weights), games, args.seed, first, end, args.jobs)
    print(f"start {best:9.3f} {won} {weights}", flush=True)
    for sweep in range(args.sweeps):
        changed = False
        for k in list(weights):
            for factor in (args.step, 1 / args.step):
                while True:
                    trial = dict(weights)
                    trial[k] = (weights[k] * factor) if weights[k] else (1.0 if factor > 1 else 0.0)
                    if trial[k] == weights[k]:
                        break
                    value, trial_won = objective(spec_with(args.player, trial), games, args.seed, first, end, args.jobs)
                    print(f"  sweep {sweep} {k}={trial[k]:g}: {value:9.3f} {trial_won}", flush=True)
                    if value <= best:
                        break
                    best, won, weights, changed = value, trial_won, trial, True
        print(f"after sweep {sweep}: {best:9.3f} {won} {weights} ({time.perf_counter() - t0:.0f} s)", flush=True)
        if not changed:
            break
    print(spec_with(args.player, weights))


if __name__ == "__main__":
    main()
