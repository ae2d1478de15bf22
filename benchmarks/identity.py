"""Results before and after a change that must not change them: every player's rows and the solver's verdicts.

    python benchmarks/identity.py --out /tmp/before           # on the commit before
    python benchmarks/identity.py --out /tmp/after --against /tmp/before

Plays the default experiment's players (``experiments/default.toml``: random, greedy,
strategist, lookahead at depth 3) on its deals of the three games of the study, the
ladder's other rungs and the judges on fewer deals, and solves a fixed set of boards
by nodes (seconds never bind, so the verdicts, node counts and winning lines are the
machine's to the last move). Prints a table of digests, one per (game, player),
of the rows without their timing columns; with ``--against``, the rows that differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import pandas as pd

from sim.core.rules import GAMES as ALL_GAMES
from sim.core.rules import STUDY_GAMES, find_game

GAMES = tuple(g.slug for g in STUDY_GAMES)
TIMING = ("elapsed_us", "cpu_us")

#: (player, first deal, last deal): the default experiment whole, the rest on fewer deals
PLAYS = (
    ("random", 1, 2000), ("greedy", 1, 2000), ("strategist", 1, 2000), ("lookahead:depth=3", 1, 2000),
    ("beam", 1, 40), ("beam:width=64,budget=200000", 1, 40), ("rollout", 1, 20), ("nmcs", 1, 20), ("hidden", 1, 6),
    ("solver:budget_nodes=300000,budget_seconds=100000", 1, 120),
    ("solver:budget_nodes=300000,budget_seconds=100000,dead_end=1", 1, 60),
    ("phased:first=20000,middle=100000,budget_nodes=400000,budget_seconds=100000", 1, 80),
    ("corridor:question_nodes=100000,budget_nodes=2000000,budget_seconds=100000", 1, 6),
)
#: the solver's own answers on these boards: verdict, nodes and the winning line move by move
SOLVES = range(1, 41)


def rows(out: Path) -> dict[str, str]:
    from sim.players.registry import parse_player
    from sim.study.rows import play_rows

    digests = {}
    for spec, first, last in PLAYS:
        choice = parse_player(spec)
        for game in GAMES:
            t = play_rows(find_game(game), choice, 0, first, last).to_pandas().drop(columns=list(TIMING))
            name = f"{game} {choice.label}"
            t.to_csv(out / (hashlib.sha1(name.encode()).hexdigest()[:12] + ".csv"), index=False)
            digests[name] = hashlib.sha256(t.to_csv(index=False).encode()).hexdigest()[:16]
            print(f"{name:90s} {len(t):6d} rows  {digests[name]}", flush=True)
    return digests


def solves(out: Path) -> dict[str, str]:
    from sim.solver.answer import solve_deal

    digests = {}
    for game in GAMES:
        answers = []
        for deal in SOLVES:
            r = solve_deal(game, 0, deal, budget_nodes=500_000, budget_seconds=1e5)
            answers.append({"deal": deal, "result": str(r.result), "nodes": r.nodes, "moves": [str(m) for m in r.moves]})
        text = json.dumps(answers, indent=0)
        (out / f"solve-{game}.json").write_text(text)
        digests[f"{game} solve()"] = hashlib.sha256(text.encode()).hexdigest()[:16]
        print(f"{game + ' solve()':90s} {len(answers):6d} deals {digests[game + ' solve()']}", flush=True)
    return digests


def features(out: Path) -> dict[str, str]:
    """The features ``castle explain`` reads (probes included) on the first deals of every game of the family."""
    from sim import Game
    from sim.explain.features import features as deal_features

    digests = {}
    for rules in ALL_GAMES:
        g = Game(rules.slug)
        text = deal_features(g, [g.deal(d) for d in range(1, 61)]).to_csv(index=False)
        (out / f"features-{rules.slug}.csv").write_text(text)
        digests[f"{rules.slug} features"] = hashlib.sha256(text.encode()).hexdigest()[:16]
        print(f"{rules.slug + ' features':90s} {60:6d} deals {digests[rules.slug + ' features']}", flush=True)
    return digests


PARTS = {"rows": rows, "solves": solves, "features": features}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="a folder for the rows and the digests")
    ap.add_argument("--against", type=Path, help="a folder an earlier run wrote: say what differs")
    ap.add_argument("--only", choices=sorted(PARTS), action="append", help="only these parts (default: all)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    digests = {}
    for name in args.only or PARTS:
        digests.update(PARTS[name](args.out))
    (args.out / "digests.json").write_text(json.dumps(digests, indent=1))
    if args.against:
        before = json.loads((args.against / "digests.json").read_text())
        both = sorted(set(before) & set(digests))
        differ = [k for k in both if before[k] != digests[k]]
        for k in differ:
            print(f"DIFFERS: {k}: {before[k]} -> {digests[k]}")
        new = sorted(set(digests) - set(before))
        if new:
            print(f"not in the earlier run (nothing to compare): {', '.join(new)}")
        print(f"{len(both) - len(differ)} of {len(both)} identical")
        raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
