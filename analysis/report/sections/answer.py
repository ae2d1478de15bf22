"""The first screen: how often each game of the study is winnable, whether Selective Castle is easier, and one figure."""

from __future__ import annotations

import pandas as pd

from ... import compare, designs, picks, plots, settling
from ...games import STUDY, colour, name
from ...winnability import PERFECT
from ..model import Report, Section


def answer(r: Report) -> Section:
    """Three winnability figures with their intervals, the paired verdict in a sentence, and the figure of every player."""
    study = [g for g in r.games if g in STUDY]
    rates = r.rates
    cards = []
    for game in study:
        e = r.estimates.get(game)
        if e is None:
            continue
        exact, source = r.exact_rows(game)
        unknowns = int(settling.status(exact[designs.exact_mask(exact.player)], {}).unknown.sum()) if e.again else 0
        cards.append({"game": name(game), "colour": colour(game), "rate": e.estimate, "lo": e.lo, "hi": e.hi,
                      "deals": e.deals, "unknown": e.unknown, "design": "" if e.design == "plain" else e.design,
                      "again": e.again, "unknowns": unknowns,
                      "shipped": source != "this dataset", "published": r.published.get(game), "running": r.running(exact)})
    pairs = r.game_pairs
    verdicts = []
    for row in pairs[pairs.player == PERFECT].itertuples():
        a, b = row.comparison.split(" − ")
        verdicts.append({"a": a, "b": b, "deals": int(row.deals), "diff": row.diff, "lo": row.diff_low, "hi": row.diff_high,
                         "word": "easier than" if row.diff_low > 0 else "harder than" if row.diff_high < 0
                         else "not measurably different from"})
    heur = pairs[pairs.player != PERFECT]
    players = {"n": len(heur), "easier": int((heur.diff_low > 0).sum()), "harder": int((heur.diff_high < 0).sum())}
    players["same"] = players["n"] - players["easier"] - players["harder"]
    shown = rates[rates.game.isin(study)]
    figure = None
    if len(shown):
        fig = plots.headline(shown, r.rungs, study, names=r.names)
        figure = r.out.figure(fig, "answer", _caption(r, study))
    tables = _tables(r, study, pairs)
    used = picks.pick(study, r.rungs)  # (the cards flag their own runs)
    return Section("The answer", "answer.html.j2", {
        "cards": cards, "verdicts": verdicts, "players": players, "figure": figure, "tables": tables,
        "missing": [name(g) for g in STUDY if g not in r.games], "pairing": compare.PAIRING,
    }, incomplete=r.incomplete(cheap=used))


def _caption(r: Report, study: list[str]) -> str:
    """The figure's caption: which deals each row covers, so no row is compared with one on other deals."""
    spans = []
    for game in study:
        n, lo, hi = r.cheap.span(picks.pick([game], r.rungs)).iloc[0]
        if n:
            spans.append(f"{name(game)} {compare.span_text(int(n), int(lo), int(hi))}")
    where = "; ".join(spans)
    seeds = r.cheap.seeds(picks.pick(study, r.rungs))  # (the rows the figure draws)
    return ("Win rate by player, weakest at the top, and under perfect play, per game, with 95% intervals; logit scale. "
            + (f"Every row on the same deals (seed {', '.join(map(str, seeds))}: {where}); perfect play on those deals too, "
               "so it bounds every player." if where else "Perfect play on every deal solved."))


def _tables(r: Report, study: list[str], pairs: pd.DataFrame) -> list:
    """The numbers behind the figure: every rung's win rate per game, and the games paired per rung (folded)."""
    rates = r.rates
    rows = r.rungs + [PERFECT]
    table = pd.DataFrame({"player": [r.name(p) for p in rows]})
    for game in study:
        g = rates[(rates.game == game) & ((rates.player != PERFECT) | (rates.scope == "played"))].set_index("player")
        if PERFECT not in g.index:
            g = rates[rates.game == game].drop_duplicates("player").set_index("player")
        table[name(game)] = [f"{100 * g.rate[p]:.2f}% [{100 * g.ci_low[p]:.2f}, {100 * g.ci_high[p]:.2f}]"
                             if p in g.index else "" for p in rows]
    out = [r.out.table(table, "answer_win_rates", raw=rates, fold=True,
                       summary="The numbers behind the figure: win rates with 95% intervals")]
    if len(pairs):
        shown = pd.DataFrame({"comparison": pairs.comparison, "player": [r.name(p) for p in pairs.player], "deals": pairs.deals,
                              "difference (points)": [f"{100 * d:+.2f} [{100 * lo:+.2f}, {100 * hi:+.2f}]"
                                                      for d, lo, hi in zip(pairs["diff"], pairs.diff_low, pairs.diff_high)]})
        out.append(r.out.table(shown, "answer_paired", left=2, raw=pairs, fold=True,
                               summary="Selective Castle minus the others, paired by deal, per player"))
    return out
