"""A played game judged by the solver: its first losing move, what would have kept the deal, a verdict per move.

Winnability can only fall along a game: a position reached from a lost one
is lost, and a position a winnable one is reached from is winnable (the
moves played from it reach a winnable position). So along a game the
positions are winnable up to some point and lost after it, and the move
across that point is **the first mistake**. :func:`review` finds it by
bisection, asking a :class:`~.judge.Judge` (one table and one known-won set
for the deal) about a handful of positions:

1. the start: a deal that is not proved winnable has no mistake to find
   (lost: no move could lose it; unknown: none can be named);
2. the end: a game that ends on a winnable position (won, or stopped where
   it could still be won) lost nothing;
3. between the last position proved winnable (``lo``) and the first proved
   lost (``hi``), the position nearest the middle not yet asked, until the
   two are next to each other: the move from ``lo`` to ``hi`` is the first
   mistake. Every position of the game whose hash the judge already knows
   (a position of a winning line it found, or one it proved lost) moves
   ``lo`` or ``hi`` without a search.

**Unknown verdicts** (a question that ran out of ``budget_nodes``) are never
guessed. The bisection keeps its interval and asks the next position nearest
the middle instead, so one unknown position costs one more question, not the
answer. It stops when every position strictly between ``lo`` and ``hi`` was
asked and left unknown, or after ``max_unknown`` unknown answers: then
``first_mistake`` is None, :attr:`Review.unresolved` is ``(lo, hi)`` and the
note says the deal was lost somewhere between those moves; the moves before
``lo`` are still marked as keeping it, the ones from ``hi`` on as played in a
lost game, and those between as unknown. An end whose verdict is unknown is
treated as one more position to bisect over (``hi`` starts past it).

**Marks**, one per move (:attr:`Review.marks`): ``"keeps"`` (its child is
winnable: every move before the first mistake, by the monotonicity above),
``"loses"`` (the first mistake), ``"lost"`` (played in a game already lost:
after the first mistake, or every move of a deal lost from the start; such a
move neither keeps nor loses anything) and ``"unknown"`` (a deal the solver
could not settle, or the moves of an unresolved interval).

**Alternatives**: at the first mistake's position every legal move is judged
(:meth:`~.judge.Judge.judge`); those that keep the deal winnable are
:attr:`Review.alternatives`. **Critical** moves: at each position of a won
game (by default; the winnable part of any game with ``critical=True``)
every move is judged as the corridor does (:class:`~.corridor.Step`); a
position is critical where exactly one move (one resulting position) keeps
the deal winnable.

>>> from sim.game import Game
>>> g = Game("streets-and-alleys")
>>> r = review(g, g.deal(4), "1-F 7-1 7-F 1-F 1-F 5-4 6-3 2-7 2-1".split())  # greedy's game
>>> r.first_mistake, [str(m) for m in r.alternatives], r.marks[4:7]
(5, ['2-7', '7-5', '7-8'], ['keeps', 'loses', 'lost'])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..game import Game, State
from ..core.moves import IllegalMoveError, Move
from ..core.outcome import Result
from .corridor import Step
from .judge import KEEPS, LOSES, QUESTION_NODES, UNKNOWN, Judge, Judged
from .rounds import clock

LOST = "lost"  #: the mark of a move played in a game already lost (it neither keeps nor loses anything)
MAX_UNKNOWN = 8  #: unknown answers the bisection takes before it leaves the interval unresolved


@dataclass
class Review:
    """What the solver says about one played game (see the module's docstring)."""

    start: Result  #: the deal's verdict at the start
    moves: list[Move]
    marks: list[str]  #: one per move: "keeps", "loses", "lost" or "unknown"
    first_mistake: int | None = None  #: index into ``moves`` of the first losing move
    alternatives: list[Move] = field(default_factory=list)  #: the moves that keep the deal at the first mistake's position
    judged: list[Judged] = field(default_factory=list)  #: every legal move there, judged
    end: Result | None = None  #: the verdict of the game's last position (None: not asked)
    winnable_until: int | None = None  #: the last position (index: after that many moves) proved winnable
    lost_from: int | None = None  #: the first position proved lost
    unresolved: tuple[int, int] | None = None  #: (lo, hi): the first mistake is one of moves lo..hi-1, not settled
    critical: list[int] | None = None  #: moves played at critical positions (None: not judged)
    kind: str | None = None  #: what the first mistake did (:func:`.kinds.kind`), the solver's verdict aside
    steps: list[Step] = field(default_factory=list)  #: the positions judged move by move for ``critical``
    note: str = ""  #: one sentence saying what was found
    questions: int = 0  #: positions asked by the bisection
    unknown: int = 0  #: of which left unknown
    nodes: int = 0
    seconds: float = 0.0

    @property
    def counts(self) -> dict[str, int]:
        """How many moves have each mark."""
        out = {KEEPS: 0, LOSES: 0, LOST: 0, UNKNOWN: 0}
        for m in self.marks:
            out[m] = out.get(m, 0) + 1
        return out

    @property
    def why(self) -> str | None:
        """Why the first mistake lost the deal, in a short phrase (:data:`.kinds.WHY`)."""
        from .kinds import WHY

        return None if self.kind is None else WHY[self.kind]

    def to_dict(self) -> dict:
        """The review as JSON: every move **numbered from 1**, as the text says it (``first_mistake``: the losing move's
        number; ``critical``: the critical moves' numbers; ``unresolved``: the first and last move the mistake may be).
        The Python fields (:attr:`first_mistake`, :attr:`critical`, :attr:`unresolved`) are indices from 0."""
        n = len(self.moves)
        return {"start": str(self.start), "end": None if self.end is None else str(self.end),
                "first_mistake": None if self.first_mistake is None else self.first_mistake + 1,
                "kind": self.kind, "why": self.why, "keeps_instead": [str(m) for m in self.alternatives],
                "marks": list(self.marks), "critical": None if self.critical is None else [i + 1 for i in self.critical],
                "unresolved": [self.unresolved[0] + 1, min(self.unresolved[1], n)] if self.unresolved else None,
                "note": self.note, "counts": self.counts, "questions": self.questions, "unknown": self.unknown,
                "nodes": self.nodes, "seconds": round(self.seconds, 3)}


def _moves_of(moves) -> list[Move]:
    return [m if isinstance(m, Move) else Move.from_str(m) if isinstance(m, str) else Move.from_action(int(m)) for m in moves]


def replay_moves(state: State, moves) -> tuple[list[Move], State, list]:
    """``moves`` (Moves, their text, or action ints) played from a copy of ``state``: the moves, the last state, and
    the array of every position from the first. A move not legal where it is played raises
    :class:`~sim.core.moves.IllegalMoveError` naming it by its number (the one replay of castle replay and review)."""
    moves = _moves_of(moves)
    walk = state.copy()
    arrays = [walk.array.copy()]
    for i, m in enumerate(moves):
        try:
            walk.push(m)
        except IllegalMoveError as e:
            raise IllegalMoveError(f"move {i + 1} ({m}): {e}") from None
        arrays.append(walk.array.copy())
    return moves, walk, arrays


def review(game: Game | str, state: State, moves, judge: Judge | None = None, budget_nodes: int = QUESTION_NODES,
           critical: bool | None = None, max_unknown: int = MAX_UNKNOWN) -> Review:
    """Judge the game ``moves`` (Moves, their text, or action ints) played from ``state`` (left as it is).

    ``judge``: one already holding what earlier questions about this deal taught it (it is not freed);
    otherwise one is made with ``budget_nodes`` positions a question and freed at the end. ``critical``:
    judge every move of every position to find the critical ones: None (the default) for a won game only,
    True also along the winnable part of any game, False never. A move that is not legal where it is
    played raises :class:`~sim.core.moves.IllegalMoveError` naming it.
    """
    game = Game(game) if isinstance(game, str) else game
    moves, walk, arrays = replay_moves(state, moves)
    own = judge is None
    judge = judge or Judge(game, budget_nodes=budget_nodes)
    nodes0, seconds0 = judge.stats.nodes, clock()
    try:
        out = _review(judge, arrays, moves, walk.is_won(), critical, max_unknown)
    finally:
        if own:
            judge.free()
    out.nodes = judge.stats.nodes - nodes0
    out.seconds = clock() - seconds0
    if out.first_mistake is not None:
        from .kinds import kind

        k = out.first_mistake
        out.kind = kind(State(state.rules, arrays[k].copy()), moves[k], out.alternatives)
    return out


def _review(judge: Judge, arrays: list, moves: list[Move], won: bool, critical: bool | None, max_unknown: int) -> Review:
    n = len(moves)
    asked: dict[int, Result] = {}

    def ask(i: int) -> Result:
        if i not in asked:
            asked[i] = judge.verdict(arrays[i])
        return asked[i]

    if won:  # the game itself proves every position of it winnable
        rev = Review(Result.WON, moves, [KEEPS] * n, end=Result.WON, winnable_until=n,
                     note="won: every move kept the deal winnable")
        if critical is not False:
            judge.learn_line(arrays[0], moves)
            _critical(judge, arrays, moves, n, rev)
        return rev
    start = ask(0)
    if start is Result.LOST:
        return _done(Review(start, moves, [LOST] * n, lost_from=0,
                            note="the deal itself is lost (proved): no move could lose it"), asked)
    end = ask(n) if n else start
    if start is Result.UNKNOWN:
        if end is Result.WON:  # a winnable position is reached: the start was winnable too
            start = Result.WON
        else:
            return _done(Review(start, moves, [UNKNOWN] * n, end=end,
                                note=f"the solver could not settle the deal within its budget ({judge.budget:,} positions a question): no mistake can be named"), asked)
    if end is Result.WON:
        return _done(_prefix(Review(Result.WON, moves, [KEEPS] * n, end=end, winnable_until=n,
                                    note="the game ended on a winnable position: no move lost the deal"),
                             judge, arrays, critical), asked)
    hashes = [judge.hash(a) for a in arrays]
    lo, hi = 0, n if end is Result.LOST else n + 1  # hi = n + 1: no position proved lost yet
    unknown = sum(v is Result.UNKNOWN for v in asked.values())
    while hi - lo > 1:
        lo = next((i for i in range(hi - 1, lo, -1) if hashes[i] in judge.won), lo)
        hi = next((i for i in range(lo + 1, hi) if hashes[i] in judge.lost), hi)
        todo = [i for i in range(lo + 1, min(hi, n + 1)) if i not in asked]
        if hi - lo <= 1 or not todo or unknown >= max_unknown:
            break
        mid = (lo + hi) // 2
        i = min(todo, key=lambda i: (abs(i - mid), i))
        v = ask(i)
        if v is Result.WON:
            lo = i
        elif v is Result.LOST:
            hi = i
        else:
            unknown += 1
    if lo >= n:  # the end became known won meanwhile (a line found later passes through it)
        return _done(_prefix(Review(Result.WON, moves, [KEEPS] * n, end=Result.WON, winnable_until=n,
                                    note="the game ended on a winnable position: no move lost the deal"),
                             judge, arrays, critical), asked)
    rev = Review(Result.WON, moves, [KEEPS] * lo, end=end, winnable_until=lo, lost_from=hi if hi <= n else None)
    if hi - lo == 1 and hi <= n:
        judge.learn_line(arrays[0], moves[:lo])  # positions 0..lo are winnable: their moves are cheap to judge
        rev.first_mistake = lo
        rev.marks += [LOSES] + [LOST] * (n - hi)
        rev.judged = judge.judge(arrays[lo], before=hashes[lo - 1] if lo else None)
        rev.alternatives = [j.move for j in rev.judged if j.verdict == KEEPS]
        rev.note = (f"move {lo + 1} ({moves[lo]}) lost the deal: the position before it is winnable, the one after it lost"
                    + ("" if rev.alternatives else "; no other move was proved to keep it"))
    else:
        rev.unresolved = (lo, hi)
        rev.marks += [UNKNOWN] * (min(hi, n) - lo) + [LOST] * (n - min(hi, n))
        upto = f"move {hi}" if hi <= n else "the end"
        rev.note = (f"the deal was lost somewhere from move {lo + 1} to {upto}: the positions between could not be "
                    f"settled within the budget ({judge.budget:,} positions a question)")
    return _done(_prefix(rev, judge, arrays, critical), asked)


def _done(rev: Review, asked: dict) -> Review:
    rev.questions = len(asked)
    rev.unknown = sum(v is Result.UNKNOWN for v in asked.values())
    return rev


def _prefix(rev: Review, judge: Judge, arrays: list, critical: bool | None) -> Review:
    """The winnable part of a game (positions 0..``winnable_until``) known won; with ``critical=True``, judged move by move."""
    k = rev.winnable_until or 0
    judge.learn_line(arrays[0], rev.moves[:k])
    if critical:
        _critical(judge, arrays, rev.moves, k, rev)
    return rev


def _critical(judge: Judge, arrays: list, moves: list[Move], k: int, rev: Review) -> None:
    """Every move of positions 0..k-1 judged (the move played there keeps the deal), and the first mistake's
    position if there is one: the critical positions, where exactly one move keeps the deal winnable."""
    steps, before = [], None
    for i in range(k):
        steps.append(Step(i, moves[i], judge.judge(arrays[i], before=before, line_move=moves[i].action)))
        before = judge.hash(arrays[i])
    if rev.first_mistake is not None:
        steps.append(Step(rev.first_mistake, moves[rev.first_mistake], rev.judged))
    rev.steps = steps
    rev.critical = [s.index for s in steps if s.critical]
