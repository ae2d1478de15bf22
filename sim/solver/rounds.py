"""Search in rounds: the solver's schedule over the compiled depth-first search.

Every problem is searched in rounds whose node budgets grow (x1.25 a round),
each round a restart from the root in a different move order: search effort
on winnable deals is heavy-tailed in the move order, so many short searches
find most wins sooner than one long one. A restart keeps the table's proved
losses (the search closes strongly connected components as it goes, and a
component closed without a win is lost), so a proof of loss costs about one
exhaustive search however many rounds it spans. Several problems (the 13
bases of Selective Castle) share one memory bound (:class:`Slots`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.cards import N_CARDS
from ..core.moves import Move
from ..core.outcome import LOST, WON, Result
from ..kernels import deadend
from ..kernels import layout
from ..kernels import pruning
from ..kernels import search as search_kernel
from ..kernels import solver_table
from .clock import clock

FIRST_DEPTH = 1 << 14  #: path arrays start this long and double as the path grows, up to :meth:`Slots.max_depth`
LOAD_LIMIT = 0.85  #: the table grows (or the search stops) at this load
FORGET_TO = 0.75  #: a table that cannot grow forgets proved losses, cheapest first, down to this share of its load limit
SLICE_NODES = 200_000  #: nodes between clock checks
FIRST_ROUND_NODES = 20_000  #: per-problem budget of the first round
ROUND_GROWTH = 1.25  #: the budget grows this much a round (restarts are cheap: proved losses are kept)
#: CPU seconds to move one slot of a full table into one twice its size (measured: 160-300 ns, most of it
#: cache misses); a table is not doubled when that would outlast the deadline, so a solve keeps its budget
REHASH_SECONDS_PER_SLOT = 3e-7


DEAD_END_SLOTS = 1 << 22  #: the dead-end test's table (64 MB; emptied when full: it only remembers)
DEAD_END_BUDGET = 1 << 20  #: quotient states one dead-end test may enter before it gives up


class Slots:
    """The table slots one solve call may hold: ``table_size`` bounds all its searches together.

    Selective Castle keeps a table per open base (up to 13); without a
    common bound its memory would be thirteen tables' worth, not the one
    the caller asked for. A search whose table cannot grow because the
    others hold the rest is *starved*: it waits for a settled problem to
    give its slots back.
    """

    FIRST = 1 << 16  #: a search's first table (it doubles as it fills)
    SMALLEST = 64

    def __init__(self, limit: int, n_searches: int):
        self.limit = limit
        self.used = 0
        # each search's first table: small enough that all of them fit in the limit together
        self.first = max(min(self.FIRST, 1 << ((limit // max(n_searches, 1)).bit_length() - 1)), self.SMALLEST)
        self._dead_end = None  # the dead-end test's arrays, made when a search first wants them

    @property
    def max_depth(self) -> int:
        """The longest path a search may hold: a quarter of the slot limit (1 << 25 for the default).

        A level of the path costs 60-80 bytes (its children, discovery number
        and low link, the move, its entry on the component stack), about four
        table slots: so the path's arrays can grow to about the table's own
        size, and no further (beyond it, unknown). Some Streets and Alleys
        deals need a path of tens of millions of moves.
        """
        return max(FIRST_DEPTH, self.limit // 4)

    def dead_end_arrays(self, wanted: bool) -> tuple:
        """The dead-end test's table, counters and work arrays (``PRUNE_DEAD_END``), one set for all the call's
        searches (they run one at a time; the quotient's key holds the foundations and bases, so what one
        search proved dead stands for the others): about 140 MB once, not once per base. Tiny when not wanted."""
        if not wanted:
            return (np.zeros((1, 2), np.uint64), np.zeros(deadend.QCTX_SIZE, np.int64),
                    np.zeros((1, deadend.QPATH_COLUMNS), np.int64), np.zeros(1, np.int16))
        if self._dead_end is None:
            self._dead_end = (np.zeros((DEAD_END_SLOTS, 2), np.uint64), np.zeros(deadend.QCTX_SIZE, np.int64),
                              np.zeros((DEAD_END_BUDGET + 1, deadend.QPATH_COLUMNS), np.int64),
                              np.zeros(DEAD_END_BUDGET * deadend.KIDS_PER_LEVEL, np.int16))
        return self._dead_end

    def take(self, n: int) -> bool:
        """Hand out ``n`` more slots if the limit allows."""
        if self.used + n > self.limit:
            return False
        self.used += n
        return True

    def give_back(self, n: int) -> None:
        self.used -= n


class Search:
    """One resumable search: the kernel's arrays (its workspace, :func:`sim.kernels.search.workspace`) and its context.

    ``prune`` is kept as it holds under the rules ``r`` (:func:`~sim.kernels.pruning.prune_for`).
    """

    def __init__(self, r: np.ndarray, s: np.ndarray, slots: Slots, prune: int, order: int = 0):
        self.r = r
        self.start = s.copy()
        self.s = s.copy()
        self.slots = slots
        self.prune = int(pruning.prune_for(r, prune))
        slots.take(slots.first)  # always granted: the first tables of all searches fit together
        self.ws = search_kernel.workspace(np.zeros((slots.first, 2), np.uint64), FIRST_DEPTH,
                              slots.dead_end_arrays((self.prune & pruning.PRUNE_DEAD_END) != 0))
        self.starved = False
        self.ctx[search_kernel.C_ORDER] = order
        self.ctx[search_kernel.C_STATUS] = search_kernel.RUNNING
        self.forgotten = 0  #: table entries forgotten to make room (FORGET_LOST)

    def _put(self, **arrays: np.ndarray) -> None:
        """Replace the workspace's arrays by name (a larger table, a longer path)."""
        self.ws = self.ws._replace(**arrays)

    @property
    def table(self) -> np.ndarray:
        return self.ws.table

    @property
    def scc(self) -> np.ndarray:
        return self.ws.scc

    @property
    def tokens(self) -> np.ndarray:
        return self.ws.tokens

    @property
    def ctx(self) -> np.ndarray:
        return self.ws.ctx

    def restart(self, order: int) -> None:
        """Search again from the start in move order ``order``, keeping the table's proved losses.

        Positions an earlier round left open are searched again; only with
        the path-dependent same-card rule, which proves nothing, does the
        table start empty.
        """
        self.s = self.start.copy()
        stored, next_round, most_home = int(self.ctx[search_kernel.C_STORED]), int(self.ctx[search_kernel.C_ROUND]) + 1, int(self.ctx[search_kernel.C_MOST_HOME])
        if self.prune & pruning.PRUNE_SAME_CARD:
            self.table[:] = 0
            stored = 0
        self.ctx[:] = 0
        self.ctx[search_kernel.C_STATUS] = search_kernel.RUNNING
        self.ctx[search_kernel.C_ROUND] = next_round
        self.ctx[search_kernel.C_ORDER] = order
        self.ctx[search_kernel.C_STORED] = stored
        self.ctx[search_kernel.C_MOST_HOME] = most_home  # (the table keeps what earlier rounds searched: so does this)

    @property
    def most_home(self) -> int:
        """With ``TRACK_HOME``: the most cards home among the positions this search has entered."""
        return int(self.ctx[search_kernel.C_MOST_HOME])

    @property
    def nodes(self) -> int:
        return int(self.ctx[search_kernel.C_NODES])

    @property
    def status(self) -> int:
        return int(self.ctx[search_kernel.C_STATUS])

    def run(self, pause_at: int, deadline: float = float("inf")) -> int:
        """Search on until a verdict, ``pause_at`` nodes, or a full table that cannot grow or forget.

        ``starved`` tells whether a full table could not grow because other
        searches of the call hold the slots (not because of the limit itself).
        A table is not doubled when moving it would run past ``deadline``
        (the solver's clock): the search stops there, unresolved.
        """
        self.starved = False
        while True:
            status = int(search_kernel.search(self.s, self.r, self.ws, pause_at, int(self.table.shape[0] * LOAD_LIMIT), self.prune))
            size = self.table.shape[0]
            if status == search_kernel.TABLE_FULL and 2 * size <= self.slots.limit:
                if clock() + size * REHASH_SECONDS_PER_SLOT > deadline:
                    return status
                if not self.slots.take(size):
                    self.starved = True
                    return status
                bigger = np.zeros((self.table.shape[0] * 2, 2), np.uint64)
                solver_table.rehash(self.table, bigger, self.scc, self.ctx[search_kernel.C_SCC_TOP])
                self._put(table=bigger)
            elif status == search_kernel.TABLE_FULL and self.prune & pruning.FORGET_LOST and not self.prune & pruning.PRUNE_SAME_CARD:
                if not self._forget():
                    return status
            elif status == search_kernel.TOO_DEEP and self.tokens.shape[0] < self.slots.max_depth:
                self._grow_stack()
            elif status == search_kernel.SCC_FULL:
                scc = np.zeros(2 * self.scc.shape[0], np.int64)
                scc[: self.scc.shape[0]] = self.scc
                self._put(scc=scc)
            else:
                return status
            self.ctx[search_kernel.C_STATUS] = search_kernel.PAUSED

    def _forget(self) -> bool:
        """Make room in a table that cannot grow: forget its cheapest proved losses (``pruning.md``).

        False if that would free too little to go on (nearly every position
        stored is open in this round).
        """
        stored = int(self.ctx[search_kernel.C_STORED])
        epoch = np.uint64(self.ctx[search_kernel.C_ROUND]) << solver_table.ROUND_SHIFT
        used = int(solver_table.forget(self.table, self.scc, self.ctx[search_kernel.C_SCC_TOP], epoch, stored - int(stored * FORGET_TO)))
        self.forgotten += stored - used
        self.ctx[search_kernel.C_STORED] = used
        return used < 0.9 * stored

    def _grow_stack(self) -> None:
        """Double the path arrays (depth-first paths can run to millions of moves)."""
        d = self.tokens.shape[0]
        for name in ("kid_off", "kid_n", "kid_i", "tokens", "comp"):
            old = getattr(self.ws, name)
            new = np.zeros((2 * d,) + old.shape[1:], old.dtype)
            new[:d] = old
            self._put(**{name: new})
        old = self.ws.kids
        if old.shape[0] < search_kernel.KIDS_PER_LEVEL * 2 * d:
            kids = np.empty(max(2 * old.shape[0], search_kernel.KIDS_PER_LEVEL * 2 * d), np.int16)
            kids[: old.shape[0]] = old
            self._put(kids=kids)

    def moves(self) -> list[Move]:
        """The path from the start: a win, once the status says so."""
        return [Move.from_action(int(layout.token_action(t))) for t in self.tokens[: self.ctx[search_kernel.C_DEPTH]]]

    def free(self) -> None:
        """Give the table's slots back to the call's other searches."""
        self.slots.give_back(self.table.shape[0])
        self._put(table=np.zeros((0, 2), np.uint64))


def run_until(search: Search, node_limit: int, deadline: float, tick=None) -> Result | None:
    """Resume ``search`` in slices until a verdict, ``node_limit`` nodes or ``deadline``; None if unresolved.

    ``tick(nodes)``, if given, hears the search's node count after every slice.
    """
    while True:
        pause = min(node_limit, search.nodes + SLICE_NODES)
        status = search.run(pause, deadline)
        if tick is not None:
            tick(search.nodes)
        if status == WON:
            return Result.WON
        if status == LOST:
            return Result.LOST
        if status != search_kernel.PAUSED or search.nodes >= node_limit or clock() >= deadline:
            return None


@dataclass(frozen=True)
class Budget:
    """What one :func:`solve_rounds` call may spend: positions searched, the solver's clock, table slots."""

    nodes: int  #: positions searched, all problems together
    deadline: float  #: on the solver's clock (:data:`clock`)
    table_size: int  #: table slots all the problems' tables share (:class:`Slots`)


@dataclass(frozen=True)
class RoundsResult:
    """What :func:`solve_rounds` found."""

    result: Result  #: the deal's verdict
    moves: list[Move]  #: the winning moves (empty unless won)
    nodes: int  #: positions searched, all problems together
    verdicts: dict | None  #: with ``every_problem``: each problem's verdict
    most_home: int  #: with ``TRACK_HOME`` in ``prune``: the most cards home any search entered (all of them once won)


def solve_rounds(rules_array: np.ndarray, problems: dict, budget: Budget, prune: int, every_problem: bool,
                 progress=None, side: tuple = ()) -> RoundsResult:
    """Search each problem in rounds of growing node budgets, restarting each round in a new move order.

    ``problems`` maps a key (a base rank, or None) to a start state; any won
    problem settles the deal (unless ``every_problem`` asks for each one's
    verdict), "lost" needs every problem lost. Each round of a problem
    starts with the positions earlier rounds proved lost (closed components,
    see ``pruning.md``). When one problem is left and the round after this
    one could not finish in the time left, this round is the last and gets
    all the budget that is left: a loss that needs the whole budget can
    still be proved, instead of the budget running out at the start of a
    round too big to finish. The problems' tables share ``budget.table_size`` slots
    (:class:`Slots`); a problem starved of slots waits, open, for a settled
    one to free its table.
    ``progress(nodes, settled, problems, seconds_left)``, if given, hears how it goes.
    ``side`` holds (after, search) pairs, differently shaped searches for
    wins: each ``search()`` is tried once when the rounds have searched
    ``after`` nodes without settling the deal (nodes, not seconds: a deal's
    verdict under a node budget is the same on any machine); a winning line
    it returns settles it (unless ``every_problem``).
    """
    verdicts: dict = {}  # settled problems (unknown too, when a full table that cannot forget means it never will be)
    most_home = 0  # the most cards home any search entered (with TRACK_HOME)
    searches: dict = {}  # per open problem, its search: rounds restart it, keeping what it proved lost
    budget_nodes, deadline = budget.nodes, budget.deadline
    slots = Slots(budget.table_size, len(problems))
    spent = 0
    moves: list[Move] = []
    per_problem = FIRST_ROUND_NODES
    round_no = 0
    rate = 0.0
    while True:
        open_keys = [key for key in problems if key not in verdicts]
        if not open_keys:
            break
        while side and not every_problem and spent >= side[0][0]:
            line, side = side[0][1](), side[1:]
            if line:
                return RoundsResult(Result.WON, line, spent, None, N_CARDS)
        all_starved = True
        for key in open_keys:
            left = budget_nodes - spent
            now = clock()
            if left <= 0 or now >= deadline:
                break
            limit = min(per_problem, left)
            if len(open_keys) == 1 and rate > 0 and limit * (1 + ROUND_GROWTH) > min(left, rate * (deadline - now)):
                limit = left  # the last round: all that is left
            search = searches.get(key)
            if search is None:
                search = searches[key] = Search(rules_array, problems[key], slots, prune, order=round_no)
            else:
                search.restart(round_no)
            tick = None if progress is None else (
                lambda nodes, before=spent: progress(before + nodes, len(verdicts), len(problems), deadline - clock()))
            verdict = run_until(search, limit, deadline, tick)
            spent += search.nodes
            most_home = max(most_home, search.most_home)
            if search.nodes >= SLICE_NODES:  # nodes per second, from searches long enough to time (never the first, which may compile)
                rate = search.nodes / max(clock() - now, 1e-9)
            all_starved = all_starved and search.starved
            if verdict is None and search.status == search_kernel.TABLE_FULL and not search.starved:
                verdict = Result.UNKNOWN  # cannot be settled with the table allowed: do not retry
            # (a round stopped by the path's limit ends like one cut short by its budget: the next
            # round starts again in another order, with what this one proved lost)
            if verdict is not None:
                verdicts[key] = verdict
                searches.pop(key).free()  # settled (or never will be): its slots go to the others
            if verdict is Result.WON and not moves:
                moves = search.moves()
                if not every_problem:
                    return RoundsResult(Result.WON, moves, spent, None, N_CARDS)
        if budget_nodes - spent <= 0 or clock() >= deadline or all_starved:
            break  # all_starved: every open problem waits for slots another one holds
        per_problem = int(per_problem * ROUND_GROWTH)
        round_no += 1
    final = {key: verdicts.get(key, Result.UNKNOWN) for key in problems}
    if Result.WON in final.values():
        overall = Result.WON
    elif all(v is Result.LOST for v in final.values()):
        overall = Result.LOST
    else:
        overall = Result.UNKNOWN
    return RoundsResult(overall, moves if overall is Result.WON else [], spent, final if every_problem else None,
                        most_home)
