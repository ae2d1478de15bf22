"""Perfect play: each game's winnability, the games deal by deal, the containment laws, the independent-bases misreading."""

from __future__ import annotations

import pandas as pd

from ... import compare, winnability
from ...games import BELEAGUERED, INDEPENDENT, SELECTIVE, STREETS, in_study_order, name
from ..model import Report, Section
from ..page import interval, pct

#: containment laws of the rule sheet: a deal won in the first game (or dialect) is won in the second. A supermove is a
#: macro of single moves, so single-card play and supermoves win the same deals (both ways); PySol's sequence moves
#: only add moves to Selective Castle's
LAWS = ((STREETS, SELECTIVE), (SELECTIVE, INDEPENDENT), (SELECTIVE, f"{SELECTIVE}@pysol"),
        (STREETS, f"{STREETS}@supermoves"), (f"{STREETS}@supermoves", STREETS),
        (BELEAGUERED, f"{BELEAGUERED}@supermoves"), (f"{BELEAGUERED}@supermoves", BELEAGUERED))


def winnability_table(r: Report) -> Section | None:
    """Each game's winnability with its interval, beside the published figures where there are some."""
    if r.solver.empty:
        return None
    w = winnability.winnability(r.solver)
    w = w.set_index("game").loc[in_study_order(w.game)].reset_index()
    runs = r.solver.groupby("game", observed=True).player.nunique()
    shown = pd.DataFrame({
        "game": [name(g) for g in w.game], "deals": w.deals, "won": w.won, "lost": w.lost, "unknown": w.unknown,
        "solver runs": [int(runs.get(g, 0)) for g in w.game],
        "winnable": [pct(x, 3) for x in w.rate], "95% interval (unknowns both ways)": [interval(a, b, 3) for a, b in zip(w.ci_low, w.ci_high)],
        "± points": [f"{100 * h:.3f}" for h in w.half_width],
        "Solvitaire (Blake & Gent)": ["" if pd.isna(p) else f"{100 * p:.3f}% ± {100 * h:.3f}" for p, h in zip(w.published, w.published_half_width)],
    })
    return Section("Winnability under perfect play", "winnability.html.j2",
                   {"table": r.out.table(shown, "winnability", raw=w, fold=False)}, incomplete=r.incomplete(r.solver))


def deal_by_deal(r: Report) -> Section | None:
    """Selective Castle against Streets and Alleys and Beleaguered Castle, deal by deal, under perfect play."""
    if not r.perfect_pairs:
        return None
    pairs = []
    for a, b, pp in r.perfect_pairs:
        t = pp.table.reset_index(names=f"{name(a)} \\ {name(b)}")
        pairs.append({"a": name(a), "b": name(b), "pp": pp, "table": r.out.table(t, f"perfect-{a}-{b}", fold=False),
                      "containment": (a, b) == (SELECTIVE, STREETS), "broken": ", ".join(map(str, pp.a_lost_b_won[:30])) or "none"})
    rows = pd.concat([r.solver[r.solver.game.isin([a, b])] for a, b, _ in r.perfect_pairs])
    return Section("Selective Castle against the others, deal by deal", "deal_by_deal.html.j2",
                   {"pairs": pairs, "pairing": compare.PAIRING}, incomplete=r.incomplete(rows))


def containment(r: Report) -> Section | None:
    """The containment laws, checked on every deal both sides' solver settled: any deal that breaks one is listed."""
    rows = []
    for weaker, stronger in LAWS:
        c = winnability.containment(r.solver, weaker, stronger)
        if c is not None:
            rows.append({"law": f"{name(weaker)} won ⇒ {name(stronger)} won", "deals checked": c[0],
                         "deals that break it": ", ".join(map(str, c[1][:50])) or "none"})
    if not rows:
        return None
    return Section("Containment laws", "containment.html.j2", {"table": r.out.table(pd.DataFrame(rows), "containment", fold=False)})


def independent(r: Report) -> Section | None:
    """How much easier the common misreading (each foundation its own base) is than the shared base."""
    pp = winnability.perfect_play_pair(r.solver, INDEPENDENT, SELECTIVE)
    if pp is None:
        return None
    t = r.out.table(pp.table.reset_index(names=f"{name(INDEPENDENT)} \\ {name(SELECTIVE)}"), "independent", fold=False)
    return Section("The misreading: independent bases", "independent.html.j2",
                   {"pp": pp, "table": t, "broken": ", ".join(str(d) for d in pp.a_lost_b_won[:30]) or "none"})
