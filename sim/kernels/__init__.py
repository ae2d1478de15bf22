"""Every compiled function of the toolkit, and nothing else: numba kernels over small int arrays.

Python code validates, allocates and calls; these modules loop. They are
``@njit(cache=True)``, and numba's cache checks only the source file of the
function it compiled, while our kernels inline one another and read the
constants of :mod:`sim.core`. So this package keeps one guard for the whole
folder: a digest of every kernel module and of the core modules they read,
kept beside the cache, decides at import whether the folder's cache files
are dropped. Editing any of them recompiles every kernel once; nothing
stale survives.

- :mod:`.layout`: the state array, the rules array, the undo token
- :mod:`.rng`: splitmix64, seeded deals, playout streams, Zobrist keys
- :mod:`.legal`: which moves are legal: the one move generator
- :mod:`.apply_undo`: playing a legal move and taking it back
- :mod:`.hashing`: a position's canonical hash, from scratch and kept as moves are played
- :mod:`.dealing`: the starting position of a numbered deal
- :mod:`.seen`: the set of positions a game has passed through
- :mod:`.table`: the table of 64-bit position keys the solver and its dead-end test keep
- :mod:`.evaluate`: the players' one evaluation of a position, and its weights
- :mod:`.players`: the decisions of the built-in compiled players
- :mod:`.planners`: the planning players (beam, rollout, nmcs): a line planned, kept and replayed
- :mod:`.beam`: the beam's search, and its parameters
- :mod:`.rollouts`: rollout's and nmcs's nested greedy playouts, and their parameters
- :mod:`.home_first`: the planners' rule of cards home first: how a line's positions rank, which cards go home alone
- :mod:`.play`: the one play loop (whole chunks of deals inside the kernel)
- :mod:`.features`: a deal's features: its layout, and how far cheap players get from it
- :mod:`.search`: the exact solver's depth-first search
- :mod:`.pruning`: which children the solver searches, in which order
- :mod:`.solver_table`: what the solver's table remembers of a position, and making room in it
- :mod:`.deadend`: the solver's dead-end test: can a card ever go home again?
- :mod:`.shorten`: shorter winning lines, by shortcuts onto later positions of a win
- :mod:`.corridor`: the judge's look-ahead to positions already known won
- :mod:`.lines`: every line of a few moves from a position, walked depth first; a hash found among sorted ones
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: the core modules whose constants or code the kernels compile in
_CORE_READ = ("cards.py", "moves.py", "rules.py", "outcome.py", "deals.py")


def _sources() -> list[Path]:
    core = _HERE.parent / "core"
    return sorted(_HERE.glob("*.py")) + [core / name for name in _CORE_READ]


def drop_stale_cache(folder: Path = _HERE, sources: list[Path] | None = None) -> bool:
    """Delete ``folder``'s numba cache files if any source changed since they were written; True if it did."""
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in (sources or _sources()))).hexdigest()
    cache = folder / "__pycache__"
    stamp = cache / "kernels.sources"
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return False
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: numba then caches elsewhere, unchecked
        return False
    return True


#: what numba's target initialisation imports for features no kernel here uses:
#: SciPy's BLAS (``np.dot`` and its kin) and cffi (calling C through cffi)
_UNUSED_BY_KERNELS = ("scipy.linalg.cython_blas", "cffi")


def init_numba_lean() -> None:
    """Initialise numba's CPU target now, without loading SciPy's linear algebra or cffi.

    numba's first compile or cache load initialises its whole CPU target,
    which imports ``scipy.linalg`` only to learn whether BLAS is there, and
    cffi to support calls through it: about 0.25 s of every command that
    plays or solves, for features no kernel here uses. Those not loaded yet
    are hidden for that moment (numba then registers neither) and are
    importable again afterwards, for the analysis or anyone else.
    """
    import sys

    from numba.core.registry import cpu_target

    hidden = [m for m in _UNUSED_BY_KERNELS if m not in sys.modules and m.rpartition(".")[0] not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  (an import of it now fails at once)
    try:
        cpu_target.target_context.refresh()
    finally:
        for name in hidden:
            del sys.modules[name]


drop_stale_cache()
init_numba_lean()
