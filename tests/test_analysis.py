"""The analysis library and the report, on a small synthetic dataset in the runner's layout."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis import stats
from analysis.load import ResultsError, load_manifest, load_results
from analysis.report import build_report
from synthetic import write_dataset


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return write_dataset(tmp_path_factory.mktemp("results"))


def test_load_filters_lazily_and_unifies_extra_columns(dataset):
    df = load_results(dataset)
    assert set(df.game) == {"selective-castle", "streets-and-alleys", "beleaguered-castle"}
    assert "nodes" in df.columns and df[df.player == "random"].nodes.isna().all()
    sub = load_results(dataset, games=["selective-castle"], players=["greedy", "solver"])
    assert set(sub.game) == {"selective-castle"} and set(sub.player) == {"greedy", "solver"}
    assert load_manifest(dataset)["experiment"]["name"] == "synthetic"


def test_load_refuses_a_folder_without_results(tmp_path):
    with pytest.raises(ResultsError, match="no results"):
        load_results(tmp_path)


def test_solvitaire_convention_reproduces_the_published_intervals():
    # Blake & Gent: Beleaguered Castle 68.170% +/- 0.099%, Streets and Alleys 51.187% +/- 0.186%
    mid, lo, hi = stats.rate_interval(1_362_720, 1_361, 2_000_000)
    assert round(100 * mid, 3) == 68.170 and round(100 * (hi - lo) / 2, 3) == 0.099
    mid, lo, hi = stats.rate_interval(1_021_425, 4_642, 2_000_000)
    assert round(100 * mid, 3) == 51.187 and abs(100 * (hi - lo) / 2 - 0.186) < 0.0015


def test_win_rates_count_unknowns_both_ways():
    df = pd.DataFrame({"game": "g", "player": "solver", "result": ["won"] * 6 + ["unknown"] * 2 + ["lost"] * 2})
    row = stats.win_rates(df).iloc[0]
    assert row.deals == 10 and row.won == 6 and row.unknown == 2 and math.isclose(row.rate, 0.7)
    assert math.isclose(row.ci_low, stats.wilson(6, 10)[0]) and math.isclose(row.ci_high, stats.wilson(8, 10)[1])


def test_paired_comparison_finds_the_planted_difference(dataset):
    df = load_results(dataset)
    pair = stats.paired(df, ("selective-castle", "greedy"), ("streets-and-alleys", "greedy"))
    assert pair.deals == 400
    assert pair.both + pair.only_a + pair.only_b + pair.neither == 400
    assert pair.diff_low > 0 and pair.p_value < 1e-6  # planted: 0.45 against 0.30 on shared deals
    assert pair.diff_low <= pair.diff <= pair.diff_high


def test_paired_interval_properties():
    d, lo, hi = stats.newcombe_paired(40, 10, 3, 47)
    assert lo < d < hi and math.isclose(d, 0.07)
    # no discordant pairs: difference 0, interval still straddles it
    d0, lo0, hi0 = stats.newcombe_paired(50, 0, 0, 50)
    assert d0 == 0 and lo0 < 0 < hi0
    # swapping a and b mirrors the interval
    d2, lo2, hi2 = stats.newcombe_paired(40, 3, 10, 47)
    assert math.isclose(d2, -0.07) and math.isclose(lo2, -hi, abs_tol=1e-12) and math.isclose(hi2, -lo, abs_tol=1e-12)


def test_paired_returns_none_without_common_deals(dataset):
    df = load_results(dataset)
    assert stats.paired(df, ("selective-castle", "greedy"), ("no-such-game", "greedy")) is None


def test_base_rank_study(dataset):
    df = load_results(dataset)
    bases = stats.base_rank_rates(df)
    assert set(bases.game) == {"selective-castle"} and bases.deals.sum() == 1200
    counts = stats.winning_bases(df)
    assert counts.deals.sum() == 400
    c = stats.choice_was_winning(df, "selective-castle", "greedy")
    assert 0 < c["deals"] <= 400 and 0 <= c["share"] <= 1


def test_difficulty_gap_and_convergence(dataset):
    df = load_results(dataset)
    gap = stats.winnable_not_won(df)
    assert set(gap.player) == {"random", "greedy"}
    greedy = gap[(gap.game == "selective-castle") & (gap.player == "greedy")].iloc[0]
    assert 0 < greedy.share_not_won < 1
    conv = stats.convergence(df)
    last = conv[(conv.game == "streets-and-alleys") & (conv.player == "greedy")].iloc[-1]
    assert last.deals == 400


def test_report_has_every_section_and_artifact(dataset, tmp_path):
    index = build_report(dataset, tmp_path / "report")
    text = index.read_text()
    for heading in ("Win rates", "Paired comparisons", "base rank", "Difficulty", "Experiment"):
        assert heading in text
    assert "easier" in text and "data:image/png;base64," in text
    assert {p.name for p in (tmp_path / "report" / "figures").iterdir()} >= {"win_rates.png", "paired.png", "base_ranks.png"}
    assert (tmp_path / "report" / "tables" / "win_rates.csv").exists()


def test_report_with_one_game_says_what_is_missing(tmp_path):
    data = write_dataset(tmp_path / "bc", deals=50, games=("beleaguered-castle",), players=("random",), solver=False)
    text = build_report(data, tmp_path / "report").read_text()
    assert "Selective Castle is not in this dataset" in text
    assert "cannot be made here" in text


def test_report_of_a_real_run(tmp_path):
    """The runner's own dataset (dictionary-typed game/player, _manifest.json) reads and reports."""
    from sim.study.experiment import build
    from sim.study.runner import run

    out = tmp_path / "run"
    run(build({}, games=["selective-castle", "streets-and-alleys"], players=["greedy"], deals=60, chunk_size=30), out, jobs=1)
    df = load_results(out)
    assert len(df) == 120 and set(df.player) == {"greedy"}
    assert load_manifest(out)  # _manifest.json
    text = build_report(out, tmp_path / "report").read_text()
    assert "Beleaguered Castle is not in this dataset" in text
    assert "<title>Castle report: adhoc</title>" in text  # the experiment's name, as the runner records it
    assert "paired difference" in text


def test_containment_law_is_checked_deal_by_deal():
    """Streets and Alleys won implies Selective Castle won: the check counts, and names a deal that breaks it."""
    verdicts = {"streets-and-alleys": ["won", "lost", "unknown", "won", "won"],
                "selective-castle": ["won", "won", "won", "unknown", "lost"]}
    df = pd.DataFrame([{"game": g, "player": "solver:bases=1", "seed": 0, "deal": d, "result": r}
                       for g, rs in verdicts.items() for d, r in enumerate(rs)])
    c = stats.containment(df, "streets-and-alleys", "selective-castle")
    assert (c.checked, c.violations) == (2, [4])
    assert int(c.table.iloc[0, 1:].sum()) == 3  # three deals won in Streets and Alleys
    assert stats.containment(df, "streets-and-alleys", "beleaguered-castle") is None


def test_a_report_section_is_a_function_in_the_list(dataset, tmp_path, monkeypatch):
    from analysis import report

    def section_hello(r):
        r.page.h2("Hello")
        r.page.p(f"{len(r.df):,} rows seen by a new section.")

    monkeypatch.setattr(report, "SECTIONS", report.SECTIONS + (section_hello,))
    text = build_report(dataset, tmp_path / "report").read_text()
    assert "<h2>Hello</h2>" in text and "rows seen by a new section" in text
