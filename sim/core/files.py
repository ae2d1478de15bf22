"""Files as castle reads and writes them: every read bounded, every write whole or not at all.

A file castle reads whole is read here, with the limit a user would expect
of its kind (below): at most ``limit + 1`` bytes are read, so a file past
it is refused with one line (:class:`TooLarge`) before it takes the
machine's memory. The size the system reports is never trusted alone
(``/dev/zero``, a FIFO and standard input report none). What a gzip file
expands to is bounded the same way. Text is UTF-8 whatever the locale says.

A file castle writes goes to a temporary name in its folder, is flushed and
synced to the disk, then renamed over the old one: until the rename the old
file is whole, and a write that fails (a full disk) leaves the old file as it
was and no temporary behind (:func:`write_atomic`, :func:`replacing`).

>>> limit_text(64 * KiB), limit_text(MiB // 2), limit_text(16 * MiB)
('64 KiB', '512 KiB', '16 MiB')
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import json
import os
import zlib
from pathlib import Path
from typing import IO, Iterator

KiB = 1024
MiB = 1024 * KiB

#: a board file: 52 cards on a few lines (a board is under 1 KiB)
BOARD = 64 * KiB
#: boards on standard input, separated by blank lines: some twenty thousand
BOARDS = 4 * MiB
#: a move list: about a quarter of a million moves (a game's line is a few hundred; a random player's cap 1,000,000
#: moves is for play, not for lists written by hand)
MOVE_LIST = 1 * MiB
#: an experiment file (TOML): a few lines of games, players and deals
EXPERIMENT = 1 * MiB
#: a model file of ``castle explain`` as stored (gzip): the shipped ones are under 30 KiB
MODEL_FILE = 4 * MiB
#: what a model file expands to: the shipped ones to under 200 KiB
MODEL_TEXT = 16 * MiB
#: a dataset's ``_manifest.json`` (its experiment, and a line per run of it) or a report's marker
MANIFEST = 16 * MiB
#: a catalogue of PySol's game numbers (analysis/catalogue.py): about 25 bytes a number, 250 KiB for 10,000
CATALOGUE = 64 * MiB
#: the kernel's ``/proc/meminfo`` (sim/solver/memory.py): under 2 KiB
MEMINFO = 64 * KiB


class TooLarge(OSError):
    """A file past the limit of its kind (errno ``EFBIG``: the command line shows it as ``FILE: larger than ...``)."""

    def __init__(self, name: str, limit: int, what: str, expanded: bool = False):
        said = f"expands to more than {what} may hold" if expanded else f"larger than {what} may be"
        super().__init__(errno.EFBIG, f"{said} ({limit_text(limit)})", name)


def limit_text(limit: int) -> str:
    """A limit in bytes as the user reads it: KiB or MiB."""
    return f"{limit // MiB} MiB" if limit % MiB == 0 else f"{limit // KiB} KiB"


def read_bytes(path: str | Path, limit: int, what: str) -> bytes:
    """The bytes of ``path`` (a file, a device, a FIFO), at most ``limit``; :class:`TooLarge` past it.

    ``what`` names the file's kind in the message ("a board file")."""
    with open(path, "rb") as f:
        return read_stream(f, limit, what, str(path))


def read_stream(stream: IO, limit: int, what: str, name: str = "standard input") -> bytes:
    """The bytes of an open stream (standard input: its binary buffer is read, whatever the locale's encoding)."""
    stream = getattr(stream, "buffer", stream)
    data = stream.read(limit + 1)
    if isinstance(data, str):  # a text stream with no buffer (one a test put in its place)
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > limit:
        raise TooLarge(name, limit, what)
    return data


def read_text(path: str | Path, limit: int, what: str) -> str:
    """The UTF-8 text of ``path`` (a ``UnicodeDecodeError`` if it is not UTF-8), bounded as :func:`read_bytes`."""
    return read_bytes(path, limit, what).decode("utf-8")


def sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, read a block at a time (never whole)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def gunzip(data: bytes, limit: int, what: str, name: str) -> bytes:
    """What gzip ``data`` expands to, at most ``limit`` bytes (:class:`TooLarge` past it: a small file can expand to
    gigabytes); a ``ValueError`` if it is not whole gzip."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            out = f.read(limit + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise ValueError(f"not gzip ({e.__class__.__name__})") from None
    if len(out) > limit:
        raise TooLarge(name, limit, what, expanded=True)
    return out


def loads_json(text: str | bytes):
    """JSON, with nesting too deep for the parser (a file of a million ``[``) a ``ValueError`` like any bad JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def read_json(path: str | Path, limit: int, what: str):
    """The JSON in ``path``, bounded as :func:`read_bytes`; a ``ValueError`` if it is not JSON."""
    return loads_json(read_bytes(path, limit, what))


@contextlib.contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary name beside ``path`` to write to; when the block ends, the temporary is synced to the disk and
    renamed over ``path``. If the block (or the sync, or the rename) fails, the temporary is removed and ``path``
    is as it was; an ``OSError`` says which file could not be written.

    A ``path`` that is a symbolic link is written where the link points (the link stays a link).
    """
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:  # a full disk, a read-only folder: say which file, once
        raise OSError(e.errno, f"cannot write {path}: {e.strerror or e}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_atomic(path: str | Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all (:func:`replacing`)."""
    with replacing(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
