"""Engine throughput: random playouts, compiled against reference, in one process.

Both engines play uniform random legal moves from seeded deals until won,
stuck or the move cap; moves per second counts every move played (legal-move
generation plus the move itself). The compiled engine runs whole playouts
inside one kernel, the reference engine in Python: the ratio is what
compilation buys.
"""

from __future__ import annotations

import random
import time

import numpy as np

from . import engine as E
from . import reference
from .deals import DEFAULT_SEED, deal_position
from .rules import GAMES, Rules


def compiled_moves_per_s(rules: Rules, deals: int, max_moves: int, seed: int = DEFAULT_SEED) -> float:
    r = E.rules_array(rules)
    ids = np.arange(deals, dtype=np.int64)
    res = np.zeros(deals, np.int8)
    moves = np.zeros(deals, np.int32)
    home = np.zeros(deals, np.int8)
    E.random_playouts(r, seed, ids[:1], 10, 0, res[:1], moves[:1], home[:1])  # compile / load cache
    start = time.perf_counter()
    total = E.random_playouts(r, seed, ids, max_moves, 0, res, moves, home)
    return total / (time.perf_counter() - start)


def reference_moves_per_s(rules: Rules, deals: int, max_moves: int, seed: int = DEFAULT_SEED) -> float:
    rng = random.Random(seed)
    positions = [deal_position(rules, d, seed) for d in range(deals)]
    total = 0
    start = time.perf_counter()
    for pos in positions:
        for _ in range(max_moves):
            legal = reference.legal_moves(rules, pos)
            if not legal or reference.is_won(pos):
                break
            pos = reference.play(rules, pos, rng.choice(legal))
            total += 1
    return total / (time.perf_counter() - start)


def run_bench(deals: int = 2000, reference_deals: int = 20, max_moves: int = 1000) -> dict[str, dict[str, float]]:
    """Moves per second of both engines on every game, keyed by game slug."""
    out = {}
    for rules in GAMES:
        c = compiled_moves_per_s(rules, deals, max_moves)
        ref = reference_moves_per_s(rules, reference_deals, max_moves)
        out[rules.slug] = {"compiled_moves_per_s": c, "reference_moves_per_s": ref, "ratio": c / ref}
    return out
