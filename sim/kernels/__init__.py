"""Every compiled function of the toolkit, and nothing else: numba kernels over small int arrays.

Python code validates, allocates and calls; these modules loop. They are
``@njit(cache=True)``, and numba's cache checks only the source file of the
function it compiled, while our kernels inline one another and read the
constants of :mod:`sim.core`. So this package keeps one guard for the whole
folder: a digest of every kernel module and of the core modules they read,
kept beside the cache, decides at import whether the folder's cache files
are dropped. Editing any of them recompiles every kernel once; nothing
stale survives. (This file holds no kernel: it is not in the digest.)

A command that only loads cached kernels should cost little more than the
search it runs, so numba is imported and its cache read leanly (see
:func:`import_numba_lean` and :func:`load_cached_lean`); and when the cache
is cold, a terminal is told why the first command takes minutes.

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
import os
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: the core modules whose constants or code the kernels compile in
_CORE_READ = ("cards.py", "moves.py", "rules.py", "outcome.py", "deals.py")
#: seconds the first ``make study`` spends compiling the kernels it uses (115 CPU-s measured, the other core busy: benchmarks/bench_timings.py --compile)
COMPILE_SECONDS = 120


def _sources() -> list[Path]:
    core = _HERE.parent / "core"
    return sorted(p for p in _HERE.glob("*.py") if p.name != "__init__.py") + [core / name for name in _CORE_READ]


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


def cache_is_cold(folder: Path = _HERE) -> bool:
    """True when no compiled kernel is cached where numba looks for this folder's (``NUMBA_CACHE_DIR`` if set)."""
    elsewhere = os.environ.get("NUMBA_CACHE_DIR")
    if elsewhere:
        return not any(Path(elsewhere).rglob("*.nbi"))
    return not any((folder / "__pycache__").glob("*.nbi"))


def say_compiling(stream=None) -> bool:
    """Tell a person at a terminal that the first command compiles the engine; True if it did.

    Only a terminal is told: a pipe or a log (tests, scripts) sees the
    command's own output only.
    """
    stream = stream or sys.stderr
    try:
        if not stream.isatty():
            return False
        stream.write(f"castle: compiling the engine (first run only, about {COMPILE_SECONDS} s)\n")
        stream.flush()
    except (OSError, ValueError, AttributeError):
        return False
    return True


#: what ``import numba`` loads that no kernel here needs: SciPy (numba only checks its version) and PyYAML (numba's
#: reader of a ``.numba_config.yaml``, hidden only when the working folder has none)
_UNUSED_AT_IMPORT = ("scipy", "yaml")


def import_numba_lean() -> None:
    """Import numba without SciPy and PyYAML (about 0.05 s of every command that plays or solves).

    Those not loaded yet are hidden for that moment (numba then skips
    them) and are importable again afterwards, for the analysis or anyone
    else.
    """
    if "numba" in sys.modules:
        return
    hidden = [m for m in _UNUSED_AT_IMPORT if m not in sys.modules
              and not (m == "yaml" and Path(".numba_config.yaml").exists())]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  (an import of it now fails at once)
    try:
        import numba  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


def load_cached_lean() -> bool:
    """Load cached kernels without first initialising numba's whole CPU target; True if numba is patched so.

    Before loading a cached kernel numba refreshes its target: it imports
    and registers the typing and lowering of every Python and NumPy feature
    it compiles (about 0.15 s, and SciPy's BLAS with it), though a cached
    kernel is machine code that needs only numba's runtime for its arrays.
    Loading from the cache here starts that runtime alone; the first
    compile (a kernel missing from the cache, a plug-in player) still
    refreshes the whole target, as numba's compiler always does first.
    """
    from numba.core import caching

    cache = caching.Cache
    if getattr(cache.load_overload, "_lean", False):
        return True
    if not all(hasattr(cache, a) for a in ("_load_overload", "_guard_against_spurious_io_errors")):
        return False  # a numba whose cache works otherwise: leave it as it is
    from numba.core.registry import cpu_target
    from numba.core.runtime import rtsys

    def load_overload(self, sig, target_context):
        rtsys.initialize(target_context)  # (once per process: it returns at once after)
        with self._guard_against_spurious_io_errors():
            try:
                return self._load_overload(sig, target_context)
            except ImportError:  # written when the file was loaded under another module name (a player file
                return None  # run by `castle run`, then imported in a notebook): a miss, compiled again
        return None  # (the guard swallowed an error: not in the cache)

    load_overload._lean = True  # type: ignore[attr-defined]
    cache.load_overload = load_overload
    rtsys.initialize(cpu_target.target_context)  # now, so that a kernel's first call times its work alone
    return True


if drop_stale_cache() | cache_is_cold():
    say_compiling()
import_numba_lean()
load_cached_lean()
