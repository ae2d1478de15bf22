"""How much memory a worker that solves may hold, and how many such workers this machine can hold at once.

Why: the solver's table is most of a worker's memory (up to 16 bytes a slot of ``table_size``, more for a moment
while it doubles), so two workers of the study's deepest solves (a table of 2**29 slots) need about 32 GB, and on
a machine with less the operating system kills one mid-solve: hours of search lost, the run stopped. The runner
and ``castle solve`` ask :func:`capped` before they start their workers; ``--halfwidth``'s plan says :func:`worker_mb` too.
"""

from __future__ import annotations

import math
import os
import sys

from ..core import files
from ..core.limits import DEFAULT_TABLE_SIZE

#: the most memory one worker holds solving one Streets and Alleys deal the study left unknown at 200 million positions
#: (deal 432075, seed 0, the published phases), measured with ``resource.getrusage`` (peak resident set): 4,542 MB in
#: a process that held 604 MB before it (pandas and the published rows loaded), where a worker holds :data:`BASE_MB`;
#: 392 CPU-seconds on the machine that measured it. Most of it is the
#: solver's: its table, up to 16 bytes a slot of ``table_size`` (2 GB at the default; 3 GB for a moment while it
#: doubles), and its path, which on the deepest searches grows to about the table's own size (``Slots.max_depth``).
#: (Two settle workers with 2**29 slots were killed for memory on a 24 GB machine at about 14 GB each.)
WORKER_MB = 4230.0
#: what a worker holds whatever it solves: the interpreter, the compiled kernels, the dead-end test's arrays (measured
#: after ten small solves)
BASE_MB = 300.0
WORKER_SOURCE = (f"measured: one worker solving Streets and Alleys deal 432075 to 200 million positions held "
                 f"{WORKER_MB / 1024:.1f} GB")
#: the share of the machine's free memory the workers may count on (the parent process and the page cache need some)
USABLE = 0.9


def worker_mb(searches) -> tuple[float, str]:
    """(MB, where from) a worker may hold at most before any is measured, for ``searches``: (table_size, positions)
    of each solve it runs. :data:`WORKER_MB` for a table that can fill the default's, scaled with the table a search
    can fill otherwise (its slots, or the positions it may store at the table's load limit, whichever is fewer)."""
    from .rounds import LOAD_LIMIT

    slots = max(min(size, 1 << max(0, math.ceil(math.log2(max(nodes, 1) / LOAD_LIMIT)))) for size, nodes in searches)
    if slots >= DEFAULT_TABLE_SIZE:
        return BASE_MB + (WORKER_MB - BASE_MB) * slots / DEFAULT_TABLE_SIZE, WORKER_SOURCE
    return (BASE_MB + (WORKER_MB - BASE_MB) * slots / DEFAULT_TABLE_SIZE,
            f"{WORKER_SOURCE}, scaled to a table of at most {slots:,} slots")


def player_mb(params: dict) -> float:
    """The most a worker playing a player with ``params`` may hold: :func:`worker_mb` of its table and budget when it
    has both (the exact players), else :data:`BASE_MB`."""
    if "table_size" in params and "budget_nodes" in params:
        return worker_mb([(int(params["table_size"]), int(params["budget_nodes"]))])[0]
    return BASE_MB


def free_mb() -> float | None:
    """The memory this machine has free now, MB (Linux's ``MemAvailable``; else the physical memory), or None."""
    try:
        for line in files.read_text("/proc/meminfo", files.MEMINFO, "the kernel's memory figures").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, AttributeError):
        return None


def fitting_workers(jobs: int, each_mb: float, machine_mb: float | None) -> int:
    """How many of ``jobs`` workers of up to ``each_mb`` each fit in :data:`USABLE` of ``machine_mb`` (at least 1;
    ``jobs`` when the machine's memory is not known)."""
    if machine_mb is None or each_mb <= 0:
        return jobs
    return max(1, min(jobs, int(USABLE * machine_mb // each_mb)))


def capped(jobs: int, each_mb: float, command: str, machine_mb: float | None = None) -> int:
    """``jobs``, or as many workers of up to ``each_mb`` as fit in the free memory (``machine_mb``: given by a test,
    else this machine's), said in one line on standard error as ``command``; a warning when even one may not fit."""
    machine = free_mb() if machine_mb is None else machine_mb
    fit = fitting_workers(jobs, each_mb, machine)
    if fit < jobs:
        alone = ", and even one may be killed for memory" if each_mb > USABLE * machine else ""
        print(f"{command}: {jobs} workers of up to {each_mb / 1024:.1f} GB each do not fit in the {machine / 1024:.1f} GB "
              f"this machine has free: running {fit}{alone}", file=sys.stderr)
    elif machine is not None and each_mb > USABLE * machine:
        print(f"{command}: one worker may hold up to {each_mb / 1024:.1f} GB, more than the {machine / 1024:.1f} GB this "
              "machine has free: it may be killed for memory (a smaller table size needs less)", file=sys.stderr)
    return fit
