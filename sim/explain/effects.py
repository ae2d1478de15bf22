"""What a reason does to the chance of a win: the deal's probability, less its probability were that one thing as usual.

A reason's number is in points of probability: the model's calibrated
probability for the deal, less the probability it gives the same deal with
that one feature (a probe's game: its four features together) set to its
usual value, all else kept. A feature's usual value is its median over the
first :data:`TYPICAL` training deals of the model (by number), kept in the
model file (``typical``, :func:`typical_of`). A model file that holds none
(one made before they were kept) gets the other honest reading: the
probability less the probability without that feature's share of the
calibrated score (its SHAP contribution); ``by`` says which.

Points are taken one reason at a time and do not add up to the
probability: the model is not a sum of probabilities. They are taken
without the floor and ceiling the shown probability keeps (0.1% and 99.9%),
so a deal the model is all but sure of still has reasons, of a few
hundredths of a point.
"""

from __future__ import annotations

import numpy as np

from .features import NAMES, feature

#: a feature's usual value is its median over this many training deals (the lowest numbers)
TYPICAL = 1000


def typical_of(X, deals, columns) -> dict[str, float]:
    """The median of each of ``columns`` over the first :data:`TYPICAL` of ``deals`` (the rows of ``X``, by number);
    a column with no value there is left out."""
    order = np.argsort(np.asarray(deals), kind="stable")[:TYPICAL]
    med = X.iloc[order][list(columns)].median(skipna=True)
    return {c: round(float(v), 6) for c, v in med.items() if v == v}


def candidates(columns) -> dict[str, list[str]]:
    """What a reason can be, and the columns it sets: each layout feature alone, each probe's features together
    (under the probe's name)."""
    out: dict[str, list[str]] = {}
    for c in columns:
        f = feature(c)
        out.setdefault(f.probe or c, []).append(c)
    return out


def _chance(a: float, b: float):
    """Platt's calibration without the floor and ceiling the shown probability keeps (:data:`~.model.P_FLOOR`): so
    that a deal the model is all but sure of still tells its reasons apart, by hundredths of a point."""
    def chance(scores):
        with np.errstate(over="ignore"):
            return 1 / (1 + np.exp(-(a + b * np.asarray(scores, float))))
    return chance


def effects(model, X, contrib):
    """``(p_model, points, by)``: the model's calibrated probability of each row of ``X`` (before a probe's win makes
    it certain), each candidate's points (a DataFrame: a row per row of ``X``, a column per :func:`candidates` key)
    and how they were taken: ``"usual"`` (set to the usual value) or ``"contribution"`` (its share taken out)."""
    import pandas as pd

    if model.constant:
        return np.full(len(X), model.base_rate), pd.DataFrame(index=X.index), "usual"
    a, b = model.calibration
    scores = model.scores(X)
    p_model = model.calibrate(scores)
    chance = _chance(a, b)
    groups = candidates(model.columns)
    typical = getattr(model, "typical", None) or {}
    if all(c in typical for c in model.columns):
        base = X[list(NAMES)].to_numpy(np.float64)
        where = {c: k for k, c in enumerate(NAMES)}
        blocks = []
        for cols in groups.values():
            block = base.copy()
            for c in cols:
                block[:, where[c]] = typical[c]
            blocks.append(block)
        stacked = pd.DataFrame(np.vstack(blocks) if blocks else base[:0], columns=list(NAMES))
        p_usual = chance(model.scores(stacked)).reshape(len(groups), len(X)).T
        by = "usual"
    else:
        shares = np.column_stack([contrib[cols].sum(axis=1).to_numpy() for cols in groups.values()])
        p_usual = chance(scores[:, None] - shares / b)  # the score without that share of the calibrated log-odds
        by = "contribution"
    points = 100 * (chance(scores)[:, None] - p_usual)
    return p_model, pd.DataFrame(points, columns=list(groups), index=X.index), by
