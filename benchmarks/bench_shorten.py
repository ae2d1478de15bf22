"""What a solver's win costs after the search: shortening the line and replaying it in both engines.

The precision runs solve hundreds of thousands of deals at small budgets, and
half of them are wins whose depth-first line is shortened (:mod:`sim.solver.shorten`)
and replayed (:func:`sim.solver.answer.confirm`). This prints, per game, the
search's CPU against the shortening's and the replay's on the same wins, and a
digest of the shortened lines, so two commits can be compared for speed and
for identical lines:

    python benchmarks/bench_shorten.py --deals 300 --budget 50000
"""

from __future__ import annotations

import argparse
import hashlib
import time

from sim.game import Game
from sim.core.outcome import Result
from sim.solver.answer import confirm, solve
from sim.solver.shorten import shorten_line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["streets-and-alleys", "beleaguered-castle", "selective-castle"])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--start", type=int, default=20000, help="first deal id (seed 0)")
    ap.add_argument("--budget", type=int, default=50_000, help="positions per deal (the phased player's first phase)")
    ap.add_argument("--repeat", type=int, default=3, help="times each line is shortened (the median is kept)")
    args = ap.parse_args(argv)
    print(f"{'game':<20} {'wins':>5} {'moves':>7} {'short':>6} {'search ms':>10} {'shorten ms':>11} {'replay ms':>10} "
          f"{'shorten/search':>15}  digest")
    for slug in args.games:
        game = Game(slug)
        solve(game, game.deal(args.start), budget_nodes=args.budget, shorten=False)  # compile outside the clock
        shorten_line(game, game.deal(args.start).array.copy(), [])
        wins, search = [], 0.0
        for deal in range(args.start, args.start + args.deals):
            state = game.deal(deal)
            t = time.process_time()
            res = solve(game, state, budget_nodes=args.budget, budget_seconds=600, shorten=False)
            search += time.process_time() - t
            if res.result is Result.WON:
                wins.append((state.array.copy(), res.moves))
        short_t, replay_t, raw_n, short_n, digest = [], 0.0, 0, 0, hashlib.sha256()
        for _ in range(args.repeat):
            t = time.process_time()
            lines = [shorten_line(game, s, moves) for s, moves in wins]
            short_t.append(time.process_time() - t)
        t = time.process_time()
        for (s, _), line in zip(wins, lines):
            confirm(game, s, line)
        replay_t = time.process_time() - t
        for (_, moves), line in zip(wins, lines):
            raw_n += len(moves)
            short_n += len(line)
            digest.update(",".join(str(m.action) for m in line).encode() + b";")
        shorten_s = sorted(short_t)[len(short_t) // 2]
        n = max(len(wins), 1)
        print(f"{slug:<20} {len(wins):>5} {raw_n / n:>7.0f} {short_n / n:>6.0f} {search / args.deals * 1000:>10.2f} "
              f"{shorten_s / args.deals * 1000:>11.2f} {replay_t / args.deals * 1000:>10.2f} "
              f"{shorten_s / max(search, 1e-9):>15.2f}  {digest.hexdigest()[:12]}", flush=True)
    print("(ms per deal played, wins or not; CPU time; lines shortened", args.repeat, "times, median kept)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
