"""A whole game as one self-contained HTML page that steps through it.

The page holds one SVG board (:func:`~sim.render.svg.board_svg` of the
deal, every card a glyph), the game's positions as compact JSON, and a small
inline script that moves the card glyphs to each position: first / previous
/ next / last buttons, the arrow keys (Home and End too), a slider, and the
move list with the current move highlighted (a click on a move goes there),
and a play / pause button (or the space bar) that steps on by itself.
A status line gives the cards home, the empty piles and the base at each
step; a lost game ends on the position where the player stopped, with its
legal moves listed. Nothing is loaded from the network.

The address links to the move shown: ``page.html#move=40`` opens at move 40,
and stepping rewrites the ``#move=N`` (without adding history entries). The
move list scrolls in its own box, beside the board while the board can keep
:data:`SIDE_BY_SIDE` of its size there; on a narrower window the board stays
at the top of the window and the list scrolls below it. Stepping keeps the
current move in view inside the list, never scrolling the board away.
``back=`` puts a link back to the report on top; a :class:`Replay` with
``marks`` colours each move of the list by a verdict (``mark-keeps``,
``mark-loses``, ``mark-unknown``, ``mark-lost``) with a legend.

``review=True`` has the solver judge the game (:func:`sim.solver.review.review`):
every move is coloured by its verdict, the first losing move carries a red
badge "first mistake" with the moves that would have kept the deal listed
under it, the status line says so when the replay reaches it, and a note on
top sums it up; a won game's critical moves (the only move that kept the deal
winnable there) carry a badge "critical". ``moves=`` replays a given list of
moves (a person's game) instead of a player's.

For the report::

    from sim.render.replay import write_replay
    rep = write_replay("streets-and-alleys", 17, "greedy", 0, "reports/replays/sa-17-greedy.html")
    rep.result, len(rep.moves), rep.path

``player="solver"`` (with parameters, e.g. ``"solver:budget_seconds=10"``)
replays the solver's win, tidied for reading by :func:`~sim.render.tidy.tidy_line`
(shuffles that go nowhere taken out; the page says so and how long the
solver's own line was; ``tidy=False`` shows the line as the solver found it);
a deal it proved lost, or could not settle, gives a page showing the deal
and saying so.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.board import Position
from ..core.cards import RANKS, SUITS, rank_of, suit_of
from ..core.deals import DEFAULT_SEED
from ..core.moves import IllegalMoveError, Move
from ..core.rules import MAX_PILES, Rules
from .svg import CARD_H, FAN, Layout, base_label, board_svg, moved_card, rank_label

__all__ = ["Replay", "record_replay", "replay_html", "write_replay"]

#: what the page says about each way a game ends
ENDINGS = {
    "won": "won: all 52 cards are home",
    "stuck": "stuck: no legal move is left",
    "gave_up": "gave up: the player stopped on this position (no move to a position it had not seen, or the move cap)",
    "lost": "the solver proved this deal lost: no sequence of moves wins it, so there is no game to replay",
    "unknown": "the solver's budget ran out before it found a win or proved there is none, so there is no game to replay",
}


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
    path: Path | None = None  #: where :func:`write_replay` wrote the page
    #: a verdict per move (``"keeps"``, ``"loses"``, ``"lost"``, ``"unknown"`` or None), drawn as ``mark-<value>`` classes
    marks: list[str | None] | None = None
    #: the solver's own line's length when ``moves`` is that line tidied for reading (:mod:`sim.render.tidy`)
    tidied_from: int | None = None
    #: the review's findings (:func:`sim.solver.review.review`): the first losing move (index into ``moves``),
    #: the moves that would have kept the deal there, the critical moves (indexes), and its one-sentence note
    first_mistake: int | None = None
    alternatives: list[Move] = field(default_factory=list)
    critical: list[int] = field(default_factory=list)
    review_note: str | None = None  #: None: not reviewed

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

    A solver's win is shown tidied (:func:`~sim.render.tidy.tidy_line`) unless ``tidy=False``. ``moves``: a
    list of moves (Moves or their text) to replay instead of a player's game; ``player`` is then only the name
    the page gives it (default "a list of moves"); a move not legal where it comes raises
    :class:`~sim.core.moves.IllegalMoveError`. ``review``: the solver judges the game
    (:func:`sim.solver.review.review`): marks, the first mistake and what would have kept the deal, critical moves.
    """
    from ..core.deals import parse_deal_id
    from ..game import Game
    from ..players.loop import play_choice
    from ..players.registry import choose_player, parse_player

    g = Game(game) if isinstance(game, str) else game
    start = g.deal(deal, seed) if state is None else state
    extra: dict = {}
    if moves is not None:
        moves = [m if isinstance(m, Move) else Move.from_str(str(m)) for m in moves]
        label, tidied_from = player or "a list of moves", None
        walk = start.copy()
        for i, m in enumerate(moves):
            try:
                walk.push(m)
            except IllegalMoveError as e:
                raise IllegalMoveError(f"move {i + 1} ({m}): {e}") from None
        result = "won" if walk.is_won() else "stuck" if len(walk.legal_moves) == 0 else "gave_up"
    else:
        choice = parse_player(player)
        if max_moves is not None:
            choice = choose_player(choice.name, {**choice.params, "max_moves": max_moves})
        number = parse_deal_id(deal)[1] if state is None else 0
        record = play_choice(choice, start.copy(), seed, number)
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
        rep.critical, rep.review_note = list(rev.critical or []), rev.note
    return rep


def write_replay(game, deal: int | str, player: str | None, seed: int = DEFAULT_SEED, path: str | Path = "replay.html", *,
                 max_moves: int | None = None, back: str | None = None, tidy: bool = True, review: bool = False,
                 moves=None) -> Replay:
    """Play ``deal`` of ``seed`` with ``player`` and write its replay page to ``path``; the :class:`Replay` (``.path`` set).

    ``back``: a URL relative to the page (e.g. ``"../index.html"``) for a "back to the report" link on top.
    ``review`` and ``moves``: as :func:`record_replay`.
    """
    rep = record_replay(game, deal, player, seed, max_moves=max_moves, tidy=tidy, review=review, moves=moves)
    path = Path(path)
    path.write_text(replay_html(rep, back=back), encoding="utf-8")
    rep.path = path
    return rep


def _pile_or_suit(move: Move, card: int | None, source: bool) -> int | str | None:
    """Where a move's outline goes: a pile index, or the suit letter of a foundation."""
    if source:
        return SUITS[move.source - MAX_PILES] if move.from_foundation else move.source
    if move.to_foundation:
        return SUITS[suit_of(card)] if card is not None else None
    return move.target


def _step(rules: Rules, pos: Position, move: Move | None, card: int | None) -> dict:
    """One position as the page's JSON: piles, foundation counts, base letters, the move that led here."""
    bases = [base_label(rules, pos, s).split()[-1] for s in range(4)]
    d = {"p": pos.piles, "f": pos.foundations, "b": "".join("T" if b == "10" else b for b in bases)}
    if move is not None:
        d["m"] = str(move)
        d["c"] = card
        d["h"] = [_pile_or_suit(move, card, True), _pile_or_suit(move, card, False)]
    return d


def _card_text(card: int | None) -> str:
    return "?" if card is None else rank_label(rank_of(card)) + "♣♦♥♠"[suit_of(card)]


def _card_html(card: int) -> str:
    r = rank_label(rank_of(card))
    colour = "red" if suit_of(card) in (1, 2) else "black"
    return f'<span class="c {colour}">{r}{"♣♦♥♠"[suit_of(card)]}</span>'


def _move_html(move: Move, card: int | None) -> str:
    what = _card_html(card) if card is not None else ""
    where = "to its foundation" if move.to_foundation else f"to pile {move.target + 1}"
    return f'{what} <span class="mv">{html.escape(str(move))}</span> <span class="to">{where}</span>'


#: what each verdict mark means, in the legend's order (other values are shown as they are)
MARKS = {
    "keeps": "keeps the deal winnable",
    "loses": "loses a winnable deal",
    "lost": "played in a game already lost",
    "unknown": "not settled",
}
#: the review's badges, as the legend explains them
BADGES = {
    "mistake": ("first mistake", "the first move that lost the winnable deal"),
    "critical": ("critical", "the only move that kept the deal winnable there"),
}
LIST_W = 256  #: the move list's width beside the board
SIDE_BY_SIDE = 0.72  #: the smallest scale of the board kept beside the move list; narrower, the list goes below


def _mark_class(mark: str) -> str:
    return "mark-" + re.sub(r"[^a-z0-9-]+", "-", str(mark).lower()).strip("-")


def _legend(marks: list[str | None], badges: tuple[str, ...] = ()) -> str:
    present = list(dict.fromkeys(m for m in marks if m))
    order = [m for m in MARKS if m in present] + [m for m in present if m not in MARKS]
    if not order and not badges:
        return ""
    items = "".join(f'<li class="{_mark_class(m)}">{html.escape(MARKS.get(m, m))}</li>' for m in order)
    items += "".join(f'<li class="badge-key"><span class="badge {b}">{BADGES[b][0]}</span> {BADGES[b][1]}</li>' for b in badges)
    return f'<ul class="legend" aria-label="what the colours of the moves mean">{items}</ul>'


def _badge(kind: str) -> str:
    text, title = BADGES[kind]
    return f' <span class="badge {kind}" title="{html.escape(title, quote=True)}">{text}</span>'


def _alternatives_text(rep: Replay) -> str:
    """The moves that would have kept the deal at the first mistake's position, each with its card."""
    pos = rep.positions[rep.first_mistake]
    return ", ".join(f"{m} ({_card_text(moved_card(pos, m, played=False))})" for m in rep.alternatives)


def _move_item(rep: Replay, i: int, move: Move, card: int | None) -> str:
    """One move of the list (``i`` from 1): its verdict's colour, and the review's badges and alternatives."""
    classes = [_mark_class(rep.marks[i - 1])] if rep.marks and rep.marks[i - 1] else []
    badges, after = "", ""
    if rep.first_mistake == i - 1:
        classes.append("first-mistake")
        badges += _badge("mistake")
        kept = _alternatives_text(rep) or "no other move was proved to keep it"
        after = f'<div class="instead">would have kept the deal: {html.escape(kept)}</div>'
    if i - 1 in rep.critical:
        classes.append("critical")
        badges += _badge("critical")
    attr = f' class="{" ".join(classes)}"' if classes else ""
    return (f'<li data-step="{i}"{attr}><a href="#move={i}"><span class="n">{i}.</span> {_move_html(move, card)}{badges}</a>'
            f'{after}</li>')


def _review_html(rep: Replay) -> str:
    """The note on top of a reviewed game: what the solver found, with a link to the first mistake."""
    if rep.review_note is None:
        return ""
    if rep.first_mistake is not None:
        k = rep.first_mistake + 1
        kept = _alternatives_text(rep)
        text = (f'<a href="#move={k}">Move {k} ({html.escape(str(rep.moves[k - 1]))})</a> is the first mistake: the deal was '
                f'winnable before it and is lost after it. '
                + (f"Would have kept the deal: {html.escape(kept)}." if kept else "No other move was proved to keep it."))
    else:
        note = rep.review_note
        text = html.escape(note[0].upper() + note[1:]) + "."
    if rep.critical:
        links = ", ".join(f'<a href="#move={i + 1}">{i + 1}</a>' for i in rep.critical)
        text += (f" Critical move{'s' * (len(rep.critical) != 1)} (the only move that kept the deal winnable there): "
                 f"{links}.")
    counts = {m: rep.marks.count(m) for m in MARKS} if rep.marks else {}
    told = ", ".join(f"{counts[m]} {MARKS[m].replace('keeps', 'keep' if counts[m] != 1 else 'keeps')}" for m in MARKS if counts.get(m))
    if told:
        text += f" Moves: {html.escape(told)}."
    return f'<p class="note review"><b>Reviewed by the solver.</b> {text}</p>'


def replay_html(rep: Replay, back: str | None = None) -> str:
    """The page: one HTML file, no network. ``back``: a relative URL for a "back to the report" link on top."""
    rules = rep.rules
    rows = max(max((len(p) for p in pos.piles[: rules.n_tableau]), default=1) for pos in rep.positions)
    lay = Layout(rules, max(rows, 1), title=False)
    svg = board_svg(rep.positions[0], rules, rows=rows)
    steps = [_step(rules, rep.positions[0], None, None)]
    steps += [_step(rules, pos, m, c) for pos, m, c in zip(rep.positions[1:], rep.moves, rep.cards)]
    n = len(rep.moves)
    solver_only = rep.result in ("lost", "unknown")
    ending = ENDINGS.get(rep.result, rep.result)
    if rep.legal_at_end:
        final = rep.positions[-1]
        ending += f"; its legal moves ({len(rep.legal_at_end)}): " + ", ".join(
            f"{m} ({_card_text(moved_card(final, m, played=False))})" for m in rep.legal_at_end)
    elif rep.result == "gave_up":
        ending += "; no legal move is left"
    ending = ending[0].upper() + ending[1:] + "." if solver_only else "At the end: " + ending + "."
    data = {
        "layout": lay.to_json(),
        "fanH": FAN, "cardH": CARD_H,
        "nTableau": rules.n_tableau,
        "ranks": RANKS, "suits": SUITS,
        "steps": steps,
        "result": rep.result,
        "name": rules.name,
        "end": ENDINGS.get(rep.result, rep.result).split(":")[0],
    }
    summary = ({"lost": "proved lost", "unknown": "unknown (budget spent)"}[rep.result] if solver_only else
               f"{rep.result.replace('_', ' ')} after {n} move{'s' * (n != 1)}, {rep.cards_home}/52 cards home")
    if "nodes" in rep.extra:
        summary += f" ({rep.extra['nodes']:,} positions searched)"
    note = ""
    if rep.tidied_from is not None:
        note = (f'<p class="note">The solver\'s win, tidied for reading: {n} move{"s" * (n != 1)} '
                f'(its line had {rep.tidied_from}; moves that only shuffled a card away and back are taken out).</p>')
    marks = rep.marks
    if marks is not None and len(marks) != n:
        raise ValueError(f"{len(marks)} marks for {n} moves")
    moves_html = "\n".join(
        _move_item(rep, i, m, c) for i, (m, c) in enumerate(zip(rep.moves, rep.cards), start=1)
    ) or '<li class="none">no moves</li>'
    if rep.review_note is not None:
        data["review"] = {"first": None if rep.first_mistake is None else rep.first_mistake + 1,
                          "instead": _alternatives_text(rep) if rep.first_mistake is not None else "",
                          "critical": [i + 1 for i in rep.critical]}
    badges = tuple(b for b, on in (("mistake", rep.first_mistake is not None), ("critical", bool(rep.critical))) if on)
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    narrow = round(SIDE_BY_SIDE * lay.width) + LIST_W + 18 + 40
    css = _CSS.replace("__W__", str(lay.width)).replace("__LIST__", str(LIST_W)).replace("__NARROW__", str(narrow))
    back_html = (f'<nav class="back"><a href="{html.escape(back, quote=True)}">← back to the report</a></nav>'
                 if back else "")
    return _PAGE.format(
        title=html.escape(rep.title),
        summary=html.escape(summary),
        result=html.escape(rep.result),
        svg=svg,
        n=n,
        moves=moves_html,
        data=blob,
        css=css,
        script=_SCRIPT,
        rules=html.escape(rules.description),
        ending=html.escape(ending),
        back=back_html,
        note=note + _review_html(rep),
        legend=_legend(marks or [], badges) if marks or badges else "",
        play_disabled=" disabled" if n == 0 else "",
    )


_CSS = """
:root { color-scheme: light; --bg: #f3f1ea; }
body { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; margin: 16px 20px; color: #1d2a22; background: var(--bg); }
h1 { font-size: 20px; margin: 0 0 4px; }
.back { font-size: 14px; margin: 0 0 8px; }
.back a { color: #1c5f8a; text-decoration: none; } .back a:hover { text-decoration: underline; }
.sub { margin: 0 0 10px; color: #4a5a50; font-size: 13px; }
.note { margin: -4px 0 10px; font-size: 13px; color: #4a5a50; }
.summary { font-weight: bold; }
.summary.won { color: #1b7a3a; } .summary.stuck, .summary.gave_up, .summary.lost { color: #a3261b; } .summary.unknown { color: #8a6100; }
main.replay { display: grid; grid-template-columns: minmax(0, __W__px) __LIST__px; grid-template-rows: auto 1fr;
  grid-template-areas: "stage list" "notes list"; column-gap: 18px; align-items: start; }
.stage { grid-area: stage; min-width: 0; }
.notes { grid-area: notes; min-width: 0; }
aside.list { grid-area: list; position: sticky; top: 8px; min-width: 0; }
.board svg { display: block; max-width: 100%; height: auto; }
.controls { display: flex; align-items: center; gap: 6px 8px; margin: 10px 0 6px; flex-wrap: wrap; }
.controls button { font-size: 15px; min-width: 42px; padding: 4px 10px; border: 1px solid #7b8a80; border-radius: 6px; background: #fff; cursor: pointer; }
.controls button:disabled { opacity: 0.4; cursor: default; }
.controls button#play { min-width: 92px; }
.controls button#play[aria-pressed=true] { background: #ffe49a; }
.controls input[type=range] { flex: 1; min-width: 120px; }
.controls select { font-size: 13px; }
.where { font-variant-numeric: tabular-nums; min-width: 120px; font-weight: bold; }
.status { font-size: 14px; margin: 4px 0; font-variant-numeric: tabular-nums; }
.ending { font-size: 14px; margin: 6px 0; padding: 8px 10px; border-radius: 6px; background: #fff; border-left: 5px solid #7b8a80; max-width: 860px; }
.ending.won { border-color: #1b7a3a; } .ending.stuck, .ending.gave_up, .ending.lost { border-color: #a3261b; } .ending.unknown { border-color: #c48a00; }
.ending.here { background: #fff6d8; }
aside h2 { font-size: 14px; margin: 0 0 6px; }
ol.moves { position: relative; list-style: none; margin: 0; padding: 0; overflow-y: auto; overflow-x: hidden;
  max-height: max(240px, min(calc(100vh - 16px - var(--list-head, 24px)), calc(var(--stage-h, 580px) - var(--list-head, 24px))));
  overscroll-behavior: contain; border: 1px solid #c9cfc6; border-radius: 6px; background: #fff; font-size: 13px; }
ol.moves li { padding: 0; white-space: nowrap; }
ol.moves li a { display: block; padding: 2px 8px; color: inherit; text-decoration: none; overflow: hidden; text-overflow: ellipsis; }
ol.moves li a:focus-visible { outline: 2px solid #1c8fc0; outline-offset: -2px; }
ol.moves li:hover { background: #eef3ec; }
ol.moves li.mark-keeps { box-shadow: inset 5px 0 #2e9d55; }
ol.moves li.mark-loses { box-shadow: inset 5px 0 #c0392b; background: #fbe3e0; }
ol.moves li.mark-unknown { box-shadow: inset 5px 0 #a9a9a9; }
ol.moves li.mark-lost { box-shadow: inset 5px 0 #dcc9c6; color: #6f6f6f; }
ol.moves li.first-mistake { background: #f7cdc7; box-shadow: inset 5px 0 #c0392b, inset 0 0 0 1px #c0392b; }
ol.moves li.first-mistake a, ol.moves li.critical a { white-space: normal; }
ol.moves .instead { padding: 0 8px 4px 42px; font-size: 12px; color: #7a1d14; white-space: normal; }
.badge { display: inline-block; font-size: 10.5px; font-weight: bold; line-height: 1.35; padding: 0 6px; border-radius: 8px;
  color: #fff; vertical-align: 1px; white-space: nowrap; }
.badge.mistake { background: #c0392b; } .badge.critical { background: #1c5f8a; }
ol.moves li.current { background: #ffe49a; font-weight: bold; }
ol.moves li.none { color: #6b6b6b; padding: 2px 8px; }
ol.moves .n { display: inline-block; min-width: 34px; color: #6b776f; text-align: right; }
ol.moves .mv { font-family: 'DejaVu Sans Mono', monospace; display: inline-block; min-width: 44px; }
ol.moves .to { color: #5d6b62; font-size: 12px; }
ul.legend { list-style: none; margin: 0 0 6px; padding: 0; font-size: 12px; display: flex; flex-wrap: wrap; gap: 2px 10px; }
ul.legend li { padding-left: 10px; }
ul.legend li.mark-keeps { box-shadow: inset 5px 0 #2e9d55; } ul.legend li.mark-loses { box-shadow: inset 5px 0 #c0392b; }
ul.legend li.mark-unknown { box-shadow: inset 5px 0 #a9a9a9; } ul.legend li.mark-lost { box-shadow: inset 5px 0 #dcc9c6; }
ul.legend li.badge-key { padding-left: 0; }
.note.review { background: #fff; padding: 6px 10px; border-radius: 6px; border-left: 5px solid #1c5f8a; max-width: 860px; margin: 0 0 10px; color: #1d2a22; }
.note.review a { color: #1c5f8a; }
.status.at-mistake { color: #a3261b; font-weight: bold; }
.status.at-critical { color: #1c5f8a; }
.c { font-weight: bold; display: inline-block; min-width: 30px; }
.c.red { color: #c0122c; } .c.black { color: #1b1b1b; }
.keys { font-size: 12px; color: #5d6b62; }
@media (max-width: __NARROW__px) {
  /* too narrow for the board beside the list: the board stays on top, the list scrolls in its own box below */
  main.replay { grid-template-columns: minmax(0, 1fr); grid-template-rows: auto; grid-template-areas: "stage" "list" "notes"; }
  .stage { position: sticky; top: 0; z-index: 2; background: var(--bg); padding: 6px 0 2px; box-shadow: 0 7px 6px -6px rgba(0, 0, 0, 0.3); }
  .board svg { width: auto; max-height: 55vh; }
  .controls { margin: 6px 0 2px; }
  aside.list { position: static; margin-top: 8px; }
  ol.moves { max-height: max(150px, calc(100vh - var(--stage-h, 60vh) - var(--list-head, 24px) - 12px)); }
}
"""

_SCRIPT = r"""
(function () {
  var data = JSON.parse(document.getElementById('replay-data').textContent);
  var steps = data.steps, lay = data.layout, last = steps.length - 1;
  var RANKS = data.ranks, SUITS = data.suits;
  var svg = document.querySelector('.board svg');
  var layer = svg.querySelector('.cb-cards');
  var glyph = {};
  layer.querySelectorAll('.cb-card').forEach(function (g) { glyph[g.getAttribute('data-card')] = g; });
  function name(c) { var r = c % 13; return (r === 9 ? '10' : RANKS[r]) + '\u2663\u2666\u2665\u2660'[Math.floor(c / 13)]; }
  function label(c) { var r = c % 13; return (r === 9 ? '10' : RANKS[r]) + SUITS[Math.floor(c / 13)]; }
  var slider = document.getElementById('slider'), where = document.getElementById('where');
  var status = document.getElementById('status'), ending = document.getElementById('ending');
  var list = document.querySelector('ol.moves');
  var items = document.querySelectorAll('ol.moves li[data-step]');
  var hlSrc = svg.querySelector('.cb-hl-src'), hlDst = svg.querySelector('.cb-hl-dst');
  var playBtn = document.getElementById('play'), speed = document.getElementById('speed');
  var stage = document.querySelector('.stage');
  var current = -1, timer = null;

  function put(c, x, y, place) {
    var g = glyph[label(c)];
    g.setAttribute('transform', 'translate(' + x + ' ' + y + ')');
    g.setAttribute('data-place', place);
    layer.appendChild(g);  // later glyphs cover earlier ones: the top card last
  }
  function outline(rect, spot, st) {
    if (spot === null || spot === undefined) { rect.setAttribute('display', 'none'); return; }
    var x, y, h = data.cardH, pad = 4;
    if (typeof spot === 'string') {
      var xy = lay.foundations[SUITS.indexOf(spot)]; x = xy[0]; y = xy[1];
    } else {
      x = lay.piles[spot][0]; y = lay.piles[spot][1];
      var n = st.p[spot].length + (rect === hlSrc ? 1 : 0);
      if (!lay.reserve[spot]) h += data.fanH * Math.max(n - 1, 0);
    }
    rect.setAttribute('x', x - pad); rect.setAttribute('y', y - pad);
    rect.setAttribute('width', lay.cw + 2 * pad); rect.setAttribute('height', h + 2 * pad);
    rect.removeAttribute('display');
  }
  // the current move in view inside the list, with a little context, never scrolling the page: within
  // the part of the list's box that is on screen (below the board when the board stays on top)
  function keepInList(li) {
    var box = list.getBoundingClientRect(), r = li.getBoundingClientRect(), pad = 2 * r.height;
    var top = Math.max(box.top, 0), bottom = Math.min(box.bottom, window.innerHeight);
    var onTop = getComputedStyle(stage).position === 'sticky';
    if (onTop) top = Math.max(top, stage.getBoundingClientRect().bottom);
    if (bottom - top < 5 * r.height) { top = box.top; bottom = box.bottom; }
    if (r.top - pad < top) list.scrollTop -= top - (r.top - pad);
    else if (r.bottom + pad > bottom) list.scrollTop += r.bottom + pad - bottom;
    // the board on top stays put: the page may scroll up under it to bring the list's end on screen
    r = li.getBoundingClientRect();
    if (onTop && r.bottom > window.innerHeight) window.scrollBy(0, Math.ceil(r.bottom + pad - window.innerHeight));
  }
  function setHash(k) {
    var h = '#move=' + k;
    if (location.hash === h) return;
    try { history.replaceState(history.state, '', h); } catch (e) { location.replace(h); }
  }
  function show(k, keepHash) {
    k = Math.max(0, Math.min(last, k));
    var st = steps[k];
    for (var s = 0; s < 4; s++) {
      var base = RANKS.indexOf(st.b[s]), fx = lay.foundations[s];
      for (var i = 0; i < st.f[s]; i++) put(13 * s + (base + i) % 13, fx[0], fx[1], 'foundation:' + SUITS[s]);
      svg.querySelector('.cb-base[data-suit="' + SUITS[s] + '"]').textContent = 'base ' + (st.b[s] === 'T' ? '10' : st.b[s]);
      svg.querySelector('.cb-count[data-suit="' + SUITS[s] + '"]').textContent = st.f[s] + '/13';
    }
    var empty = 0, home = 0;
    st.p.forEach(function (pile, p) {
      var xy = lay.piles[p];
      pile.forEach(function (c, i) { put(c, xy[0], xy[1] + (lay.reserve[p] ? 0 : data.fanH * i), 'pile:' + (p + 1)); });
      if (p < data.nTableau && pile.length === 0) empty++;
    });
    st.f.forEach(function (n) { home += n; });
    layer.querySelectorAll('.cb-moved').forEach(function (g) { g.classList.remove('cb-moved'); });
    if (st.m) {
      glyph[label(st.c)].classList.add('cb-moved');
      outline(hlSrc, st.h[0], st); outline(hlDst, st.h[1], st);
    } else { outline(hlSrc, null); outline(hlDst, null); }
    current = k;
    slider.value = k;
    where.textContent = k === 0 ? 'Start (' + last + ' moves)' : 'Move ' + k + ' of ' + last;
    var base = st.b.indexOf('?') >= 0 && st.b.replace(/\?/g, '') === '' ? 'not chosen' : st.b.split('').filter(function (v, i, a) { return a.indexOf(v) === i; }).join(' ').replace('T', '10');
    var did = k === 0 ? 'The deal' : 'After ' + st.m + ' (' + name(st.c) + ')';
    var rv = data.review, said = '';
    if (rv && rv.first === k) said = ' · first mistake: this move lost the winnable deal' + (rv.instead ? '; would have kept it: ' + rv.instead : '');
    else if (rv && rv.critical.indexOf(k) >= 0) said = ' · critical: the only move that kept the deal winnable here';
    status.textContent = did + ' · ' + home + '/52 cards home · ' +
      empty + ' empty pile' + (empty === 1 ? '' : 's') + ' · base ' + base + (k === last && last > 0 ? ' · the end: ' + data.end : '') + said;
    status.classList.toggle('at-mistake', !!rv && rv.first === k);
    status.classList.toggle('at-critical', !!rv && rv.first !== k && rv.critical.indexOf(k) >= 0);
    svg.setAttribute('aria-label', data.name + ': ' + (k === 0 ? 'the deal, ' + last + ' moves to come' :
      'move ' + k + ' of ' + last + ', ' + st.m + ' (' + name(st.c) + ')') + ', ' + home + '/52 cards home');
    ending.classList.toggle('here', k === last);
    items.forEach(function (li) { li.classList.remove('current'); li.removeAttribute('aria-current'); });
    if (k > 0 && items[k - 1]) {
      items[k - 1].classList.add('current');
      items[k - 1].setAttribute('aria-current', 'step');
      keepInList(items[k - 1]);
    }
    document.getElementById('first').disabled = document.getElementById('prev').disabled = k === 0;
    document.getElementById('next').disabled = document.getElementById('last').disabled = k === last;
    document.body.setAttribute('data-step', k);
    if (!keepHash) setHash(k);
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    playBtn.textContent = '\u25B6 play';
    playBtn.setAttribute('aria-pressed', 'false');
    document.body.removeAttribute('data-playing');
  }
  function tick() {
    if (current < last) show(current + 1);
    if (current >= last) stop();
  }
  function play() {
    if (last === 0) return;
    if (current >= last) show(0);
    if (timer !== null) clearInterval(timer);
    timer = setInterval(tick, +speed.value);
    playBtn.textContent = '\u275A\u275A pause';
    playBtn.setAttribute('aria-pressed', 'true');
    document.body.setAttribute('data-playing', '1');
  }
  function toggle() { if (timer !== null) stop(); else play(); }

  function fromHash() {
    var m = /(?:^#|&)move=(\d+)/.exec(location.hash);
    return m ? Math.max(0, Math.min(last, parseInt(m[1], 10))) : null;
  }
  document.getElementById('first').onclick = function () { show(0); };
  document.getElementById('prev').onclick = function () { show(current - 1); };
  document.getElementById('next').onclick = function () { show(current + 1); };
  document.getElementById('last').onclick = function () { show(last); };
  playBtn.onclick = toggle;
  speed.onchange = function () { if (timer !== null) play(); };
  slider.max = last;
  slider.oninput = function () { show(+slider.value); };
  items.forEach(function (li) {
    li.onclick = function (e) {
      e.preventDefault();  // the link's #move=N without a history entry
      if (e.detail && document.activeElement && li.contains(document.activeElement)) document.activeElement.blur();  // a mouse click leaves no focus ring behind
      show(+li.getAttribute('data-step'));
    };
  });
  window.addEventListener('hashchange', function () { var k = fromHash(); if (k !== null && k !== current) show(k, true); });
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var tag = e.target && e.target.tagName;
    if (e.key === ' ' || e.key === 'Spacebar') {
      if (tag === 'SELECT' || tag === 'TEXTAREA' || (tag === 'INPUT' && e.target.type !== 'range')) return;
      e.preventDefault();  // not a click of the focused button, not a page scroll
      if (!e.repeat) toggle();
      return;
    }
    if (e.target === slider || tag === 'SELECT') return;
    var to = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last}[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
  document.addEventListener('keyup', function (e) { if (e.key === ' ' && e.target.tagName === 'BUTTON') e.preventDefault(); });
  // the list's box as tall as the board beside it, or on a narrow window what the board on top leaves
  var aside = document.querySelector('aside.list'), root = document.documentElement.style;
  function measure() {
    root.setProperty('--stage-h', Math.ceil(stage.getBoundingClientRect().height) + 'px');
    root.setProperty('--list-head', Math.ceil(list.getBoundingClientRect().top - aside.getBoundingClientRect().top) + 'px');
    if (current > 0 && items[current - 1]) keepInList(items[current - 1]);
  }
  var start = fromHash();
  measure();
  show(start === null ? 0 : start, start === null);
  if (window.ResizeObserver) new ResizeObserver(measure).observe(stage);
  window.addEventListener('resize', measure);
})();
"""

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body data-step="0" data-result="{result}">
{back}
<h1>{title}</h1>
<p class="sub"><span class="summary {result}">{summary}</span> · {rules}</p>
{note}
<main class="replay">
<section class="stage">
<div class="board">{svg}</div>
<div class="controls">
<button id="first" title="first (Home)" aria-label="first">|◀</button>
<button id="prev" title="previous (←)" aria-label="previous">◀</button>
<button id="play" title="play / pause (space)" aria-pressed="false"{play_disabled}>▶ play</button>
<button id="next" title="next (→)" aria-label="next">▶</button>
<button id="last" title="last (End)" aria-label="last">▶|</button>
<input id="slider" type="range" min="0" max="{n}" value="0" aria-label="step">
<span id="where" class="where"></span>
<select id="speed" aria-label="autoplay speed" title="autoplay speed"{play_disabled}>
<option value="1200">slow</option><option value="600" selected>0.6 s a move</option><option value="250">fast</option>
</select>
</div>
<p id="status" class="status"></p>
</section>
<aside class="list">
<h2>Moves</h2>
{legend}<ol class="moves">
{moves}
</ol>
</aside>
<div class="notes">
<p id="ending" class="ending {result}">{ending}</p>
<p class="keys">Keys: ← → step, Home / End jump, space plays and pauses. The address links to the move shown (#move=N). The amber dashed outline is where the last move's card came from, the blue one where it went.</p>
</div>
</main>
<script id="replay-data" type="application/json">{data}</script>
<script>{script}</script>
</body>
</html>
"""
