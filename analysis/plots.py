"""Figures of the report and the notebooks: each function returns a matplotlib Figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, never a screen

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from sim.core.cards import RANKS  # noqa: E402

from .games import colour as _colour  # noqa: E402


def _whiskers(mid, low, high) -> np.ndarray:
    """Error-bar lengths, never negative (a Wilson bound can round past a rate of 0 or 1)."""
    return np.clip(np.vstack([np.asarray(mid) - np.asarray(low), np.asarray(high) - np.asarray(mid)]), 0, None)


def win_rates(rates: pd.DataFrame) -> plt.Figure:
    """Horizontal bars per game x player with 95% interval whiskers."""
    rates = rates.sort_values(["player", "game"])
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rates) + 1.2))
    y = np.arange(len(rates))
    err = _whiskers(rates.rate, rates.ci_low, rates.ci_high)
    ax.barh(y, rates.rate * 100, xerr=err * 100, color=[_colour(g) for g in rates.game], alpha=0.85, capsize=3)
    ax.set_yticks(y, [f"{p}  ·  {g}" for g, p in zip(rates.game, rates.player)])
    ax.set_xlabel("deals won (%), 95% Wilson interval")
    ax.set_xlim(0, min(100, max(5, float(rates.ci_high.max() * 100) * 1.15)))
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("Win rate by game and player")
    fig.tight_layout()
    return fig


def paired_differences(table: pd.DataFrame) -> plt.Figure:
    """Paired differences in win rate (a - b) with their intervals."""
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(table) + 1.2))
    y = np.arange(len(table))
    err = _whiskers(table["diff"], table.diff_low, table.diff_high)
    ax.errorbar(table["diff"] * 100, y, xerr=err * 100, fmt="o", color="#333333", capsize=4)
    ax.axvline(0, color="#999999", lw=1)
    ax.set_yticks(y, [f"{a}\n  − {b}" for a, b in zip(table.a, table.b)], fontsize=8)
    ax.set_xlabel("difference in win rate (percentage points), paired by deal, 95% interval")
    ax.set_title("Paired comparisons")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def base_ranks(rates: pd.DataFrame) -> plt.Figure:
    """Selective Castle: how often each chosen base rank was played, and its win rate."""
    players = list(dict.fromkeys(rates.player))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    width = 0.8 / max(1, len(players))
    for i, player in enumerate(players):
        r = rates[rates.player == player]
        x = r.base_rank.to_numpy() + (i - (len(players) - 1) / 2) * width
        top.bar(x, r.deals, width=width, label=player)
        err = _whiskers(r.rate, r.ci_low, r.ci_high) * 100
        bottom.errorbar(x, r.rate * 100, yerr=err, fmt="o", capsize=3, label=player)
    top.set_ylabel("deals")
    top.set_title("Selective Castle: base rank chosen")
    top.legend(fontsize=8)
    bottom.set_ylabel("won (%)")
    bottom.set_xticks(range(13), list(RANKS))
    bottom.set_xlabel("base rank")
    bottom.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def cards_home(df: pd.DataFrame) -> plt.Figure:
    """Distribution of cards home in games not won, one panel per game."""
    games = sorted(df.game.unique())
    fig, axes = plt.subplots(1, len(games), figsize=(4 * len(games), 3.2), sharey=True, squeeze=False)
    for ax, game in zip(axes[0], games):
        g = df[(df.game == game) & (df.result != "won")]
        for player, p in g.groupby("player"):
            ax.hist(p.cards_home, bins=np.arange(0, 54, 2), histtype="step", density=True, label=player, lw=1.5)
        ax.set_title(game, fontsize=10)
        ax.set_xlabel("cards home when the game ended")
    axes[0][0].set_ylabel("share of games not won")
    axes[0][-1].legend(fontsize=8)
    fig.tight_layout()
    return fig


def convergence(conv: pd.DataFrame) -> plt.Figure:
    """Running win rate with its interval as deals accumulate."""
    fig, ax = plt.subplots(figsize=(8, 4))
    for (game, player), c in conv.groupby(["game", "player"]):
        line, = ax.plot(c.deals, c.rate * 100, label=f"{player} · {game}", lw=1.2)
        ax.fill_between(c.deals, c.ci_low * 100, c.ci_high * 100, color=line.get_color(), alpha=0.12)
    ax.set_xscale("log")
    ax.set_xlabel("deals played")
    ax.set_ylabel("won (%)")
    ax.set_title("How the estimate converges")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
