"""castle run --halfwidth: a pilot, Neyman's rates, a fixed number of deals; bad requests refused in one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from analysis.load import load_results
from sim.study.experiment import ExperimentError
import pandas as pd

from sim.precision import DESIGN, Phases, allocate, blocks, measure, plan, variance_cost

STREETS_LIKE = Phases(p=0.51, unknown=0.002, q1=0.25, r1=0.85, q2=0.09, r2=0.8, c1=0.04, c2=0.9, c3=47.0)


def test_neyman_rates_fall_as_the_later_phases_cost_more():
    cheap = allocate(STREETS_LIKE, True)
    dear = allocate(Phases(**{**STREETS_LIKE.__dict__, "c3": 470.0}), True)
    assert 0 < dear[1] < cheap[1] <= 1
    nv, cost = variance_cost(STREETS_LIKE, *cheap, True)
    full_nv, full_cost = variance_cost(STREETS_LIKE, 1.0, 1.0, True)
    assert nv >= full_nv and cost < full_cost and nv * cost < full_nv * full_cost  # subsampling pays


def test_the_plan_reaches_the_halfwidth_with_the_unknowns_spread_included():
    d = plan(STREETS_LIKE, "streets-and-alleys", 0.3, 10_000, True)
    nv, _ = variance_cost(STREETS_LIKE, d.rate, d.rate2, True)
    assert 1.96 * (nv / d.deals) ** 0.5 + STREETS_LIKE.unknown / 2 <= 0.003 * 1.0001
    assert d.deals * STREETS_LIKE.q1 * d.rate * STREETS_LIKE.q2 * d.rate2 >= 30  # the deepest phase is not left empty
    with pytest.raises(ExperimentError, match="unknowns alone"):
        plan(STREETS_LIKE, "streets-and-alleys", 0.05, 10_000, True)


def test_solving_the_unknowns_again_lowers_the_floor_the_plan_counts_on_and_costs_what_it_measured():
    wide = Phases(**{**STREETS_LIKE.__dict__, "unknown": 0.005})  # a floor of ±0.25 points
    with pytest.raises(ExperimentError, match="--settle|settle"):
        plan(wide, "streets-and-alleys", 0.2, 10_000, True)
    settled = Phases(**{**wide.__dict__, "again": 0.6, "c4": 900.0})
    d = plan(settled, "streets-and-alleys", 0.2, 10_000, True, "settle")
    nv, cost = variance_cost(settled, d.rate, d.rate2, True)
    assert d.settle == "settle" and d.solved_again == 0.6
    assert 1.96 * (nv / d.deals) ** 0.5 + 0.005 * 0.4 / 2 <= 0.002 * 1.0001  # the floor left after solving again
    without, _ = variance_cost(Phases(**{**settled.__dict__, "c4": 0.0}), d.rate, d.rate2, True)[1], None
    assert cost == pytest.approx(without + 0.005 * d.rate * d.rate2 * 900.0)  # each unknown found is solved again
    with pytest.raises(ExperimentError, match="even with 60%"):
        plan(settled, "streets-and-alleys", 0.05, 10_000, True, "settle")


def _pilot_rows(results):
    n = len(results)
    return pd.DataFrame({"deal": range(n), "result": results, "phase": [3 if r != "lost" else 1 for r in results],
                         "nodes": [300 if r != "lost" else 5 for r in results], "cpu_us": [3000 if r != "lost" else 50 for r in results]})


def test_the_pilots_unknowns_solved_again_give_a_shrunk_share_and_their_cost():
    rows = _pilot_rows(["lost"] * 90 + ["won"] * 6 + ["unknown"] * 4)  # deals 96-99 unknown
    again = pd.DataFrame({"deal": [96, 97, 98, 99, 5], "result": ["won", "lost", "won", "unknown", "won"],
                          "cpu_us": [2e6, 4e6, 6e6, 8e6, 1e9]})  # deal 5 was not one of them: not counted
    m = measure(rows, 10, 100, again, 1_000_000)
    assert m.unknown == 0.04 and m.again == pytest.approx(3 / 5) and m.c4 == pytest.approx(5.0)
    none = measure(rows, 10, 100, again.iloc[:0], 1_000_000)  # nothing measured: the settle budget at the pilot's pace
    assert none.again == 0 and none.c4 == pytest.approx(1_000_000 * rows.cpu_us.sum() / 1e6 / rows.nodes.sum())
    assert measure(rows, 10, 100).again == 0 and measure(rows, 10, 100).c4 == 0


def _castle(*args, cwd):
    return subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("args, words", [
    (["--halfwidth", "0"], "from 0.01 to 50 points"), (["--halfwidth", "-1"], "from 0.01 to 50 points"),
    (["--halfwidth", "51"], "from 0.01 to 50 points"),
    (["--halfwidth", "1", "--player", "greedy"], "cannot settle a deal"),
    (["--halfwidth", "1", "--cpu-hours", "0"], "--cpu-hours"),
    (["--cpu-hours", "1"], "go with --halfwidth"),
    (["--settle", "none"], "go with --halfwidth"),
    (["--halfwidth", "1", "--settle", "solver"], "with the player settle"),
    (["--halfwidth", "1", "--settle", "settle:depth=3"], "no parameter 'depth'"),
])
def test_a_halfwidth_that_cannot_be_is_one_line_and_exit_2(tmp_path, args, words):
    base = ["run", "--game", "beleaguered-castle", "--out", str(tmp_path / "out")]
    if "--player" not in args:
        base += ["--player", "phased"]
    r = _castle(*base, *args, cwd=tmp_path)
    assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "out").exists()


def test_a_halfwidth_without_a_player_plays_the_solver_in_phases(tmp_path):
    # no --player: phased is the one player a design is made of, so the run goes on to the pilot's own check
    r = _castle("run", "--game", "beleaguered-castle", "--halfwidth", "1", "--pilot", "50", "--out", str(tmp_path / "out"),
                cwd=tmp_path)
    assert r.returncode == 2 and "--pilot must be at least 100" in r.stderr, r.stderr


def test_a_run_to_a_halfwidth_plans_once_and_resumes_with_its_design(tmp_path):
    # 200,000 positions leave several of the pilot's 100 deals unknown; 3 million settle them
    args = ["run", "--game", "beleaguered-castle", "--player", "phased:first=2000,middle=20000,budget_nodes=200000",
            "--deal-range", "100:100000", "--halfwidth", "12", "--pilot", "100", "--settle", "settle:budget_nodes=3000000",
            "--out", str(tmp_path / "out")]
    r = _castle(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    design = json.loads((tmp_path / "out" / DESIGN).read_text())
    d = design["designs"][0]
    assert d["first"] == 200 and d["deals"] >= 1 and 0 < d["rate"] <= 1
    assert d["settle"] == "settle:budget_nodes=3000000" and 0 < d["solved_again"] < 1
    assert "solved again" in r.stderr and (tmp_path / "out" / "settled").is_dir()
    (tmp_path / "out" / DESIGN).write_text(json.dumps({**design, "designs": [{**d, "deals": d["deals"] + 5}]}))
    again = _castle(*args[:-4], *args[-2:], cwd=tmp_path)  # resumes: the design on disk stands (its settle player too)
    assert again.returncode == 0 and "5 games played" in again.stdout, again.stdout + again.stderr
    summary = _castle("summary", str(tmp_path / "out"), "--json", cwd=tmp_path)
    perfect = [json.loads(x) for x in summary.stdout.splitlines() if '"perfect play"' in x]
    assert len(perfect) == 1 and perfect[0]["deals"] == 100 + d["deals"] + 5 and perfect[0]["lo"] <= perfect[0]["hi"]
    assert perfect[0]["solved_again"] >= 1
    shutil.copytree(tmp_path / "out", tmp_path / "unsettled", ignore=shutil.ignore_patterns("settled"))
    unsettled = _castle("summary", str(tmp_path / "unsettled"), "--json", cwd=tmp_path)
    before = [json.loads(x) for x in unsettled.stdout.splitlines() if '"perfect play"' in x][0]
    assert before["deals"] == perfect[0]["deals"] and before["solved_again"] == 0
    assert perfect[0]["hi"] - perfect[0]["lo"] < before["hi"] - before["lo"]  # fewer unknowns counted both ways


def test_a_cpu_cap_spent_leaves_the_unknowns_of_the_main_run_unsolved_and_says_so(tmp_path):
    args = ["run", "--game", "beleaguered-castle", "--player", "phased:first=2000,middle=20000,budget_nodes=200000",
            "--deal-range", "100:100000", "--halfwidth", "1.5", "--pilot", "100", "--settle", "settle:budget_nodes=3000000",
            "--cpu-hours", "0.000001", "--out", str(tmp_path / "out")]
    # the main run goes in twenty blocks (here of about 1,000 deals, usually two of them unknown at 200,000
    # positions: deals 504 and 674, when the design's rates send them to the last phase), and the cap stops it after
    # the first
    r = _castle(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "more than the cap of 1e-06: expect an interval wider than asked" in r.stderr, r.stderr  # said at the plan
    assert "CPU cap of 1e-06 hours is spent after" in r.stderr, r.stderr
    assert "points, wider than asked: ±1.5)" in r.stderr, r.stderr
    design = json.loads((tmp_path / "out" / DESIGN).read_text())["designs"][0]
    main = load_results(next((tmp_path / "out").glob("main-*")), columns=["deal", "result", "left"])
    assert len(main) == blocks(design["deals"], 5000, 1)[0]  # stopped after its first block
    # the pilot's unknowns were solved again (its plan needs them); the main run's wait, and the run says how many
    left = int((main.result.astype(str).eq("unknown") & ~main.left.fillna(False).astype(bool)).sum())
    assert (f"{left} unknown{'s' if left > 1 else ''} not solved again" in r.stderr) == (left > 0), r.stderr


def test_a_settle_in_an_experiment_file_that_names_no_player_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "e.toml").write_text('name = "x"\ngames = ["beleaguered-castle"]\ndeal_range = "100:200"\nhalfwidth = 5\nsettle = 5\n'
                                     '[[players]]\nname = "phased"\n')
    r = _castle("run", str(tmp_path / "e.toml"), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 2 and "settle" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("flags, fields, words", [
    (["--halfwidth", "1", "--pilot", "50"], "halfwidth = 1\npilot = 50\n", "--pilot must be at least 100 deals, got 50"),
    (["--halfwidth", "60"], "halfwidth = 60\n", "--halfwidth must be from 0.01 to 50 points"),
    (["--halfwidth", "1", "--cpu-hours", "-1"], "halfwidth = 1\ncpu_hours = -1\n", "--cpu-hours must be above 0, got -1"),
    (["--pilot", "200"], "pilot = 200\n", "--cpu-hours, --pilot and --settle (cpu_hours, pilot, settle) go with --halfwidth"),
])
def test_a_precision_asked_by_flags_or_by_the_file_gets_the_same_check_and_line(tmp_path, flags, fields, words):
    """The rules of a run to a half-width live where the experiment is built (sim/study/halfwidth.py), not in the
    command line: an experiment file's fields and the flags are refused alike, in one line, before anything is written."""
    head = 'name = "x"\ngames = ["beleaguered-castle"]\ndeal_range = "100:200"\nplayers = ["phased"]\n'
    (tmp_path / "e.toml").write_text(head + fields)
    (tmp_path / "f.toml").write_text(head)
    for args in ([str(tmp_path / "e.toml")], [str(tmp_path / "f.toml"), *flags]):
        r = _castle("run", *args, "--out", str(tmp_path / "out"), cwd=tmp_path)
        assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
        assert not (tmp_path / "out").exists()


def test_the_library_says_a_precisions_rules_in_its_own_words():
    from sim.study.errors import ArgumentError
    from sim.study.halfwidth import PILOT_DEALS, build_run

    exp, want = build_run({"games": ["bc"], "deal_range": "1:2", "halfwidth": 2})
    assert [p.name for p in exp.players] == ["phased"] and want.args == (2, None, PILOT_DEALS, "settle", False)
    assert build_run({"games": ["bc"]}, players=["greedy"])[1] is None
    with pytest.raises(ArgumentError, match="the pilot must be at least 100 deals, got 5"):
        build_run({"games": ["bc"], "halfwidth": 2, "pilot": 5})
    with pytest.raises(ArgumentError, match="plan_only goes with the half-width"):
        build_run({"games": ["bc"]}, plan=True)


def test_blocks_are_a_twentieth_of_the_plan_and_give_every_worker_deals():
    assert blocks(400_000, 5000, 2) == (20_000, 5000)  # the published shape: chunks as asked
    assert blocks(400_000, 5000, 64) == (20_000, 157)  # a cluster: two chunks a worker in every block
    assert blocks(929, 5000, 1) == (47, 24)  # a small plan still stops within a twentieth of it
    assert blocks(3, 5000, 8) == (1, 1)


def test_the_cap_stops_the_main_run_only_with_deals_left_and_the_closing_line_judges_the_interval(monkeypatch, tmp_path):
    """The cap is looked at after each block; found spent after the last one, nothing is stopped and nothing said of it
    (the old code said "wider than asked" there, before a closing line reading "as asked")."""
    import types

    import analysis.designs
    import analysis.load
    from sim.precision import run as precision_run
    from sim.study.experiment import build
    from sim.study.runner import RunSummary

    exp = build(name="x", games=["beleaguered-castle"], players=["phased"], deal_range="100:140")
    played, said = [], []
    monkeypatch.setattr(analysis.load, "load_results", lambda *a, **k: pd.DataFrame({"deal": played}))
    monkeypatch.setattr(analysis.designs, "perfect_play", lambda *a, **k: types.SimpleNamespace(estimate=0.5, lo=0.4, hi=0.6, half_width=0.1))

    def run(e, out, **kw):
        new = range(exp.first + len(played), e.end)  # the block's deals
        played.extend(new)
        return RunSummary(out, e.end - e.first, e.end - e.first - len(new), len(new), [], 0.1, True)

    for spent_from, stopped in ((0, True), (39, False)):  # spent from the first block on / only once the last one ends
        played.clear(), said.clear()
        monkeypatch.setattr(precision_run, "_cpu_hours", lambda out: 1.0 if len(played) > spent_from else 0.0)
        joined = precision_run._capped(run, exp, tmp_path, tmp_path, 0.5, said.append, workers=1)
        assert joined.deals_played == len(played) and joined.deals_already == 0
        lines = [x for x in said if "is spent" in x]
        assert (len(played) < 40) == stopped and bool(lines) == stopped, said
        if stopped:
            assert lines == [f"castle run: the CPU cap of 0.5 hours is spent after {len(played)} of 40 deals: the interval is "
                             "that of the deals played"]


def test_an_unreachable_scheduler_is_one_line_and_exit_2_before_the_pilot(tmp_path):
    # the cluster's threads are asked before anything is played: a wrong address writes nothing
    pytest.importorskip("distributed")
    r = _castle("run", "--game", "beleaguered-castle", "--halfwidth", "3", "--backend", "dask", "--scheduler",
                "tcp://127.0.0.1:1", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 2 and "cannot reach the Dask scheduler" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
