"""JSON as castle prints and writes it: strict, so every reader takes it.

Python's ``json`` writes a float that is not finite as ``NaN``, ``Infinity`` or ``-Infinity``, which are not JSON: a
strict reader (``jq``, JavaScript's ``JSON.parse``, most languages' libraries) refuses the whole line. castle writes such
a number as ``null``, which in every field means "not defined here" (the difficulty of a deal not won, the estimate of
no deals, a rate of nothing in no time), and refuses anything else ``json`` cannot spell.

>>> dumps({"p": float("nan"), "k": [1.5, float("inf")]})
'{"p": null, "k": [1.5, null]}'

Inside an HTML ``<script>`` a JSON text must also not end the script or open a comment: :func:`script_json` writes
``<``, ``>``, ``&`` and the line separators U+2028/U+2029 as ``\\u`` escapes, which every JSON reader reads back.

>>> print(script_json({"name": "</script><!--", "x": float("inf")}))
{"name":"\\u003c/script\\u003e\\u003c!--","x":null}
"""

from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """``value`` with every float that is not finite (a NumPy one too) made None, through dicts, lists and tuples."""
    if isinstance(value, float) or type(value).__name__ in ("float32", "float64", "float16"):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` of ``value`` made :func:`finite`, and strict (``allow_nan=False``)."""
    return json.dumps(finite(value), allow_nan=False, **kwargs)


#: what must not appear raw in a JSON text inside ``<script>``, and its JSON escape
_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(value: Any) -> str:
    """Compact strict JSON (:func:`dumps`) safe to put inside an HTML ``<script>``: no ``</script>``, no ``<!--``."""
    text = dumps(value, separators=(",", ":"))
    return text.translate(str.maketrans(_SCRIPT_UNSAFE))
