"""The solver as the runner's player ``solver``: same rows plus ``nodes`` and the base masks."""

from __future__ import annotations

import pandas as pd

from analysis.report import build_report
from analysis.winnability import bases_per_deal
from sim.study.experiment import build
from sim.game import Game
from sim.players.loop import play_choice
from sim.players.registry import parse_player
from sim.replay import write_replay
from sim.study.runner import run


def test_solver_rows_and_report(tmp_path):
    out = tmp_path / "run"
    exp = build({}, games=["selective-castle", "streets-and-alleys"],
                players=["solver:budget_seconds=5,bases=1", "greedy"], deals=4, chunk_size=4)
    run(exp, out, jobs=1)
    df = pd.read_parquet(out)
    df["game"], df["player"] = df["game"].astype(str), df["player"].astype(str)
    solver = df[df.player.str.startswith("solver")]
    assert set(solver.result) <= {"won", "lost", "unknown"} and (solver.nodes > 0).all()
    sc = solver[solver.game == "selective-castle"]
    assert sc.bases_won.notna().all() and solver[solver.game == "streets-and-alleys"].bases_won.isna().all()
    # a won Selective Castle deal was won with a base the per-base verdicts call winning
    for _, row in sc[sc.result == "won"].iterrows():
        assert (int(row.bases_won) >> int(row.base_rank)) & 1
    assert (df[df.player == "greedy"].nodes.isna()).all()
    assert bases_per_deal(df, "selective-castle").deals.sum() == len(sc)
    text = build_report(out, tmp_path / "report", reference=None, replays=write_replay).read_text()
    # the solver is found under its parameterised label (solver:bases=1,...)
    assert "How many of the 13 base ranks win" in text and "is one of the winning bases" in text
    assert "Deals to step through" in text and (tmp_path / "report" / "replays").is_dir()  # replays of telling deals
    for link in (tmp_path / "report" / "replays").glob("*.html"):
        assert "replay-data" in link.read_text()


def test_solver_player_plays_a_won_deal_to_the_end():
    game = Game("beleaguered-castle")
    state = game.deal(3)
    record = play_choice(parse_player("solver:budget_seconds=10"), state, 0, 3)
    assert record.result == "won" and record.cards_home == 52 and state.is_won()
    assert record.extra["nodes"] > 0
