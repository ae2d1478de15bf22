"""Is a rating a prediction? The Rasch scale (:mod:`.ratings`) judged only on what it was not fitted on.

Two hold-outs, per game:

- **pairs**: the (deal, player) games are cut into ten folds at random (seeded); each fold's games are predicted
  by a fit on the other nine;
- **players**: each rung in turn is left out of the fit, rated as a new player would be
  (:func:`~.ratings.rate_player`) from its first games, and its other games predicted from that rating.

Beside them, two baselines on the same held-out games, each a logistic regression per player fitted on the
same training games: on the deal's corridor index (the bits of luck it needs, :mod:`.difficulty`) where the
deal has one, and on the player's win rate alone (what a table of win rates predicts). Measures: log loss,
AUC, and the calibration (predicted chance against the share won, in bins).

And a check of the model itself: two parameters (:func:`fit_slopes`, each player its own slope), fitted and
judged on the same folds. It may predict a little better; the scale keeps one parameter because with a slope
per player a rating difference no longer means the same odds for every player (the slopes of the deterministic
beams run to the bound :data:`MAX_SLOPE`: they win nearly every deal below a threshold and none above it).

Last, whether a rung's random streams on one deal are the independent games the fit counts them as
(:func:`streams_alike`): on the study's data they are not (nmcs 200k's five streams agree on a deal more often
than independent games of the scale's chance would), the case for a rung-by-deal (testlet) effect.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import ratings as ratings_analysis

FOLDS = 10
SEED = 0
#: the largest slope :func:`fit_slopes` fits (in logits a logit of the deals' spread)
MAX_SLOPE = 100.0
#: the games a left-out player is rated from (the rest are predicted)
RATE_FROM = 300


def log_loss(p, y) -> float:
    p = np.clip(np.asarray(p, float), 1e-6, 1 - 1e-6)
    y = np.asarray(y, float)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def auc(p, y) -> float:
    """The chance a won game is given a higher chance than a lost one (ties count half): Mann-Whitney."""
    p, y = np.asarray(p, float), np.asarray(y, bool)
    n1, n0 = int(y.sum()), int((~y).sum())
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = pd.Series(p).rank(method="average").to_numpy()
    return float((ranks[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def calibration(p, y, bins: int = 10) -> pd.DataFrame:
    """Predicted chance against the share won, in bins of equal width: ``lo, hi, games, predicted, won``."""
    p, y = np.asarray(p, float), np.asarray(y, float)
    edges = np.linspace(0, 1, bins + 1)
    k = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    out = []
    for i in range(bins):
        m = k == i
        if m.any():
            out.append({"lo": edges[i], "hi": edges[i + 1], "games": int(m.sum()), "predicted": float(p[m].mean()),
                        "won": float(y[m].mean())})
    return pd.DataFrame(out)


def held_out_pairs(outcomes: pd.DataFrame, index: pd.DataFrame | None = None, folds: int = FOLDS, seed: int = SEED,
                   others: dict[str, pd.Series] | None = None) -> pd.DataFrame:
    """Every game of ``outcomes`` predicted by a fit that did not see it: columns ``player, seed, deal, won, rating``
    (the model's chance) and the baselines ``rate`` and ``index`` (NaN where the deal has no corridor index).
    ``index``: ``seed, deal, difficulty`` (the corridor's index, bits). ``others``: more baselines of the same kind
    (a logistic regression per player on one number a deal), by name: a Series indexed by ``(seed, deal)``."""
    o = outcomes[["player", "seed", "deal", "won", *(["stream"] if "stream" in outcomes else [])]].reset_index(drop=True).copy()
    o["player"] = o.player.astype(str)
    pair = o.groupby(["player", "seed", "deal"], sort=False).ngroup().to_numpy()  # a pair's streams held out together
    fold = np.random.default_rng(seed).integers(0, folds, pair.max() + 1 if len(o) else 0)[pair]
    idx = None if index is None else index.set_index(["seed", "deal"]).difficulty
    parts = []
    whole = ratings_analysis.fit(o)
    for k in range(folds):
        train, test = o[fold != k], o[fold == k].copy()
        f = ratings_analysis.fit(train, start=whole)
        d = f.deals.set_index(["seed", "deal"]).reindex(pd.MultiIndex.from_frame(test[["seed", "deal"]]))
        # a deal all of whose games are held out: the deals' population
        b, se = d.b.fillna(f.prior[0]).to_numpy(), d.se.fillna(f.prior[1]).to_numpy()
        test["rating"] = ratings_analysis.predict(f, test.player, b, se)
        test["two parameters"] = fit_slopes(train).predict(test)
        rate = train.groupby("player").won.mean()
        test["rate"] = test.player.map(rate).to_numpy()
        test["index"] = _index_baseline(train, test, idx) if idx is not None else np.nan
        for name, values in (others or {}).items():
            test[name] = _index_baseline(train, test, values)
        parts.append(test)
    return pd.concat(parts).dropna(subset=["rating"]).sort_values(["player", "seed", "deal"], ignore_index=True)


def _index_baseline(train: pd.DataFrame, test: pd.DataFrame, idx: pd.Series) -> np.ndarray:
    """Per player, a logistic regression of a win on the deal's corridor index, fitted on ``train``'s games."""
    import statsmodels.api as sm

    out = np.full(len(test), np.nan)
    x_train = idx.reindex(pd.MultiIndex.from_frame(train[["seed", "deal"]])).to_numpy()
    x_test = idx.reindex(pd.MultiIndex.from_frame(test[["seed", "deal"]])).to_numpy()
    for player in test.player.unique():
        m = (train.player == player).to_numpy() & ~np.isnan(x_train)
        t = (test.player == player).to_numpy() & ~np.isnan(x_test)
        y = train.won.to_numpy()[m].astype(float)
        if not t.any() or y.sum() in (0, len(y)):
            out[t] = y.mean() if len(y) else np.nan
            continue
        model = sm.Logit(y, sm.add_constant(x_train[m])).fit(disp=0, method="lbfgs", maxiter=200)
        out[t] = model.predict(sm.add_constant(x_test[t], has_constant="add"))
    return out


def held_out_players(outcomes: pd.DataFrame, rate_from: int = RATE_FROM) -> pd.DataFrame:
    """Each player left out of the fit and rated from its first ``rate_from`` games (by deal number), its other games
    predicted: ``player, rating, lo, hi, full`` (its rating in the fit of every player; all on that fit's scale),
    ``games``, ``log_loss``, ``auc``."""
    o = outcomes[["player", "seed", "deal", "won"]].copy()
    o["player"] = o.player.astype(str)
    full = ratings_analysis.fit(o)
    full_r = full.players.set_index("player").theta
    out = []
    for player in sorted(o.player.unique()):
        f = ratings_analysis.fit(o[o.player != player], start=full)
        mine = o[o.player == player].sort_values(["seed", "deal"])
        first, rest = mine.iloc[:rate_from], mine.iloc[rate_from:]
        r = ratings_analysis.rate_player(f, first)
        b = f.deals.set_index(["seed", "deal"]).b.reindex(pd.MultiIndex.from_frame(rest[["seed", "deal"]])).to_numpy()
        keep = ~np.isnan(b)
        se = f.deals.set_index(["seed", "deal"]).se.reindex(pd.MultiIndex.from_frame(rest[["seed", "deal"]])).to_numpy()
        p = ratings_analysis.chance(r.rating, f.rating(b[keep]), ratings_analysis.SCALE * se[keep])
        y = rest.won.to_numpy()[keep]
        # on the full fit's scale: the two fits' logits aligned on the players they share
        t = f.players.set_index("player").theta
        shift = float((t - full_r.reindex(t.index)).mean())
        on_full = [float(full.rating(f.logit(x) - shift)) if np.isfinite(x) else x for x in (r.rating, r.lo, r.hi)]
        out.append({"player": player, "rating": on_full[0], "lo": on_full[1], "hi": on_full[2], "bound": r.bound,
                    "full": float(full.rating(full_r[player])) if player in full_r.index else float("nan"),
                    "games": int(keep.sum()), "log_loss": log_loss(p, y), "auc": auc(p, y)})
    return pd.DataFrame(out)


@dataclass
class Slopes:
    """A two-parameter fit: each player's ``theta`` and ``slope``, each deal's posterior ``b`` and ``se`` (logits of a
    scale on which the deals' difficulties are a standard normal)."""

    players: pd.DataFrame  #: player, theta, slope
    deals: pd.DataFrame  #: seed, deal, b, se

    def predict(self, games: pd.DataFrame) -> np.ndarray:
        """The chance of each game (``player``, ``seed``, ``deal``), averaged over the deal's posterior as
        :func:`~.ratings.chance` does (a deal the fit did not see: the population); NaN for a player it did not fit."""
        d = self.deals.set_index(["seed", "deal"]).reindex(pd.MultiIndex.from_frame(games[["seed", "deal"]]))
        b, se = d.b.fillna(0.0).to_numpy(), d.se.fillna(1.0).to_numpy()
        p = self.players.set_index("player").reindex(games.player.astype(str))
        a, theta = p.slope.to_numpy(), p.theta.to_numpy()
        return ratings_analysis._sigmoid(a * (theta - b) / np.sqrt(1.0 + np.pi * (a * se) ** 2 / 8.0))


def fit_slopes(outcomes: pd.DataFrame, iterations: int = 1000) -> Slopes:
    """The two-parameter model, ``P(win) = σ(a_p (θ_p - x_d))``, by marginal maximum likelihood as
    :func:`~.ratings.fit` (the deals a standard normal on its nodes; the slopes carry the spread, so the Rasch model
    is the case of equal slopes), each slope at most :data:`MAX_SLOPE`. Players that won none or all of their games
    are left out, as there."""
    from scipy.optimize import minimize

    o = outcomes[["player", "seed", "deal", "won"]]
    by = o.groupby("player", observed=True).won.agg(["size", "sum"])
    o = o[o.player.isin(by[(by["sum"] > 0) & (by["sum"] < by["size"])].index)]
    players, deals, _, _, _, wins, losses = ratings_analysis.counts(o)
    n = len(players)
    z, wz = ratings_analysis.quadrature()

    def posterior(theta, a):
        u = a[:, None] * (theta[:, None] - z[None, :])  # (players, nodes)
        ll = wins @ ratings_analysis._log_sigmoid(u) + losses @ ratings_analysis._log_sigmoid(-u) + np.log(wz)
        top = ll.max(1, keepdims=True)
        post = np.exp(ll - top)
        total = post.sum(1, keepdims=True)
        return u, post / total, float((top + np.log(total)).sum())

    def minus_log_likelihood(params):
        theta, a = params[:n], np.exp(params[n:])
        u, post, ll = posterior(theta, a)
        s = ratings_analysis._sigmoid(u)
        score = (post.T @ wins).T * (1 - s) - (post.T @ losses).T * s  # d loglik / d u, per player and node
        return -ll, -np.concatenate([(score * a[:, None]).sum(1), (score * u).sum(1)])

    bounds = [(None, None)] * n + [(None, math.log(MAX_SLOPE))] * n
    res = minimize(minus_log_likelihood, np.zeros(2 * n), jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"maxiter": iterations, "gtol": 1e-7})
    theta, a = res.x[:n], np.exp(res.x[n:])
    _, post, _ = posterior(theta, a)
    b = post @ z
    return Slopes(pd.DataFrame({"player": players, "theta": theta, "slope": a}),
                  pd.DataFrame({"seed": deals.get_level_values(0), "deal": deals.get_level_values(1), "b": b,
                                "se": np.sqrt(np.maximum(post @ z**2 - b**2, 0))}))


def scores(pred: pd.DataFrame) -> pd.DataFrame:
    """Log loss and AUC of the model and each baseline on the held-out games where every one of them predicts."""
    named = ["rating", "index", "rate"]
    cols = [c for c in [*named, *(c for c in pred.columns if c not in {*named, "player", "seed", "deal", "won", "stream"})]
            if c in pred.columns and pred[c].notna().any()]
    common = pred.dropna(subset=cols)
    return pd.DataFrame([{"predictor": c, "games": len(common), "log_loss": log_loss(common[c], common.won),
                          "auc": auc(common[c], common.won)} for c in cols])


def rating_before_search(scale, features: pd.DataFrame, columns: list[str], seed: int = SEED) -> dict:
    """How well a deal's rating is predicted before any search: the rating model ``make model`` ships
    (:func:`analysis.explain_ratings.train_rating`: its split, its censored deals left out), on ``columns`` of
    ``features`` (index: deal) alone: the held-out error (root mean square, points) against a constant's, and
    Spearman's rank correlation."""
    from .explain_ratings import train_rating

    m = train_rating(scale.game, scale.deals, features[columns], seed, variants=False)
    h = m.holdout
    return {"deals_trained": m.training["deals_count"], "deals_held_out": h["deals"], "rmse": h["rmse"],
            "rmse_mean": h["rmse_mean"], "spearman": h["spearman"]}


def streams_alike(o: pd.DataFrame, f: ratings_analysis.Fit) -> pd.DataFrame:
    """Per rung that played deals on several random streams (``o``: :func:`analysis.rated.outcomes`), the share of
    its deals on which every stream gave the same result, observed and as the scale ``f`` predicts for independent
    games (``p^n + (1-p)^n``, ``p`` the rung's chance, averaged over what the deal's rating may be). Observed above
    predicted: one rung's streams on one deal are more alike than independent games, a rung-by-deal effect the
    one-parameter scale leaves out, so the fit, which counts each stream a game, takes such deals as better measured
    than they are."""
    from numpy.polynomial.hermite_e import hermegauss

    z, w = hermegauss(21)
    w = w / w.sum()
    theta = f.players.set_index("player").theta
    deals = f.deals.set_index(["seed", "deal"])
    out = []
    for player, g in o.groupby("player"):
        if g.stream.nunique() < 2 or player not in theta.index or theta[player] != theta[player]:
            continue
        k = g.groupby(["seed", "deal"]).won.agg(["sum", "count"])
        k = k[k["count"] > 1]
        d = deals.reindex(k.index)
        b = d.b.to_numpy()[:, None] + d.se.to_numpy()[:, None] * z[None, :]
        p = ratings_analysis._sigmoid(theta[player] - b)
        n = k["count"].to_numpy()[:, None]
        predicted = ((p ** n + (1 - p) ** n) @ w).mean()
        out.append({"player": player, "deals": len(k), "streams": int(k["count"].max()),
                    "alike": float(((k["sum"] == 0) | (k["sum"] == k["count"])).mean()), "alike_predicted": float(predicted)})
    return pd.DataFrame(out, columns=["player", "deals", "streams", "alike", "alike_predicted"])


def main(argv: list[str] | None = None) -> None:
    """``python -m analysis.ratings_check [DATA]``: the ratings held out, and predicted before search (prints tables)."""
    import sys

    from . import explain as explain_analysis
    from . import rated
    from .games import STUDY
    from .scan import of

    data = (argv if argv is not None else sys.argv[1:] or ["data/published"])[0]
    pd.set_option("display.width", 200)
    for game in STUDY:
        scale = rated.scale_of(data, game)
        if scale is None:
            continue
        X = explain_analysis.cached_features(game, scale.deals.deal)
        rows = []
        for label, cols in (("layout", explain_analysis.LAYOUT), ("layout and cheap probes", explain_analysis.CHEAP), ("every feature", list(X.columns))):
            rows.append({"game": game, "features": label, **rating_before_search(scale, X, cols)})
        print(pd.DataFrame(rows).round(3).to_string(index=False), flush=True)
        o = rated.outcomes(of(data), rated.verdicts_of(data, game), game, scale.rungs)
        others = {}
        model = explain_analysis.usable_model(game)
        if model is not None:
            from scipy.stats import spearmanr

            p = pd.Series(np.clip(model.predict(X), 1e-4, 1 - 1e-4), index=X.index)
            d = scale.deals.set_index("deal")
            print(f"{game}: castle explain's probability of winnability against the deals' ratings: Spearman "
                  f"{spearmanr(p.loc[d.index], d.rating).statistic:+.3f} on {len(d):,} rated deals (in its training range)")
            logit = np.log(p / (1 - p))
            others["explain"] = pd.Series(logit.to_numpy(), index=pd.MultiIndex.from_arrays([np.zeros(len(p), np.int64), p.index.to_numpy()], names=["seed", "deal"]))
        print(scores(held_out_pairs(o, others=others)).round(3).to_string(index=False), flush=True)
        alike = streams_alike(o, scale.fit)
        if len(alike):
            print(f"{game}: deals on which all of a rung's random streams gave one result, observed against the scale's "
                  "independent games:\n" + alike.round(3).to_string(index=False), flush=True)


if __name__ == "__main__":
    main()
