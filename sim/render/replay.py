"""A whole game as one self-contained HTML page that steps through it.

The page holds one SVG board (:func:`~sim.render.svg.board_svg` of the
deal, every card a glyph), the game's positions as compact JSON, and a small
inline script that moves the card glyphs to each position: first / previous
/ next / last buttons, the arrow keys (Home and End too), a slider, and the
move list with the current move highlighted (a click on a move goes there).
A status line gives the cards home, the empty piles and the base at each
step; a lost game ends on the position where the player stopped, with its
legal moves listed. Nothing is loaded from the network.

For the report::

    from sim.render.replay import write_replay
    rep = write_replay("streets-and-alleys", 17, "greedy", 0, "reports/replays/sa-17-greedy.html")
    rep.result, len(rep.moves), rep.path

``player="solver"`` (with parameters, e.g. ``"solver:budget_seconds=10"``)
replays the solver's win; a deal it proved lost, or could not settle,
gives a page showing the deal and saying so.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..core.board import Position
from ..core.cards import RANKS, SUITS, rank_of, suit_of
from ..core.deals import DEFAULT_SEED
from ..core.moves import Move
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

    @property
    def cards_home(self) -> int:
        return self.positions[-1].cards_home

    @property
    def title(self) -> str:
        seed = f" (seed {self.seed})" if self.seed != DEFAULT_SEED and not str(self.deal).startswith("pysol") else ""
        return f"{self.rules.name}, deal {self.deal}{seed}, played by {self.player}"


def record_replay(game, deal: int | str, player: str, seed: int = DEFAULT_SEED, *, max_moves: int | None = None,
                  state=None) -> Replay:
    """Play ``deal`` (or ``state``, e.g. a board) with ``player`` and keep every position."""
    from ..core.deals import parse_deal_id
    from ..core.game import Game
    from ..players.loop import play_choice
    from ..players.registry import choose_player, parse_player

    g = Game(game) if isinstance(game, str) else game
    choice = parse_player(player)
    if max_moves is not None:
        choice = choose_player(choice.name, {**choice.params, "max_moves": max_moves})
    start = g.deal(deal, seed) if state is None else state
    number = parse_deal_id(deal)[1] if state is None else 0
    record = play_choice(choice, start.copy(), seed, number)
    walk = start.copy()
    positions, cards = [walk.position()], []
    for m in record.moves:
        cards.append(moved_card(positions[-1], m, played=False))
        walk.push(m)
        positions.append(walk.position())
    result = str(record.result)
    legal = [] if result in ("won", "lost", "unknown") else list(walk.legal_moves)
    return Replay(g.rules, str(deal), seed, choice.label, result, list(record.moves), positions, cards, legal,
                  dict(record.extra or {}))


def write_replay(game, deal: int | str, player: str, seed: int = DEFAULT_SEED, path: str | Path = "replay.html", *,
                 max_moves: int | None = None) -> Replay:
    """Play ``deal`` of ``seed`` with ``player`` and write its replay page to ``path``; the :class:`Replay` (``.path`` set)."""
    rep = record_replay(game, deal, player, seed, max_moves=max_moves)
    path = Path(path)
    path.write_text(replay_html(rep), encoding="utf-8")
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


def replay_html(rep: Replay) -> str:
    """The page: one HTML file, no network."""
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
    }
    summary = ({"lost": "proved lost", "unknown": "unknown (budget spent)"}[rep.result] if solver_only else
               f"{rep.result.replace('_', ' ')} after {n} move{'s' * (n != 1)}, {rep.cards_home}/52 cards home")
    if "nodes" in rep.extra:
        summary += f" ({rep.extra['nodes']:,} positions searched)"
    moves_html = "\n".join(
        f'<li data-step="{i}"><span class="n">{i}.</span> {_move_html(m, c)}</li>'
        for i, (m, c) in enumerate(zip(rep.moves, rep.cards), start=1)
    ) or '<li class="none">no moves</li>'
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return _PAGE.format(
        title=html.escape(rep.title),
        summary=html.escape(summary),
        result=html.escape(rep.result),
        svg=svg,
        n=n,
        moves=moves_html,
        data=blob,
        css=_CSS,
        script=_SCRIPT,
        rules=html.escape(rules.description),
        ending=html.escape(ending),
        width=max(lay.width, 600),
    )


_CSS = """
:root { color-scheme: light; }
body { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; margin: 16px 20px; color: #1d2a22; background: #f3f1ea; }
h1 { font-size: 20px; margin: 0 0 4px; }
.sub { margin: 0 0 12px; color: #4a5a50; font-size: 13px; }
.summary { font-weight: bold; }
.summary.won { color: #1b7a3a; } .summary.stuck, .summary.gave_up, .summary.lost { color: #a3261b; } .summary.unknown { color: #8a6100; }
main { display: flex; gap: 18px; align-items: flex-start; flex-wrap: wrap; }
.board svg { display: block; max-width: 100%; height: auto; }
.controls { display: flex; align-items: center; gap: 8px; margin: 10px 0 6px; flex-wrap: wrap; }
.controls button { font-size: 15px; min-width: 42px; padding: 4px 10px; border: 1px solid #7b8a80; border-radius: 6px; background: #fff; cursor: pointer; }
.controls button:disabled { opacity: 0.4; cursor: default; }
.controls input[type=range] { flex: 1; min-width: 120px; }
.where { font-variant-numeric: tabular-nums; min-width: 120px; font-weight: bold; }
.status { font-size: 14px; margin: 4px 0; font-variant-numeric: tabular-nums; }
.ending { font-size: 14px; margin: 6px 0; padding: 8px 10px; border-radius: 6px; background: #fff; border-left: 5px solid #7b8a80; max-width: 860px; }
.ending.won { border-color: #1b7a3a; } .ending.stuck, .ending.gave_up, .ending.lost { border-color: #a3261b; } .ending.unknown { border-color: #c48a00; }
.ending.here { background: #fff6d8; }
aside { width: 250px; }
aside h2 { font-size: 14px; margin: 0 0 6px; }
ol.moves { list-style: none; margin: 0; padding: 0; max-height: 560px; overflow-y: auto; border: 1px solid #c9cfc6; border-radius: 6px; background: #fff; font-size: 13px; }
ol.moves li { padding: 2px 8px; cursor: pointer; white-space: nowrap; }
ol.moves li:hover { background: #eef3ec; }
ol.moves li.current { background: #ffe49a; font-weight: bold; }
ol.moves li.none { color: #6b6b6b; cursor: default; }
ol.moves .n { display: inline-block; min-width: 34px; color: #6b776f; text-align: right; }
ol.moves .mv { font-family: 'DejaVu Sans Mono', monospace; display: inline-block; min-width: 44px; }
ol.moves .to { color: #5d6b62; font-size: 12px; }
.c { font-weight: bold; display: inline-block; min-width: 30px; }
.c.red { color: #c0122c; } .c.black { color: #1b1b1b; }
.keys { font-size: 12px; color: #5d6b62; }
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
  var items = document.querySelectorAll('ol.moves li[data-step]');
  var hlSrc = svg.querySelector('.cb-hl-src'), hlDst = svg.querySelector('.cb-hl-dst');
  var current = -1;

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
  function show(k) {
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
    status.textContent = (k === 0 ? 'The deal' : 'After ' + st.m + ' (' + name(st.c) + ')') + ' · ' + home + '/52 cards home · ' +
      empty + ' empty pile' + (empty === 1 ? '' : 's') + ' · base ' + base;
    ending.classList.toggle('here', k === last);
    items.forEach(function (li) { li.classList.remove('current'); });
    if (k > 0 && items[k - 1]) {
      items[k - 1].classList.add('current');
      items[k - 1].scrollIntoView({block: 'nearest'});
    }
    document.getElementById('first').disabled = document.getElementById('prev').disabled = k === 0;
    document.getElementById('next').disabled = document.getElementById('last').disabled = k === last;
    document.body.setAttribute('data-step', k);
  }
  document.getElementById('first').onclick = function () { show(0); };
  document.getElementById('prev').onclick = function () { show(current - 1); };
  document.getElementById('next').onclick = function () { show(current + 1); };
  document.getElementById('last').onclick = function () { show(last); };
  slider.max = last;
  slider.oninput = function () { show(+slider.value); };
  items.forEach(function (li) { li.onclick = function () { show(+li.getAttribute('data-step')); }; });
  document.addEventListener('keydown', function (e) {
    if (e.target === slider || e.altKey || e.ctrlKey || e.metaKey) return;
    var to = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last}[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
  show(0);
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
<h1>{title}</h1>
<p class="sub"><span class="summary {result}">{summary}</span> · {rules}</p>
<main>
<section style="width: {width}px">
<div class="board">{svg}</div>
<div class="controls">
<button id="first" title="first (Home)" aria-label="first">|◀</button>
<button id="prev" title="previous (←)" aria-label="previous">◀</button>
<button id="next" title="next (→)" aria-label="next">▶</button>
<button id="last" title="last (End)" aria-label="last">▶|</button>
<input id="slider" type="range" min="0" max="{n}" value="0" aria-label="step">
<span id="where" class="where"></span>
</div>
<p id="status" class="status"></p>
<p id="ending" class="ending {result}">{ending}</p>
<p class="keys">Keys: ← → step, Home / End jump. The amber dashed outline is where the last move's card came from, the blue one where it went.</p>
</section>
<aside>
<h2>Moves</h2>
<ol class="moves">
{moves}
</ol>
</aside>
</main>
<script id="replay-data" type="application/json">{data}</script>
<script>{script}</script>
</body>
</html>
"""
