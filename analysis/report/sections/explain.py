"""Why a deal is hard, before any search: the shipped models of ``castle explain``, their quality on held-out deals."""

from __future__ import annotations

import pandas as pd

from ... import explain as explain_analysis
from ... import explain_plots
from ...games import name
from ..model import Report, Section


def explain(r: Report) -> Section | None:
    from sim.explain import model as explain_model

    games = [g for g in r.games if explain_model.model_path(g).exists()]
    if not games:
        return None
    t = explain_analysis.model_table(games)

    def auc(v) -> str:
        return "" if pd.isna(v) else f"{v:.3f}"

    learned = t[t["AUC"].notna()]
    shown = pd.DataFrame({
        "game": [name(g) for g in t.game],
        "held-out deals (won / lost)": [f"{n:,} ({wl})" for n, wl in zip(t["held-out deals"], t["won / lost"])],
        "the layout alone": [auc(v) for v in t["layout alone AUC"]],
        "+ greedy, strategist, lookahead": [auc(v) for v in t["no beam AUC"]],
        "+ a quick beam (the model)": [auc(v) if m == "lightgbm" else "every deal won: no model" for v, m in zip(t["AUC"], t.model)],
        "calibration error": [f"{v:.3f}" for v in t["ECE"]],
        "CPU ms a deal": ["" if pd.isna(a) else f"{a + b:.1f}" for a, b in zip(t["features ms"], t["model ms"])],
    })
    return Section("Why a deal is hard, before any search", "explain.html.j2", {
        "figure": r.out.figure(explain_plots.plot_quality(t), "explain_quality",
                               "How well each game's model tells won deals from lost ones it never saw") if len(learned) else None,
        "table": r.out.table(shown, "explain_quality", left=2, raw=t, fold=False),
    })
