"""The rule sheet's advice, tested: a player with a piece of advice switched off, against the same player with it.

A *variant* is a player whose label is another player's (its *baseline*)
plus changed parameters: ``strategist:choose_base=0`` is a variant of
``strategist``. Each variant is compared with its baseline on the same
deals (McNemar's exact test, Newcombe's paired interval), the p-values
adjusted for the number of comparisons (Holm).
"""

from __future__ import annotations

import pandas as pd
from statsmodels.stats.multitest import multipletests

from .stats import is_solver

#: what a changed parameter means, in the words of the advice it switches off
SWITCHES = {
    ("choose_base", 0): "base: the first card founded, not chosen from the whole board",
    ("choose_base", 2): "base: drawn at random, not chosen from the whole board",
    ("last", 0): "no care for the rank below the base",
    ("wrap", 0): "no bonus for Kings put on Aces",
    ("even", 0): "cards home as soon as they can go, not evenly",
    ("balance", 0): "no penalty for one suit running ahead",
}


def _parse(label: str) -> tuple[str, dict[str, float]]:
    name, _, rest = label.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        k, _, v = item.partition("=")
        params[k] = float(v)
    return name, params


#: switches that make one piece of advice together
BANK_EVENLY_OFF = {"even": 0.0, "balance": 0.0}


def describe(changes: dict[str, float]) -> str:
    """The switched-off advice in words (the parameters themselves when the words are not known)."""
    if {k: float(v) for k, v in changes.items()} == BANK_EVENLY_OFF:
        return "bank greedily: every card home as soon as it can go, no balance across the suits"
    words = [SWITCHES.get((k, v)) for k, v in sorted(changes.items())]
    if all(words):
        return "; ".join(dict.fromkeys(w for w in words if w))
    return ", ".join(f"{k}={v:g}" for k, v in sorted(changes.items()))


def variants(players: list[str]) -> list[tuple[str, str, dict[str, float]]]:
    """(baseline, variant, the variant's changed parameters) for every player that is another's variant."""
    parsed = {p: _parse(p) for p in players if not is_solver(p)}
    out = []
    for v, (name, params) in parsed.items():
        best = None
        for b, (bname, bparams) in parsed.items():
            if b == v or bname != name or not all(params.get(k) == x for k, x in bparams.items()):
                continue
            if best is None or len(bparams) > len(parsed[best][1]):
                best = b
        if best is not None:
            out.append((best, v, {k: x for k, x in params.items() if k not in parsed[best][1]}))
    return out


def effects(df, game: str) -> pd.DataFrame:
    """For each variant: baseline and variant win rates, the advice's effect (baseline - variant) with its interval, p (Holm).

    ``df``: rows, or the players' rows where they lie (:class:`analysis.scan.CheapRows`).
    """
    from .scan import as_rows, pair

    df = as_rows(df)
    held = df.pairs()
    rows = []
    for base, var, changes in variants(sorted(held[held.game == game].player.unique())):
        pr = pair(df, (game, base), (game, var))
        if pr is None:
            continue
        rows.append({"player": base, "advice switched off": describe(changes), "variant": var, "deals": pr.deals,
                     "with advice": pr.rate_a, "without": pr.rate_b, "effect": pr.diff, "effect_low": pr.diff_low,
                     "effect_high": pr.diff_high, "only_with": pr.only_a, "only_without": pr.only_b, "p": pr.p_value})
    out = pd.DataFrame(rows, columns=["player", "advice switched off", "variant", "deals", "with advice", "without", "effect",
                                      "effect_low", "effect_high", "only_with", "only_without", "p"])
    out["p_holm"] = multipletests(out.p, method="holm")[1] if len(out) else []
    return out
