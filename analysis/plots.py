"""Figures of the report and the notebooks: each function returns a matplotlib Figure.

The same conventions everywhere: games in the study's order, each with its
fixed colour (:mod:`.games`); players weakest first, each with a colour of
its own (:func:`player_colours`); perfect play (the solver) last; base ranks
as A-K; labels with parameters wrapped at their commas, never clipped.
"""

from __future__ import annotations

import textwrap

import matplotlib
import matplotlib.ticker
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from sim.core.cards import RANKS  # noqa: E402

from .games import colour as game_colour  # noqa: E402
from .games import name as game_name  # noqa: E402

from .stats import p_text  # noqa: E402
from .winnability import PERFECT  # noqa: E402


def wrap(label: str, width: int = 22) -> str:
    """A label broken into lines after its player name's colon, at its commas and spaces, to at most ``width`` characters a line."""
    text = str(label).replace(",", ", ").replace(":", ": ", 1)
    return "\n".join(textwrap.wrap(text, width, break_long_words=False)).replace(", ", ",").replace(": ", ":", 1)


def player_colours(players: list[str], palette: str | None = None) -> dict[str, str]:
    """One colour per player, by its place in ``players`` (weakest first); perfect play in black."""
    cmap = plt.get_cmap(palette or ("tab10" if len(players) <= 10 else "tab20"))
    out = {p: matplotlib.colors.to_hex(cmap(i % cmap.N)) for i, p in enumerate(players)}
    out[PERFECT] = "#111111"
    return out


def _whiskers(mid, low, high) -> np.ndarray:
    """Error-bar lengths, never negative (a Wilson bound can round past a rate of 0 or 1)."""
    return np.clip(np.vstack([np.asarray(mid) - np.asarray(low), np.asarray(high) - np.asarray(mid)]), 0, None)


def headline(rates: pd.DataFrame, players: list[str], games: list[str]) -> plt.Figure:
    """Win rate of each player and under perfect play, per game: dots with 95% intervals, games side by side.

    ``rates``: columns game, player (a label of ``players`` or ``PERFECT``), rate, ci_low, ci_high.
    """
    cols = [p for p in players if (rates.player == p).any()] + ([PERFECT] if (rates.player == PERFECT).any() else [])
    fig, ax = plt.subplots(figsize=(max(7.0, 1.0 * len(cols) + 3), 4.6))
    width = 0.8 / max(1, len(games))
    for k, game in enumerate(games):
        r = rates[rates.game == game].set_index("player").reindex(cols).dropna(subset=["rate"])
        x = np.array([cols.index(p) for p in r.index]) + (k - (len(games) - 1) / 2) * width
        ax.errorbar(x, r.rate * 100, yerr=_whiskers(r.rate, r.ci_low, r.ci_high) * 100, fmt="o", ms=6, capsize=3,
                    color=game_colour(game), label=game_name(game))
    ax.set_xticks(range(len(cols)), [wrap(c, 16) for c in cols], fontsize=8)
    ax.set_ylabel("deals won (%), 95% interval")
    ax.set_ylim(-2, 102)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=9, loc="upper left")
    ax.set_title("Win rate by player, weakest to strongest, and under perfect play")
    fig.tight_layout()
    return fig


def paired(table: pd.DataFrame, title: str) -> plt.Figure:
    """Paired differences (a - b) with their 95% intervals; each row labelled with its Holm-adjusted p-value."""
    fig, ax = plt.subplots(figsize=(8.5, 0.42 * len(table) + 1.4))
    y = np.arange(len(table))[::-1]
    err = _whiskers(table["diff"], table.diff_low, table.diff_high)
    colours = table["colour"] if "colour" in table else ["#333333"] * len(table)
    for yi, d, e0, e1, c in zip(y, table["diff"], err[0], err[1], colours):
        ax.errorbar([d * 100], [yi], xerr=[[e0 * 100], [e1 * 100]], fmt="o", color=c, capsize=3)
    ax.axvline(0, color="#999999", lw=1)
    labels = [f"{wrap(l, 40)}   (p {'' if p < 1e-300 else '= '}{p_text(p)})" for l, p in zip(table.label, table.p_holm)]
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("difference in win rate, percentage points (paired by deal, 95% interval)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def ladder(table: pd.DataFrame, games: list[str], colours: dict[str, str] | None = None) -> plt.Figure:
    """Per game: each rung's share of the solver's winnable deals won against its CPU per deal (log scale).

    ``colours``: a player's colour (the report's, the same in every figure); by default one per rung.
    """
    fig, axes = plt.subplots(1, len(games), figsize=(4.6 * len(games), 4.2), sharey=True, squeeze=False)
    colours = colours or player_colours(list(dict.fromkeys(table.player)))
    for ax, game in zip(axes[0], games):
        t = table[table.game == game]
        for _, row in t.iterrows():
            share = row.share_of_winnable if not pd.isna(row.share_of_winnable) else row.rate
            lo = row.share_ci_low if not pd.isna(row.share_of_winnable) else row.ci_low
            hi = row.share_ci_high if not pd.isna(row.share_of_winnable) else row.ci_high
            ax.errorbar([max(row.cpu_ms_mean, 1e-3)], [share * 100], yerr=_whiskers([share], [lo], [hi]) * 100, fmt="o",
                        color=colours[row.player], capsize=2, label=wrap(row.player, 30))
        ax.set_xscale("log")
        ax.set_title(game_name(game), color=game_colour(game))
        ax.set_xlabel("mean CPU per deal (ms, log scale)")
        ax.grid(alpha=0.3, which="both")
    axes[0][0].set_ylabel("winnable deals won (%)")
    _legend_below(fig, axes[0])
    return fig


def difficulty(shares: pd.DataFrame, colours: dict[str, str] | None = None) -> plt.Figure:
    """Stacked bars: each game's deals by difficulty (the cheapest rung that wins them, then solver only, unknown, unwinnable).

    ``colours``: a rung's colour (the report's, the same in every figure); by default one per rung.
    """
    classes = list(shares.index)
    games = list(shares.columns)
    colours = colours or player_colours([c for c in classes[:-3]])
    extra = {"solver only": "#111111", "unknown": "#bbbbbb", "unwinnable": "#e8e8e8"}
    fig, ax = plt.subplots(figsize=(9, 0.7 * len(games) + 2.2))
    left = np.zeros(len(games))
    for c in classes:
        v = shares.loc[c].to_numpy(dtype=float) * 100
        ax.barh(range(len(games)), v, left=left, color=colours.get(c, extra.get(c, "#777777")), edgecolor="white",
                label=wrap(c, 28))
        left += v
    ax.set_yticks(range(len(games)), [game_name(g) for g in games])
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of deals (%), the same deals in every game")
    ax.set_title("Difficulty: the cheapest rung that wins a deal")
    ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.18))
    fig.tight_layout()
    return fig


def fixed_bases(rates: pd.DataFrame, chosen: float | None = None) -> plt.Figure:
    """Selective Castle: the share of deals each base rank wins if always chosen, with its interval, on a 0-100 axis
    (a cut axis would make equal bases look different); ``chosen``: the share won when the base is chosen per deal."""
    fig, ax = plt.subplots(figsize=(8, 3.6))
    x = np.arange(len(rates))
    ax.errorbar(x, rates.rate * 100, yerr=_whiskers(rates.rate, rates.ci_low, rates.ci_high) * 100, fmt="o", color="#1b7837",
                capsize=3, label="one base for every deal (95% interval)")
    if chosen is not None:
        ax.axhline(chosen * 100, color="#1b7837", ls="--", lw=1, label=f"the base chosen per deal: {chosen * 100:.1f}%")
    ax.set_xticks(x, list(rates.base))
    ax.set_xlabel("base rank, always chosen")
    ax.set_ylabel("deals won (%)")
    ax.set_ylim(0, 102)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    n = int(rates.deals.iloc[0]) if len(rates) else 0
    ax.set_title(f"Selective Castle under perfect play: one base rank for every deal ({n:,} deals)")
    fig.tight_layout()
    return fig


def bases_per_deal(counts: pd.DataFrame) -> plt.Figure:
    """Selective Castle: how many of the 13 base ranks win a deal."""
    fig, ax = plt.subplots(figsize=(8, 3.2))
    ax.bar(counts.winning_bases, counts.share * 100, color="#1b7837", alpha=0.8)
    ax.set_xticks(range(14))
    ax.set_xlabel("base ranks that win the deal (of 13)")
    ax.set_ylabel("share of deals (%)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_title("How many bases win a Selective Castle deal")
    fig.tight_layout()
    return fig


def convergence(conv: pd.DataFrame, games: list[str], players: list[str], start: int = 200,
                colours: dict[str, str] | None = None) -> plt.Figure:
    """Running win rate with its interval as deals accumulate, one panel per game, from ``start`` deals on."""
    fig, axes = plt.subplots(1, len(games), figsize=(4.6 * len(games), 3.8), sharey=False, squeeze=False)
    colours = {**player_colours(players), **(colours or {})}
    for ax, game in zip(axes[0], games):
        for player in players + [PERFECT]:
            c = conv[(conv.game == game) & (conv.player == player) & (conv.deals >= start)]
            if c.empty:
                continue
            ax.plot(c.deals, c.rate * 100, color=colours[player], lw=1.3, label=wrap(player, 30))
            ax.fill_between(c.deals, c.ci_low * 100, c.ci_high * 100, color=colours[player], alpha=0.12)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # 2x10^2, 3x10^2... collide on a short axis
        ax.set_title(game_name(game), color=game_colour(game))
        ax.set_xlabel(f"deals played (from {start})")
        ax.grid(alpha=0.3, which="both")
    axes[0][0].set_ylabel("won (%), 95% interval")
    _legend_below(fig, axes[0])
    return fig


def _legend_below(fig: plt.Figure, axes) -> None:
    """Lay the panels out, then one legend of every panel's labels under them (the saved figure takes it in)."""
    handles, labels = [], []
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.tight_layout()
    fig.legend(handles, labels, loc="upper center", ncol=min(5, max(1, len(labels))), fontsize=7, bbox_to_anchor=(0.5, 0.0))


def cards_home(df: pd.DataFrame, games: list[str], players: list[str], colours: dict[str, str] | None = None) -> plt.Figure:
    """Distribution of cards home in games not won, one panel per game, players in their colours, one legend below.

    ``colours``: a player's colour (the report's, the same in every figure); by default one per player.
    """
    fig, axes = plt.subplots(1, len(games), figsize=(4.6 * len(games), 3.2), sharey=True, squeeze=False)
    colours = colours or player_colours(players)
    for ax, game in zip(axes[0], games):
        g = df[(df.game == game) & (df.result != "won")]
        for player in players:
            p = g[g.player == player]
            if len(p):
                ax.hist(p.cards_home, bins=np.arange(0, 54, 2), histtype="step", density=True, color=colours[player], lw=1.4,
                        label=wrap(player, 30))
        ax.set_title(game_name(game), color=game_colour(game))
        ax.set_xlabel("cards home when the game ended")
    axes[0][0].set_ylabel("share of games not won")
    _legend_below(fig, axes[0])
    return fig


def unknown_by_budget(table: pd.DataFrame) -> plt.Figure:
    """The share of deals the solver leaves unsettled within a budget, per game (log-log)."""
    fig, ax = plt.subplots(figsize=(9, 3.8))
    cols = [c for c in table.columns if c.endswith(" s")]
    budgets = np.array([float(c[:-2]) for c in cols])
    drawn = False
    for _, row in table.iterrows():
        v = row[cols].to_numpy(dtype=float)
        ok = ~np.isnan(v) & (v > 0)
        if ok.any():
            drawn = True
            one = (table.game == row.game).sum() == 1  # the game names its line unless two solvers played it
            label = game_name(row.game) if one else f"{game_name(row.game)} ({row.player})"
            ax.plot(budgets[ok], v[ok] * 100, "o-", color=game_colour(row.game), label=wrap(label, 60))
    ax.set_xscale("log")
    if drawn:
        ax.set_yscale("log")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="a budget with no unknown has no point",
                  title_fontsize=7)
    ax.set_xlabel("CPU seconds per deal")
    ax.set_ylabel("deals not settled (%)")
    ax.grid(alpha=0.3, which="both")
    ax.set_title("The solver's unknowns against its budget")
    fig.tight_layout()
    return fig
