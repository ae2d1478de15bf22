"""The designs' estimators: exact on what they can see, and their 95% intervals cover the truth.

Coverage is checked by simulation on a population resampled from the shipped solver rows of Streets and Alleys
(deals 0-9,999: each deal's verdict and the positions it took, so a short budget settles exactly the deals that
took fewer): 2,000 replications of the three-phase design, of the two-phase one, and of a plain run beside a phased
one. ``benchmarks/design_coverage.py`` runs the same check at the study's sizes.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.designs import Estimate, Z, combine, estimate, perfect_play, phased_interval, phased_mean, plain
from analysis.settling import running, whole_interval_hours

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "published" / "winnability-streets-beleaguered"


def phased_arrays(y: np.ndarray, nodes: np.ndarray, unknown: np.ndarray, u1: np.ndarray, u2: np.ndarray,
                  first: int, middle: int, rate: float, rate2: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The phase, left and result columns the phased player would write for deals with these verdicts and costs
    (a short budget settles a deal if it took fewer positions, as the solver's rounds do), and these draws."""
    n = len(y)
    result = np.where(unknown, "unknown", np.where(y, "won", "lost"))
    settles1 = ~unknown & (nodes <= first)
    phase = np.ones(n, int)
    left = np.zeros(n, bool)
    go2 = ~settles1 & (u1 < rate)
    left |= ~settles1 & ~go2
    phase[go2] = 2
    if middle:
        settles2 = go2 & ~unknown & (nodes <= middle)
        go3 = go2 & ~settles2 & (u2 < rate2)
        left |= go2 & ~settles2 & ~go3
        phase[go3] = 3
    result[left] = "unknown"
    return phase, left, result


def phased_rows(*args) -> pd.DataFrame:
    """:func:`phased_arrays` as the rows of a run."""
    phase, left, result = phased_arrays(*args)
    params = json.dumps({"middle": args[6]})
    return pd.DataFrame({"game": "streets-and-alleys", "player": "phased", "player_params": params, "seed": 0,
                         "deal": np.arange(len(phase)), "result": result, "phase": phase, "left": left, "cpu_us": 1000})


def test_a_phased_design_with_every_deal_going_on_is_the_plain_estimate():
    rng = np.random.default_rng(1)
    y = rng.random(500) < 0.5
    nodes = rng.integers(1, 10**6, 500)
    rows = phased_rows(y, nodes, np.zeros(500, bool), np.zeros(500), np.zeros(500), 1000, 100_000, 1.0, 1.0)
    e = estimate(rows)
    assert e.design == "three-phase" and math.isclose(e.estimate, y.mean()) and e.unknown == 0
    assert math.isclose(e.variance, y.mean() * (1 - y.mean()) / 500, rel_tol=0.02)  # the stratified variance of a full sample


def test_unknowns_at_the_full_budget_count_both_ways_and_left_deals_never_as_verdicts():
    phase = np.array([1, 1, 2, 2, 2, 1])
    left = np.array([False, False, False, False, False, True])
    result = np.array(["won", "lost", "won", "unknown", "lost", "unknown"])
    m0, *_ = phased_mean(phase, left, result, 0)
    m1, *_ = phased_mean(phase, left, result, 1)
    # settled in phase 1: 1 won of 2; unsettled: 4 (3 went on + 1 left), of those that went on 1/3 won (or 2/3)
    assert math.isclose(m0, (1 + 4 * (1 / 3)) / 6) and math.isclose(m1, (1 + 4 * (2 / 3)) / 6)


def test_a_plain_design_keeps_the_studys_wilson_interval():
    mid, lo, hi, _ = plain(5087, 44, 10_000)
    assert (round(100 * mid, 3), round(100 * lo, 3), round(100 * hi, 3)) == (51.09, 49.89, 52.289)


def _population():
    if not SHIPPED.is_dir():
        pytest.skip("the shipped study is not here")
    from analysis.load import load_results

    df = load_results(SHIPPED, games=["streets-and-alleys"], columns=["game", "result", "nodes"])
    return (df.result == "won").to_numpy(), df.nodes.to_numpy(), (df.result == "unknown").to_numpy()


@pytest.mark.parametrize("middle, rate, rate2", [(2_000_000, 0.14, 0.2), (0, 0.1, 1.0)])
def test_the_phased_designs_intervals_cover_the_truth(middle, rate, rate2):
    y, nodes, unknown = _population()
    truth_lo, truth_hi = (y & ~unknown).mean(), (y | unknown).mean()
    rng = np.random.default_rng(7)
    reps, n, covered = 2000, 10_000, 0
    for _ in range(reps):
        i = rng.integers(0, len(y), n)
        *_, lo, hi = phased_interval(*phased_arrays(y[i], nodes[i], unknown[i], rng.random(n), rng.random(n), 50_000, middle,
                                                    rate, rate2))
        covered += lo <= truth_lo and truth_hi <= hi
    assert covered / reps >= 0.945, covered / reps


def test_a_plain_run_and_a_phased_run_combined_cover_the_truth():
    y, nodes, unknown = _population()
    known = ~unknown  # the plain part's unknowns aside, so the truth is one number
    y, nodes = y[known], nodes[known]
    truth = y.mean()
    rng = np.random.default_rng(11)
    reps, covered, widths = 2000, 0, []
    n = 10_000
    for _ in range(reps):
        a = rng.integers(0, len(y), 1000)
        b = rng.integers(0, len(y), n)
        mid, lo, hi, var = plain(int(y[a].sum()), 0, 1000)
        first = Estimate("g", "solver", "plain", mid, lo, hi, 1000, 1000, 0.0, var, 0.0)
        arrays = phased_arrays(y[b], nodes[b], np.zeros(n, bool), rng.random(n), rng.random(n), 50_000, 2_000_000, 0.14, 0.2)
        m0, m1, v0, lo, hi = phased_interval(*arrays)
        parts = tuple(phased_mean(*arrays, 0)[2])  # the variance's parts: what Satterthwaite's quantile is counted from
        second = Estimate("g", "phased", "three-phase", m0, lo, hi, n, 0, 0.0, v0, 0.0, parts=parts, parts_won=parts)
        e = combine([first, second], "g")
        covered += e.lo <= truth <= e.hi
        widths.append(e.hi - e.lo)
    assert covered / reps >= 0.945, covered / reps
    assert np.mean(widths) > 2 * Z * math.sqrt(truth * (1 - truth) / (n + 1000))  # no precision for free


def test_perfect_play_joins_the_plain_runs_and_adds_the_phased_deals_they_did_not_play():
    plain_rows = pd.DataFrame({"game": "g", "player": "solver", "seed": 0, "deal": np.arange(100),
                               "result": ["won"] * 60 + ["lost"] * 40, "cpu_us": 10})
    rows = phased_rows(np.arange(200) % 2 == 0, np.full(200, 10), np.zeros(200, bool), np.zeros(200), np.zeros(200),
                       50_000, 0, 1.0, 1.0)
    rows["game"], rows["deal"] = "g", np.arange(50, 250)  # 50 deals overlap the plain run: they are the plain run's
    e = perfect_play(pd.concat([plain_rows, rows], ignore_index=True), "g")
    assert e.deals == 250 and e.design == "plain + two-phase"
    assert math.isclose(e.estimate, (60 + 75) / 250)  # the fresh deals 100-249: every other one won


def test_the_whole_intervals_cost_counts_the_unknowns_floor_and_what_solving_them_again_costs():
    # 0.3% unknown (a floor of ±0.15 points), variance 0.5 a deal, 0.1 CPU-s a deal
    e = Estimate("g", "phased", "three-phase", 0.5, 0.49, 0.51, 1000, 1000, 100.0, 0.5 / 1000, 0.003)
    alone = e.cpu_hours_whole()
    assert alone == pytest.approx(0.5 * (Z / (0.00186 - 0.0015)) ** 2 * 0.1 / 3600)
    assert alone > e.cpu_hours_to()  # the sampling part alone is cheaper
    assert math.isinf(Estimate(**{**e.__dict__, "unknown": 0.004}).cpu_hours_whole())  # ±0.2 of unknowns: beyond ±0.186
    runs = pd.DataFrame({"result": ["won"] * 997 + ["unknown"] * 3, "left": [False] * 997 + [True, False, False]})
    again = pd.DataFrame({"seed": 0, "deal": [998, 999], "result": ["won", "unknown"],
                          "cpu_us": [600e6, 1000e6]})  # half settle, 800 s each
    c = whole_interval_hours(e, runs, again)
    assert c.settled == pytest.approx(1 / 3)  # 1 settled of 2, shrunk: 1 / (2 + 1)
    assert c.hours == pytest.approx(0.5 * (Z / (0.00186 - 0.0015 * 2 / 3)) ** 2 * (0.1 + 0.002 * 800) / 3600)  # 2 of 1000 not left
    assert (c.hours_worst, c.running) == (c.hours, 0)  # nothing still being solved
    c = whole_interval_hours(e, runs, again.iloc[:0])
    assert (c.hours, c.settled) == (alone, None)
    # the unknown solved again deeper (lost, 1,400 s more): one deal, both runs' CPU; every deal settled now
    deeper = pd.concat([again, pd.DataFrame({"seed": [0], "deal": [999], "result": ["lost"], "cpu_us": [1400e6]})])
    c = whole_interval_hours(e, runs, deeper)
    assert c.settled == pytest.approx(2 / 3)  # both settled, shrunk: 2 / (2 + 1)
    assert c.hours == pytest.approx(0.5 * (Z / (0.00186 - 0.0015 / 3)) ** 2 * (0.1 + 0.002 * 1500) / 3600)


def test_the_deals_a_settle_run_had_not_finished_are_counted_as_never_settling_at_their_full_budget():
    """A settle run of six listed deals, two at a time: three finished fast (two settled), and the first two without a
    row were running when the rows were taken. Left out, they make solving again look cheap and sure; counted as never
    settling at their full 3,000 CPU-s, the share falls from 2/4 to 2/6 and the CPU a deal rises from 100 s to 1,260 s."""
    e = Estimate("g", "phased", "three-phase", 0.5, 0.49, 0.51, 1000, 1000, 100.0, 0.5 / 1000, 0.003)
    runs = pd.DataFrame({"result": ["won"] * 990 + ["unknown"] * 10, "left": False})
    listed = [11, 12, 13, 14, 15, 16]
    rows = pd.DataFrame({"game": "g", "player": "settle", "seed": 0, "deal": [11, 13, 14], "dataset": "again",
                         "result": ["won", "lost", "unknown"], "cpu_us": 100e6})
    manifest = {"experiment": {"games": {"g": 1}, "deals": {"g": listed}, "players": {"settle": {"budget_seconds": 3000.0}}},
                "finished": None, "runs": [{"jobs": 2, "finished": None}]}
    flying = running({"again": manifest}, rows)
    assert flying.deal.tolist() == [12, 15] and flying.budget_s.tolist() == [3000.0, 3000.0]  # 12: passed by 13 and 14
    c = whole_interval_hours(e, runs, rows, flying)
    assert c.running == 2 and c.settled == pytest.approx(2 / 4) and c.settled_worst == pytest.approx(2 / 6)
    per = lambda settled, cpu: 0.5 * (Z / (0.00186 - 0.0015 * (1 - settled))) ** 2 * (0.1 + 0.01 * cpu) / 3600  # noqa: E731
    assert c.hours == pytest.approx(per(2 / 4, 100)) and c.hours_worst == pytest.approx(per(2 / 6, (300 + 6000) / 5))
    assert c.hours_worst > c.hours
    finished = manifest | {"finished": "2026-01-01T00:00:00+00:00"}
    assert running({"again": finished}, rows).empty


def test_a_settle_run_given_one_game_has_only_that_games_deals_in_flight():
    """A settle run listing two games, rerun with ``--game h`` on two workers: the deals in flight are h's first two
    without a row, not g's (the README named two deals of another game as being solved)."""
    listed = {"g": [1, 2, 3], "h": [7, 8, 9]}
    rows = pd.DataFrame({"game": ["h"], "player": "settle", "seed": 0, "deal": [7], "dataset": "again",
                         "result": ["lost"], "cpu_us": 100e6})
    manifest = {"experiment": {"games": {"g": 1, "h": 1}, "deals": listed, "players": {"settle": {"budget_seconds": 60.0}}},
                "finished": None, "runs": [{"jobs": 2, "finished": None, "games": ["h"]}]}
    assert running({"again": manifest}, rows)[["game", "deal"]].values.tolist() == [["h", 8], ["h", 9]]
    manifest["runs"][-1].pop("games")  # a run recorded before runs named their games: all of them
    assert running({"again": manifest}, rows)[["game", "deal"]].values.tolist() == [["g", 1], ["g", 2]]


def test_one_interval_convention_students_t_at_satterthwaites_degrees_of_freedom_each_bound_its_own():
    """Two runs of a game joined: each bound is its side's estimate (unknowns lost, won) plus or minus Student's t at
    the Satterthwaite degrees of freedom of all the parts' variances (weighted by the squared shares of the deals),
    times that side's own standard error; a part resting on few deals makes t larger than 1.96."""
    from scipy.stats import t as student

    a = Estimate("g", "solver", "plain", 0.5, 0.4, 0.6, 1000, 1000, 0.0, 2.5e-4, 0.002,
                 parts=((2.5e-4, 1000),), parts_won=((2.4e-4, 1000),))
    b = Estimate("g", "phased", "three-phase", 0.6, 0.5, 0.7, 3000, 500, 0.0, 3e-4, 0.004,
                 parts=((1e-4, 3000), (2e-4, 12)), parts_won=((1e-4, 3000), (1.5e-4, 12)))
    e = combine([a, b], "g")
    w = (0.25, 0.75)
    for won, parts, bound in ((False, [(w[0] ** 2 * 2.5e-4, 1000), (w[1] ** 2 * 1e-4, 3000), (w[1] ** 2 * 2e-4, 12)], e.lo),
                              (True, [(w[0] ** 2 * 2.4e-4, 1000), (w[1] ** 2 * 1e-4, 3000), (w[1] ** 2 * 1.5e-4, 12)], e.hi)):
        var = sum(c for c, _ in parts)
        dof = var ** 2 / sum(c * c / (n - 1) for c, n in parts)
        q = student.ppf(0.975, dof)
        assert q > Z
        centre = 0.25 * (0.5 + (0.001 if won else -0.001)) + 0.75 * (0.6 + (0.002 if won else -0.002))
        assert bound == pytest.approx(centre + (1 if won else -1) * q * math.sqrt(var))
    assert e.q == pytest.approx(student.ppf(0.975, sum(c for c, _ in e.parts) ** 2 / sum(c * c / (n - 1) for c, n in e.parts)))
