"""Where players go wrong: the ladder's first mistakes on winnable deals, from the ``mistakes`` player's rows.

Each row of that player holds, in its ``review`` column, one JSON object per
rung (:data:`sim.solver.mistakes.RUNGS`): whether the rung won, and where it
lost a deal the solver won, the move number of its first mistake (the move
from a winnable position to a lost one), the cards home before it, the kind
of move it was (``sim/solver/mistakes.py`` defines the kinds) and how many
moves would have kept the deal there.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .stats import rows_of

MISTAKES = "mistakes"


def first_mistakes(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, deal, rung) of the mistakes player's rows, the deal's verdict beside it."""
    rows = rows_of(df, MISTAKES)
    cols = ["game", "seed", "deal", "verdict", "rung", "won", "first_mistake", "cards_home", "moves", "kind", "keeping", "unresolved"]
    if rows.empty or "review" not in rows.columns:
        return pd.DataFrame(columns=cols)
    out = []
    for game, seed, deal, result, review in rows[["game", "seed", "deal", "result", "review"]].itertuples(index=False):
        for r in json.loads(review or "[]"):
            out.append({"game": game, "seed": seed, "deal": deal, "verdict": result, "rung": r["rung"], "won": r["won"],
                        "first_mistake": r.get("first_mistake"), "cards_home": r.get("cards_home"), "moves": r.get("moves"),
                        "kind": r.get("kind"), "keeping": r.get("keeping"), "unresolved": r.get("unresolved") is not None})
    return pd.DataFrame(out, columns=cols)


def summary(m: pd.DataFrame) -> pd.DataFrame:
    """Per game and rung, over the winnable deals it lost: how many, where the first mistake came (move number and
    cards home: median and quartiles), and the commonest kind."""
    lost = m[(m.verdict == "won") & ~m.won]
    out = []
    for (game, rung), g in lost.groupby(["game", "rung"], sort=False):
        found = g.dropna(subset=["first_mistake"])
        q = lambda s: np.percentile(s, [25, 50, 75]) if len(s) else [np.nan] * 3  # noqa: E731
        mv, ch = q(found.first_mistake.astype(float)), q(found.cards_home.astype(float))
        kinds = found.kind.value_counts(normalize=True)
        out.append({"game": game, "rung": rung, "winnable lost": len(g), "found": len(found), "move q1": mv[0], "move": mv[1],
                    "move q3": mv[2], "cards home q1": ch[0], "cards home": ch[1], "cards home q3": ch[2],
                    "commonest kind": kinds.index[0] if len(kinds) else "", "its share": float(kinds.iloc[0]) if len(kinds) else np.nan})
    return pd.DataFrame(out)


def kinds(m: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """The share of each kind of first mistake, per rung (rows) over all games (columns: kinds in ``order``)."""
    found = m.dropna(subset=["kind"])
    t = pd.crosstab(found.rung, found.kind, normalize="index")
    return t.reindex(columns=[k for k in order if k in t.columns])
