"""Precision by design: each exact run's estimate in its design, what it cost, and what the precision of Solvitaire's
2,000,000 deals would cost in it."""

from __future__ import annotations

import pandas as pd

from ... import designs
from ...games import name
from ..model import Report, Section
from ..page import interval, pct


def precision(r: Report) -> Section | None:
    """Only where a game has a run in another design than plain (the solver in phases): its runs side by side."""
    rows, used = [], []
    for game in r.games:
        exact, _ = r.exact_rows(game)
        if exact.empty or not exact.player.astype(str).str.startswith(designs.PHASED).any():
            continue
        used.append(exact)
        runs = [designs.estimate(g, game, str(label)) for label, g in exact.groupby("player", observed=True)]
        for e in runs + [r.estimates[game]]:
            rows.append({"game": name(game), "run": r.name(e.player) if e.player != "perfect play" else "all runs combined",
                         "design": e.design, "deals": e.deals, "estimate": pct(e.estimate, 3),
                         "95% interval": interval(e.lo, e.hi, 3), "± points": f"{100 * e.half_width:.3f}",
                         "unknown share": pct(e.unknown, 3), "CPU-hours": f"{e.cpu_seconds / 3600:.2f}",
                         "CPU s a deal": f"{e.cpu_per_deal:.3f}", "variance a deal": f"{e.per_deal:.3f}",
                         "CPU-hours to ±0.186": f"{e.cpu_hours_to():,.1f}"})
    if not rows:
        return None
    return Section("Precision by design", "precision.html.j2",
                   {"table": r.out.table(pd.DataFrame(rows), "precision", left=3, fold=False)},
                   incomplete=r.incomplete(pd.concat(used)))
