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

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .kernels import dealing
from .kernels import hashing
from .kernels import legal as legal_kernel
from .kernels import layout
from .core import reference
from .core.board import BoardError, Position, format_board, parse_board
from .core.cards import N_RANKS, RANKS, SUITS, card_str, make_card, rank_of
from .core.deals import DEFAULT_SEED, PYSOL_SEED, check_seeded, deal_position, parse_deal_id
from .core.moves import MAX_MOVES, N_ACTIONS, N_ALL_ACTIONS, IllegalMoveError, Move
from .core.outcome import Result
from .core.rules import DealStyle, EmptyPile, FoundationBase, Rules, SequenceMoves, UnknownGameError, find_game

__all__ = ["Game", "State", "LegalMoves", "Outcome", "IllegalMoveError", "why_impossible"]


@dataclass(frozen=True)
class Outcome:
    """How a game ended by itself: ``won`` or ``stuck`` (a player may also give up: see the play loop)."""

    termination: Result
    cards_home: int

    @property
    def won(self) -> bool:
        return self.termination is Result.WON


class Game:
    """A game of the family: its rules and a way to make starting states."""

    def __init__(self, rules: Rules | str):
        if not isinstance(rules, (str, Rules)):
            raise UnknownGameError(f"a game is a name (see `castle games`) or a Rules record, not {rules!r}")
        self.rules = find_game(rules) if isinstance(rules, str) else rules
        self.rules_array = layout.rules_array(self.rules)

    def __repr__(self) -> str:
        return f"Game({self.rules.full_slug!r})"

    def deal(self, deal: int | str, seed: int = DEFAULT_SEED) -> State:
        """The starting state of a seeded deal (``17``) or a PySol deal (``"pysol:1080"``)."""
        kind, n = parse_deal_id(deal)
        if kind == "pysol" or seed == PYSOL_SEED:
            return State.from_position(self.rules, deal_position(self.rules, deal, seed))
        check_seeded(seed, n)
        s = np.zeros(layout.STATE_SIZE, np.int8)
        dealing.init_deal(self.rules_array, seed, n, s, np.zeros(52, np.int8))  # the compiled deal: the same cards, 100x sooner
        return State(self.rules, s)

    def from_board(self, text: str, check: bool = False) -> State:
        """A state from board text (see :mod:`sim.core.board`).

        With ``check``, a position no deal of this game can reach by its rules
        (:func:`why_impossible`: Aces on the tableau of Beleaguered Castle,
        a King above other cards in Baker's Dozen, two cards in a one-card
        reserve) is a :class:`BoardError`; without it any position of whole
        cards is taken (tests build impossible ones on purpose).
        """
        shared = self.rules.foundation_base == FoundationBase.FIRST_CARD_SHARED
        default_base = 0 if self.rules.foundation_base == FoundationBase.ACE else -1
        pos = parse_board(text, self.rules.n_piles, shared_base=shared, default_base=default_base)
        if check:
            problem = why_impossible(self.rules, pos)
            if problem:
                raise BoardError(f"no deal of {self.rules.full_slug} can reach this position: {problem}")
        return State.from_position(self.rules, pos)


class LegalMoves:
    """A live view of the legal moves: iterate, ``in``, ``len()``, ``count()``."""

    def __init__(self, state: State):
        self._state = state

    def actions(self) -> np.ndarray:
        """The legal moves as action ints, ascending."""
        buf = np.empty(MAX_MOVES, np.int64)
        n = legal_kernel.legal_actions(self._state.array, self._state.rules_array, buf, np.empty(legal_kernel.SCRATCH_SIZE, np.int64))
        return buf[:n]

    def mask(self) -> np.ndarray:
        """Boolean mask over the fixed action space, as pgx gives it: ``N_ACTIONS`` long, or ``N_ALL_ACTIONS``
        in a dialect that moves sequences."""
        one_card = self._state.rules.sequence_moves == SequenceMoves.ONE_CARD
        mask = np.zeros(N_ACTIONS if one_card else N_ALL_ACTIONS, bool)
        mask[self.actions()] = True
        return mask

    def __iter__(self) -> Iterator[Move]:
        return (Move.from_action(int(a)) for a in self.actions())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._state.is_legal(move)

    def __len__(self) -> int:
        return len(self.actions())

    def count(self) -> int:
        return len(self)

    def __repr__(self) -> str:
        return f"<LegalMoves: {', '.join(str(m) for m in self)}>"


class State:
    """A position with its move stack: ``push()``/``pop()`` like a chess board.

    ``array`` is the live state array the kernels read and write
    (:mod:`sim.kernels.layout`), ``rules_array`` the game's rules for them:
    code that calls kernels directly passes these two.
    """

    def __init__(self, rules: Rules, array: np.ndarray):
        self.rules = rules
        self.rules_array = _rules_array(rules)
        self.array = array
        self._keys = np.zeros(hashing.PH_SIZE, np.uint64)  # the pile keys: the hash, kept as moves are played
        hashing.pile_keys(array, self.rules_array, self._keys)
        self._undo: list[int] = []
        self._actions: list[int] = []
        self._buf = np.empty(MAX_MOVES, np.int64)
        self._scratch = np.empty(legal_kernel.SCRATCH_SIZE, np.int64)

    @classmethod
    def from_position(cls, rules: Rules, pos: Position) -> State:
        if len(pos.piles) != rules.n_piles:
            raise ValueError(f"{rules.slug} has {rules.n_piles} piles, the position {len(pos.piles)}")
        return cls(rules, array_of(pos))

    def copy(self) -> State:
        other = State(self.rules, self.array.copy())
        other._undo = list(self._undo)
        other._actions = list(self._actions)
        return other

    def with_base(self, rank: int) -> State:
        """A copy with the foundations' shared base fixed at ``rank`` (0=Ace) before the first card goes home: one of
        the solver's 13 fixed-base problems, which the probes and players then play."""
        other = self.copy()
        other.array[layout.S_BASE : layout.S_BASE + 4] = rank
        return other

    # -- moves ---------------------------------------------------------------
    @property
    def legal_moves(self) -> LegalMoves:
        return LegalMoves(self)

    def actions(self) -> np.ndarray:
        """The legal moves as action ints, ascending (a fresh array): the cheap way for a player to look at them."""
        n = legal_kernel.legal_actions(self.array, self.rules_array, self._buf, self._scratch)
        return self._buf[:n].copy()

    @property
    def move_stack(self) -> list[Move]:
        """The moves played since this state was made, first first."""
        return [Move.from_action(a) for a in self._actions]

    def is_legal(self, move: Move) -> bool:
        return bool(legal_kernel.is_legal(self.array, self.rules_array, move.action))

    def push(self, move: Move | str | int) -> None:
        """Play ``move`` (a Move, its text ``"3-F"`` or ``"3-5x4"``, or its action int: the cheapest)."""
        if type(move) is int and 0 <= move < N_ALL_ACTIONS:  # a player's action: one kernel call
            token = hashing.apply_checked(self.array, self.rules_array, self._keys, move)
            if token >= 0:
                self._undo.append(token)
                self._actions.append(move)
                return
        if isinstance(move, str):
            move = Move.from_str(move)
        if isinstance(move, Move):
            action = move.action
        elif type(move) is int or (isinstance(move, np.integer) and 0 <= move < N_ALL_ACTIONS):
            action = int(move)
        else:
            action = Move.from_action(move).action  # a MoveError for anything but a whole number in the action space
        token = hashing.apply_checked(self.array, self.rules_array, self._keys, action) if 0 <= action < N_ALL_ACTIONS else -1
        if token < 0:
            move = Move.from_action(action)
            reason = reference.why_illegal(self.rules, self.position(), move) or "the engines disagree (a bug: please report it)"
            raise IllegalMoveError(f"illegal move {move}: {reason}")
        self._undo.append(int(token))
        self._actions.append(action)

    def pop(self) -> Move:
        """Take back the last move and return it."""
        return Move.from_action(self.pop_action())

    def pop_action(self) -> int:
        """Take back the last move and return its action int (:meth:`pop` without making a Move)."""
        if not self._undo:
            raise IndexError("pop from an empty move stack")
        hashing.undo_keyed(self.array, self.rules_array, self._keys, self._undo.pop())
        return self._actions.pop()

    # -- reading the position -----------------------------------------------
    def position(self) -> Position:
        """The position as plain lists (see :class:`~sim.core.board.Position`)."""
        s = self.array
        piles = [[int(c) for c in s[layout.S_CARDS + p * layout.CAP : layout.S_CARDS + p * layout.CAP + int(s[layout.S_HEIGHT + p])]]
                 for p in range(self.rules.n_piles)]
        return Position(piles, [int(x) for x in s[layout.S_FOUND : layout.S_FOUND + 4]], [int(x) for x in s[layout.S_BASE : layout.S_BASE + 4]])

    @property
    def cards_home(self) -> int:
        a = self.array
        return int(a[0]) + int(a[1]) + int(a[2]) + int(a[3])  # (S_FOUND = 0: four reads beat a numpy sum)

    @property
    def empty_piles(self) -> int:
        """Empty tableau piles (reserves not counted)."""
        return int((self.array[layout.S_HEIGHT : layout.S_HEIGHT + self.rules.n_tableau] == 0).sum())

    @property
    def base_rank(self) -> int | None:
        """The foundations' shared base rank (0=Ace), or None while not chosen or not shared."""
        if self.rules.foundation_base == FoundationBase.FIRST_CARD_INDEPENDENT:
            return None
        base = int(self.array[layout.S_BASE])
        return base if base >= 0 else None

    def is_won(self) -> bool:
        return self.cards_home == 52

    def outcome(self) -> Outcome | None:
        """``won`` or ``stuck`` once the game has ended by itself, else None."""
        if self.is_won():
            return Outcome(Result.WON, 52)
        if len(self.legal_moves) == 0:
            return Outcome(Result.STUCK, self.cards_home)
        return None

    def hash(self) -> int:
        """Canonical position hash (pile order and which pile is empty do not matter), kept as moves are played."""
        return int(hashing.position_key(self._keys, self.array))

    def board_text(self) -> str:
        """The board text format (round-trips through :meth:`Game.from_board`)."""
        return format_board(self.position())

    def __str__(self) -> str:
        pos = self.position()
        cells = []
        for suit in range(4):
            top = pos.foundation_top(suit)
            cells.append(f"{SUITS[suit]}:{card_str(top) if top is not None else '--'}")
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

    def _repr_svg_(self) -> str:
        """The board as a picture (notebooks show it), the last move played outlined (see :mod:`sim.render`)."""
        from .render.svg import board_svg

        if not self.move_stack:
            return board_svg(self)
        last = self.move_stack[-1]
        card = None
        if last.to_foundation:  # the card just founded: the top of the foundation that grew
            before = self.copy()
            before.pop()
            card = before.position().piles[last.source][-1]
        return board_svg(self, move=last, played=True, card=card)


_RULES_ARRAYS: dict[Rules, np.ndarray] = {}


def _rules_array(rules: Rules) -> np.ndarray:
    """The rules array of ``rules``, made once (the kernels only read it)."""
    r = _RULES_ARRAYS.get(rules)
    if r is None:
        r = _RULES_ARRAYS[rules] = layout.rules_array(rules)  # (writable: numba types a read-only array apart)
    return r


def array_of(pos: Position) -> np.ndarray:
    """Pack a :class:`Position` into a state array."""
    s = np.zeros(layout.STATE_SIZE, np.int8)
    s[layout.S_FOUND : layout.S_FOUND + 4] = pos.foundations
    s[layout.S_BASE : layout.S_BASE + 4] = pos.bases
    for p, pile in enumerate(pos.piles):
        s[layout.S_HEIGHT + p] = len(pile)
        s[layout.S_CARDS + p * layout.CAP : layout.S_CARDS + p * layout.CAP + len(pile)] = pile
    return s


def why_impossible(rules: Rules, pos: Position) -> str | None:
    """Why no deal of ``rules``' game, played by its rules, reaches ``pos``; None when nothing here rules it out.

    The tests are necessary conditions, each true of every deal and kept by
    every legal move: the Aces of a game that starts with them home never
    leave the foundations; a game whose deal founds its last card always has
    a card home; only one foundation of Ordered Suits is open at a time; a
    reserve only gives cards away, so it never holds more than it was dealt;
    and a tableau pile is a rest of its dealt cards (Kings at the bottom in
    Baker's Dozen) under cards each put there by the building rule on the
    card below (on an empty pile, any card, unless the game never fills
    one). A position that passes may still be out of reach (a test of that
    would be a search), but one that fails is never a position of the game.
    """
    def names(cards) -> str:
        return " ".join(card_str(c) for c in cards)

    if rules.aces_preplaced and not rules.foundation_to_tableau:
        out = [make_card(0, s) for s in range(4) if pos.foundations[s] == 0]
        if out:
            return f"{names(out)} on the tableau, but the Aces start on the foundations and never leave them"
    if rules.deal_style == DealStyle.LAST_CARD_TO_FOUNDATION and not rules.foundation_to_tableau and not any(pos.foundations):
        return "no card home, but the deal's last card goes to its foundation"
    if rules.foundations_one_at_a_time:
        started = [SUITS[s] for s in range(4) if 0 < pos.foundations[s] < N_RANKS]
        if len(started) > 1:
            return f"foundations {' and '.join(started)} are both part-built, but only one is open at a time"
    for p, pile in enumerate(pos.piles):
        dealt = rules.pile_sizes[p]
        if p >= rules.n_tableau:
            if len(pile) > dealt:
                return (f"pile {p + 1} is a reserve dealt {dealt} card{'s' if dealt != 1 else ''} and nothing goes on it, "
                        f"but it holds {len(pile)} ({names(pile)})")
            continue
        # the cards above the last one that does not fit on the card under it were all built there
        breaks = [i for i in range(1, len(pile)) if not (reference.ranks_fit(rules, pile[i - 1], pile[i])
                                                          and reference.suits_fit(rules, pile[i - 1], pile[i]))]
        if not pile:
            continue
        if breaks:
            dealt_here = breaks[-1] + 1  # the fewest cards of this pile that must be the deal's
        else:
            dealt_here = 0 if rules.empty_pile == EmptyPile.ANY_CARD else 1
        if dealt_here > dealt:
            i = breaks[-1]
            return (f"pile {p + 1} has {card_str(pile[i])} on {card_str(pile[i - 1])}, which the rules never put there, "
                    f"with {dealt_here} cards from it down, but the deal gives the pile {dealt}")
        if rules.deal_style == DealStyle.KINGS_TO_BOTTOM:
            under = pile[:dealt_here]
            for i in range(1, len(under)):
                if rank_of(under[i]) == N_RANKS - 1 and rank_of(under[i - 1]) != N_RANKS - 1:
                    return (f"pile {p + 1} has the King {card_str(under[i])} above {card_str(under[i - 1])}, but the deal "
                            "puts the Kings at the bottom and no move puts a King on a card")
    return None
