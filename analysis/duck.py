"""Where :class:`analysis.scan.CheapRows` finds its rows: a DuckDB connection and the one view ``raw`` over them.

The rows lie in a dataset's Parquet parts (the report's, ``castle summary``'s)
or in a pandas frame (a notebook's, a test's, the README's). Both become the
same view, with the same columns and types, so every question is one SQL
statement whichever the source: a frame is scanned where it lies in memory,
not copied.

Rows are the same as :func:`analysis.load.load_study` gives: a dialect's
``game`` is ``slug@dialect``, ``dataset`` is the experiment folder, and the
judged players' rows (any role but heuristic, :func:`analysis.stats.is_judge`)
are left out: they are few and read whole into pandas.
"""

from __future__ import annotations

import os
import re
import tempfile

import duckdb
import pandas as pd
import pyarrow.parquet as pq

from sim.core.rules import SHEET
from sim.players.spec import EXACT, JUDGE

from . import roles
from .picks import quote

#: DuckDB's memory limit for a report, unless ``CASTLE_DUCKDB_MEMORY`` says (:func:`memory_limit`): beyond it, joins,
#: sorts and aggregates spill to a temporary folder
MEMORY_LIMIT = "256MB"
#: the least memory DuckDB is given: below it a query's first blocks do not fit
LEAST_MEMORY = 16 * 10**6
_UNITS = {"kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
#: the columns of a cheap row the report asks about (the rest stay on disk)
COLUMNS = ("game", "player", "player_params", "seed", "deal", "result", "won", "moves", "cards_home", "base_rank", "cpu_us")
#: the columns a source's text columns are cast to text in, whatever their type there (dictionary, category)
_TEXT = ("player", "result", "player_params")


def memory_limit() -> str:
    """The memory DuckDB may take: ``CASTLE_DUCKDB_MEMORY`` (a size with its unit, 512MB, 2GB, 1.5GiB), else
    :data:`MEMORY_LIMIT`; one line (:class:`analysis.load.ResultsError`) for anything else."""
    from .load import ResultsError

    text = os.environ.get("CASTLE_DUCKDB_MEMORY")
    if text is None:
        return MEMORY_LIMIT
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)\s*", text)
    size = float(m[1]) * _UNITS[m[2].lower()] if m and m[2].lower() in _UNITS else None
    if size is None or size < LEAST_MEMORY:
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise ResultsError(f"CASTLE_DUCKDB_MEMORY={shown!r} is not a memory size DuckDB can work in: give one with its unit, "
                           "from 16MB (e.g. 512MB, 2GB, 1.5GiB), or unset it for 256MB")
    return text.strip()


class Db:
    """One DuckDB connection under :func:`memory_limit`, spilling to a temporary folder of its own."""

    def __init__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="castle-scan-")
        self.con = duckdb.connect(config={"memory_limit": memory_limit(), "threads": min(2, os.cpu_count() or 1),
                                          "temp_directory": self._tmp.name, "preserve_insertion_order": False})
        self._views = 0

    def close(self) -> None:
        self.con.close()
        self._tmp.cleanup()

    def view(self, of: str, where: str) -> str:
        """A new view of the rows of view ``of`` that ``where`` keeps; its name."""
        self._views += 1
        name = f"picked_{self._views}"
        self.con.execute(f"CREATE VIEW {name} AS SELECT * FROM {of} WHERE {where}").fetchall()
        return name


def _judged(player: str = "player") -> str:
    """SQL true of a judged player's row (every role but heuristic), ``player`` its label's text."""
    return " OR ".join(f"split_part({player}, ':', 1) = {quote(j)}" for j in roles.names(EXACT, JUDGE)) or "FALSE"


def parts_view(db: Db, parts: list[tuple[str, list[str]]], folder_keys: dict[str, list[str]] | None = None) -> None:
    """View ``raw`` over (dataset label, its Parquet files), each dataset numbered in ``dataset_order``."""
    selects = []
    for order, (label, files) in enumerate(parts):
        if not files:
            continue
        names = set().union(*(pq.read_schema(f).names for f in files))
        hive = not {"game", "player"} <= names
        cols = []
        for c in COLUMNS:
            cols.append(c if c in names or (hive and c in (folder_keys or {}).get(label, ["game", "player"]))
                        else f"NULL AS {c}")
        dialect = "dialect" if "dialect" in names else f"{quote(SHEET)} AS dialect"
        selects.append(f"SELECT {', '.join(cols)}, {dialect}, {quote(label)} AS dataset, {order} AS dataset_order "
                       f"FROM read_parquet({sql_list(files)}, union_by_name = true, hive_partitioning = {str(hive).lower()})")
    if not selects:
        selects = ["SELECT " + ", ".join(f"NULL AS {c}" for c in COLUMNS) + ", NULL AS dialect, NULL AS dataset, 0 AS dataset_order "
                   "WHERE FALSE"]
    union = " UNION ALL BY NAME ".join(f"({s})" for s in selects)
    game = f"CASE WHEN dialect IS NULL OR CAST(dialect AS VARCHAR) = {quote(SHEET)} THEN CAST(game AS VARCHAR) " \
           "ELSE CAST(game AS VARCHAR) || '@' || CAST(dialect AS VARCHAR) END"
    text = ", ".join(f"CAST({c} AS VARCHAR) AS {c}" for c in _TEXT)
    # (the judges' filter on the column as read, before the casts: on the view's column castle summary took a fifth more CPU)
    db.con.execute(f"CREATE VIEW raw AS SELECT * REPLACE ({game} AS game, {text}) FROM ({union}) "
                   f"WHERE NOT ({_judged('CAST(player AS VARCHAR)')})").fetchall()


def frame_view(db: Db, df: pd.DataFrame) -> None:
    """View ``raw`` over a frame's rows as :func:`analysis.load.load_study` gives them (``game`` already ``slug@dialect``);
    a column the frame lacks is NULL."""
    db.con.register("_frame", df)
    have = set(df.columns)
    cols = [f"CAST({c} AS VARCHAR) AS {c}" if c in have and c in _TEXT + ("game",) else c if c in have
            else "0::BIGINT AS cpu_us" if c == "cpu_us" else f"NULL AS {c}" for c in COLUMNS]  # (no CPU recorded: none spent)
    dataset = "CAST(dataset AS VARCHAR) AS dataset" if "dataset" in have else "NULL::VARCHAR AS dataset"
    db.con.execute(f"CREATE VIEW raw AS SELECT * FROM (SELECT {', '.join(cols)}, NULL::VARCHAR AS dialect, {dataset}, "
                   "0 AS dataset_order FROM _frame) "
                   f"WHERE NOT ({_judged()})").fetchall()


def sql_list(values) -> str:
    return "[" + ", ".join(quote(v) for v in values) + "]"
