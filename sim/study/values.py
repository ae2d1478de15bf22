"""Every value a dataset's rows hold, checked against what its column means and what its manifest says was played.

The parts' schemas say a column holds the right kind (:func:`analysis.parts.not_castle_rows`); a value of that
kind can still be impossible: a result no game ends with (``"banana"``), ``won`` disagreeing with ``result``, a
null where every row holds a value, a negative time, a deal the experiment never played. Counted, any of them
moves a figure without a word (a ``banana`` is not a win), so a dataset holding one is refused, naming the part,
the column and the first bad value.

:data:`CHECKS` holds, for every column a row may carry (:data:`sim.players.record.COLUMNS` and the players' own),
an SQL condition that is true of a bad value and what is allowed instead; :func:`check_values` adds what the
manifest says (the deals played, the versions) and asks DuckDB for the first row any condition holds of, over
the parts where they lie (a few seconds for the 1.4 million rows of data/published on two cores). The seed,
games and players a manifest names are checked before, by :mod:`analysis.load`, whose message names a part of
another dataset as such.

Why in ``sim.study``: the runner reads rows too (:mod:`.unknowns`: the deals another folder's exact runs left
unknown are what an ``unknowns_of`` run plays), and the same checks stand between those rows and the deals played.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..core.deals import MAX_DEAL, PYSOL_SEED
from ..core.outcome import RESULTS, Result
from ..core.rules import GAMES, SHEET, dialects_of
from ..players.builtin import BUILTIN_PLAYERS, CORRIDOR, MISTAKES, PHASED
from ..players.record import COLUMNS
from ..players.spec import HEURISTIC

#: the most moves a row may say were played (the players' move cap at its highest; the solver's wins are far shorter)
MOST_MOVES = 1_000_000
#: the cards of every game's deck
CARDS = 52
#: the widest bitmask of base ranks (``bases_won``, ``bases_unknown``: one bit a rank)
BASES = (1 << 13) - 1

_EXACT = (Result.WON.value, Result.LOST.value, Result.UNKNOWN.value)
_PLAYED = (Result.WON.value, Result.STUCK.value, Result.GAVE_UP.value)
#: the toolkit's players that play a game move by move, by their role (a plug-in's own kind is not known: any result
#: name is allowed it), and those that give verdicts (exact players and judges: won, lost or unknown)
_HEURISTIC = tuple(p.name for p in BUILTIN_PLAYERS if p.role == HEURISTIC)
_JUDGES = tuple(p.name for p in BUILTIN_PLAYERS if p.role != HEURISTIC)


def quote(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + str(text).replace("'", "''") + "'"


def in_list(values) -> str:
    """``values`` as the right side of SQL's ``IN`` (``(NULL)``, which holds nothing, when there are none)."""
    return "(" + ", ".join(quote(v) for v in values) + ")" if len(values) else "(NULL)"


@dataclass(frozen=True)
class Check:
    """A column's rule: ``bad``, an SQL condition true of a value the column cannot hold; ``allowed``, said instead."""

    bad: str
    allowed: str


def _count(c: str, who: str | None = None, low: int = 0) -> Check:
    """A count or a time: a whole number from ``low``; null only for the rows of players other than ``who`` (SQL)."""
    null = f"({c} IS NULL AND {who})" if who else "FALSE"
    never = "" if not who else ", never null" if who == "TRUE" else ", never null for its player"
    return Check(f"{null} OR {c} < {low}", f"a whole number from {low}{never}")


def _name_in(names) -> str:
    return f"_name IN {in_list(list(names))}"


_JUDGE = _name_in(_JUDGES)
_PILES = "CASE _slug " + " ".join(f"WHEN {quote(g.slug)} THEN {g.n_piles}" for g in GAMES) + " END"
_DIALECTS = " OR ".join(f"(_slug = {quote(g.slug)} AND dialect IN {in_list((SHEET, *dialects_of(g)))})" for g in GAMES)
_CORRIDOR_WON = f"(_name = {quote(CORRIDOR.name)} AND _won)"

#: every column's rule (a column no rule names fails tests/test_faults.py's test of them all)
CHECKS: dict[str, Check] = {
    "game": Check(f"game IS NULL OR _slug NOT IN {in_list([g.slug for g in GAMES])}", "a game's slug"),
    "player": Check("player IS NULL OR _name = ''", "a player's label"),
    "player_params": Check("player_params IS NULL OR left(player_params, 1) <> '{' OR NOT json_valid(player_params)",
                           "the parameters as a JSON object"),
    "seed": Check(f"seed IS NULL OR seed < {PYSOL_SEED}", f"a seed from 0, or {PYSOL_SEED} (PySol's numbers)"),
    "deal": Check(f"deal IS NULL OR deal < (CASE WHEN seed = {PYSOL_SEED} THEN 1 ELSE 0 END) OR deal > {MAX_DEAL}",
                  "a deal number from 0 (PySol's from 1) to 2**63-1"),
    "result": Check(f"result IS NULL OR result NOT IN {in_list(RESULTS)} OR (_judge AND result NOT IN {in_list(_EXACT)}) "
                    f"OR ({_name_in(_HEURISTIC)} AND result NOT IN {in_list(_PLAYED)})",
                    "won, lost or unknown for an exact player (the solver's kind), won, stuck or gave_up for the "
                    "toolkit's other players"),
    "won": Check("won IS NULL OR won <> _won", "true exactly when result is won"),
    "moves": Check(f"moves IS NULL OR moves < 0 OR moves > {MOST_MOVES}", f"0 to {MOST_MOVES:,}"),
    "cards_home": Check(f"cards_home IS NULL OR cards_home < 0 OR cards_home > {CARDS} OR (cards_home = {CARDS}) <> _won",
                        f"0 to {CARDS}, {CARDS} exactly when the game is won"),
    "base_rank": Check("base_rank < 0 OR base_rank > 12", "0 (Ace) to 12 (King), or null"),
    "max_empty_piles": Check(f"max_empty_piles IS NULL OR max_empty_piles < 0 OR max_empty_piles > {_PILES}",
                             "0 to the game's piles"),
    "positions": Check("positions IS NULL OR positions < 1 OR positions > moves + 1", "1 to moves + 1"),
    "elapsed_us": _count("elapsed_us", "TRUE"),
    "cpu_us": _count("cpu_us", "TRUE"),
    "dialect": Check(f"dialect IS NULL OR NOT ({_DIALECTS})", "sheet, or a dialect of the game"),
    "rules_version": _count("rules_version", "TRUE", 1),
    "engine_version": _count("engine_version", "TRUE", 1),
    "player_version": _count("player_version", "TRUE", 1),
    # the players' own columns (sim/players/builtin.py)
    "nodes": _count("nodes", _JUDGE),
    "bases_won": Check(f"bases_won < 0 OR bases_won > {BASES}", f"0 to {BASES} (a bit a base rank), or null"),
    "bases_unknown": Check(f"bases_unknown < 0 OR bases_unknown > {BASES}", f"0 to {BASES} (a bit a base rank), or null"),
    "most_home": Check(f"most_home < 0 OR most_home > {CARDS}", f"0 to {CARDS}, or null"),
    "difficulty": Check(f"(difficulty IS NULL AND {_CORRIDOR_WON}) OR NOT isfinite(difficulty) OR difficulty < 0",
                        "a finite number of bits from 0, never null for a deal the corridor won"),
    "decisions": _count("decisions", _CORRIDOR_WON),
    "critical": _count("critical", _CORRIDOR_WON),
    **{c: _count(c, f"_name = {quote(CORRIDOR.name)}") for c in ("questions", "searched", "unknown_moves", "question_nodes")},
    "review": Check(f"(review IS NULL AND _name = {quote(MISTAKES.name)}) OR NOT coalesce(json_valid(review), TRUE)",
                    "JSON, never null for the mistake finder"),
    "phase": Check(f"(phase IS NULL AND _name = {quote(PHASED.name)}) OR phase < 1 OR phase > 3",
                   "1 to 3, never null for the solver in phases"),
    "left": Check(f'"left" IS NULL AND _name = {quote(PHASED.name)}', "true or false, never null for the solver in phases"),
}

#: the columns of every player's rows, in order (the row's, then the players' own)
ALL_COLUMNS = tuple(dict.fromkeys([c.name for c in COLUMNS] + [n for p in BUILTIN_PLAYERS for n, _ in p.extra_columns]))
assert set(ALL_COLUMNS) <= set(CHECKS), f"a column without a check: {sorted(set(ALL_COLUMNS) - set(CHECKS))}"
_TYPES = {"game": "VARCHAR", "player": "VARCHAR", "player_params": "VARCHAR", "result": "VARCHAR", "dialect": "VARCHAR",
          "review": "VARCHAR", "won": "BOOLEAN", "left": "BOOLEAN", "difficulty": "DOUBLE"}


class BadValue(ValueError):
    """A row holds a value its column cannot: the part, the column, the value and what is allowed."""


def manifest_checks(exp: dict) -> dict[str, list[tuple[str, str]]]:
    """The conditions (bad SQL, allowed) an experiment's manifest adds: the deals it played, its versions."""
    out: dict[str, list[tuple[str, str]]] = {}
    if listed_deals(exp) is not None:  # (the table _listed: :func:`check_values` registers it)
        out["deal"] = [("NOT EXISTS (SELECT 1 FROM _listed l WHERE l.g = _game AND l.d = deal)",
                        "one of the deals the manifest lists for its game")]
    elif isinstance(exp.get("deal_range"), list) and len(exp["deal_range"]) == 2:
        first, end = exp["deal_range"]
        out["deal"] = [(f"deal < {int(first)} OR deal >= {int(end)}", f"{first} to {int(end) - 1}, the manifest's deal range")]
    if isinstance(exp.get("engine_version"), int):
        out["engine_version"] = [(f"engine_version <> {exp['engine_version']}", f"{exp['engine_version']}, the manifest's")]
    for column, section, key in (("rules_version", "games", "_game"), ("player_version", "player_versions", "player")):
        known = {k: v for k, v in (exp.get(section) or {}).items() if isinstance(v, int)} if isinstance(exp.get(section), dict) else {}
        if known:
            case = "CASE " + key + " " + " ".join(f"WHEN {quote(k)} THEN {v}" for k, v in known.items()) + " END"
            out[column] = [(f"{column} <> {case}", f"the version the manifest names for its {section[:-1] if key == '_game' else 'player'}")]
    return out


def listed_deals(exp: dict):
    """The deals an ``unknowns_of`` experiment lists, as a table of (game, deal); None if its deals are a range."""
    listed = exp.get("deals")
    if not isinstance(listed, dict) or not listed:
        return None
    import pyarrow as pa

    rows = [(g, int(d)) for g, deals in listed.items() for d in deals]
    return pa.table({"g": pa.array([g for g, _ in rows], pa.string()), "d": pa.array([d for _, d in rows], pa.int64())})


def check_values(path: Path, files: list[str], exp: dict | None = None, names: set[str] | None = None) -> None:
    """Refuse (:class:`BadValue`) the first value of the parts ``files`` (below ``path``) its column cannot hold,
    given the experiment ``exp`` its manifest names (None: none); ``names``: their columns, if the caller has read
    their schemas already."""
    if not files:
        return
    import duckdb
    import pyarrow.parquet as pq

    names = names if names is not None else set().union(*(pq.read_schema(f).names for f in files))
    extra = manifest_checks(exp or {})
    conditions = [(c, f"({CHECKS[c].bad})", CHECKS[c].allowed) for c in ALL_COLUMNS]
    conditions += [(c, f"({bad})", allowed) for c, more in extra.items() for bad, allowed in more]
    any_bad = " OR ".join(f"coalesce({bad}, FALSE)" for _, bad, _ in conditions)
    con = duckdb.connect(config={"threads": min(2, os.cpu_count() or 1)})
    if (listed := listed_deals(exp or {})) is not None:
        con.register("_listed", listed)
    try:  # the first bad row in one pass over every part; then, in its part alone, which of its values is bad
        found = con.execute(f"SELECT filename, file_row_number FROM ({_rows(files, names)}) WHERE {any_bad} "
                            "ORDER BY filename, file_row_number LIMIT 1").fetchone()
        if found is None:
            return
        flags = ", ".join(f"coalesce({bad}, FALSE) AS _bad{i}" for i, (_, bad, _) in enumerate(conditions))
        cursor = con.execute(f"SELECT *, {flags} FROM ({_rows([found[0]], set(pq.read_schema(found[0]).names))}) WHERE file_row_number = {int(found[1])}")
        row = cursor.fetchone()
        heads = [d[0] for d in cursor.description]
    finally:
        con.close()
    r = dict(zip(heads, row))
    column, _, allowed = next(c for i, c in enumerate(conditions) if r[f"_bad{i}"])
    value = r[column]
    shown = "null" if value is None else json.dumps(value)  # (NaN and Infinity as JSON would say them)
    file = Path(r["filename"])
    where = file.relative_to(path) if file.is_relative_to(path) else file
    raise BadValue(f"{path}: {where}: column {column} holds {_cut(shown)} in row {int(r['file_row_number']) + 1} "
                   f"(allowed: {allowed}); a damaged or edited part? move it out, and rerun the experiment to play its deals again")


def _rows(files: list[str], names: set[str]) -> str:
    """The rows of the parts ``files`` as SQL: every column of :data:`ALL_COLUMNS` (null where a part has none), text
    columns as text, and what the checks ask of a row: its game's slug (``_slug``) and name with its dialect
    (``_game``), its player's name (``_name``), whether that is an exact player's (``_judge``), whether it won (``_won``)."""
    hive = not {"game", "player"} <= names
    missing = "".join(f", NULL::{_TYPES.get(c, 'BIGINT')} AS \"{c}\"" for c in ALL_COLUMNS
                      if c not in names and not (hive and c in ("game", "player")))
    casts = ", ".join(f'CAST("{c}" AS VARCHAR) AS "{c}"' for c in ("game", "player", "result", "dialect", "player_params"))
    source = (f"SELECT * REPLACE ({casts}){missing} FROM read_parquet({_sql_list(files)}, union_by_name = true, "
              f"filename = true, file_row_number = true, hive_partitioning = {str(hive).lower()})")
    return (f"SELECT *, split_part(game, '@', 1) AS _slug, CASE WHEN dialect IS NULL OR dialect = {quote(SHEET)} THEN game "
            f"ELSE game || '@' || dialect END AS _game, split_part(player, ':', 1) AS _name, "
            f"_name IN {in_list(_JUDGES)} AS _judge, result = 'won' AS _won FROM ({source})")


def _cut(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[:most] + "…"


def _sql_list(values) -> str:
    return "[" + ", ".join(quote(v) for v in values) + "]"
