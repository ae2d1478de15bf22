"""The judge and the corridor: every verdict it gives is true, what it knows it learned from proofs, and the index adds up."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.game import Game, State
from sim.core.outcome import Result
from sim.kernels import corridor as corridor_kernel
from sim.kernels import apply_undo
from sim.kernels import hashing
from sim.core.moves import MAX_MOVES
from sim.solver.answer import solve
from sim.solver.corridor import Step, corridor
from sim.kernels.lines import position_index
from sim.solver.judge import KEEPS, LOSES, UNKNOWN, Judge, Judged


def test_children_reaching_finds_a_known_position_a_few_moves_away():
    game = Game("streets-and-alleys")
    state = game.deal(4)
    s, r = state.array.copy(), game.rules_array
    res = solve(game, state.copy(), budget_seconds=30)
    assert res.result is Result.WON
    # the position after the line's first three moves is known: the line's first move reaches it in two more
    t = s.copy()
    for m in res.moves[:3]:
        apply_undo.apply(t, r, m.action)
    keys = position_index(np.array([hashing.position_hash(t, r)], dtype=np.uint64))
    acts, hashes, reach = (np.empty(MAX_MOVES, np.int64), np.empty(MAX_MOVES, np.uint64), np.empty(MAX_MOVES, np.int64))
    n = corridor_kernel.children_reaching(s, r, keys, 2, acts, hashes, reach)
    first = list(acts[:n]).index(res.moves[0].action)
    assert reach[first] in (1, 2) and np.array_equal(s, state.array)  # the start is left as it was
    assert corridor_kernel.children_reaching(s, r, keys, 0, acts, hashes, reach) == n and (reach[:n] == -1).all()


def test_a_walk_of_short_lines_makes_each_line_once_and_puts_the_position_back():
    """kernels/lines: every line of up to three moves, as the move generator orders them, each once; a walk deepened
    only where asked; stopped early, the start as it was."""
    from sim.kernels import legal as legal_kernel
    from sim.kernels import lines as lines_kernel

    game = Game("streets-and-alleys")
    s, r = game.deal(7).array.copy(), game.rules_array
    start = s.copy()
    scratch = np.empty(legal_kernel.SCRATCH_SIZE, np.int64)

    def expected(t, depth, prefix=()):  # the lines by plain recursion over the engine
        acts = np.empty(MAX_MOVES, np.int64)
        out = []
        for a in acts[:legal_kernel.legal_actions(t, r, acts, scratch)].tolist():
            tok = apply_undo.apply(t, r, a)
            out.append(prefix + (a,))
            if depth > 1:
                out += expected(t, depth - 1, prefix + (a,))
            apply_undo.undo(t, r, tok)
        return out

    w, got, buf = lines_kernel.walk(3), [], np.empty(3, np.int64)
    lines_kernel.begin(s, r, w, scratch)
    n = lines_kernel.step(s, r, w, scratch, False)
    while n > 0:
        lines_kernel.line(w, n, buf)
        got.append(tuple(buf[:n].tolist()))
        n = lines_kernel.step(s, r, w, scratch, n < 3)
    assert got == expected(s.copy(), 3) and np.array_equal(s, start)
    assert len(set(got)) == len(got) > 100
    lines_kernel.begin(s, r, w, scratch)
    assert lines_kernel.step(s, r, w, scratch, False) == 1 and lines_kernel.step(s, r, w, scratch, True) == 2
    lines_kernel.stop(s, r, w)
    assert np.array_equal(s, start)  # stopped two moves deep: both taken back
    # a hash's furthest index; 5, 21, 37 and 53 share a slot of the 16-slot table, so lookups probe past each other
    index = lines_kernel.position_index(np.array([5, 21, 21, 12, 37, 21], dtype=np.uint64))
    assert [lines_kernel.find(index, np.uint64(h)) for h in (5, 21, 12, 37, 53, 7)] == [0, 5, 3, 4, -1, -1]
    assert lines_kernel.find(lines_kernel.position_index(np.zeros(0, np.uint64)), np.uint64(0)) == -1


@pytest.mark.parametrize("slug, deal", [("streets-and-alleys", 4), ("beleaguered-castle", 3), ("selective-castle", 5)])
def test_every_verdict_of_a_corridor_is_true(slug, deal):
    """Each move judged 'keeps' leads to a position the solver wins from scratch; each 'loses' to one it proves lost."""
    game = Game(slug)
    state = game.deal(deal)
    c = corridor(game, state.copy())
    assert c.result is Result.WON and c.unknown <= 0.01 * c.questions and len(c.steps) > 20
    s = state.array.copy()
    rng = np.random.default_rng(deal)
    checked = {KEEPS: 0, LOSES: 0}
    for step in c.steps:
        for j in step.judged:
            if j.verdict == LOSES or (j.verdict == KEEPS and j.how != "line" and rng.random() < 0.05):
                child = State(game.rules, s.copy())
                child.push(j.move)
                truth = solve(game, child, budget_seconds=60, portfolio=False).result
                assert truth is (Result.WON if j.verdict == KEEPS else Result.LOST), (step.index, str(j.move), j.verdict, j.how)
                checked[j.verdict] += 1
        apply_undo.apply(s, game.rules_array, step.move.action)
    assert checked[KEEPS] > 0
    assert s[-1] is not None and State(game.rules, s).is_won()


def test_a_lost_deal_has_no_corridor():
    game = Game("streets-and-alleys")
    c = corridor(game, game.deal(2))
    assert c.result is Result.LOST and math.isnan(c.difficulty) and not c.steps


def test_the_index_is_the_bits_of_luck_along_the_line():
    from sim.core.moves import Move

    m = Move.from_action
    judged = [Judged(m(1), KEEPS, "line", 10), Judged(m(2), LOSES, "search", 20), Judged(m(3), LOSES, "known", 30),
              Judged(m(4), LOSES, "search", 40), Judged(m(5), KEEPS, "reach", 10),  # the same position as the line's
              Judged(m(6), LOSES, "search", 50, reversal=True), Judged(m(7), UNKNOWN, "search", 60)]
    step = Step(0, m(1), judged)
    # distinct sensible children: 10, 20, 30, 40 (50 is a reversal, 60 unknown): one of four keeps
    assert (step.choices, step.keeps, step.critical, step.bits) == (4, 1, True, 2.0)
    easy = Step(1, m(1), [Judged(m(1), KEEPS, "line", 1), Judged(m(2), KEEPS, "reach", 2)])
    assert easy.decision and not easy.critical and easy.bits == 0.0
    assert Step(2, m(1), [Judged(m(1), KEEPS, "line", 1)]).decision is False


def test_a_judge_reuses_what_it_proved():
    game = Game("streets-and-alleys")
    state = game.deal(4)
    judge = Judge(game)
    c = corridor(game, state.copy(), judge=Judge(game))
    step = next(s for s in c.steps if s.losing)
    s = state.array.copy()
    for move in c.line[: step.index]:
        apply_undo.apply(s, game.rules_array, move.action)
    first = judge.judge(s)
    asked = judge.stats.by_how["search"]
    second = judge.judge(s)
    assert [j.verdict for j in first] == [j.verdict for j in second]
    assert judge.stats.by_how["search"] == asked  # the second time, nothing is searched: wins are known, losses too
    judge.free()


@pytest.mark.parametrize("slug", ["streets-and-alleys", "sc@PySol", "streets-and-alleys@supermoves", "castles-end", "chessboard"])
def test_a_walk_hashes_each_line_as_a_hash_from_scratch_does(slug):
    """The walk keeps its pile keys as moves are made and taken back (sequence moves, reserves and the foundations'
    bases included): at every line, and after the walk, its hash is the canonical hash computed from the cards."""
    from sim.kernels import legal as legal_kernel
    from sim.kernels import lines as lines_kernel

    game = Game(slug)
    r = game.rules_array
    scratch = np.empty(legal_kernel.SCRATCH_SIZE, np.int64)
    rng = np.random.default_rng(3)
    lines = 0
    for deal in range(1, 4):
        state = game.deal(deal)
        for _ in range(12):  # walks from a few positions along a random game, foundations filling
            s = state.array.copy()
            w = lines_kernel.walk(3)
            lines_kernel.begin(s, r, w, scratch)
            n = lines_kernel.step(s, r, w, scratch, False)
            while n > 0:
                assert lines_kernel.walk_hash(s, w) == hashing.position_hash(s, r)
                lines += 1
                n = lines_kernel.step(s, r, w, scratch, n < 3)
            assert np.array_equal(s, state.array)
            moves = list(state.legal_moves)
            if not moves:
                break
            state.push(moves[rng.integers(len(moves))])
    assert lines > 100
