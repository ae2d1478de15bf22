"""Deals and players on one scale: a Rasch model of the ladder's wins, in Elo's points.

The chance that player *p* wins deal *d* is ``1 / (1 + 10 ** ((R_d - R_p) / 400))``: a player rated 400 points
above a deal wins it ten times as often as it loses it, as in Elo's scale. In logits, ``P(win) = σ(θ_p - b_d)``,
the Rasch (one-parameter logistic) model, whose ratings are ``R = 1500 + (400 / ln 10) (x - θ_ref)``: 1500 is
the reference player's rating in every game (:data:`REFERENCE`, a rung of the ladder that wins most of the
study's deals but not all), so a deal rated 1500 is one it wins half the time, in any game.

Why Rasch and not two parameters: the ladder answers each deal with about ten players (about fifteen games: the
two that draw random numbers play it on several random streams, each a game), too few responses to estimate a
deal's own discrimination; the number of games won on a deal is then the sufficient statistic of its difficulty,
as the weakest rung that wins it is today, with a probability to go with it. A slope per player can be
estimated, and :func:`analysis.ratings_check.fit_slopes` is judged beside this model on the same held-out games (the report's table): it gains a little and costs the one scale, a
rating difference no longer meaning the same odds for every player. Why written here: the fit is marginal maximum likelihood (:func:`fit`: the deals a normal population
integrated out on a grid of Hermite nodes, maximised by L-BFGS with the gradient written out), a few lines of NumPy and SciPy; IRT libraries on the package index are unmaintained
or need a probabilistic programming stack. ``tests/test_ratings.py`` checks it against the same likelihood
maximised by SciPy's optimiser on a small problem, and against simulated ratings it must recover.

Censored, never dropped: a deal every rung won, or none, has only a bound in the data (its posterior gives it a
finite rating, drawn towards the others); it is flagged ``censored`` ("below" / "above") and its tier says so.
A player that won none of its deals, or all, is not fitted: it gets a bound (:func:`rate_player`). Deals the
solver proved lost are not rated (no player can win them); deals it left unknown neither.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

SCALE = 400 / math.log(10)  #: rating points a logit
CENTRE = 1500.0  #: the reference player's rating
REFERENCE = "beam:budget=1000000"  #: the ladder's rung rated 1500 in every game
#: the tiers, easiest first, and the ratings between them: the same points in every game (the reference rung is 1500
#: in each), round numbers 500 points apart (a player 500 points above a deal wins it about 18 times in 19), so a
#: tier's meaning is read off the chance named players win its deals (:func:`analysis.rated.tiers_table`)
TIERS = ("Very easy", "Easy", "Medium", "Hard", "Very hard")
CUTS = (0.0, 500.0, 1000.0, 1500.0)
#: players the tiers are described by (the chance each wins a tier's deals)
DESCRIBED_BY = ("greedy", "lookahead", "nmcs:budget=200000", REFERENCE, "beam:budget=4000000,width=32")


@dataclass
class Fit:
    """A game's fitted scale: players' and deals' logits with standard errors, and the deals' prior."""

    players: pd.DataFrame  #: player, theta, se, deals, won
    deals: pd.DataFrame  #: seed, deal, b, se, rungs, won, censored ("", "below", "above")
    prior: tuple[float, float]  #: the deals' difficulties: mean and standard deviation (logits)
    offset: float  #: the reference player's theta: ratings are SCALE * (x - offset) + CENTRE

    def rating(self, x) -> np.ndarray:
        """Logits as rating points."""
        return CENTRE + SCALE * (np.asarray(x, float) - self.offset)

    def logit(self, rating) -> np.ndarray:
        """Rating points as logits."""
        return (np.asarray(rating, float) - CENTRE) / SCALE + self.offset


def chance(player_rating, deal_rating, se=0.0) -> np.ndarray:
    """The chance a player rated ``player_rating`` wins a deal rated ``deal_rating`` (Elo's formula).

    ``se``: the deal's rating's standard error (points). A deal's rating rests on about fifteen games, and the chance is
    averaged over what it may be, not read at its middle (MacKay's approximation: the logit divided by
    ``sqrt(1 + π s² / 8)``, ``s`` in logits): read at the middle, the chances of games the fit did not see were too
    confident (the report's calibration figure). The player's own uncertainty is not added: on the rungs' held-out
    games (:func:`analysis.ratings_check.held_out_players`) that predicted slightly worse than the deal's alone."""
    shrink = np.sqrt(1.0 + math.pi * (np.asarray(se, float) / SCALE) ** 2 / 8.0)
    return 1.0 / (1.0 + 10.0 ** ((np.asarray(deal_rating, float) - np.asarray(player_rating, float)) / (400.0 * shrink)))


NODES = 41  #: quadrature nodes over the deals' spread of difficulty


def fit(outcomes: pd.DataFrame, reference: str = REFERENCE, iterations: int = 500, prior_sd: float | None = None,
        start: Fit | None = None) -> Fit:
    """Fit the Rasch model to ``outcomes`` (columns ``player``, ``seed``, ``deal``, ``won``: one game's rungs on its
    winnable deals; several rows of a pair count as several games of it).

    Marginal maximum likelihood (L-BFGS, the gradient by Fisher's identity): the deals' difficulties are a normal population (mean 0: the scale's
    origin until the reference moves it; spread estimated, or ``prior_sd``), integrated out on a grid of
    :data:`NODES` points, so each player's logit is consistent however few players answer a deal (joint
    maximum likelihood shrinks them with ten). A deal's difficulty is then its posterior mean given the
    players (finite for a deal every rung won or none: ``censored`` says which), its ``se`` the posterior's
    standard deviation. Players that won none or all of their deals are left out (:func:`rate_player` bounds them).
    ``start``: a fit of similar games to start from (a hold-out's folds start from the fit of all the games).
    """
    o = outcomes[["player", "seed", "deal", "won"]].copy()
    o["won"] = o.won.astype(float)
    by = o.groupby("player", observed=True).won.agg(["size", "sum"])
    keep = by[(by["sum"] > 0) & (by["sum"] < by["size"])].index
    o = o[o.player.isin(keep)]
    if o.empty:
        raise ValueError("no player both won and lost a deal: nothing to rate on")
    players, deals, p_codes, d_codes, y, wins, losses = counts(o)
    n_p = len(players)
    z, wz = quadrature()
    from scipy.optimize import minimize

    def minus_log_likelihood(params):
        """The marginal log-likelihood's negative and gradient (Fisher's identity: the posterior's expected score)."""
        theta, sd = params[:n_p], (math.exp(params[n_p]) if prior_sd is None else prior_sd)
        x = sd * z
        s = _sigmoid(theta[:, None] - x[None, :])  # (players, nodes): the chance each player wins at each node
        ll = wins @ _log_sigmoid(theta[:, None] - x[None, :]) + losses @ _log_sigmoid(x[None, :] - theta[:, None])
        ll += np.log(wz)[None, :]
        top = ll.max(1, keepdims=True)
        post = np.exp(ll - top)
        total = post.sum(1, keepdims=True)
        post /= total
        pw, pl = post.T @ wins, post.T @ losses  # (nodes, players): expected wins and losses at each node
        score = pw.T * (1 - s) - pl.T * s  # (players, nodes): d loglik / d theta_p at each node
        grad = -score.sum(1)
        if prior_sd is None:
            grad = np.append(grad, float((score * z[None, :]).sum()) * sd)  # d/d log sd = -score * z * sd, negated
        return -float((top + np.log(total)).sum()), grad

    x0 = np.zeros(n_p + (prior_sd is None))
    if start is not None:
        x0[:n_p] = start.players.set_index("player").theta.reindex(list(players)).fillna(0).to_numpy()
        if prior_sd is None:
            x0[n_p] = math.log(start.prior[1])
    res = minimize(minus_log_likelihood, x0, jac=True, method="L-BFGS-B", options={"maxiter": iterations, "gtol": 1e-7})
    theta = res.x[:n_p]
    sd = math.exp(res.x[n_p]) if prior_sd is None else prior_sd
    x = sd * z
    post = _posterior(theta, x, wz, wins, losses)
    s = _sigmoid(theta[:, None] - x[None, :])
    info = ((post.T @ (wins + losses)).T * s * (1 - s)).sum(1)
    pl = pd.DataFrame({"player": list(players), "theta": theta, "se": 1 / np.sqrt(info + 1e-12),
                       "deals": np.bincount(p_codes, None, n_p).astype(int), "won": np.bincount(p_codes, y, n_p).astype(int)})
    ref = pl.set_index("player").theta.get(reference)
    return Fit(pl, _deals(deals, post, x, d_codes, y), (0.0, sd), float(ref) if ref is not None else 0.0)


def rate_deals(f: Fit, outcomes: pd.DataFrame) -> pd.DataFrame:
    """New deals rated on a fitted scale, its players held fixed: each deal's posterior given the games of ``f``'s
    players on it (``player``, ``seed``, ``deal``, ``won``) and ``f``'s prior, as :func:`fit` rates its own deals (on
    the fit's own outcomes it gives the fit's deals). Games of players ``f`` did not rate are left out. Columns as
    ``f.deals``."""
    theta_of = f.players.set_index("player").theta
    o = outcomes[outcomes.player.astype(str).isin(theta_of.index)]
    if o.empty:
        return f.deals.iloc[:0].copy()
    players, deals, _, d_codes, y, wins, losses = counts(o)
    z, wz = quadrature()
    x = f.prior[1] * z + f.prior[0]
    post = _posterior(theta_of.reindex(list(players)).to_numpy(), x, wz, wins, losses)
    return _deals(deals, post, x, d_codes, y)


def counts(o: pd.DataFrame):
    """Games won and lost per deal and player (a game's likelihood depends on nothing else): ``players`` (labels,
    sorted), ``deals`` (a (seed, deal) index, sorted), each game's player and deal codes, its result ``y`` (0/1), and
    the ``wins`` and ``losses`` matrices (deals x players)."""
    p_codes, players = pd.factorize(o.player.astype(str), sort=True)
    d_codes, deals = pd.factorize(pd.MultiIndex.from_frame(o[["seed", "deal"]].astype(np.int64)), sort=True)
    y = o.won.to_numpy().astype(float)
    wins = np.zeros((len(deals), len(players)))
    losses = np.zeros((len(deals), len(players)))
    np.add.at(wins, (d_codes, p_codes), y)
    np.add.at(losses, (d_codes, p_codes), 1 - y)
    return list(players), deals, p_codes, d_codes, y, wins, losses


def quadrature() -> tuple[np.ndarray, np.ndarray]:
    """The :data:`NODES` nodes of the standard normal and their weights (summing to one)."""
    z, wz = np.polynomial.hermite_e.hermegauss(NODES)
    return z, wz / wz.sum()


def _posterior(theta, x, wz, wins, losses) -> np.ndarray:
    """Each deal's posterior over the nodes ``x`` (deals x nodes) given its games won and lost against ``theta``."""
    ll = wins @ _log_sigmoid(theta[:, None] - x[None, :]) + losses @ _log_sigmoid(x[None, :] - theta[:, None]) + np.log(wz)
    post = np.exp(ll - ll.max(1, keepdims=True))
    return post / post.sum(1, keepdims=True)


def _deals(deals: pd.MultiIndex, post, x, d_codes, y) -> pd.DataFrame:
    """The deals' frame of a fit: posterior mean and deviation, games, wins, and which are censored."""
    b = post @ x
    se_b = np.sqrt(np.maximum(post @ x**2 - b**2, 0))
    wins_d = np.bincount(d_codes, y, len(deals))
    rungs_d = np.bincount(d_codes, None, len(deals))
    censored = np.where(wins_d == 0, "above", np.where(wins_d == rungs_d, "below", ""))
    return pd.DataFrame({"seed": deals.get_level_values(0), "deal": deals.get_level_values(1), "b": b, "se": se_b,
                         "rungs": rungs_d.astype(int), "won": wins_d.astype(int), "censored": censored})


def _log_sigmoid(x):
    return -np.logaddexp(0, -x)


def _sigmoid(x):
    from scipy.special import expit

    return expit(x)  # (no overflow warning far from the middle)


def predict(f: Fit, players, b, se=0.0) -> np.ndarray:
    """The chance each player (by label, of ``f``) wins each deal of difficulty ``b`` (logits) known to ``se``
    (logits), pair by pair, as :func:`chance`."""
    theta = f.players.set_index("player").theta.reindex(list(players)).to_numpy()
    return _sigmoid((theta - np.asarray(b, float)) / np.sqrt(1.0 + math.pi * np.asarray(se, float) ** 2 / 8.0))


@dataclass(frozen=True)
class PlayerRating:
    """A player rated on a fitted scale from its games: the rating, its 95% interval, and what it rests on."""

    rating: float
    lo: float
    hi: float
    deals: int
    won: int
    bound: str = ""  #: "below" or "above" when it won none or all of its deals (``rating`` is then a bound)


def rate_player(f: Fit, games: pd.DataFrame) -> PlayerRating:
    """A new player's rating from ``games`` (``seed``, ``deal``, ``won``) on deals of ``f``, their difficulties held
    fixed: maximum likelihood, its interval where the log-likelihood falls by 1.92 (the profile likelihood's 95%).
    A player that won none (all) of its deals gets the rating below (above) which that result has a 5% chance."""
    d = f.deals.set_index(["seed", "deal"]).b
    keyed = games.set_index(["seed", "deal"])
    b = d.reindex(keyed.index).to_numpy()
    ok = ~np.isnan(b)
    b, y = b[ok], keyed.won.to_numpy()[ok].astype(float)
    if len(y) == 0:
        raise ValueError("none of the player's deals is rated on this scale")
    grid = np.linspace(b.min() - 8, b.max() + 8, 4001)
    ll = np.array([np.sum(y * np.log(_sigmoid(t - b)) + (1 - y) * np.log(_sigmoid(b - t))) for t in grid])
    if y.sum() == 0 or y.sum() == len(y):  # the chance of the result is 5% at the bound
        p_all = np.exp(ll)
        k = np.argmin(abs(p_all - 0.05))
        r = float(f.rating(grid[k]))
        return PlayerRating(r, -math.inf if y.sum() == 0 else r, r if y.sum() == 0 else math.inf, len(y), int(y.sum()),
                            "below" if y.sum() == 0 else "above")
    k = int(np.argmax(ll))
    inside = grid[ll >= ll[k] - 1.92]
    return PlayerRating(float(f.rating(grid[k])), float(f.rating(inside.min())), float(f.rating(inside.max())), len(y),
                        int(y.sum()))


def tier_of(ratings, cuts=CUTS) -> np.ndarray:
    """Each rating's tier (:data:`TIERS`): a rating at a cut belongs to the tier below it."""
    idx = np.searchsorted(np.asarray(cuts, float), np.asarray(ratings, float), side="left")
    names = np.array(TIERS[: len(cuts) + 1], dtype=object)
    return names[np.minimum(idx, len(names) - 1)]
