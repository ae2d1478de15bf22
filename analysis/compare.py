"""The study's comparisons: every player's win rate beside perfect play, and the games compared deal by deal.

What is paired: two rows are the same deal when they share the seed and the
deal number, that is the same shuffled deck. Selective Castle and Streets
and Alleys deal that deck into the same tableau; Beleaguered Castle takes
the four Aces out to the foundations and deals the other 48 cards, in the
deck's order, into 8 piles of 6, so its tableau differs but its deck does
not. Games are compared deal by deal on the decks both played.

Perfect play combines every solver run of a deal by one rule
(:func:`analysis.ladder.verdicts`): won if any run won it, lost if any
proved it lost, unknown only if every run left it unknown.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from . import picks, scan, winnability
from .games import BELEAGUERED, SELECTIVE, STREETS, STUDY, name

PERFECT = winnability.PERFECT

#: said wherever games are compared deal by deal
PAIRING = ("paired by deal: the same seed and deal number, that is the same shuffled deck (Selective Castle and Streets "
           "and Alleys deal it into the same tableau; Beleaguered Castle takes the Aces out first, so its tableau differs)")


def holm(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with ``p_holm``: its ``p`` column adjusted for the rows' number (Holm's step-down method)."""
    table = table.copy()
    table["p_holm"] = multipletests(table.p, method="holm")[1] if len(table) else []
    return table


def headline_players(held: pd.DataFrame, players: list[str]) -> list[str]:
    """The players the answer shows: those that played two games of the study or more (the ladder's rungs, not
    the variants of one game's experiments), in the order of ``players``; all of them when none did.

    ``held``: each (game, heuristic player) held (:meth:`analysis.scan.CheapRows.pairs`), or the rows themselves.
    """
    if "deals" not in held.columns:
        held = scan.as_rows(held).pairs()
    study = held[held.game.isin(STUDY)]
    games = study.groupby("player").game.nunique()
    many = [p for p in players if games.get(p, 0) >= 2]
    return many or [p for p in players if p in games.index]


def rates(rows, solver: pd.DataFrame, players: list[str] | None = None) -> pd.DataFrame:
    """Win rate of every heuristic player per game, and perfect play per game: on all its solved deals (``player``
    :data:`PERFECT`), and, when ``players`` is given, on the deals those players played (``scope`` = ``played``).

    Comparing a player with perfect play is fair only on the same deals: the second row is the one to set
    beside the players. ``rows``: the players' rows (a frame, or :class:`analysis.scan.CheapRows`).
    """
    rows = scan.as_rows(rows)
    out = winnability.rates_with_perfect_play(rows, solver).assign(scope="all")
    if players and len(solver):
        played = rows.which(solver[["game", "seed", "deal"]], picks.pick(players=players))
        same = solver.merge(played, on=["game", "seed", "deal"])
        if len(same):
            w = winnability.winnability(same).assign(player=PERFECT, scope="played")
            out = pd.concat([out, w[out.columns.drop("scope").tolist() + ["scope"]]], ignore_index=True)
    return out


def deal_span(df: pd.DataFrame) -> str:
    """The deals of ``df`` in words: ``deals 1-2,000`` when they run without a gap, else their count and range."""
    deals = np.unique(df.deal.to_numpy())
    return span_text(len(deals), int(deals[0]) if len(deals) else 0, int(deals[-1]) if len(deals) else 0)


def span_text(n: int, lo: int, hi: int) -> str:
    """:func:`deal_span` of deals already counted: ``n`` distinct deal numbers from ``lo`` to ``hi``."""
    if not n:
        return "no deals"
    if hi - lo + 1 == n:
        return f"deals {lo:,}-{hi:,}"
    return f"{n:,} deals between {lo:,} and {hi:,}"


def game_pairs(rows, solver: pd.DataFrame, players: list[str]) -> pd.DataFrame:
    """Selective Castle minus each other game of the study, for each of ``players`` and under perfect play, paired by deal.

    Columns: comparison, player, deals, diff, diff_low, diff_high (Newcombe's; under perfect play the outer bounds
    with the unknowns counted both ways, :func:`analysis.stats.paired_both_ways`), p (McNemar; none under perfect
    play, where the table is the solver's).
    """
    rows = scan.as_rows(rows)
    out = []
    games = set(rows.pairs().game) | set(solver.game)
    for other in (STREETS, BELEAGUERED):
        if SELECTIVE not in games or other not in games:
            continue
        label = f"{name(SELECTIVE)} − {name(other)}"
        for player in players:
            pr = scan.pair(rows, (SELECTIVE, player), (other, player))
            if pr is not None:
                out.append({"comparison": label, "player": player, "deals": pr.deals, "diff": pr.diff,
                            "diff_low": pr.diff_low, "diff_high": pr.diff_high, "p": pr.p_value})
        pp = winnability.perfect_play_pair(solver, SELECTIVE, other)
        if pp is not None:
            out.append({"comparison": label, "player": PERFECT, "deals": pp.deals, "diff": pp.diff, "diff_low": pp.diff_low,
                        "diff_high": pp.diff_high, "p": np.nan})
    return pd.DataFrame(out, columns=["comparison", "player", "deals", "diff", "diff_low", "diff_high", "p"])


def across_games(rows, players: list[str]) -> pd.DataFrame:
    """Each player in two games of the study, deal by deal (McNemar, Holm-adjusted over the rows; Newcombe's interval)."""
    rows = scan.as_rows(rows)
    out = []
    for player in players:
        for a, b in ((SELECTIVE, STREETS), (SELECTIVE, BELEAGUERED), (STREETS, BELEAGUERED)):
            pr = scan.pair(rows, (a, player), (b, player))
            if pr is not None:
                out.append({"player": player, "a": a, "b": b, "comparison": f"{name(a)} − {name(b)}", "deals": pr.deals,
                            "diff": pr.diff, "diff_low": pr.diff_low, "diff_high": pr.diff_high, "p": pr.p_value})
    return holm(pd.DataFrame(out, columns=["player", "a", "b", "comparison", "deals", "diff", "diff_low", "diff_high", "p"]))


def within_games(rows, games: list[str], players: list[str]) -> pd.DataFrame:
    """In each game, each of ``players`` (weakest first) against the next weaker one that played it, deal by deal."""
    rows = scan.as_rows(rows)
    held = rows.pairs()
    out = []
    for game in games:
        here = set(held.player[held.game == game])
        ps = [p for p in players if p in here]
        for weak, strong in zip(ps, ps[1:]):
            pr = scan.pair(rows, (game, strong), (game, weak))
            if pr is not None:
                out.append({"game": game, "player": strong, "weaker": weak, "deals": pr.deals, "diff": pr.diff,
                            "diff_low": pr.diff_low, "diff_high": pr.diff_high, "p": pr.p_value})
    return holm(pd.DataFrame(out, columns=["game", "player", "weaker", "deals", "diff", "diff_low", "diff_high", "p"]))
