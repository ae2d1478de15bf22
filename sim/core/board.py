"""Positions as plain Python data, and the board text format.

The board text is shared with fc-solve and PySol: one pile per line, bottom
card first, cards as ``AH TD 9C``, and an optional first line
``Foundations: H-A C-A D-A S-A`` naming each foundation's top card (``0``
for an empty one). An empty pile is a line holding only ``:`` (fc-solve's
form, which ``format_board`` writes; ``-`` is read too).

>>> pos = parse_board("AH 2C\\nKS\\n", n_piles=2, complete=False)
>>> pos.piles
[[26, 1], [51]]
>>> print(format_board(pos), end="")
AH 2C
KS
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import N_RANKS, SUITS, CardError, card_str, make_card, parse_card, parse_rank, rank_str

#: fc-solve and PySol list foundations in this suit order.
FOUNDATION_LINE_ORDER = (2, 0, 1, 3)  # H C D S


class BoardError(ValueError):
    """Board text that does not describe a position; the message names line and token."""


@dataclass
class Position:
    """A position as lists: what the reference engine works on and what tests build.

    ``foundations[s]`` is how many cards suit ``s`` (C D H S) has home;
    ``bases[s]`` the rank its foundation started from, or -1 while unset.
    """

    piles: list[list[int]]
    foundations: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    bases: list[int] = field(default_factory=lambda: [-1, -1, -1, -1])

    def copy(self) -> Position:
        return Position([list(p) for p in self.piles], list(self.foundations), list(self.bases))

    def foundation_cards(self, suit: int) -> list[int]:
        """The cards on a foundation, bottom first."""
        base = self.bases[suit]
        return [make_card((base + i) % N_RANKS, suit) for i in range(self.foundations[suit])]

    def foundation_top(self, suit: int) -> int | None:
        """The top card of a foundation, or None when it is empty."""
        n = self.foundations[suit]
        return make_card((self.bases[suit] + n - 1) % N_RANKS, suit) if n else None

    def key(self) -> tuple:
        """Hashable exact snapshot, for comparing engines."""
        return (tuple(tuple(p) for p in self.piles), tuple(self.foundations), tuple(self.bases))

    @property
    def cards_home(self) -> int:
        return sum(self.foundations)


def format_board(pos: Position, foundations_line: bool | None = None) -> str:
    """The board text of ``pos``; the ``Foundations:`` line is written when any is started
    (or always / never with ``foundations_line``)."""
    lines = []
    started = any(pos.foundations)
    if foundations_line or (foundations_line is None and started):
        cells = []
        for s in FOUNDATION_LINE_ORDER:
            top = pos.foundation_top(s)
            cells.append(f"{SUITS[s]}-{'0' if top is None else card_str(top)[0]}")
        lines.append("Foundations: " + " ".join(cells))
    for pile in pos.piles:
        lines.append(" ".join(card_str(c) for c in pile) if pile else ":")
    return "\n".join(lines) + "\n"


def _parse_foundations(rest: str, lineno: int) -> dict[int, int]:
    """``H-A C-0 ...`` -> {suit: top rank or -1}."""
    tops: dict[int, int] = {}
    for token in rest.split():
        suit_part, sep, rank_part = token.partition("-")
        suit_part = suit_part.upper()
        if not sep or len(suit_part) != 1 or suit_part not in SUITS:
            raise BoardError(f"line {lineno}: bad foundation {token!r} (expected e.g. H-A or S-0)")
        suit = SUITS.index(suit_part)
        if suit in tops:
            raise BoardError(f"line {lineno}: foundation {suit_part} named twice ({token!r})")
        try:
            tops[suit] = -1 if rank_part == "0" else parse_rank(rank_part)
        except CardError:
            raise BoardError(f"line {lineno}: bad foundation {token!r} (expected e.g. H-A or S-0)") from None
    return tops


def parse_board(
    text: str,
    n_piles: int | None = None,
    *,
    shared_base: bool = True,
    default_base: int = -1,
    complete: bool = True,
) -> Position:
    """Read board text into a :class:`Position`.

    ``n_piles`` checks the number of piles; ``complete`` checks that tableau
    and foundations hold each of the 52 cards exactly once, and works out
    each foundation's cards from what the tableau lacks. ``shared_base``
    (Selective Castle) gives every foundation the base read from any of them;
    ``default_base`` is the base of foundations nothing says anything about
    (0 for Ace-based games).
    """
    if not isinstance(text, str):
        raise BoardError(f"board text must be a string, not {type(text).__name__}")
    # a byte-order mark (Windows editors write one) is not part of the board; CRLF and CR end lines as LF does
    raw_lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while raw_lines and not raw_lines[-1].strip():
        raw_lines.pop()
    first = 0  # leading blank lines are skipped but still counted in line numbers
    while first < len(raw_lines) and not raw_lines[first].strip():
        first += 1
    tops: dict[int, int] | None = None
    piles: list[list[int]] = []
    seen: dict[int, int] = {}
    for lineno, line in enumerate(raw_lines[first:], start=first + 1):
        stripped = line.strip()
        low = stripped.lower()
        if low.startswith("foundations:"):
            if piles or tops is not None:
                raise BoardError(f"line {lineno}: the Foundations: line must come first, once")
            tops = _parse_foundations(stripped.split(":", 1)[1], lineno)
            continue
        if stripped.startswith(":"):
            stripped = stripped[1:].strip()
        pile: list[int] = []
        if stripped not in ("", "-"):
            for token in stripped.split():
                try:
                    card = parse_card(token)
                except CardError:
                    raise BoardError(f"line {lineno}: {token!r} is not a card") from None
                if card in seen:
                    raise BoardError(f"line {lineno}: {token!r} is already on line {seen[card]}")
                seen[card] = lineno
                pile.append(card)
        piles.append(pile)
    if n_piles is not None and len(piles) != n_piles:
        raise BoardError(f"expected {n_piles} piles, found {len(piles)}")
    pos = Position(piles)
    if not complete:
        return pos
    _fill_foundations(pos, tops or {}, seen, shared_base, default_base)
    return pos


def _fill_foundations(
    pos: Position,
    tops: dict[int, int],
    seen: dict[int, int],
    shared_base: bool,
    default_base: int,
) -> None:
    """Foundation counts and bases from the cards missing from the tableau.

    A foundation of ``n`` cards whose top is ``t`` started at ``t - n + 1``
    (mod 13), so its base is known from the Foundations line alone.
    """
    known_base: int | None = None
    for suit in range(4):
        missing = [r for r in range(N_RANKS) if make_card(r, suit) not in seen]
        top = tops.get(suit, -1)
        if not missing:
            if top != -1:
                raise BoardError(f"foundation {SUITS[suit]}-{rank_str(top)}: every {SUITS[suit]} card is in the tableau")
            continue
        n = len(missing)
        if top == -1:
            names = " ".join(card_str(make_card(r, suit)) for r in missing)
            raise BoardError(f"cards missing from the board: {names}")
        base = (top - n + 1) % N_RANKS
        run = {(base + i) % N_RANKS for i in range(n)}
        if run != set(missing):
            names = " ".join(card_str(make_card(r, suit)) for r in sorted(set(missing) - run)) or "?"
            raise BoardError(f"foundation {SUITS[suit]}-{rank_str(top)} does not account for {names}")
        if default_base >= 0 and base != default_base:
            raise BoardError(
                f"foundation {SUITS[suit]}-{rank_str(top)} would start at {rank_str(base)}; "
                f"foundations here start at {rank_str(default_base)}"
            )
        if shared_base and known_base is not None and known_base != base:
            raise BoardError(
                f"foundation {SUITS[suit]}-{rank_str(top)} starts at {rank_str(base)}, "
                f"another at {rank_str(known_base)}; the base is shared"
            )
        known_base = base
        pos.foundations[suit] = n
        pos.bases[suit] = base
    for suit in range(4):
        if pos.foundations[suit] == 0:
            if default_base >= 0:
                pos.bases[suit] = default_base
            elif shared_base and known_base is not None:
                pos.bases[suit] = known_base
