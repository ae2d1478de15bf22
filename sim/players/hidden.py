"""Playing without seeing the face-down cards: PySol deals Castles in Spain with three cards face
down under each pile's top card.

Face-down cards take no move away (a move takes a pile's top card, and a card turns face up as
soon as it is on top), so they cannot change whether a deal is winnable: they only hide cards
from the player. :class:`HiddenCards` plays as a player who cannot see them would: it guesses
the hidden cards ``samples`` times (every arrangement of the unseen cards in the hidden places
equally likely), lets the beam play each guess to the end, and plays the move most of those
games win with; when a hidden card turns up it guesses again. This is determinised planning
(perfect-information Monte-Carlo, as card-game programs have long played Bridge and Skat);
what it wins is a lower bound on what a player who cannot see the hidden cards can win.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ..game import State
from ..core.moves import Move
from ..core.outcome import Result
from ..kernels import layout
from .record import GameRecord

#: the random stream of the guesses, apart from every compiled player's (their salts are small)
SALT = 101


def hidden_counts(state, hidden: int) -> np.ndarray:
    """Per pile, the cards face down at the deal: the bottom ``hidden`` ones, never the top card."""
    heights = state.array[layout.S_HEIGHT : layout.S_HEIGHT + state.rules.n_piles].astype(np.int64)
    return np.clip(np.minimum(heights - 1, hidden), 0, None)


def unseen(state, counts: np.ndarray) -> list[int]:
    """The cards in the hidden places, sorted: what the player knows of them (which cards they
    are as a set, never where), so a guess depends on nothing else."""
    s = state.array
    return sorted(int(s[layout.S_CARDS + p * layout.CAP + i]) for p in range(len(counts)) for i in range(int(counts[p])))


def guess(state, counts: np.ndarray, rng: np.random.Generator):
    """A copy of ``state`` with the unseen cards laid in the hidden places in a random order."""
    world = State(state.rules, state.array.copy())  # the position only: no moves to take back
    cards = rng.permutation(unseen(state, counts))
    k = 0
    for p in range(len(counts)):
        for i in range(int(counts[p])):
            world.array[layout.S_CARDS + p * layout.CAP + i] = cards[k]
            k += 1
    return world


class _World:
    """One guess of the hidden cards, and the beam's game in it from where the guess was made."""

    def __init__(self, world: State, record: GameRecord):
        self.state = world
        self.plan = list(record.moves)
        self.won = record.result == Result.WON
        self.home = record.cards_home


class HiddenCards:
    """Sees only the cards that have been on top; guesses the rest, plans each guess with the beam.

    Each guess (a *world*) keeps the beam's whole game in it. A move is chosen by the worlds' next
    planned moves: the move most of them win with (then the most cards home their plans end with),
    never back to a position the game has been in. A world whose plan the game leaves is planned
    again from there; when a hidden card turns up every world is guessed again. It gives up when no
    world has a move left.
    """

    def __init__(self, seed: int = 0, deal: int = 0, hidden: int = 3, samples: int = 8, budget: int = 250_000,
                 width: int = 16, max_moves: int = 1000):
        from .registry import choose_player

        self.hidden = hidden
        self.samples = samples
        self.max_moves = max_moves
        self.seed, self.deal = seed, deal
        self._beam = choose_player("beam", {"budget": budget, "width": width, "max_moves": max_moves})
        self._rng = np.random.default_rng([seed, deal, SALT])
        self._counts: np.ndarray | None = None
        self._worlds: list[_World] = []
        self._been: set[int] = set()
        self.plans = 0  #: beam games played in guesses so far

    def __repr__(self) -> str:
        return f"<HiddenCards hidden={self.hidden} samples={self.samples} {self._beam.label}>"

    def choose(self, state) -> Move | None:
        self._been.add(state.hash())
        counts = hidden_counts(state, self.hidden)
        if self._counts is None or (counts < self._counts).any():  # the deal's start, or a card turned up
            self._counts = counts if self._counts is None else np.minimum(self._counts, counts)
            self._worlds = [self._plan(guess(state, self._counts, self._rng), state)
                            for _ in range(self.samples if self._counts.any() else 1)]  # nothing hidden: one world says it all
        elif state.move_stack:
            self._follow(state.move_stack[-1], state)
        return self._vote(state)

    def _plan(self, world: State, state) -> _World:
        """The beam's game in ``world`` from here (the move cap counted from the real game's start)."""
        from .loop import play

        self.plans += 1
        left = self.max_moves - len(state.move_stack)
        start = State(world.rules, world.array.copy())
        return _World(world, play(start, self._beam.make(self.seed, self.deal), left) if left > 0 else GameRecord(Result.GAVE_UP))

    def _follow(self, move: Move, state) -> None:
        """The game played ``move``: every world plays it too; the worlds whose plans it leaves plan again."""
        for k, w in enumerate(self._worlds):
            w.state.push(move)
            if w.plan and w.plan[0] == move:
                w.plan.pop(0)
            else:
                self._worlds[k] = self._plan(w.state, state)

    def _vote(self, state) -> Move | None:
        """The next planned move most worlds win with (then most cards home), to a position not yet been in."""
        score: dict[Move, list[int]] = defaultdict(lambda: [0, 0])
        for w in self._worlds:
            if w.plan and w.plan[0] not in score:
                state.push(w.plan[0])
                back = state.hash() in self._been
                state.pop()
                if back:
                    continue
            if w.plan:
                score[w.plan[0]][0] += w.won
                score[w.plan[0]][1] += w.home
        return max(score, key=lambda m: score[m]) if score else None  # ties: the move planned first
