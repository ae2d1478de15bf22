"""Keep numba's on-disk cache honest across modules.

numba's ``cache=True`` checks only the source file of the function it
compiled, but our kernels inline kernels of other modules (players and the
solver inline :mod:`sim.engine`, which inlines :mod:`sim.deals`). After an
edit there, a cached kernel would silently keep the old rules. Each kernel
module calls :func:`drop_stale_cache` at import: a digest of its own source
and of the sources it inlines, kept beside the cache, decides whether its
cache files are deleted.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def drop_stale_cache(module_file: str, *inlined: str) -> None:
    """Delete ``module_file``'s numba cache if it or a module it inlines (file names beside it) changed."""
    here = Path(module_file).resolve()
    sources = [here, *(here.parent / name for name in inlined)]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()
    cache = here.parent / "__pycache__"
    stamp = cache / f"{here.stem}.sources"
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        for f in cache.glob(f"{here.stem}.*.nb[ic]"):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: numba then caches elsewhere, unchecked
        pass
