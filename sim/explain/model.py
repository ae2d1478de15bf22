"""A calibrated model per game: training, saving, loading, predicting with per-feature contributions.

A :class:`Model` is a LightGBM booster over the features of
:mod:`.features` (those that vary in its training deals), a calibration of
its scores (Platt's logistic regression, on out-of-fold scores of the training deals),
and what it was made from: the game's rules version, the engine version,
the features' digest, the training deals, seed and LightGBM version. A
deal a probe player has won is winnable for certain: it gets probability 1,
and the booster is trained on the other deals only. A game whose solved
deals are (nearly) all of one verdict gets a constant model: their share,
with no booster.

Models are shipped in ``sim/explain/models/<game>.json.gz``; :func:`read`
refuses, with a one-line :class:`ModelError`, a file past its size
(:data:`~sim.core.files.MODEL_FILE`, expanded :data:`~sim.core.files.MODEL_TEXT`)
or any of whose fields holds what it may not (:mod:`.modelfile`; its
booster is checked whole, :mod:`.trees`), and :func:`load` one made for
another rules version, engine or feature set. A probability outside
[0, 1] or not finite is never given: :meth:`Model.predict` refuses it.

>>> auc([0.1, 0.4, 0.35, 0.8], [False, False, True, True])
0.75
>>> round(ece([0.2, 0.2, 0.9, 0.9], [False, False, True, True]), 2)
0.15
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .effects import typical_of
from .features import NAMES, WIN_COLUMNS, feature_hash, won_by_probe
from .modelfile import ModelError, check_fields, made_for, read_model, write_model
from .trees import checked, compact

#: where the shipped models live
MODELS = Path(__file__).parent / "models"
FORMAT = "castle-explain-model"
FORMAT_VERSION = 1
#: a booster needs at least this many deals of each verdict among its training deals (else: a constant model)
MIN_CLASS = 20
#: LightGBM's parameters: small trees, so a model ships in a few tens of KB
PARAMS = {"objective": "binary", "learning_rate": 0.1, "num_leaves": 7, "min_data_in_leaf": 40, "feature_fraction": 0.8,
          "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0, "verbose": -1, "num_threads": 1,
          "deterministic": True, "force_row_wise": True}
MAX_ROUNDS = 400
FOLDS = 5
#: a model's probability stays within these unless a probe won the deal (only a win is certain)
P_FLOOR, P_CEIL = 0.001, 0.999


@dataclass
class Model:
    """A game's calibrated model of "is this deal winnable?" (see the module's docstring)."""

    game: str  #: the game's full slug
    rules_version: int
    engine_version: int
    features_hash: str
    columns: list[str]  #: the features the booster reads (empty: a constant model)
    booster_text: str | None  #: LightGBM's model, as text (None: a constant model)
    calibration: list[float]  #: Platt's ``a, b``: a score ``s`` is the probability ``1 / (1 + exp(-(a + b s)))``
    base_rate: float  #: a constant model's probability; a booster's share of won training deals
    certain_from: list[str] = field(default_factory=list)  #: the probes' columns whose win makes a deal certain
    training: dict = field(default_factory=dict)  #: deals, seed, counts, LightGBM version and parameters, rounds
    holdout: dict = field(default_factory=dict)  #: the quality on deals never trained on (:func:`quality`)
    typical: dict = field(default_factory=dict)  #: each column's usual value (:func:`.effects.typical_of`): what points compare with

    def __post_init__(self) -> None:
        self._booster = None
        self.source: Path | None = None  #: the file it was read from (:func:`read`), named in its errors

    @property
    def constant(self) -> bool:
        return self.booster_text is None

    @property
    def booster(self):
        if self._booster is None and self.booster_text is not None:
            import lightgbm as lgb

            # LightGBM reads only a text written again from checked numbers (:mod:`.trees`): never the file's own
            self._booster = lgb.Booster(model_str=checked(self.booster_text, len(self.columns)))
        return self._booster

    def scores(self, X) -> np.ndarray:
        """The booster's raw scores (log-odds before calibration) of the rows of ``X`` (:func:`~.features.features`)."""
        if self.constant:
            return np.zeros(len(X))
        return self.booster.predict(X[self.columns].to_numpy(np.float64), raw_score=True, num_threads=1)

    def calibrate(self, scores: np.ndarray) -> np.ndarray:
        """Scores as calibrated probabilities."""
        if self.constant:
            return np.full(len(scores), self.base_rate)
        a, b = self.calibration
        with np.errstate(over="ignore"):  # a score far out: a probability of 0 or 1, then kept off them
            return np.clip(1 / (1 + np.exp(-(a + b * np.asarray(scores, float)))), P_FLOOR, P_CEIL)

    def predict(self, X) -> np.ndarray:
        """The probability that each row's deal is winnable: 1 where a probe won it, else the calibrated booster's.

        A probability outside [0, 1] or not finite is a :class:`ModelError`, never an answer."""
        p = np.where(won_by_probe(X, self.certain_from), 1.0, self.calibrate(self.scores(X)))
        bad = ~(np.isfinite(p) & (p >= 0) & (p <= 1))
        if bad.any():
            raise ModelError(f"{self.source or 'the model'}: gives a probability of {p[bad][0]!r}, outside [0, 1]")
        return p

    def contributions(self, X):
        """Each feature's push on each row's log-odds of winning, a DataFrame with a column per feature read and
        ``bias``: the booster's SHAP values (LightGBM's ``pred_contrib``) through the calibration, so that they sum
        to the calibrated log-odds (before the probability is kept off 0 and 1)."""
        import pandas as pd

        if self.constant:
            return pd.DataFrame({"bias": np.zeros(len(X))}, index=X.index)
        a, b = self.calibration
        c = self.booster.predict(X[self.columns].to_numpy(np.float64), pred_contrib=True, num_threads=1) * b
        c[:, -1] += a
        if not np.isfinite(c).all():
            raise ModelError(f"{self.source or 'the model'}: gives a push that is not a finite number")
        return pd.DataFrame(c, columns=[*self.columns, "bias"], index=X.index)

    # -- files ----------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, **asdict(self)}

    def save(self, path: str | Path | None = None) -> Path:
        """Write the model (gzipped JSON, reproducible bytes) to ``path`` (default: the shipped place for its game)."""
        return write_model(Path(path) if path is not None else model_path(self.game), self.to_dict())


def model_path(game: str) -> Path:
    """The shipped model file of a game (full slug: ``slug`` or ``slug@dialect``)."""
    return MODELS / f"{game}.json.gz"


def shipped() -> list[str]:
    """The games a model of winnability is shipped for (a rating model, ``<game>.rating.json.gz``, is not one)."""
    return sorted(p.name[: -len(".json.gz")] for p in MODELS.glob("*.json.gz") if not p.name.endswith(".rating.json.gz"))


def read(path: str | Path) -> Model:
    """A model file, every field checked (:mod:`.modelfile`), but not what it was made for (:func:`load` checks)."""
    return read_model(path, FORMAT, FORMAT_VERSION, check_fields, Model)


def load(path: str | Path, rules=None) -> Model:
    """The model in ``path``, checked against ``rules`` (its game's, by default) and the current engine and features.

    A model made for another rules version, engine version or feature set
    is a :class:`ModelError` whose one line says which and how to remake it.
    """
    return made_for(path, read(path), rules)


@lru_cache(maxsize=None)
def model_for(game: str) -> Model:
    """The shipped model of ``game`` (full slug), loaded and checked once; a :class:`ModelError` if there is none."""
    path = model_path(game)
    if not path.exists():
        have = ", ".join(shipped()) or "none"
        raise ModelError(f"no model for {game} (models: {have}); train one with `make model`")
    return load(path)


# --------------------------------------------------------------------------
# training
# --------------------------------------------------------------------------


def fit(game, X, won, deals, seed: int = 0, params: dict | None = None) -> Model:
    """Train ``game``'s model on the features ``X`` (:func:`~.features.features`) of ``deals`` (seed ``seed``) and their
    verdicts ``won`` (True: the solver won it; unknown verdicts left out by the caller). The model reads the
    columns of ``X`` (all of :data:`~.features.NAMES`, or fewer: a model of the layout alone).

    Deals a probe won are left out of the booster (they get probability 1).
    The number of rounds is LightGBM's 5-fold cross-validation on the
    training deals, stopped early; the calibration is Platt's, on the
    out-of-fold scores of the same folds; the booster is then trained on
    all of them. Deterministic for given data.
    """
    import lightgbm as lgb

    from ..game import Game
    from ..kernels.legal import ENGINE_VERSION

    rules = Game(game).rules if isinstance(game, str) else getattr(game, "rules", game)
    won = np.asarray(won, bool)
    deals = np.asarray(deals, np.int64)
    certain_from = [c for c in WIN_COLUMNS if c in X.columns]
    certain = won_by_probe(X, certain_from)
    rest = ~certain
    Xr, yr = X[rest], won[rest]
    n_won, n_lost = int(yr.sum()), int((~yr).sum())
    params = {**PARAMS, **(params or {}), "seed": seed}
    training = {"deals": _ranges(deals), "seed": seed, "deals_count": int(len(deals)), "won": int(won.sum()),
                "lost": int((~won).sum()), "won_by_probe": int(certain.sum()), "lightgbm": lgb.__version__}
    base = dict(game=rules.full_slug, rules_version=rules.version, engine_version=ENGINE_VERSION, features_hash=feature_hash(),
                certain_from=certain_from)
    if min(n_won, n_lost) < MIN_CLASS:
        return constant_model(rules, won, deals, seed, certain_from)
    columns = [c for c in X.columns if c in NAMES and Xr[c].notna().any() and Xr[c].nunique() > 1]
    data = Xr[columns].to_numpy(np.float64)
    label = yr.astype(np.float64)
    folds = _folds(len(label), seed)
    rounds = _rounds(data, label, folds, params)
    scores = np.zeros(len(label))
    for k in range(FOLDS):
        b = lgb.train(params, lgb.Dataset(data[folds != k], label[folds != k]), num_boost_round=rounds)
        scores[folds == k] = b.predict(data[folds == k], raw_score=True)
    a, b = platt(scores, label)
    booster = lgb.train(params, lgb.Dataset(data, label), num_boost_round=rounds)
    return Model(**base, columns=columns, booster_text=compact(booster.model_to_string()), calibration=[a, b],
                 base_rate=float(label.mean()), typical=typical_of(X, deals, columns),
                 training={**training, "kind": "lightgbm", "params": params, "rounds": rounds, "folds": FOLDS,
                           "calibration": "Platt: a logistic regression on the out-of-fold scores"})


def constant_model(game, won, deals, seed: int = 0, certain_from=WIN_COLUMNS) -> Model:
    """The model of a game whose solved deals are (nearly) all of one verdict: their share, by Laplace's rule of
    succession (a deal a probe wins is still certain)."""
    import lightgbm as lgb

    from ..game import Game
    from ..kernels.legal import ENGINE_VERSION

    rules = Game(game).rules if isinstance(game, str) else getattr(game, "rules", game)
    won = np.asarray(won, bool)
    n_won, n = int(won.sum()), len(won)
    return Model(game=rules.full_slug, rules_version=rules.version, engine_version=ENGINE_VERSION, features_hash=feature_hash(),
                 columns=[], booster_text=None, calibration=[0.0, 0.0], base_rate=(n_won + 1) / (n + 2),
                 certain_from=list(certain_from),
                 training={"kind": "constant", "deals": _ranges(np.asarray(deals, np.int64)), "seed": seed, "deals_count": n,
                           "won": n_won, "lost": n - n_won, "lightgbm": lgb.__version__})


def _folds(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).permutation(np.arange(n) % FOLDS)


def _rounds(data: np.ndarray, label: np.ndarray, folds: np.ndarray, params: dict) -> int:
    """Boosting rounds by cross-validation on the training deals (the folds of the calibration), stopped early."""
    import lightgbm as lgb

    splits = [(np.flatnonzero(folds != k), np.flatnonzero(folds == k)) for k in range(FOLDS)]
    cv = lgb.cv(params, lgb.Dataset(data, label), num_boost_round=MAX_ROUNDS, folds=splits,
                callbacks=[lgb.early_stopping(30, verbose=False)])
    return len(next(iter(cv.values())))


def _ranges(deals: np.ndarray) -> list[list[int]]:
    """Sorted deal numbers as ``[first, last]`` runs."""
    out: list[list[int]] = []
    for d in np.unique(deals).tolist():
        if out and d == out[-1][1] + 1:
            out[-1][1] = d
        else:
            out.append([d, d])
    return out


# --------------------------------------------------------------------------
# quality
# --------------------------------------------------------------------------


def platt(scores: np.ndarray, y: np.ndarray, steps: int = 50) -> tuple[float, float]:
    """Platt's calibration: the logistic regression ``P(won) = 1 / (1 + exp(-(a + b * score)))`` of outcomes ``y`` on
    ``scores``, fitted by Newton's method (a tiny ridge keeps it finite when the scores separate ``y``).

    >>> a, b = platt(np.array([-2.0, -1.0, 0.0, 1.0, 2.0, 3.0]), np.array([0, 0, 1, 0, 1, 1]))
    >>> round(a, 2), round(b, 2)
    (-0.61, 1.21)
    """
    s = np.asarray(scores, float)
    y = np.asarray(y, float)
    X = np.column_stack([np.ones_like(s), s])
    w = np.zeros(2)
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(X @ w)))
        grad = X.T @ (p - y) + 1e-6 * w
        hess = (X * (p * (1 - p))[:, None]).T @ X + 1e-6 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return float(w[0]), float(w[1])


def auc(p, y) -> float | None:
    """The area under the ROC curve of scores ``p`` for labels ``y`` (ties count half); None with one class only."""
    p = np.asarray(p, float)
    y = np.asarray(y, bool)
    n1 = int(y.sum())
    n0 = len(y) - n1
    if n1 == 0 or n0 == 0:
        return None
    from scipy.stats import rankdata

    r = rankdata(p)
    return float((r[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def ece(p, y, bins: int = 10) -> float:
    """The expected calibration error: over ten equal-width bins of ``p``, the gap between the mean probability and
    the share won, weighted by the bin's deals."""
    p = np.asarray(p, float)
    y = np.asarray(y, float)
    idx = np.minimum((p * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        m = idx == b
        if m.any():
            total += m.sum() * abs(p[m].mean() - y[m].mean())
    return float(total / max(len(p), 1))


def reliability(p, y, bins: int = 10):
    """The reliability table of probabilities ``p`` for outcomes ``y``: per equal-width bin, its deals, mean probability and share won."""
    import pandas as pd

    p = np.asarray(p, float)
    y = np.asarray(y, float)
    idx = np.minimum((p * bins).astype(int), bins - 1)
    rows = [{"bin": b, "lo": b / bins, "hi": (b + 1) / bins, "deals": int((idx == b).sum()),
             "p_mean": float(p[idx == b].mean()) if (idx == b).any() else np.nan,
             "won": float(y[idx == b].mean()) if (idx == b).any() else np.nan} for b in range(bins)]
    return pd.DataFrame(rows)


def quality(p, y) -> dict:
    """AUC, ECE, deals and verdict counts of probabilities ``p`` for outcomes ``y``."""
    y = np.asarray(y, bool)
    a = auc(p, y)
    return {"deals": int(len(y)), "won": int(y.sum()), "lost": int((~y).sum()),
            "auc": None if a is None else round(a, 4), "ece": round(ece(p, y), 4),
            "p_mean": round(float(np.mean(p)), 4) if len(y) else None, "won_share": round(float(y.mean()), 4) if len(y) else None}
