"""A deal's rating before any search: a LightGBM regression of the ladder's ratings on the explain features.

The study puts deals and players on one scale (``analysis/ratings.py``: a Rasch model in Elo's points, a named
reference rung at 1500 in every game, five tiers cut at the same points). A deal the ladder never played has no
rating; this model predicts it from the same features as the winnability model (:mod:`.features`), a few
milliseconds a deal, and says how far off it is: the root-mean-square error on deals it never trained on (the
highest-numbered fifth of the rated deals), beside a constant's (the training deals' mean). The rating is that of
a winnable deal: the scale rates only the deals the solver won. A game the study's ladder did not play (Citadel)
has its model trained on the PySol numbers its ladder played, on that game's own scale (the file's ``training.seed``
is -1, PySol's numbering; :func:`note` says which scale).

Shipped beside the winnability model as ``models/<game>.rating.json.gz``, trained by ``make model``
(``analysis/explain_ratings.py``); a game without one gets no rating. The file is checked as the other is
(:func:`.modelfile.check_rating_fields`: every field, the booster parsed whole, a regression), and carries its
scale: the reference, the centre, the points per unit of the booster's score, the cuts and the tiers' names.

>>> tier_of([-10.0, 0.0, 0.5, 1500.0, 1500.5], [0.0, 500.0, 1000.0, 1500.0], ["A", "B", "C", "D", "E"])
['A', 'A', 'B', 'D', 'E']
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .model import MODELS, ModelError
from .modelfile import check_rating_fields, made_for, read_model, write_model
from .trees import checked, compact

FORMAT = "castle-explain-rating"
FORMAT_VERSION = 1
SUFFIX = ".rating.json.gz"


@dataclass
class RatingModel:
    """A game's model of a deal's rating (see the module's docstring)."""

    game: str
    rules_version: int
    engine_version: int
    features_hash: str
    columns: list[str]  #: the features the booster reads
    booster_text: str  #: LightGBM's regression, as text; its score ``s`` is the rating ``centre + points * s``
    scale: dict  #: reference (the player rated ``centre``), centre, points, cuts, tiers (easiest first)
    training: dict = field(default_factory=dict)  #: deals, seed, censored deals left out, LightGBM and its parameters
    holdout: dict = field(default_factory=dict)  #: deals never trained on: rmse, rmse_mean (a constant's), spearman

    def __post_init__(self) -> None:
        self._booster = None
        self.source: Path | None = None

    @property
    def on_pysol_numbers(self) -> bool:
        """Trained on PySol's numbers, on its game's own scale (a game the study's ladder did not play), not on the
        study's deals."""
        return self.training.get("seed", 0) < 0

    @property
    def rmse(self) -> float:
        """The error on held-out deals (root mean square, points): what a prediction is shown with (±)."""
        return float(self.holdout["rmse"])

    @property
    def booster(self):
        if self._booster is None:
            import lightgbm as lgb

            # LightGBM reads only a text written again from checked numbers (:mod:`.trees`)
            self._booster = lgb.Booster(model_str=checked(self.booster_text, len(self.columns), "regression"))
        return self._booster

    def predict(self, X) -> np.ndarray:
        """Each row's predicted rating, in points (a :class:`ModelError` for one that is not a finite number)."""
        s = self.booster.predict(X[self.columns].to_numpy(np.float64), num_threads=1)
        r = self.scale["centre"] + self.scale["points"] * np.asarray(s, float)
        if not np.isfinite(r).all():
            raise ModelError(f"{self.source or 'the rating model'}: gives a rating that is not a finite number")
        return r

    def tiers(self, ratings) -> list[str]:
        """Each rating's tier on the model's scale."""
        return tier_of(ratings, self.scale["cuts"], self.scale["tiers"])

    def to_dict(self) -> dict:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, **asdict(self)}

    def save(self, path: str | Path | None = None) -> Path:
        """Write the model (gzipped JSON, reproducible bytes) to ``path`` (default: the shipped place for its game)."""
        return write_model(Path(path) if path is not None else rating_path(self.game), self.to_dict())


def tier_of(ratings, cuts, tiers) -> list[str]:
    """Each rating's tier: a rating at a cut belongs to the tier below it (as ``analysis.ratings.tier_of``)."""
    return [tiers[int(np.searchsorted(np.asarray(cuts, float), r, side="left"))] for r in np.asarray(ratings, float)]


def rating_path(game: str) -> Path:
    """The shipped rating model of a game (full slug)."""
    return MODELS / f"{game}{SUFFIX}"


def shipped() -> list[str]:
    """The games a rating model is shipped for."""
    return sorted(p.name[: -len(SUFFIX)] for p in MODELS.glob(f"*{SUFFIX}"))


def read(path: str | Path) -> RatingModel:
    """A rating model file, every field checked (:func:`.modelfile.check_rating_fields`); a one-line :class:`ModelError`."""
    return read_model(path, FORMAT, FORMAT_VERSION, check_rating_fields, RatingModel)


def load(path: str | Path, rules=None) -> RatingModel:
    """The rating model in ``path``, checked against ``rules`` (its game's by default), the engine and the features."""
    return made_for(path, read(path), rules)


@lru_cache(maxsize=None)
def rating_for(game: str) -> RatingModel | None:
    """The shipped rating model of ``game`` (full slug), or None when it has none; a :class:`ModelError` if its file
    cannot serve."""
    path = rating_path(game)
    return load(path) if path.exists() else None


# --------------------------------------------------------------------------
# training
# --------------------------------------------------------------------------

#: LightGBM's parameters: small trees, a slow rate (the ratings are noisy), rounds by cross-validation
PARAMS = {"objective": "regression", "learning_rate": 0.03, "num_leaves": 7, "min_data_in_leaf": 20,
          "feature_fraction": 0.8, "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0, "verbose": -1,
          "num_threads": 1, "deterministic": True, "force_row_wise": True}
MAX_ROUNDS = 600
FOLDS = 5
RANDOM_STATE = 0  #: the folds' and LightGBM's random numbers (not the deals' seed)


def fit(game, X, ratings, deals, scale: dict, seed: int = 0, params: dict | None = None) -> RatingModel:
    """Train ``game``'s rating model on the features ``X`` of ``deals`` (seed ``seed``: 0, the study's deals, or -1,
    PySol's numbers) and their ``ratings`` (points on ``scale``). The booster learns ``(rating - centre) / points``;
    its rounds are LightGBM's :data:`FOLDS`-fold cross-validation on these deals, stopped early. Deterministic for
    given data: the folds and LightGBM draw from :data:`RANDOM_STATE`, whatever the deals' seed."""
    import lightgbm as lgb

    from ..game import Game
    from ..kernels.legal import ENGINE_VERSION
    from .features import NAMES, feature_hash
    from .model import _ranges

    rules = Game(game).rules if isinstance(game, str) else getattr(game, "rules", game)
    y = (np.asarray(ratings, float) - scale["centre"]) / scale["points"]
    columns = [c for c in X.columns if c in NAMES and X[c].notna().any() and X[c].nunique() > 1]
    data = X[columns].to_numpy(np.float64)
    params = {**PARAMS, **(params or {}), "seed": RANDOM_STATE}
    folds = np.random.default_rng(RANDOM_STATE).permutation(np.arange(len(y)) % FOLDS)
    splits = [(np.flatnonzero(folds != k), np.flatnonzero(folds == k)) for k in range(FOLDS)]
    cv = lgb.cv(params, lgb.Dataset(data, y), num_boost_round=MAX_ROUNDS, folds=splits,
                callbacks=[lgb.early_stopping(40, verbose=False)])
    rounds = len(next(iter(cv.values())))
    booster = lgb.train(params, lgb.Dataset(data, y), num_boost_round=rounds)
    deals = np.asarray(deals, np.int64)
    return RatingModel(game=rules.full_slug, rules_version=rules.version, engine_version=ENGINE_VERSION,
                       features_hash=feature_hash(), columns=columns, booster_text=compact(booster.model_to_string()),
                       scale=dict(scale), training={"kind": "lightgbm", "deals": _ranges(deals), "seed": seed,
                                                    "deals_count": int(len(deals)), "lightgbm": lgb.__version__,
                                                    "target": "(rating - centre) / points", "params": params,
                                                    "rounds": rounds, "folds": FOLDS})


def rated(model: RatingModel | None, explanations) -> list[dict]:
    """Each explained deal's ``rating`` (points, whole), ``rating_rmse`` (the model's held-out error) and ``tier``, from
    the features its explanation kept (:class:`~.reasons.Explanation`); all None without a model."""
    import pandas as pd

    explanations = list(explanations)
    if model is None or not explanations:
        return [{"rating": None, "rating_rmse": None, "tier": None} for _ in explanations]
    X = pd.DataFrame([{c: (np.nan if e.features.get(c) is None else e.features[c]) for c in model.columns}
                      for e in explanations], dtype=np.float64)
    r = model.predict(X)
    return [{"rating": int(round(float(x))), "rating_rmse": int(round(model.rmse)), "tier": t}
            for x, t in zip(r, model.tiers(r))]


def note(model: RatingModel) -> str:
    """What a predicted rating is, said once under the deals."""
    s, h = model.scale, model.holdout
    on = ("a scale of this game's own, from its ladder's games on PySol's game numbers" if model.on_pysol_numbers
          else "the study's scale")
    return (f"rating: the deal's predicted rating if winnable, on {on} ({s['reference']} is {s['centre']:,.0f}; "
            f"400 points are odds of 10:1); ± is the model's root-mean-square error on {h.get('deals', 0):,} deals it "
            f"never trained on (a constant: ±{h.get('rmse_mean', float('nan')):,.0f})")
