"""Short names for players in tables and figures, and the legend back to their full specifications.

A player's label (``beam:budget=4000000,width=32``) is exact but long; in
every cell and on every axis it crowds out the numbers. The short name keeps
the player's kind and its parameters in a compact, still readable form
(``beam 4M w32``); the report ends with a legend from short names to labels,
and its CSV tables keep the full labels.

>>> short("beam:budget=4000000,width=32")
'beam 4M w32'
>>> short("solver:budget_nodes=60000000,budget_seconds=600.0")
'solver 60M 600s'
>>> short("strategist:balance=0.0,even=0")
'strategist balance=0 even=0'
>>> short("greedy")
'greedy'
"""

from __future__ import annotations

#: parameters written as a prefix letter and the value (``w32``), or a suffix (``600s``); a budget is just its number
PREFIX = {"width": "w", "spread": "s", "level": "L", "depth": "d", "samples": "×"}
SUFFIX = {"budget_seconds": "s"}
BARE = {"budget", "budget_nodes"}


def compact(value: str) -> str:
    """A parameter's value in few characters: 4000000 -> 4M, 250000 -> 250k, 600.0 -> 600, 0.5 stays."""
    try:
        x = float(value)
    except ValueError:
        return value
    if x == int(x):
        n = int(x)
        for unit, size in (("M", 1_000_000), ("k", 1_000)):
            if abs(n) >= size and n % (size // 10 or 1) == 0:
                text = f"{n / size:g}"
                return f"{text}{unit}"
        return str(n)
    return f"{x:g}"


def short(label: str) -> str:
    """The short name of a player label (see the module's examples); the label itself when it has no parameters."""
    label = str(label)
    kind, _, params = label.partition(":")
    if not params:
        return label
    parts = [kind]
    for item in params.split(","):
        key, _, value = item.partition("=")
        v = compact(value)
        if key in BARE:
            parts.append(v)
        elif key in PREFIX:
            parts.append(f"{PREFIX[key]}{v}")
        elif key in SUFFIX:
            parts.append(f"{float(value):g}{SUFFIX[key]}" if value.replace(".", "", 1).isdigit() else f"{value}{SUFFIX[key]}")
        else:
            parts.append(f"{key}={v}")
    return " ".join(parts)


def stream_of(label: str) -> int:
    """Which random stream a player label plays (``nmcs:budget=200000,stream=2`` -> 2; 0 when it names none)."""
    _, _, params = str(label).partition(":")
    for item in params.split(","):
        key, _, value = item.partition("=")
        if key == "stream" and value.isdigit():
            return int(value)
    return 0


def without_stream(label: str) -> str:
    """The label of the same player on its own stream: ``nmcs:budget=200000,stream=2`` -> ``nmcs:budget=200000``.

    >>> without_stream("beam:spread=4,stream=1,width=8")
    'beam:spread=4,width=8'
    """
    kind, _, params = str(label).partition(":")
    kept = [item for item in params.split(",") if item and not item.startswith("stream=")]
    return kind + (":" + ",".join(kept) if kept else "")


def short_names(labels) -> dict[str, str]:
    """Each label's short name, unique among ``labels`` (a name two labels would share falls back to the label)."""
    labels = list(dict.fromkeys(str(x) for x in labels))
    names = {x: short(x) for x in labels}
    taken: dict[str, int] = {}
    for n in names.values():
        taken[n] = taken.get(n, 0) + 1
    return {x: (n if taken[n] == 1 else x) for x, n in names.items()}
