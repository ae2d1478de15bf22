"""The game a replay page shows, as data: every position from the deal on, the moves, how it ended.

Why apart from the page: this is the part that plays. It runs a player (or
replays a given list of moves), tidies a solver's win for reading
(:mod:`sim.replay.tidy`) and has the solver review the game
(:func:`sim.solver.review.review`); :mod:`sim.replay.page` only draws what it
keeps, so a :class:`Replay` can be made once and drawn, or checked, as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.board import Position
from ..core.deals import DEFAULT_SEED
from ..core.moves import Move
from ..core.rules import Rules
from ..render.svg import moved_card

__all__ = ["Replay", "record_replay"]


@dataclass
class Replay:
    """One game, ready to draw: its positions (start first), the moves between them, how it ended."""

    rules: Rules
    deal: str
    seed: int
    player: str
    result: str
    moves: list[Move]
    positions: list[Position]
    cards: list[int]  #: the card each move took
    legal_at_end: list[Move] = field(default_factory=list)
    extra: dict = field(default_factory=dict)  #: the player's own columns (the solver's nodes)
    path: Path | None = None  #: where :func:`~sim.replay.page.write_replay` wrote the page
    #: a verdict per move (``"keeps"``, ``"loses"``, ``"lost"``, ``"unknown"`` or None), drawn as ``mark-<value>`` classes
    marks: list[str | None] | None = None
    #: the solver's own line's length when ``moves`` is that line tidied for reading (:mod:`sim.replay.tidy`)
    tidied_from: int | None = None
    #: the review's findings (:func:`sim.solver.review.review`): the first losing move (index into ``moves``),
    #: the moves that would have kept the deal there, the critical moves (indexes), and its one-sentence note
    first_mistake: int | None = None
    alternatives: list[Move] = field(default_factory=list)
    critical: list[int] = field(default_factory=list)
    review_note: str | None = None  #: None: not reviewed
    why: str | None = None  #: why the first mistake lost the deal, in a phrase (:attr:`sim.solver.review.Review.why`)

    @property
    def cards_home(self) -> int:
        return self.positions[-1].cards_home

    @property
    def title(self) -> str:
        seed = f" (seed {self.seed})" if self.seed != DEFAULT_SEED and not str(self.deal).startswith("pysol") else ""
        return f"{self.rules.name}, deal {self.deal}{seed}, played by {self.player}"


def record_replay(game, deal: int | str, player: str | None, seed: int = DEFAULT_SEED, *, max_moves: int | None = None,
                  state=None, tidy: bool = True, review: bool = False, moves=None) -> Replay:
    """Play ``deal`` (or ``state``, e.g. a board) with ``player`` and keep every position.

    A solver's win is shown tidied (:func:`~sim.replay.tidy.tidy_line`) unless ``tidy=False``. ``moves``: a
    list of moves (Moves or their text) to replay instead of a player's game; ``player`` is then only the name
    the page gives it (default "a list of moves"); a move not legal where it comes raises
    :class:`~sim.core.moves.IllegalMoveError`. ``review``: the solver judges the game
    (:func:`sim.solver.review.review`): marks, the first mistake and what would have kept the deal, critical moves.
    """
    from ..core.deals import stream_key
    from ..game import Game
    from ..players.loop import play_choice
    from ..players.registry import choose_from_spec, parse_player
    from ..solver.review import replay_moves

    g = Game(game) if isinstance(game, str) else game
    start = g.deal(deal, seed) if state is None else state
    extra: dict = {}
    if moves is not None:
        label, tidied_from = player or "a list of moves", None
        moves, walk, _ = replay_moves(start, moves)
        result = "won" if walk.is_won() else "stuck" if len(walk.legal_moves) == 0 else "gave_up"
    else:
        choice = parse_player(player)
        if max_moves is not None:
            choice = choose_from_spec(choice.spec, {**choice.params, "max_moves": max_moves})
        stream_seed, number = stream_key(deal, seed) if state is None else (seed, 0)
        record = play_choice(choice, start.copy(), stream_seed, number)
        result, label, extra = str(record.result), choice.label, dict(record.extra or {})
        moves, tidied_from = list(record.moves), None
        if tidy and result == "won" and choice.name.startswith("solver"):
            from .tidy import tidy_line

            moves = tidy_line(start, moves)
            tidied_from = len(record.moves)
    walk = start.copy()
    positions, cards = [walk.position()], []
    for m in moves:
        cards.append(moved_card(positions[-1], m, played=False))
        walk.push(m)
        positions.append(walk.position())
    legal = [] if result in ("won", "lost", "unknown") else list(walk.legal_moves)
    rep = Replay(g.rules, str(deal), seed, label, result, moves, positions, cards, legal, extra, tidied_from=tidied_from)
    if review and result not in ("lost", "unknown"):  # a solver's page with no game says its verdict already
        from ..solver.review import review as judge_game

        rev = judge_game(g, start, moves)
        rep.marks, rep.first_mistake, rep.alternatives = list(rev.marks), rev.first_mistake, list(rev.alternatives)
        rep.critical, rep.review_note, rep.why = list(rev.critical or []), rev.note, rev.why
    return rep
