"""A result dataset on disk: the Parquet schema of its rows, its parts written atomically, its manifest.

::

    OUT/game=<g>/player=<p>/part-<first>-<last>.parquet   one chunk of deals, written whole or not at all
    OUT/_manifest.json                                    the experiment, versions, commit, start and end
    OUT/_lock                                             held by the one run writing into OUT

The manifest's and the lock's names start with ``_`` so ``pandas.read_parquet(OUT)``
reads the parts and nothing else.
"""

from __future__ import annotations

import contextlib
import fcntl
import fnmatch
import json
import math
import os
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from ..core import files
from ..core.deals import MAX_DEAL
from ..core.jsontext import dumps
from ..players.record import COLUMNS
from .errors import ArgumentError, ExperimentError

MANIFEST = "_manifest.json"
LOCK = "_lock"
#: the name of a manifest being written (``write_json_atomic``): a killed run may leave one
MANIFEST_TEMPORARY = f".{MANIFEST}.*.tmp"


def arrow_type(name: str) -> pa.DataType:
    """The Arrow type of a :class:`~sim.players.record.Column` type name."""
    return pa.dictionary(pa.int32(), pa.string()) if name == "dictionary" else pa.type_for_alias(name)


def schema(extra_columns: tuple[tuple[str, str], ...] | list[tuple[str, str]] = ()) -> pa.Schema:
    """The row schema: every column of :data:`~sim.players.record.COLUMNS`, then the players' own (name, type) columns.

    Every part of a dataset carries the same schema, so readers that take the
    schema from the first file still see the solver's ``nodes``.
    """
    fields = [pa.field(c.name, arrow_type(c.type)) for c in COLUMNS]
    names = {c.name for c in COLUMNS}
    for name, type_name in extra_columns:
        if name not in names:
            names.add(name)
            fields.append(pa.field(name, arrow_type(type_name)))
    return pa.schema(fields)


class PathError(ValueError):
    """A folder name the dataset cannot be written under."""


def check_path(path: Path, parquet: bool = True, new: bool = True) -> None:
    """A folder name the Parquet library can take (``parquet``), and a folder to be made (``new``) a listing can show.

    Under a locale whose encoding cannot spell it (``LC_ALL=C`` and
    ``--out data/ünï``) Python keeps the name's bytes as lone surrogates,
    which the operating system takes but pyarrow refuses half way through
    a run; so it is refused first. A folder to be made must also have no
    control character in its name (a newline in it breaks every listing).
    """
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        if parquet:
            shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            raise PathError(f"{shown}: this locale cannot spell the folder's name (set a UTF-8 locale, e.g. "
                            "LC_ALL=C.UTF-8, or choose an ASCII name)") from None
    control = sorted({c for c in text if ord(c) < 32 or ord(c) == 127})
    if control and new:
        raise PathError(f"{text!r}: a folder name with a control character ({', '.join(map(repr, control))}) "
                        "breaks every listing of it; choose another")


def write_atomic(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` so that ``path`` exists only once complete (:func:`~sim.core.files.replacing`)."""
    with files.replacing(path) as tmp:
        tmp.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, tmp, compression="zstd")


def write_json_atomic(data: dict, path: Path) -> None:
    """Write ``data`` as JSON to ``path`` so that ``path`` is always whole (the old file until the new one is)."""
    files.write_atomic(path, dumps(data, indent=2) + "\n")


def read_manifest(out: Path) -> dict | None:
    path = out / MANIFEST
    if not path.exists():
        return None
    manifest, problem = parse_manifest(path)
    if problem:
        raise ExperimentError(f"{path} is unreadable ({problem}); not touching {out}")
    return manifest


def parse_manifest(path: Path) -> tuple[dict | None, str | None]:
    """The manifest at ``path`` and None, or None and what makes it other than a manifest castle writes: every
    reader reads it through here, so a hand-damaged one (text where numbers go, nested 100,000 deep) is one line."""
    if not path.is_file():  # (a FIFO would block the reader for ever)
        return None, "not a file"
    try:
        manifest = files.read_json(path, files.MANIFEST, "a manifest")
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except ValueError as e:
        return None, "nested too deep" if "nested" in str(e) else f"not JSON: {str(e).split(':')[0]}"
    except OSError as e:  # (larger than a manifest may be, too)
        return None, e.strerror or e.__class__.__name__
    return (None, problem) if (problem := manifest_problem(manifest)) else (manifest, None)


def _is(value, *kinds) -> bool:
    """``value`` is of one of ``kinds`` (``int``: never a bool; ``float``: any number)."""
    for kind in kinds:
        if kind is None and value is None or kind is str and isinstance(value, str) or kind is dict and isinstance(value, dict) \
                or kind is int and isinstance(value, int) and not isinstance(value, bool) \
                or kind is float and isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
                or kind is bool and isinstance(value, bool):
            return True
    return False


def _deal_range(value) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(_is(v, int) for v in value) and -1 <= value[0] <= value[1] <= MAX_DEAL + 1


#: what each field of a manifest holds, where it is there (a manifest may lack any but ``experiment``)
_EXPERIMENT = {
    "name": lambda v: _is(v, str), "description": lambda v: _is(v, str),
    "games": lambda v: _is(v, dict) and all(_is(k, str) and _is(x, int) for k, x in v.items()),
    "players": lambda v: _is(v, dict) and all(_is(k, str) and _is(p, dict) and all(_is(x, int, float, str, bool, None)
                                                                                      for x in p.values()) for k, p in v.items()),
    "player_versions": lambda v: _is(v, dict) and all(_is(k, str) and _is(x, int) for k, x in v.items()),
    "player_roles": lambda v: _is(v, dict) and all(_is(k, str) and _is(x, str) for k, x in v.items()),
    "seed": lambda v: _is(v, int) and -1 <= v <= MAX_DEAL, "deal_range": _deal_range,
    "chunk_size": lambda v: _is(v, int) and v > 0, "engine_version": lambda v: _is(v, int),
    "unknowns_of": lambda v: isinstance(v, list) and all(_is(f, str) for f in v),
    "deals": lambda v: _is(v, dict) and all(_is(k, str) and isinstance(d, list) and all(_is(x, int) and 0 <= x <= MAX_DEAL for x in d)
                                            for k, d in v.items()),
}
_RUN = {"started": lambda v: _is(v, str, None), "finished": lambda v: _is(v, str, None), "stopped": lambda v: _is(v, str, None),
        "jobs": lambda v: _is(v, int), "backend": lambda v: _is(v, str), "deals_to_play": lambda v: _is(v, int),
        "deal_range": _deal_range, "git_commit": lambda v: _is(v, str, None), "cpu_seconds": lambda v: _is(v, float, None),
        "games_played": lambda v: _is(v, int),
        "games": lambda v: isinstance(v, list) and all(_is(g, str) for g in v)}
_CHANGE = {"at": lambda v: _is(v, str), "from": lambda v: v is None or _deal_range(v), "to": _deal_range,
           "reason": lambda v: _is(v, str)}
_MANIFEST = {"package_version": lambda v: _is(v, str, None), "git_commit": lambda v: _is(v, str, None),
             "started": lambda v: _is(v, str, None), "finished": lambda v: _is(v, str, None),
             "runs": lambda v: isinstance(v, list) and all(_is(r, dict) and not _wrong(r, _RUN) for r in v),
             "range_changes": lambda v: isinstance(v, list) and all(_is(r, dict) and not _wrong(r, _CHANGE) for r in v)}


def _wrong(data: dict, fields: dict) -> str | None:
    return next((k for k, ok in fields.items() if k in data and not ok(data[k])), None)


def manifest_problem(manifest) -> str | None:
    """What makes ``manifest`` (parsed JSON) other than a manifest castle writes, or None. Each field present is
    checked whole (a text ``deal_range``, ``runs`` that is no list, a version that is no number)."""
    if not isinstance(manifest, dict) or not isinstance(manifest.get("experiment"), dict):
        return "no experiment in it"
    if bad := _wrong(manifest["experiment"], _EXPERIMENT):
        return f"its experiment's {bad} is {_shown(manifest['experiment'][bad])}"
    if bad := _wrong(manifest, _MANIFEST):
        return f"its {bad} is {_shown(manifest[bad])}"
    return None


def _shown(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:40] + "…"


def left_by_a_killed_start(entry: Path) -> bool:
    """What a run killed before its first manifest was in place can leave: the lock, a half-written manifest.

    A folder holding only these is still empty: the rerun starts it afresh.
    """
    return entry.is_file() and (entry.name == LOCK or fnmatch.fnmatch(entry.name, MANIFEST_TEMPORARY))


@contextlib.contextmanager
def locked(out: Path) -> Iterator[None]:
    """One run at a time per directory (another would race on the same chunks)."""
    try:
        fd = os.open(out / LOCK, os.O_CREAT | os.O_RDWR, 0o644)
    except OSError as e:
        raise ExperimentError(f"cannot write to {out}: {e.strerror or e}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ArgumentError("another run is writing into {path}; wait for it or choose another {out}", path=out) from None
        yield
    finally:
        os.close(fd)


def remove_stale_temporaries(out: Path) -> None:
    """Temporaries a killed run left (a part or the manifest half written): never read, removed."""
    for tmp in [*out.glob("game=*/player=*/.part-*.tmp"), *out.glob(MANIFEST_TEMPORARY)]:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


#: the columns that measure time: the only ones that differ between two plays of the same rows
TIMING = ("elapsed_us", "cpu_us")


def played_rows(out: Path):
    """Every row of the dataset at ``out`` without its timing, sorted by game, player and deal.

    Two runs of the same experiment (resumed after a kill, other chunks,
    another backend) must give equal frames: the fault tests compare them.
    """
    import pandas as pd

    df = pd.read_parquet(out)
    for c in ("game", "player", "dialect"):
        df[c] = df[c].astype(str)
    return df.drop(columns=list(TIMING)).sort_values(["game", "player", "deal"]).reset_index(drop=True)
