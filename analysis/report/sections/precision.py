"""Precision by design: each exact run's estimate in its design, what it cost, and what the precision of Solvitaire's
2,000,000 deals would cost in it."""

from __future__ import annotations

import math

import pandas as pd

from ... import designs, plots
from ...games import name
from ...stats import player_name, rows_of
from ...winnability import PUBLISHED, PUBLISHED_DEALS, PUBLISHED_EFFORT
from ..model import Report, Section
from ..page import interval, pct


def precision(r: Report) -> Section | None:
    """Only where a game has a run in another design than plain (the solver in phases): its runs side by side."""
    rows, used, games = [], [], []
    for game in r.games:
        exact, _ = r.exact_rows(game)
        if rows_of(exact, designs.PHASED).empty:
            continue
        used.append(exact)
        games.append(game)
        again = rows_of(exact, designs.SETTLE)
        runs = [(designs.estimate(g, game, str(label)), g) for label, g in exact.groupby("player", observed=True)
                if player_name(label) != designs.SETTLE]
        for e, g in runs + [(r.estimates[game], None)]:
            # the whole interval's cost: a phased design's unknowns solved again at the share measured so far
            whole = (designs.whole_interval_hours(e, g, again if e.design != "plain" else again.iloc[:0])[0]
                     if g is not None else math.nan)
            rows.append({"game": name(game), "run": r.name(e.player) if e.player != "perfect play" else "all runs combined",
                         "design": e.described, "deals": e.deals, "estimate": pct(e.estimate, 3),
                         "95% interval": interval(e.lo, e.hi, 3), "± points": f"{100 * e.half_width:.3f}",
                         "unknown share": pct(e.unknown, 3), "CPU-hours": f"{e.cpu_seconds / 3600:.2f}",
                         "CPU s a deal": f"{e.cpu_per_deal:.3f}", "variance a deal": f"{e.per_deal:.3f}",
                         "CPU-hours to ±0.186": f"{e.cpu_hours_to():,.1f}",
                         "whole interval": "" if math.isnan(whole) else "out of reach" if math.isinf(whole) else f"{whole:,.1f}"})
    if not rows:
        return None
    again = solved_again(pd.concat(used))
    return Section("Precision by design", "precision.html.j2",
                   {"figure": _against_published(r, games),
                    "table": r.out.table(pd.DataFrame(rows), "precision", left=3, fold=False),
                    "again": r.out.table(again, "solved-again", left=1, fold=False) if len(again) else None},
                   incomplete=r.incomplete(pd.concat(used)))


def solved_again(exact: pd.DataFrame) -> pd.DataFrame:
    """Per game, the deals its exact runs left unknown at their full budget that were solved again deeper (the
    ``settle`` player), and what that found."""
    out = []
    for game, g in rows_of(exact, designs.SETTLE).groupby("game", observed=True, sort=False):
        res = g.result.astype(str)
        out.append({"game": name(str(game)), "solved again": f"{len(g):,}", "won": f"{int((res == 'won').sum()):,}",
                    "lost": f"{int((res == 'lost').sum()):,}", "still unknown": f"{int((res == 'unknown').sum()):,}",
                    "positions at most": f"{int(g.nodes.max()):,}" if "nodes" in g else "",
                    "CPU-minutes a deal (median)": f"{g.cpu_us.median() / 6e7:.1f}", "CPU-hours": f"{g.cpu_us.sum() / 3.6e9:.2f}"})
    return pd.DataFrame(out)


def _against_published(r: Report, games: list[str]):
    """The figure of each game's interval beside Solvitaire's, where it published one (None where none did)."""
    rows = []
    for game in games:
        if game not in PUBLISHED or game not in r.estimates:
            continue
        e = r.estimates[game]
        mid, half = PUBLISHED[game]
        rows += [{"game": game, "source": f"here: {e.deals:,} deals", "estimate": e.estimate, "lo": e.lo, "hi": e.hi,
                  "unknown": e.unknown},
                 {"game": game, "source": f"Solvitaire: {PUBLISHED_DEALS:,} deals", "estimate": mid / 100, "lo": (mid - half) / 100,
                  "hi": (mid + half) / 100, "unknown": PUBLISHED_EFFORT[game][0] / 100}]
    if not rows:
        return None
    return r.out.figure(plots.against_published(pd.DataFrame(rows)), "against_published",
                        "Each game's 95% interval under perfect play (thin) beside Solvitaire's (Blake & Gent), and the part "
                        "of it its unknowns make, counted both ways (thick): more deals narrow the rest, only solving the "
                        "unknowns narrows that")
