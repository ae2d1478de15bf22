"""A model's LightGBM booster as text: parsed strictly, checked whole, and written again before LightGBM reads it.

A model file can come from anyone (a user may be handed one), and
LightGBM's text parser trusts what it reads: a split on feature 999999
reads memory far past the row (a segmentation fault), so do a child index
out of range and a loop among nodes, and a line with no ``=`` runs the
parser past the end of the text. So LightGBM never reads the text as it
is. :func:`checked` parses it here, line by line, into numbers, checks all
of them (below), and writes a new text from those numbers alone, in the
form LightGBM writes: what was not checked is not passed on (tree sizes,
categorical splits, linear leaves, parameters, ``pandas_categorical``).
LightGBM then reads a booster of the shape it makes itself.

Checked, the whole booster: it starts ``tree``, ends ``end of trees``,
holds only keys LightGBM writes, each once; one class, of the objective the model reads
(``binary`` for winnability, ``regression`` for a rating: :data:`OBJECTIVES`); its
features are the model's columns (``max_feature_idx``, ``feature_names``,
``feature_infos``); 1 to :data:`MAX_TREES` trees. Each tree: 1 to
:data:`MAX_LEAVES` leaves; every array as long as its number of leaves
says; no categorical split, no linear leaf; every split on a feature in
range, with a finite threshold and a decision type of a numerical split;
every child index in range, and every node and leaf reached exactly once
from the root (a tree: no loop, nothing shared, nothing left out); every
leaf value finite and within :data:`MAX_LEAF`; the counts SHAP weighs by
positive and each node's the sum of its children's.

Why not predict in NumPy instead: the reasons ``castle explain`` gives are
LightGBM's SHAP values (``pred_contrib``), whose TreeSHAP would have to be
written again and kept equal to LightGBM's. Checking a tree whole is
short, and writing the text again makes the check complete.
"""

from __future__ import annotations

import math
import re

#: the most trees a booster may hold (castle's hold at most a few hundred)
MAX_TREES = 10_000
#: the most leaves a tree may have (castle's have 7; LightGBM's TreeSHAP recurses once per level)
MAX_LEAVES = 1024
#: the largest leaf value (log-odds): the sum over every tree stays far from overflow
MAX_LEAF = 1000.0
#: LightGBM reads counts and indices as 32-bit integers
INT32 = 2**31 - 1
#: a numerical split's decision types: bit 1 "missing goes left", bits 2-3 the missing type (none, zero, NaN)
DECISION_TYPES = frozenset({0, 2, 4, 6, 8, 10})
#: the objectives read: the header's value as LightGBM writes it, and the line written again
OBJECTIVES = {"binary": (re.compile(r"binary sigmoid:[0-9.]+"), "objective=binary sigmoid:1"),
              "regression": (re.compile(r"regression"), "objective=regression")}

HEADER_KEYS = frozenset({"version", "num_class", "num_tree_per_iteration", "label_index", "max_feature_idx", "objective",
                         "feature_names", "feature_infos", "tree_sizes"})
TREE_KEYS = frozenset({"num_leaves", "num_cat", "split_feature", "split_gain", "threshold", "decision_type", "left_child",
                       "right_child", "leaf_value", "leaf_weight", "leaf_count", "internal_value", "internal_weight",
                       "internal_count", "is_linear", "shrinkage"})
#: per node (``num_leaves - 1`` values) and per leaf (``num_leaves``); the first of each group must be there
NODE_INTS = ("split_feature", "decision_type", "left_child", "right_child", "internal_count")
NODE_FLOATS = ("threshold", "split_gain", "internal_value", "internal_weight")
LEAF_FLOATS = ("leaf_value", "leaf_weight")
OPTIONAL = frozenset({"split_gain", "internal_value", "internal_weight", "leaf_weight", "leaf_count"})

_INT = re.compile(r"-?[0-9]{1,10}")
_FLOAT = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]{1,3})?")
_INFO = re.compile(r"none|\[(%s):(%s)\]" % (_FLOAT.pattern, _FLOAT.pattern))
_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")


class BoosterError(ValueError):
    """A booster text that is not a LightGBM binary model of plain numerical trees over the model's columns."""


def checked(text, n_features: int, objective: str = "binary") -> str:
    """The booster ``text`` written again from its checked numbers (the text LightGBM is given); a
    :class:`BoosterError` saying what is wrong, and where, if anything is. ``objective``: the one it must have
    (:data:`OBJECTIVES`: a winnability model's booster is binary, a rating model's a regression)."""
    header, trees = _parse(text)
    infos = _header(header, n_features, objective)
    out = ["tree", "version=v4", "num_class=1", "num_tree_per_iteration=1", "label_index=0",
           f"max_feature_idx={n_features - 1}", OBJECTIVES[objective][1],
           "feature_names=" + " ".join(f"Column_{i}" for i in range(n_features)), "feature_infos=" + " ".join(infos), ""]
    for k, tree in enumerate(trees):
        try:
            out += _tree(tree, n_features, k)
        except BoosterError as e:
            raise BoosterError(f"tree {k}: {e}") from None
    return "\n".join(out) + "\nend of trees\n"


def _parse(text) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The header's keys and each tree's, as text; only keys LightGBM writes, each once."""
    if not isinstance(text, str) or not text.strip():
        raise BoosterError("empty" if isinstance(text, str) else f"not text ({type(text).__name__})")
    lines = text.split("\n")
    if lines[0].rstrip("\r") != "tree":
        raise BoosterError("it does not start with the line 'tree' (not a LightGBM model)")
    header: dict[str, str] = {}
    trees: list[dict[str, str]] = []
    current = None
    for number, line in enumerate(lines[1:], start=2):
        line = line.rstrip("\r")
        if line == "end of trees":
            break
        if not line:
            current = None
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise BoosterError(f"line {number} is not key=value")
        if key == "Tree":
            if value != str(len(trees)):
                raise BoosterError(f"line {number}: tree {value[:20]!r} where tree {len(trees)} comes")
            if len(trees) == MAX_TREES:
                raise BoosterError(f"more than {MAX_TREES:,} trees")
            current = {}
            trees.append(current)
            continue
        into, allowed = (header, HEADER_KEYS) if current is None else (current, TREE_KEYS)
        if key not in allowed:
            raise BoosterError(f"line {number}: unknown key {key[:40]!r}")
        if key in into:
            raise BoosterError(f"line {number}: {key} given twice")
        into[key] = value
    else:
        raise BoosterError("no line 'end of trees' (the text is cut short?)")
    if not trees:
        raise BoosterError("no trees")
    return header, trees


def _header(h: dict[str, str], n_features: int, objective: str = "binary") -> list[str]:
    """Check the header against ``n_features`` columns; its ``feature_infos`` (each ``none`` or ``[low:high]``)."""
    if h.get("version") != "v4":
        raise BoosterError(f"version {h.get('version', '(none)')[:20]!r}, castle reads LightGBM's v4 text")
    if h.get("num_class") != "1" or h.get("num_tree_per_iteration", "1") != "1":
        raise BoosterError("not a model of one class (num_class, num_tree_per_iteration)")
    if not OBJECTIVES[objective][0].fullmatch(h.get("objective", "")):
        raise BoosterError(f"objective {h.get('objective', '(none)')[:40]!r}, not {objective}")
    if not _INT.fullmatch(h.get("label_index", "")):
        raise BoosterError("no label_index")
    if h.get("max_feature_idx") != str(n_features - 1):
        raise BoosterError(f"{_count(h.get('max_feature_idx'))} features, the model reads {n_features} columns")
    names = h.get("feature_names", "").split(" ")
    if len(names) != n_features or not all(_NAME.fullmatch(n) for n in names):
        raise BoosterError(f"feature_names: {len(names)} names, the model reads {n_features} columns")
    infos = h.get("feature_infos", "").split(" ")
    if len(infos) != n_features:
        raise BoosterError(f"feature_infos: {len(infos)} of them, the model reads {n_features} columns")
    for info in infos:
        m = _INFO.fullmatch(info)
        if not m or (m.group(1) is not None and not all(math.isfinite(float(v)) for v in m.groups())):
            raise BoosterError(f"feature_infos: {info[:40]!r} is not none or [low:high]")
    return infos


def _count(text) -> str:
    try:
        return str(int(text) + 1)
    except (TypeError, ValueError):
        return "an unreadable number of"


def _tree(t: dict[str, str], n_features: int, k: int) -> list[str]:
    """The lines of one checked tree, as LightGBM writes them."""
    n = _ints(t, "num_leaves", 1)[0]
    if not 1 <= n <= MAX_LEAVES:
        raise BoosterError(f"num_leaves {n}: 1 to {MAX_LEAVES} are read")
    if _ints(t, "num_cat", 1)[0] != 0 or t.get("is_linear", "0") != "0":
        raise BoosterError("a categorical split or a linear leaf (castle's models have neither)")
    shrinkage = _floats(t, "shrinkage", 1)[0] if "shrinkage" in t else 1.0
    leaf = _floats(t, "leaf_value", n)
    if any(abs(v) > MAX_LEAF for v in leaf):
        raise BoosterError(f"a leaf value past ±{MAX_LEAF:g}")
    nodes = n - 1
    for key in OPTIONAL - {"leaf_count"}:
        if key in t and (nodes or t[key]):
            _floats(t, key, n if key.startswith("leaf") else nodes)
    counts = _ints(t, "leaf_count", n) if "leaf_count" in t or nodes else [0]
    if any(not 0 <= c <= INT32 for c in counts):
        raise BoosterError("a leaf count out of range")
    head = [f"Tree={k}", f"num_leaves={n}", "num_cat=0"]
    tail = [f"leaf_value={_join(leaf)}", f"leaf_count={_join(counts)}", "is_linear=0", f"shrinkage={shrinkage!r}", "", ""]
    if nodes == 0:
        return head + tail
    feature, decision, left, right, inner = (_ints(t, key, nodes) for key in NODE_INTS)
    threshold = _floats(t, "threshold", nodes)
    if any(not 0 <= f < n_features for f in feature):
        bad = next(f for f in feature if not 0 <= f < n_features)
        raise BoosterError(f"a split on feature {bad}, the model reads {n_features} columns")
    if any(d not in DECISION_TYPES for d in decision):
        raise BoosterError(f"decision type {next(d for d in decision if d not in DECISION_TYPES)} (only numerical splits are read)")
    _shape(left, right, n)
    if any(not 0 < c <= INT32 for c in inner):
        raise BoosterError("an internal count out of range")
    size = lambda c: inner[c] if c >= 0 else counts[~c]  # noqa: E731
    if any(inner[i] != size(left[i]) + size(right[i]) for i in range(nodes)):
        raise BoosterError("a node's count is not the sum of its children's")
    return head + [f"split_feature={_join(feature)}", f"threshold={_join(threshold)}", f"decision_type={_join(decision)}",
                   f"left_child={_join(left)}", f"right_child={_join(right)}", f"internal_count={_join(inner)}"] + tail


def _shape(left: list[int], right: list[int], n: int) -> None:
    """Every child index in range and every node and leaf reached exactly once from the root: a tree."""
    seen_node, seen_leaf = [False] * (n - 1), [False] * n
    seen_node[0] = True
    todo = [0]
    while todo:
        node = todo.pop()
        for child in (left[node], right[node]):
            if child >= 0:
                if child >= n - 1 or seen_node[child]:
                    raise BoosterError(f"node {node}'s child {child} is {'out of range' if child >= n - 1 else 'reached twice'}")
                seen_node[child] = True
                todo.append(child)
            else:
                if ~child >= n or seen_leaf[~child]:
                    raise BoosterError(f"node {node}'s leaf {~child} is {'out of range' if ~child >= n else 'reached twice'}")
                seen_leaf[~child] = True
    if not all(seen_node) or not all(seen_leaf):
        raise BoosterError("a node or a leaf no path from the root reaches")


def _values(t: dict[str, str], key: str, n: int, pattern: re.Pattern) -> list[str]:
    if key not in t:
        raise BoosterError(f"no {key}")
    words = t[key].split(" ") if n else []
    if (len(words) != n) or (not n and t[key]) or not all(pattern.fullmatch(w) for w in words):
        raise BoosterError(f"{key}: not {n} numbers")
    return words


def _ints(t: dict[str, str], key: str, n: int) -> list[int]:
    return [int(w) for w in _values(t, key, n, _INT)]


def _floats(t: dict[str, str], key: str, n: int) -> list[float]:
    out = [float(w) for w in _values(t, key, n, _FLOAT)]
    if not all(math.isfinite(v) for v in out):
        raise BoosterError(f"{key}: a value that is not finite")
    return out


def _join(values) -> str:
    return " ".join(repr(v) for v in values)


def compact(text: str) -> str:
    """LightGBM's model text, smaller: its floats to 6 digits, without what prediction does not read.

    The trees' byte sizes go (they change with the digits; LightGBM then
    reads the trees in turn), and so do the feature importances and the
    parameters after the trees.
    """
    def digits(m: re.Match) -> str:
        return m.group(1) + "=" + " ".join(f"{float(v):.6g}" for v in m.group(2).split(" "))

    text = re.sub(r"^(leaf_value|internal_value|internal_weight|leaf_weight|threshold|split_gain)=(.*)$", digits, text, flags=re.M)
    text = re.sub(r"^tree_sizes=.*\n", "", text, flags=re.M)
    return text.split("end of trees")[0] + "end of trees\n"
