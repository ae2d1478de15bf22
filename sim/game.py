"""The Python face of the compiled engine, in the spirit of python-chess.

>>> game = Game("streets-and-alleys")
>>> state = game.deal(1)
>>> len(state.legal_moves) > 0
True
>>> move = next(iter(state.legal_moves))
>>> state.push(move)
>>> state.pop() == move
True
>>> state.outcome() is None
True
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from . import engine as E
from .board import Position, format_board, parse_board
from .cards import RANKS, SUITS, card_str
from .deals import DEFAULT_SEED, deal_position
from .moves import N_ACTIONS, Move
from .rules import FoundationBase, Rules, find_game


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in this position."""


class Termination(enum.Enum):
    """How a game ended by itself (a player may also give up: see the runner)."""

    WON = "won"
    STUCK = "stuck"  #: no legal move at all


@dataclass(frozen=True)
class Outcome:
    termination: Termination
    cards_home: int

    @property
    def won(self) -> bool:
        return self.termination is Termination.WON


class Game:
    """A game of the family: its rules and a way to make starting states."""

    def __init__(self, rules: Rules | str):
        self.rules = find_game(rules) if isinstance(rules, str) else rules
        self.rules_array = E.rules_array(self.rules)

    def __repr__(self) -> str:
        return f"Game({self.rules.slug!r})"

    @property
    def default_base(self) -> int:
        """Base of foundations before any card is played: 0 (Ace) or -1 (chosen later)."""
        return 0 if self.rules.foundation_base == FoundationBase.ACE else -1

    def deal(self, deal: int | str, seed: int = DEFAULT_SEED) -> State:
        """The starting state of a seeded deal (``17``) or a PySol deal (``"pysol:1080"``)."""
        return State.from_position(self.rules, deal_position(self.rules, deal, seed))

    def from_board(self, text: str) -> State:
        """A state from board text (see :mod:`sim.board`)."""
        shared = self.rules.foundation_base == FoundationBase.FIRST_CARD_SHARED
        pos = parse_board(text, self.rules.n_piles, shared_base=shared, default_base=self.default_base)
        return State.from_position(self.rules, pos)


class LegalMoves:
    """A live view of the legal moves: iterate, ``in``, ``len()``, ``count()``."""

    def __init__(self, state: State):
        self._state = state

    def actions(self) -> np.ndarray:
        buf = np.empty(N_ACTIONS, np.int64)
        n = E.legal_actions(self._state._s, self._state._r, buf)
        return buf[:n]

    def mask(self) -> np.ndarray:
        """Boolean mask over the fixed action space (``N_ACTIONS``), as pgx gives it."""
        mask = np.zeros(N_ACTIONS, bool)
        mask[self.actions()] = True
        return mask

    def __iter__(self) -> Iterator[Move]:
        return (Move.from_action(int(a)) for a in self.actions())

    def __contains__(self, move: object) -> bool:
        if not isinstance(move, Move):
            return False
        return bool(E.is_legal(self._state._s, self._state._r, move.action))

    def __len__(self) -> int:
        return len(self.actions())

    def count(self) -> int:
        return len(self)

    def __repr__(self) -> str:
        return f"<LegalMoves: {', '.join(str(m) for m in self)}>"


class State:
    """A position with its move stack: ``push()``/``pop()`` like a chess board."""

    def __init__(self, rules: Rules, s: np.ndarray):
        self.rules = rules
        self._r = E.rules_array(rules)
        self._s = s
        self._undo: list[int] = []
        self.move_stack: list[Move] = []

    @classmethod
    def from_position(cls, rules: Rules, pos: Position) -> State:
        if len(pos.piles) != rules.n_piles:
            raise ValueError(f"{rules.slug} has {rules.n_piles} piles, the position {len(pos.piles)}")
        return cls(rules, E.state_from_position(pos))

    def copy(self) -> State:
        other = State(self.rules, self._s.copy())
        other._undo = list(self._undo)
        other.move_stack = list(self.move_stack)
        return other

    # -- moves ---------------------------------------------------------------
    @property
    def legal_moves(self) -> LegalMoves:
        return LegalMoves(self)

    def is_legal(self, move: Move) -> bool:
        return bool(E.is_legal(self._s, self._r, move.action))

    def push(self, move: Move | str | int) -> None:
        """Play ``move`` (a Move, its text ``"3-F"`` or its action int)."""
        if isinstance(move, str):
            move = Move.from_str(move)
        elif not isinstance(move, Move):
            move = Move.from_action(int(move))
        if not E.is_legal(self._s, self._r, move.action):
            raise IllegalMoveError(f"illegal move {move}: {self._why_illegal(move)}")
        self._undo.append(int(E.apply(self._s, self._r, move.action)))
        self.move_stack.append(move)

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self._undo:
            raise IndexError("pop from an empty move stack")
        E.undo(self._s, self._r, self._undo.pop())
        return self.move_stack.pop()

    def _why_illegal(self, move: Move) -> str:
        n = self.rules.n_piles
        if move.source >= n:
            return "no such source pile" if move.source < 13 else "cards never leave a foundation here"
        pile = self.position().piles[move.source]
        if not pile:
            return f"pile {move.source + 1} is empty"
        card = card_str(pile[-1])
        if move.to_foundation:
            return f"{card} does not fit its foundation"
        if move.target >= n:
            return "no such target pile"
        if move.target == move.source:
            return "source and target are the same pile"
        return f"{card} does not fit on pile {move.target + 1}"

    # -- reading the position -----------------------------------------------
    def position(self) -> Position:
        return E.position_from_state(self._s, self.rules.n_piles)

    @property
    def cards_home(self) -> int:
        return int(E.cards_home(self._s))

    @property
    def base_rank(self) -> int | None:
        """The foundations' base rank (0=Ace), or None while not chosen."""
        bases = [int(b) for b in self._s[E.S_BASE : E.S_BASE + 4] if b >= 0]
        if self.rules.foundation_base == FoundationBase.FIRST_CARD_INDEPENDENT:
            return None
        return bases[0] if bases else None

    def is_won(self) -> bool:
        return bool(E.is_won(self._s))

    def outcome(self) -> Outcome | None:
        """``won`` or ``stuck`` once the game has ended by itself, else None."""
        if self.is_won():
            return Outcome(Termination.WON, 52)
        if len(self.legal_moves) == 0:
            return Outcome(Termination.STUCK, self.cards_home)
        return None

    def hash(self) -> int:
        """Canonical position hash (pile order and which pile is empty do not matter)."""
        return int(E.position_hash(self._s, self._r))

    def board_text(self) -> str:
        """The board text format (round-trips through :meth:`Game.from_board`)."""
        return format_board(self.position())

    def __str__(self) -> str:
        pos = self.position()
        cells = []
        for suit in range(4):
            n = pos.foundations[suit]
            base = pos.bases[suit]
            top = card_str(suit * 13 + (base + n - 1) % 13) if n else "--"
            cells.append(f"{SUITS[suit]}:{top}")
        if self.rules.foundation_base == FoundationBase.ACE:
            base_txt = "base A"
        elif self.base_rank is not None:
            base_txt = f"base {RANKS[self.base_rank]}"
        elif self.rules.foundation_base == FoundationBase.FIRST_CARD_INDEPENDENT:
            base_txt = "bases " + "".join(RANKS[b] if b >= 0 else "?" for b in pos.bases)
        else:
            base_txt = "base not chosen"
        lines = [f"Foundations  {'  '.join(cells)}   ({base_txt}, {sum(pos.foundations)}/52 home)"]
        width = len(str(len(pos.piles)))
        for i, pile in enumerate(pos.piles, start=1):
            lines.append(f"{i:>{width}} | " + " ".join(card_str(c) for c in pile))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<State {self.rules.slug} home={self.cards_home} moves={len(self.move_stack)}>"
