"""A model file written (reproducible bytes) and read (bounded, its format and version), what each of its fields may hold, checked before a
:class:`~.model.Model` (or a :class:`~.rating.RatingModel`: :func:`check_rating_fields`) is made of it, and what
it was made for.

A model file can come from anyone, so none of its values is trusted:
every field is checked against what it may hold (its type, its length,
its range, the features and probes that exist), the calibration must
raise the probability with the score, a probability must lie in [0, 1],
and the booster's text is parsed and checked whole (:mod:`.trees`). A
field that fails is a ``ValueError`` naming it; :func:`~.model.read` turns
it into one line naming the file.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

from ..core import files
from ..core.deals import PYSOL_SEED
from .trees import BoosterError, checked
from .features import NAMES, WIN_COLUMNS, feature_hash

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
#: a rating model's fields, its ``scale``'s keys, and the keys of its ``holdout`` (its ``layout`` and ``cheap`` too)
RATING_FIELDS = ("game", "rules_version", "engine_version", "features_hash", "columns", "booster_text", "scale", "training",
                 "holdout")
SCALE = {"reference": "text", "centre": "points", "points": "points", "cuts": "cuts", "tiers": "tiers"}
#: a rating's range: far past any deal's (castle's lie within a few thousand points of the centre)
MAX_POINTS = 1e5
RATING_QUALITY = {"deals": "count", "censored": "count", "rmse": "error", "rmse_mean": "error", "target_se": "error", "spearman": "corr",
                  "deal_ranges": "ranges"}
RATING_TRAINING = {"kind": "kind", "deals": "ranges", "seed": "seed", "deals_count": "count", "censored": "count",
                   "target": "text", "lightgbm": "text", "params": "params", "rounds": "count", "folds": "count"}
TRAINING = {"kind": "kind", "deals": "ranges", "seed": "count", "deals_count": "count", "won": "count", "lost": "count",
            "won_by_probe": "count", "lightgbm": "text", "params": "params", "rounds": "count", "folds": "count",
            "calibration": "text"}


class ModelError(ValueError):
    """A model file that cannot serve: missing, unreadable, too large, a field holding what it may not, or made for
    other rules, engine or features (one line)."""


def write_model(path: Path, fields: dict) -> Path:
    """Write a model's ``fields`` to ``path`` as gzipped JSON whose bytes depend on the fields alone (no date)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(fields, indent=1, sort_keys=True) + "\n"
    files.write_atomic(path, gzip.compress(text.encode(), compresslevel=9, mtime=0))
    return path


def read_fields(path: str | Path, form: str, version: int) -> dict:
    """A model file's fields (its format and version taken off, the rest unchecked): a one-line :class:`ModelError`
    when it cannot be read, is too large, is not JSON, or is not of the format ``form`` at ``version``."""
    path = Path(path)
    try:
        data = files.read_bytes(path, files.MODEL_FILE, "a model file")
        d = files.loads_json(files.gunzip(data, files.MODEL_TEXT, "a model file", str(path)))
    except FileNotFoundError:
        raise ModelError(f"{path}: no such model file") from None
    except files.TooLarge as e:
        raise ModelError(f"{path}: {e.strerror}") from None
    except OSError as e:
        raise ModelError(f"{path}: cannot read it ({e.strerror or e.__class__.__name__})") from None
    except ValueError as e:
        raise ModelError(f"{path}: not a model file ({e.__class__.__name__ if isinstance(e, UnicodeError) else e})") from None
    if not isinstance(d, dict) or d.get("format") != form:
        raise ModelError(f"{path}: not a castle explain {'rating model' if 'rating' in form else 'model'}")
    if d.get("format_version") != version:
        raise ModelError(f"{path}: model format {d.get('format_version')}, this castle reads {version}: run `make model`")
    return {k: v for k, v in d.items() if k not in ("format", "format_version")}


def made_for(path, model, rules=None):
    """``model`` (read from ``path``) if it was made for ``rules`` (its game's, by default), this engine and these
    features; else a one-line :class:`ModelError` saying which and how to remake it."""
    from ..core.rules import find_game
    from ..kernels.legal import ENGINE_VERSION

    rules = rules or find_game(model.game)
    fix = "rebuild the models with `make model`"
    if model.game != rules.full_slug:
        raise ModelError(f"{path}: a model of {model.game}, not of {rules.full_slug}")
    if model.rules_version != rules.version:
        raise ModelError(f"{path}: made for {model.game} rules version {model.rules_version}, the rules are version {rules.version}; {fix}")
    if model.engine_version != ENGINE_VERSION:
        raise ModelError(f"{path}: made for engine version {model.engine_version}, the engine is version {ENGINE_VERSION}; {fix}")
    if model.features_hash != feature_hash():
        raise ModelError(f"{path}: made for other features ({model.features_hash}, now {feature_hash()}); {fix}")
    unknown = sorted(set(model.columns) - set(NAMES))
    if unknown:
        raise ModelError(f"{path}: reads features that do not exist ({', '.join(unknown)}); {fix}")
    return model


def _common(d: dict, required, allowed) -> list:
    """The checks every model file shares: no field missing or unknown, what it was made for, its columns (returned)."""
    missing = [f for f in required if f not in d]
    unknown = [k for k in d if k not in allowed]
    if missing or unknown:
        raise ValueError(f"{'no field ' + ', '.join(missing) if missing else 'unknown field ' + ', '.join(map(str, unknown))}")
    for name in ("game", "features_hash"):
        _text(d[name], name)
    for name in ("rules_version", "engine_version"):
        _int(d[name], name)
    return _names(d["columns"], "columns", NAMES)


def read_model(path: str | Path, form: str, version: int, check, make):
    """``make(**check(fields))`` of the model file in ``path``, remembering its source: every field checked, any
    fault a one-line :class:`ModelError` naming the file (what it was made for is :func:`made_for`'s to check)."""
    d = read_fields(path, form, version)
    try:
        model = make(**check(d))
    except ValueError as e:
        raise ModelError(f"{path}: {' '.join(str(e).split())}") from None
    model.source = Path(path)
    return model


def check_fields(d: dict) -> dict:
    """``d`` (a model file's fields, without its format) if every field holds what it may; a ValueError naming the
    first that does not. ``booster_text`` comes back as the text LightGBM is given (:func:`.trees.checked`)."""
    columns = _common(d, FIELDS[:8], FIELDS)
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


def check_rating_fields(d: dict) -> dict:
    """``d`` (a rating model file's fields, without its format) if every field holds what it may; a ValueError naming
    the first that does not. Its booster (a regression, never absent) comes back as the text LightGBM is given."""
    columns = _common(d, RATING_FIELDS, RATING_FIELDS)
    if not columns:
        raise ValueError("columns is empty: a rating model's booster reads some")
    scale = d["scale"]
    _table(scale, "scale", SCALE)
    if set(scale) != set(SCALE):
        raise ValueError(f"scale must give {', '.join(SCALE)}")
    if not scale["points"] > 0:
        raise ValueError(f"scale.points is {scale['points']}: a higher score must be a higher rating (points > 0)")
    if len(scale["tiers"]) != len(scale["cuts"]) + 1:
        raise ValueError(f"scale: {len(scale['tiers'])} tiers for {len(scale['cuts'])} cuts (one more tier than cuts)")
    _table(d["training"], "training", RATING_TRAINING)
    _table(d["holdout"], "holdout", {**RATING_QUALITY, "layout": "rating quality", "cheap": "rating quality"})
    if d["holdout"].get("rmse") is None:
        raise ValueError("holdout.rmse must be given: the rating's error on held-out deals is what it is shown with")
    try:
        booster = checked(d["booster_text"], len(columns), "regression")
    except BoosterError as e:
        raise ValueError(f"booster_text: {e}") from None
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
        if v is None and kind in ("share", "ms", "corr", "error"):
            continue
        if kind == "share":
            _number(v, where, 0.0, 1.0)
        elif kind == "ms":
            _number(v, where, 0.0, 1e9)
        elif kind == "count":
            _int(v, where)
        elif kind == "seed":  # (the deals' seed: 0 and up, or PySol's numbering)
            _int(v, where, PYSOL_SEED)
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
        elif kind == "rating quality":
            _table(v, where, RATING_QUALITY)
        elif kind == "points":
            _number(v, where, -MAX_POINTS, MAX_POINTS)
        elif kind == "error":
            _number(v, where, 0.0, MAX_POINTS)
        elif kind == "corr":
            _number(v, where, -1.0, 1.0)
        elif kind == "cuts":
            if not isinstance(v, list) or not 0 < len(v) <= 20:
                raise ValueError(f"{where} must be a list of 1 to 20 ratings, got {_shown(v)}")
            cuts = [_number(c, where, -MAX_POINTS, MAX_POINTS) for c in v]
            if any(a >= b for a, b in zip(cuts, cuts[1:])):
                raise ValueError(f"{where} must rise: {_shown(v)}")
        elif kind == "tiers":
            if not isinstance(v, list) or not v:
                raise ValueError(f"{where} must be a list of names, got {_shown(v)}")
            for name in v:
                _text(name, where)
