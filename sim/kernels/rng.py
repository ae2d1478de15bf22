"""Counter-based random numbers: seeded deals, playout streams, Zobrist keys.

Everything is splitmix64 keyed by (seed, deal), so no deal or playout
depends on another, on chunking or on the machine.
:func:`permutation` is :func:`sim.core.deals.permutation` compiled (the
golden deals hold the two equal).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.deals import GAMMA, MASK64, mix64


@njit(cache=True, inline="always")
def mix(z):
    """splitmix64's finaliser on a uint64."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def permutation(seed, deal, out):
    """The 52 cards of deal ``(seed, deal)`` in dealing order, written into ``out`` (int8)."""
    gamma = np.uint64(0x9E3779B97F4A7C15)
    key = mix(mix(np.uint64(seed) + gamma) + np.uint64(deal) * np.uint64(0xD1B54A32D192ED03))
    for i in range(52):
        out[i] = i
    counter = np.uint64(0)
    for j in range(51, 0, -1):
        n = np.uint64(j + 1)
        # 2**64 mod n, computed without 2**64: (2**64 - n) mod n
        threshold = (np.uint64(0) - n) % n
        r = np.uint64(0)
        while True:
            counter += np.uint64(1)
            r = mix(key + counter * gamma)
            if r >= threshold:
                break
        k = np.int64(r % n)
        tmp = out[j]
        out[j] = out[k]
        out[k] = tmp


@njit(cache=True, inline="always")
def rand_below(rng, n):
    """Uniform int in [0, n) from a splitmix64 stream whose state is ``rng[0]``."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    return np.int64(mix(rng[0]) % np.uint64(n))


@njit(cache=True, inline="always")
def rand_unit(rng):
    """Uniform float in [0, 1) (the draw's top 53 bits) from a splitmix64 stream whose state is ``rng[0]``."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    return np.float64(mix(rng[0]) >> np.uint64(11)) / 9007199254740992.0


@njit(cache=True)
def seed_rng(rng, seed, deal, salt):
    """Seed a playout stream from (seed, deal, salt): independent of chunking, like deals."""
    rng[0] = mix(mix(np.uint64(seed) + np.uint64(salt) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(deal))


def _keys(n: int, start: int) -> np.ndarray:
    """``n`` fixed 64-bit keys from splitmix64 at ``start``: the same on every machine."""
    return np.array([mix64((start + (i + 1) * GAMMA) & MASK64) for i in range(n)], np.uint64)


#: Zobrist keys: a card at a depth of a pile, a foundation's count, a foundation's base (+1: -1 is unset)
Z_PILE = _keys(52 * 52, 1).reshape(52, 52)
Z_FOUND = _keys(4 * 14, 2).reshape(4, 14)
Z_BASE = _keys(4 * 14, 3).reshape(4, 14)
