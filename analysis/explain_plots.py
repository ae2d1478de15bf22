"""The figures of the notebook "What makes a deal hard": the models' quality, calibration, features and effects.

Each function returns a matplotlib Figure; :mod:`analysis.explain` trains
the models and reads what these draw (their predictions, contributions and
the features' importance).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sim.explain import features as explain_features
from sim.explain import model as explain_model

from . import palette
from .explain import importance


#: the three models of the quality figure, smallest first
STAGES = (("layout alone AUC", "the layout alone"), ("no beam AUC", "+ greedy, strategist, lookahead"), ("AUC", "+ a quick beam (the model)"))


def feature_title(f: str, width: int = 42) -> str:
    """A feature's meaning in words (:mod:`sim.explain.features`), wrapped for a panel's title; its name if unknown."""
    import textwrap

    try:
        meaning = explain_features.feature(f).meaning
    except KeyError:
        return f
    return "\n".join(textwrap.wrap(meaning[0].upper() + meaning[1:], width))


def feature_unit(f: str) -> str:
    """What a feature's value counts, for its axis: the meaning's first words (``cards``, ``moves``, ``piles``...)."""
    try:
        meaning = explain_features.feature(f).meaning
    except KeyError:
        return "value"
    if meaning.startswith("the same at"):  # base_depth_second: as base_depth_best, cards lying on a base's four
        return "cards"
    words = meaning.replace("base ranks", "base-ranks").split()
    unit = next((w for w in words if w in ("cards", "moves", "piles", "pairs", "base-ranks")), "value")
    return unit.replace("-", " ")


def plot_quality(table: pd.DataFrame):
    """Held-out AUC per game: the layout alone, with the cheap players, with the quick beam too."""
    import matplotlib.pyplot as plt

    from .games import name

    t = table[table["AUC"].notna()].reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(t) + 1.7))
    y = np.arange(len(t))
    h = 0.26
    for k, (col, label) in enumerate(STAGES):
        vals = pd.to_numeric(t[col], errors="coerce").to_numpy(float)
        ax.barh(y + (k - 1) * h, np.nan_to_num(vals - 0.5), h, left=0.5, label=label, color=palette.STAGES[k])
    ax.set_yticks(y, [name(g) for g in t.game])
    ax.invert_yaxis()
    ax.set_xlim(0.5, 1.0)
    ax.set_xlabel("ROC AUC on held-out deals (won against lost)")
    ax.axvline(0.9, color=palette.GUIDE, lw=0.8, ls=":")
    ax.set_title("What the layout alone tells, and what cheap play adds")
    # the legend in its own strip under the axis label (0.3 inch, whatever the number of games)
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=7.5, frameon=False)
    fig.tight_layout(rect=(0, 0.3 / fig.get_figheight(), 1, 1))
    return fig


def plot_reliability(pred: pd.DataFrame, games: list[str], bins: int = 10, least: int = 10):
    """The reliability diagram, a panel a game: the share of deals the solver won against the probability given, by
    equal bins of it (a point's area: its deals; bins of fewer than ``least`` deals are not drawn)."""
    import matplotlib.pyplot as plt

    from .games import colour, name

    games = [g for g in games if (pred.game == g).any()]
    cols = min(4, max(len(games), 1))
    rows = max(1, math.ceil(len(games) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(2.7 * cols, 2.8 * rows), squeeze=False, sharex=True, sharey=True)
    for ax, g in zip(axes.ravel(), games):
        d = pred[pred.game == g]
        r = explain_model.reliability(d.p_win, d.won, bins)
        r = r[r.deals >= least]
        ax.plot([0, 1], [0, 1], color=palette.GUIDE, lw=0.8, ls="--")
        ax.plot(r.p_mean, r.won, "-", color=colour(g), lw=1)
        ax.scatter(r.p_mean, r.won, s=4 + 60 * np.sqrt(r.deals / max(len(d), 1)), color=colour(g), zorder=3)
        a = explain_model.auc(d.p_win, d.won)
        ax.set_title(f"{name(g)}\nECE {explain_model.ece(d.p_win, d.won):.3f}" + (f", AUC {a:.3f}" if a is not None else "")
                     + f", {len(d):,} deals", fontsize=7.5)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.tick_params(labelsize=7)
    for ax in axes.ravel()[len(games):]:
        ax.axis("off")
    fig.supxlabel("probability of a win given", fontsize=8.5)
    fig.supylabel("share the solver won", fontsize=8.5)
    fig.tight_layout()
    return fig


def plot_effects(long: pd.DataFrame, top: int = 8, title: str = ""):
    """Each of the ``top`` strongest features' push on the log-odds against its value (a dependence plot), a panel each."""
    import matplotlib.pyplot as plt

    names = list(importance(long).index[:top])
    cols = 4
    rows = max(1, math.ceil(len(names) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(11, 2.5 * rows), squeeze=False)
    rng = np.random.default_rng(0)
    for ax, f in zip(axes.ravel(), names):
        d = long[long.feature == f].dropna()
        jitter = rng.uniform(-0.25, 0.25, len(d)) if d.value.nunique() < 30 else 0
        ax.scatter(d.value + jitter, d.push, s=3, alpha=0.35, color=palette.LOST, lw=0, label="a deal")
        means = d.groupby("value").push.mean()
        ax.plot(means.index, means.to_numpy(), color=palette.WON, lw=1.2, label="the mean at that value")
        ax.axhline(0, color=palette.GUIDE, lw=0.6)
        ax.set_title(feature_title(f), fontsize=7.5)
        ax.set_xlabel(feature_unit(f), fontsize=7.5)
        ax.tick_params(labelsize=7)
    for ax in axes.ravel()[len(names):]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel("push on log-odds", fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


#: the layout's features the marginal figure shows
MARGINAL = ("depth_next_max", "depth_low_sum", "under_own_suit", "blockers", "last_not_bottom", "under_last",
            "run_cards", "movable_tops")


def plot_marginal(pred: pd.DataFrame, games: list[str], features: tuple[str, ...] = MARGINAL, least: int = 30):
    """The layout's features one at a time, no model: the share of deals the solver won against each feature's value
    (values pooled from the ends so that every point holds ``least`` deals or more), a line a game."""
    import matplotlib.pyplot as plt

    from .games import colour, name

    cols = 4
    rows = math.ceil(len(features) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(11, 2.5 * rows), squeeze=False)
    for ax, f in zip(axes.ravel(), features):
        for g in games:
            d = pred.loc[pred.game == g, [f, "won"]].dropna()
            if len(d) < least:
                continue
            lo, hi = d[f].quantile(0.02), d[f].quantile(0.98)
            s = d.assign(v=d[f].clip(lo, hi)).groupby("v").won.agg(["mean", "size"])
            s = s[s["size"] >= least]
            ax.plot(s.index, s["mean"], "o-", ms=2.5, lw=1, color=colour(g), label=name(g))
        ax.set_title(feature_title(f), fontsize=7.5)
        ax.set_xlabel(feature_unit(f), fontsize=7.5)
        ax.set_ylim(-0.02, 1.02)
        ax.tick_params(labelsize=7)
    for ax in axes.ravel()[len(features):]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel("share won", fontsize=8)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.tight_layout()
    fig.subplots_adjust(bottom=0.12)
    fig.legend(handles, labels, loc="lower center", ncol=len(labels) or 1, fontsize=7.5, frameon=False)
    return fig


def plot_importance(longs: dict[str, pd.DataFrame], top: int = 12):
    """Mean absolute push of the strongest features, a panel per game."""
    import matplotlib.pyplot as plt

    from .games import colour, name

    games = [g for g, d in longs.items() if not d.empty]
    fig, axes = plt.subplots(1, max(len(games), 1), figsize=(3.6 * max(len(games), 1), 0.28 * top + 1.2), squeeze=False)
    for ax, g in zip(axes[0], games):
        imp = importance(longs[g]).iloc[:top][::-1]
        kinds = [explain_features.feature(f).kind for f in imp.index]
        ax.barh(range(len(imp)), imp.to_numpy(), color=[colour(g) if k == "play" else palette.LOST for k in kinds])
        ax.set_yticks(range(len(imp)), imp.index, fontsize=7)
        ax.set_title(name(g), fontsize=9)
        ax.set_xlabel("mean |push| (log-odds)", fontsize=8)
    fig.suptitle("The features that move the probability most (grey: the layout; colour: a probe's play)", fontsize=9)
    fig.tight_layout()
    return fig


def plot_bases(pb: pd.DataFrame, features: tuple[str, ...] = ("under_own_suit", "depth_next_sum", "beam_home")):
    """Selective Castle base by base: the share of (deal, base) pairs the solver wins, against features read at that base."""
    import matplotlib.pyplot as plt

    d = pb[pb.won.notna()]
    fig, axes = plt.subplots(1, len(features), figsize=(3.6 * len(features), 3.2), squeeze=False)
    for ax, f in zip(axes[0], features):
        if f not in d.columns:
            ax.axis("off")
            continue
        q = pd.qcut(d[f].rank(method="first"), min(8, max(d[f].nunique(), 1)), labels=False) if len(d) >= 16 else d[f]
        g = d.assign(bin=q).groupby("bin").agg(x=(f, "mean"), won=("won", "mean"), n=("won", "size"))
        ax.plot(g.x, g.won, "o-", color=palette.game("selective-castle"))
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(f"{feature_unit(f)} at that base", fontsize=8)
        ax.set_title(feature_title(f), fontsize=7.5)
    axes[0][0].set_ylabel("share of bases the solver wins")
    fig.suptitle("Selective Castle, one fixed base at a time", fontsize=10)
    fig.tight_layout()
    return fig


def plot_no_good_base(pred: pd.DataFrame, features: tuple[str, ...] = ("base_buried_fewest", "bases_good", "base_depth_best")):
    """Selective Castle's lost deals against its won ones: how the layouts that leave no good base look."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(features), figsize=(3.6 * len(features), 3), squeeze=False)
    for ax, f in zip(axes[0], features):
        for won, colour, label in ((True, palette.WON, "won"), (False, palette.LOST, "lost")):
            v = pred.loc[pred.won == won, f].dropna()
            if len(v):
                ax.hist(v, bins=np.arange(v.min() - 0.5, v.max() + 1.5) if v.nunique() < 40 else 30, density=True,
                        histtype="step", color=colour, label=f"{label} ({len(v):,})")
        ax.set_xlabel(feature_unit(f), fontsize=8)
        ax.set_title(feature_title(f, 36), fontsize=7.5)
        ax.legend(fontsize=7, frameon=False)
    axes[0][0].set_ylabel("share of deals")
    fig.suptitle("Selective Castle: the deals no base wins, against the others", fontsize=10)
    fig.tight_layout()
    return fig
