"""A position as an SVG picture: fanned piles, foundations with their base, reserves, a highlighted move.

Pure string building (no drawing library): every card of the deck is one
``<g class="cb-card">`` glyph wherever it lies (a pile, a reserve or its
foundation, where the cards stack and only the top one shows), so a picture
always holds 52 glyphs, each saying where it is (``data-card``,
``data-place``: ``pile:3``, ``foundation:H``). Styles live in one
``<style>`` whose selectors all start with ``svg.cb-board``, so several
boards on one page, or a notebook's own styles, never clash; no element has
an ``id``. Suits are drawn as paths, not font glyphs, so every renderer
(browsers, cairosvg) shows the same shapes.

>>> from sim.core.deals import deal_position
>>> from sim.core.rules import find_game
>>> rules = find_game("streets-and-alleys")
>>> svg = board_svg(deal_position(rules, 17), rules)
>>> svg.startswith("<svg") and svg.count('class="cb-card"')
52
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from ..core.board import Position
from ..core.cards import RANKS, SUITS, is_red, rank_of, suit_of
from ..core.moves import Move
from ..core.rules import MAX_PILES, FoundationBase, Rules
from .marks import FAN_MARKED, Entry, badge_row, frames, legend_lines, legend_svg
from .marks import STYLE as MARKS_STYLE

__all__ = ["board_svg", "Layout", "card_label", "rank_label", "suit_path", "SUIT_NAMES", "STYLE"]

CARD_W, CARD_H = 56, 78
GAP = 10  #: between columns
FAN = 23  #: how far each card of a pile shows below the one under it
MARGIN = 14
LABEL = 16  #: height of a line of labels
TITLE = 24
NOTE = 18  #: height of a line of notes under the tableau

SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

#: each suit as one path in a 100 x 100 box
SUIT_PATHS = (
    # clubs: three leaves and a stem
    "M50 4a22 22 0 1 1-.1 0ZM25 38a22 22 0 1 1-.1 0ZM75 38a22 22 0 1 1-.1 0ZM50 42C52 74 58 90 70 100H30C42 90 48 74 50 42Z",
    # diamonds
    "M50 0L88 50L50 100L12 50Z",
    # hearts
    "M50 96C22 72 2 54 2 30C2 12 15 2 29 2C40 2 47 9 50 19C53 9 60 2 71 2C85 2 98 12 98 30C98 54 78 72 50 96Z",
    # spades: an upturned heart and a stem
    "M50 2C78 28 98 46 98 64C98 80 86 88 74 88C64 88 57 83 54 76C56 88 61 95 70 100H30C39 95 44 88 46 76C43 83 36 88 26 88C14 88 2 80 2 64C2 46 22 28 50 2Z",
)

RED, BLACK = "#c0122c", "#1b1b1b"

#: the board's styles; every selector is scoped to ``svg.cb-board``
STYLE = """
svg.cb-board { font-family: 'DejaVu Sans', Verdana, Arial, Helvetica, sans-serif; }
svg.cb-board .cb-felt { fill: #2f6d46; }
svg.cb-board .cb-title { fill: #f4f1e6; font-size: 14px; font-weight: bold; }
svg.cb-board .cb-label { fill: #e3ecd9; font-size: 11px; text-anchor: middle; }
svg.cb-board .cb-label-strong { fill: #ffffff; font-size: 12px; font-weight: bold; text-anchor: middle; }
svg.cb-board .cb-slot { fill: #285d3c; stroke: #8fb89a; stroke-width: 1.2; stroke-dasharray: 4 3; }
svg.cb-board .cb-slot-suit { fill: #8fb89a; fill-opacity: 0.45; }
svg.cb-board .cb-face { fill: #fffdf7; stroke: #6f6f6f; stroke-width: 1; }
svg.cb-board .cb-rank { font-size: 15px; font-weight: bold; }
svg.cb-board .cb-red { fill: #c0122c; }
svg.cb-board .cb-black { fill: #1b1b1b; }
svg.cb-board .cb-hl { fill: none; stroke-width: 3.5; }
svg.cb-board .cb-hl-src { stroke: #ffb020; stroke-dasharray: 7 4; }
svg.cb-board .cb-hl-dst { stroke: #4fd6ff; }
svg.cb-board .cb-moved .cb-face { stroke: #1c8fc0; stroke-width: 2.5; }
svg.cb-board .cb-marked .cb-face { fill: #fff1c4; }
svg.cb-board .cb-note { fill: #f4f1e6; font-size: 13px; }
""" + MARKS_STYLE


def rank_label(rank: int) -> str:
    """A rank as a reader writes it: ``A``, ``2`` .. ``10``, ``J``, ``Q``, ``K`` (never 0-12)."""
    return "10" if rank == 9 else RANKS[rank]


def card_label(card: int) -> str:
    """A card as a reader writes it: ``10H``, ``AS``."""
    return rank_label(rank_of(card)) + SUITS[suit_of(card)]


def suit_path(suit: int, x: float, y: float, size: float, cls: str = "") -> str:
    """The path of ``suit`` drawn in a ``size`` square whose top left corner is (x, y)."""
    k = size / 100
    c = f' class="{cls}"' if cls else ""
    return f'<path{c} transform="translate({_n(x)} {_n(y)}) scale({k:.3g})" d="{SUIT_PATHS[suit]}"/>'


def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Layout:
    """Where everything goes, for one game and a tableau tall enough for ``rows`` cards.

    The replay page moves the cards in the browser with these same numbers (:meth:`to_json`).
    """

    rules: Rules
    rows: int
    title: bool = True
    notes: int = 0  #: lines of notes under the tableau
    fan: int = FAN  #: how far each card of a pile shows below the one under it (wider on a marked board)

    @property
    def n_tableau(self) -> int:
        return self.rules.n_tableau

    @property
    def pitch(self) -> int:
        return CARD_W + GAP

    @property
    def top(self) -> int:
        return MARGIN + (TITLE if self.title else 0)

    @property
    def foundation_y(self) -> int:
        return self.top + LABEL

    @property
    def tableau_label_y(self) -> int:
        return self.foundation_y + CARD_H + LABEL + 10

    @property
    def tableau_y(self) -> int:
        return self.tableau_label_y + LABEL

    @property
    def columns(self) -> int:
        """Columns wide: the tableau, or the foundations and reserves if wider."""
        top_row = 4 + (1 + self.rules.reserves if self.rules.reserves else 0)
        return max(self.n_tableau, top_row)

    @property
    def width(self) -> int:
        return 2 * MARGIN + self.columns * self.pitch - GAP

    @property
    def height(self) -> int:
        return self.notes_y + NOTE * self.notes + MARGIN

    @property
    def notes_y(self) -> int:
        """Where the notes start: just under the tallest pile."""
        return self.tableau_y + CARD_H + self.fan * max(self.rows - 1, 0)

    def foundation_xy(self, suit: int) -> tuple[int, int]:
        return MARGIN + suit * self.pitch, self.foundation_y

    def pile_xy(self, pile: int) -> tuple[int, int]:
        """Top left of pile ``pile``'s first card (0-based; reserves sit right of the foundations)."""
        if pile >= self.n_tableau:
            k = pile - self.n_tableau
            first = self.columns - self.rules.reserves
            return MARGIN + (first + k) * self.pitch, self.foundation_y
        return MARGIN + pile * self.pitch, self.tableau_y

    def is_reserve(self, pile: int) -> bool:
        return pile >= self.n_tableau

    def card_xy(self, pile: int, index: int) -> tuple[int, int]:
        x, y = self.pile_xy(pile)
        return x, y + (0 if self.is_reserve(pile) else self.fan * index)

    def to_json(self) -> dict:
        return {
            "piles": [list(self.pile_xy(p)) for p in range(self.rules.n_piles)],
            "reserve": [self.is_reserve(p) for p in range(self.rules.n_piles)],
            "foundations": [list(self.foundation_xy(s)) for s in range(4)],
            "fan": self.fan, "cw": CARD_W, "ch": CARD_H,
        }


def _position(state_or_pos, rules: Rules | None) -> tuple[Rules, Position]:
    if isinstance(state_or_pos, Position):
        if rules is None:
            raise TypeError("a Position needs its rules")
        return rules, state_or_pos
    return state_or_pos.rules, state_or_pos.position()


def base_label(rules: Rules, pos: Position, suit: int) -> str:
    """``base A``, ``base 7`` or ``base ?`` (not chosen yet): a letter, never a number."""
    base = pos.bases[suit]
    if base < 0 and rules.foundation_base == FoundationBase.FIRST_CARD_SHARED:
        base = next((b for b in pos.bases if b >= 0), -1)
    return f"base {rank_label(base) if base >= 0 else '?'}"


def moved_card(pos: Position, move: Move, played: bool) -> int | None:
    """The card ``move`` takes: on top of its source before it is played, on top of its target after
    (of a sequence, a dialect's move of several cards, its bottom card: the one placed on the target)."""
    if not played:
        if move.from_foundation:
            return pos.foundation_top(move.source - MAX_PILES)
        pile = pos.piles[move.source] if move.source < len(pos.piles) else []
        return pile[-move.count] if len(pile) >= move.count else None
    if move.to_foundation:
        return None  # which foundation is not known from the move alone: the caller says
    pile = pos.piles[move.target] if move.target < len(pos.piles) else []
    return pile[-move.count] if len(pile) >= move.count else None


def board_svg(
    state_or_pos,
    rules: Rules | None = None,
    *,
    move: Move | str | None = None,
    played: bool = False,
    card: int | None = None,
    rows: int | None = None,
    title: str | None = None,
    marks: dict[int, list[int]] | None = None,
    legend: list[Entry] | None = None,
) -> str:
    """The SVG text of a position (a :class:`~sim.game.State`, or a Position and its rules).

    ``move`` outlines its source (dashed amber) and target (blue): a move about
    to be played, or with ``played=True`` the move that led here (``card``
    names the card it moved when the position alone cannot tell, i.e. to a
    foundation). ``rows`` makes the tableau that many cards tall (the replay
    page keeps one height throughout); ``title`` is a line on top.
    ``marks`` frames cards in amber, each with a badge per number (card ->
    the numbers of the reasons naming it: ``castle show --explain``), and
    ``legend`` is lines under the tableau, each reason after its badge
    (:mod:`.marks`).
    """
    rules, pos = _position(state_or_pos, rules)
    if isinstance(move, str):
        move = Move.from_str(move)
    tallest = max((len(p) for i, p in enumerate(pos.piles) if i < rules.n_tableau), default=0)
    if move is not None and not played and not move.to_foundation and move.target < rules.n_tableau:
        tallest = max(tallest, len(pos.piles[move.target]) + 1)  # room for the card's outlined landing place
    marks = {c: [str(k) for k in ks] for c, ks in (marks or {}).items()}
    lines = legend_lines(legend or [], max(int((Layout(rules, 1).width - 2 * MARGIN) / 7.2), 30))
    tones = {e.badge: e.tone for e in legend or []}
    lay = Layout(rules, max(rows or 0, tallest, 1), title=title is not None, notes=len(lines),
                 fan=FAN_MARKED if marks else FAN)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="cb-board" width="{lay.width}" height="{lay.height}" '
        f'viewBox="0 0 {lay.width} {lay.height}" role="img" '
        f'aria-label={quoteattr(f"{rules.name}: {pos.cards_home}/52 cards home")} data-game="{rules.slug}">',
        f"<style>{STYLE}</style>",
        f'<rect class="cb-felt" x="0" y="0" width="{lay.width}" height="{lay.height}" rx="10"/>',
    ]
    if title is not None:
        out.append(f'<text class="cb-title" x="{MARGIN}" y="{MARGIN + 14}">{escape(title)}</text>')
    hl_card = card if card is not None else (moved_card(pos, move, played) if move is not None else None)
    out += _slots(lay, rules, pos)
    out.append('<g class="cb-cards">')
    out += _cards(lay, pos, hl_card if played else None, marks, tones)
    out.append("</g>")
    out += frames(lay, pos, marks, CARD_W, CARD_H, card_label)
    out += _highlights(lay, pos, move, played, hl_card)
    out += legend_svg(lines, MARGIN, lay.notes_y, NOTE)
    out.append("</svg>")
    return "\n".join(out)


def _slots(lay: Layout, rules: Rules, pos: Position) -> list[str]:
    """Empty outlines under every pile and foundation, with their labels."""
    out = []
    for s in range(4):
        x, y = lay.foundation_xy(s)
        cx = x + CARD_W / 2
        out.append(f'<text class="cb-label cb-base" data-suit="{SUITS[s]}" x="{_n(cx)}" y="{y - 7}">'
                   f"{escape(base_label(rules, pos, s))}</text>")
        out.append(f'<rect class="cb-slot" x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6"/>')
        out.append(suit_path(s, cx - 14, y + CARD_H / 2 - 14, 28, "cb-slot-suit"))
        out.append(f'<text class="cb-label cb-count" data-suit="{SUITS[s]}" x="{_n(cx)}" y="{y + CARD_H + 16}">'
                   f"{pos.foundations[s]}/13</text>")
    for p in range(rules.n_piles):
        x, y = lay.pile_xy(p)
        cx = x + CARD_W / 2
        out.append(f'<text class="cb-label-strong cb-pile-label" data-pile="{p + 1}" x="{_n(cx)}" y="{y - 7}">{p + 1}</text>')
        out.append(f'<rect class="cb-slot" x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6"/>')
        if lay.is_reserve(p):
            out.append(f'<text class="cb-label" x="{_n(cx)}" y="{y + CARD_H + 16}">reserve</text>')
    return out


def card_svg(card: int, x: float, y: float, place: str, moved: bool = False, badges: list[str] | None = None,
             tones: dict[str, str] | None = None) -> str:
    """One card glyph: a face with rank and suit in its top strip (what a fanned pile shows) and a large suit below;
    ``badges``: tinted, with a numbered badge each in its strip, under its rank (so a covered card shows them too;
    ``tones``: each badge's colour, :func:`.marks.badge`)."""
    s = suit_of(card)
    colour = "cb-red" if is_red(card) else "cb-black"
    rank = rank_label(rank_of(card))
    cls = "cb-card cb-moved" if moved else "cb-card"
    badge = ""
    if badges:
        cls += " cb-marked"
        badge = badge_row(badges, tones or {}, CARD_W)
    return (
        f'<g class="{cls}" data-card="{card_label(card)}" data-place="{place}" transform="translate({_n(x)} {_n(y)})">'
        f'<rect class="cb-face" width="{CARD_W}" height="{CARD_H}" rx="6"/>'
        f'<text class="cb-rank {colour}" x="5" y="17">{rank}</text>'
        + suit_path(s, CARD_W - 19, 4, 14, colour)
        + suit_path(s, CARD_W / 2 - 15, 34, 30, colour)
        + badge
        + "</g>"
    )


def _cards(lay: Layout, pos: Position, moved: int | None, marks: dict[int, list[str]], tones: dict[str, str]) -> list[str]:
    """Every card, bottom first within each pile and foundation (later glyphs cover earlier ones)."""
    out = []
    for s in range(4):
        x, y = lay.foundation_xy(s)
        for c in pos.foundation_cards(s):
            out.append(card_svg(c, x, y, f"foundation:{SUITS[s]}", c == moved, marks.get(c), tones))
    for p, pile in enumerate(pos.piles):
        for i, c in enumerate(pile):
            x, y = lay.card_xy(p, i)
            out.append(card_svg(c, x, y, f"pile:{p + 1}", c == moved, marks.get(c), tones))
    return out


def _outline(lay: Layout, pos: Position, where: int | str, extra: int) -> tuple[float, float, float, float]:
    """The box around a pile (its whole fan, plus ``extra`` card rows) or a foundation (a suit letter)."""
    pad = 4
    if isinstance(where, str):
        x, y = lay.foundation_xy(SUITS.index(where))
        return x - pad, y - pad, CARD_W + 2 * pad, CARD_H + 2 * pad
    x, y = lay.pile_xy(where)
    n = len(pos.piles[where]) + extra if where < len(pos.piles) else 0
    h = CARD_H + (0 if lay.is_reserve(where) else lay.fan * max(n - 1, 0))
    return x - pad, y - pad, CARD_W + 2 * pad, h + 2 * pad


def _highlights(lay: Layout, pos: Position, move: Move | None, played: bool, card: int | None) -> list[str]:
    """Two outlines, source and target; hidden when there is no move (the replay page moves them)."""
    boxes: list[tuple[str, tuple | None]] = [("src", None), ("dst", None)]
    if move is not None:
        suit = SUITS[suit_of(card)] if card is not None else None
        src = SUITS[move.source - MAX_PILES] if move.from_foundation else move.source
        dst = (suit if suit is not None else None) if move.to_foundation else move.target
        # played: the source lost a card, the target has it; to play: the other way round
        src_box = _outline(lay, pos, src, 1 if played and not isinstance(src, str) else 0) if src is not None else None
        dst_box = _outline(lay, pos, dst, 0 if played or isinstance(dst, str) else 1) if dst is not None else None
        boxes = [("src", src_box), ("dst", dst_box)]
    out = []
    for kind, box in boxes:
        if box is None:
            out.append(f'<rect class="cb-hl cb-hl-{kind}" x="0" y="0" width="0" height="0" rx="8" display="none"/>')
        else:
            x, y, w, h = box
            out.append(f'<rect class="cb-hl cb-hl-{kind}" x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="8"/>')
    return out
