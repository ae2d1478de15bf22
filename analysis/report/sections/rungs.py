"""The ladder of players: each rung's strength against its cost, a deal's difficulty as the weakest rung that wins it,
how the estimates converge, and how far lost games got."""

from __future__ import annotations

import pandas as pd

from ... import compare, conventions, difficulty_plots, ladder, picks, plots, stats
from ...games import SELECTIVE, STREETS, STUDY, name
from ...winnability import PERFECT
from ..model import Report, Section
from ..page import interval, pct


def ladder_section(r: Report) -> Section | None:
    """The rungs are the players of two study games or more (as in the answer): the variants of one game's
    experiments (the advice's) are not rungs, and a game only one rung played has no ladder."""
    if len(r.ladder_order) < 2:
        return None
    heur = r.ladder_pick
    t = ladder.ladder_table(r.cheap.only(heur), r.verdicts, r.ladder_order)
    shown = pd.DataFrame({
        f"rung ({conventions.LADDER_RULE})": [r.name(p) for p in t.player], "game": [name(g) for g in t.game], "deals": t.deals,
        "win rate": [pct(x) for x in t.rate],
        "winnable won": [pct(x) if not pd.isna(x) else "n/a" for x in t.share_of_winnable],
        "95% interval": [interval(a, b) for a, b in zip(t.share_ci_low, t.share_ci_high)],
        "CPU ms mean": [f"{x:.1f}" for x in t.cpu_ms_mean], "median": [f"{x:.1f}" for x in t.cpu_ms_median],
        "p90": [f"{x:.1f}" for x in t.cpu_ms_p90]})
    games = [g for g in r.games if (t.game == g).any()]
    swaps = ladder.swaps(r.ladder_strength)
    own = ("each game's own order, which its deals' difficulty uses, is this one but where "
           + "; ".join(f"{name(g)} ranks " + ", ".join(f"{r.name(a)} below {r.name(b)}" for a, b in pairs) for g, pairs in swaps.items())
           + "." if swaps else "each game's own order, which its deals' difficulty uses, is the same.")
    context = {
        "rule": conventions.LADDER_RULE, "own": own,
        "span": compare.span_text(*map(int, r.cheap.span(heur).iloc[0])),
        "figure": r.out.figure(difficulty_plots.ladder(t, games, r.colours, names=r.names), "ladder",
                               "Each rung: share of the solver's winnable deals won against mean CPU per deal, 95% intervals"),
        "table": r.out.table(shown, "ladder", left=2, raw=t, summary="Every rung in every game: win rate, winnable deals won, CPU"),
    }
    diff = r.difficulty
    if len(diff):
        shares = ladder.difficulty_shares(diff, r.ladder_order)
        shares = shares[[g for g in r.games if g in shares.columns]]
        table = shares.reset_index()
        table["difficulty"] = [r.name(str(c)) for c in table.difficulty]
        context["difficulty"] = r.out.table(table.rename(columns={g: name(g) for g in shares.columns}), "difficulty",
                                            formats={name(g): pct for g in shares.columns}, raw=shares.reset_index(), fold=False)
        context["difficulty_figure"] = r.out.figure(difficulty_plots.difficulty(shares, r.colours, names=r.names), "difficulty",
                                                    "Share of deals at each difficulty, per game (the same deals in every game)")
        if SELECTIVE in shares.columns and STREETS in shares.columns:
            cross = r.difficulty_pairs(SELECTIVE, STREETS)
            cross = cross.loc[cross.sum(axis=1) > 0, cross.sum() > 0]
            cross.index = [r.name(str(c)) for c in cross.index]
            cross.columns = [r.name(str(c)) for c in cross.columns]
            context["paired"] = r.out.table(cross.reset_index(names="Selective \\ Streets"), "difficulty_paired",
                                            summary="The same deals in both games: Selective Castle's difficulty (rows) "
                                                    "against Streets and Alleys' (columns), counts")
    return Section("The ladder of players", "ladder.html.j2", context, incomplete=r.incomplete(cheap=heur))


def convergence(r: Report) -> Section | None:
    """How the estimates settle as deals accumulate, one panel per game of the study, for its rungs."""
    games = [g for g in r.games if g in STUDY] or r.games
    frames = [r.cheap.convergence(picks.pick(games, r.rungs))]
    for game in games:
        s, _ = r.solver_rows(game)
        if len(s):
            v = ladder.verdicts(s)
            perfect = pd.DataFrame({"game": game, "player": PERFECT, "seed": v.seed, "deal": v.deal, "result": v.verdict})
            frames.append(stats.convergence(perfect))
    conv = pd.concat([f for f in frames if len(f)], ignore_index=True) if any(len(f) for f in frames) else pd.DataFrame()
    if len(conv):
        conv = conv.sort_values(["game", "player"], kind="stable").reset_index(drop=True)
    if conv.empty or conv.deals.max() < 400:
        return None
    conv.to_csv(r.out.out / "tables" / "convergence.csv", index=False)
    fig = plots.convergence(conv, games, r.rungs, colours=r.colours, names=r.names)
    return Section("How the estimates converge", "figure_only.html.j2", {
        "figure": r.out.figure(fig, "convergence", "Running win rate and its 95% interval as deals accumulate (from 200 deals on)"),
        "csv": "tables/convergence.csv"})


def cards_home(r: Report) -> Section | None:
    """How far the rungs got in the games they lost, in every game they played."""
    lost = r.cheap.histogram("cards_home", ["game", "player"], picks.pick(players=r.rungs, not_won=True))
    games = [g for g in r.games if (lost.game == g).any()]
    if not games:
        return None
    fig = plots.cards_home(lost, games, r.rungs, colours=r.colours, names=r.names)
    return Section("Games not won: how far they got", "figure_only.html.j2", {
        "figure": r.out.figure(fig, "cards_home", "Cards home when a game was not won, per game and player (each panel's "
                               "curves are shares of that player's games not won)")})
