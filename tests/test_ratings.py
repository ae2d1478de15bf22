"""The Rasch scale of deals and players (analysis/ratings.py): checked against statsmodels' maximum likelihood and
against ratings it must recover from simulated games; held-out prediction (analysis/ratings_check.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis import ratings as ratings_analysis
from analysis import ratings_check


def simulate(theta, b, seed=0, repeats=1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for p, t in enumerate(theta):
        for r in range(repeats):
            won = rng.random(len(b)) < 1 / (1 + np.exp(-(t - np.asarray(b))))
            rows.append(pd.DataFrame({"player": f"p{p}", "seed": 0, "deal": np.arange(len(b)), "won": won}))
    return pd.concat(rows, ignore_index=True)


def test_elos_scale_400_points_are_ten_to_one():
    assert ratings_analysis.chance(1900, 1500) == pytest.approx(10 / 11)
    assert ratings_analysis.chance(1500, 1500) == 0.5
    f = ratings_analysis.Fit(pd.DataFrame(), pd.DataFrame(), (0.0, 1.0), offset=0.3)
    assert f.rating(0.3) == 1500 and f.rating(0.3 + np.log(10)) == pytest.approx(1900)
    assert f.logit(f.rating(1.7)) == pytest.approx(1.7)


def test_the_fit_is_the_marginal_likelihoods_maximum_as_scipy_finds_it():
    """The same likelihood written plainly (each deal's difficulty integrated out by Simpson's rule on a fine even
    grid, not Hermite's nodes) and maximised by SciPy's optimiser from another start, its gradient by finite
    differences: the same players and spread."""
    from scipy import integrate, optimize, stats

    rng = np.random.default_rng(3)
    o = simulate(rng.normal(0, 1.5, 4), rng.normal(0, 1.2, 25), seed=1, repeats=2)
    table = o.groupby(["deal", "player"]).won.agg(["sum", "size"]).unstack("player")
    wins, games = table["sum"].to_numpy(float), table["size"].to_numpy(float)  # (deals, players)

    def minus_ll(params):
        sd = np.exp(params[4])
        x = np.linspace(-12 * sd, 12 * sd, 4001)
        p = 1 / (1 + np.exp(-(params[:4][None, :, None] - x[None, None, :])))  # (1, players, grid)
        lik = np.prod(p ** wins[:, :, None] * (1 - p) ** (games - wins)[:, :, None], axis=1) * stats.norm.pdf(x, 0, sd)
        return -np.log(integrate.simpson(lik, x=x, axis=1)).sum()

    best = optimize.minimize(minus_ll, np.array([0.5, -0.5, 0.2, 0.0, 0.0]), method="L-BFGS-B",
                             options={"ftol": 1e-14, "gtol": 1e-9, "eps": 1e-7})
    f = ratings_analysis.fit(o, reference="p0")
    ours = f.players.set_index("player").theta.reindex(["p0", "p1", "p2", "p3"]).to_numpy()
    np.testing.assert_allclose(ours, best.x[:4], atol=5e-3)
    assert f.prior[1] == pytest.approx(np.exp(best.x[4]), abs=5e-3)


def test_simulated_ratings_are_recovered_with_honest_intervals():
    rng = np.random.default_rng(7)
    theta = np.array([-3.0, -1.5, -0.5, 0.5, 1.5, 2.5, 4.0])
    b = rng.normal(0.5, 1.5, 3000)
    o = simulate(theta, b, seed=2)
    f = ratings_analysis.fit(o, reference="p4")
    t = f.players.set_index("player")
    got = (t.theta - t.theta["p4"]).to_numpy()
    np.testing.assert_allclose(got, theta - theta[4], atol=0.25)
    assert np.corrcoef(f.deals.sort_values("deal").b, b)[0, 1] > 0.75  # seven answers a deal: its rating is coarse
    assert f.prior[1] == pytest.approx(1.5, abs=0.3)
    # a new player rated from 400 games: the interval holds its true rating about 95 times in 100
    held = 0
    for k in range(40):
        t_new = rng.uniform(-2, 3)
        games = simulate([t_new], b[:400] if k % 2 else b[-400:], seed=100 + k)
        r = ratings_analysis.rate_player(f, games.assign(player="new"))
        truth = f.rating(f.offset + (t_new - theta[4]) + (f.players.set_index("player").theta["p4"] - f.offset))
        held += r.lo <= truth <= r.hi
    assert held >= 34


def test_new_deals_are_rated_with_the_players_held_fixed_as_the_fit_rates_its_own():
    """On the fit's own games the deals come out as the fit gave them; new deals, simulated from the same players,
    come out near their true difficulty (posterior intervals holding it about 95 times in 100)."""
    rng = np.random.default_rng(11)
    theta = np.array([-2.0, -0.5, 0.5, 1.5, 3.0, 4.0, 5.0, 6.0])
    o = simulate(theta, rng.normal(1.0, 1.5, 1500), seed=5)
    f = ratings_analysis.fit(o, reference="p3")
    again = ratings_analysis.rate_deals(f, o)
    pd.testing.assert_frame_equal(again.reset_index(drop=True), f.deals.reset_index(drop=True))
    b_new = rng.normal(1.0, 1.5, 1000)
    games = simulate(theta, b_new, seed=6).assign(deal=lambda d: d.deal + 10_000)
    extra = pd.DataFrame({"player": "unrated", "seed": 0, "deal": 10_000, "won": [True] * 50})  # ignored: not on the scale
    new = ratings_analysis.rate_deals(f, pd.concat([games, extra])).set_index("deal")
    truth = b_new + (f.players.set_index("player").theta["p3"] - theta[3])  # the fit's origin differs from the truth's
    got = new.b.reindex(np.arange(1000) + 10_000).to_numpy()
    assert np.corrcoef(got, truth)[0, 1] > 0.75  # eight answers a deal: coarse, as the fit's own
    inside = np.abs(got - truth) <= 1.96 * new.se.reindex(np.arange(1000) + 10_000).to_numpy()
    assert 0.90 <= inside.mean() <= 0.99
    assert (new.rungs == 8).all()


def test_a_deal_every_rung_won_or_none_is_censored_and_a_player_with_no_win_is_a_bound():
    o = simulate([-1.0, 0.0, 1.0], np.linspace(-2, 2, 200), seed=4)
    o.loc[o.deal == 0, "won"] = True
    o.loc[o.deal == 1, "won"] = False
    nobody = pd.DataFrame({"player": "never", "seed": 0, "deal": np.arange(200), "won": False})
    f = ratings_analysis.fit(pd.concat([o, nobody]), reference="p1")
    d = f.deals.set_index("deal")
    assert d.censored[0] == "below" and d.censored[1] == "above"
    won = o.groupby("deal").won.agg(["sum", "size"])  # (the rated players' games: "never" is not one)
    expect = np.where(won["sum"] == 0, "above", np.where(won["sum"] == won["size"], "below", ""))
    assert list(d.censored.reindex(won.index)) == list(expect)
    assert np.isfinite(d.b).all() and d.b[1] > d.b[0]
    assert "never" not in set(f.players.player)
    r = ratings_analysis.rate_player(f, nobody)
    assert r.bound == "below" and r.lo == -np.inf and r.won == 0 and r.rating < f.rating(f.players.theta.min())


def test_tiers_are_cut_at_ratings_and_named_easiest_first():
    assert list(ratings_analysis.tier_of([100, 700, 1000, 1200, 3000], [500, 800, 1100, 1400])) == \
        ["Very easy", "Easy", "Medium", "Hard", "Very hard"]
    assert list(ratings_analysis.tier_of([-50, 0, 1, 999, 1500.5])) == ["Very easy", "Very easy", "Easy", "Medium", "Very hard"]
    assert ratings_analysis.chance(ratings_analysis.CUTS[1], ratings_analysis.CUTS[0]) == pytest.approx(1 / (1 + 10 ** -1.25))  # 500 points: about 18 to 1


def test_held_out_games_are_predicted_better_than_by_win_rates_alone():
    rng = np.random.default_rng(11)
    b = rng.normal(0, 1.5, 600)
    o = simulate(np.linspace(-2.5, 2.5, 8), b, seed=5)
    index = pd.DataFrame({"seed": 0, "deal": np.arange(600), "difficulty": b + rng.normal(0, 1, 600)})
    pred = ratings_check.held_out_pairs(o, index, folds=5)
    assert len(pred) == len(o)
    s = ratings_check.scores(pred).set_index("predictor")
    assert s.log_loss["rating"] < s.log_loss["rate"] and s.log_loss["index"] < s.log_loss["rate"]
    assert s.auc["rating"] > s.auc["rate"]
    cal = ratings_check.calibration(pred.rating, pred.won)
    assert (abs(cal.predicted - cal.won)[cal.games > 100] < 0.08).all()
    assert ratings_check.auc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == 0.75


LADDER = ("random", "greedy", "lookahead", ratings_analysis.REFERENCE)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    from tests.synthetic import write_dataset

    return write_dataset(tmp_path_factory.mktemp("rated") / "d", deals=300, games=("selective-castle", "streets-and-alleys"),
                         players=LADDER)


def test_the_ladder_is_put_on_one_scale_and_tiers_say_what_named_players_won(study):
    from analysis import ladder, load, rated, scan

    df = load.load_results(study, judged_only=True)
    scales = rated.study(scan.of(study), df, ["selective-castle", "streets-and-alleys"])
    assert set(scales) == {"selective-castle", "streets-and-alleys"}
    s = scales["streets-and-alleys"]
    p = s.players().set_index("player")
    assert p.rating[ratings_analysis.REFERENCE] == pytest.approx(1500) and (p.lo < p.rating).all() and (p.rating < p.hi).all()
    assert p.rating["random"] < p.rating[ratings_analysis.REFERENCE] < p.rating["greedy"]  # (the synthetic greedy wins most)
    assert s.rungs[0] == "random" and s.rungs[-1] == "greedy"
    v = ladder.verdicts(df)
    assert len(s.deals) == int(((v.game == "streets-and-alleys") & (v.verdict == "won")).sum())  # every winnable deal
    assert set(s.deals.censored) <= {"", "above", "below"}
    every = s.deals[list(LADDER)].all(axis=1)
    assert (s.deals.censored[every] == "below").all() and (s.deals.censored[~s.deals[list(LADDER)].any(axis=1)] == "above").all()
    t = rated.tiers_table(s).set_index("tier")
    assert t.deals.sum() == len(s.deals) and t.share.sum() == pytest.approx(1)
    rows = load.load_results(study, games=["streets-and-alleys"], players=["greedy"]).set_index("deal").won
    for tier, d in s.deals.groupby("tier"):
        assert t.loc[tier, "greedy"] == pytest.approx(rows.reindex(d.deal).mean())  # what greedy did on them


def test_castle_rate_rates_a_player_on_the_ladders_scale(study, tmp_path):
    import json
    import subprocess
    import sys

    def castle(*args):
        return subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", *args], capture_output=True,
                              text=True, cwd=tmp_path, timeout=600)

    out = castle("rate", "greedy", "--game", "selective-castle", "--deals", "40", "--data", str(study), "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["deals"] == 40 and 0 <= got["won"] <= 40 and got["game"] == "selective-castle"
    assert got["low"] is None or got["low"] <= got["rating"]
    assert {x["player"]: x["rating"] for x in got["ladder"]}[ratings_analysis.REFERENCE] == pytest.approx(1500)
    assert list(got["chance_by_tier"]) == [t for t in ratings_analysis.TIERS if t in got["chance_by_tier"]]
    text = castle("rate", "greedy", "--game", "selective-castle", "--deals", "40", "--data", str(study))
    assert text.returncode == 0 and "on the ladder:" in text.stdout and "rating" in text.stdout.splitlines()[0]
    for bad in (["--data", str(tmp_path / "none")], ["--game", "fortress", "--data", str(study)]):
        args = ["rate", "greedy", "--game", "selective-castle", "--deals", "40", *bad]
        r = castle(*args)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr


def test_the_report_puts_deals_and_players_on_one_scale(study, tmp_path):
    from analysis.report import build_report

    html = build_report(study, tmp_path / "report", reference=None, replays=None).read_text()
    assert "Deals and players on one scale" in html
    for table in ("ratings_players", "ratings_tiers", "ratings_held_out", "ratings_new_players", "ratings_before_search"):
        assert (tmp_path / "report" / "tables" / f"{table}.csv").is_file()
    import pandas as pd

    tiers = pd.read_csv(tmp_path / "report" / "tables" / "ratings_tiers.csv")
    assert list(tiers.tier.unique()) == [t for t in ratings_analysis.TIERS if t in set(tiers.tier)]
    held = pd.read_csv(tmp_path / "report" / "tables" / "ratings_held_out.csv")
    assert set(held.predictor) >= {"rating", "rate", "two parameters"} and (held.log_loss > 0).all()
    assert (tmp_path / "report" / "figures" / "ratings.png").is_file()
    # how many values the ratings take, counted from the study's own scale
    import re

    from analysis import rated

    scale = rated.scale_of(study, "selective-castle")
    levels = re.search(r"Selective Castle: (\d+) ratings from (\d+) rungs", html)
    assert levels and int(levels[1]) == scale.deals.rating.round().nunique() and int(levels[2]) == len(scale.rungs)


def test_a_chance_given_a_deals_uncertainty_is_its_average_over_that_uncertainty():
    """MacKay's approximation against the average of Elo's chance over a normal deal rating, done numerically."""
    from scipy import stats

    x = np.linspace(-3000, 5000, 80001)
    for player, deal, se in ((1900, 1500, 150), (1200, 1500, 300), (2500, 1000, 400), (1500, 1500, 250)):
        exact = np.trapezoid(ratings_analysis.chance(player, x) * stats.norm.pdf(x, deal, se), x)
        assert ratings_analysis.chance(player, deal, se) == pytest.approx(exact, abs=0.01)
        assert abs(ratings_analysis.chance(player, deal, se) - 0.5) <= abs(ratings_analysis.chance(player, deal) - 0.5)
    assert ratings_analysis.chance(1900, 1500, 0.0) == pytest.approx(10 / 11)


def test_a_slope_per_player_is_recovered_and_equal_slopes_are_the_rasch_scale():
    rng = np.random.default_rng(5)
    b = rng.normal(0, 1, 3000)
    theta, slope = np.array([-1.5, -0.5, 0.0, 0.7, 1.5]), np.array([0.8, 2.0, 1.2, 3.0, 1.5])
    rows = [pd.DataFrame({"player": f"p{p}", "seed": 0, "deal": np.arange(len(b)),
                          "won": rng.random(len(b)) < 1 / (1 + np.exp(-a * (t - b)))}) for p, (t, a) in enumerate(zip(theta, slope))]
    s = ratings_check.fit_slopes(pd.concat(rows, ignore_index=True)).players.set_index("player")
    np.testing.assert_allclose(s.slope.to_numpy(), slope, rtol=0.2)
    np.testing.assert_allclose(s.theta.to_numpy(), theta, atol=0.15)
    # Rasch games (deals spread 1.4): every slope is the spread, and slope times theta the Rasch logit
    o = simulate(np.linspace(-2, 2, 6), rng.normal(0, 1.4, 3000), seed=2)
    two = ratings_check.fit_slopes(o).players.set_index("player")
    one = ratings_analysis.fit(o, reference="p0")
    np.testing.assert_allclose(two.slope.to_numpy(), one.prior[1], rtol=0.15)
    np.testing.assert_allclose((two.slope * two.theta).to_numpy(), one.players.set_index("player").theta.to_numpy(), atol=0.15)
    # a player that wins exactly the deals below a threshold: its slope runs to the bound
    easy = one.deals.set_index("deal").b.reindex(np.arange(3000)).to_numpy() < 0
    o2 = pd.concat([o, pd.DataFrame({"player": "step", "seed": 0, "deal": np.arange(3000), "won": easy})])
    assert ratings_check.fit_slopes(o2).players.set_index("player").slope["step"] > 20


def test_streams_more_alike_than_independent_games_are_found_and_independent_ones_are_not():
    """A rung that plays each deal on five random streams: with independent games of the scale's chance, the share of
    deals its streams all agree on is what the scale predicts; with a rung-by-deal effect (one offset for all the
    streams of a deal, as a random player that finds or misses one key line every time), it is well above."""
    rng = np.random.default_rng(13)
    n = 1500
    b = rng.normal(0, 1.5, n)
    fixed = simulate(np.array([-2.0, -0.5, 1.0, 2.5]), b, seed=4).assign(stream=0)
    for offset_sd, within in ((0.0, True), (2.5, False)):
        u = rng.normal(0, offset_sd, n)
        streams = [pd.DataFrame({"player": "r", "seed": 0, "deal": np.arange(n), "stream": k,
                                 "won": rng.random(n) < 1 / (1 + np.exp(-(0.3 - b + u)))}) for k in range(5)]
        o = pd.concat([fixed, *streams], ignore_index=True)
        a = ratings_check.streams_alike(o, ratings_analysis.fit(o, reference="p2")).set_index("player").loc["r"]
        assert a.deals == n and a.streams == 5
        if within:
            assert abs(a.alike - a.alike_predicted) < 0.02, a
        else:
            assert a.alike - a.alike_predicted > 0.15, a
