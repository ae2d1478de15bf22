"""A dataset's Parquet parts, each read without loading the dataset: where they lie and what they say.

What the folders a part lies in name (``game=…/player=…``), what its schema
holds (castle's columns, of castle's kinds), the range of a column from its
row groups' statistics, a few of its columns. :mod:`analysis.load` checks
a dataset by them before and beside reading its rows; :mod:`analysis.scan`
hands the parts to DuckDB unread.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pyarrow.parquet as pq

from sim.core.rules import SHEET
from sim.players.record import COLUMNS
from sim.study.dataset import arrow_type


class ResultsError(ValueError):
    """A path that holds no result dataset (or holds something other than one)."""


def parquet_parts(path: Path) -> list[str]:
    """Every finished Parquet part below ``path`` (temporary and hidden files skipped). One named as a part that is not
    a regular file (a FIFO would block its reader for ever, a folder reads as nothing) is refused."""
    if not path.is_dir():
        return []
    parts = sorted(f for f in path.rglob("*.parquet") if not any(part.startswith((".", "_")) for part in f.relative_to(path).parts))
    odd = next((f for f in parts if not f.is_file()), None)
    if odd is not None:
        raise ResultsError(f"{odd} is named as a Parquet part but is not a file (a {_kind_of(odd)}); move it out of {path}")
    return [str(f) for f in parts]


def _kind_of(path: Path) -> str:
    """What a path that is not a regular file is, in a word."""
    for kind, test in (("folder", path.is_dir), ("FIFO", path.is_fifo), ("socket", path.is_socket),
                       ("device", lambda: path.is_block_device() or path.is_char_device())):
        if test():
            return kind
    return "link to nothing" if path.is_symlink() else "special file"


def folder_keys(path: Path, file: str) -> list[str]:
    """The keys the folders between ``path`` and the part ``file`` name (``game``, ``player``), in their order."""
    return [part.split("=", 1)[0] for part in Path(file).relative_to(path).parts[:-1] if "=" in part]


def folder_values(path: Path, file: str) -> dict[str, str]:
    """Each key the folders between ``path`` and the part ``file`` name, with its value (unquoted)."""
    from urllib.parse import unquote

    return {k: unquote(v) for k, _, v in (p.partition("=") for p in Path(file).relative_to(path).parts[:-1] if "=" in p)}


def column_range(file: str, column: str) -> tuple[int | None, int | None]:
    """The lowest and highest value of ``column`` in a part, from its row groups' statistics (read if they have none)."""
    meta = pq.ParquetFile(file).metadata
    names = [meta.schema.column(i).name for i in range(meta.num_columns)]
    if column not in names or meta.num_rows == 0:
        return None, None
    i = names.index(column)
    lows, highs = [], []
    for g in range(meta.num_row_groups):
        st = meta.row_group(g).column(i).statistics
        if st is None or not st.has_min_max:
            values = pq.read_table(file, columns=[column]).column(0)
            return int(pa.compute.min(values).as_py()), int(pa.compute.max(values).as_py())
        lows.append(st.min)
        highs.append(st.max)
    return int(min(lows)), int(max(highs))


def key_rows(path: Path, file: str) -> pd.DataFrame:
    """A part's (game, player, seed, deal), with the folders' values where the file does not hold them."""
    names = pq.read_schema(file).names
    rows = pq.read_table(file, columns=[c for c in ("game", "player", "seed", "deal", "dialect") if c in names]).to_pandas()
    for c, value in folder_values(path, file).items():
        if c not in rows.columns:
            rows[c] = value
    for c in ("game", "player"):
        rows[c] = rows[c].astype(str)
    if "dialect" in rows.columns:
        other = rows["dialect"].astype(str) != SHEET
        rows["game"] = rows["game"].where(~other, rows["game"] + "@" + rows["dialect"].astype(str))
    return rows


def holds(file: str, path: Path, column: str, values: list[str]) -> bool:
    """Does part ``file`` hold rows whose ``column`` (as the loaded frame gives it) is one of ``values``?"""
    try:
        names = pq.read_schema(file).names
        rows = pq.read_table(file, columns=[c for c in (column, "dialect") if c in names]).to_pandas()
    except (OSError, pa.ArrowException):
        return False
    if column not in rows.columns:
        rows[column] = folder_values(path, file).get(column)
    shown = rows[column].astype(str)
    if column == "game" and "dialect" in rows.columns:
        other = rows["dialect"].astype(str) != SHEET
        shown = shown.where(~other, shown + "@" + rows["dialect"].astype(str))
    return bool(shown.isin(values).any())


#: the columns every part castle writes holds (besides its players' own); ``game`` and ``player`` may come from the folders
_CASTLE_COLUMNS = {c.name: arrow_type(c.type) for c in COLUMNS}


def _kind(t: pa.DataType) -> str:
    """What a column holds, whatever its width or encoding: int, float, bool, text or null."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    for kind, test in (("int", pa.types.is_integer), ("float", pa.types.is_floating), ("bool", pa.types.is_boolean),
                       ("text", lambda x: pa.types.is_string(x) or pa.types.is_large_string(x)), ("null", pa.types.is_null)):
        if test(t):
            return kind
    return str(t)


def not_castle_rows(schema: pa.Schema, folder_keys: list[str]) -> str | None:
    """What makes a part's schema other than the runner's (:func:`sim.study.dataset.schema`), or None."""
    missing = [n for n in _CASTLE_COLUMNS if n not in schema.names and n not in folder_keys]
    if missing:
        shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        return f"no {shown} column{'s' if len(missing) > 1 else ''}"
    for name, expected in _CASTLE_COLUMNS.items():
        if name in schema.names:
            kind = _kind(schema.field(name).type)
            if kind not in (_kind(expected), "null"):
                return f"its column {name} holds {kind}, castle's {_kind(expected)}"
    return None
