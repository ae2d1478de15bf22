"""The one reader of the heuristic players' rows (:class:`analysis.scan.CheapRows`) against answers worked out by hand.

A few rows, small enough to count on paper, asked each question; the same rows as a frame and as a Parquet part
(the two places rows lie), each giving the hand's answers. The judged players' rows are among them and must
stay out.
"""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analysis import designs, scan, stats
from analysis.load import ResultsError, load_study, study_parts
from analysis.picks import pick
from synthetic import write_dataset

SC, SA = "selective-castle", "streets-and-alleys"
NAN = float("nan")
#: (game, player, deal, result, moves, cards_home, base_rank, cpu_us), seed 0; the solver's rows are judged ones
ROWS = [
    (SC, "greedy", 1, "won", 100, 52, 3.0, 10), (SC, "greedy", 2, "won", 110, 52, NAN, 20),
    (SC, "greedy", 3, "stuck", 50, 20, 5.0, 30), (SC, "greedy", 4, "unknown", 60, 30, NAN, 40),
    (SA, "greedy", 1, "won", 90, 52, NAN, 5), (SA, "greedy", 2, "stuck", 40, 11, NAN, 5),
    (SA, "greedy", 3, "won", 95, 52, NAN, 5), (SA, "greedy", 4, "gave_up", 40, 11, NAN, 5),
    (SC, "random", 1, "stuck", 30, 11, NAN, 1), (SC, "random", 2, "won", 70, 52, NAN, 2),
    (SC, "random", 3, "gave_up", 20, 4, NAN, 3),
    (SC, "solver", 1, "won", 80, 52, NAN, 9000), (SC, "solver", 3, "lost", 0, 0, NAN, 9000),
]


def _frame() -> pd.DataFrame:
    df = pd.DataFrame(ROWS, columns=["game", "player", "deal", "result", "moves", "cards_home", "base_rank", "cpu_us"])
    return df.assign(seed=0, won=df.result.eq("won"), player_params="{}", dataset="hand")


@pytest.fixture(params=["frame", "parts"])
def rows(request, tmp_path):
    """The hand's rows, as a frame or as a Parquet part."""
    if request.param == "frame":
        r = scan.CheapRows.of_frame(_frame().assign(game=lambda d: d.game.astype("category")))
    else:
        pq.write_table(pa.Table.from_pandas(_frame().drop(columns="dataset"), preserve_index=False), tmp_path / "part.parquet")
        r = scan.CheapRows([("hand", [str(tmp_path / "part.parquet")])])
    yield r
    r.close()


def _tuples(df: pd.DataFrame) -> list[tuple]:
    return [tuple(v.item() if hasattr(v, "item") else v for v in row) for row in df.itertuples(index=False, name=None)]


def test_the_judges_stay_out_and_every_cheap_row_is_counted(rows):
    assert len(rows) == 11
    assert _tuples(rows.pairs()) == [(SC, "greedy", 4, 2, 100), (SC, "random", 3, 1, 6), (SA, "greedy", 4, 2, 20)]
    assert _tuples(rows.counts(["game"])) == [(SC, 7, 3, 1), (SA, 4, 2, 0)]
    assert rows.seeds() == [0]
    assert _tuples(rows.held[["dataset", "games"]]) == [("hand", 11)]


def test_a_pick_keeps_its_games_players_losses_and_values(rows):
    assert _tuples(rows.counts(["game", "player"], pick(players=["greedy"], not_won=True))) == [(SC, "greedy", 2, 0, 1),
                                                                                                (SA, "greedy", 2, 0, 0)]
    assert _tuples(rows.span(pick([SC], has=["base_rank"]))) == [(2, 1, 3)]
    assert _tuples(rows.span(by=["game"])) == [(SC, 4, 1, 4), (SA, 4, 1, 4)]
    assert _tuples(rows.histogram("cards_home", ["game"], pick([SC], not_won=True))) == [(SC, 4, 1), (SC, 11, 1), (SC, 20, 1),
                                                                                          (SC, 30, 1)]
    assert rows.first("player_params", SC, "random") == "{}" and rows.first("moves", SC, "solver") is None


def test_cpu_is_its_exact_sum_and_numpys_quantiles(rows):
    t = rows.cpu(["game", "player"])
    assert _tuples(t[["game", "player", "n", "cpu_sum"]]) == [(SC, "greedy", 4, 100), (SC, "random", 3, 6), (SA, "greedy", 4, 20)]
    assert list(t.cpu_median) == [25.0, 2.0, 5.0]
    assert list(t.cpu_p90) == [float(np.percentile([10, 20, 30, 40], 90)), float(np.percentile([1, 2, 3], 90)), 5.0]


def test_deal_by_deal(rows):
    # deal 1 both won, 2 only Selective Castle, 3 only Streets and Alleys, 4 neither (unknown and gave up)
    assert rows.paired((SC, "greedy"), (SA, "greedy")) == (1, 1, 1, 1)
    assert rows.paired((SC, "greedy"), (SC, "random")) == (1, 1, 0, 1)  # (deal 4: random never played it)
    assert scan.pair(rows, (SC, "greedy"), (SA, "greedy")).deals == 4
    assert rows.mean_win_moves("greedy", SC, SA) == 100.0 and rows.mean_win_moves("greedy", SA, SC) == 90.0
    assert np.isnan(rows.mean_win_moves("random", SC, SA))


def test_the_rows_on_given_deals(rows):
    keys = pd.DataFrame({"game": [SC, SC, SC], "seed": [0, 0, 0], "deal": [2, 3, 9]})
    assert _tuples(rows.on_deals(keys)) == [(SC, "greedy", 2, 1, 0), (SC, "random", 2, 1, 0)]
    assert _tuples(rows.on_deals(keys[["seed", "deal"]], pick(players=["greedy"]), by=["game"])) == [(SC, 2, 1, 0), (SA, 2, 1, 0)]
    assert _tuples(rows.which(keys, pick(players=["random"]))) == [(SC, 0, 2), (SC, 0, 3)]
    got = rows.rows_on(keys, pick(players=["greedy"]), ["player", "deal", "result"])
    assert _tuples(got) == [("greedy", 2, "won"), ("greedy", 3, "stuck")]
    assert list(rows.rows_on(keys, pick(has=["base_rank"])).base_rank) == [5.0]


def test_the_cheapest_rung_that_wins_each_deal(rows):
    verdicts = pd.DataFrame({"game": [SC, SC], "seed": [0, 0], "deal": [1, 3], "verdict": ["won", "lost"]})
    # deals 1-3 (random never played 4): 1 greedy's, 2 random's, 3 neither: the solver proved it lost
    got = rows.cheapest_rung(SC, ["random", "greedy"], verdicts).sort_values("difficulty")
    assert _tuples(got) == [("greedy", 1), ("random", 1), (stats.UNWINNABLE, 1)]
    keyed = rows.cheapest_rung(SC, ["random", "greedy"], verdicts, keys=pd.DataFrame({"seed": [0], "deal": [2]}))
    assert _tuples(keyed) == [(0, 2, "random")]


def test_the_running_rate(rows):
    points = pd.DataFrame({"game": [SC] * 4, "player": ["greedy"] * 4, "k": [1, 2, 3, 4]})
    assert _tuples(rows.running(points)) == [(SC, "greedy", k, w, u) for k, w, u in ((1, 1, 0), (2, 2, 0), (3, 2, 0), (4, 2, 1))]
    c = rows.convergence(pick(players=["random"]))
    assert list(c.deals) == scan.geometric_points(3) == [1, 3] and list(c.rate) == [0.0, 1 / 3]


def test_a_selection_is_a_view_asked_every_question(rows):
    greedy = rows.only(pick(players=["greedy"]))
    assert len(greedy) == 8 and len(rows) == 11  # (the reader itself is unchanged)
    assert _tuples(greedy.pairs()) == [(SC, "greedy", 4, 2, 100), (SA, "greedy", 4, 2, 20)]
    assert greedy.paired((SC, "greedy"), (SA, "greedy")) == (1, 1, 1, 1)
    assert greedy.paired((SC, "greedy"), (SC, "random")) == (0, 0, 0, 0)  # (random's rows are not in it)
    both = greedy.only(pick([SA]))
    assert len(both) == 4 and _tuples(both.counts(["game"])) == [(SA, 4, 2, 0)]
    assert _tuples(both.counts(["game"], pick([SC]))) == []  # (a pick asked of a selection keeps what both keep)
    assert greedy.held_by(pick([SC])) == {"hand"} and rows.only(pick(players=["nobody"])).held_by(pick()) == set()


def test_a_dialect_is_its_own_game_where_the_rows_lie(tmp_path):
    df = _frame().drop(columns="dataset").assign(dialect=["pysol"] * 4 + ["sheet"] * 9)
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), tmp_path / "part.parquet")
    r = scan.CheapRows([("hand", [str(tmp_path / "part.parquet")])])
    try:
        assert _tuples(r.counts(["game"])) == [(SC, 3, 1, 0), (SC + "@pysol", 4, 2, 1), (SA, 4, 2, 0)]
    finally:
        r.close()


def test_the_summarys_estimates_read_the_rows_where_they_lie(tmp_path):
    path = write_dataset(tmp_path / "d", deals=300, players=("random", "greedy", "strategist"), judged=True)
    df, _ = load_study(path)
    cheap = scan.CheapRows(study_parts(path))
    try:
        assert designs.estimates(df) == designs.estimates(df[~stats.player_mask(df.player)], cheap)
    finally:
        cheap.close()


def test_two_experiments_sharing_games_count_them_once(tmp_path):
    one = write_dataset(tmp_path / "study" / "a", deals=100)
    shutil.copytree(one, tmp_path / "study" / "b")
    df, _ = load_study(tmp_path / "study")
    cheap = scan.CheapRows(study_parts(tmp_path / "study"))
    try:
        heur = df[stats.player_mask(df.player)]
        assert len(cheap) == len(heur)
        assert dict(zip(cheap.held.dataset, cheap.held.games)) == {"a": len(heur), "b": len(heur)}  # (before shared games count once)
    finally:
        cheap.close()


def test_a_copied_cheap_part_is_found_without_reading_every_row(tmp_path):
    path = write_dataset(tmp_path / "d", deals=100)
    part = next(p for p in path.rglob("part-*.parquet") if "player=greedy" in str(p))
    shutil.copy(part, part.with_name(part.stem + "-copy.parquet"))
    with pytest.raises(ResultsError, match="held twice"):
        load_study(path, judged_only=True)


def test_the_players_parameters_are_one_text_per_player_not_per_row(tmp_path):
    """The judged rows' parameters come back as categories (the same JSON on each of a player's rows was the frame's
    widest column), in a folder of experiments whose parts hold different ones too; the estimates read them as text."""
    write_dataset(tmp_path / "study" / "a", deals=60, games=("streets-and-alleys",), judged=True)
    write_dataset(tmp_path / "study" / "b", deals=60, games=("selective-castle",), players=("greedy",))
    df, _ = load_study(tmp_path / "study", judged_only=True)
    assert isinstance(df.player_params.dtype, pd.CategoricalDtype)
    parts = [str(v) for p in sorted((tmp_path / "study").rglob("*.parquet")) if "player=" in str(p) and stats.is_judge(
        str(p).split("player=")[1].split("/")[0]) for v in pq.read_table(p, columns=["player_params"]).column(0).to_pylist()]
    assert set(df.player_params.astype(str)) == set(parts) and len(set(parts)) > 1
    assert designs.estimates(df) == designs.estimates(df.assign(player_params=df.player_params.astype(str)))
