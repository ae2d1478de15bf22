"""The solver in phases (player ``phased``): its draws, its rows, and what they tell the estimator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.game import Game
from sim.players.loop import play_choice
from sim.players.spec import UnknownPlayerError
from sim.players.registry import parse_player
from sim.solver.phased import draw, phases
from sim.study.experiment import build
from sim.study.runner import run


def test_draws_are_uniform_independent_of_the_phase_and_fixed_by_seed_and_deal():
    u1 = np.array([draw(0, d, 1) for d in range(20_000)])
    u2 = np.array([draw(0, d, 2) for d in range(20_000)])
    assert abs(u1.mean() - 0.5) < 0.01 and abs((u1 < 0.15).mean() - 0.15) < 0.01
    assert abs(np.corrcoef(u1, u2)[0, 1]) < 0.03  # the two phases' draws do not move together
    assert draw(0, 17, 1) == draw(0, 17, 1) != draw(1, 17, 1)


def test_phases_two_or_three():
    assert phases(50, 0, 0.5, 0.5, 1000) == [(50, 0.5), (1000, None)]
    assert phases(50, 200, 0.5, 0.25, 1000) == [(50, 0.5), (200, 0.25), (1000, None)]


@pytest.mark.parametrize("bad", ["phased:first=300000000", "phased:middle=10", "phased:rate=0", "phased:rate2=1.5"])
def test_a_design_that_cannot_work_is_refused(bad):
    with pytest.raises(UnknownPlayerError):
        parse_player(bad)


def test_a_deal_the_short_phase_settles_is_its_verdict_and_one_it_leaves_says_so():
    state = Game("streets-and-alleys").deal(10_001)
    rec = play_choice(parse_player("phased"), state, 0, 10_001)  # proved lost in a few positions
    assert rec.result == "lost" and rec.extra["phase"] == 1 and rec.extra["left"] is False
    # a deal the short phase cannot settle, with a rate that lets nothing go on: left after phase 1
    deal = 10_003
    rec = play_choice(parse_player("phased:first=1000,rate=0.000001"), Game("streets-and-alleys").deal(deal), 0, deal)
    assert draw(0, deal, 1) >= 0.000001
    assert rec.result == "unknown" and rec.extra["phase"] == 1 and rec.extra["left"] is True


def test_rows_do_not_depend_on_chunks_or_jobs(tmp_path):
    player = "phased:first=2000,middle=20000,rate=0.5,rate2=0.5,budget_nodes=200000"
    a, b = tmp_path / "a", tmp_path / "b"
    run(build({}, games=["beleaguered-castle"], players=[player], deals=24, chunk_size=24), a, jobs=1)
    run(build({}, games=["beleaguered-castle"], players=[player], deals=24, chunk_size=5), b, jobs=2)
    keep = ["deal", "result", "moves", "nodes", "phase", "left"]
    ra = pd.read_parquet(a).sort_values("deal")[keep].reset_index(drop=True)
    rb = pd.read_parquet(b).sort_values("deal")[keep].reset_index(drop=True)
    pd.testing.assert_frame_equal(ra, rb)
    assert set(ra.phase) <= {1, 2, 3} and (ra[ra.left].result == "unknown").all()
    assert (ra[~ra.left & (ra.phase < 3)].result != "unknown").all()  # a deal stops early only when settled or left
