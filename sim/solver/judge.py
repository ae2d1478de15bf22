"""Every move of a position judged by the solver: it keeps a winnable deal winnable, loses it, or stays unknown.

One :class:`Judge` answers all the questions asked about one deal and keeps
what each answer taught it, so the questions after the first are cheap:

* every position of a winning line it has seen is **known won** (the deal's
  own line, and each line a later question found); a move whose child
  reaches one of them within a few moves (:mod:`sim.kernels.corridor`) keeps
  the deal winnable without any search. Most moves off a winning line are
  of that kind, and re-proving them from scratch was nearly all the cost;
* every position a search proved lost stays in the **one transposition
  table** of the deal's searches (a restart keeps proved losses, as the
  solver's rounds do), so a later question meets an earlier proof at once;
* only the rest is searched, in rounds of growing budgets up to
  ``budget_nodes`` positions a question (the verdict is then the same on any
  machine), and a question that runs out is **unknown**: counted, never
  guessed.

Selective Castle before its first foundation move has its base still to
choose: such a position is asked of :func:`~.answer.solve` (13 problems, one
per base), without the shared table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..game import Game, State
from ..core.moves import MAX_MOVES, Move
from ..core.outcome import Result
from ..kernels import apply_undo
from ..kernels import corridor as corridor_kernel
from ..kernels import hashing
from ..kernels import lines as lines_kernel
from ..kernels import pruning
from ..kernels import search as search_kernel
from .answer import base_to_choose, solve
from ..core.limits import DEFAULT_TABLE_SIZE
from .rounds import FIRST_ROUND_NODES, ROUND_GROWTH, Search, Slots, clock, run_until

KEEPS, LOSES, UNKNOWN = "keeps", "loses", "unknown"
#: how each verdict was reached: on the line, a look-ahead to a known-won position, a known loss, a search
HOW = ("line", "reach", "known", "search")
LOOK_AHEAD = 2  #: moves a child may take to reach a known-won position (0: only the child itself)
QUESTION_NODES = 2_000_000  #: positions one search question may spend (the row records it)


@dataclass
class Judged:
    """One move of a position: its verdict (``keeps``, ``loses``, ``unknown``), how it was reached, and its child's hash."""

    move: Move
    verdict: str
    how: str
    child: int
    reversal: bool = False  #: the move only takes back the move before it

    def to_dict(self) -> dict:
        return {"move": str(self.move), "verdict": self.verdict, "how": self.how, "reversal": self.reversal}


@dataclass
class Stats:
    """What a judge did: questions asked by how they were settled, positions searched, CPU seconds."""

    by_how: dict = field(default_factory=lambda: {h: 0 for h in HOW})
    nodes: int = 0
    seconds: float = 0.0
    unknown: int = 0


class Judge:
    """The solver's verdict on positions and on every move of them, for one deal (one table, one known-won set)."""

    def __init__(self, game: Game | str, budget_nodes: int = QUESTION_NODES, look_ahead: int = LOOK_AHEAD,
                 table_size: int = DEFAULT_TABLE_SIZE, budget_seconds: float = 600.0, dead_end: bool = True):
        self.game = Game(game) if isinstance(game, str) else game
        self.r = self.game.rules_array
        self.budget = budget_nodes
        self.look_ahead = look_ahead
        self.table_size = table_size
        self.budget_seconds = budget_seconds
        self.prune = pruning.PRUNE_DEFAULT | (pruning.PRUNE_DEAD_END if dead_end else 0)
        self.won: set[int] = set()
        self._won_index = lines_kernel.position_index(np.zeros(0, np.uint64))
        self.lost: set[int] = set()
        self._search: Search | None = None
        self._slots = Slots(table_size, 1)
        self._order = 0
        self.stats = Stats()
        self._acts = np.empty(MAX_MOVES, np.int64)
        self._hashes = np.empty(MAX_MOVES, np.uint64)
        self._reach = np.empty(MAX_MOVES, np.int64)

    # ---- what is known ---------------------------------------------------------------------------------------

    def hash(self, s: np.ndarray) -> int:
        return int(hashing.position_hash(s, self.r))

    def learn_line(self, s: np.ndarray, moves: list[Move]) -> None:
        """Every position of a winning line from ``s`` is won."""
        s = s.copy()
        self.won.add(self.hash(s))
        for m in moves:
            apply_undo.apply(s, self.r, m.action)
            self.won.add(self.hash(s))
        self._won_index = lines_kernel.position_index(np.fromiter(self.won, np.uint64, len(self.won)))  # membership only

    # ---- questions -------------------------------------------------------------------------------------------

    def verdict(self, s: np.ndarray) -> Result:
        """Is the position ``s`` winnable? Known, or searched within the question's budget."""
        h = self.hash(s)
        if h in self.won:
            return Result.WON
        if h in self.lost:
            return Result.LOST
        start = clock()
        if base_to_choose(self.game.rules, s):
            res = solve(self.game, State(self.game.rules, s.copy()), budget_nodes=self.budget,
                        budget_seconds=self.budget_seconds, table_size=self.table_size, portfolio=False, shorten=False,
                        dead_end=bool(self.prune & pruning.PRUNE_DEAD_END))
            result, moves, nodes = res.result, res.moves, res.nodes
        else:
            result, moves, nodes = self._search_from(s)
        self.stats.nodes += nodes
        self.stats.seconds += clock() - start
        if result is Result.WON:
            self.learn_line(s, moves)
        elif result is Result.LOST:
            self.lost.add(h)
        return result

    def _search_from(self, s: np.ndarray) -> tuple[Result, list[Move], int]:
        """A search of ``s`` in rounds, in the deal's one table (what earlier questions proved lost stands)."""
        if self._search is None:
            self._search = Search(self.r, s, self._slots, self.prune, order=self._order)
        else:
            self._search.start = s.copy()
            self._search.restart(self._order)
        search, spent, limit = self._search, 0, FIRST_ROUND_NODES
        deadline = clock() + self.budget_seconds
        while True:
            verdict = run_until(search, min(limit, self.budget - spent), deadline)
            spent += search.nodes
            if verdict is not None or spent >= self.budget or clock() >= deadline:
                break
            if search.status == search_kernel.TABLE_FULL and not search.starved:
                break
            limit = int(limit * ROUND_GROWTH)
            self._order += 1
            search.restart(self._order)
        self._order += 1
        if verdict is Result.WON:
            return Result.WON, search.moves(), spent
        if verdict is Result.LOST:
            return Result.LOST, [], spent
        return Result.UNKNOWN, [], spent

    def judge(self, s: np.ndarray, before: int | None = None, line_move: int | None = None) -> list[Judged]:
        """Every legal move of the position ``s``: whether its child is winnable.

        ``before``: the hash of the position before ``s`` (a move back to it is a reversal); ``line_move``: the
        action a known winning line takes here (its child is known won).
        """
        s = s.copy()
        n = int(corridor_kernel.children_reaching(s, self.r, self._won_index, self.look_ahead, self._acts, self._hashes, self._reach))
        out = []
        for c in range(n):
            a, h, reach = int(self._acts[c]), int(self._hashes[c]), int(self._reach[c])
            move = Move.from_action(a)
            reversal = before is not None and h == before
            if a == line_move:
                verdict, how = KEEPS, "line"
            elif reach >= 0 or h in self.won:
                verdict, how = KEEPS, "reach"
            elif h in self.lost:
                verdict, how = LOSES, "known"
            else:
                child = s.copy()
                apply_undo.apply(child, self.r, a)
                result = self.verdict(child)
                verdict = KEEPS if result is Result.WON else LOSES if result is Result.LOST else UNKNOWN
                how = "search"
            self.stats.by_how[how] += 1
            self.stats.unknown += verdict == UNKNOWN
            out.append(Judged(move, verdict, how, h, reversal))
        return out

    def free(self) -> None:
        """Give the table back (a judge holds it until then)."""
        if self._search is not None:
            self._search.free()
            self._search = None
