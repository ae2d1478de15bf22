"""Is this deal winnable? :func:`solve` answers, and proves a win by replaying it.

``won`` comes with the moves, ``lost`` is proved (no move sequence wins),
``unknown`` means a budget ran out. The search is the compiled depth-first
search of :mod:`sim.kernels.search`, scheduled in rounds by :mod:`.rounds`;
a win is shortened (:mod:`.shorten`) and replayed move by move in both
engines before it is reported.

Selective Castle is solved as its 13 fixed-base problems (a position before
any foundation move is the same in all of them; base ``b`` means the first
card founded has rank ``b``), tried shallowest base cards first in the same
rounds: one winning base settles the deal, and "lost" needs all thirteen
proved lost. A single search whose first foundation move picks the base
gets lost in the subtree of whichever base it tries first: on 30 deals
such a search left 18 Selective Castle deals unresolved at 20 million
nodes each, where the 13 problems in growing rounds resolved 29.

>>> from sim.game import Game
>>> result = solve(Game("beleaguered-castle"), Game("beleaguered-castle").deal(3))
>>> result.result in ("won", "lost")
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from ..core import reference
from ..core.board import Position
from ..core.cards import RANKS
from ..core.deals import DEFAULT_SEED
from ..game import Game, State
from ..core.moves import Move
from ..core.outcome import Result
from ..core.rules import FoundationBase
from ..kernels import layout
from ..kernels import pruning
from ..kernels import search as search_kernel
from ..core.limits import DEFAULT_BUDGET_NODES, DEFAULT_BUDGET_SECONDS, DEFAULT_TABLE_SIZE, check_limits
from .rounds import Budget, clock, solve_rounds
from .shorten import shorten_line


class ReplayError(AssertionError):
    """A win the solver reported did not replay to 52 cards home: a solver or engine bug."""


@dataclass
class SolveResult:
    """The verdict, the winning moves (empty unless won), effort spent, and per-base verdicts."""

    result: Result
    moves: list[Move] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0  #: CPU seconds the search took (shortening and replaying the win not counted)
    bases: dict[int, Result] | None = None
    most_home: int | None = None  #: with ``most_home``: the most cards home of any position searched (52 if won)

    def to_dict(self) -> dict:
        d = {"result": str(self.result), "moves": [str(m) for m in self.moves], "nodes": self.nodes, "seconds": round(self.seconds, 4)}
        if self.most_home is not None:
            d["most_home"] = self.most_home
        if self.bases is not None:
            d["bases"] = {RANKS[b]: str(v) for b, v in sorted(self.bases.items())}
        return d


def base_to_choose(rules, s: np.ndarray) -> bool:
    """Is the shared base of this position still to be chosen (so :func:`solve` splits it by base)?"""
    return rules.foundation_base == FoundationBase.FIRST_CARD_SHARED and s[layout.S_BASE] < 0 and int(layout.cards_home(s)) == 0


def _fixed_base_problems(game: Game, s: np.ndarray) -> dict:
    """The problems of one position: itself, or one per base rank (shallowest base cards first) while the base is to choose."""
    if not base_to_choose(game.rules, s):
        return {None: s}
    depth = np.zeros(13, np.int64)
    search_kernel.base_card_depths(s, game.rules_array, depth)
    problems = {}
    for b in sorted(range(13), key=lambda b: (int(depth[b]), b)):
        problems[b] = s.copy()
        problems[b][layout.S_BASE : layout.S_BASE + 4] = b
    return problems


def solve(
    game: Game | str,
    state_or_position: State | Position,
    budget_nodes: int = DEFAULT_BUDGET_NODES,
    budget_seconds: float = DEFAULT_BUDGET_SECONDS,
    table_size: int = DEFAULT_TABLE_SIZE,
    prune: int = pruning.PRUNE_DEFAULT,
    bases: bool = False,
    shorten: bool = True,
    progress=None,
    portfolio: bool = True,
    most_home: bool = False,
    dead_end: bool = False,
) -> SolveResult:
    """Solve one position: ``won`` with a replayed move list, ``lost`` (proved) or ``unknown``.

    ``budget_nodes`` and ``budget_seconds`` (CPU seconds) bound the whole call (all bases
    together); ``table_size`` bounds the transposition tables' slots (a
    power of two, 16 bytes each: key and component mark; with several
    problems, all their tables together; a table full at that limit forgets
    its cheapest proved losses and goes on, ``FORGET_LOST``); ``prune`` the bits of
    :mod:`sim.kernels.search`' pruning switches. ``bases=True`` (games whose
    base is chosen) solves every base rank and reports each verdict.
    ``shorten`` passes a win through :func:`~.shorten.shorten_line` (the depth-first
    line is often thousands of moves long). ``progress(nodes, settled, problems,
    seconds_left)`` is called as the search goes (``castle solve`` draws it on a terminal).
    ``portfolio`` gives a deal the depth-first search has not settled within
    a million positions (about a second) to the strongest beam of the ladder
    once, and one still open after ten million to a wider beam
    (:data:`PORTFOLIO`): some deals whose depth-first search is heavy-tailed
    are wins a beam finds in a fraction of a second. A beam's win, like any,
    is replayed in both engines before it counts; a beam never proves a loss.
    ``most_home`` also finds the most cards any reachable position has home
    (exact for a deal proved lost, a lower bound when unknown, 52 when won):
    every pruning rule and the portfolio are off, so the search sees every
    position it can reach. ``dead_end`` adds pruning rule 5 (``PRUNE_DEAD_END``:
    a position from which no card can ever go home again is lost; off by
    default so that the study's runs, played without it, keep their label).
    """
    game = Game(game) if isinstance(game, str) else game
    state = state_or_position if isinstance(state_or_position, State) else State.from_position(game.rules, state_or_position)
    s = state.array.copy()
    problem = check_limits(budget_nodes, budget_seconds, table_size)
    if problem:
        raise ValueError(problem)
    if bases and not base_to_choose(game.rules, s):
        raise ValueError(f"{game.rules.slug}: the base is not to be chosen here; --bases does not apply")
    if dead_end:
        prune |= pruning.PRUNE_DEAD_END
    if most_home:
        prune, portfolio = pruning.TRACK_HOME | pruning.FORGET_LOST, False
    start = clock()
    searched = [0]  # the positions searched so far, as the rounds report them (the beams' pace is taken from it)

    def heard(nodes: int, settled: int, problems: int, left: float) -> None:
        searched[0] = nodes
        if progress is not None:
            progress(nodes, settled, problems, left)

    side = tuple((after, partial(_portfolio_beam, game, s, beam, start, start + budget_seconds, searched))
                 for after, beam in PORTFOLIO) if portfolio and not bases else ()
    budget = Budget(budget_nodes, start + budget_seconds, table_size)
    found = solve_rounds(game.rules_array, _fixed_base_problems(game, s), budget, prune, bases, heard if side else progress, side)
    seconds = clock() - start
    moves = found.moves
    if found.result is Result.WON:
        if shorten:
            moves = shorten_line(game, s, moves)
        confirm(game, s, moves)
    return SolveResult(found.result, moves, found.nodes, seconds, found.verdicts, found.most_home if most_home else None)


#: the portfolio: after how many positions of depth-first search a deal still open goes to which beam (in
#: positions, not seconds, so a verdict under a node budget is the same on any machine). The first is the
#: ladder's strongest rung; of the deals a 60 s search left unknown, it won 24 of 42, the second 30.
PORTFOLIO = ((1_000_000, "beam:width=32,budget=4000000"), (10_000_000, "beam:width=64,budget=16000000"))


#: the fewest positions a beam cut short by the deadline is still given; below it the beam is skipped
MIN_BEAM_NODES = 10_000


def _portfolio_beam(game: Game, s: np.ndarray, beam: str, start: float, deadline: float, searched: list[int]) -> list[Move] | None:
    """A portfolio beam's winning line from ``s``, or None; within the solve's deadline.

    The beam runs inside one compiled call that cannot watch the clock, so
    its node budget is fitted to the time left: a beam's position costs
    about what a position of the depth-first search has cost so far (0.8
    to 1.1 times, measured), so a beam whose whole budget would not fit
    before the deadline gets the positions that do, and is skipped when
    fewer than :data:`MIN_BEAM_NODES` do. A beam that fits is run exactly as
    asked, so verdicts reached before the deadline are those of the beam's
    full budget (the study's runs, whose budgets in seconds never bind).
    """
    from ..players.registry import choose_player, parse_player

    choice = parse_player(beam)
    now = clock()
    pace = (now - start) / max(searched[0], 1)  # CPU seconds per position so far
    budget = int(choice.params["budget"])
    if budget * pace > deadline - now:
        budget = int((deadline - now) / pace) if pace > 0 else budget
        if budget < MIN_BEAM_NODES:
            return None
        choice = choose_player(choice.name, {**choice.params, "budget": budget})
    return _beam_line(game, s, choice)


def _beam_line(game: Game, s: np.ndarray, beam) -> list[Move] | None:
    """A beam's game from ``s`` (``beam``: a player text or choice): its moves if it won, else None."""
    from ..players.loop import play
    from ..players.registry import parse_player

    choice = parse_player(beam) if isinstance(beam, str) else beam
    record = play(State(game.rules, s.copy()), choice.make(), choice.max_moves)
    return record.moves if record.result is Result.WON else None


def confirm(game: Game, s: np.ndarray, moves: list[Move]) -> None:
    """Replay a win in the compiled engine and in the reference engine; raise :class:`ReplayError` on any mismatch."""
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
    """Solve deal ``deal`` of seed ``seed``."""
    game = Game(game) if isinstance(game, str) else game
    return solve(game, game.deal(deal, seed), **params)
