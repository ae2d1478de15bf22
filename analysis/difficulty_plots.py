"""Figures of how hard a deal is: the ladder of players, the weakest rung that wins a deal, the corridor's index, the
rungs' first mistakes. Each function returns a matplotlib Figure.

The report's difficulty sections and the difficulty notebook draw them,
with the conventions of :mod:`analysis.plots` (whose helpers they use):
games in their colours, rungs weakest first in theirs.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd

from . import palette
from .games import colour as game_colour
from .games import name as game_name
from .plots import legend_below, player_colours, whiskers


def _log_ms_axis(ax) -> None:
    """A log axis of milliseconds labelled at its powers of ten only (minor labels collide on a short axis)."""
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def ladder(table: pd.DataFrame, games: list[str], colours: dict[str, str] | None = None,
           names: dict[str, str] | None = None) -> plt.Figure:
    """Per game: each rung's share of the solver's winnable deals won against its CPU per deal (log scale).

    ``colours``: a player's colour (the report's, the same in every figure); by default one per rung.
    ``names``: a player's short name in the legend.
    """
    names = names or {}
    fig, axes = plt.subplots(1, len(games), figsize=(min(11.0, 3.7 * len(games)), 3.6), sharey=True, squeeze=False)
    colours = colours or player_colours(list(dict.fromkeys(table.player)))
    for ax, game in zip(axes[0], games):
        t = table[table.game == game]
        for _, row in t.iterrows():
            share = row.share_of_winnable if not pd.isna(row.share_of_winnable) else row.rate
            lo = row.share_ci_low if not pd.isna(row.share_of_winnable) else row.ci_low
            hi = row.share_ci_high if not pd.isna(row.share_of_winnable) else row.ci_high
            ax.errorbar([max(row.cpu_ms_mean, 1e-3)], [share * 100], yerr=whiskers([share], [lo], [hi]) * 100, fmt="o",
                        color=colours[row.player], capsize=2, label=names.get(row.player, row.player))
        _log_ms_axis(ax)
        ax.set_title(game_name(game), color=game_colour(game), fontsize=10)
        ax.set_xlabel("mean CPU per deal (ms, log scale)", fontsize=8.5)
        ax.grid(alpha=0.3, which="major")
    axes[0][0].set_ylabel("winnable deals won (%)")
    axes[0][0].set_ylim(-2, 102)
    legend_below(fig, axes[0], fontsize=8)
    return fig


def difficulty(shares: pd.DataFrame, colours: dict[str, str] | None = None, names: dict[str, str] | None = None) -> plt.Figure:
    """Stacked bars: each game's deals by difficulty (the weakest rung that wins them, then solver only, unknown, unwinnable).

    ``colours``: a rung's colour (the report's, the same in every figure); by default one per rung.
    """
    classes = list(shares.index)
    games = list(shares.columns)
    colours = colours or player_colours([c for c in classes[:-3]])
    extra = {"solver only": palette.PERFECT, "unknown": "#bbbbbb", "unwinnable": "#e8e8e8"}
    fig, ax = plt.subplots(figsize=(9, 0.7 * len(games) + 2.2))
    left = np.zeros(len(games))
    for c in classes:
        v = shares.loc[c].to_numpy(dtype=float) * 100
        ax.barh(range(len(games)), v, left=left, color=colours.get(c, extra.get(c, "#777777")), edgecolor="white",
                label=(names or {}).get(c, c))
        left += v
    ax.set_yticks(range(len(games)), [game_name(g) for g in games])
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of deals (%), the same deals in every game")
    ax.set_title("Difficulty: the weakest rung that wins a deal")
    ax.legend(fontsize=7.5, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.14 - 0.9 / (0.7 * len(games) + 2.2)),
              frameon=False)
    fig.tight_layout()
    return fig


def difficulty_index(rows: pd.DataFrame, games: list[str]) -> plt.Figure:
    """Each game's difficulty index over its winnable deals: a histogram per game, side by side on one scale."""
    won = rows[rows.result == "won"]
    top = float(np.nanpercentile(won.difficulty, 99.5)) if len(won) else 1.0
    bins = np.linspace(0, max(top, 1.0), 40)
    fig, axes = plt.subplots(1, len(games), figsize=(min(11.0, 3.7 * len(games)), 3.0), sharey=True, squeeze=False)
    for ax, game in zip(axes[0], games):
        d = won[won.game == game].difficulty.astype(float)
        if len(d):
            ax.hist(d.clip(upper=bins[-1]), bins=bins, weights=np.full(len(d), 100 / len(d)), color=game_colour(game), alpha=0.85)
            ax.axvline(float(d.median()), color="#222222", lw=1, ls="--")
            ax.text(0.97, 0.95, f"median {d.median():.1f} bits\n{len(d):,} winnable deals", transform=ax.transAxes, ha="right",
                    va="top", fontsize=7.5)
        ax.set_title(game_name(game), color=game_colour(game), fontsize=10)
        ax.set_xlabel("difficulty index (bits of luck)", fontsize=8.5)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("winnable deals (%)")
    fig.tight_layout()
    return fig


def difficulty_pairs(rows: pd.DataFrame, a: str, b: str) -> plt.Figure:
    """The same deals in two games: the index in one against the other (deals winnable in both)."""
    won = rows[rows.result == "won"].set_index(["seed", "deal"])
    x = won[won.game == a].difficulty
    y = won[won.game == b].difficulty
    j = pd.concat([x.rename("a"), y.rename("b")], axis=1, join="inner")
    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    ax.scatter(j.a, j.b, s=6, alpha=0.45, color="#444444", lw=0)
    top = float(max(j.a.max(), j.b.max())) if len(j) else 1.0
    ax.plot([0, top], [0, top], color="#999999", lw=1, ls="--")
    ax.set_xlabel(f"{game_name(a)} (bits)", color=game_colour(a))
    ax.set_ylabel(f"{game_name(b)} (bits)", color=game_colour(b))
    ax.set_title(f"The same deals, winnable in both ({len(j):,})", fontsize=9.5)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def difficulty_by_rung(rows: pd.DataFrame, games: list[str], names: dict[str, str] | None = None) -> plt.Figure:
    """The index of winnable deals by the ladder's weakest rung that wins them: a box per rung, a panel per game."""
    names = names or {}
    won = rows[(rows.result == "won") & (rows.rung != "")]
    fig, axes = plt.subplots(1, len(games), figsize=(min(11.0, 3.7 * len(games)), 3.6), sharey=True, squeeze=False)
    for ax, game in zip(axes[0], games):
        g = won[won.game == game]
        present = list(g.sort_values("rung_rank", kind="stable").rung.drop_duplicates())  # the game's own order
        data = [g[g.rung == r].difficulty.astype(float).to_numpy() for r in present]
        if data:
            ax.boxplot(data, orientation="vertical", showfliers=False, widths=0.6, medianprops={"color": game_colour(game)})
            ax.set_xticks(range(1, len(present) + 1), [names.get(r, r) for r in present], rotation=60, ha="right", fontsize=7)
        ax.set_title(game_name(game), color=game_colour(game), fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("difficulty index (bits)")
    fig.tight_layout()
    return fig


def first_mistakes(m: pd.DataFrame, games: list[str], rungs: list[str], names: dict[str, str] | None = None) -> plt.Figure:
    """Where the rungs' first mistakes come on the winnable deals they lost: the move number, a box per rung and game."""
    names = names or {}
    lost = m[(m.verdict == "won") & ~m.won].dropna(subset=["first_mistake"])
    present = [r for r in rungs if (lost.rung == r).any()]
    fig, axes = plt.subplots(1, len(games), figsize=(min(11.0, 3.7 * len(games)), 0.32 * len(present) + 1.3), sharey=True, squeeze=False)
    for ax, game in zip(axes[0], games):
        g = lost[lost.game == game]
        data = [g[g.rung == r].first_mistake.astype(float).to_numpy() for r in present]
        keep = [i for i, d in enumerate(data) if len(d)]
        if keep:
            ax.boxplot([data[i] for i in keep], positions=keep, orientation="horizontal", showfliers=False, widths=0.6,
                       medianprops={"color": game_colour(game)})
        ax.set_title(game_name(game), color=game_colour(game), fontsize=10)
        ax.set_xlabel("move of the first mistake", fontsize=8.5)
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].set_yticks(range(len(present)), [names.get(r, r) for r in present], fontsize=8)
    axes[0][0].set_ylim(len(present) - 0.5, -0.5)
    fig.tight_layout()
    return fig


def mistake_kinds(shares: pd.DataFrame, names: dict[str, str] | None = None) -> plt.Figure:
    """The kinds of first mistake, as shares of each rung's (stacked bars, a rung a row)."""
    names = names or {}
    colours = palette.KINDS
    fig, ax = plt.subplots(figsize=(9, 0.34 * len(shares) + 1.4))
    left = np.zeros(len(shares))
    for k, c in enumerate(shares.columns):
        v = shares[c].to_numpy(dtype=float) * 100
        ax.barh(range(len(shares)), v, left=left, color=colours[k % len(colours)], edgecolor="white", label=c)
        left += v
    ax.set_yticks(range(len(shares)), [names.get(r, r) for r in shares.index], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("first mistakes (%), all three games")
    ax.legend(fontsize=7.5, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.5 / (0.34 * len(shares) + 1.4)), frameon=False)
    fig.tight_layout()
    return fig


def ratings(players: pd.DataFrame, deals: pd.DataFrame, games: list[str], colours: dict[str, str] | None = None,
            names: dict[str, str] | None = None, cuts=(), tiers=()) -> plt.Figure:
    """Per game, one scale: the deals' ratings as a histogram, the rungs' ratings (95% intervals) as marks above it,
    the tiers' cuts (``cuts``, dotted) named (``tiers``) along the top.

    ``players``: game, player, rating, lo, hi; ``deals``: game, rating.
    """
    names = names or {}
    fig, axes = plt.subplots(len(games), 1, figsize=(9.0, 2.2 * len(games)), sharex=True, squeeze=False)
    colours = colours or player_colours(list(dict.fromkeys(players.player)))
    lo = min(players.lo.min(), deals.rating.min()) - 100
    hi = max(players.hi.max(), deals.rating.max()) + 100
    for ax, game in zip(axes[:, 0], games):
        d = deals[deals.game == game].rating
        ax.hist(d, bins=np.arange(lo, hi + 50, 50), color="0.75", label="deals")
        top = ax.get_ylim()[1]
        p = players[players.game == game].reset_index(drop=True)
        for i, row in p.iterrows():
            y = top * (1.05 + 0.07 * i)
            ax.errorbar(row.rating, y, xerr=[[row.rating - row.lo], [row.hi - row.rating]], fmt="o", ms=4,
                        color=colours.get(row.player, "black"), label=names.get(row.player, row.player))
        ax.set_ylim(0, top * (1.1 + 0.07 * len(p)))
        for cut in cuts:
            ax.axvline(cut, color="0.5", lw=0.8, ls=":")
        ax.set_ylabel("deals")
        ax.set_title(game_name(game), loc="left", fontsize=10)
    if len(tiers) == len(cuts) + 1 and len(cuts):
        edges = [lo, *cuts, hi]
        for tier, a, b in zip(tiers, edges[:-1], edges[1:]):
            axes[0, 0].text((a + b) / 2, 1.02, tier, transform=axes[0, 0].get_xaxis_transform(), ha="center", fontsize=8, color="0.35")
    axes[-1, 0].set_xlabel("rating (Elo points: beam:budget=1000000 is 1500; 400 points = 10:1 odds); dotted: the tiers' cuts")
    legend_below(fig, list(axes[:, 0]))
    return fig


def calibration(cal: pd.DataFrame, games: list[str]) -> plt.Figure:
    """Held-out games: the predicted chance of a win against the share won, in bins, per game (``game, predicted, won,
    games``), beside the diagonal a perfect prediction would follow."""
    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="predicted = won")
    for game in games:
        c = cal[cal.game == game]
        ax.plot(c.predicted, c.won, "o-", ms=4, color=game_colour(game), label=game_name(game))
    ax.set_xlabel("predicted chance of a win (held out)")
    ax.set_ylabel("share won")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="upper left")
    return fig
