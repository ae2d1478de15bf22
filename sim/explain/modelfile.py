"""What each field of a model file may hold, checked before a :class:`~.model.Model` is made of it.

A model file can come from anyone, so none of its values is trusted:
every field is checked against what it may hold (its type, its length,
its range, the features and probes that exist), the calibration must
raise the probability with the score, a probability must lie in [0, 1],
and the booster's text is parsed and checked whole (:mod:`.trees`). A
field that fails is a ``ValueError`` naming it; :func:`~.model.read` turns
it into one line naming the file.
"""

from __future__ import annotations

import math

from .trees import BoosterError, checked
from .features import NAMES, WIN_COLUMNS

FIELDS = ("game", "rules_version", "engine_version", "features_hash", "columns", "booster_text", "calibration", "base_rate",
          "certain_from", "training", "holdout", "typical")
#: Platt's ``a`` and ``b`` beyond this turn every score into a certainty (castle's are near 0 and 1)
MAX_CALIBRATION = 1000.0
#: the largest usual value of a feature (they count cards, moves and piles: a few hundred at most)
MAX_USUAL = 1e6
#: a count of deals, a seed, a version: whole numbers in 64 bits
MAX_INT = 2**63 - 1
#: a quality's keys (a model's ``holdout``, and its ``layout`` and ``cheap`` models') and their kinds
QUALITY = {"auc": "share", "ece": "share", "p_mean": "share", "won_share": "share", "deals": "count", "won": "count",
           "lost": "count", "won_by_probe": "count", "features_ms": "ms", "model_ms": "ms", "deal_ranges": "ranges"}
TRAINING = {"kind": "kind", "deals": "ranges", "seed": "count", "deals_count": "count", "won": "count", "lost": "count",
            "won_by_probe": "count", "lightgbm": "text", "params": "params", "rounds": "count", "folds": "count",
            "calibration": "text"}


def check_fields(d: dict) -> dict:
    """``d`` (a model file's fields, without its format) if every field holds what it may; a ValueError naming the
    first that does not. ``booster_text`` comes back as the text LightGBM is given (:func:`.trees.checked`)."""
    missing = [f for f in FIELDS[:8] if f not in d]
    unknown = [k for k in d if k not in FIELDS]
    if missing or unknown:
        raise ValueError(f"{'no field ' + ', '.join(missing) if missing else 'unknown field ' + ', '.join(map(str, unknown))}")
    for name in ("game", "features_hash"):
        _text(d[name], name)
    for name in ("rules_version", "engine_version"):
        _int(d[name], name)
    columns = _names(d["columns"], "columns", NAMES)
    booster = d["booster_text"]
    if booster is not None and not columns:
        raise ValueError("columns is empty, but a booster reads them")
    if booster is None and columns:
        raise ValueError("columns are named, but there is no booster to read them")
    calibration = d["calibration"]
    if not (isinstance(calibration, list) and len(calibration) == 2):
        raise ValueError(f"calibration must be two numbers (Platt's a and b), got {_shown(calibration)}")
    for v in calibration:
        _number(v, "calibration", -MAX_CALIBRATION, MAX_CALIBRATION)
    if booster is not None and not calibration[1] > 0:
        raise ValueError(f"calibration's b is {calibration[1]}: a higher score must give a higher probability (b > 0)")
    _number(d["base_rate"], "base_rate", 0.0, 1.0)
    _names(d.get("certain_from", []), "certain_from", WIN_COLUMNS)
    _table(d.get("training", {}), "training", TRAINING)
    holdout = d.get("holdout", {})
    _table(holdout, "holdout", {**QUALITY, "layout": "quality", "cheap": "quality"})
    if booster is not None:
        try:
            booster = checked(booster, len(columns))
        except BoosterError as e:
            raise ValueError(f"booster_text: {e}") from None
    _typical(d.get("typical", {}), columns)
    return {**d, "booster_text": booster}


def _typical(value, columns: list[str]) -> None:
    """A feature's usual value for each of some of ``columns`` (a count: finite, from 0 to :data:`MAX_USUAL`)."""
    if not isinstance(value, dict):
        raise ValueError(f"typical must be a table, got {_shown(value)}")
    unknown = [k for k in value if k not in columns]
    if unknown:
        raise ValueError(f"typical: {_shown(unknown[0])} is not one of the model's columns ({len(unknown)} such)")
    for name, v in value.items():
        _number(v, f"typical.{name}", 0.0, MAX_USUAL)


def _shown(value) -> str:
    """A value as a message shows it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _text(value, name: str) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= 200 or not value.isprintable():
        raise ValueError(f"{name} must be a short line of text, got {_shown(value)}")
    return value


def _int(value, name: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_INT:
        raise ValueError(f"{name} must be a whole number from {low}, got {_shown(value)}")
    return value


def _number(value, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"{name} must be a number from {low:g} to {high:g}, got {_shown(value)}")
    return float(value)


def _names(value, name: str, known) -> list[str]:
    """A list of distinct names, each one of ``known``."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{name} must be a list of names, got {_shown(value)}")
    unknown = [v for v in value if v not in known]
    if unknown:
        raise ValueError(f"{name}: {_shown(unknown[0])} is not one of castle's ({len(unknown)} unknown)")
    if len(set(value)) != len(value):
        raise ValueError(f"{name}: a name given twice")
    return value


def _table(value, name: str, kinds: dict[str, str]) -> None:
    """A dict whose every key is one of ``kinds`` and holds a value of that kind (None: not measured)."""
    if not isinstance(value, dict):
        raise ValueError(f"{name} must be a table, got {_shown(value)}")
    for key, v in value.items():
        kind = kinds.get(key)
        where = f"{name}.{key}"
        if kind is None:
            raise ValueError(f"{name}: unknown key {_shown(key)}")
        if v is None and kind in ("share", "ms"):
            continue
        if kind == "share":
            _number(v, where, 0.0, 1.0)
        elif kind == "ms":
            _number(v, where, 0.0, 1e9)
        elif kind == "count":
            _int(v, where)
        elif kind == "text":
            _text(v, where)
        elif kind == "kind":
            if v not in ("lightgbm", "constant"):
                raise ValueError(f"{where} must be lightgbm or constant, got {_shown(v)}")
        elif kind == "ranges":
            if not isinstance(v, list) or not all(isinstance(r, list) and len(r) == 2 for r in v):
                raise ValueError(f"{where} must be a list of [first, last] deals, got {_shown(v)}")
            for first, last in v:
                if _int(first, where) > _int(last, where):
                    raise ValueError(f"{where}: [{first}, {last}] runs backwards")
        elif kind == "params":
            if not isinstance(v, dict) or not all(isinstance(p, (str, int, float, bool)) or p is None for p in v.values()):
                raise ValueError(f"{where} must be a table of LightGBM's parameters, got {_shown(v)}")
        elif kind == "quality":
            _table(v, where, QUALITY)
