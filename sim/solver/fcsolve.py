"""Freecell Solver (Debian's ``fc-solve``) on our boards: the solver to agree with and to beat.

Our board text is fc-solve's except for empty piles: we write ``-``, fc-solve
reads only ``:`` (a ``-`` line makes it answer "Not enough input"), so
:func:`fc_board` rewrites them. Its preset for Beleaguered Castle wants the
``Foundations:`` line (the Aces home); Streets and Alleys boards need none;
Citadel's carries the cards sent home while dealing. (Debian's build holds at
most 10 piles, so Baker's Dozen and Castles in Spain are beyond it.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from ..core.board import format_board
from ..game import State

FC_SOLVE = "fc-solve"
#: our game slug -> fc-solve's preset name
PRESETS = {"beleaguered-castle": "beleaguered_castle", "streets-and-alleys": "streets_and_alleys", "citadel": "citadel"}
MOVE_ORDER = "01ABCDE"


class FcSolveError(RuntimeError):
    """fc-solve is missing, the game has no preset, or its answer was not understood."""


@dataclass
class FcResult:
    result: str  #: won / lost / unknown (unknown: iteration cap or time cap reached)
    states: int | None
    seconds: float


def _die_with_parent() -> None:
    """In the child, before fc-solve starts: on Linux, be killed when the process that started it dies.

    Without it, a race killed mid-board leaves fc-solve running to its end,
    gigabytes and a core for minutes, behind whatever runs next.
    """
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def available() -> bool:
    return shutil.which(FC_SOLVE) is not None


def fc_board(state: State) -> str:
    """The board text fc-solve reads: ours, with ``:`` for an empty pile."""
    aces = state.rules.aces_preplaced or any(state.position().foundations)
    text = format_board(state.position(), foundations_line=True if aces else None)
    return "\n".join(":" if line == "-" else line for line in text.split("\n"))


def _verdict(out: str) -> str:
    if "This game is solveable." in out:
        return "won"
    if "I could not solve this game." in out:
        return "lost"
    if "Iterations count exceeded" in out:
        return "unknown"
    raise FcSolveError(f"fc-solve said: {out.strip()[:200]!r}")


def _states(out: str) -> int | None:
    for line in out.splitlines():
        if line.startswith("Total number of states checked is"):
            return int(line.rstrip(".").split()[-1])
    return None


def run(state: State, timeout: float = 60.0, max_iters: int | None = None) -> FcResult:
    """Run fc-solve on ``state``'s board with the issue's move order; ``unknown`` past ``timeout``."""
    preset = PRESETS.get(state.rules.slug) if state.rules.dialect == "sheet" else None
    if preset is None:
        raise FcSolveError(f"fc-solve has no preset for {state.rules.full_slug}")
    if not available():
        raise FcSolveError("fc-solve is not installed (Debian package freecell-solver-bin)")
    cmd = [FC_SOLVE, "-g", preset, "-to", MOVE_ORDER]
    if max_iters is not None:
        cmd += ["-sel", "--max-iters", str(max_iters)]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(fc_board(state))
        path = f.name
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd + [path], capture_output=True, text=True, timeout=timeout, preexec_fn=_die_with_parent)
    except subprocess.TimeoutExpired:
        return FcResult("unknown", None, time.perf_counter() - start)
    finally:
        os.unlink(path)
    seconds = time.perf_counter() - start
    return FcResult(_verdict(proc.stdout + proc.stderr), _states(proc.stdout), seconds)
