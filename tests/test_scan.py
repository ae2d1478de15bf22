"""The heuristic players' rows counted where they lie (DuckDB) give the numbers the same functions give of a frame.

One code path, two sources: each analysis function is asked once of the rows in pandas and once of
:class:`analysis.scan.CheapRows`, and the tables must be equal to the last bit.
"""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from analysis import advice, compare, designs, frames, ladder, picks, scan, stats, winnability
from analysis.load import ResultsError, load_study, study_parts
from synthetic import write_dataset


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """A dataset of three rungs (and the judges) on two study games: as a frame, and where it lies."""
    path = write_dataset(tmp_path_factory.mktemp("scan"), deals=300, players=("random", "greedy", "strategist"), judged=True)
    df, _ = load_study(path)
    cheap = scan.CheapRows(study_parts(path))
    yield path, df, cheap
    cheap.close()


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    a, b = a.reset_index(drop=True), b.reset_index(drop=True)
    assert list(a.columns) == list(b.columns)
    pd.testing.assert_frame_equal(a, b, check_dtype=False, check_exact=True, check_categorical=False)


def test_the_judges_stay_out_and_every_cheap_row_is_there(both):
    _, df, cheap = both
    heur = df[stats.player_mask(df.player)]
    assert len(cheap) == len(heur) > 0
    assert set(cheap.pairs().player) == set(heur.player)


def test_rates_and_pairs_are_the_frames(both):
    _, df, cheap = both
    solver = df[stats.solver_mask(df.player)]
    players = stats.players_by_strength(df)
    assert stats.players_by_strength(cheap.pairs()) == players
    rungs = compare.headline_players(df, players)
    assert compare.headline_players(cheap.pairs(), players) == rungs
    _same(compare.rates(df, solver, rungs), compare.rates(cheap, solver, rungs))
    _same(compare.game_pairs(df, solver, rungs), compare.game_pairs(cheap, solver, rungs))
    _same(compare.across_games(df, players), compare.across_games(cheap, players))
    _same(compare.within_games(df, sorted(set(df.game)), rungs), compare.within_games(cheap, sorted(set(df.game)), rungs))


def test_the_ladder_and_its_difficulty_are_the_frames(both):
    _, df, cheap = both
    heur = df[stats.player_mask(df.player)]
    solved = ladder.verdicts(df)
    order = ladder.rungs(heur)
    _same(ladder.ladder_table(heur, solved), ladder.ladder_table(cheap, solved, order))
    diff = ladder.difficulty_by_rung(heur, solved)
    counted = pd.concat([cheap.cheapest_rung(g, order, solved).assign(game=g) for g in sorted(set(heur.game))])
    _same(ladder.difficulty_shares(diff), ladder.difficulty_shares(counted, order))
    a, b = "selective-castle", "streets-and-alleys"
    pairs = cheap.cheapest_rung(a, order, solved, pair_with=(b, order))
    framed = ladder.paired_difficulty(diff, a, b)
    counted = ladder.paired_difficulty_of_counts(pairs, order, a, b)
    assert np.array_equal(framed.to_numpy(), counted.to_numpy())


def test_convergence_cpu_and_spans_are_the_frames(both):
    _, df, cheap = both
    heur = df[stats.player_mask(df.player)]
    _same(stats.convergence(heur[["game", "player", "seed", "deal", "result"]]), cheap.convergence())
    framed = frames.FrameRows(df).cpu(["game", "player"])
    _same(framed, cheap.cpu(["game", "player"]))
    for (g, p), rows in heur.groupby(["game", "player"]):
        n, lo, hi = cheap.span(picks.pick([g], [p])).iloc[0]
        assert compare.span_text(int(n), int(lo), int(hi)) == compare.deal_span(rows)


def test_the_summary_is_the_frames(both):
    _, df, cheap = both
    judged = df[~stats.player_mask(df.player)]
    assert designs.estimates(df) == designs.estimates(judged, cheap)


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


def test_the_advice_effects_are_the_frames(tmp_path):
    path = write_dataset(tmp_path / "d", deals=200, players=("strategist", "strategist:wrap=0.0"))
    df, _ = load_study(path)
    cheap = scan.CheapRows(study_parts(path))
    try:
        _same(advice.effects(df, "selective-castle"), advice.effects(cheap, "selective-castle"))
        _same(winnability.family(df), winnability.family(df[~stats.player_mask(df.player)], cheap=cheap, games=sorted(set(df.game))))
    finally:
        cheap.close()


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
