"""What ``castle show --explain`` draws on a board: a frame round each card a reason names, a numbered badge per
reason on that card, and a legend under the board saying what each badge's reason is.

A frame is drawn over every card, inside the part of its card that shows
(the strip a fanned pile shows, or the whole face of a pile's top card), so
it never runs along the edge of a card no reason names. A card two reasons
name carries two badges: the marked board fans its piles wider
(:data:`FAN_MARKED`) so that each card's strip holds a row of badges under its
rank and suit. A badge is green when its reason helps, red when it stands
in the way; in the legend, a hollow badge is a reason that names no single
card (a probe's game, a count of moves).
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape

#: how far each card of a marked board's pile shows below the one under it: its rank and suit, then its badges
FAN_MARKED = 38
BADGE_R = 7.5
#: the badges' row, in a card's own coordinates (under the rank and suit of its strip)
BADGE_Y = 28
INSET = 1.5  #: a frame's stroke (3 px) lies within its card

STYLE = """
svg.cb-board .cb-frame { fill: none; stroke: #ffb020; stroke-width: 3; }
svg.cb-board .cb-badge circle { stroke: #ffffff; stroke-width: 1.4; }
svg.cb-board .cb-badge text { fill: #ffffff; font-size: 10.5px; font-weight: bold; text-anchor: middle; }
svg.cb-board .cb-badge-help circle { fill: #1e9e4a; }
svg.cb-board .cb-badge-hinder circle { fill: #d0312d; }
svg.cb-board .cb-badge-plain circle { fill: #6b5a2e; }
svg.cb-board .cb-badge-hollow circle { fill: none; stroke: #f4f1e6; stroke-width: 2; }
svg.cb-board .cb-badge-hollow text { fill: #f4f1e6; }
svg.cb-board .cb-badge-hollow.cb-badge-help circle { stroke: #7be39b; }
svg.cb-board .cb-badge-hollow.cb-badge-help text { fill: #7be39b; }
svg.cb-board .cb-badge-hollow.cb-badge-hinder circle { stroke: #ff9c94; }
svg.cb-board .cb-badge-hollow.cb-badge-hinder text { fill: #ff9c94; }
"""


@dataclass(frozen=True)
class Entry:
    """A line of the legend: a reason's badge (its number; "" for a plain note), its tone, its words, and whether
    it names a card (a filled badge) or none (a hollow one)."""

    badge: str
    tone: str  #: "help", "hinder" or "" (a certainty, a share)
    text: str
    on_card: bool = True


def badge(label: str, cx: float, cy: float, tone: str = "", hollow: bool = False) -> str:
    """One badge: a small disc with its reason's number."""
    cls = "cb-badge cb-badge-" + (tone or "plain") + (" cb-badge-hollow" if hollow else "")
    return (f'<g class="{cls}" data-reason="{escape(label)}"><circle cx="{_n(cx)}" cy="{_n(cy)}" r="{BADGE_R}"/>'
            f'<text x="{_n(cx)}" y="{_n(cy + 3.8)}">{escape(label)}</text></g>')


def badge_row(labels: list[str], tones: dict[str, str], width: float) -> str:
    """A card's badges side by side across its strip (closer, overlapping a little, when many)."""
    if not labels:
        return ""
    step = 2 * BADGE_R + 2
    if len(labels) > 1:
        step = min(step, (width - 4 - 2 * BADGE_R) / (len(labels) - 1))
    x0 = width / 2 - step * (len(labels) - 1) / 2
    return "".join(badge(lab, x0 + k * step, BADGE_Y, tones.get(lab, "")) for k, lab in enumerate(labels))


def frames(lay, pos, marks: dict, card_w: float, card_h: float, label) -> list[str]:
    """A frame round the part that shows of each card of ``marks`` (card -> badges) in the tableau: its strip, or
    its whole face on top of its pile."""
    out = []
    for p, pile in enumerate(pos.piles):
        for i, c in enumerate(pile):
            if c not in marks:
                continue
            on_top = i == len(pile) - 1
            if lay.is_reserve(p) and not on_top:
                continue  # a reserve's covered card does not show
            x, y = lay.card_xy(p, i)
            h = card_h if on_top or lay.is_reserve(p) else lay.fan
            out.append(f'<rect class="cb-frame" data-card="{label(c)}" x="{_n(x + INSET)}" y="{_n(y + INSET)}" '
                       f'width="{_n(card_w - 2 * INSET)}" height="{_n(h - 2 * INSET)}" rx="5"/>')
    return out


def legend_lines(legend: list[Entry], chars: int) -> list[tuple[Entry | None, str]]:
    """The legend broken into lines of at most ``chars`` characters: each entry's first line with it, the rest
    with None (indented under the first)."""
    import textwrap

    out: list[tuple[Entry | None, str]] = []
    for e in legend:
        for k, line in enumerate(textwrap.wrap(e.text, chars - (4 if e.badge else 0))):
            out.append((e if k == 0 else None, line))
    return out


def legend_svg(lines: list[tuple[Entry | None, str]], x: float, y: float, height: float) -> list[str]:
    """The legend's lines from (x, y) down, ``height`` apart: a badge, then its reason; a note's lines plain."""
    out = []
    indent = 0.0
    for k, (e, line) in enumerate(lines):
        base = y + height * (k + 1) - 4
        if e is not None:
            indent = 2 * BADGE_R + 8 if e.badge else 0.0
            if e.badge:
                out.append(badge(e.badge, x + BADGE_R, base - 4, e.tone, hollow=not e.on_card))
        out.append(f'<text class="cb-note" x="{_n(x + indent)}" y="{_n(base)}">{escape(line)}</text>')
    return out


def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")
