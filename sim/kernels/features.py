"""The features of a deal, compiled: what its layout looks like, and how far cheap players get from it.

:func:`deal_features` writes one row of ``N_STATIC + probes * N_PROBE`` floats
per state: the layout's features (slots ``F_*``), then, for each probe
player, the game it plays from the state (``PR_*``). Everything is read from
the state and the rules array as the engine reads them, never from a
game's name. :mod:`sim.explain.features` names the columns and says what
each means.

Each state is first put in a canonical pile order (tableau piles by their
bottom card, empty ones last; reserves likewise among themselves), so every
feature, the probes' games included, is the same for any order of the
piles, as the engine's canonical position is.

**Foundation order.** A card's order is its place in its suit's foundation
sequence counted from the base (0: the base card). The base is the
foundation's own once set; while a shared base is still to choose, the base
the rule sheet's advice would aim at (the rank whose four cards lie
shallowest in all, :func:`.evaluate.choose_target_bases`), and the ``F_BASE_*``
slots summarise the other bases; independent bases: each suit's
shallowest card. A slot that does not apply (a per-base summary where the
base is fixed, a finished suit's next card) holds NaN.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.moves import FOUNDATION, MAX_MOVES, N_TARGETS
from ..core.outcome import GAVE_UP
from ..core.rules import MAX_PILES, FoundationBase
from .hashing import apply_keyed, pile_keys
from .legal import SCRATCH_SIZE, fits, legal_actions
from .evaluate import choose_target_bases
from .layout import CAP, R_BASE_POLICY, R_NPILES, R_NTAB, S_BASE, S_CARDS, S_FOUND, S_HEIGHT, STATE_SIZE, action_source
from .play import clear, observe
from .players import decide, workspace
from .rng import seed_rng
from .seen import capacity, forget_all

# the layout's slots, per suit C D H S first
F_NEXT = 0  #: 4 slots: cards lying on the next card each suit's foundation needs
F_SECOND = 4  #: 4 slots: cards lying on the card each foundation needs after that one
F_NEXT_MAX = 8  #: the deepest of the four next cards
F_NEXT_SUM = 9  #: the four next cards' depths, summed
F_LOW_SUM = 10  #: depths of the first three cards each suit needs, summed (12 cards)
F_UNDER_SUIT = 11  #: cards lying under a card of their own suit that goes home after them
F_SUIT_PAIRS = 12  #: pairs of one suit, the later card lying above the earlier in one pile
F_BLOCKERS = 13  #: cards lying above a card (any suit) that goes home before them
F_LAST_UP = 14  #: cards of the last order (Kings under an Ace base) not at the bottom of their pile
F_UNDER_LAST = 15  #: cards lying under a card of the last order
F_RUN_CARDS = 16  #: cards resting on a card they could be built on
F_LONGEST_RUN = 17  #: the longest such run, in cards
F_MOVES = 18  #: legal moves at the start
F_HOME_MOVES = 19  #: foundation moves at the start
F_MOVABLE = 20  #: piles whose top card can move somewhere
F_HOME = 21  #: cards home at the start
F_EMPTY = 22  #: empty tableau piles at the start
F_LOW_TOP = 23  #: the first three cards of any suit lying on top of a pile
F_TALLEST = 24  #: cards in the tallest pile
F_BASES_TOP = 25  #: shared base to choose: base ranks showing on top of a pile (a foundation can start there at once)
F_BASE_DEPTH = 26  #: shared base to choose: the four base cards' depths summed, at the shallowest base
F_BASE_DEPTH2 = 27  #: shared base to choose: the same at the second shallowest base
F_BASE_BURIED = 28  #: shared base to choose: the fewest cards under a later card of their suit, over the bases
F_BASES_GOOD = 29  #: shared base to choose: bases within 2 of that fewest
N_STATIC = 30

# each probe's slots
PR_HOME = 0  #: cards home when its game ended
PR_MOVES = 1  #: moves it played
PR_EMPTY = 2  #: the most empty tableau piles it had at once
PR_WORST_SUIT = 3  #: the fewest cards home in one suit when its game ended
N_PROBE = 4

_SHARED = int(FoundationBase.FIRST_CARD_SHARED)
_NO_BASE = 99  #: an order no card has: foundations without a base yet


@njit(cache=True)
def deal_features(states, r, kinds, weights, max_moves, salts, out, record):
    """Write each state's features into ``out`` (``len(states)`` rows of ``N_STATIC + len(kinds) * N_PROBE``).

    ``record``: one record (:data:`~.play.GAME_ROW`) the probes' games are recorded in, given by the caller
    (a record taken from an array made here would not keep that array alive).

    ``states`` are state arrays (one a row, left unchanged); probe ``k`` is
    the compiled player of kind ``kinds[k]`` with parameters ``weights[k]``,
    move cap ``max_moves[k]`` and stream salt ``salts[k]``, played from the
    canonical state with a stream of seed 0, deal 0 (the same for every
    state: a board has no deal number).
    """
    n_probes = kinds.shape[0]
    most = 1
    for k in range(n_probes):
        most = max(most, max_moves[k])
    ws = workspace(capacity(most + 16))
    s = np.zeros(STATE_SIZE, np.int8)
    work = np.zeros(STATE_SIZE, np.int8)
    depth = np.zeros(52, np.int64)
    order = np.zeros(52, np.int64)
    tb = np.zeros(4, np.int64)
    acts = np.zeros(MAX_MOVES, np.int64)
    scratch = np.zeros(SCRATCH_SIZE, np.int64)
    rng = np.zeros(1, np.uint64)
    row = record[0]
    per_base = np.zeros((13, 2), np.int64)
    for i in range(states.shape[0]):
        _canonical(states[i], r, s)
        f = out[i]
        f[:] = np.nan
        _layout(s, r, f, depth, order, tb, acts, scratch, per_base)
        for k in range(n_probes):  # each probe's game from the canonical state
            work[:] = s
            seed_rng(rng, 0, 0, salts[k])
            forget_all(ws.seen, ws.used, ws.meta)
            ph = ws.keys
            pile_keys(work, r, ph)
            clear(row)
            while True:
                n = observe(work, r, ph, ws.seen, ws.used, ws.meta, row, ws.acts, ws.scratch, max_moves[k])
                if n < 0:
                    break
                a = decide(work, r, kinds[k], weights[k], rng, ws, ws.acts, n)
                if a < 0:
                    row.result = GAVE_UP
                    break
                apply_keyed(work, r, ph, a)
                row.moves += 1
            at = N_STATIC + k * N_PROBE
            f[at + PR_HOME] = row.cards_home
            f[at + PR_MOVES] = row.moves
            f[at + PR_EMPTY] = row.max_empty_piles
            least = 13
            for suit in range(4):
                least = min(least, np.int64(work[S_FOUND + suit]))
            f[at + PR_WORST_SUIT] = least
    return 0


@njit(cache=True)
def _canonical(src, r, s):
    """``src`` with its tableau piles sorted by bottom card (empty ones last), its reserves likewise, into ``s``."""
    s[:] = 0
    s[:S_HEIGHT] = src[:S_HEIGHT]
    n_piles = r[R_NPILES]
    n_tab = r[R_NTAB]
    keys = np.empty(MAX_PILES, np.int64)
    for p in range(n_piles):
        keys[p] = src[S_CARDS + p * CAP] if src[S_HEIGHT + p] > 0 else 99
    at = 0
    for lo, hi in ((0, n_tab), (n_tab, n_piles)):
        for _ in range(lo, hi):  # selection of the smallest key left, in place of a sort (13 piles at most)
            best = -1
            for p in range(lo, hi):
                if keys[p] >= 0 and (best < 0 or keys[p] < keys[best]):
                    best = p
            h = src[S_HEIGHT + best]
            s[S_HEIGHT + at] = h
            for j in range(h):
                s[S_CARDS + at * CAP + j] = src[S_CARDS + best * CAP + j]
            keys[best] = -1
            at += 1


@njit(cache=True)
def _layout(s, r, f, depth, order, tb, acts, scratch, per_base):
    """The layout's slots of ``f`` for state ``s`` (canonical), NaN where a slot does not apply."""
    n_piles = r[R_NPILES]
    # the base each suit counts from
    choose_target_bases(s, r, tb, depth)  # (also fills depth: cards above each card, -1 once home)
    to_choose = r[R_BASE_POLICY] == _SHARED and s[S_BASE] < 0
    for suit in range(4):
        if s[S_BASE + suit] >= 0:
            tb[suit] = s[S_BASE + suit]
    for c in range(52):
        b = tb[c // 13]
        order[c] = _NO_BASE if b < 0 else (c % 13 - b + 13) % 13
    # the cards each foundation needs next
    worst = 0
    total = 0
    low = 0
    for suit in range(4):
        home = np.int64(s[S_FOUND + suit])
        if tb[suit] < 0:
            continue
        for k in range(3):
            if home + k >= 13:
                break
            d = depth[suit * 13 + (tb[suit] + home + k) % 13]
            if d < 0:
                continue
            low += d
            if k == 0:
                f[F_NEXT + suit] = d
                worst = max(worst, d)
                total += d
            elif k == 1:
                f[F_SECOND + suit] = d
    f[F_NEXT_MAX] = worst
    f[F_NEXT_SUM] = total
    f[F_LOW_SUM] = low
    # pile by pile: what lies on what
    under_suit = 0
    pairs = 0
    blockers = 0
    last_up = 0
    under_last = 0
    run_cards = 0
    longest = 0
    empty = 0
    low_top = 0
    tallest = 0
    for p in range(n_piles):
        h = np.int64(s[S_HEIGHT + p])
        base = S_CARDS + p * CAP
        if h == 0:
            if p < r[R_NTAB]:
                empty += 1
            continue
        tallest = max(tallest, h)
        top = np.int64(s[base + h - 1])
        if order[top] - s[S_FOUND + top // 13] < 3:
            low_top += 1
        least = 99
        last_at = -1
        run = 1
        for i in range(h):
            c = np.int64(s[base + i])
            o = order[c]
            if o > least:
                blockers += 1
            elif o < least:
                least = o
            if o == 12:
                if i > 0:
                    last_up += 1
                last_at = i
            if i > 0 and fits(r, c, np.int64(s[base + i - 1])):
                run_cards += 1
                run += 1
            else:
                run = 1
            longest = max(longest, run)
            buried = False
            for j in range(i + 1, h):  # cards above c of its suit that go home after it
                d = np.int64(s[base + j])
                if d // 13 == c // 13 and order[d] > o:
                    pairs += 1
                    buried = True
            if buried:
                under_suit += 1
        under_last += last_at if last_at > 0 else 0
    f[F_UNDER_SUIT] = under_suit
    f[F_SUIT_PAIRS] = pairs
    f[F_BLOCKERS] = blockers
    f[F_LAST_UP] = last_up
    f[F_UNDER_LAST] = under_last
    f[F_RUN_CARDS] = run_cards
    f[F_LONGEST_RUN] = longest
    f[F_EMPTY] = empty
    f[F_LOW_TOP] = low_top
    f[F_TALLEST] = tallest
    # the moves at the start
    n = legal_actions(s, r, acts, scratch)
    home_moves = 0
    sources = 0
    for k in range(n):
        a = acts[k]
        if a % N_TARGETS == FOUNDATION:
            home_moves += 1
        src = action_source(a)
        if src < MAX_PILES:
            sources |= 1 << src
    movable = 0
    while sources != 0:
        movable += 1
        sources &= sources - 1
    f[F_MOVES] = n
    f[F_HOME_MOVES] = home_moves
    f[F_MOVABLE] = movable
    f[F_HOME] = s[S_FOUND] + s[S_FOUND + 1] + s[S_FOUND + 2] + s[S_FOUND + 3]
    if not to_choose:
        return
    # a shared base still to choose: every base looked at
    on_top = 0
    for b in range(13):
        shows = False
        for p in range(n_piles):
            h = s[S_HEIGHT + p]
            if h > 0 and s[S_CARDS + p * CAP + h - 1] % 13 == b:
                shows = True
        if shows:
            on_top += 1
        d = 0
        for suit in range(4):
            d += max(depth[suit * 13 + b], 0)
        per_base[b, 0] = d
        per_base[b, 1] = _buried_at(s, r, b)
    f[F_BASES_TOP] = on_top
    best = 1 << 30
    second = 1 << 30
    fewest = 1 << 30
    for b in range(13):
        d = per_base[b, 0]
        if d < best:
            second = best
            best = d
        elif d < second:
            second = d
        fewest = min(fewest, per_base[b, 1])
    good = 0
    for b in range(13):
        if per_base[b, 1] <= fewest + 2:
            good += 1
    f[F_BASE_DEPTH] = best
    f[F_BASE_DEPTH2] = second
    f[F_BASE_BURIED] = fewest
    f[F_BASES_GOOD] = good


@njit(cache=True)
def _buried_at(s, r, b):
    """Cards lying under a card of their own suit that goes home after them, were the base ``b``."""
    count = 0
    for p in range(r[R_NPILES]):
        h = s[S_HEIGHT + p]
        base = S_CARDS + p * CAP
        for i in range(h):
            c = s[base + i]
            o = (c % 13 - b + 13) % 13
            for j in range(i + 1, h):
                d = s[base + j]
                if d // 13 == c // 13 and (d % 13 - b + 13) % 13 > o:
                    count += 1
                    break
    return count
