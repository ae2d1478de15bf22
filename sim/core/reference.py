"""The reference engine: the rule sheets (the README's table of games) in plain Python.

It exists to check the compiled engine, so it is written to be read next to
the rule sheet rather than to be fast, and it shares no code with it. Every
rule is one small function named after it; :func:`legal_moves` and
:func:`play` only ask those functions.

A game is a :class:`~sim.core.rules.Rules` record; a position is a
:class:`~sim.core.board.Position` (``foundations[s]`` = cards home in suit ``s``,
``bases[s]`` = the rank that foundation started from, -1 while unset).

>>> from sim.core.rules import SELECTIVE_CASTLE as SC
>>> from sim.core.board import parse_board
>>> pos = parse_board("\\n".join([
...     "8C 7C 6C 5C 4C 3C 2C AC KC QC JC TC 9C", "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
...     "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
...     "-", "-", "-", "-"]), n_piles=8)
>>> " ".join(str(m) for m in legal_moves(SC, pos) if m.source == 0)   # 9C: the empty piles, or home
'1-5 1-6 1-7 1-8 1-F'
>>> pos = play(SC, pos, Move.from_str("1-F"))   # the 9C is the first card founded
>>> pos.bases                                   # ...so every foundation starts from a 9
[8, 8, 8, 8]
>>> play(SC, pos, Move.from_str("2-F"))
Traceback (most recent call last):
...
sim.core.moves.IllegalMoveError: 2-F: the D foundation is empty and starts only with 9D, not KD
"""

from __future__ import annotations

from .board import Position
from .cards import N_RANKS, SUITS, card_str, is_red, make_card, rank_of, suit_of
from .moves import FOUNDATION, MAX_PILES, N_SOURCES, N_TARGETS, IllegalMoveError, Move
from .rules import EmptyPile, FoundationBase, Rules, SequenceMoves, TableauDirection, TableauSuit

__all__ = ["IllegalMoveError", "legal_moves", "play", "is_won"]

ALL_HOME = 52


# Every Move object, built once: legal_moves is called very often.
_MOVES = [[Move(s, t) for t in range(N_TARGETS)] for s in range(N_SOURCES)]


# --- Foundations -------------------------------------------------------------


def foundation_base(rules: Rules, pos: Position, suit: int) -> int:
    """The rank the foundation of ``suit`` starts from, or -1 while not chosen.

    Ace-based games start every foundation from the Ace, whatever the
    position's ``bases`` say.
    """
    if rules.foundation_base == FoundationBase.ACE:
        return 0
    return pos.bases[suit]


def base_may_be_chosen(rules: Rules, pos: Position, suit: int) -> bool:
    """True when the next card founded in ``suit`` may be of any rank and sets the base.

    Shared base (Selective Castle): only while all four foundations are empty
    and no base is set. Independent bases: while this foundation has none.
    """
    if rules.foundation_base == FoundationBase.FIRST_CARD_SHARED:
        return not any(pos.foundations) and all(b == -1 for b in pos.bases)
    if rules.foundation_base == FoundationBase.FIRST_CARD_INDEPENDENT:
        return pos.foundations[suit] == 0 and pos.bases[suit] == -1
    return False


def next_foundation_rank(rules: Rules, pos: Position, suit: int) -> int | None:
    """The rank the foundation of ``suit`` takes next; None when it takes nothing.

    A foundation builds up in suit from its base, thirteen cards in all;
    with ``foundation_wrap`` the King is followed by the Ace, without it
    nothing goes past the King.
    """
    count = pos.foundations[suit]
    base = foundation_base(rules, pos, suit)
    if base == -1 or count >= N_RANKS:
        return None
    rank = base + count
    if rank >= N_RANKS:
        if not rules.foundation_wrap:
            return None
        rank -= N_RANKS
    return rank


def another_foundation_is_open(pos: Position, suit: int) -> bool:
    """Ordered Suits: is some other foundation started but not yet full?"""
    return any(0 < pos.foundations[s] < N_RANKS for s in range(4) if s != suit)


def foundation_accepts(rules: Rules, pos: Position, card: int) -> bool:
    """May ``card`` go to the foundation of its suit?"""
    suit = suit_of(card)
    if rules.foundations_one_at_a_time and pos.foundations[suit] == 0 and another_foundation_is_open(pos, suit):
        return False
    if base_may_be_chosen(rules, pos, suit):
        return True
    return rank_of(card) == next_foundation_rank(rules, pos, suit)


def found(rules: Rules, pos: Position, card: int) -> None:
    """Put ``card`` on its foundation (in place), choosing the base if this card chooses it."""
    suit = suit_of(card)
    if base_may_be_chosen(rules, pos, suit):
        if rules.foundation_base == FoundationBase.FIRST_CARD_SHARED:
            pos.bases[:] = [rank_of(card)] * 4
        else:
            pos.bases[suit] = rank_of(card)
    pos.foundations[suit] += 1


# --- Tableau -----------------------------------------------------------------


def ranks_fit(rules: Rules, below: int, card: int) -> bool:
    """Is ``card`` one rank below ``below`` (or above, building up or down)?

    ``tableau_wrap`` makes King and Ace adjacent: a King goes on an Ace when
    building down.
    """
    step = rank_of(card) - rank_of(below)
    if rules.tableau_wrap:
        step %= N_RANKS
        down, up = step == N_RANKS - 1, step == 1
    else:
        down, up = step == -1, step == 1
    if rules.tableau_direction == TableauDirection.UP_OR_DOWN:
        return down or up
    return down


def suits_fit(rules: Rules, below: int, card: int) -> bool:
    """Does ``card``'s suit suit ``below``: any suit, the same suit, or the other colour?"""
    if rules.tableau_suit == TableauSuit.SAME_SUIT:
        return suit_of(card) == suit_of(below)
    if rules.tableau_suit == TableauSuit.ALTERNATE_COLOUR:
        return is_red(card) != is_red(below)
    return True


def is_reserve(rules: Rules, index: int) -> bool:
    """Castles End: the last ``rules.reserves`` piles are reserves."""
    return index >= rules.n_piles - rules.reserves


def foundation_top(rules: Rules, pos: Position, suit: int) -> int | None:
    """The top card of a foundation, or None when it is empty."""
    count = pos.foundations[suit]
    if count == 0:
        return None
    return make_card((foundation_base(rules, pos, suit) + count - 1) % N_RANKS, suit)


def pile_accepts(rules: Rules, pile: list[int], card: int) -> bool:
    """May ``card`` be placed on tableau ``pile``?

    An empty pile takes any single card unless the game says it is never
    filled; otherwise the card must fit the top card by rank and suit.
    (Reserves are not tableau piles: callers never ask about them.)
    """
    if not pile:
        return rules.empty_pile == EmptyPile.ANY_CARD
    top = pile[-1]
    return ranks_fit(rules, top, card) and suits_fit(rules, top, card)


# --- Sequences (dialects of other programs; the rule sheets move one card) ----


def sequence_length(rules: Rules, pile: list[int]) -> int:
    """How many top cards of ``pile`` form a sequence: each one fits on the card under it by the tableau rule."""
    length = min(len(pile), 1)
    while length < len(pile):
        below, card = pile[-length - 1], pile[-length]
        if not (ranks_fit(rules, below, card) and suits_fit(rules, below, card)):
            break
        length += 1
    return length


def free_piles(rules: Rules, pos: Position) -> int:
    """Empty tableau piles a supermove may pass through; reserves never count, nor piles that are never filled."""
    if rules.empty_pile == EmptyPile.NOTHING:
        return 0
    return sum(1 for i, pile in enumerate(pos.piles) if not pile and not is_reserve(rules, i))


def most_cards_carried(rules: Rules, pos: Position, target: int) -> int:
    """How many cards one move may carry to tableau pile ``target``.

    The sheets: one. PySol's Selective Castle: a sequence of any length.
    Supermoves (FreeCell's rule with no free cells): as many as single moves
    through the empty piles could carry, 2^(empty piles), where an empty
    target does not count itself.
    """
    if rules.sequence_moves == SequenceMoves.ONE_CARD:
        return 1
    if rules.sequence_moves == SequenceMoves.UNLIMITED:
        return 52  # any length: no pile holds more
    free = free_piles(rules, pos)
    if not pos.piles[target]:
        free -= 1
    return 2 ** free if free >= 0 else 0


# --- Moves -------------------------------------------------------------------


def legal_moves(rules: Rules, pos: Position) -> list[Move]:
    """Every legal move, sorted by ``Move.action``.

    The top card of each non-empty pile (reserves included) may go to every
    other tableau pile that accepts it and to its foundation if that accepts
    it; where the game allows it, a foundation's top card may come back to
    a tableau pile. Nothing is ever placed on a reserve.
    """
    n = rules.n_piles
    if len(pos.piles) != n:
        raise ValueError(f"{rules.slug} has {n} piles, the position {len(pos.piles)}")
    piles = pos.piles
    moves = []
    for source in range(n):
        if not piles[source]:
            continue
        card = piles[source][-1]
        row = _MOVES[source]
        for target in range(n):  # targets in action order: piles, then the foundation
            if target != source and not is_reserve(rules, target) and pile_accepts(rules, piles[target], card):
                moves.append(row[target])
        if foundation_accepts(rules, pos, card):
            moves.append(row[FOUNDATION])
    if rules.foundation_to_tableau:
        for suit in range(4):
            card = foundation_top(rules, pos, suit)
            if card is None:
                continue
            for target in range(n):
                if not is_reserve(rules, target) and pile_accepts(rules, piles[target], card):
                    moves.append(_MOVES[MAX_PILES + suit][target])
    if rules.sequence_moves != SequenceMoves.ONE_CARD:
        moves += sequence_moves(rules, pos)
    return moves


def sequence_moves(rules: Rules, pos: Position) -> list[Move]:
    """The dialect's moves of two or more cards, sorted by ``Move.action``.

    A sequence of the top ``count`` cards of a pile goes to another tableau
    pile when its bottom card fits there (or the pile is empty and may be
    filled) and the dialect lets a move carry that many cards.
    """
    n = rules.n_piles
    moves = []
    for source in range(n):
        pile = pos.piles[source]
        for count in range(2, sequence_length(rules, pile) + 1):
            bottom = pile[-count]
            for target in range(n):
                if (target != source and not is_reserve(rules, target) and pile_accepts(rules, pos.piles[target], bottom)
                        and count <= most_cards_carried(rules, pos, target)):
                    moves.append(Move(source, target, count))
    return sorted(moves, key=lambda m: m.action)


def why_illegal(rules: Rules, pos: Position, move: Move) -> str | None:
    """Why ``move`` is not legal in ``pos``, or None if it is."""
    n = rules.n_piles
    if len(pos.piles) != n:
        return f"{rules.slug} has {n} piles, the position {len(pos.piles)}"
    if move.source >= MAX_PILES:
        return _why_not_back(rules, pos, move)
    if move.source >= n:
        return f"there is no pile {move.source + 1} ({n} piles)"
    if move.target != FOUNDATION and move.target >= n:
        return f"there is no pile {move.target + 1} ({n} piles)"
    if move.target == move.source:
        return "a card cannot move onto its own pile"
    if move.target != FOUNDATION and is_reserve(rules, move.target):
        return f"pile {move.target + 1} is a reserve: nothing goes on it"
    pile = pos.piles[move.source]
    if not pile:
        return f"pile {move.source + 1} is empty"
    if move.count > 1:
        return _why_not_sequence(rules, pos, move)
    card = pile[-1]
    if move.target == FOUNDATION:
        if foundation_accepts(rules, pos, card):
            return None
        return _foundation_refusal(rules, pos, card)
    return _pile_refusal(rules, pos, card, move.target)


def _why_not_sequence(rules: Rules, pos: Position, move: Move) -> str | None:
    """Why the top ``move.count`` cards may not go to ``move.target`` together (None if they may)."""
    if rules.sequence_moves == SequenceMoves.ONE_CARD:
        return f"{rules.slug} moves one card at a time (a dialect may move sequences: see `castle games`)"
    pile = pos.piles[move.source]
    if sequence_length(rules, pile) < move.count:
        return f"the top {move.count} cards of pile {move.source + 1} are not a sequence"
    most = most_cards_carried(rules, pos, move.target)
    if move.count > most:
        return f"{move.count} cards cannot move at once to pile {move.target + 1} (at most {most} here)"
    return _pile_refusal(rules, pos, pile[-move.count], move.target)


def _why_not_back(rules: Rules, pos: Position, move: Move) -> str | None:
    """Why a foundation's top card may not come back to ``move.target`` (None if it may)."""
    if not rules.foundation_to_tableau:
        return "cards never leave a foundation in this game"
    if move.target == FOUNDATION:
        return "a foundation card cannot go to a foundation"
    if move.target >= rules.n_piles:
        return f"there is no pile {move.target + 1} ({rules.n_piles} piles)"
    if is_reserve(rules, move.target):
        return f"pile {move.target + 1} is a reserve: nothing goes on it"
    card = foundation_top(rules, pos, move.source - MAX_PILES)
    if card is None:
        return f"the {SUITS[move.source - MAX_PILES]} foundation is empty"
    return _pile_refusal(rules, pos, card, move.target)


def _pile_refusal(rules: Rules, pos: Position, card: int, index: int) -> str | None:
    """Why tableau pile ``index`` refuses ``card``, or None if it takes it."""
    target = pos.piles[index]
    if pile_accepts(rules, target, card):
        return None
    if not target:
        return f"empty pile {index + 1} is never filled"
    return f"{card_str(card)} does not go on {card_str(target[-1])}"


def _foundation_refusal(rules: Rules, pos: Position, card: int) -> str:
    """The reason a foundation refuses ``card``, in words."""
    suit = suit_of(card)
    letter = SUITS[suit]
    rank = next_foundation_rank(rules, pos, suit)
    if rank is None:
        if pos.foundations[suit] >= N_RANKS:
            return f"the {letter} foundation is complete"
        if foundation_base(rules, pos, suit) == -1:
            return f"the {letter} foundation is not started and no base is chosen"
        return f"the {letter} foundation takes nothing past the King"
    wanted = card_str(make_card(rank, suit))
    if pos.foundations[suit] == 0:
        return f"the {letter} foundation is empty and starts only with {wanted}, not {card_str(card)}"
    return f"the {letter} foundation takes {wanted} next, not {card_str(card)}"


def play(rules: Rules, pos: Position, move: Move) -> Position:
    """The position after ``move``, as a new Position (``pos`` is left as it was).

    Raises IllegalMoveError, naming the move and the reason, if it is not legal.
    """
    reason = why_illegal(rules, pos, move)
    if reason is not None:
        raise IllegalMoveError(f"{move}: {reason}")
    after = pos.copy()
    if move.count > 1:  # a sequence keeps its order
        carried = after.piles[move.source][-move.count :]
        del after.piles[move.source][-move.count :]
        after.piles[move.target].extend(carried)
        return after
    if move.source >= MAX_PILES:  # a foundation's top card comes back
        suit = move.source - MAX_PILES
        card = foundation_top(rules, after, suit)
        after.foundations[suit] -= 1
    else:
        card = after.piles[move.source].pop()
    if move.target == FOUNDATION:
        found(rules, after, card)
    else:
        after.piles[move.target].append(card)
    return after


def is_won(pos: Position) -> bool:
    """All 52 cards are on the foundations."""
    return sum(pos.foundations) == ALL_HOME

