"""Precision by design: each exact run's estimate in its design, what it cost, and what the precision of Solvitaire's
2,000,000 deals would cost in it."""

from __future__ import annotations

import math

import pandas as pd

from ... import designs, plots, settling, solvitaire
from ...games import name
from ...stats import named, player_name, rows_of
from ...winnability import PUBLISHED, PUBLISHED_DEALS, PUBLISHED_EFFORT
from ..model import Report, Section
from ..page import interval, pct, points


def precision(r: Report) -> Section | None:
    """Only where a game has a run in another design than plain (the solver in phases): its runs side by side."""
    rows, used, games = [], [], []
    for game in r.games:
        exact, _ = r.exact_rows(game)
        if not named(exact.player, designs.PHASED).any():
            continue
        used.append(exact)
        games.append(game)
        again = rows_of(exact, designs.SETTLE)
        flying = settling.running(r.manifests, again)
        runs = [(designs.estimate(g, game, str(label)), g) for label, g in exact.groupby("player", observed=True)
                if player_name(label) != designs.SETTLE]
        status = settling.status(exact, r.manifests)
        for e, g in runs + [(r.estimates[game], None)]:
            # the whole interval's cost: a phased design's unknowns solved again at the share measured so far, and with
            # the deals still being solved counted as never settling
            c = (settling.whole_interval_hours(e, g, again if e.design != "plain" else again.iloc[:0],
                                               flying[flying.game == game] if e.design != "plain" else None)
                 if g is not None else None)
            rows.append({"game": name(game), "run": r.name(e.player) if e.player != "perfect play" else "all runs combined",
                         "design": settling.described(e, status), "deals": e.deals, "estimate": pct(e.estimate, 3),
                         "95% interval": interval(e.lo, e.hi, 3), "± points": f"{100 * e.half_width:.3f}",
                         "unknown share": pct(e.unknown, 3), "CPU-hours": f"{e.cpu_seconds / 3600:.2f}",
                         "CPU s a deal": f"{e.cpu_per_deal:.3f}", "variance a deal": f"{e.per_deal:.3f}",
                         "CPU-hours to ±0.186": f"{e.cpu_hours_to():,.1f}",
                         "whole interval": "" if c is None else _whole(c)})
    if not rows:
        return None
    # (only the columns the unknowns' table and the completeness notes read: the phased runs' million rows copied whole
    # were the report's peak of memory)
    exact = pd.concat([u[[c for c in _READ if c in u.columns]] for u in used])
    again = solved_again(exact, r.manifests)
    return Section("Precision by design", "precision.html.j2",
                   {"figure": _against_published(r, games), "test": _test(r),
                    "table": r.out.table(pd.DataFrame(rows), "precision", left=3, fold=False),
                    "again": r.out.table(again, "solved-again", left=2, fold=False) if len(again) else None},
                   incomplete=r.incomplete(exact))


#: the columns of the exact runs :func:`solved_again` and :meth:`Report.incomplete` read
_READ = ("game", "player", "seed", "deal", "result", "left", "cpu_us", "dataset")


def _whole(c: settling.SettleCost) -> str:
    """The whole interval's CPU-hours; a range when some unknowns were still being solved (left out, or never settling)."""
    def h(x: float) -> str:
        return "out of reach" if math.isinf(x) else f"{x:,.1f}"
    return h(c.hours) if not c.running else f"{h(c.hours)} to {h(c.hours_worst)} ({c.running} still being solved)"


def solved_again(exact: pd.DataFrame, manifests: dict) -> pd.DataFrame:
    """Per game and run, the deals left unknown at the full budget, how many were solved again deeper (the ``settle``
    player) and what that found, and which were still being solved when the rows were taken."""
    st = settling.status(exact, manifests)
    st = st[st.unknown > 0]
    return pd.DataFrame({"game": [name(g) for g in st.game], "run": st.run, "unknown at the full budget": st.unknown,
                         "solved again": st.solved, "won": st.won, "lost": st.lost, "still unknown": st.still,
                         "being solved": [", ".join(map(str, x)) for x in st.running]})


def _test(r: Report):
    """Each game against Solvitaire as a test (:func:`analysis.solvitaire.against`), as a table."""
    t = solvitaire.against(r.estimates)
    if t.empty:
        return None
    shown = pd.DataFrame({
        "game": [name(g) for g in t.game], "ours": [f"{pct(a, 3)} [{interval(b, c, 3)}]" for a, b, c in zip(t.ours, t.lo, t.hi)],
        "Solvitaire": [f"{pct(a, 3)} ± {100 * b:.3f}" for a, b in zip(t.theirs, t.their_half)],
        "difference (points)": [f"{points(d, 3)} [{points(a, 3)}, {points(b, 3)}]" for d, a, b in zip(t["diff"], t.diff_low, t.diff_high)],
        "z": [f"{z:+.2f}" for z in t.z], "p (two-sided)": [f"{p:.3f}" for p in t.p], "p (Holm)": [f"{p:.3f}" for p in t.p_holm],
        "the unknowns could move it by": [f"±{100 * m:.3f} (z {a:+.2f} to {b:+.2f})" for m, a, b in zip(t.moved, t.z_low, t.z_high)],
        "rules": ["Solvitaire's preset" if not d else "differ: " + ", ".join(d) for d in t.differences]})
    return r.out.table(shown, "against_solvitaire", left=1, raw=t.drop(columns="differences"), fold=False)


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
