"""Our solver against Freecell Solver on the same boards, one after the other.

For each deal, fc-solve (``-to 01ABCDE``, capped at ``--cap`` seconds) runs
first, then ours with the same cap as its time budget. Prints the issue's
table: total time ratio ours/fc-solve, boards each leaves unresolved, nodes
(fc-solve: states) per second, the slowest deal of each, and any deal where
both resolved and disagree. ``--csv`` keeps the per-deal rows; ``--through-cli``
also times ours as a user meets it: one ``castle solve --board`` process for
every board, against fc-solve's summed time.

    python benchmarks/bench_solver.py --game bc --deals 200 --cap 60
"""

from __future__ import annotations

import argparse
import csv
import sys
import time

from sim.solver import fcsolve
from sim.game import Game
from sim.core.outcome import Result
from sim.solver.answer import solve
from sim.core.limits import DEFAULT_BUDGET_NODES


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="beleaguered-castle")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--start", type=int, default=1, help="first deal id")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pysol", action="store_true", help="PySol FC's deal numbers (pysol:N) instead of seeded deals")
    ap.add_argument("--cap", type=float, default=60.0, help="seconds per board for each solver")
    ap.add_argument("--csv", help="write per-deal rows here")
    ap.add_argument("--dead-end", action="store_true", help="ours with pruning rule 5, no way home (castle solve --dead-end)")
    ap.add_argument("--through-cli", action="store_true",
                    help="also time ours as a user meets it: one `castle solve --board DIR --json` process for all boards")
    ap.add_argument("--jobs", type=int, default=1, help="with --through-cli: the command's --jobs (1: one solver, as fc-solve)")
    args = ap.parse_args(argv)
    if not fcsolve.available():
        print("bench_solver: fc-solve is not installed (apt-get install freecell-solver-bin)", file=sys.stderr)
        return 2
    game = Game(args.game)
    if game.rules.slug not in fcsolve.PRESETS:
        print(f"bench_solver: fc-solve has no preset for {game.rules.slug}", file=sys.stderr)
        return 2
    warm_up(game, args.seed)
    rows = []
    for deal in range(args.start, args.start + args.deals):
        state = game.deal(f"pysol:{deal}" if args.pysol else deal, args.seed)
        fc = fcsolve.run(state, timeout=args.cap)
        start = time.perf_counter()  # wall time for both, as fc-solve's is
        ours = solve(game, state, budget_nodes=DEFAULT_BUDGET_NODES * 100, budget_seconds=args.cap, dead_end=args.dead_end)
        wall = time.perf_counter() - start
        rows.append(dict(deal=deal, fc=fc.result, fc_seconds=fc.seconds, fc_states=fc.states or 0,
                         ours=ours.result, ours_seconds=wall, ours_nodes=ours.nodes))
        print(f"{deal:>6} fc-solve {fc.result:<7} {fc.seconds:7.2f}s   ours {ours.result:<7} {wall:7.2f}s "
              f"{ours.nodes:>11,} nodes", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    if args.through_cli:
        cli_seconds, cli_verdicts = through_cli(game, rows, args)
        same = all(cli_verdicts[r["deal"]] == r["ours"] or "unknown" in (cli_verdicts[r["deal"]], r["ours"]) for r in rows)
        fc_total = sum(r["fc_seconds"] for r in rows)
        print(f"\nthrough the command line (one `castle solve --board` call, --jobs {args.jobs}, whole process): {cli_seconds:.1f} s "
              f"against fc-solve's {fc_total:.1f} s summed: ratio {cli_seconds / max(fc_total, 1e-9):.3f}; "
              f"verdicts as in process: {'yes' if same else 'NO'}")
    fc_t = sum(r["fc_seconds"] for r in rows)
    our_t = sum(r["ours_seconds"] for r in rows)
    fc_states_t = sum(r["fc_seconds"] for r in rows if r["fc_states"])
    disagree = [r["deal"] for r in rows if "unknown" not in (r["fc"], r["ours"]) and r["fc"] != r["ours"]]
    slow_fc = max(rows, key=lambda r: r["fc_seconds"])
    slow_ours = max(rows, key=lambda r: r["ours_seconds"])
    which = f"PySol deals pysol:{args.start}..{args.start + len(rows) - 1}" if args.pysol else \
        f"deals {args.start}..{args.start + len(rows) - 1}, seed {args.seed}"
    print(f"\n{game.rules.name}: {len(rows)} boards ({which}), cap {args.cap:g} s")
    print(f"{'':<22}{'fc-solve':>14}{'ours':>14}")
    print(f"{'total seconds':<22}{fc_t:>14.1f}{our_t:>14.1f}")
    print(f"{'won / lost / unknown':<22}" + "".join(
        f"{'/'.join(str(sum(r[k] == v for r in rows)) for v in ('won', 'lost', 'unknown')):>14}" for k in ("fc", "ours")))
    print(f"{'positions per second':<22}{sum(r['fc_states'] for r in rows) / max(fc_states_t, 1e-9):>14,.0f}"
          f"{sum(r['ours_nodes'] for r in rows) / max(our_t, 1e-9):>14,.0f}")
    slow_fc_txt = f"{slow_fc['deal']} ({slow_fc['fc_seconds']:.1f}s)"
    slow_ours_txt = f"{slow_ours['deal']} ({slow_ours['ours_seconds']:.1f}s)"
    print(f"{'slowest deal':<22}{slow_fc_txt:>14}{slow_ours_txt:>14}")
    print(f"time ratio ours/fc-solve: {our_t / max(fc_t, 1e-9):.3f}")
    print(f"disagreements (both resolved): {disagree or 'none'}")
    return 1 if disagree else 0


def warm_up(game: Game, seed: int) -> None:
    """Compile (or load from numba's cache) every kernel a timed solve can reach before timing: the search,
    the shortening and replay of a win, and the portfolio's beam (a cold cache otherwise charges a deal
    a minute or more of compiling)."""
    from sim.players.loop import play
    from sim.players.registry import parse_player

    for deal in range(50):
        if solve(game, game.deal(deal, seed), budget_nodes=200_000).result is Result.WON:
            break
    beam = parse_player("beam:width=4,budget=2000")
    play(game.deal(0, seed), beam.make(), beam.max_moves)


def through_cli(game: Game, rows: list[dict], args) -> tuple[float, dict[int, str]]:
    """Every board written to a folder, solved by one `castle solve` process: its wall time and verdicts."""
    import json
    import subprocess
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        for r in rows:
            deal = f"pysol:{r['deal']}" if args.pysol else r["deal"]
            (Path(folder) / f"deal-{r['deal']:06d}.txt").write_text(game.deal(deal, args.seed).board_text())
        cmd = [sys.executable, "-c", "from sim.cli import main; main()", "solve", game.rules.slug, "--board", folder,
               "--json", "--budget-seconds", str(args.cap), "--budget-nodes", str(DEFAULT_BUDGET_NODES * 100), "--jobs", str(args.jobs)]
        cmd += ["--dead-end"] if args.dead_end else []
        start = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        seconds = time.perf_counter() - start
    verdicts = {int(Path(d["board"]).stem.split("-")[1]): d["result"] for d in map(json.loads, out.splitlines())}
    return seconds, verdicts


if __name__ == "__main__":
    sys.exit(main())
