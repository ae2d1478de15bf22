"""The open-addressing table of 64-bit position keys that the solver and its dead-end test keep.

A table is a ``(2**k, 2)`` uint64 array of (key, value) rows, probed
linearly from the key's low bits; key 0 marks a free row (a key that is 0
is stored as 1: one more collision among 2**64).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def table_slot(tt, key):
    """Insert ``key``; its slot if it was new, ``-1 - slot`` if it was there."""
    if key == np.uint64(0):
        key = np.uint64(1)
    mask = np.uint64(tt.shape[0] - 1)
    i = key & mask
    while True:
        k = tt[i, 0]
        if k == key:
            return -1 - np.int64(i)
        if k == np.uint64(0):
            tt[i, 0] = key
            return np.int64(i)
        i = (i + np.uint64(1)) & mask
