"""Figures of the report and the notebooks: each function returns a matplotlib Figure.

The same conventions everywhere: games in the study's order, each with its
fixed colour (:mod:`.games`); players weakest first, each with a colour of
its own (:func:`player_colours`); perfect play (the solver) last; base ranks
as A-K; labels with parameters wrapped at their commas, never clipped.
"""

from __future__ import annotations

import textwrap

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd

from sim.core.cards import RANKS

from . import palette
from .games import COLOURS, SELECTIVE
from .games import colour as game_colour
from .games import name as game_name
from .winnability import PERFECT

#: a game's name -> its slug (a panel titled with a game's name takes the game's colour)
COLOUR_BY_NAME = {game_name(g): g for g in COLOURS}


def wrap(label: str, width: int = 22) -> str:
    """A label broken into lines after its player name's colon, at its commas and spaces, to at most ``width`` characters a line."""
    text = str(label).replace(",", ", ").replace(":", ": ", 1)
    return "\n".join(textwrap.wrap(text, width, break_long_words=False)).replace(", ", ",").replace(": ", ":", 1)


def player_colours(players: list[str], others: list[str] | tuple = ()) -> dict[str, str]:
    """One colour per player (:func:`analysis.palette.players`): ``players`` weakest first, then ``others``;
    perfect play in black."""
    return palette.players(players, others, PERFECT)


def whiskers(mid, low, high) -> np.ndarray:
    """Error-bar lengths, never negative (a Wilson bound can round past a rate of 0 or 1)."""
    return np.clip(np.vstack([np.asarray(mid) - np.asarray(low), np.asarray(high) - np.asarray(mid)]), 0, None)


#: the logit axis of win rates runs between these shares (a rate of 0 or 1 is drawn at the edge)
LOGIT_EDGE = 0.0005
LOGIT_TICKS = (0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999)


def _logit_axis(ax, axis: str = "x") -> None:
    """A logit axis of shares labelled in percent: it spreads 0.5% from 2% and 99% from 99.8% alike."""
    set_scale, set_lim, set_ticks = ((ax.set_xscale, ax.set_xlim, ax.set_xticks) if axis == "x"
                                     else (ax.set_yscale, ax.set_ylim, ax.set_yticks))
    set_scale("logit")
    set_lim(LOGIT_EDGE, 1 - LOGIT_EDGE)
    set_ticks(LOGIT_TICKS, [f"{100 * t:g}%" for t in LOGIT_TICKS])
    (ax.xaxis if axis == "x" else ax.yaxis).set_minor_formatter(matplotlib.ticker.NullFormatter())


def headline(rates: pd.DataFrame, players: list[str], games: list[str], names: dict[str, str] | None = None) -> plt.Figure:
    """Win rate of each player and under perfect play, per game: a row per player (weakest at the top, perfect
    play last), a dot per game with its 95% interval, on a logit axis (weak players' 1% and 5% and the strong
    ones' 99% and 99.8% both stay apart).

    ``rates``: columns game, player (a label of ``players`` or ``PERFECT``), rate, ci_low, ci_high; with a
    ``scope`` column, perfect play's ``played`` rows (on the players' own deals) are drawn where present.
    """
    names = names or {}
    if "scope" in rates.columns:
        perfect = rates[rates.player == PERFECT]
        mine = perfect[perfect.scope == "played"]
        keep = perfect[~perfect.game.isin(mine.game) | (perfect.scope == "played")]
        rates = pd.concat([rates[rates.player != PERFECT], keep])
    rows = [p for p in players if (rates.player == p).any()] + ([PERFECT] if (rates.player == PERFECT).any() else [])
    fig, ax = plt.subplots(figsize=(7.8, 0.27 * len(rows) + 1.05))
    step = 0.22 if len(games) > 1 else 0.0
    clip = lambda v: np.clip(np.asarray(v, dtype=float), LOGIT_EDGE, 1 - LOGIT_EDGE)  # noqa: E731
    for k, game in enumerate(games):
        r = rates[rates.game == game].set_index("player").reindex(rows).dropna(subset=["rate"])
        y = np.array([rows.index(p) for p in r.index]) + (k - (len(games) - 1) / 2) * step
        mid, lo, hi = clip(r.rate), clip(r.ci_low), clip(r.ci_high)
        ax.errorbar(mid, y, xerr=whiskers(mid, lo, hi), fmt="o", ms=4.5, capsize=2, lw=1.2, color=game_colour(game),
                    label=game_name(game))
    _logit_axis(ax)
    ax.set_yticks(range(len(rows)), [names.get(p, p) for p in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    if PERFECT in rows and len(rows) > 1:
        ax.axhline(len(rows) - 1.5, color="#999999", lw=0.8)
    ax.grid(axis="x", alpha=0.3)
    low = any((np.asarray(rates[c], dtype=float) < LOGIT_EDGE).any() for c in ("rate", "ci_low"))
    high = any((np.asarray(rates[c], dtype=float) > 1 - LOGIT_EDGE).any() for c in ("rate", "ci_high"))
    ends = [e for e, on in ((f"0% is drawn at its left edge ({100 * LOGIT_EDGE:g}%)", low),
                            (f"100% at its right edge ({100 - 100 * LOGIT_EDGE:g}%)", high)) if on]
    ax.set_xlabel("deals won, 95% interval (logit scale" + (", which has no 0% or 100%: " + " and ".join(ends) if ends else "")
                  + ")", fontsize=8.5 if ends else None)
    ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(games), frameon=False)
    fig.tight_layout()
    return fig


def forest(table: pd.DataFrame, label: str = "label", panel: str | None = None, title: str = "",
           xlabel: str = "difference in win rate, percentage points (paired by deal, 95% interval)") -> plt.Figure:
    """Paired differences with their 95% intervals: a row per ``label``, a panel per ``panel`` (rows shared),
    a dot filled where the Holm-adjusted p-value (``p_holm``) is below 0.05 and hollow where it is not.

    ``table``: columns ``label`` (and ``panel``), diff, diff_low, diff_high, p_holm.
    """
    panels = list(dict.fromkeys(table[panel])) if panel else [""]
    rows = list(dict.fromkeys(table[label]))
    labels = 0.065 * max(len(str(x)) for x in rows)  # inches the row labels take at 8 points
    width = min(11.0, labels + 0.6 + (2.8 if panel else 5.0) * len(panels))
    fig, axes = plt.subplots(1, len(panels), figsize=(width, 0.27 * len(rows) + 1.5), sharey=True, squeeze=False)
    for ax, name in zip(axes[0], panels):
        t = table[table[panel] == name] if panel else table
        y = np.array([rows.index(x) for x in t[label]])
        err = whiskers(t["diff"], t.diff_low, t.diff_high) * 100
        strong = (t.p_holm < 0.05).to_numpy() if "p_holm" in t else np.ones(len(t), bool)
        for filled in (True, False):
            k = strong == filled
            ax.errorbar(t["diff"].to_numpy()[k] * 100, y[k], xerr=err[:, k], fmt="o", ms=4.5, capsize=2, lw=1.1,
                        color="#333333", mfc="#333333" if filled else "white",
                        label="p (Holm) < 0.05" if filled else "p (Holm) ≥ 0.05")
        ax.axvline(0, color="#999999", lw=1)
        ax.set_title(name, fontsize=9, color=game_colour(COLOUR_BY_NAME[name]) if name in COLOUR_BY_NAME else "#222222")
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(axis="x", labelsize=8)
    axes[0][0].set_yticks(range(len(rows)), rows, fontsize=8)
    axes[0][0].set_ylim(len(rows) - 0.5, -0.5)
    fig.supxlabel(xlabel, fontsize=8.5)
    if title:
        fig.suptitle(title, fontsize=10)
    handles, labels = axes[0][0].get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    fig.tight_layout()
    fig.legend(seen.values(), seen.keys(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=8, frameon=False)
    return fig


def paired(table: pd.DataFrame, title: str) -> plt.Figure:
    """Paired differences (a - b), one row per ``label`` (:func:`forest` with one panel)."""
    return forest(table, "label", None, title)


def fixed_bases(rates: pd.DataFrame, chosen: float | None = None) -> plt.Figure:
    """Selective Castle: the share of deals each base rank wins if always chosen, with its interval, on a 0-100 axis
    (a cut axis would make equal bases look different); ``chosen``: the share won when the base is chosen per deal."""
    fig, ax = plt.subplots(figsize=(8, 3.6))
    x = np.arange(len(rates))
    ax.errorbar(x, rates.rate * 100, yerr=whiskers(rates.rate, rates.ci_low, rates.ci_high) * 100, fmt="o", color=game_colour(SELECTIVE),
                capsize=3, label="one base for every deal (95% interval)")
    if chosen is not None:
        ax.axhline(chosen * 100, color=game_colour(SELECTIVE), ls="--", lw=1, label=f"the base chosen per deal: {chosen * 100:.1f}%")
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
    ax.bar(counts.winning_bases, counts.share * 100, color=game_colour(SELECTIVE), alpha=0.85)
    ax.set_xticks(range(14))
    ax.set_xlabel("base ranks that win the deal (of 13)")
    ax.set_ylabel("share of deals (%)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_title("How many bases win a Selective Castle deal")
    fig.tight_layout()
    return fig


def convergence(conv: pd.DataFrame, games: list[str], players: list[str], start: int = 200,
                colours: dict[str, str] | None = None, names: dict[str, str] | None = None) -> plt.Figure:
    """Running win rate with its interval as deals accumulate, one panel per game, from ``start`` deals on."""
    fig, axes = plt.subplots(1, len(games), figsize=(min(11.0, 3.7 * len(games)), 3.4), sharey=False, squeeze=False)
    colours = {**player_colours(players), **(colours or {})}
    names = names or {}
    for ax, game in zip(axes[0], games):
        for player in players + [PERFECT]:
            c = conv[(conv.game == game) & (conv.player == player) & (conv.deals >= start)]
            if c.empty:
                continue
            ax.plot(c.deals, c.rate * 100, color=colours[player], lw=1.3, label=names.get(player, player))
            ax.fill_between(c.deals, c.ci_low * 100, c.ci_high * 100, color=colours[player], alpha=0.12)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # 2x10^2, 3x10^2... collide on a short axis
        ax.set_title(game_name(game), color=game_colour(game), fontsize=10)
        ax.set_xlabel(f"deals played (from {start})", fontsize=8.5)
        ax.grid(alpha=0.3, which="both")
    axes[0][0].set_ylabel("won (%), 95% interval")
    legend_below(fig, axes[0])
    return fig


def legend_below(fig: plt.Figure, axes, fontsize: float = 7.5) -> None:
    """Lay the panels out, then one legend of every panel's labels under them (the saved figure takes it in)."""
    handles, labels = [], []
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.tight_layout()
    fig.legend(handles, labels, loc="upper center", ncol=min(5, max(1, len(labels))), fontsize=fontsize, bbox_to_anchor=(0.5, 0.0),
               frameon=False)


def cards_home(df: pd.DataFrame, games: list[str], players: list[str], colours: dict[str, str] | None = None,
               names: dict[str, str] | None = None, columns: int = 4) -> plt.Figure:
    """Distribution of cards home in games not won: small multiples, ``columns`` games a row, players in their
    colours, one legend below. ``df``: rows, or the games not won already counted (game, player, cards_home, n).

    ``colours``: a player's colour (the report's, the same in every figure); by default one per player.
    """
    cols = min(columns, len(games))
    rows = -(-len(games) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.75 * cols, 2.1 * rows + 0.4), sharey=True, sharex=True, squeeze=False)
    colours = colours or player_colours(players)
    names = names or {}
    counted = "n" in df.columns  # (cards home already counted where the rows lie: game, player, cards_home, n)
    for ax, game in zip(axes.flat, games):
        g = df[df.game == game] if counted else df[(df.game == game) & (df.result != "won")]
        for player in players:
            p = g[g.player == player]
            if len(p):
                n = p.n.to_numpy() if counted else np.ones(len(p))
                ax.hist(p.cards_home, bins=np.arange(0, 54, 2), histtype="step", weights=n * 100 / n.sum(),
                        color=colours[player], lw=1.3, label=names.get(player, player))
        ax.set_title(game_name(game), fontsize=9)
        ax.tick_params(labelsize=7.5)
    for ax in axes.flat[len(games):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("cards home at the end", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("games not won (%)", fontsize=8)
    legend_below(fig, list(axes.flat))
    return fig


def unknown_by_budget(table: pd.DataFrame, names: dict[str, str] | None = None, cols: int = 4) -> plt.Figure:
    """The share of deals each solver run leaves unsettled within a budget (log-log), a panel per game in its colour
    (small multiples on shared axes: many runs in one panel would need more colours than read apart); a game's
    runs told apart by their marker and line (the first solid with dots, the next dashed with squares...)."""
    names = names or {}
    cols_ = [c for c in table.columns if c.endswith(" s")]
    budgets = np.array([float(c[:-2]) for c in cols_])
    games = list(dict.fromkeys(table.game))
    ncols = max(1, min(cols, len(games)))
    nrows = max(1, -(-len(games) // ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.75 * ncols + 0.6, 2.3 * nrows + 0.8), sharex=True, sharey=True,
                             squeeze=False)
    styles = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."), ("v", (0, (5, 1, 1, 1))))
    drawn = False
    for ax, game in zip(axes.flat, games):
        rows = table[table.game == game]
        for k, (_, row) in enumerate(rows.iterrows()):
            v = row[cols_].to_numpy(dtype=float)
            ok = ~np.isnan(v) & (v > 0)
            if not ok.any():
                continue
            drawn = True
            marker, line = styles[k % len(styles)]
            ax.plot(budgets[ok], v[ok] * 100, marker=marker, ls=line, ms=3.5, lw=1.3, color=game_colour(game),
                    label=names.get(row.player, row.player))
        ax.set_title(game_name(game), fontsize=9, color=game_colour(game))
        ax.grid(alpha=0.3, which="major")
        ax.tick_params(labelsize=7)
        if len(ax.get_lines()) > 1:  # a game's runs named when it has more than one line
            ax.legend(fontsize=6, loc="lower left", frameon=False, handlelength=2.6)
    for ax in list(axes.flat)[len(games):]:
        ax.axis("off")
    ax0 = axes[0][0]
    ax0.set_xscale("log")
    ax0.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    if drawn:
        ax0.set_yscale("log")
        ax0.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}%"))
    fig.supxlabel("CPU seconds per deal (log scale)", fontsize=8.5)
    fig.supylabel("deals not settled (log scale)", fontsize=8.5)
    fig.suptitle("The solver's unknowns against its budget, a panel per game (a budget with no unknown has no point)",
                 fontsize=10)
    fig.tight_layout()
    return fig


def base_heatmap(rates: pd.DataFrame, names: dict[str, str] | None = None, least: int = 20) -> plt.Figure:
    """Win rate by the base rank a player founded: a row per player, a column per base rank, the rate in each cell
    (a cell of fewer than ``least`` deals is left grey: its rate says little).

    ``rates``: :func:`analysis.stats.base_rank_rates` (columns player, base_rank, deals, rate).
    """
    names = names or {}
    players = list(dict.fromkeys(rates.player))
    grid = np.full((len(players), 13), np.nan)
    count = np.zeros((len(players), 13), int)
    for r in rates.itertuples():
        i, b = players.index(r.player), int(r.base_rank)
        count[i, b] = r.deals
        if r.deals >= least:
            grid[i, b] = r.rate * 100
    fig, ax = plt.subplots(figsize=(9.5, 0.34 * len(players) + 1.4))
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#eeeeee")
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=100, aspect="auto")
    for i in range(len(players)):
        for b in range(13):
            if not np.isnan(grid[i, b]):
                ax.text(b, i, f"{grid[i, b]:.0f}", ha="center", va="center", fontsize=7,
                        color="white" if grid[i, b] < 60 else "black")
    ax.set_xticks(range(13), list(RANKS))
    ax.set_yticks(range(len(players)), [names.get(p, p) for p in players], fontsize=8)
    ax.set_xlabel(f"base rank founded (grey: fewer than {least} deals)")
    fig.colorbar(im, ax=ax, label="deals won (%)", fraction=0.03, pad=0.02)
    fig.tight_layout()
    return fig


def against_published(rows: pd.DataFrame) -> plt.Figure:
    """A panel a game: each source's 95% interval (thin) and the part of it the unknowns make, counted both ways
    (thick: no number of deals narrows it), around its estimate. ``rows``: game, source, estimate, lo, hi, unknown
    (fractions)."""
    games = list(dict.fromkeys(rows.game))
    fig, axes = plt.subplots(len(games), 1, figsize=(7.5, 1.55 * len(games) + 0.2), squeeze=False)
    for ax, game in zip(axes[:, 0], games):
        g = rows[rows.game == game].reset_index(drop=True)
        c = game_colour(game)
        for y, r in g.iterrows():
            mid, lo, hi, u = (100 * r[k] for k in ("estimate", "lo", "hi", "unknown"))
            ax.plot([lo, hi], [y, y], color=c, lw=1.2, solid_capstyle="butt")
            ax.plot([mid - u / 2, mid + u / 2], [y, y], color=c, lw=7, alpha=0.45, solid_capstyle="butt")
            ax.plot([mid], [y], "o", color=c, ms=4)
            ax.annotate(f"±{(hi - lo) / 2:.3f} ({u / 2:.3f} of unknowns)", (hi, y), xytext=(6, 0), textcoords="offset points",
                        va="center", fontsize=7.5)
        ax.set_yticks(range(len(g)), [wrap(s, 32) for s in g.source])
        ax.set_ylim(len(g) - 0.5, -0.5)
        lo, hi = 100 * g.lo.min(), 100 * g.hi.max()
        ax.set_xlim(lo - 0.05 * (hi - lo), hi + 0.75 * (hi - lo))  # room for the labels on the right
        ax.set_title(game_name(game), color=c, fontsize=10)
        ax.set_xlabel("winnable (%), 95% interval")
        ax.grid(axis="x", color="#eeeeee")
    fig.tight_layout()
    return fig
