"""castle run --halfwidth says its plan before it spends, again after the pilot, shows one progress line over the whole
run, and keeps the pilot on disk in small parts; --plan says the plan and writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.load import load_results
from sim.precision import DESIGN
from sim.precision.forecast import Forecast, Step, _gb, _pilot_cpu, before_pilot
from sim.precision.meter import Meter
from sim.precision.prior import PRIORS, derive, prior_for
from sim.study.experiment import build

ROOT = Path(__file__).resolve().parents[1]
#: the tiny phases tests/test_precision.py plays: a pilot of 100 deals in seconds
TINY = ["--game", "beleaguered-castle", "--player", "phased:first=2000,middle=20000,budget_nodes=200000",
        "--deal-range", "100:100000", "--halfwidth", "12", "--pilot", "100", "--settle", "settle:budget_nodes=3000000"]


def _castle(*args, cwd):
    return subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", *args], capture_output=True, text=True, cwd=cwd)


def test_plan_says_the_phases_deals_cpu_time_and_memory_and_writes_nothing(tmp_path):
    r = _castle("run", "--game", "streets-and-alleys", "--halfwidth", "1", "--jobs", "2", "--plan", "--out",
                str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert list(tmp_path.iterdir()) == []  # not the folder, not a lock, not a design
    text = r.stdout
    assert "the plan to ±1 points on 2 workers, before the pilot" in text and "precision-streets" in text
    rows = {ln.split("  ")[1].strip(): ln for ln in text.splitlines()[1:5]}
    assert list(rows) == ["pilot", "its unknowns solved again", "main run, streets-and-alleys", "its unknowns solved again"][:len(rows)]
    pilot_cpu = 1000 * _pilot_cpu(PRIORS["streets-and-alleys"].phases, True) / 3600
    assert f"1,000 deals  {pilot_cpu:.2g} CPU-hours, {60 * pilot_cpu / 2:.0f} min" in text  # CPU over the two workers
    assert "still to run" in text and "memory: up to about 4.1 GB a worker, 8.3 GB in all" in text and "an estimate" in text


def test_plan_without_prior_figures_says_so_and_a_plan_without_halfwidth_is_refused(tmp_path):
    r = _castle("run", *TINY, "--plan", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 0 and "no prior figures for beleaguered-castle" in r.stdout and "CPU unknown" in r.stdout, r.stdout
    assert not (tmp_path / "out").exists()
    r = _castle("run", "--game", "beleaguered-castle", "--plan", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 2 and "--plan goes with --halfwidth" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_the_prior_plan_is_the_design_the_priors_would_make():
    exp = build(name="x", games=["streets-and-alleys"], players=["phased"], deal_range="10000:20000")
    assert prior_for("streets-and-alleys", exp.players[0].params) is not None
    assert prior_for("streets-and-alleys", {**exp.players[0].params, "first": 1000}) is None  # other phases: no prior
    f = before_pilot(exp, 1.0, 1000, None, 4)
    assert [s.name for s in f.steps] == ["pilot", "main run, streets-and-alleys"]  # nothing solved again: no such phase
    assert f.steps[0].cpu == pytest.approx(1000 * _pilot_cpu(PRIORS["streets-and-alleys"].phases, True))
    assert f.left_wall() == pytest.approx(sum(s.cpu for s in f.steps) / 4)
    deep = before_pilot(exp, 0.1, 1000, None, 4)  # below the unknowns' floor by the priors: the pilot decides
    assert deep.steps[1].deals is None and any("the pilot will tell" in n for n in deep.notes)


def test_the_priors_are_what_the_published_runs_measured():
    folders = [ROOT / "data/published" / n for n in ("precision-streets", "precision-beleaguered", "settle-precision")]
    if not all(f.is_dir() for f in folders):
        pytest.skip("no published precision runs here")
    again = load_results(folders[2], columns=["game", "deal", "result", "nodes", "cpu_us"])
    for folder, game in zip(folders, PRIORS):
        rows = load_results(folder, columns=["deal", "result", "phase", "left", "nodes", "cpu_us"])
        m = derive(rows, again[again.game.astype(str) == game], 50_000, 2_000_000)
        kept = PRIORS[game].phases
        for name, value in m.__dict__.items():  # the runs may have grown since: within a fifth
            assert getattr(kept, name) == pytest.approx(value, rel=0.2, abs=0.01), (game, name)


def test_the_pilot_and_the_main_run_are_kept_in_parts_an_interrupt_loses_minutes_of(tmp_path):
    from sim.precision import run as precision_run
    from sim.study.runner import RunSummary

    assert precision_run.pilot_part(5000, 1000, 2) == 50  # a pilot of 1,000 on two workers: 20 parts, not 4 of 250
    assert precision_run.pilot_part(5000, 100, 8) == 7 and precision_run.pilot_part(20, 1000, 1) == 20
    exp = build(name="x", games=["beleaguered-castle"], players=["phased"], deal_range="100:100100")
    sizes = []

    def run(e, out, **kw):
        sizes.append(e.chunk_size)
        return RunSummary(out, e.end - e.first, 0, 0, [], 0.1, True)

    precision_run._capped(run, exp, tmp_path, tmp_path, None, lambda line: None, workers=1, cpu_per_deal=10.0)
    assert set(sizes) == {12}  # 120 CPU-s a part at 10 s a deal (the blocks alone would make parts of 2,500)
    sizes.clear()
    precision_run._capped(run, exp, tmp_path, tmp_path, None, lambda line: None, workers=1)
    assert set(sizes) == {2500}


def _forecast(cpu=100.0, deals=10):
    return Forecast(1.0, 2, [Step("pilot", deals, cpu), Step("main run, g", 100, 1000.0)], "test", 100.0, "test")


def test_the_meter_reckons_the_time_left_from_the_plan_then_from_the_deals_timed():
    said = []
    m = Meter(_forecast(), tty=False, say=said.append)
    m.begin(0)
    assert said[-1].startswith("castle run: pilot: 0 of 10 deals (0%)")
    assert m.left(m.phase_t0) == pytest.approx(10 * 100 / 10 / 2 + 1000 / 2)  # the plan alone
    m.update(5)
    assert m.left(m.phase_t0 + 50) == pytest.approx(5 * (0.5 * 5 + 0.5 * 10) + 500)  # half the phase timed: half its pace
    m.interval(1.5)
    assert "±1.50 points so far (target ±1)" in m.text()
    m.end()
    assert said[-1].startswith("castle run: pilot: 5 of 10 deals (50%), ±1.50 points")
    none = Meter(Forecast(1.0, 1, [Step("pilot", 10, None)], "t", 1.0, "t"), tty=False, say=said.append)
    none.begin(0)
    assert none.left(none.phase_t0) is None and "time left unknown" in none.text()
    m.close(), none.close()


def test_the_meter_on_a_terminal_is_one_line_redrawn_with_lines_said_above_it():
    import io

    screen, said = io.StringIO(), []
    with Meter(_forecast(), tty=True, say=said.append, stream=screen) as m:
        m.begin(0)
        m.update(3)
        m.say("castle run: a verdict")
    assert said == ["castle run: a verdict"]  # a line of its own, the progress line cleared before it
    out = screen.getvalue()
    assert "\n" not in out and out.endswith("\r\x1b[K") and out.count("\r\x1b[K") == 2 and "pilot: 3 of 10" in out


def test_an_interrupted_pilot_keeps_whole_small_parts_and_the_rerun_uses_them_and_says_its_plan_twice(monkeypatch, tmp_path):
    from sim.study import workers
    from sim.precision import run_to_halfwidth

    real, calls = workers.run_chunk, []

    def interrupted(chunk, out, report=None):
        calls.append(chunk)
        if len(calls) == 2:  # Ctrl-C in the pilot's second part
            raise KeyboardInterrupt
        return real(chunk, out, report)

    monkeypatch.setattr(workers, "run_chunk", interrupted)
    exp = build(name="x", games=["beleaguered-castle"], players=["phased:first=2000,middle=20000,budget_nodes=200000"],
                deal_range="100:100000")
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_to_halfwidth(exp, out, 12.0, pilot=100, settle="settle:budget_nodes=3000000", say=lambda line: None,
                         progress=False)
    parts = sorted((out / "pilot").rglob("part-*.parquet"))
    assert [p.name for p in parts] == ["part-100-149.parquet"] and calls[0].n_deals == 50  # parts of 50, the first whole
    before = parts[0].stat().st_mtime_ns
    assert not (out / DESIGN).exists()
    monkeypatch.setattr(workers, "run_chunk", real)
    r = _castle("run", *TINY, "--out", str(out), cwd=tmp_path)  # a log, not a terminal
    assert r.returncode == 0, r.stderr
    assert parts[0].stat().st_mtime_ns == before  # kept, not played again
    pilot = load_results(out / "pilot", columns=["deal"])
    assert sorted(pilot.deal) == list(range(100, 200))
    err = r.stderr.splitlines()
    heads = [k for k, ln in enumerate(err) if ln.startswith("castle run: the plan to ±12 points")]
    assert len(heads) == 2 and "before the pilot" in err[heads[0]] and "made again from the pilot's measures" in err[heads[1]]
    d = json.loads((out / DESIGN).read_text())["designs"][0]
    assert "main run, beleaguered-castle" in err[heads[1] + 3] and f"{d['deals']:,} deals" in err[heads[1] + 3], err
    assert d["worker_mb"] > 0  # measured, and said as the plan's memory
    assert any(f"memory: the pilot's workers held at most {_gb(d['worker_mb'])} each (measured)" in ln for ln in err[heads[1]:])
    # the progress: a line at each phase's end in a log, the deals done of those planned
    assert "castle run: pilot: 100 of 100 deals (100%)" in r.stderr
    assert f"castle run: main run, beleaguered-castle: {d['deals']:,} of {d['deals']:,} deals (100%)" in r.stderr
