"""Experiments numbered as PySol FC numbers its games: the rows carry seed -1 and PySol's deal."""

from __future__ import annotations

import pandas as pd
import pytest

from sim.core.deals import PYSOL_SEED
from sim.game import Game
from sim.study.experiment import ExperimentError, build
from sim.study.runner import run


def test_a_pysol_experiment_plays_pysols_deals(tmp_path):
    exp = build({"numbering": "pysol", "deal_range": "1:3", "games": ["citadel"], "players": [{"name": "solver", "budget_seconds": 5.0}]})
    assert exp.seed == PYSOL_SEED
    run(exp, tmp_path / "out", jobs=1)
    rows = pd.read_parquet(tmp_path / "out")
    assert list(rows.seed) == [PYSOL_SEED] * 2 and list(rows.deal) == [1, 2]
    game = Game("citadel")
    assert game.deal(1, PYSOL_SEED).position() == game.deal("pysol:1").position()


def test_compiled_players_play_pysols_deals_as_the_python_loop_does(tmp_path):
    """A compiled player's chunk is handed PySol's deals as starting positions: its games are the games the
    Python loop plays from ``pysol:N`` move by move (strategist: it also chooses its base from the board)."""
    from sim.players.loop import play_deal

    exp = build({"numbering": "pysol", "deal_range": "1:9", "chunk_size": 4, "games": ["selective-castle", "citadel"],
                 "players": ["greedy", "strategist"]})
    run(exp, tmp_path / "out", jobs=1)
    rows = pd.read_parquet(tmp_path / "out")
    assert len(rows) == 32 and set(rows.seed) == {PYSOL_SEED}
    for r in rows.itertuples():
        rec = play_deal(Game(r.game), r.player, f"pysol:{r.deal}")
        assert (rec.result.value, len(rec.moves), rec.cards_home, rec.positions) == (r.result, r.moves, r.cards_home, r.positions)


@pytest.mark.parametrize("data, words", [
    ({"numbering": "pysol", "deal_range": "1:3", "games": ["fortress"], "players": ["solver"]}, "PySol deals no game numbers"),
    ({"numbering": "pysol", "deal_range": "0:3", "games": ["citadel"], "players": ["solver"]}, "start at 1"),
    ({"numbering": "pysol", "seed": 4, "deal_range": "1:3", "games": ["citadel"], "players": ["solver"]}, "give no seed"),
    ({"numbering": "dealer", "games": ["citadel"], "players": ["solver"]}, "numbering must be one of"),
])
def test_a_pysol_experiment_that_cannot_be_is_refused(data, words):
    with pytest.raises(ExperimentError, match=words):
        build(data)
