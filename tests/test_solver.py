"""The exact solver: wins replay, pruning never changes a verdict, and it agrees with its peers.

Budgets are small so the file runs in about a minute on two cores; deals a
budget leaves unresolved are skipped by the comparisons, and each comparison
asserts that enough deals were resolved for it to mean something.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys

import numpy as np
import pytest

from sim.core import reference
from sim.game import Game
from sim.core.moves import FOUNDATION, MAX_MOVES, Move
from sim.core.outcome import Result
from sim.core.rules import GAMES, MAX_PILES
from sim.kernels import apply_undo
from sim.kernels import deadend
from sim.kernels import hashing
from sim.kernels import legal as legal_kernel
from sim.kernels import layout
from sim.kernels import pruning
from sim.kernels import search as search_kernel
from sim.kernels import solver_table
from sim.kernels.table import table_slot
from sim.solver import fcsolve
from sim.solver.answer import solve, solve_deal
from sim.solver.rounds import Search, Slots, clock, run_until

WON, LOST, UNKNOWN = Result.WON, Result.LOST, Result.UNKNOWN

BC, SA, SC = Game("beleaguered-castle"), Game("streets-and-alleys"), Game("selective-castle")
QUICK = dict(budget_nodes=300_000, budget_seconds=20)


def _replays(game: Game, deal: int, moves) -> bool:
    """Push the moves into a fresh State and play them in the reference engine: all 52 home?"""
    state = game.deal(deal)
    pos = state.position()
    for m in moves:
        state.push(m)
        pos = reference.play(game.rules, pos, m)
    return state.is_won() and reference.is_won(pos) and pos.key() == state.position().key()


@pytest.mark.parametrize("game", [BC, SA, SC], ids=lambda g: g.rules.slug)
def test_wins_replay_in_both_engines(game):
    wins = 0
    for deal in range(1, 13):
        r = solve_deal(game, 0, deal, **QUICK)
        assert r.result in (WON, LOST, UNKNOWN)
        if r.result == WON:
            wins += 1
            assert _replays(game, deal, r.moves)
        else:
            assert r.moves == []
    assert wins >= 4


def test_position_one_move_from_a_win():
    rows = ["KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C AC", ":", ":", ":", ":", ":", ":", ":"]
    state = SA.from_board("Foundations: H-K C-0 D-K S-K\n" + "\n".join(rows))
    r = solve(SA, state)
    assert r.result == WON and len(r.moves) == 13 and all(m.to_foundation for m in r.moves)


def test_dead_board_is_lost():
    # Beleaguered Castle whose tops are four Kings and four Threes: no move at all
    piles = [f"2{s} 4{s} 5{s} 6{s} 7{s} 8{s} K{s}" for s in "CDHS"] + [f"9{s} T{s} J{s} Q{s} 3{s}" for s in "CDHS"]
    state = BC.from_board("Foundations: H-A C-A D-A S-A\n" + "\n".join(piles))
    assert len(state.legal_moves) == 0
    r = solve(BC, state)
    assert r.result == LOST and r.moves == []


def test_lost_after_search():
    # one free move that leads nowhere: the solver must search, then prove the loss
    piles = [f"2{s} 4{s} 5{s} 6{s} 7{s} 8{s} K{s}" for s in "CDHS"] + [f"9{s} T{s} J{s} Q{s} 3{s}" for s in "CDH"]
    piles.append("9S TS JS 3S QS")
    state = BC.from_board("Foundations: H-A C-A D-A S-A\n" + "\n".join(piles))
    assert len(state.legal_moves) > 0
    r = solve(BC, state)
    assert r.result == LOST and r.nodes > 1


def test_tiny_budget_is_unknown_not_a_guess():
    r = solve_deal(SA, 0, 1, budget_nodes=50)
    assert r.result == UNKNOWN and r.nodes <= 60


@pytest.mark.parametrize("slug", [g.slug for g in GAMES])
def test_incremental_hash_is_the_engines_canonical_hash(slug):
    """The table's keys are the engine's ``position_hash`` along random walks, in every game
    (foundation cards coming back in Castles in Spain, reserves in Castles End included)."""
    game = Game(slug)
    rng = np.random.default_rng(11)
    for deal in range(10):
        state = game.deal(deal)
        ph = np.zeros(hashing.PH_SIZE, np.uint64)
        hashing.pile_keys(state.array, state.rules_array, ph)
        tokens = []
        for _ in range(120):
            actions = state.legal_moves.actions()
            if len(actions) == 0:
                break
            tokens.append(hashing.apply_keyed(state.array, state.rules_array, ph, int(actions[rng.integers(len(actions))])))
            assert hashing.position_key(ph, state.array) == hashing.position_hash(state.array, state.rules_array)
        while tokens:
            hashing.undo_keyed(state.array, state.rules_array, ph, tokens.pop())
            assert hashing.position_key(ph, state.array) == hashing.position_hash(state.array, state.rules_array)


def _safe(game: Game, board: str, card: str, deeper: bool = False) -> bool:
    from sim.core.cards import parse_card

    state = game.from_board(board)
    rule = pruning.is_safe_home_deeper if deeper else pruning.is_safe_home
    return bool(rule(state.array, state.rules_array, parse_card(card)))


def test_deeper_safe_foundation_rule_cases():
    """Rule 4 of ``sim/solver/pruning.md``: safe once every card that could cover the card would itself be safe."""
    rows = lambda *piles: "\n".join(piles)  # noqa: E731
    # Beleaguered Castle: a Three is safe from the start (its covers, the Twos, carry only Aces, all home)
    bc = "Foundations: H-A C-2 D-A S-A\n" + rows(
        "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C", "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
        "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H", "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", ":", ":", ":", ":")
    assert not _safe(BC, bc, "3C") and _safe(BC, bc, "3C", deeper=True)
    # Streets and Alleys: a Two is safe while Aces are out (an Ace out can always go home)...
    sa = "Foundations: H-0 C-A D-0 S-0\n" + rows(
        "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C", "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D AD",
        "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H AH", "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S AS", ":", ":", ":", ":")
    assert not _safe(SA, sa, "2C") and _safe(SA, sa, "2C", deeper=True)
    # ...but a Three is not while an Ace is out: a Two on it may be what frees that Ace
    sa3 = "Foundations: H-0 C-2 D-A S-A\n" + rows(
        "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C", "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
        "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H AH", "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", ":", ":", ":", ":")
    assert not _safe(SA, sa3, "3C", deeper=True)
    # Selective Castle, base 7, all 7s home: a 9 is safe while 8s are out (8s carry only 7s)
    sc = "Foundations: H-7 C-8 D-7 S-7\n" + rows(
        "6C 5C 4C 3C 2C AC KC QC JC TC 9C", "6D 5D 4D 3D 2D AD KD QD JD TD 9D 8D",
        "6H 5H 4H 3H 2H AH KH QH JH TH 9H 8H", "6S 5S 4S 3S 2S AS KS QS JS TS 9S 8S", ":", ":", ":", ":")
    assert not _safe(SC, sc, "9C") and _safe(SC, sc, "9C", deeper=True)
    # the card just above the base is never safe this way with tableau wrap (its covers carry the last cards)
    sc8 = "Foundations: H-0 C-7 D-0 S-0\n" + rows(
        "6C 5C 4C 3C 2C AC KC QC JC TC 9C 8C", "6D 5D 4D 3D 2D AD KD QD JD TD 9D 8D 7D",
        "6H 5H 4H 3H 2H AH KH QH JH TH 9H 8H 7H", "6S 5S 4S 3S 2S AS KS QS JS TS 9S 8S 7S", ":", ":", ":", ":")
    assert not _safe(SC, sc8, "8C", deeper=True)


def test_safe_foundation_rule_cases():
    full = ["KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C", "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
            "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H", "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", ":", ":", ":", ":"]
    # Beleaguered Castle: Twos are always safe (all Aces home)
    assert _safe(BC, "Foundations: H-A C-A D-A S-A\n" + "\n".join(full), "2C")
    # Streets and Alleys: an Ace is safe; a Three is not while a Two is out
    board = "\n".join(full[:4] + ["AC", "AD", "AH", "AS"])
    assert _safe(SA, board, "AC")
    sa2 = "Foundations: H-A C-2 D-A S-A\n" + "\n".join(
        ["KC QC JC TC 9C 8C 7C 6C 5C 4C 3C", "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
         "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H", "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", ":", ":", ":", ":"])
    assert not _safe(SA, sa2, "3C")
    # Selective Castle, base 7 (one 7 home): an 8 is not safe while other 7s are out
    sc = "Foundations: H-0 C-7 D-0 S-0\n" + "\n".join(
        ["6C 5C 4C 3C 2C AC KC QC JC TC 9C 8C", "6D 5D 4D 3D 2D AD KD QD JD TD 9D 8D 7D",
         "6H 5H 4H 3H 2H AH KH QH JH TH 9H 8H 7H", "6S 5S 4S 3S 2S AS KS QS JS TS 9S 8S 7S", ":", ":", ":", ":"])
    assert not _safe(SC, sc, "8C")
    assert not _safe(SC, sc, "7D")  # a base card: the 6s could go on it
    # Selective Castle, base 7 with all four 7s home: the 8s are safe
    sc8 = "Foundations: H-7 C-7 D-7 S-7\n" + "\n".join(
        ["6C 5C 4C 3C 2C AC KC QC JC TC 9C 8C", "6D 5D 4D 3D 2D AD KD QD JD TD 9D 8D",
         "6H 5H 4H 3H 2H AH KH QH JH TH 9H 8H", "6S 5S 4S 3S 2S AS KS QS JS TS 9S 8S", ":", ":", ":", ":"])
    assert _safe(SC, sc8, "8C")
    # with tableau wrap an Ace holds Kings: base 9, Ace next, Kings not all home -> not safe
    scA = "Foundations: H-K C-K D-Q S-K\n" + "\n".join(
        ["8C 7C 6C 5C 4C 3C 2C AC", "8D 7D 6D 5D 4D 3D 2D AD KD", "8H 7H 6H 5H 4H 3H 2H AH",
         "8S 7S 6S 5S 4S 3S 2S AS", ":", ":", ":", ":"])
    assert not _safe(SC, scA, "AC")


TRAPS = [
    # Streets and Alleys: 3C may go home, but 2H must rest on it to free AH
    (SA, "Foundations: H-0 C-2 D-K S-K\nKH 3C\nAH 2H\nQH 4C 9C\nJH 3H 7C\nTH 6C 5C\nKC QC JC TC 8C 9H\n4H 6H 8H 7H\n5H\n"),
    # Selective Castle, base 9, wrap: AC may go home, but KH must rest on it to free 9H
    (SC, "Foundations: H-0 C-K D-8 S-8\nJH AC\n9H KH\n2C 6C 7C\n4C 5C\n8C 3C\n8H QH 7H\nTH 6H 5H\nAH 2H 4H 3H\n"),
]


@pytest.mark.parametrize("game,board", TRAPS, ids=["sa-three", "sc-ace-under-king"])
def test_unsafe_foundation_move_is_not_forced(game, board):
    """Boards won only by keeping a foundable card in the tableau: a wrong safety rule would lose them."""
    state = game.from_board(board)
    assert solve(game, state, prune=0).result == WON
    assert solve(game, state).result == WON
    state.push("1-F")
    assert solve(game, state, prune=0).result == LOST


def _reference_verdict(game: Game, deal: int, cap: int = 20_000) -> str:
    """Breadth-first search of every position with the reference engine alone (no pruning, real base rule)."""
    start = game.deal(deal).position()

    def key(pos):
        return (tuple(sorted(tuple(p) for p in pos.piles)), tuple(pos.foundations), tuple(pos.bases))

    seen, frontier = {key(start)}, [start]
    while frontier:
        nxt = []
        for pos in frontier:
            for move in reference.legal_moves(game.rules, pos):
                child = reference.play(game.rules, pos, move)
                if reference.is_won(child):
                    return WON
                k = key(child)
                if k not in seen:
                    seen.add(k)
                    nxt.append(child)
        if len(seen) > cap:
            return UNKNOWN
        frontier = nxt
    return LOST


@pytest.mark.parametrize("game,deal", [(SC, 54), (SA, 54), (SA, 97), (BC, 12), (BC, 13), (BC, 14), (SA, 3)],
                         ids=lambda x: getattr(getattr(x, "rules", None), "slug", str(x)))
def test_small_lost_deals_agree_with_exhaustive_reference_search(game, deal):
    """Deals small enough to enumerate in plain Python: the solver's proof of loss is checked without it."""
    assert _reference_verdict(game, deal) == LOST
    assert solve_deal(game, 0, deal).result == LOST


SWITCHES = [pruning.PRUNE_SAFE_FOUNDATION, pruning.PRUNE_SAME_CARD, pruning.PRUNE_CANONICAL, pruning.PRUNE_SAFE_DEEPER, pruning.PRUNE_DEAD_END]


@functools.lru_cache(maxsize=None)
def _switch_verdict(slug: str, deal: int, prune: int) -> str:
    """A deal's verdict under ``prune`` at the switch test's budget (the default's, once for all four switches)."""
    game = Game(slug)
    return solve(game, game.deal(deal), prune=prune, budget_nodes=120_000, budget_seconds=10).result


@pytest.mark.parametrize("switch", SWITCHES, ids=["safe-foundation", "same-card", "canonical", "safe-deeper", "dead-end"])
@pytest.mark.parametrize("game,deals", [(BC, range(100, 220)), (SA, range(100, 220)), (SC, range(100, 160))],
                         ids=["bc", "sa", "sc"])
def test_pruning_switch_never_changes_a_verdict(game, deals, switch):
    """300 deals per switch over the three games (150 for the dead-end test): every verdict both searches settle is the same.

    Each switch is flipped from the default: the three position-only rules
    turned off, the dead-end test and the same-card rule turned on (which also stops the rounds
    carrying proved-lost positions, so that is compared too). The budget
    spans three rounds, so most deals carry losses from round to round. The
    dead-end test takes every other deal: its exactness has its own test below
    (against a search of every position), and the suite must stay short.
    """
    if switch == pruning.PRUNE_DEAD_END:
        deals = deals[::2]
    compared = 0
    for deal in deals:
        on = _switch_verdict(game.rules.slug, deal, pruning.PRUNE_DEFAULT)
        off = _switch_verdict(game.rules.slug, deal, pruning.PRUNE_DEFAULT ^ switch)
        if UNKNOWN not in (on, off):
            assert on == off, f"deal {deal}: {on} with the rule, {off} without"
            compared += 1
    assert compared >= len(deals) // 3


def _way_home_by_brute_force(game: Game, s: np.ndarray, most: int) -> str | None:
    """Can a foundation move be reached from ``s`` by tableau moves? Every position searched as itself (no
    quotient): "exit", "dead", or None past ``most`` positions."""
    r = game.rules_array
    out, scratch = np.empty(MAX_MOVES, np.int64), np.empty(legal_kernel.SCRATCH_SIZE, np.int64)
    seen, stack = {hashing.position_hash(s, r)}, [s.copy()]
    while stack:
        p = stack.pop()
        acts = out[: legal_kernel.legal_actions(p, r, out, scratch)].copy()
        if any(layout.action_target(a) == FOUNDATION or layout.action_source(a) >= MAX_PILES for a in acts):
            return "exit"
        for a in acts:
            child = p.copy()
            apply_undo.apply(child, r, int(a))
            h = hashing.position_hash(child, r)
            if h not in seen:
                seen.add(h)
                stack.append(child)
                if len(seen) > most:
                    return None
    return "dead"


@pytest.mark.parametrize("game", [SA, BC], ids=lambda g: g.rules.slug)
def test_the_dead_end_test_agrees_with_a_search_of_every_position(game):
    """Rule 5's quotient (cards by rank, but for those the foundations take next) is exact: on positions met
    in random play just after a card went home, it finds a way home exactly when a search of the positions
    themselves does, and leaves the position as it was."""
    rng = np.random.default_rng(5)
    r = game.rules_array
    out, scratch = np.empty(MAX_MOVES, np.int64), np.empty(legal_kernel.SCRATCH_SIZE, np.int64)
    qt, qctx = np.zeros((1 << 16, 2), np.uint64), np.zeros(deadend.QCTX_SIZE, np.int64)
    qpath, qkids = np.zeros((20_001, deadend.QPATH_COLUMNS), np.int64), np.zeros(20_000 * deadend.KIDS_PER_LEVEL, np.int16)
    seen = {"exit": 0, "dead": 0}
    for deal in range(60):
        s = game.deal(deal).array.copy()
        for _ in range(400):
            n = legal_kernel.legal_actions(s, r, out, scratch)
            if n == 0:
                break
            a = int(out[rng.integers(n)])
            apply_undo.apply(s, r, a)
            if layout.action_target(a) != FOUNDATION or not deadend.applies(s, r) or layout.is_won(s):
                continue
            truth = _way_home_by_brute_force(game, s, 3000)
            if truth is None:
                continue
            qt[:] = 0  # each test on its own: what the table remembers is checked by the verdicts above
            before = s.copy()
            got = deadend.no_way_home(s, r, qt, qctx, qpath, qkids, 20_000)
            assert (s == before).all()
            assert {deadend.EXIT: "exit", deadend.DEAD_END: "dead"}[got] == truth, f"deal {deal}"
            seen[truth] += 1
    assert seen["exit"] >= 30 and seen["dead"] >= 10, seen


def _dead(search: Search) -> int:
    """How many positions the search's table holds proved lost."""
    return int((search.table[:, 1] >= solver_table.DEAD).sum())


def _exhaust(game: Game, deal: int, limits: list[int], prune: int = pruning.PRUNE_DEFAULT) -> tuple[str | None, list[int], int]:
    """Search ``deal`` in rounds of ``limits`` nodes (the last one unlimited), each restarting the search in a new order."""
    search = Search(game.rules_array, game.deal(deal).array.copy(), Slots(1 << 22, 1), prune)
    spent = []
    for order, limit in enumerate(limits + [10**9]):
        if order:
            search.restart(order)
        verdict = run_until(search, limit, float("inf"))
        spent.append(search.nodes)
        if verdict is not None:
            return verdict, spent, _dead(search)
    raise AssertionError("unreachable")


@pytest.mark.parametrize("game,deal", [(SA, 200), (BC, 160)], ids=["sa-200", "bc-160"])
def test_rounds_carrying_losses_cost_about_one_exhaustive_search(game, deal):
    """A lost deal: rounds in new orders, seeded with what the rounds before proved lost, store
    about as many positions in all as one exhaustive search (within the open components at each
    pause), and the last search ends with every position it holds proved lost."""
    verdict, (whole,), n_dead = _exhaust(game, deal, [])
    assert verdict == LOST and n_dead == whole  # a finished proof: everything closed
    verdict, spent, n_dead = _exhaust(game, deal, [whole // 8, whole // 4, whole // 4])
    assert verdict == LOST and len(spent) == 4
    assert whole <= sum(spent) <= whole * 1.05, (whole, spent)
    assert n_dead >= whole
    # with the same-card rule nothing is carried: every round starts again
    verdict, spent, n_dead = _exhaust(game, deal, [whole // 8, whole // 4, whole // 4], pruning.PRUNE_ALL)
    assert verdict == LOST and sum(spent) > whole * 1.5 and n_dead == 0


@pytest.mark.parametrize("game,deals", [(SA, (200, 2, 6)), (BC, (160, 2, 4))], ids=["sa", "bc"])
def test_skipping_the_move_back_is_the_same_search(game, deals):
    """``PRUNE_SKIP_UNDO`` is no pruning: the move back to the parent is known without a lookup, so
    the search visits the same positions in the same order and proves the same ones lost."""
    for deal in deals:
        runs = []
        for prune in (pruning.PRUNE_DEFAULT, pruning.PRUNE_DEFAULT & ~pruning.PRUNE_SKIP_UNDO):
            search = Search(game.rules_array, game.deal(deal).array.copy(), Slots(1 << 22, 1), prune)
            verdict = run_until(search, 10**9, float("inf"))
            runs.append((verdict, search.nodes, int(search.ctx[search_kernel.C_STORED]), _dead(search), search.moves()))
        assert runs[0] == runs[1], deal


def test_a_table_is_not_doubled_past_the_deadline():
    """Moving a full table into one twice its size takes seconds at large sizes; a solve whose deadline
    would pass meanwhile stops unresolved instead of overrunning its budget."""
    search = Search(SA.rules_array, SA.deal(200).array.copy(), Slots(1 << 22, 1), pruning.PRUNE_DEFAULT)
    size = search.table.shape[0]
    assert run_until(search, 10**9, clock() - 1.0) is None  # a deadline already past: the first full table stays
    assert search.status == search_kernel.TABLE_FULL and search.table.shape[0] == size
    assert run_until(search, 10**9, float("inf")) == LOST and search.table.shape[0] > size  # no deadline: it grows


def _whole(game: Game, deal: int) -> tuple[Result, int]:
    """The verdict and positions of one exhaustive round in a table that never fills."""
    search = Search(game.rules_array, game.deal(deal).array.copy(), Slots(1 << 22, 1), pruning.PRUNE_DEFAULT)
    return run_until(search, 10**9, float("inf")), int(search.ctx[search_kernel.C_STORED])


@pytest.mark.parametrize("game,deal", [(SA, 200), (BC, 160)], ids=["sa-200", "bc-160"])
def test_a_table_that_cannot_grow_forgets_its_cheapest_losses_and_still_proves_the_loss(game, deal):
    """A lost deal in a table that holds a fifth to a tenth of its reachable set: without ``FORGET_LOST``
    the search stops unresolved; with it the loss is proved all the same, in a few times the positions."""
    verdict, whole = _whole(game, deal)
    assert verdict == LOST and whole > 20_000
    size = 1 << (whole // 8).bit_length()
    assert whole / 10 < size * 0.85 < whole / 5
    stuck = Search(game.rules_array, game.deal(deal).array.copy(), Slots(size, 1), pruning.PRUNE_DEFAULT & ~pruning.FORGET_LOST)
    assert run_until(stuck, 10**9, float("inf")) is None and stuck.status == search_kernel.TABLE_FULL and stuck.forgotten == 0
    search = Search(game.rules_array, game.deal(deal).array.copy(), Slots(size, 1), pruning.PRUNE_DEFAULT)
    assert run_until(search, 10**9, float("inf")) == LOST
    assert search.table.shape[0] == size and search.forgotten > whole // 2
    assert whole <= search.nodes <= 3 * whole, (whole, search.nodes)


def test_forgetting_keeps_what_is_open_and_forgets_the_cheapest_losses():
    """The compaction in place: every position kept is found where the table says, the open
    component stack points at the same positions as before, nothing open is forgotten, and no
    proved loss kept is cheaper than one forgotten."""
    search = Search(SA.rules_array, SA.deal(200).array.copy(), Slots(1 << 22, 1), pruning.PRUNE_DEFAULT)
    assert run_until(search, 30_000, float("inf")) is None  # paused mid-search: open positions on the stack
    search.restart(1)
    assert run_until(search, 5_000, float("inf")) is None  # a second round: the first round's open ones are stale
    table, top = search.table, int(search.ctx[search_kernel.C_SCC_TOP])
    epoch = np.uint64(search.ctx[search_kernel.C_ROUND]) << solver_table.ROUND_SHIFT
    before = {int(k): int(v) for k, v in table if k}
    open_keys = [int(table[search.scc[j], 0]) for j in range(top)]
    assert top > 10 and all(before[k] < solver_table.DEAD and before[k] & ~int(solver_table.INDEX_MASK) == int(epoch) for k in open_keys)
    used = solver_table.forget(table, search.scc, top, epoch, len(before) // 2)
    after = {int(k): int(v) for k, v in table if k}
    assert used == len(after) <= len(before) - len(before) // 2
    assert all(before[k] == v for k, v in after.items())  # nothing changed value
    assert [int(table[search.scc[j], 0]) for j in range(top)] == open_keys  # re-pointed
    for k in after:  # every key kept is found by probing from its home
        slot = table_slot(table, np.uint64(k))
        assert slot < 0 and int(table[-1 - slot, 0]) == k
    gone = before.keys() - after.keys()
    stale = {k for k in gone if before[k] < solver_table.DEAD}
    assert stale and all(before[k] & ~int(solver_table.INDEX_MASK) != int(epoch) for k in stale)  # only an earlier round's open ones
    cost = lambda v: v & ~int(solver_table.DEAD)  # noqa: E731
    kept_losses = [cost(v) for v in after.values() if v >= solver_table.DEAD]
    assert max(cost(before[k]) for k in gone - stale) < min(kept_losses)


@pytest.mark.parametrize("game,deals", [(SA, range(1, 41)), (BC, range(1, 41))], ids=["sa", "bc"])
def test_a_small_table_forgetting_gives_the_same_verdicts(game, deals):
    """Forgetting changes the cost of a verdict, never the verdict: 40 deals per game in a table of
    4,096 slots (about 3,500 positions) against one that never fills; every win replays."""
    compared = forgot = 0
    for deal in deals:
        big = solve(game, game.deal(deal), budget_nodes=400_000, budget_seconds=30, portfolio=False, shorten=False)
        small = solve(game, game.deal(deal), budget_nodes=2_000_000, budget_seconds=30, table_size=1 << 12,
                      portfolio=False, shorten=False)
        if UNKNOWN not in (big.result, small.result):
            assert big.result == small.result, deal
            compared += 1
            forgot += small.nodes > big.nodes
        if small.result == WON:
            assert _replays(game, deal, small.moves)
    assert compared >= 25 and forgot >= 5, (compared, forgot)


def test_the_path_grows_to_a_quarter_of_the_slot_limit_and_no_further():
    """The path's arrays cost about four table slots a level: ``--table-size`` bounds them too.
    Streets and Alleys deal 7's first search goes deeper than 16,384 moves."""
    assert Slots(1 << 27, 1).max_depth == 1 << 25 and Slots(1 << 22, 13).max_depth == 1 << 20
    shallow = Search(SA.rules_array, SA.deal(7).array.copy(), Slots(1 << 16, 1), pruning.PRUNE_DEFAULT)
    assert run_until(shallow, 10**6, float("inf")) is None
    assert shallow.status == search_kernel.TOO_DEEP and shallow.tokens.shape[0] == 1 << 14
    deep = Search(SA.rules_array, SA.deal(7).array.copy(), Slots(1 << 18, 1), pruning.PRUNE_DEFAULT)
    run_until(deep, 10**6, float("inf"))
    assert deep.status != search_kernel.TOO_DEEP and deep.tokens.shape[0] > 1 << 14
    # a round stopped by the path's limit is followed by another in a new order, not by "unknown"
    won = solve(SA, SA.deal(7), table_size=1 << 16, budget_nodes=2_000_000, portfolio=False, shorten=False)
    assert won.result == WON and _replays(SA, 7, won.moves)


def test_a_start_already_proved_lost_is_lost_at_once():
    search = Search(SA.rules_array, SA.deal(200).array.copy(), Slots(1 << 22, 1), pruning.PRUNE_DEFAULT)
    assert run_until(search, 10**9, float("inf")) == LOST
    search.restart(5)
    assert run_until(search, 10**9, float("inf")) == LOST and search.nodes == 0


def test_a_restart_finds_the_same_win_set():
    """Wins survive restarts: a won deal paused after a few positions, restarted in other orders, is still won."""
    for deal in (2, 4, 5):
        search = Search(BC.rules_array, BC.deal(deal).array.copy(), Slots(1 << 22, 1), pruning.PRUNE_DEFAULT)
        verdict = None
        for order, limit in enumerate([50, 200, 1000, 10**9]):
            if order:
                search.restart(order)
            verdict = run_until(search, limit, float("inf"))
            if verdict is not None:
                break
        assert verdict == WON
        assert _replays(BC, deal, search.moves())


@pytest.mark.parametrize("game", [SA, BC, SC], ids=lambda g: g.rules.slug)
def test_shortened_wins_are_shorter_and_replayed(game):
    """The shortener only ever keeps a line that is no longer; ``solve`` replays it in both engines."""
    longer = 0
    for deal in range(1, 13):
        raw = solve_deal(game, 0, deal, budget_nodes=300_000, shorten=False)
        if raw.result != WON:
            continue
        short = solve_deal(game, 0, deal, budget_nodes=300_000)
        assert short.result == WON and len(short.moves) <= len(raw.moves)
        longer += len(short.moves) < len(raw.moves)
        state = game.deal(deal)
        for m in short.moves:
            state.push(m)
        assert state.is_won()
    assert longer >= 3


def test_streets_won_implies_selective_won():
    checked = 0
    for deal in range(200, 240):
        sa = solve_deal(SA, 0, deal, budget_nodes=200_000)
        if sa.result != WON:
            continue
        sc = solve_deal(SC, 0, deal, budget_nodes=2_000_000)
        assert sc.result != LOST, f"deal {deal}: won in Streets and Alleys, lost in Selective Castle"
        checked += sc.result == WON
    assert checked >= 10


def test_bases_mode_reports_every_rank():
    r = solve_deal(SC, 0, 7, bases=True, budget_nodes=3_000_000)
    assert set(r.bases) == set(range(13))
    assert r.result == (WON if WON in r.bases.values() else r.result)
    # base A of Selective Castle is Streets and Alleys plus the King-on-Ace wrap
    sa = solve_deal(SA, 0, 7)
    if sa.result == WON:
        assert r.bases[0] != LOST



def test_bases_share_one_table_size(monkeypatch):
    """``table_size`` bounds the tables of all 13 bases together, not each one; bases starved of
    slots wait, and when every open base is starved the call ends (unknown), it does not spin."""
    peak = []
    take = Slots.take

    def watched(self, n):
        granted = take(self, n)
        peak.append(self.used)
        return granted

    monkeypatch.setattr(Slots, "take", watched)
    roomy = solve_deal(SC, 0, 7, bases=True, budget_nodes=1_000_000)
    assert max(peak) > 1 << 16  # it needs more than the small limits below
    for size in (1 << 16, 1 << 12, 1024):
        peak.clear()
        tight = solve_deal(SC, 0, 7, bases=True, budget_nodes=1_000_000, budget_seconds=60, table_size=size)
        assert max(peak) <= size
        assert tight.nodes < 500_000  # stopped when all open bases were starved, long before the budget
        for base, verdict in tight.bases.items():  # less memory settles fewer bases, never other verdicts
            assert verdict in (UNKNOWN, roomy.bases[base]), base
    assert Slots(1024, 13).first * 13 <= 1024 and Slots(1 << 27, 1).first == 1 << 16

needs_fc = pytest.mark.skipif(not fcsolve.available(), reason="fc-solve not installed (freecell-solver-bin)")


@needs_fc
@pytest.mark.parametrize("game", [BC, SA], ids=["bc", "sa"])
def test_agrees_with_fc_solve(game):
    agreed = 0
    for deal in range(300, 336):
        state = game.deal(deal)
        fc = fcsolve.run(state, timeout=1.5)
        if fc.result == UNKNOWN:
            continue
        ours = solve(game, state, budget_nodes=1_000_000, budget_seconds=5)
        if ours.result != UNKNOWN:
            assert ours.result == fc.result, f"deal {deal}: fc-solve {fc.result}, ours {ours.result}"
            agreed += 1
    assert agreed >= 15


@needs_fc
def test_citadel_agrees_with_fc_solve_on_pysol_deals():
    """PySol's Citadel deals, the cards that go home while dealing laid as PySol lays them (the full 200 in bench_solver)."""
    game = Game("citadel")
    agreed = 0
    for n in range(1, 25):
        state = game.deal(f"pysol:{n}")
        fc = fcsolve.run(state, timeout=2)
        ours = solve(game, state, budget_nodes=1_000_000, budget_seconds=5)
        if UNKNOWN not in (fc.result, ours.result):
            assert ours.result == fc.result, f"pysol:{n}: fc-solve {fc.result}, ours {ours.result}"
            agreed += 1
    assert agreed >= 20


@needs_fc
def test_fc_board_has_colons_for_empty_piles():
    state = SA.from_board("Foundations: H-K C-Q D-K S-K\nKC\n-\n-\n-\n-\n-\n-\n-\n")
    text = fcsolve.fc_board(state)
    assert text.splitlines()[1:] == ["KC"] + [":"] * 7
    assert fcsolve.run(state).result == WON


def castle(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120)


def test_cli_solve_json_and_board(tmp_path):
    out = castle("solve", "bc", "3", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["result"] == WON and data["nodes"] > 0
    assert _replays(BC, 3, [Move.from_str(m) for m in data["moves"]])
    board = tmp_path / "b.txt"
    board.write_text(BC.deal(3).board_text())
    again = json.loads(castle("solve", "bc", "--board", str(board), "--json").stdout)
    assert again["result"] == WON


def test_cli_and_player_pass_the_dead_end_rule_on():
    """``--dead-end`` (and the solver player's ``dead_end=1``) reach the search: Streets and Alleys deal 200 is
    proved lost either way, in fewer positions with the rule (its layers without a way home are cut at once)."""
    rows = [json.loads(castle("solve", "sa", "200", "--json", *flag).stdout) for flag in ((), ("--dead-end",))]
    assert [r["result"] for r in rows] == [LOST, LOST]
    assert rows[1]["nodes"] < rows[0]["nodes"]
    from sim.solver.player import play_deal

    record = play_deal(SA.deal(200), 0, 200, 1_000_000, 20.0, 1 << 22, 0, 1000, dead_end=1)
    assert record.result == LOST and record.extra["nodes"] == rows[1]["nodes"]


def test_cli_bases():
    out = castle("solve", "sc", "7", "--bases", "--json", "--budget-nodes", "2000000")
    assert out.returncode == 0, out.stderr
    assert set(json.loads(out.stdout)["bases"]) == set("A23456789TJQK")


@pytest.mark.parametrize(
    "args",
    [("solve", "nogame", "1"), ("solve", "bc"), ("solve", "bc", "x"), ("solve", "bc", "1", "--bases"),
     ("solve", "bc", "--board", "/no/such/file"), ("solve", "bc", "1", "--table-size", "1000"),
     ("solve", "bc", "1", "--budget-nodes", "0")],
)
def test_cli_bad_input_is_one_line_and_exit_2(args):
    out = castle(*args)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


FAMILY = ["citadel", "chessboard", "fortress", "castles-end", "checkerboard", "ordered-suits", "castles-in-spain", "bakers-dozen"]


@pytest.mark.parametrize("slug", FAMILY)
def test_family_verdicts_do_not_depend_on_pruning_and_wins_replay(slug):
    """The rest of the family: every pruning switch off gives the same verdicts (wins are replayed by solve; not
    shortened here, which is the slow part of long depth-first wins)."""""
    game = Game(slug)
    compared = 0
    for deal in range(6):
        full = solve(game, game.deal(deal), budget_nodes=300_000, budget_seconds=20, shorten=False)
        bare = solve(game, game.deal(deal), budget_nodes=300_000, budget_seconds=20, prune=0, shorten=False)
        if "unknown" not in (full.result, bare.result):
            assert full.result == bare.result, f"{slug} deal {deal}"
            compared += 1
    assert compared >= 2


def test_the_portfolio_finds_a_win_the_depth_first_search_misses():
    """Streets and Alleys deal 21: no depth-first search so far settled it (unknown after 329M positions); the
    portfolio's beam, tried after a million positions, wins it, and the win replays in both engines."""
    alone = solve(SA, SA.deal(21), budget_nodes=2_000_000, budget_seconds=30, portfolio=False)
    assert alone.result == UNKNOWN
    with_beam = solve(SA, SA.deal(21), budget_nodes=2_000_000, budget_seconds=30)
    assert with_beam.result == WON and _replays(SA, 21, with_beam.moves)
    assert with_beam.nodes >= 1_000_000  # the depth-first search had its million positions first
    quick = solve(SA, SA.deal(3), budget_nodes=2_000_000, budget_seconds=30)
    assert quick.nodes < 1_000_000 or quick.result != UNKNOWN  # an easy deal never waits for the beam


def test_most_cards_home_is_the_best_any_reachable_position_has():
    """Baker's Dozen never fills an empty pile: the Jack of hearts goes home, then the King above the Queen blocks
    for good. Lost, with at most 50 cards home; the same board with the King last is won (52)."""
    bd = Game("bakers-dozen")
    lost = bd.from_board("Foundations: H-T C-K D-K S-K\nQH KH JH\n" + ":\n" * 12)
    res = solve(bd, lost, most_home=True)
    assert (res.result, res.most_home) == (LOST, 50)
    won = bd.from_board("Foundations: H-T C-K D-K S-K\nKH QH JH\n" + ":\n" * 12)
    assert solve(bd, won, most_home=True).most_home == 52
    assert solve(bd, lost).most_home is None  # only when asked
    fortress = Game("fortress")
    for deal in range(6):
        r = solve(fortress, fortress.deal(deal), most_home=True, budget_seconds=20)
        assert 0 <= r.most_home <= 52 and (r.most_home == 52) == (r.result == WON)


def test_the_solvers_clock_leaves_out_numbas_compiles():
    """A first solve compiles the engine inside its budget unless the clock leaves compiling out (a 60 s budget
    spent compiling called an easy deal unknown)."""
    import time

    from numba import njit

    def fresh(x):
        total = 0
        for i in range(x):
            total += i * i % 7
        return total

    c0, p0 = clock(), time.process_time()
    njit(fresh)(10)  # compiled here, uncached
    compiling = (time.process_time() - p0) - (clock() - c0)
    assert compiling > 0.01
    c0, p0 = clock(), time.process_time()
    sum(i * i for i in range(300_000))  # plain work counts in full
    assert abs((time.process_time() - p0) - (clock() - c0)) < 1e-3
