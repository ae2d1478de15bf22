"""The heuristic players' rows, one reader: DuckDB where the rows lie, asked only for aggregates.

A heuristic player's rows are what a study has millions of (a greedy game
takes a twentieth of a millisecond); the solver's, the solver in phases',
the corridor's and the mistake finder's cost seconds each, so there are few
of them and they are read whole into pandas (:func:`analysis.stats.is_judge`: by role). The analysis
asks the cheap rows only for counts: win rates by any columns, two players
or games paired deal by deal (the join runs in the engine), spans of deals,
CPU quantiles, histograms, running rates at a few points. Only those
aggregates come back, so the memory a report takes does not grow with the
rows. The rows lie in Parquet parts or in a frame (:mod:`analysis.duck`):
the same SQL answers either, so a number has one code path. A selection of
them (:meth:`CheapRows.only`) is a view of the same connection, asked the
same questions.

Why DuckDB and not pyarrow's compute functions: pairing by deal is a join,
and DuckDB joins, aggregates and sorts out of core under a memory limit,
reads only the columns and row groups a statement needs, and says what each
number is in one SQL statement; pyarrow's ``Table.join`` and ``group_by``
hold the whole table in memory.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd

from .duck import COLUMNS, MEMORY_LIMIT, Db, frame_view, memory_limit, parts_view, sql_list  # noqa: F401  (said here too)
from .picks import ALL, Pick, in_list, quote
from .stats import SOLVER_ONLY, UNKNOWN, UNWINNABLE, Paired, paired_of_counts


class CheapRows:
    """The heuristic players' rows of one or more datasets, or of a frame, in DuckDB; every method returns an aggregate.

    ``parts``: (dataset label, its Parquet files) in the order the study reads
    them (a game held twice is the first folder's); :meth:`of_frame` for rows in memory.
    ``view`` is the SQL view the questions are asked of: ``rows``, or a selection's (:meth:`only`).
    """

    def __init__(self, parts: list[tuple[str, list[str]]], folder_keys: dict[str, list[str]] | None = None):
        self.db, self.view = Db(), "rows"
        parts_view(self.db, parts, folder_keys)
        self._run("CREATE VIEW rows AS SELECT * FROM raw")
        self.held = self.df("SELECT dataset, count(*) AS games, sum(cpu_us)::BIGINT AS cpu_us FROM raw GROUP BY dataset")
        if len(parts) > 1 and self._shared():
            # a game two experiments played counts once: the first folder's row (as analysis.load.load_study reads them)
            self._run("CREATE OR REPLACE VIEW rows AS SELECT * FROM raw QUALIFY row_number() OVER "
                      "(PARTITION BY game, player, seed, deal ORDER BY dataset_order) = 1")

    @classmethod
    def of_frame(cls, df: pd.DataFrame) -> "CheapRows":
        """The heuristic players' rows of a frame (a notebook's, a test's: :func:`analysis.load.load_study`'s columns)."""
        self = cls.__new__(cls)
        self.db, self.view = Db(), "rows"
        frame_view(self.db, df)
        self._run("CREATE VIEW rows AS SELECT * FROM raw")
        self.held = self.df("SELECT dataset, count(*) AS games, sum(cpu_us)::BIGINT AS cpu_us FROM raw GROUP BY dataset")
        return self

    @property
    def con(self):
        return self.db.con

    def _shared(self) -> bool:
        """Do two datasets hold the same (game, player, seed, deal)? Asked per (game, player) held twice."""
        keys = self.df("SELECT game, player, count(DISTINCT dataset) AS n FROM raw GROUP BY ALL HAVING n > 1")
        return len(keys) > 0

    def close(self) -> None:
        self.db.close()

    def df(self, sql: str) -> pd.DataFrame:
        return self.con.execute(sql).df()

    def _one(self, sql: str) -> tuple:
        rows = self.con.execute(sql).fetchall()
        return rows[0] if rows else None

    def _run(self, sql: str) -> None:
        self.con.execute(sql).fetchall()

    def only(self, p: Pick) -> "CheapRows":
        """These rows seen through a pick: a view of the same connection, so every question asked of it (pairs,
        counts, joins by deal) is asked of the picked rows only."""
        picked = copy.copy(self)
        picked.view = self.db.view(self.view, p.sql())
        return picked

    # ---- what there is ----------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return int(self._one(f"SELECT count(*) FROM {self.view}")[0])

    def pairs(self, p: Pick = ALL) -> pd.DataFrame:
        """(game, player) held, with their games and CPU (microseconds), sorted."""
        return self.df(f"SELECT game, player, count(*) AS deals, sum(result = 'won')::BIGINT AS won, sum(cpu_us)::BIGINT AS cpu_us "
                       f"FROM {self.view} WHERE {p.sql()} GROUP BY game, player ORDER BY game, player")

    def seeds(self, p: Pick = ALL) -> list[int]:
        return sorted(int(s) for (s,) in self.con.execute(f"SELECT DISTINCT seed FROM {self.view} WHERE {p.sql()}").fetchall())

    # ---- counts -----------------------------------------------------------------------------------------------

    def counts(self, by: list[str], p: Pick = ALL) -> pd.DataFrame:
        """``by`` + deals, won, unknown over the picked rows, sorted by ``by``."""
        cols = ", ".join(by)
        return self.df(f"SELECT {cols}, count(*) AS deals, sum((result = 'won')::INT)::BIGINT AS won, "
                       f"sum((result = 'unknown')::INT)::BIGINT AS unknown FROM {self.view} WHERE {p.sql()} "
                       f"GROUP BY {cols} ORDER BY {cols}")

    def span(self, p: Pick = ALL, by: list[str] | None = None) -> pd.DataFrame:
        """``by`` + the distinct deal numbers' count, lowest and highest (seeds together, as :func:`compare.deal_span`)."""
        cols = ", ".join(by or [])
        head = f"{cols}, " if cols else ""
        group = f"GROUP BY {cols} ORDER BY {cols}" if cols else ""
        return self.df(f"SELECT {head}count(DISTINCT deal) AS n, min(deal) AS lo, max(deal) AS hi FROM {self.view} WHERE {p.sql()} {group}")

    def cpu(self, by: list[str], p: Pick = ALL) -> pd.DataFrame:
        """``by`` + rows (``n``), the CPU's sum (microseconds, exact), its median and 90th percentile (microseconds).

        The quantiles are numpy's (linear between the two order statistics around ``(n - 1) q``), from those two
        values found in the engine, so they are the same numbers wherever the rows are counted.
        """
        cols = ", ".join(by)
        sums = self.df(f"SELECT {cols}, count(*) AS n, sum(cpu_us)::HUGEINT::VARCHAR AS cpu_sum FROM {self.view} WHERE {p.sql()} "
                       f"GROUP BY {cols} ORDER BY {cols}")
        sums["cpu_sum"] = [int(x) for x in sums.cpu_sum]
        qs = (0.5, 0.9)
        wanted = [(*key, k) for key, n in zip(sums[by].itertuples(index=False, name=None), sums.n)
                  for q in qs for k in _order_statistics(int(n), q)]
        ranks = pd.DataFrame(wanted, columns=by + ["rank"]).drop_duplicates()
        self.con.register("_ranks", ranks)
        try:
            values = self.df(f"SELECT {cols}, rank, cpu_us FROM (SELECT {cols}, cpu_us, row_number() OVER "
                             f"(PARTITION BY {cols} ORDER BY cpu_us) - 1 AS rank FROM {self.view} WHERE {p.sql()}) SEMI JOIN _ranks "
                             f"USING ({cols}, rank)")
        finally:
            self.con.unregister("_ranks")
        at = {(*key, int(k)): float(v) for key, k, v in zip(values[by].itertuples(index=False, name=None), values["rank"], values.cpu_us)}
        for q, column in zip(qs, ("cpu_median", "cpu_p90")):
            sums[column] = [_lerp(at, key, int(n), q) for key, n in zip(sums[by].itertuples(index=False, name=None), sums.n)]
        return sums

    def histogram(self, column: str, by: list[str], p: Pick = ALL) -> pd.DataFrame:
        """``by`` + ``column``'s value + how many rows hold it."""
        cols = ", ".join(by)
        return self.df(f"SELECT {cols}, {column}, count(*) AS n FROM {self.view} WHERE {p.sql()} GROUP BY ALL ORDER BY {cols}, {column}")

    def first(self, column: str, game: str, player: str):
        """``column`` of one row of (game, player) (a value every row of it shares, such as its parameters)."""
        row = self._one(f"SELECT {column} FROM {self.view} WHERE game = {quote(game)} AND player = {quote(player)} LIMIT 1")
        return None if row is None else row[0]

    # ---- deal by deal -----------------------------------------------------------------------------------------

    def paired(self, a: tuple[str, str], b: tuple[str, str]) -> tuple[int, int, int, int]:
        """(both won, only a, only b, neither) over the deals (seed, deal) both (game, player) played."""
        one = f"SELECT seed, deal, result = 'won' AS w FROM {self.view} WHERE game = {{}} AND player = {{}}"
        row = self._one(
            f"SELECT count(*) FILTER (x.w AND y.w), count(*) FILTER (x.w AND NOT y.w), count(*) FILTER (NOT x.w AND y.w), "
            f"count(*) FILTER (NOT x.w AND NOT y.w) FROM ({one.format(quote(a[0]), quote(a[1]))}) x "
            f"JOIN ({one.format(quote(b[0]), quote(b[1]))}) y USING (seed, deal)")
        return tuple(int(v) for v in row)

    def mean_win_moves(self, player: str, game: str, other: str) -> float:
        """Mean moves of ``player``'s wins in ``game`` on the deals it also won in ``other``."""
        row = self._one(
            f"SELECT avg(x.moves) FROM (SELECT seed, deal, moves FROM {self.view} WHERE player = {quote(player)} AND game = {quote(game)} "
            f"AND result = 'won') x SEMI JOIN (SELECT seed, deal FROM {self.view} WHERE player = {quote(player)} AND game = {quote(other)} "
            f"AND result = 'won') y USING (seed, deal)")
        return float("nan") if row[0] is None else float(row[0])

    def on_deals(self, keys: pd.DataFrame, p: Pick = ALL, by: list[str] | None = None) -> pd.DataFrame:
        """Counts (as :meth:`counts`) of the picked rows on the deals ``keys`` (columns game?, seed, deal) holds."""
        self.con.register("_keys", keys)
        try:
            on = [c for c in ("game", "seed", "deal") if c in keys.columns]
            cols = ", ".join(f"r.{c}" for c in (by or ["game", "player"]))
            return self.df(f"SELECT {cols}, count(*) AS deals, sum((r.result = 'won')::INT)::BIGINT AS won, "
                           f"sum((r.result = 'unknown')::INT)::BIGINT AS unknown FROM {self.view} r SEMI JOIN (SELECT DISTINCT "
                           f"{', '.join(on)} FROM _keys) k USING ({', '.join(on)}) WHERE {p.sql('r')} GROUP BY {cols} ORDER BY {cols}")
        finally:
            self.con.unregister("_keys")

    def rows_on(self, keys: pd.DataFrame, p: Pick = ALL, columns: list[str] | None = None) -> pd.DataFrame:
        """The picked rows themselves on the deals ``keys`` (game?, seed, deal) holds: for the few a section joins with
        the judged rows (a base founded on the deals the solver judged base by base)."""
        on = [c for c in ("game", "seed", "deal") if c in keys.columns]
        self.con.register("_keys", keys[on].drop_duplicates())
        try:
            cols = ", ".join(f"r.{c}" for c in (columns or list(COLUMNS) + ["dataset"]))
            out = self.df(f"SELECT {cols} FROM {self.view} r SEMI JOIN _keys USING ({', '.join(on)}) WHERE {p.sql('r')} "
                          "ORDER BY r.game, r.player, r.seed, r.deal")
        finally:
            self.con.unregister("_keys")
        if "base_rank" in out.columns:
            out["base_rank"] = out.base_rank.astype("float64")  # (as a frame holds it: NaN where none)
        return out

    def which(self, keys: pd.DataFrame, p: Pick = ALL) -> pd.DataFrame:
        """The rows of ``keys`` (game, seed, deal) whose deal the picked rows played: a semi-join in the engine, so
        what comes back is bounded by ``keys`` (the solver's deals), not by the millions of cheap rows."""
        self.con.register("_keys", keys[["game", "seed", "deal"]].drop_duplicates())
        try:
            return self.df(f"SELECT k.game, k.seed, k.deal FROM _keys k SEMI JOIN (SELECT game, seed, deal FROM {self.view} WHERE "
                           f"{p.sql()}) r USING (game, seed, deal) ORDER BY k.game, k.seed, k.deal")
        finally:
            self.con.unregister("_keys")

    def cheapest_rung(self, game: str, rungs: list[str], verdicts: pd.DataFrame, keys: pd.DataFrame | None = None,
                      pair_with: tuple[str, list[str]] | None = None) -> pd.DataFrame:
        """The cheapest rung that wins each deal of ``game`` every rung of ``rungs`` played, counted.

        Returns ``difficulty`` (a rung, or ``solver only`` / ``unwinnable`` / ``unknown`` from ``verdicts``
        when no rung wins it) and ``n``; with ``keys`` (seed, deal) the deals themselves, only those; with
        ``pair_with`` (another game and its rungs) counts by the two games' difficulties of the same deal (a, b).
        """
        def per_deal(g: str, rungs: list[str] = rungs) -> str:
            values = ", ".join(f"({quote(p)}, {i})" for i, p in enumerate(rungs))
            return (f"(SELECT r.seed, r.deal, CASE WHEN min(k.i) FILTER (r.result = 'won') IS NOT NULL THEN "
                    f"list_extract({sql_list(rungs)}, min(k.i) FILTER (r.result = 'won') + 1) "
                    f"WHEN any_value(v.verdict) = 'won' THEN {quote(SOLVER_ONLY)} WHEN any_value(v.verdict) = 'lost' THEN "
                    f"{quote(UNWINNABLE)} ELSE {quote(UNKNOWN)} END AS difficulty FROM {self.view} r JOIN (VALUES {values}) k(p, i) "
                    f"ON r.player = k.p LEFT JOIN _verdicts v ON v.game = r.game AND v.seed = r.seed AND v.deal = r.deal "
                    f"WHERE r.game = {quote(g)} GROUP BY r.seed, r.deal HAVING count(DISTINCT r.player) = {len(rungs)})")

        self.con.register("_verdicts", verdicts[["game", "seed", "deal", "verdict"]])
        try:
            if keys is not None:
                self.con.register("_keys", keys[["seed", "deal"]].drop_duplicates())
                try:
                    return self.df(f"SELECT d.* FROM {per_deal(game)} d SEMI JOIN _keys USING (seed, deal)")
                finally:
                    self.con.unregister("_keys")
            if pair_with is not None:
                return self.df(f"SELECT a.difficulty AS a, b.difficulty AS b, count(*) AS n FROM {per_deal(game)} a "
                               f"JOIN {per_deal(*pair_with)} b USING (seed, deal) GROUP BY ALL")
            return self.df(f"SELECT difficulty, count(*) AS n FROM {per_deal(game)} GROUP BY difficulty")
        finally:
            self.con.unregister("_verdicts")

    def running(self, points: pd.DataFrame, p: Pick = ALL) -> pd.DataFrame:
        """Won and unknown games among the first ``k`` deals (in (seed, deal) order) of each (game, player, k) of ``points``.

        One (game, player) at a time, four narrow columns sorted: the sort stays small enough not to spill.
        """
        out = []
        for (game, player), ks in points.groupby(["game", "player"], sort=False):
            self.con.register("_k", ks[["k"]])
            try:
                got = self.df(
                    f"SELECT k, won, unknown FROM (SELECT row_number() OVER w AS k, sum(w_) OVER w AS won, sum(u_) OVER w AS unknown "
                    f"FROM (SELECT seed, deal, (result = 'won')::INT AS w_, (result = 'unknown')::INT AS u_ FROM {self.view} "
                    f"WHERE game = {quote(game)} AND player = {quote(player)} AND {p.sql()}) "
                    f"WINDOW w AS (ORDER BY seed, deal ROWS UNBOUNDED PRECEDING)) SEMI JOIN _k USING (k)")
            finally:
                self.con.unregister("_k")
            out.append(got.assign(game=game, player=player))
        cols = ["game", "player", "k", "won", "unknown"]
        return pd.concat(out, ignore_index=True)[cols] if out else pd.DataFrame(columns=cols)

    def not_elsewhere(self, label: str, others: list[str], p: Pick, key: list[str]) -> bool:
        """Does dataset ``label`` hold a picked row whose ``key`` no dataset of ``others`` holds?"""
        on = " AND ".join(f"m.{k} = o.{k}" for k in key)
        row = self._one(f"SELECT count(*) FROM {self.view} m WHERE m.dataset = {quote(label)} AND {p.sql('m')} AND NOT EXISTS "
                           f"(SELECT 1 FROM {self.view} o WHERE o.dataset IN {in_list(others)} AND {p.sql('o')} AND {on})")
        return int(row[0]) > 0

    def convergence(self, p: Pick = ALL, points: int = 40) -> pd.DataFrame:
        """:func:`analysis.stats.convergence` of the picked rows: the running win rate at a few deal counts."""
        n = self.counts(["game", "player"], p)
        return _convergence(n, lambda wanted: self.running(wanted, p), points)

    def held_by(self, p: Pick) -> set[str]:
        return {str(d) for (d,) in self.con.execute(f"SELECT DISTINCT dataset FROM {self.view} WHERE {p.sql()}").fetchall()}


def _order_statistics(n: int, q: float) -> tuple[int, ...]:
    """The ranks (0-based) numpy's linear quantile ``q`` of ``n`` values reads."""
    h = q * (n - 1)
    return tuple(dict.fromkeys((int(np.floor(h)), int(np.ceil(h)))))


def _lerp(at: dict, key: tuple, n: int, q: float) -> float:
    """numpy's quantile from its two order statistics, in numpy's own arithmetic (so the result is its bits):
    ``np.median`` (the mean of the middle two) for ``q`` = 0.5, ``np.percentile``'s linear rule otherwise."""
    h = q * (n - 1)
    lo, hi = int(np.floor(h)), int(np.ceil(h))
    a, b = np.float64(at[(*key, lo)]), np.float64(at[(*key, hi)])
    if q == 0.5:
        return float(a) if lo == hi else float(np.mean(np.array([a, b])))
    t = np.float64(h) - np.floor(np.float64(h))
    d = b - a
    return float(b - d * (1 - t)) if t >= 0.5 else float(a + d * t)


def _convergence(n: pd.DataFrame, running, points: int) -> pd.DataFrame:
    """The running rates at :func:`geometric_points` of each (game, player), from its counts ``n`` and ``running``
    (a function of the wanted (game, player, k) giving won and unknown among the first k deals)."""
    from .stats import rate_interval

    wanted = pd.DataFrame([(g, p, k) for g, p, d in zip(n.game, n.player, n.deals) for k in geometric_points(int(d), points)],
                          columns=["game", "player", "k"])
    if wanted.empty:
        return pd.DataFrame()
    got = running(wanted).set_index(["game", "player", "k"])
    out = []
    for g, p, k in wanted.itertuples(index=False, name=None):
        won, unknown = (int(x) for x in got.loc[(g, p, k), ["won", "unknown"]])
        mid, lo, hi = rate_interval(won, unknown, k)
        out.append({"game": g, "player": p, "deals": k, "rate": mid, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(out)


def geometric_points(n: int, points: int = 40) -> list[int]:
    """The deal counts at which a running rate is shown (:func:`analysis.stats.convergence`'s)."""
    return sorted(set(np.unique(np.geomspace(1, n, min(points, n)).astype(int)).tolist()))


def of(path: str | Path) -> CheapRows:
    """The cheap rows of the dataset, or folder of datasets, at ``path`` (as :func:`analysis.load.load_study` reads it)."""
    from .load import study_parts
    from .parts import parquet_parts

    return CheapRows(study_parts(Path(path)) if Path(path).is_dir() else [(Path(path).name, parquet_parts(Path(path)))])


def as_rows(rows) -> CheapRows:
    """``rows`` as the analysis asks them: a :class:`CheapRows` as it is, a frame's heuristic rows through DuckDB too
    (:meth:`CheapRows.of_frame`)."""
    return rows if isinstance(rows, CheapRows) else CheapRows.of_frame(rows)


def pair(rows, a: tuple[str, str], b: tuple[str, str]) -> Paired | None:
    """(game, player) ``a`` against ``b`` deal by deal, the table counted in the engine (a frame too)."""
    return paired_of_counts(a, b, *as_rows(rows).paired(a, b))
