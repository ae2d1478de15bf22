"""Is this deal winnable? The exact solver's Python face.

:func:`solve` answers ``won`` (with the moves), ``lost`` (proved: no move
sequence wins) or ``unknown`` (a budget ran out). The search itself is the
compiled depth-first search of :mod:`sim.solver_kernels`; this module
allocates its buffers, watches the clock between node-budget slices, and
confirms every win by replaying it in both engines.

Every game is searched in rounds whose node budgets grow (x1.25 a round),
each round a restart from the root in a different move order: search effort
on winnable deals is heavy-tailed in the move order, so many short searches
find most wins sooner than one long one. A restart keeps the table's proved
losses (the search closes strongly connected components as it goes, and a
component closed without a win is lost), so a proof of loss costs about one
exhaustive search however many rounds it spans.

Selective Castle is solved as its 13 fixed-base problems (a position before
any foundation move is the same in all of them; base ``b`` means the first
card founded has rank ``b``), tried shallowest base cards first in the
same rounds: one winning base settles the deal, and
"lost" needs all thirteen proved lost. A single search whose first
foundation move picks the base gets lost in the subtree of whichever base it
tries first (``shared/ANCHORS.md``).

>>> from sim.game import Game
>>> result = solve(Game("beleaguered-castle"), Game("beleaguered-castle").deal(3))
>>> result.result in ("won", "lost")
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from . import engine as E
from . import reference
from . import solver_kernels as K
from .board import Position
from .deals import DEFAULT_SEED
from .game import Game, State
from .moves import Move
from .rules import FoundationBase

WON, LOST, UNKNOWN = "won", "lost", "unknown"
DEFAULT_BUDGET_NODES = 100_000_000  #: about a minute and a half: the seconds bind first on a usual machine
DEFAULT_BUDGET_SECONDS = 60.0
DEFAULT_TABLE_SIZE = 1 << 27  #: at most 128M slots = 2 GB, about a minute of search (the table starts small and grows)
FIRST_DEPTH = 1 << 14  #: path arrays start this long and double as the path grows...
MAX_DEPTH = 1 << 25  #: ...up to this (about 600 MB with the children): beyond it, unknown
LOAD_LIMIT = 0.85  #: the table grows (or the search stops) at this load
SLICE_NODES = 200_000  #: nodes between clock checks
FIRST_ROUND_NODES = 20_000  #: per-problem budget of the first round
ROUND_GROWTH = 1.25  #: the budget grows this much a round (restarts are cheap: proved losses are kept)


#: The solver's clock: CPU seconds of this process. A budget in seconds then
#: means the same search effort on an idle machine and on one running more
#: solvers than it has cores (a batch study, a busy cluster node).
clock = time.process_time


class ReplayError(AssertionError):
    """A win the solver reported did not replay to 52 cards home: a solver or engine bug."""


@dataclass
class SolveResult:
    """The verdict, the winning moves (empty unless won), effort spent, and per-base verdicts."""

    result: str
    moves: list[Move] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    bases: dict[int, str] | None = None

    def to_dict(self) -> dict:
        d = {"result": self.result, "moves": [str(m) for m in self.moves], "nodes": self.nodes, "seconds": round(self.seconds, 4)}
        if self.bases is not None:
            d["bases"] = {"A23456789TJQK"[b]: v for b, v in sorted(self.bases.items())}
        return d


class _Slots:
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

    def take(self, n: int) -> bool:
        """Hand out ``n`` more slots if the limit allows."""
        if self.used + n > self.limit:
            return False
        self.used += n
        return True

    def give_back(self, n: int) -> None:
        self.used -= n


class _Search:
    """One resumable search: the kernel's arrays and its context."""

    def __init__(self, r: np.ndarray, s: np.ndarray, slots: _Slots, prune: int, order: int = 0):
        self.r = r
        self.start = s.copy()
        self.s = s.copy()
        self.slots = slots
        slots.take(slots.first)  # always granted: the first tables of all searches fit together
        self.table = np.zeros((slots.first, 2), np.uint64)
        self.starved = False
        self.comp = np.zeros((FIRST_DEPTH, 3), np.int64)
        self.scc = np.zeros(FIRST_DEPTH, np.int64)
        self.ph = np.zeros(K.PH_SIZE, np.uint64)
        self.kids = np.empty(FIRST_DEPTH * 8, np.int16)
        self.kid_off = np.zeros(FIRST_DEPTH, np.int32)
        self.kid_n = np.zeros(FIRST_DEPTH, np.int16)
        self.kid_i = np.zeros(FIRST_DEPTH, np.int16)
        self.tokens = np.zeros(FIRST_DEPTH, np.int32)
        self.ctx = np.zeros(K.CTX_SIZE, np.int64)
        self.ctx[K.C_ORDER] = order
        self.prune = prune

    def restart(self, order: int) -> None:
        """Search again from the start in move order ``order``, keeping the table's proved losses.

        Positions an earlier round left open are searched again; only with
        the path-dependent same-card rule, which proves nothing, does the
        table start empty.
        """
        self.s = self.start.copy()
        stored, next_round = int(self.ctx[K.C_STORED]), int(self.ctx[K.C_ROUND]) + 1
        if self.prune & K.PRUNE_SAME_CARD:
            self.table[:] = 0
            stored = 0
        self.ctx[:] = 0
        self.ctx[K.C_ROUND] = next_round
        self.ctx[K.C_ORDER] = order
        self.ctx[K.C_STORED] = stored

    def dead(self) -> np.ndarray:
        """The keys of the positions this search's rounds proved lost."""
        if self.prune & K.PRUNE_SAME_CARD:
            return np.zeros(0, np.uint64)
        return K.dead_keys(self.table)

    @property
    def nodes(self) -> int:
        return int(self.ctx[K.C_NODES])

    @property
    def status(self) -> int:
        return int(self.ctx[K.C_STATUS])

    def run(self, pause_at: int) -> int:
        """Search on until a verdict, ``pause_at`` nodes, or a full table that cannot grow.

        ``starved`` tells whether a full table could not grow because other
        searches of the call hold the slots (not because of the limit itself).
        """
        self.starved = False
        while True:
            status = int(
                K.search(self.s, self.r, self.ph, self.table, self.kids, self.kid_off, self.kid_n,
                         self.kid_i, self.tokens, self.comp, self.scc, self.ctx, pause_at,
                         int(self.table.shape[0] * LOAD_LIMIT), self.prune)
            )
            size = self.table.shape[0]
            if status == K.TABLE_FULL and 2 * size <= self.slots.limit:
                if not self.slots.take(size):
                    self.starved = True
                    return status
                bigger = np.zeros((self.table.shape[0] * 2, 2), np.uint64)
                K.rehash(self.table, bigger, self.scc, self.ctx[K.C_SCC_TOP])
                self.table = bigger
            elif status == K.TOO_DEEP and self.tokens.shape[0] < MAX_DEPTH:
                self._grow_stack()
            elif status == K.SCC_FULL:
                scc = np.zeros(2 * self.scc.shape[0], np.int64)
                scc[: self.scc.shape[0]] = self.scc
                self.scc = scc
            else:
                return status
            self.ctx[K.C_STATUS] = K.PAUSED

    def _grow_stack(self) -> None:
        """Double the path arrays (depth-first paths can run to millions of moves)."""
        d = self.tokens.shape[0]
        for name in ("kid_off", "kid_n", "kid_i", "tokens", "comp"):
            old = getattr(self, name)
            new = np.zeros((2 * d,) + old.shape[1:], old.dtype)
            new[:d] = old
            setattr(self, name, new)
        if self.kids.shape[0] < 8 * 2 * d:
            kids = np.empty(max(2 * self.kids.shape[0], 16 * d), np.int16)
            kids[: self.kids.shape[0]] = self.kids
            self.kids = kids

    def moves(self) -> list[Move]:
        return [Move.from_action(int(t) & 255) for t in self.tokens[: self.ctx[K.C_DEPTH]]]

    def free(self) -> None:
        """Give the table's slots back to the call's other searches."""
        self.slots.give_back(self.table.shape[0])
        self.table = np.zeros((0, 2), np.uint64)


def _check_table_size(table_size: int) -> None:
    if table_size < 1024 or table_size & (table_size - 1):
        raise ValueError(f"table size must be a power of two of at least 1024, not {table_size}")


def _run_until(search: _Search, node_limit: int, deadline: float) -> str | None:
    """Resume ``search`` in slices until a verdict, ``node_limit`` nodes or ``deadline``; None if unresolved."""
    while True:
        pause = min(node_limit, search.nodes + SLICE_NODES)
        status = search.run(pause)
        if status == K.WON:
            return WON
        if status == K.LOST:
            return LOST
        if status != K.PAUSED or search.nodes >= node_limit or clock() >= deadline:
            return None


def _fixed_base_problems(game: Game, s: np.ndarray) -> list[int] | None:
    """The base ranks to try, shallowest first, if the base is still to choose; else None."""
    if game.rules.foundation_base != FoundationBase.FIRST_CARD_SHARED:
        return None
    if s[E.S_BASE] >= 0 or int(E.cards_home(s)) > 0:
        return None
    depth = np.zeros(13, np.int64)
    K.base_card_depths(s, game.rules_array, depth)
    return sorted(range(13), key=lambda b: (int(depth[b]), b))


def _with_base(s: np.ndarray, base: int) -> np.ndarray:
    t = s.copy()
    t[E.S_BASE : E.S_BASE + 4] = base
    return t


def solve(
    game: Game | str,
    state_or_position: State | Position,
    budget_nodes: int = DEFAULT_BUDGET_NODES,
    budget_seconds: float = DEFAULT_BUDGET_SECONDS,
    table_size: int = DEFAULT_TABLE_SIZE,
    prune: int = K.PRUNE_DEFAULT,
    bases: bool = False,
    shorten: bool = True,
) -> SolveResult:
    """Solve one position: ``won`` with a replayed move list, ``lost`` (proved) or ``unknown``.

    ``budget_nodes`` and ``budget_seconds`` (CPU seconds) bound the whole call (all bases
    together); ``table_size`` bounds the transposition tables' slots (a
    power of two, 16 bytes each: key and component mark; with several
    problems, all their tables together); ``prune`` the bits of
    :mod:`sim.solver_kernels`' pruning switches. ``bases=True`` (games whose
    base is chosen) solves every base rank and reports each verdict.
    ``shorten`` passes a win through :func:`shorten_line` (the depth-first
    line is often thousands of moves long).
    """
    game = Game(game) if isinstance(game, str) else game
    if isinstance(state_or_position, State):
        s = state_or_position._s.copy()
    else:
        s = State.from_position(game.rules, state_or_position)._s.copy()
    start = clock()
    deadline = start + budget_seconds
    _check_table_size(table_size)
    order = _fixed_base_problems(game, s)
    if order is None:
        if bases:
            raise ValueError(f"{game.rules.slug}: the base is not to be chosen here; --bases does not apply")
        problems = {None: s}
    else:
        problems = {b: _with_base(s, b) for b in order}
    result = _solve_rounds(game, problems, budget_nodes, deadline, table_size, prune, bases)
    result.seconds = clock() - start
    if result.result == WON:
        if shorten:
            result.moves = shorten_line(game, s, result.moves)
        _confirm(game, s, result.moves)
    return result


def _solve_rounds(game, problems, budget_nodes, deadline, table_size, prune, all_problems) -> SolveResult:
    """Search each problem in rounds of growing node budgets, restarting each round in a new move order.

    Search times of won deals are heavy-tailed in the move order, so short
    searches in several orders find most wins far sooner than one long one.
    Each round of a problem starts with the positions earlier rounds proved
    lost (closed components, see ``sim/pruning.md``), so a proof of loss
    costs about one exhaustive search however many rounds it spans. When one
    problem is left and the round after this one could not finish in the
    time left, this round is the last and gets all the budget that is left:
    a loss that needs the whole budget can still be proved, instead of the
    budget running out at the start of a round too big to finish.
    ``problems`` maps a key (a base rank, or None) to a start state; any won
    problem settles the deal, "lost" needs every problem lost. Their tables
    share ``table_size`` slots (:class:`_Slots`); a problem starved of slots
    waits, open, for a settled one to free its table.
    """
    verdicts = {key: UNKNOWN for key in problems}
    searches: dict = {}  # per open problem, its search: rounds restart it, keeping what it proved lost
    slots = _Slots(table_size, len(problems))  # table_size bounds the tables of all problems together
    spent = 0
    moves: list[Move] = []
    per_problem = FIRST_ROUND_NODES
    round_no = 0
    rate = 0.0
    while True:
        open_keys = [key for key in problems if verdicts[key] == UNKNOWN]
        if not open_keys:
            break
        all_starved = True
        for key in open_keys:
            left = budget_nodes - spent
            now = clock()
            if left <= 0 or now >= deadline:
                break
            limit = min(per_problem, left)
            if len(open_keys) == 1 and rate > 0:
                if limit * (1 + ROUND_GROWTH) > min(left, rate * (deadline - now)):
                    limit = left  # the last round: all that is left
            search = searches.get(key)
            if search is None:
                search = searches[key] = _Search(game.rules_array, problems[key], slots, prune, order=round_no)
            else:
                search.restart(round_no)
            verdict = _run_until(search, limit, deadline)
            spent += search.nodes
            if search.nodes >= SLICE_NODES:  # nodes per second, from searches long enough to time (never the first, which may compile)
                rate = search.nodes / max(clock() - now, 1e-9)
            all_starved = all_starved and search.starved
            if verdict is None and search.status in (K.TABLE_FULL, K.TOO_DEEP) and not search.starved:
                verdict = UNKNOWN + "!"  # cannot be settled with the table or path allowed: do not retry
            if verdict is not None:
                verdicts[key] = verdict
                searches.pop(key).free()  # settled (or never will be): its slots go to the others
            if verdict == WON and not moves:
                moves = search.moves()
                if not all_problems:
                    return SolveResult(WON, moves, spent)
        if budget_nodes - spent <= 0 or clock() >= deadline or all_starved:
            break  # all_starved: every open problem waits for slots another one holds
        per_problem = int(per_problem * ROUND_GROWTH)
        round_no += 1
    final = {key: (v if v in (WON, LOST) else UNKNOWN) for key, v in verdicts.items()}
    if WON in final.values():
        overall = WON
    elif all(v == LOST for v in final.values()):
        overall = LOST
    else:
        overall = UNKNOWN
    return SolveResult(overall, moves if overall == WON else [], spent, bases=final if all_problems else None)


SHORTEN_DEPTH = 3  #: how many moves ahead :func:`shorten_line` looks for a later position of the line
SHORTEN_PASSES = 4  #: passes at most (each pass starts from the previous one's line)


def shorten_line(game: Game, s: np.ndarray, moves: list[Move], depth: int = SHORTEN_DEPTH) -> list[Move]:
    """A shorter winning line through the same positions: shortcuts of up to ``depth`` moves, in passes.

    Sound by construction (every move is generated legal from the position
    reached, and the caller replays the result in both engines); not optimal.
    """
    actions = np.array([m.action for m in moves], np.int64)
    for _ in range(SHORTEN_PASSES):
        out = np.empty(max(len(actions), 1), np.int64)
        n = int(K.shorten(s.copy(), game.rules_array, actions, len(actions), depth, out))
        if n < 0 or n >= len(actions):
            break
        actions = out[:n]
    return [Move.from_action(int(a)) for a in actions]


def _confirm(game: Game, s: np.ndarray, moves: list[Move]) -> None:
    """Replay a win in the compiled engine and in the reference engine; raise on any mismatch."""
    state = State(game.rules, s.copy())
    pos = state.position()
    for i, m in enumerate(moves):
        try:
            state.push(m)
            pos = reference.play(game.rules, pos, m)
        except ValueError as e:
            raise ReplayError(f"move {i + 1} ({m}) of the solver's win does not replay: {e}") from None
        if pos.key() != state.position().key():
            raise ReplayError(f"engines disagree after move {i + 1} ({m})")
    if not (state.is_won() and reference.is_won(pos)):
        raise ReplayError(f"the solver's win ends with {state.cards_home}/52 cards home")


def solve_deal(game: Game | str, seed: int = DEFAULT_SEED, deal: int | str = 0, **params) -> SolveResult:
    """Solve deal ``deal`` of seed ``seed``: the function the runner wraps as the player ``solver``."""
    game = Game(game) if isinstance(game, str) else game
    return solve(game, game.deal(deal, seed), **params)
