"""Why a deal is hard, before any search: a calibrated probability that it is winnable, with its reasons, in milliseconds.

- :mod:`.features`: a deal's features, named as a player would name them, each with its meaning in words
  (computed by the compiled kernel :mod:`sim.kernels.features`)
- :mod:`.model`: a LightGBM model per game, calibrated, versioned with the rules, the engine and the features;
  training, saving, loading, predicting with per-feature contributions
- :mod:`.modelfile` and :mod:`.trees`: a model file is anyone's: every field checked, and its booster parsed,
  checked whole and written again before LightGBM reads it
- :mod:`.reasons`: the 3-5 features that push a deal's probability most up or down, in words

The models ship in ``models/`` (``make model`` rebuilds them from the study's solver verdicts); ``castle explain``
is the command line's face of :func:`explain`.
"""

from __future__ import annotations

from .features import FEATURES, NAMES, PROBES, Feature, Probe, feature, feature_hash
from .model import Model, ModelError, load, model_for
from .reasons import Explanation, Reason, explain

# (the function ``features`` stays in its module: here the name is the module's)
__all__ = ["FEATURES", "NAMES", "PROBES", "Feature", "Probe", "feature", "feature_hash", "Model", "ModelError",
           "load", "model_for", "Explanation", "Reason", "explain"]
