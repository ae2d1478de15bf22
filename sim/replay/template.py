"""The replay page's fixed text: its HTML skeleton, its CSS and its inline script.

Why apart: some 300 lines of HTML, CSS and JavaScript that are the same for
every game, kept out of the Python that fills them in (:mod:`sim.replay.page`):
``str.format`` fields in :data:`PAGE`; in :data:`CSS`, ``__W__`` (the board's
width), ``__LIST__`` (the move list's) and ``__NARROW__`` (the narrowest window
that keeps them side by side). The script's ``show()`` moves the card glyphs
to each position: whatever on the board changes from move to move is drawn
there as well as in :mod:`sim.render.svg`.
"""

from __future__ import annotations

__all__ = ["CSS", "PAGE", "SCRIPT"]

CSS = """
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

SCRIPT = r"""
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

PAGE = """<!doctype html>
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
