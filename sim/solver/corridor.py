"""The corridor of a won deal: its winning line with every move of every position judged, and its difficulty index.

**The difficulty index** is the bits of luck a player needs to stay in the
corridor: at each position of the winning line, of the ``k`` different
positions its sensible moves lead to, ``g`` are still winnable; a player
choosing uniformly among those ``k`` stays on a winnable path with
probability ``g / k``, and the index is the sum of ``log2(k / g)`` along the
line. A deal where every sensible move keeps it winnable scores 0; each
position where only one of four choices keeps it adds 2 bits.

*Why this definition.* It counts only what the solver proves (which moves
lose), never a player's heuristics, so it cannot be tuned to the ladder it is
then compared with. It weighs a position by how narrow its door is (one
winning move of eight costs 3 bits, one of two costs 1), not by how many
moves the deal takes, and it adds up over positions as independent choices
would. It reads "how lucky would a careless but sensible player have to be",
the question behind a "solvable factor". Its limits, said here once: it
follows one winning line (the solver's, shortened), where a player might
find another corridor; "sensible" excludes only taking back the move just
made (and counts moves that lead to the same position once); an unknown
move (its question ran out of budget) counts on neither side.

The **decision points** are the positions of the line with at least two
sensible moves; the **critical** ones are those where exactly one leads to a
winnable position (or a set of moves all leading to one position, such as a
card put on either of two empty piles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..game import Game, State
from ..players.record import GameRecord
from ..core.moves import Move
from ..core.outcome import Result
from ..kernels import apply_undo
from .judge import KEEPS, LOSES, UNKNOWN, Judge, Judged


@dataclass
class Step:
    """One position of the winning line: the line's move there and every move judged."""

    index: int
    move: Move
    judged: list[Judged]

    def _distinct(self, verdicts: tuple[str, ...]) -> int:
        return len({j.child for j in self.judged if not j.reversal and j.verdict in verdicts})

    @property
    def choices(self) -> int:
        """Different positions the sensible moves lead to (unknowns aside)."""
        return self._distinct((KEEPS, LOSES))

    @property
    def keeps(self) -> int:
        """Different winnable positions among them."""
        return self._distinct((KEEPS,))

    @property
    def decision(self) -> bool:
        return self.choices >= 2

    @property
    def critical(self) -> bool:
        return self.decision and self.keeps == 1

    @property
    def bits(self) -> float:
        return math.log2(self.choices / self.keeps) if self.decision and self.keeps else 0.0

    @property
    def losing(self) -> list[Move]:
        return [j.move for j in self.judged if j.verdict == LOSES]


@dataclass
class Corridor:
    """A deal's verdict and, when won, its line with every position's moves judged."""

    result: Result
    steps: list[Step] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    questions: int = 0
    searched: int = 0
    unknown: int = 0
    budget_nodes: int = 0

    @property
    def line(self) -> list[Move]:
        return [s.move for s in self.steps]

    @property
    def difficulty(self) -> float:
        """The index (bits of luck; see the module's docstring); nan for a deal not won."""
        return sum(s.bits for s in self.steps) if self.result is Result.WON else math.nan

    @property
    def decision_points(self) -> int:
        return sum(s.decision for s in self.steps)

    @property
    def critical(self) -> int:
        return sum(s.critical for s in self.steps)

    def summary(self) -> dict:
        return {"result": str(self.result), "difficulty": round(self.difficulty, 3) if self.result is Result.WON else None,
                "decision_points": self.decision_points, "critical": self.critical, "moves": len(self.steps),
                "questions": self.questions, "searched": self.searched, "unknown": self.unknown, "nodes": self.nodes,
                "seconds": round(self.seconds, 3)}


def corridor(game: Game | str, state: State, line: list[Move] | None = None, judge: Judge | None = None,
             solve_nodes: int = 60_000_000, solve_seconds: float = 600.0) -> Corridor:
    """Judge every move along a winning line of ``state`` (the solver's, unless ``line`` is given).

    A deal the solver does not win (lost, or unknown within ``solve_nodes``) has no corridor: its result alone.
    """
    from .answer import solve
    from .rounds import clock

    game = Game(game) if isinstance(game, str) else game
    own = judge is None
    judge = judge or Judge(game)
    start = clock()
    nodes = 0
    if line is None:
        res = solve(game, state, budget_nodes=solve_nodes, budget_seconds=solve_seconds, dead_end=True)
        nodes = res.nodes
        if res.result is not Result.WON:
            return Corridor(res.result, nodes=nodes, seconds=clock() - start)
        line = res.moves
    s = state.array.copy()
    judge.learn_line(s, line)
    steps = []
    before = None
    for i, move in enumerate(line):
        here = judge.hash(s)
        steps.append(Step(i, move, judge.judge(s, before=before, line_move=move.action)))
        before = here
        apply_undo.apply(s, judge.r, move.action)
    st = judge.stats
    out = Corridor(Result.WON, steps, nodes + st.nodes, clock() - start, sum(st.by_how.values()), st.by_how["search"],
                   st.unknown, judge.budget)
    if own:
        judge.free()  # (a judge handed in is the caller's to free: it may have more to ask)
    return out


def play_deal(state: State, seed: int, deal: int, budget_nodes: int, question_nodes: int, look_ahead: int,
              budget_seconds: float, table_size: int, max_moves: int) -> GameRecord:
    """The runner's player ``corridor``: the deal's verdict (its win replayed) with its corridor's figures as columns."""
    from ..players.loop import Scripted, play

    game = Game(state.rules)
    judge = Judge(game, budget_nodes=question_nodes, look_ahead=look_ahead, table_size=table_size)
    c = corridor(game, state.copy(), judge=judge, solve_nodes=budget_nodes, solve_seconds=budget_seconds)
    judge.free()
    record = play(state, Scripted(c.line), max_moves=len(c.line))
    record.result = c.result
    won = c.result is Result.WON
    record.extra = {"nodes": c.nodes, "difficulty": c.difficulty if won else None,
                    "decisions": c.decision_points if won else None, "critical": c.critical if won else None,
                    "questions": c.questions, "searched": c.searched, "unknown_moves": c.unknown, "question_nodes": question_nodes}
    return record
