"""Selective Castle's base: how many bases win a deal, a fixed base for every deal, the players' choices; the advice, tested."""

from __future__ import annotations

import pandas as pd

from sim.core.cards import RANKS

from ... import advice as advice_stats
from ... import picks, plots, stats, winnability
from ...games import SELECTIVE
from ..model import Report, Section
from ..page import diff_interval, interval, pct


def base_rank(r: Report) -> Section | None:
    """The solver's verdict for every base rank, and the base ranks the players founded."""
    solver, source = r.solver_rows(SELECTIVE)
    has_bases = "bases_won" in solver.columns and solver.bases_won.notna().any()
    chosen = picks.pick([SELECTIVE], has=["base_rank"])
    rates = r.cheap.counts(["game", "player", "base_rank"], chosen)
    if not has_bases and rates.empty:
        return None
    context: dict = {}
    per_base = solver.iloc[:0]
    if has_bases:
        per_base = solver[solver.bases_won.notna()]
        both = pd.concat([solver, r.cheap.rows_on(per_base[["seed", "deal"]], chosen)])
        counts = winnability.bases_per_deal(both, SELECTIVE)
        fixed = winnability.fixed_base_rates(both, SELECTIVE)
        best, overlapping = winnability.best_fixed_base(fixed)
        hits = winnability.chosen_base_hits(both, SELECTIVE)
        chosen_rate = 1 - float(counts.loc[counts.winning_bases == 0, "share"].sum())
        context.update({
            "deals": int(counts.deals.sum()), "source": source if source != "this dataset" else "",
            "best": best, "overlapping": overlapping, "chosen_rate": chosen_rate,
            "counts_figure": r.out.figure(plots.bases_per_deal(counts), "bases_per_deal", "How many of the 13 base ranks win a deal"),
            "fixed": r.out.table(pd.DataFrame({"base": fixed.base, "deals": fixed.deals, "won": fixed.won, "unknown": fixed.unknown,
                                               "win rate if always chosen": [pct(x) for x in fixed.rate],
                                               "95% interval": [interval(a, b) for a, b in zip(fixed.ci_low, fixed.ci_high)]}),
                                 "fixed_bases", raw=fixed, summary="The fixed bases as a table", fold=True),
            "fixed_figure": r.out.figure(plots.fixed_bases(fixed, chosen_rate), "fixed_bases",
                                         "Win rate under perfect play if one base rank were chosen for every deal, "
                                         "and with the base chosen per deal"),
        })
        if len(hits):
            context["hits"] = r.out.table(pd.DataFrame({
                "player": [r.name(p) for p in hits.player], "deals": hits.deals, "winning base chosen": hits.winning_choice,
                "share": [pct(x) for x in hits.share], "95% interval": [interval(a, b) for a, b in zip(hits.ci_low, hits.ci_high)]}),
                "chosen_bases", raw=hits, summary="How often each player's base is a winning one")
    if len(rates):
        rates = stats.rates_of_counts(rates.assign(base_rank=rates.base_rank.astype(int)), ["game", "player", "base_rank"])
        if len(rates):
            order = {p: i for i, p in enumerate(r.players)}
            rates = rates.assign(_o=rates.player.map(order)).sort_values(["_o", "base_rank"]).drop(columns="_o")
            rates.assign(base=[RANKS[int(b)] for b in rates.base_rank]).to_csv(r.out.out / "tables" / "base_ranks_played.csv", index=False)
            context["played_figure"] = r.out.figure(plots.base_heatmap(rates, r.names), "base_ranks_played",
                                                    "Win rate by the base rank a player founded (the number in each cell, %)")
            context["played_csv"] = "tables/base_ranks_played.csv"
    return Section("Selective Castle: the base rank", "base_rank.html.j2", context, incomplete=r.incomplete(per_base, chosen))


def advice(r: Report) -> Section | None:
    """The rule sheet's advice, tested: each piece switched off, paired by deal with the player that follows it."""
    e = advice_stats.effects(r.cheap, SELECTIVE)
    if e.empty:
        return None
    shown = pd.DataFrame({"player": [r.name(p) for p in e.player], "advice switched off": e["advice switched off"], "deals": e.deals,
                          "with": [pct(x) for x in e["with advice"]], "without": [pct(x) for x in e.without],
                          "effect (points)": [diff_interval(d, lo, hi) for d, lo, hi in zip(e.effect, e.effect_low, e.effect_high)],
                          "p (Holm)": [stats.p_text(p) for p in e.p_holm]})
    t = e.rename(columns={"effect": "diff", "effect_low": "diff_low", "effect_high": "diff_high"})
    t["label"] = list(e["advice switched off"])
    t["panel"] = [r.name(p) for p in e.player]
    fig = plots.forest(t, "label", "panel", xlabel="win rate with the advice minus without (points, paired by deal, 95% interval)")
    rows = picks.pick([SELECTIVE], sorted(set(e.player) | set(e.variant)))
    return Section("The advice, tested", "advice.html.j2", {
        "table": r.out.table(shown, "advice", left=2, raw=e, fold=False),
        "figure": r.out.figure(fig, "advice", "What each piece of advice is worth, per player; a filled dot where McNemar's "
                               "test, Holm-adjusted, is below 0.05")}, incomplete=r.incomplete(cheap=rows))
