"""One game played, and the one row schema every result row follows.

:data:`COLUMNS` lists every column of a result row: the Parquet schema
(:func:`sim.study.dataset.schema`), the rows the runner writes and the test
fixtures are all made from it. :class:`GameRecord` is what the play loop
returns for one game: the columns that depend on how the game went.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.moves import Move
from ..core.outcome import Result


@dataclass(frozen=True)
class Column:
    """A result-row column: its name, Arrow type (``pyarrow.type_for_alias`` names; ``dictionary`` for
    dictionary-encoded strings) and meaning."""

    name: str
    type: str
    doc: str


#: Every column of a result row, in order. A player's own columns (the solver's) follow them.
COLUMNS: tuple[Column, ...] = (
    Column("game", "dictionary", "game slug"),
    Column("player", "dictionary", "player label: name and the parameters that differ from their defaults"),
    Column("player_params", "string", "every parameter value, as canonical JSON"),
    Column("seed", "int64", "seed of the deal numbering"),
    Column("deal", "int64", "deal number"),
    Column("result", "string", "won, stuck or gave_up (the solver: won, lost or unknown)"),
    Column("won", "bool", "result == won"),
    Column("moves", "int32", "moves played (the solver: moves of its replayed win)"),
    Column("cards_home", "int8", "cards on the foundations at the end"),
    Column("base_rank", "int8", "shared base rank at the end (0 = Ace; null: not chosen, or no shared base)"),
    Column("max_empty_piles", "int8", "most empty tableau piles at any point"),
    Column("positions", "int32", "distinct positions the game passed through, start and end included"),
    Column("elapsed_us", "int64", "wall-clock time the player spent on the deal, in microseconds"),
    Column("cpu_us", "int64", "CPU time of the process on the deal, in microseconds (compiled chunks: the chunk's, shared by cycles)"),
    Column("dialect", "dictionary", "the rules played: sheet (the rule sheet's own), or a dialect of another program (pysol, supermoves)"),
    Column("rules_version", "int16", "the game's rules version"),
    Column("engine_version", "int16", "the engine's version"),
    Column("player_version", "int16", "the player's version"),
)

@dataclass
class GameRecord:
    """One game played: what the columns ``result`` to ``positions`` of :data:`COLUMNS` are made of."""

    result: Result
    moves: list[Move] = field(default_factory=list)
    cards_home: int = 0
    base_rank: int | None = None
    max_empty_piles: int = 0
    positions: int = 0  #: distinct positions the game passed through, start and end included
    extra: dict[str, Any] = field(default_factory=dict)  #: a player's own columns (the solver's nodes)

    @property
    def won(self) -> bool:
        return self.result is Result.WON
