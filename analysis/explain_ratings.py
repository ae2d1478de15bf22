"""A deal's rating before any search: training ``castle explain``'s rating models (``make model``), and their table.

Per study game the ladder rated (:mod:`.rated`: a Rasch model in Elo's points), a LightGBM regression of each rated
deal's rating on the explain features (:mod:`sim.explain.rating`). The rated deals (seed 0; for a game the study's
ladder did not play, Citadel, PySol's numbers the ladder played there, on that game's own scale:
:func:`analysis.catalogue.own_scale`) are split by number: the first 80% train, the highest-numbered 20% are held
out and never seen (deals 1-2,000 of the ladder: about 1-1,600 and 1,601-2,000). Censored deals (no rung won them,
or every rung did) have only a bound in the data: their rating is the fit's posterior mean, drawn towards the
others, not a measurement, so they are left out of training and of the held-out error, and counted in the file
(``training.censored``, ``holdout.censored``). The held-out error (root mean square, points), a constant's (the
training deals' mean), Spearman's rank correlation, the fitted ratings' own standard error on those deals (root mean
square: the part of the error no predictor removes), and the same for two smaller models (the layout alone; the
layout and the cheap probes, no beam) go into the model file.

``python -m analysis.explain_ratings [DATA]`` trains only these (a minute a game once the features are cached);
``make model`` trains them after the winnability models.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from sim.explain import rating as RM

from . import explain as explain_analysis
from . import ratings as ratings_analysis

#: the share of the rated deals (the highest-numbered) a rating model is judged on, never trained on
HOLDOUT = 0.2
SEED = 0


def scale() -> dict:
    """The scale a rating model's file carries: the reference player, its rating, points a logit, cuts, tiers."""
    return {"reference": ratings_analysis.REFERENCE, "centre": float(ratings_analysis.CENTRE), "points": float(ratings_analysis.SCALE), "cuts": [float(c) for c in ratings_analysis.CUTS],
            "tiers": list(ratings_analysis.TIERS)}


def trained(deals) -> np.ndarray:
    """Which of the rated ``deals`` train (the first 80% by number; the rest are held out)."""
    deals = np.asarray(deals)
    return deals <= np.quantile(deals, 1 - HOLDOUT)


def judged(p, y, mean: float) -> dict:
    """Held-out quality: deals, the error (root mean square, points), a constant ``mean``'s, Spearman's correlation."""
    from scipy.stats import spearmanr

    p, y = np.asarray(p, float), np.asarray(y, float)
    rho = float(spearmanr(p, y).statistic) if len(y) > 2 else None
    return {"deals": int(len(y)), "rmse": round(float(np.sqrt(np.mean((p - y) ** 2))), 2),
            "rmse_mean": round(float(np.sqrt(np.mean((mean - y) ** 2))), 2),
            "spearman": None if rho is None or rho != rho else round(rho, 4)}


def train_rating(game: str, deals: pd.DataFrame, X: pd.DataFrame, seed: int = SEED, variants: bool = True) -> RM.RatingModel:
    """``game``'s rating model from its rated ``deals`` (``seed, deal, rating, censored``: :attr:`.rated.Rated.deals`)
    and their features ``X`` (index: deal), judged on the held-out deals."""
    from sim.explain.features import FEATURES
    from sim.explain.model import _ranges

    d = deals[deals.seed == seed].sort_values("deal")
    train = trained(d.deal)
    measured = (d.censored.astype(str) == "").to_numpy()
    fit_on, test = d[train & measured], d[~train & measured]
    Xf, Xt = X.loc[fit_on.deal.to_numpy()], X.loc[test.deal.to_numpy()]
    model = RM.fit(game, Xf.reset_index(drop=True), fit_on.rating, fit_on.deal, scale(), seed=seed)
    model.training["censored"] = int((train & ~measured).sum())
    mean = float(fit_on.rating.mean())
    holdout = {**judged(model.predict(Xt), test.rating, mean), "censored": int((~train & ~measured).sum()),
               "target_se": round(float(np.sqrt(np.mean(test.se ** 2))), 2) if "se" in test else None,
               "deal_ranges": _ranges(d.deal[~train].to_numpy())}
    if variants:
        layout = [f.name for f in FEATURES if f.kind == "layout"]
        cheap = layout + [f.name for f in FEATURES if f.probe and f.probe != "beam"]
        for name, cols in (("layout", layout), ("cheap", cheap)):
            m = RM.fit(game, Xf[cols].reset_index(drop=True), fit_on.rating, fit_on.deal, scale(), seed=seed)
            holdout[name] = judged(m.predict(Xt), test.rating, mean)
    model.holdout = holdout
    return model


def build_ratings(data: str | Path = "data/published", out: Path | None = None, cache: Path | None = None, jobs: int = 2,
                  games: list[str] | None = None) -> pd.DataFrame:
    """Train and save the rating model of every study game ``data``'s ladder rated, on the study's deals, or else on
    PySol's numbers its ladder played (:func:`analysis.catalogue.scale_for`); the table of their quality."""
    from sim.core.deals import PYSOL_SEED

    from . import catalogue
    from .games import STUDY, in_study_order

    cache = cache or explain_analysis.cache_folder()
    rows = []
    for game in games or in_study_order({*STUDY, *catalogue.GAMES}):
        t0 = time.time()
        s = catalogue.scale_for(data, game)
        if s is None:
            print(f"{game}: not rated (no ladder played it): no rating model", flush=True)
            continue
        seed = SEED if (s.deals.seed == SEED).any() else PYSOL_SEED
        X = explain_analysis.cached_features(game, s.deals[s.deals.seed == seed].deal, seed, cache, jobs)
        model = train_rating(game, s.deals, X, seed)
        model.save(None if out is None else Path(out) / RM.rating_path(game).name)
        rows.append(table_row(model))
        print(f"{game}: rating model, {time.time() - t0:.0f} s: {rows[-1]}", flush=True)
    return pd.DataFrame(rows)


def table_row(model: RM.RatingModel) -> dict:
    """A rating model's line of the quality table (points; Spearman's correlation)."""
    h, t = model.holdout, model.training
    return {"game": model.game, "deals of": "PySol's numbers" if model.on_pysol_numbers else "the study's",
            "train deals": t.get("deals_count"), "censored left out": t.get("censored", 0) + h.get("censored", 0),
            "held-out deals": h.get("deals"), "RMSE": h.get("rmse"), "constant's RMSE": h.get("rmse_mean"),
            "Spearman": h.get("spearman"), "ratings' own error": h.get("target_se"), "layout alone RMSE": (h.get("layout") or {}).get("rmse"),
            "no beam RMSE": (h.get("cheap") or {}).get("rmse")}


def rating_table(games: list[str] | None = None) -> pd.DataFrame:
    """The shipped rating models' held-out quality, a row each (:func:`table_row`), read from their files."""
    from .games import in_study_order

    rows = [table_row(RM.read(RM.rating_path(g))) for g in in_study_order(games or RM.shipped())
            if RM.rating_path(g).exists()]
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    """``python -m analysis.explain_ratings [DATA]``: the rating models alone, trained and saved; their table."""
    argv = sys.argv[1:] if argv is None else argv
    t0 = time.time()
    table = build_ratings(argv[0] if argv else "data/published")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False))
    print(f"rating models: {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
