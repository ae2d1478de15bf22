"""Unknowns solved again (``unknowns_of`` and the player ``settle``): which deals are taken, the rows, a rerun, and
the verdicts taking the unknowns' place in the game's winnability."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.designs import perfect_play, solved_again
from analysis.load import experiments_table, load_study
from sim.study.errors import ArgumentError, ExperimentError
from sim.study.experiment import build
from sim.study.runner import run

GAME = "beleaguered-castle"
#: a design that leaves many deals unknown at its (tiny) full budget, and a few left by its draw
PHASED = "phased:first=300,middle=0,rate=0.8,budget_nodes=3000,portfolio=0"


@pytest.fixture(scope="module")
def design(tmp_path_factory):
    out = tmp_path_factory.mktemp("settle") / "design"
    run(build({}, games=[GAME], players=[PHASED], deals=60, chunk_size=30), out, jobs=1)
    return out


def _settle(folder, out, budget=400_000, **extra):
    data = {"name": "settle", "games": [GAME], "players": [f"settle:budget_nodes={budget}"], "unknowns_of": [str(folder)]}
    return run(build(data | extra, from_file=True), out, jobs=1)


def test_the_deals_taken_are_those_unknown_at_the_full_budget_and_never_the_left_ones(design):
    rows = pd.read_parquet(design)
    unknown = rows[(rows.result == "unknown") & ~rows.left]
    assert len(unknown) >= 5 and rows.left.any()  # the fixture exercises both kinds
    exp = build({"name": "s", "games": [GAME], "players": ["settle"], "unknowns_of": [str(design)]}, from_file=True)
    assert exp.deals_of(GAME) == tuple(sorted(unknown.deal)) and exp.n_games == len(unknown)


def test_settled_rows_replace_the_unknowns_and_a_rerun_plays_nothing(design, tmp_path):
    out = tmp_path / "again"
    summary = _settle(design, out)
    rows = pd.read_parquet(design)
    unknown = rows[(rows.result == "unknown") & ~rows.left]
    again = pd.read_parquet(out).sort_values("deal")
    assert list(again.deal) == sorted(unknown.deal) and summary.deals_played == len(unknown)
    assert (again.result != "unknown").sum() > 0  # a deeper budget settles some
    assert _settle(design, out).deals_played == 0  # resumed: every deal on disk
    phased = rows.assign(game=GAME, player=rows.player.astype(str))
    both = pd.concat([phased, again.assign(game=GAME, player=again.player.astype(str))], ignore_index=True)
    before, after = perfect_play(phased, GAME), perfect_play(both, GAME)
    found = solved_again(again.assign(player=again.player.astype(str)))
    settled = int(found.again.isin(["won", "lost"]).sum())
    assert math.isclose(after.unknown, before.unknown * (len(unknown) - settled) / len(unknown), rel_tol=1e-9)
    assert after.deals == before.deals == len(rows) and after.design == before.design == "two-phase"
    assert after.again == len(unknown) and after.described == f"two-phase, {len(unknown)} unknowns solved again"
    assert math.isclose(after.cpu_seconds, before.cpu_seconds + again.cpu_us.sum() / 1e6, rel_tol=1e-9)
    assert before.lo <= after.lo and after.hi <= before.hi  # the verdicts narrow the interval from both ends


def test_the_folder_reads_as_a_study_with_its_listed_deals_planned(design, tmp_path):
    _settle(design, tmp_path / "study" / "again", budget=20_000)
    (tmp_path / "study" / "design").symlink_to(design)
    df, held = load_study(tmp_path / "study", judged_only=True)
    t = experiments_table(df, held).set_index("experiment")
    assert t.loc["again", "games"] == t.loc["again", "planned"] and bool(t.loc["again", "finished"])


def test_an_unknowns_experiment_takes_no_deal_range_and_needs_its_folder(design, tmp_path):
    with pytest.raises(ExperimentError, match="give no deals"):
        build({"name": "s", "games": [GAME], "players": ["settle"], "unknowns_of": [str(design)], "deals": 10}, from_file=True)
    with pytest.raises(ArgumentError):
        build({"name": "s", "games": [GAME], "players": ["settle"], "unknowns_of": [str(design)]}, deals=10, from_file=True)
    with pytest.raises(ExperimentError, match="no results folder"):
        build({"name": "s", "games": [GAME], "players": ["settle"], "unknowns_of": [str(tmp_path / "nowhere")]}, from_file=True)
    with pytest.raises(ExperimentError, match="must name results folders"):
        build({"name": "s", "games": [GAME], "players": ["settle"], "unknowns_of": []}, from_file=True)


def test_a_deal_settled_by_another_exact_run_is_not_taken(design, tmp_path):
    rows = pd.read_parquet(design)
    deal = int(rows[(rows.result == "unknown") & ~rows.left].deal.min())
    run(build({}, games=[GAME], players=["solver:budget_nodes=2000000"], deal_range=f"{deal}:{deal + 1}"), tmp_path / "s", jobs=1)
    solved = pd.read_parquet(tmp_path / "s").result.iloc[0]
    exp = build({"name": "s", "games": [GAME], "players": ["settle"], "unknowns_of": [str(design), str(tmp_path / "s")]},
                from_file=True)
    assert (deal in exp.deals_of(GAME)) == (solved == "unknown")


def test_estimator_replaces_only_unknowns_at_the_full_budget():
    """Synthetic rows: a left deal and a settled deal keep their rows, an unknown one takes the verdict found."""
    rows = pd.DataFrame({"game": "g", "player": "phased", "player_params": "{\"middle\": 0}", "seed": 0,
                         "deal": np.arange(6), "result": ["won", "lost", "unknown", "unknown", "unknown", "won"],
                         "phase": [1, 1, 2, 2, 1, 2], "left": [False, False, False, False, True, False], "cpu_us": 100})
    again = pd.DataFrame({"game": "g", "player": "settle", "seed": 0, "deal": [2, 3, 4, 5],
                          "result": ["won", "unknown", "lost", "lost"], "cpu_us": 1000})
    e0 = perfect_play(rows, "g")
    e1 = perfect_play(pd.concat([rows, again], ignore_index=True), "g")
    # phase 1: 2 settled (1 won), 4 unsettled; of the 3 that went on: won, unknown, won before -> won, unknown, won after
    assert math.isclose(e0.estimate - e0.unknown / 2, (1 + 4 * (1 / 3)) / 6)
    assert math.isclose(e1.estimate - e1.unknown / 2, (1 + 4 * (2 / 3)) / 6)
    assert math.isclose(e1.cpu_seconds, 6 * 100e-6 + 2 * 1000e-6)  # deals 2 and 3 solved again; 4 was left, 5 settled


def _castle(*args, cwd):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", *args], capture_output=True, text=True, cwd=cwd)


def test_the_command_line_plays_a_folders_unknowns_with_settle_by_default(design, tmp_path):
    r = _castle("run", "--game", GAME, "--unknowns-of", str(design), "--out", "again", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    again = pd.read_parquet(tmp_path / "again")
    assert set(again.player.astype(str)) == {"settle"} and len(again) == exp_unknowns(design)
    import json

    run_entry = json.loads((tmp_path / "again" / "_manifest.json").read_text())["runs"][-1]
    assert run_entry["games"] == [GAME]  # (what the run played: analysis.settling.running reads it)


def exp_unknowns(folder) -> int:
    rows = pd.read_parquet(folder)
    return int(((rows.result == "unknown") & ~rows.left).sum())


@pytest.mark.parametrize("args, words", [
    (["--unknowns-of", "nowhere"], "--unknowns-of: no results folder 'nowhere'"),
    (["--unknowns-of", "empty"], "--unknowns-of: 'empty' holds no results"),
    (["--unknowns-of", "DESIGN", "--deals", "5"], "give no --deals or --deal-range"),
    (["--unknowns-of", "DESIGN", "--halfwidth", "1"], "does not go with --halfwidth"),
])
def test_unknowns_of_asked_wrongly_is_one_line_and_exit_2(design, tmp_path, args, words):
    args = [str(design) if a == "DESIGN" else a for a in args]
    (tmp_path / "empty").mkdir()
    r = _castle("run", "--game", GAME, "--out", "out", *args, cwd=tmp_path)
    assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "out").exists()


def test_an_unknowns_file_asking_for_a_halfwidth_is_one_line_and_exit_2(design, tmp_path):
    (tmp_path / "x.toml").write_text(f'name = "x"\ngames = ["{GAME}"]\nunknowns_of = ["{design}"]\nhalfwidth = 1\n'
                                     '[[players]]\nname = "settle"\n')
    r = _castle("run", "x.toml", "--out", "out", cwd=tmp_path)
    assert r.returncode == 2 and "does not go with --halfwidth" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_deeper_settle_naming_an_earlier_one_takes_only_what_it_left_unknown(design, tmp_path):
    shallow = tmp_path / "shallow"
    _settle(design, shallow, budget=6_000)
    first = pd.read_parquet(shallow)
    assert first.result.eq("unknown").any() and first.result.ne("unknown").any()  # the fixture exercises both
    exp = build({"name": "s", "games": [GAME], "players": ["settle"], "unknowns_of": [str(design), str(shallow)]},
                from_file=True)
    assert exp.deals_of(GAME) == tuple(sorted(first[first.result == "unknown"].deal))
    deeper = tmp_path / "deeper"
    _settle(design, deeper, unknowns_of=[str(design), str(shallow)])
    both = pd.concat([first, pd.read_parquet(deeper)]).assign(player=lambda d: d.player.astype(str))
    found = solved_again(both)  # one verdict per deal: the deeper run's where the shallow one found none
    assert len(found) == len(first) and found.again.ne("unknown").sum() > first.result.ne("unknown").sum()
