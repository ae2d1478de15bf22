"""Engine throughput: random playouts, compiled against reference, in one process, like against like.

Both engines play uniform random legal moves from seeded deals until won,
stuck or the move cap, and count every move played. The ratio compares like
with like: legal moves and the move, in the compiled kernel
(:func:`sim.kernels.play.random_walks`) and in the reference engine's Python.
The compiled play loop (the random player's whole games as the runner plays
them: each position also hashed for the seen-positions count and the record
kept) is a figure of its own, what a study's playouts cost.
"""

from __future__ import annotations

import random
import time

import numpy as np

from ..core import reference
from ..core.deals import DEFAULT_SEED, FIRST_DEAL, deal_position
from ..core.rules import GAMES, Rules
from ..kernels import play as play_kernel
from ..kernels.layout import rules_array
from ..kernels.players import RANDOM
from ..players.builtin import RANDOM as RANDOM_PLAYER
from ..players.compiled import weights


def compiled_moves_per_s(rules: Rules, deals: int, max_moves: int, seed: int = DEFAULT_SEED) -> float:
    """Moves per second of legal moves and the move only, in the compiled kernel."""
    r = rules_array(rules)
    ids = np.arange(FIRST_DEAL, FIRST_DEAL + deals, dtype=np.int64)
    play_kernel.random_walks(r, seed, ids[:1], 10, RANDOM_PLAYER.salt)  # compile / load cache
    start = time.perf_counter()
    total = play_kernel.random_walks(r, seed, ids, max_moves, RANDOM_PLAYER.salt)
    return total / (time.perf_counter() - start)


def play_loop_moves_per_s(rules: Rules, deals: int, max_moves: int, seed: int = DEFAULT_SEED) -> float:
    """Moves per second of the random player's whole games in the compiled play loop (hash and record too)."""
    r = rules_array(rules)
    ids = np.arange(FIRST_DEAL, FIRST_DEAL + deals, dtype=np.int64)
    out = play_kernel.game_rows(deals)
    w = weights({})
    play_kernel.play_chunk(r, RANDOM, w, seed, ids[:1], play_kernel.NO_STARTS, 10, RANDOM_PLAYER.salt, out[:1])  # compile / load cache
    start = time.perf_counter()
    play_kernel.play_chunk(r, RANDOM, w, seed, ids, play_kernel.NO_STARTS, max_moves, RANDOM_PLAYER.salt, out)
    return int(out["moves"].sum()) / (time.perf_counter() - start)


def reference_moves_per_s(rules: Rules, deals: int, max_moves: int, seed: int = DEFAULT_SEED) -> float:
    """Moves per second of legal moves and the move only, in the reference engine."""
    rng = random.Random(seed)
    positions = [deal_position(rules, d, seed) for d in range(FIRST_DEAL, FIRST_DEAL + deals)]
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
    """Moves per second of both engines on every game, keyed by game slug; ``ratio`` is like against like."""
    out = {}
    for rules in GAMES:
        c = compiled_moves_per_s(rules, deals, max_moves)
        loop = play_loop_moves_per_s(rules, deals, max_moves)
        ref = reference_moves_per_s(rules, reference_deals, max_moves)
        out[rules.slug] = {"compiled_moves_per_s": c, "play_loop_moves_per_s": loop, "reference_moves_per_s": ref,
                           "ratio": c / ref}
    return out
