"""The beam player's search: layers of the best positions by the evaluation, each position once.

:func:`plan_beam` runs beams of growing width until one wins or the node
budget is spent (:func:`beam_line` is one beam); :mod:`.planners` keeps and
replays the line it returns. Its parameters (width, grow, patience, spread,
with the evaluation's weights and the planners' budget and move cap) are
fields of the one parameter record, :mod:`.params`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import MAX_MOVES, N_ALL_ACTIONS
from .evaluate import evaluate
from .hashing import PH_SIZE, apply_keyed, undo_keyed
from .layout import STATE_SIZE, cards_home, is_won
from .legal import legal_actions
from .home_first import forced, line_value, score
from .seen import key, seen, slot

# the beam reads the parameter record's (:mod:`.params`) width, grow, patience and spread

MAX_WIDTH = 1 << 16
_MAX_LINKS = 1 << 25  #: parent links kept at most (layers x width)
_CHILDREN = 64  #: room for candidates per position of a layer (more: the better ones are kept)


@njit(cache=True)
def _add(table, h):
    """Insert ``h`` into the closed set ``table``; False if it was there already."""
    i = slot(table, h)
    if table[i] == h:
        return False
    table[i] = h
    return True


@njit(cache=True)
def _grown(table, used):
    """``table`` rebuilt twice as large (its ``used`` keys kept)."""
    big = np.zeros(2 * table.shape[0], np.uint64)
    for i in range(table.shape[0]):
        if table[i] != 0:
            big[slot(big, table[i])] = table[i]
    return big


@njit(cache=True)
def _offer(c_par, c_act, c_val, c_key, nc, i, a, v, h):
    """Child ``a`` of parent slot ``i`` (value ``v``, key ``h``) as candidate ``nc``: the new count of candidates.

    When every slot is taken, it replaces the worst candidate if it is better.
    """
    if nc == c_val.shape[0]:  # more children than room: keep the better ones seen so far
        worst = 0
        for q in range(1, nc):
            if c_val[q] < c_val[worst]:
                worst = q
        if v <= c_val[worst]:
            return nc
        nc -= 1
        c_par[worst], c_act[worst], c_val[worst], c_key[worst] = c_par[nc], c_act[nc], c_val[nc], c_key[nc]
    c_par[nc] = i
    c_act[nc] = a
    c_val[nc] = v
    c_key[nc] = h
    return nc + 1


@njit(cache=True)
def _expand(cur, cph, n_cur, r, w, tb, game, local, acts, cand, nodes, budget, ebuf, gscratch):
    """Every child of the layer's ``n_cur`` positions that no layer kept (nor the game saw), scored, as candidates.

    A safe foundation move is a position's only child. Stops after the
    parent at which ``nodes`` reaches ``budget``, or at once at a win.
    Returns (candidates, nodes, parent slot and action of the win or -1, 0).
    """
    c_par, c_act, c_val, c_key = cand
    nc = 0
    for i in range(n_cur):
        st = cur[i]
        p = cph[i]
        n = legal_actions(st, r, acts, gscratch)
        f = forced(st, r, acts, n)
        if f >= 0:
            acts[0] = f
            n = 1
        for k in range(n):
            a = acts[k]
            t = apply_keyed(st, r, p, a)
            h = key(p, st)
            if seen(game, h) or local[slot(local, h)] == h:
                undo_keyed(st, r, p, t)
                continue
            nodes += 1
            if is_won(st):
                undo_keyed(st, r, p, t)
                return nc, nodes, i, a
            v = evaluate(st, r, w, tb, ebuf, gscratch)
            undo_keyed(st, r, p, t)
            nc = _offer(c_par, c_act, c_val, c_key, nc, i, a, v, h)
        if nodes >= budget:
            break
    return nc, nodes, -1, 0


@njit(cache=True)
def _with_row(link, d):
    """``link`` with a row ``d`` (its rows doubled if needed)."""
    if d >= link.shape[0]:
        more = np.zeros((2 * link.shape[0], link.shape[1]), np.int32)
        more[: link.shape[0]] = link
        return more
    return link


@njit(cache=True)
def _select(cand, nc, cur, cph, n_cur, nxt, nph, r, d, link, local, n_local, kept, spread, value, home):
    """The next layer from the ``nc`` candidates: the best by value, each position once, into ``nxt`` and ``nph``.

    At most ``spread`` children of one parent (0: any number). Each kept
    position's parent and move go to ``link[d]``, its cards home to
    ``home``, its :func:`.home_first.line_value` to ``value``. Returns (its
    size, the closed set ``local`` (rebuilt larger when full), keys in it).
    """
    c_par, c_act, c_val, c_key = cand
    width = nxt.shape[0]
    order = np.argsort(-c_val[:nc], kind="mergesort")
    n_nxt = 0
    kept[:n_cur] = 0
    for q in range(nc):
        if n_nxt == width:
            break
        c = order[q]
        if spread > 0 and kept[c_par[c]] >= spread:
            continue  # diversity: no parent fills the next layer alone
        kept[c_par[c]] += 1
        if 2 * (n_local + 1) > local.shape[0]:
            local = _grown(local, n_local)
        if not _add(local, c_key[c]):
            continue  # another parent's child, kept already
        n_local += 1
        i = c_par[c]
        j = n_nxt
        n_nxt += 1
        nxt[j] = cur[i]
        nph[j] = cph[i]
        apply_keyed(nxt[j], r, nph[j], c_act[c])
        link[d, j] = np.int32(i * N_ALL_ACTIONS + c_act[c])
        home[j] = cards_home(nxt[j])
        value[j] = line_value(c_val[c], home[j])
    return n_nxt, local, n_local


@njit(cache=True)
def _trace(link, d, j, line):
    """The ``d`` moves leading to slot ``j`` of the layer after ``link[d - 1]``, into ``line[:d]``."""
    for dd in range(d - 1, -1, -1):
        line[dd] = link[dd, j] % N_ALL_ACTIONS
        j = link[dd, j] // N_ALL_ACTIONS


@njit(cache=True)
def beam_line(s, r, w, tb, ph, game, width, budget, max_len, line, ebuf, gscratch):
    """One beam search of ``width`` from ``s``: (moves in ``line``, won, best score, nodes spent). ``s`` is left as it was.

    A layer's candidates are every child of the beam's positions that no
    earlier layer kept (nor the game saw); the ``width`` best by the
    evaluation, each position once, make the next layer. The search stops
    at a win, an empty layer, ``max_len`` layers, the budget, or
    ``w.patience`` layers without a new card home. The line ends at the
    win, else at the best position met (:func:`.home_first.score`).
    """
    local = np.zeros(1 << 12, np.uint64)  # the closed set: every position a layer kept
    link = np.zeros((16, width), np.int32)  # parent slot * N_ALL_ACTIONS + action, per layer (rows doubled as needed)
    cur = np.empty((width, STATE_SIZE), np.int8)
    nxt = np.empty((width, STATE_SIZE), np.int8)
    cph = np.empty((width, PH_SIZE), np.uint64)
    nph = np.empty((width, PH_SIZE), np.uint64)
    value = np.empty(width, np.float64)
    home = np.empty(width, np.int64)
    m_cand = width * _CHILDREN
    cand = (np.empty(m_cand, np.int64), np.empty(m_cand, np.int64), np.empty(m_cand, np.float64), np.empty(m_cand, np.uint64))
    acts = np.empty(MAX_MOVES, np.int64)
    kept = np.zeros(width, np.int64)
    spread = w.spread
    cur[0] = s
    cph[0] = ph
    _add(local, key(ph, s))
    n_local = 1
    n_cur = 1
    best = score(s, r, w, tb, ebuf, gscratch)
    best_d = 0
    best_j = 0
    most_home = cards_home(s)
    last_gain = 0
    nodes = 1
    patience = max(1, w.patience)
    for d in range(min(max_len, _MAX_LINKS // width)):
        nc, nodes, won_i, won_a = _expand(cur, cph, n_cur, r, w, tb, game, local, acts, cand, nodes, budget, ebuf, gscratch)
        if won_i >= 0:
            line[d] = won_a
            _trace(link, d, won_i, line)
            return d + 1, True, np.inf, nodes
        if nc == 0:
            break
        link = _with_row(link, d)
        n_cur, local, n_local = _select(cand, nc, cur, cph, n_cur, nxt, nph, r, d, link, local, n_local, kept, spread,
                                        value, home)
        for j in range(n_cur):
            if home[j] > most_home:
                most_home = home[j]
                last_gain = d
            if value[j] > best:
                best = value[j]
                best_d = d + 1
                best_j = j
        cur, nxt = nxt, cur
        cph, nph = nph, cph
        if nodes >= budget or d - last_gain >= patience:
            break
    _trace(link, best_d, best_j, line)
    return best_d, False, best, nodes


@njit(cache=True)
def plan_beam(s, r, w, tb, ph, game, budget, max_len, line, ebuf, gscratch):
    """Beams of growing width until a win or the budget is spent: (moves in ``line``, nodes spent)."""
    width = max(1, w.width)
    grow = w.grow
    tmp = np.empty(max_len, np.int64)
    spent = 0
    best = -np.inf
    length = 0
    while spent < budget:
        n, won, v, nodes = beam_line(s, r, w, tb, ph, game, width, budget - spent, max_len, tmp, ebuf, gscratch)
        spent += nodes
        if v > best:
            best = v
            length = n
            line[:n] = tmp[:n]
        if won or grow <= 1 or width * grow > MAX_WIDTH or nodes < width:  # (a beam never full: a wider one is the same)
            break
        width *= grow
    return length, spent
