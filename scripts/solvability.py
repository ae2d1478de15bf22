"""How many deals of a game can be won? Solve N deals and report Wilson intervals.

Intervals are computed the paper's way (Blake & Gent): once with the unknown
deals counted as won and once as lost, reporting the outer bounds. Deals are
solved by joblib over ``--jobs`` processes; each deal's row is written to
``--csv`` so a study can be resumed or read by the analysis.

    python scripts/solvability.py --game sa --deals 1000 --budget-seconds 60
"""

from __future__ import annotations

import argparse
import csv
import sys
import time

from joblib import Parallel, delayed
from statsmodels.stats.proportion import proportion_confint

from sim.game import Game
from sim.solver import DEFAULT_TABLE_SIZE, solve_deal


def fail(message: str) -> None:
    """Bad input: one line on stderr, exit status 2, nothing written."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _solve_chunk(game: str, seed: int, deals: list[int], nodes: int, seconds: float, table: int, bases: bool) -> list[dict]:
    out = []
    for deal in deals:
        r = solve_deal(game, seed, deal, budget_nodes=nodes, budget_seconds=seconds, table_size=table, bases=bases)
        row = dict(game=game, seed=seed, deal=deal, result=r.result, nodes=r.nodes, seconds=round(r.seconds, 4),
                   n_moves=len(r.moves))
        if bases:
            row["bases"] = "".join({"won": "W", "lost": "L", "unknown": "?"}[r.bases[b]] for b in range(13))
        out.append(row)
    return out


def wilson_outer(won: int, lost: int, unknown: int, alpha: float = 0.05) -> tuple[float, float, float, float]:
    """Point estimates and outer Wilson bounds with unknowns counted as lost and as won."""
    n = won + lost + unknown
    lo_low, _ = proportion_confint(won, n, alpha=alpha, method="wilson")
    _, hi_high = proportion_confint(won + unknown, n, alpha=alpha, method="wilson")
    return won / n, (won + unknown) / n, lo_low, hi_high


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="streets-and-alleys")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget-nodes", type=int, default=200_000_000)
    ap.add_argument("--budget-seconds", type=float, default=60.0)
    ap.add_argument("--table-size", type=int, default=DEFAULT_TABLE_SIZE)
    ap.add_argument("--bases", action="store_true", help="Selective Castle: record every base's verdict")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--csv", help="per-deal rows")
    ap.add_argument("--report", metavar="CSV", help="only summarise the rows of an earlier (maybe stopped) run")
    args = ap.parse_args(argv)
    game = Game(args.game).rules.slug
    if args.report:
        rows = _read_rows(args.report)
        if not rows:
            fail(f"{args.report} holds no rows")
        report(rows, rows[0]["game"], args, float("nan"))
        return 0
    ids = list(range(args.start, args.start + args.deals))
    done = _read_rows(args.csv, game, args.seed) if args.csv else []
    have = {r["deal"] for r in done}
    todo = [d for d in ids if d not in have]
    if done:
        print(f"{args.csv}: {len(done)} deals already solved; {len(todo)} to go", file=sys.stderr)
    chunks = [todo[i : i + 10] for i in range(0, len(todo), 10)]
    t0 = time.perf_counter()
    results = Parallel(n_jobs=args.jobs, return_as="generator_unordered")(
        delayed(_solve_chunk)(game, args.seed, c, args.budget_nodes, args.budget_seconds, args.table_size, args.bases)
        for c in chunks
    )
    wanted = set(ids)
    rows: list[dict] = [r for r in done if r["deal"] in wanted]
    new_file = not done
    out = open(args.csv, "a", newline="") if args.csv else None
    writer = None
    try:
        for part in results:  # rows are appended as chunks finish, so a stopped study keeps them and resumes
            rows.extend(part)
            if out is not None:
                if writer is None:
                    writer = csv.DictWriter(out, fieldnames=list(part[0]))
                    if new_file:
                        writer.writeheader()
                writer.writerows(part)
                out.flush()
            print(f"{len(rows)}/{len(ids)} deals, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    finally:
        if out is not None:
            out.close()
    wall = time.perf_counter() - t0
    report(rows, game, args, wall)
    return 0


def _read_rows(path: str, game: str | None = None, seed: int | None = None) -> list[dict]:
    """The rows an earlier run of the same study left in ``path`` (none if it does not exist yet)."""
    try:
        with open(path, newline="") as f:
            rows = [dict(r, nodes=int(r["nodes"]), seconds=float(r["seconds"]), deal=int(r["deal"]), seed=int(r["seed"]))
                    for r in csv.DictReader(f)]
    except FileNotFoundError:
        return []
    except (KeyError, ValueError) as e:
        fail(f"{path} is not a solvability CSV ({e}); give another --csv")
    other = {(r["game"], r["seed"]) for r in rows} - {(game, seed)}
    if game is not None and other:
        fail(f"{path} holds another study {sorted(other)[0]}; give another --csv")
    return rows


def report(rows: list[dict], game: str, args, wall: float) -> None:
    """Print counts, the outer Wilson interval, effort, and per-base counts."""
    ids = [r["deal"] for r in rows]
    won = sum(r["result"] == "won" for r in rows)
    lost = sum(r["result"] == "lost" for r in rows)
    unknown = len(rows) - won - lost
    p_lo, p_hi, lo, hi = wilson_outer(won, lost, unknown)
    cpu = sum(r["seconds"] for r in rows)
    budget = "" if args.report else f"; budget {args.budget_seconds:g} s / {args.budget_nodes:,} nodes per deal"
    print(f"{game}: {len(rows)} deals ({min(ids)}..{max(ids)}, seed {rows[0]['seed']}){budget}")
    print(f"won {won}, lost {lost}, unknown {unknown} ({100 * unknown / len(rows):.2f}%)")
    print(f"winnable {100 * p_lo:.2f}%..{100 * p_hi:.2f}%, 95% Wilson outer interval [{100 * lo:.2f}%, {100 * hi:.2f}%]")
    print(f"solver time {cpu:.0f} s (mean {cpu / len(rows):.2f} s, max {max(r['seconds'] for r in rows):.1f} s); "
          f"mean nodes {sum(r['nodes'] for r in rows) / len(rows):,.0f}" + ("" if args.report else f"; wall {wall:.0f} s on {args.jobs} jobs"))
    if args.bases:
        for b in range(13):
            print(f"  base {'A23456789TJQK'[b]}: won {sum(r['bases'][b] == 'W' for r in rows)}, "
                  f"lost {sum(r['bases'][b] == 'L' for r in rows)}, unknown {sum(r['bases'][b] == '?' for r in rows)}")


if __name__ == "__main__":
    sys.exit(main())
