"""The solver's clock: CPU seconds of this process, less those numba spent compiling.

CPU time, not wall time, so a budget in seconds means the same search effort
on an idle machine and on one running more solvers than it has cores. Less
compiling, because the first solve after an install or an edit compiles the
engine (minutes) inside its budget: a 60 s budget would spend it all
compiling and call an easy deal unknown.
"""

from __future__ import annotations

import threading
import time

from numba.core import event


class _Compiling(event.Listener):
    """CPU seconds spent in numba's outermost compiles (a compile calls others: those are inside it)."""

    def __init__(self):
        self.seconds = 0.0
        self._local = threading.local()

    def on_start(self, ev):
        depth = getattr(self._local, "depth", 0)
        if depth == 0:
            self._local.started = time.process_time()
        self._local.depth = depth + 1

    def on_end(self, ev):
        self._local.depth -= 1
        if self._local.depth == 0:
            self.seconds += time.process_time() - self._local.started


_COMPILING = _Compiling()
event.register("numba:compile", _COMPILING)


def clock() -> float:
    """CPU seconds of this process so far, numba's compiles left out."""
    return time.process_time() - _COMPILING.seconds
