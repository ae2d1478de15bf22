"""A researcher's own player against the built-in ones (issue 52): games and moves per CPU-second, ratios in one run.

Rows of the table, each played by the runner's own row maker (:func:`sim.study.rows.play_rows`), timed by
the CPU time of this process (so a busy machine slows the figures less than wall time would):

1. ``greedy``, built in, compiled: the baseline of the first block;
2. ``MyGreedy`` (examples/players/greedy_compiled.py), greedy written again as a compiled plug-in: target at
   least 0.70 of the baseline's games a second, and the same rows (the two timed in turn, each one's best of
   three kept, so that their ratio does not depend on which ran while the machine was busier);
3. the greedy sketch of the issue (a move home first, else the first move to an unseen position) written
   with Move objects, as a Python player was written before the cheap calls, and
4. the same sketch with the cheap calls (``State.actions``, ``push`` of an int, ``pop_action``, the kept
   ``hash``): target at least 3x the sketch's moves a second before them (the "before" figure is the
   sketch's row run on the commit before the cheap calls: ``--sketch-only`` prints just that row);
5. ``TwoDeep`` and ``FastTwoDeep`` (examples/players/two_deep.py): one heuristic two moves deep in Python
   and compiled (target: a ratio of at least 100), the Python one also written with Move objects as before the
   cheap calls.

Then the first compile of a compiled plug-in (a fresh copy of the greedy plug-in in a new folder, in a new
process) and the same process again (numba's cache beside the file), and the rows comparison of ``greedy``
and ``MyGreedy`` over ``--compare`` deals of each study game.

    python benchmarks/bench_plugins.py                 # about 3 CPU-minutes
    python benchmarks/bench_plugins.py --compare 100000
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sim.core.rules import STUDY_GAMES, find_game
from sim.game import Game
from sim.players.loop import play
from sim.players.registry import parse_player
from sim.study.rows import play_rows

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "players"
GAME = "streets-and-alleys"


class Sketch:
    """The issue's greedy sketch with Move objects, as a Python player was written before the cheap calls."""

    def __init__(self, seed=0, deal=0):
        self.seen = set()

    def choose(self, state):
        self.seen.add(state.hash())
        moves = list(state.legal_moves)
        for m in moves:
            if m.to_foundation:
                return m
        for m in moves:
            state.push(m)
            h = state.hash()
            state.pop()
            if h not in self.seen:
                return m
        return None


class CheapSketch:
    """The same sketch with the cheap calls: action ints, push and pop_action, the kept hash."""

    def __init__(self, seed=0, deal=0):
        self.seen = set()

    def choose(self, state):
        self.seen.add(state.hash())
        actions = state.actions().tolist()
        for a in actions:
            if a % 14 == 13:  # to its foundation
                return a
        for a in actions:
            state.push(a)
            h = state.hash()
            state.pop_action()
            if h not in self.seen:
                return a
        return None


class TwoDeepMoves:
    """examples/players/two_deep.py's TwoDeep written with Move objects, as before the cheap calls."""

    def __init__(self, seed=0, deal=0):
        self.seen = set()

    def choose(self, state):
        from two_deep import score

        self.seen.add(state.hash())
        best, best_value = None, None
        for m in list(state.legal_moves):
            if m.to_foundation:
                return m
            state.push(m)
            if state.hash() not in self.seen:
                value = score(state)
                for b in list(state.legal_moves):
                    state.push(b)
                    value = max(value, score(state))
                    state.pop()
                if best_value is None or value > best_value:
                    best, best_value = m, value
            state.pop()
        return best


def python_rate(make, deals: range) -> tuple[float, float, list]:
    """Games and moves per CPU-second of a Python player through the play loop, and its games."""
    game = Game(GAME)
    play(game.deal(deals[0]), make(), 1000)  # warm: the loop's kernels loaded
    c0 = time.process_time()
    games = [play(game.deal(d), make(), 1000) for d in deals]
    cpu = time.process_time() - c0
    return len(deals) / cpu, sum(len(g.moves) for g in games) / cpu, [(g.result, len(g.moves)) for g in games]


def chunk_rate(player: str, deals: int) -> tuple[float, float]:
    """Games and moves per CPU-second of a player through the runner's row maker (best of three)."""
    rules, choice = find_game(GAME), parse_player(player)
    play_rows(rules, choice, 0, 0, 10)  # compile, or load from numba's cache
    best = None
    for _ in range(3):
        c0 = time.process_time()
        table = play_rows(rules, choice, 0, 1, deals)
        cpu = time.process_time() - c0
        best = cpu if best is None else min(best, cpu)
    return deals / best, int(table.column("moves").to_numpy().sum()) / best


def paired_chunk_rates(players: list[str], deals: int, rounds: int = 3) -> list[tuple[float, float]]:
    """:func:`chunk_rate` of several players, their timed runs interleaved (a, b, a, b, ...) and each player's best
    kept: a ratio between them then does not depend on which of them ran while the machine was busier."""
    rules = find_game(GAME)
    choices = [parse_player(p) for p in players]
    for choice in choices:
        play_rows(rules, choice, 0, 0, 10)  # compile, or load from numba's cache
    best: list = [None] * len(choices)
    moves = [0] * len(choices)
    for _ in range(rounds):
        for i, choice in enumerate(choices):
            c0 = time.process_time()
            table = play_rows(rules, choice, 0, 1, deals)
            cpu = time.process_time() - c0
            best[i] = cpu if best[i] is None else min(best[i], cpu)
            moves[i] = int(table.column("moves").to_numpy().sum())
    return [(deals / b, m / b) for b, m in zip(best, moves)]


def first_compile() -> tuple[float, float]:
    """Seconds of a new process that plays one deal with a fresh copy of the greedy plug-in: the first time (its
    compile) and the second (numba's cache beside the file)."""
    folder = Path(tempfile.mkdtemp(prefix="castle-bench-"))
    try:
        shutil.copy(EXAMPLES / "greedy_compiled.py", folder / "fresh_greedy.py")
        code = ("import time; t = time.perf_counter(); from sim.study.rows import play_rows; from sim.core.rules import find_game; "
                "from sim.players.registry import parse_player; "
                f"play_rows(find_game('{GAME}'), parse_player('fresh_greedy.py:MyGreedy'), 0, 1, 1); print(time.perf_counter() - t)")
        base = "import time; t = time.perf_counter(); from sim.study.rows import play_rows; from sim.core.rules import find_game; " \
               f"from sim.players.registry import parse_player; play_rows(find_game('{GAME}'), parse_player('greedy'), 0, 1, 1); print(time.perf_counter() - t)"
        builtin = float(subprocess.run([sys.executable, "-c", base], cwd=folder, capture_output=True, text=True, check=True).stdout)
        first = float(subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, check=True).stdout)
        again = float(subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, check=True).stdout)
        return first - builtin, again - builtin, builtin
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def compare_rows(deals: int) -> list[tuple[str, int, int]]:
    """Deals of each study game where MyGreedy's row differs from greedy's (result, moves, cards home, positions, ...)."""
    out = []
    mine = parse_player(f"{EXAMPLES / 'greedy_compiled.py'}:MyGreedy")
    cols = ("result", "moves", "cards_home", "base_rank", "max_empty_piles", "positions")
    for rules in STUDY_GAMES:
        a = play_rows(rules, parse_player("greedy"), 0, 1, deals)
        b = play_rows(rules, mine, 0, 1, deals)
        differ = np.zeros(deals, bool)
        for c in cols:
            x, y = a.column(c).to_pandas(), b.column(c).to_pandas()
            differ |= ~((x == y) | (x.isna() & y.isna())).to_numpy()
        out.append((rules.slug, deals, int(differ.sum())))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20_000, help="deals a compiled player plays per timing")
    ap.add_argument("--python-deals", type=int, default=300, help="deals a Python player plays per timing")
    ap.add_argument("--compare", type=int, default=10_000, help="deals of each study game compared row by row")
    ap.add_argument("--sketch-only", action="store_true", help="print the Move-object sketch's row only (to run on an older commit)")
    args = ap.parse_args()
    sys.path.insert(0, str(EXAMPLES))
    deals = range(1, args.python_deals + 1)
    if args.sketch_only:
        g, m, _ = python_rate(Sketch, deals)
        print(f"sketch (Move objects): {g:,.0f} games/s, {m:,.0f} moves/s per CPU-second")
        return
    from two_deep import FastTwoDeep, TwoDeep  # noqa: F401  (the file's players, by reference below)

    rows = []
    (g0, m0), (g, m) = paired_chunk_rates(["greedy", f"{EXAMPLES / 'greedy_compiled.py'}:MyGreedy"], args.deals)
    rows.append(("greedy (built in, compiled)", g0, m0, 1.0))
    rows.append(("MyGreedy (compiled plug-in)", g, m, g / g0))
    gs, ms, games_a = python_rate(Sketch, deals)
    rows.append(("greedy sketch, Move objects (Python)", gs, ms, 1.0))
    gc, mc, games_b = python_rate(CheapSketch, deals)
    assert games_a == games_b, "the two sketches must play the same games"
    rows.append(("greedy sketch, cheap calls (Python)", gc, mc, mc / ms))
    few = range(1, max(2, args.python_deals // 10) + 1)
    gl0, ml0, games_l0 = python_rate(TwoDeepMoves, few)
    rows.append(("TwoDeep with Move objects (Python)", gl0, ml0, 1.0))
    gl, ml, games_l = python_rate(TwoDeep, few)
    assert games_l == games_l0
    rows.append(("TwoDeep, cheap calls (Python)", gl, ml, ml / ml0))
    fast = f"{EXAMPLES / 'two_deep.py'}:FastTwoDeep"
    same = play_rows(find_game(GAME), parse_player(fast), 0, few[0], few[-1])
    assert [(str(r), m) for r, m in games_l] == list(zip(same.column("result").to_pylist(), same.column("moves").to_pylist()))
    gf, mf = chunk_rate(fast, args.deals // 4)
    rows.append(("FastTwoDeep, the same compiled", gf, mf, mf / ml))
    rows.append(("  ... against the Move-object TwoDeep", gf, mf, mf / ml0))
    print(f"{'player':40s} {'games/CPU-s':>12s} {'moves/CPU-s':>13s} {'ratio':>8s}")
    for label, g, m, ratio in rows:
        print(f"{label:40s} {g:12,.0f} {m:13,.0f} {ratio:8.2f}")
    print("(ratios: MyGreedy to greedy in games; the cheap sketch to the Move-object one, and FastTwoDeep to TwoDeep, in moves:"
          " the same games, a move costing what it costs)")
    first, again, builtin = first_compile()
    print(f"\nfirst compile of a compiled plug-in: {first:.1f} s more than the built-in's start-up ({builtin:.1f} s); "
          f"the next process, from numba's cache beside the file: {again:+.2f} s")
    print(f"\nrows of greedy and MyGreedy compared, deals 1-{args.compare:,} of each study game:")
    for slug, n, differ in compare_rows(args.compare):
        print(f"  {slug:22s} {n:9,} deals  {differ} differ")


if __name__ == "__main__":
    main()
