"""What the verdicts cost: CPU per deal for each solver run, and the unknowns a smaller budget would leave."""

from __future__ import annotations

import pandas as pd

from ... import effort as solver_effort
from ... import plots
from ...games import in_study_order, name
from ..model import Report, Section
from ..page import pct


def effort(r: Report) -> Section | None:
    """Per solver run (not combined: each run's own verdicts and CPU), so its counts are the run's, and a game two runs
    solved has two rows."""
    if r.solver.empty:
        return None
    e = solver_effort.effort(r.solver)
    order = {g: i for i, g in enumerate(in_study_order(e.game))}
    e = e.assign(_o=e.game.map(order)).sort_values(["_o", "player"], kind="stable").drop(columns="_o")
    runs = []
    for (game, player), g in e.groupby(["game", "player"], sort=False):
        counts = g.set_index("verdict").deals
        total = int(counts.sum())
        mean = float((g.cpu_s_mean * g.deals).sum() / total)
        runs.append({"game": name(game), "run": r.name(player), "deals": total,
                     "won / lost / unknown": " / ".join(f"{int(counts.get(k, 0)):,}" for k in ("won", "lost", "unknown")),
                     "CPU s a deal": f"{mean:.3f}", "slowest deal (s)": f"{g.cpu_s_max.max():.1f}"})
    u = solver_effort.unknown_by_budget(r.solver)
    u = u.assign(_o=u.game.map(order)).sort_values(["_o", "player"], kind="stable").drop(columns="_o")
    cols = [c for c in u.columns if c.endswith(" s")] + ["at the cap"]
    shown = u.assign(game=[name(g) for g in u.game], player=[r.name(p) for p in u.player]).rename(
        columns={"player": "run", "cpu_s_mean": "CPU s a deal"})
    formats = {c: (lambda v: "" if pd.isna(v) else pct(v, 2)) for c in cols} | {"CPU s a deal": lambda v: f"{v:.2f}"}
    by_verdict = pd.DataFrame({"game": [name(g) for g in e.game], "run": [r.name(p) for p in e.player], "verdict": e.verdict,
                               "deals": e.deals, "CPU s mean": [f"{x:.3f}" for x in e.cpu_s_mean],
                               "median": [f"{x:.3f}" for x in e.cpu_s_median], "p90": [f"{x:.2f}" for x in e.cpu_s_p90],
                               "max": [f"{x:.1f}" for x in e.cpu_s_max]})
    return Section("Effort", "effort.html.j2", {
        "runs": r.out.table(pd.DataFrame(runs), "effort_runs", left=2, fold=False),
        "budget": r.out.table(shown, "unknown_by_budget", formats=formats, left=2, raw=u, fold=False),
        "by_verdict": r.out.table(by_verdict, "effort", left=3, raw=e, summary="CPU per deal by run and verdict"),
        "figure": r.out.figure(plots.unknown_by_budget(u, names=r.names), "unknown_by_budget",
                               "The share of deals each solver run leaves unsettled within a budget of CPU seconds"),
    }, incomplete=r.incomplete(r.solver))
