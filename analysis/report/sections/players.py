"""The players: every win rate, one player in two games, and each player against the next weaker one."""

from __future__ import annotations

import pandas as pd

from ... import compare, picks, plots, stats
from ...games import name
from ...winnability import PERFECT
from ..model import Report, Section
from ..page import diff_interval, interval, pct


def win_rates(r: Report) -> Section | None:
    """Every player's win rate per game, weakest first."""
    heur = r.rates[r.rates.player != PERFECT]
    if heur.empty:
        return None
    order = {p: i for i, p in enumerate(r.players)}
    heur = heur.assign(_o=heur.player.map(order), _g=heur.game.map({g: i for i, g in enumerate(r.games)})).sort_values(["_o", "_g"])
    spans = {(g, p): compare.span_text(int(n), int(lo), int(hi))
             for g, p, n, lo, hi in r.cheap.span(by=["game", "player"]).itertuples(index=False, name=None)}
    shown = pd.DataFrame({"player": [r.name(p) for p in heur.player], "game": [name(g) for g in heur.game],
                          "deals": [spans.get((g, p), "") for g, p in zip(heur.game, heur.player)], "won": heur.won,
                          "win rate": [pct(x) for x in heur.rate], "95% interval": [interval(a, b) for a, b in zip(heur.ci_low, heur.ci_high)]})
    return Section("Win rates of the players", "win_rates.html.j2",
                   {"table": r.out.table(shown, "win_rates", left=2, raw=heur.drop(columns=["_o", "_g"]),
                                         summary="Every player's win rate in every game it played")},
                   incomplete=r.incomplete(cheap=picks.ALL))


def across_games(r: Report) -> Section | None:
    """The same player in two games, deal by deal: the only comparison across games that measures the games."""
    t = compare.across_games(r.cheap, r.players)
    if t.empty:
        return None
    t["label"] = [r.name(p) for p in t.player]
    fig = plots.forest(t, "label", "comparison", xlabel="win rate in the first game minus in the second (points, paired by deal, 95% interval)")
    shown = pd.DataFrame({"player": t.label, "comparison": t.comparison, "deals": t.deals,
                          "difference (points)": [diff_interval(d, lo, hi) for d, lo, hi in zip(t["diff"], t.diff_low, t.diff_high)],
                          "p (Holm)": [stats.p_text(p) for p in t.p_holm]})
    return Section("One player, two games", "across_games.html.j2", {
        "figure": r.out.figure(fig, "across_games", "Each player's win rate in one game minus another, on the same deals, "
                               "weakest player at the top; a filled dot where McNemar's test, Holm-adjusted, is below 0.05"),
        "table": r.out.table(shown, "across_games", left=2, raw=t, summary="The differences as a table"),
        "pairing": compare.PAIRING})


def within_games(r: Report) -> Section | None:
    """Players within a game: each rung against the next weaker one, deal by deal (the advice's variants are compared
    with their own player in the advice section)."""
    t = compare.within_games(r.cheap, r.games, r.rungs)
    if t.empty:
        return None
    t["label"] = [f"{r.name(s)} − {r.name(w)}" for s, w in zip(t.player, t.weaker)]
    t["game_name"] = [name(g) for g in t.game]
    fig = plots.forest(t, "label", "game_name", xlabel="win rate of the stronger player minus the weaker (points, paired by deal, 95% interval)")
    shown = pd.DataFrame({"game": t.game_name, "comparison": t.label, "deals": t.deals,
                          "difference (points)": [diff_interval(d, lo, hi) for d, lo, hi in zip(t["diff"], t.diff_low, t.diff_high)],
                          "p (Holm)": [stats.p_text(p) for p in t.p_holm]})
    return Section("Players within a game", "within_games.html.j2", {
        "figure": r.out.figure(fig, "within_games", "Each player against the next weaker one in the same game, on the same deals; "
                               "a filled dot where McNemar's test, Holm-adjusted, is below 0.05"),
        "table": r.out.table(shown, "within_games", left=2, raw=t, summary="The differences as a table")})
