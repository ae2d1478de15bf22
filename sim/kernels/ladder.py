"""The planning players: beam search, iterated rollouts and nested Monte-Carlo search.

Each computes a whole line of play from the position it is asked about
(:func:`plan_decide`), keeps it in its workspace with the key of the
position before each move, and replays it on later calls as long as the
game follows it; when the line runs out without a win (or the game left
it) it plans again from where it stands with what is left of the deal's
node budget, and once that is spent it plays one policy step at a time.
A *node* is one position scored (:func:`.evaluate.evaluate`) or expanded;
budgets count them, so a player's games depend only on (seed, deal,
parameters), never on the clock.

- **beam** (:func:`beam_line`): layers of the ``width`` best positions by
  the evaluation, every position of the search at most once (64-bit
  position keys), safe foundation moves played alone; stops at a win,
  else the line ends at the best position met (most cards home, then
  score). Restarts with ``grow`` times the width while budget is left.
- **rollout** (Yan, Diaconis, Rusmevichientong & Van Roy 2004): the
  level-``L`` policy plays, from each child, the level-``L-1`` policy to
  its end and moves to the child whose line ends best (won, else most
  cards home, then score); level 0 is greedy (foundation moves first, else
  the best-scoring child).
- **nmcs** (Cazenave 2009): the same nesting over playouts of greedy with
  random noise added to each child's score, remembering the best line met
  at each level and following it.

No line passes through a position the game has already seen, nor twice
through one position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, MAX_MOVES, N_ALL_ACTIONS, N_TARGETS
from .engine import PH_SIZE, apply_keyed, fits, legal_actions, undo_keyed
from .evaluate import P_BUDGET, P_GROW, P_LEVEL, P_MAX_MOVES, P_NOISE, P_PATIENCE, P_SPREAD, P_WIDTH, STUCK_PENALTY, evaluate
from .layout import R_FOUND_TO_TAB, S_BASE, S_FOUND, STATE_SIZE, cards_home, is_won, moving_card
from .seen import key, power_of_two_at_least, seen, slot

BEAM = 3
ROLLOUT = 4
NMCS = 5

# slots of a planning player's meta array (workspace)
L_LEN = 0  #: moves in the plan
L_POS = 1  #: the next move of the plan to play
L_NODES = 2  #: nodes spent on this deal
L_CALLS = 3  #: moves played in this deal
L_SIZE = 4

_HOME_SCALE = 1000.0  #: a card home outweighs any difference of the evaluation's other terms
_MAX_LINKS = 1 << 25  #: beam: parent links kept at most (layers x width)
MAX_WIDTH = 1 << 16


@njit(cache=True)
def _is_home(s, c):
    f = c // 13
    b = s[S_BASE + f]
    if b < 0:
        return False
    o = c % 13 - b
    if o < 0:
        o += 13
    return o < s[S_FOUND + f]


@njit(cache=True)
def safe_home(s, r, card):
    """May ``card`` (whose foundation move is legal) go home without loss: no card still out could ever rest on it?

    Only where foundations keep their cards and the suit's base is set (a
    first card chooses the base: never automatic).
    """
    if r[R_FOUND_TO_TAB] != 0 or s[S_BASE + card // 13] < 0:
        return False
    rc = card % 13
    for k in range(2):
        rank = (rc + 12) % 13 if k == 0 else (rc + 1) % 13
        for f in range(4):
            d = f * 13 + rank
            if fits(r, d, card) and not _is_home(s, d):
                return False
    return True


@njit(cache=True)
def score(s, r, w, tb, ebuf, gscratch):
    """Cards home first, then the evaluation (a won position highest; no stuck penalty: cards home decide)."""
    v = evaluate(s, r, w, tb, ebuf, gscratch)
    if v < -STUCK_PENALTY / 2:
        v += STUCK_PENALTY
    return _HOME_SCALE * cards_home(s) + v


@njit(cache=True)
def _forced(s, r, acts, n):
    """A safe foundation move among ``acts[:n]``, or -1."""
    for k in range(n):
        a = acts[k]
        if a % N_TARGETS == FOUNDATION and safe_home(s, r, moving_card(s, a)):
            return a
    return -1


# --------------------------------------------------------------------------
# hash sets: the beam's closed set, the nested searches' current path
# --------------------------------------------------------------------------


@njit(cache=True)
def _add(table, h):
    """Insert ``h``; False if it was there already."""
    i = slot(table, h)
    if table[i] == h:
        return False
    table[i] = h
    return True


@njit(cache=True)
def _set_on(table, flags, h, on):
    """Put ``h`` on the path (``on`` = 1) or take it off (0); keys stay, so the set never needs deletion.

    ``flags[-1]`` counts the keys; a set three-quarters full takes no new
    ones (a playout may then pass a position twice; its length still bounds it).
    """
    i = slot(table, h)
    if table[i] == 0:
        if 4 * (flags[-1] + 1) > 3 * table.shape[0]:
            return
        table[i] = h
        flags[-1] += 1
    flags[i] = on


@njit(cache=True)
def _on_path(table, flags, h):
    i = slot(table, h)
    return table[i] == h and flags[i] != 0


# --------------------------------------------------------------------------
# beam search
# --------------------------------------------------------------------------


@njit(cache=True)
def _grown(table, used):
    """``table`` rebuilt twice as large (its ``used`` keys kept)."""
    big = np.zeros(2 * table.shape[0], np.uint64)
    for i in range(table.shape[0]):
        if table[i] != 0:
            big[slot(big, table[i])] = table[i]
    return big


@njit(cache=True)
def beam_line(s, r, w, tb, ph, game, width, budget, max_len, line, ebuf, gscratch):
    """One beam search of ``width`` from ``s``: (moves in ``line``, won, best score, nodes spent). ``s`` is left as it was.

    A layer's candidates are every child of the beam's positions that no
    earlier layer kept (nor the game saw); the ``width`` best by the
    evaluation, each position once, make the next layer. The search stops
    at a win, an empty layer, ``max_len`` layers, the budget, or
    ``w[P_PATIENCE]`` layers without a new card home.
    """
    local = np.zeros(1 << 12, np.uint64)
    n_local = 0
    link = np.zeros((16, width), np.int32)  # parent slot * N_ALL_ACTIONS + action, per layer (rows doubled as needed)
    cur = np.empty((width, STATE_SIZE), np.int8)
    nxt = np.empty((width, STATE_SIZE), np.int8)
    cph = np.empty((width, PH_SIZE), np.uint64)
    nph = np.empty((width, PH_SIZE), np.uint64)
    m_cand = width * 64
    c_par = np.empty(m_cand, np.int64)
    c_act = np.empty(m_cand, np.int64)
    c_val = np.empty(m_cand, np.float64)
    c_key = np.empty(m_cand, np.uint64)
    acts = np.empty(MAX_MOVES, np.int64)
    kept = np.zeros(width, np.int64)
    spread = np.int64(w[P_SPREAD])
    cur[0] = s
    cph[0] = ph
    _add(local, key(ph, s))
    n_local += 1
    n_cur = 1
    best = score(s, r, w, tb, ebuf, gscratch)
    best_d = 0
    best_j = 0
    most_home = cards_home(s)
    last_gain = 0
    nodes = 1
    won_d = -1
    won_j = 0
    won_a = 0
    layers = min(max_len, _MAX_LINKS // width)
    patience = max(1, np.int64(w[P_PATIENCE]))
    for d in range(layers):
        nc = 0
        for i in range(n_cur):
            st = cur[i]
            p = cph[i]
            n = legal_actions(st, r, acts, gscratch)
            f = _forced(st, r, acts, n)
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
                    won_d, won_j, won_a = d, i, a
                    break
                v = evaluate(st, r, w, tb, ebuf, gscratch)
                undo_keyed(st, r, p, t)
                if nc == m_cand:  # more children than room: keep the better ones seen so far
                    worst = 0
                    for q in range(1, nc):
                        if c_val[q] < c_val[worst]:
                            worst = q
                    if v <= c_val[worst]:
                        continue
                    nc -= 1
                    c_par[worst], c_act[worst], c_val[worst], c_key[worst] = c_par[nc], c_act[nc], c_val[nc], c_key[nc]
                c_par[nc] = i
                c_act[nc] = a
                c_val[nc] = v
                c_key[nc] = h
                nc += 1
            if won_d >= 0 or nodes >= budget:
                break
        if won_d >= 0 or nc == 0:
            break
        if d >= link.shape[0]:
            more = np.zeros((2 * link.shape[0], width), np.int32)
            more[: link.shape[0]] = link
            link = more
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
            v = c_val[c]
            if v < -STUCK_PENALTY / 2:
                v += STUCK_PENALTY
            home = cards_home(nxt[j])
            if home > most_home:
                most_home = home
                last_gain = d
            v += _HOME_SCALE * home
            if v > best:
                best = v
                best_d = d + 1
                best_j = j
        cur, nxt = nxt, cur
        cph, nph = nph, cph
        n_cur = n_nxt
        if nodes >= budget or d - last_gain >= patience:
            break
    if won_d >= 0:
        length = won_d + 1
        line[won_d] = won_a
        j = won_j
        best = np.inf
    else:
        length = best_d
        j = best_j
    for dd in range(length - 1 - (1 if won_d >= 0 else 0), -1, -1):
        line[dd] = link[dd, j] % N_ALL_ACTIONS
        j = link[dd, j] // N_ALL_ACTIONS
    return length, won_d >= 0, best, nodes


@njit(cache=True)
def plan_beam(s, r, w, tb, ph, game, budget, max_len, line, ebuf, gscratch):
    """Beams of growing width until a win or the budget is spent: (moves in ``line``, nodes spent)."""
    width = max(1, np.int64(w[P_WIDTH]))
    grow = np.int64(w[P_GROW])
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


# --------------------------------------------------------------------------
# rollouts and nested Monte-Carlo search
# --------------------------------------------------------------------------


@njit(cache=True)
def policy_step(s, r, w, tb, ph, game, path, flags, acts, noise, rng, ebuf, gscratch):
    """Level 0: a safe foundation move, else the best-scoring foundation move, else the best-scoring move
    (``noise`` > 0: each score plus a uniform draw below ``noise``), to a position neither seen nor on the path.

    Returns (action or -1, nodes spent).
    """
    n = legal_actions(s, r, acts, gscratch)
    f = _forced(s, r, acts, n)
    nodes = 0
    for sweep in range(2):  # foundation moves, then every move
        choice = -1
        best = -np.inf
        for k in range(n):
            a = acts[k]
            if sweep == 0 and a % N_TARGETS != FOUNDATION:
                continue
            if f >= 0 and a != f:
                continue
            t = apply_keyed(s, r, ph, a)
            h = key(ph, s)
            if seen(game, h) or _on_path(path, flags, h):
                undo_keyed(s, r, ph, t)
                continue
            v = evaluate(s, r, w, tb, ebuf, gscratch)
            nodes += 1
            undo_keyed(s, r, ph, t)
            if noise > 0:
                rng[0] += np.uint64(0x9E3779B97F4A7C15)
                z = rng[0]
                z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
                z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
                z = z ^ (z >> np.uint64(31))
                v += noise * (np.float64(z >> np.uint64(11)) / 9007199254740992.0)
            if v > best:
                best = v
                choice = a
        if choice >= 0:
            return choice, nodes
        f = -1
    return -1, nodes


@njit(cache=True)
def _advance(s, r, w, tb, ph, path, flags, a, n, at, best, toks, out, ebuf, gscratch):
    """Move ``n`` of a line: play ``a``, put the position on the path, record the move.

    Returns the line's (moves, moves up to its best position, best score) after it.
    """
    toks[n] = apply_keyed(s, r, ph, a)
    _set_on(path, flags, key(ph, s), 1)
    out[n] = a
    v = score(s, r, w, tb, ebuf, gscratch)
    if v > best:
        return n + 1, n + 1, v
    return n + 1, at, best


@njit(cache=True)
def _unwind(s, r, ph, path, flags, toks, n):
    """Take the line's ``n`` moves back, and their positions off the path: ``s`` is as the line found it."""
    for k in range(n - 1, -1, -1):
        _set_on(path, flags, key(ph, s), 0)
        undo_keyed(s, r, ph, toks[k])


@njit(cache=True)
def playout(s, r, w, tb, ph, game, path, flags, max_len, noise, rng, spent, out, ebuf, gscratch):
    """Level 0 played from ``s`` to its end (won, no move, ``max_len`` moves): its moves into ``out``.

    Returns (moves, moves up to its best position, best score); ``s`` is left as it was.
    """
    acts = np.empty(MAX_MOVES, np.int64)
    toks = np.empty(max(max_len, 1), np.int64)
    best = score(s, r, w, tb, ebuf, gscratch)
    spent[0] += 1
    at = 0
    n = 0
    while n < max_len and not is_won(s):
        a, nodes = policy_step(s, r, w, tb, ph, game, path, flags, acts, noise, rng, ebuf, gscratch)
        spent[0] += nodes
        if a < 0:
            break
        n, at, best = _advance(s, r, w, tb, ph, path, flags, a, n, at, best, toks, out, ebuf, gscratch)
    _unwind(s, r, ph, path, flags, toks, n)
    return n, at, best


@njit(cache=True)
def nested(level, s, r, w, tb, ph, game, path, flags, max_len, noise, memo, rng, spent, budget, out, ebuf, gscratch):
    """The level-``level`` policy played from ``s`` (its moves into ``out``): (moves, moves up to its best position, best score).

    Each move: every child (unseen, off the path) is played out by level
    ``level - 1``; the move goes to the child whose line scores best. With
    ``memo`` (nested Monte-Carlo search) the best line met so far is
    followed instead whenever it is better. Once ``spent`` reaches
    ``budget`` the rest is a level-0 playout. ``s`` is left as it was.
    """
    if level <= 0:
        return playout(s, r, w, tb, ph, game, path, flags, max_len, noise, rng, spent, out, ebuf, gscratch)
    kids = np.empty(MAX_MOVES, np.int64)
    toks = np.empty(max(max_len, 1), np.int64)
    sub = np.empty(max(max_len, 1), np.int64)
    memo_line = np.empty(max(max_len, 1), np.int64)
    memo_len = 0
    memo_best = -np.inf
    best = score(s, r, w, tb, ebuf, gscratch)
    at = 0
    n = 0
    tail = 0
    while n < max_len and not is_won(s):
        if spent[0] >= budget:  # the rest is a playout (it leaves ``s`` where it found it)
            m, m_at, v = playout(s, r, w, tb, ph, game, path, flags, max_len - n, noise, rng, spent, sub, ebuf, gscratch)
            out[n:n + m] = sub[:m]
            if v > best:
                best = v
                at = n + m_at
            tail = m
            break
        c = legal_actions(s, r, kids, gscratch)
        f = _forced(s, r, kids, c)
        if f >= 0:
            kids[0] = f
            c = 1
        choice = -1
        choice_v = -np.inf
        for k in range(c):
            a = kids[k]
            t = apply_keyed(s, r, ph, a)
            h = key(ph, s)
            if seen(game, h) or _on_path(path, flags, h):
                undo_keyed(s, r, ph, t)
                continue
            _set_on(path, flags, h, 1)
            spent[0] += 1
            m, m_at, v = nested(level - 1, s, r, w, tb, ph, game, path, flags, max_len - n - 1, noise, memo, rng, spent, budget, sub, ebuf, gscratch)
            _set_on(path, flags, h, 0)
            undo_keyed(s, r, ph, t)
            if v > choice_v:
                choice_v = v
                choice = a
            if memo and v > memo_best:  # the best line met from here: this move, then the child's line to its best position
                memo_best = v
                memo_line[n] = a
                memo_line[n + 1:n + 1 + m_at] = sub[:m_at]
                memo_len = n + 1 + m_at
            if v >= 1e8:  # a won line: no child does better
                break
        if choice < 0:
            break
        if memo and memo_len > n:
            choice = memo_line[n]
        n, at, best = _advance(s, r, w, tb, ph, path, flags, choice, n, at, best, toks, out, ebuf, gscratch)
    _unwind(s, r, ph, path, flags, toks, n)
    return n + tail, at, best


@njit(cache=True)
def _replay_keys(s, r, ph, line, n, keys):
    """The key of the position before each move of ``line[:n]``, played from ``s`` (left as it was)."""
    toks = np.empty(max(n, 1), np.int64)
    for k in range(n):
        keys[k] = key(ph, s)
        toks[k] = apply_keyed(s, r, ph, line[k])
    for k in range(n - 1, -1, -1):
        undo_keyed(s, r, ph, toks[k])


@njit(cache=True)
def plan_decide(s, r, kind, w, rng, plan, plan_keys, lm, game, tb, ph, ebuf, gscratch):
    """The planning players' move from ``s``: the plan's next move while the game follows it, else a new plan, else one greedy step."""
    h = key(ph, s)
    pos = lm[L_POS]
    if pos < lm[L_LEN] and plan_keys[pos] == h:
        lm[L_POS] = pos + 1
        lm[L_CALLS] += 1
        return plan[pos]
    lm[L_LEN] = 0
    lm[L_POS] = 0
    max_len = np.int64(w[P_MAX_MOVES]) - lm[L_CALLS]
    budget = np.int64(w[P_BUDGET]) - lm[L_NODES]
    if max_len > plan.shape[0]:
        max_len = plan.shape[0]
    if max_len > 0 and budget > 0:
        if kind == BEAM:
            n, spent = plan_beam(s, r, w, tb, ph, game, budget, max_len, plan, ebuf, gscratch)
        else:
            cap = power_of_two_at_least(2 * (budget + max_len) + 64)
            path = np.zeros(cap, np.uint64)
            flags = np.zeros(cap + 1, np.int64)
            _set_on(path, flags, h, 1)
            spent_a = np.zeros(1, np.int64)
            noise = w[P_NOISE] if kind == NMCS else 0.0
            n, _, _ = nested(max(np.int64(w[P_LEVEL]), 1), s, r, w, tb, ph, game, path, flags, max_len, noise, kind == NMCS,
                             rng, spent_a, budget, plan, ebuf, gscratch)
            spent = spent_a[0]
        lm[L_NODES] += max(spent, 1)
        if n > 0:
            _replay_keys(s, r, ph, plan, n, plan_keys)
            lm[L_LEN] = n
            lm[L_POS] = 1
            lm[L_CALLS] += 1
            return plan[0]
    path = np.zeros(64, np.uint64)
    flags = np.zeros(65, np.int64)
    acts = np.empty(MAX_MOVES, np.int64)
    a, _ = policy_step(s, r, w, tb, ph, game, path, flags, acts, 0.0, rng, ebuf, gscratch)
    lm[L_CALLS] += 1
    return a
