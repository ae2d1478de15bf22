"""What makes a deal hard: training the models of ``castle explain`` (``make model``), and what the notebook reads of them.

The models learn the study's solver verdicts (seed 0, every sheet game the
solver played: unknown verdicts left out). Each game's solved deals are
split by number: the first 80% of its range train, the last 20% are held
out and never seen in training (Streets and Alleys and Beleaguered
Castle: deals 0-7,999 and 8,000-9,999; Selective Castle: 0-39,999 and
40,000-49,999). The held-out quality goes into the model file, with that of
two smaller models on the same split: the layout alone, and the layout with
the cheap players but no beam. Features are cached under
``data/explain/`` (git-ignored), one Parquet file a game and feature set.

``python -m analysis.explain [DATA]`` (``make model``) rebuilds the shipped models and prints their table.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from sim.explain import features as F
from sim.explain import model as M

#: the share of a game's deal range held out (its highest-numbered deals)
HOLDOUT = 0.2
SEED = 0
#: where computed features are cached
CACHE = Path("data") / "explain"
CHUNK = 1000
#: the notebook computes at most this many held-out deals a game that the cache does not hold
SAMPLE = 600

LAYOUT = [f.name for f in F.FEATURES if f.kind == "layout"]
CHEAP = LAYOUT + [f.name for f in F.FEATURES if f.probe and f.probe != "beam"]
#: the smaller models the table compares with the full one
VARIANTS = {"layout": LAYOUT, "cheap": CHEAP}


def solved(df: pd.DataFrame, seed: int = SEED) -> pd.DataFrame:
    """The solver's settled verdicts of seed ``seed`` per rule-sheet game: ``game, deal, won`` (unknowns left out)."""
    from .ladder import verdicts

    v = verdicts(df)
    v = v[(v.seed == seed) & (v.verdict != "unknown") & ~v.game.astype(str).str.contains("@")]
    return pd.DataFrame({"game": v.game.astype(str).values, "deal": v.deal.astype(np.int64).values,
                         "won": (v.verdict == "won").values}).sort_values(["game", "deal"], ignore_index=True)


def split_at(deals) -> int:
    """The first held-out deal of a game whose solved deals are ``deals``: the last :data:`HOLDOUT` of their range."""
    lo, hi = int(np.min(deals)), int(np.max(deals))
    return lo + math.ceil((1 - HOLDOUT) * (hi - lo + 1))


def _chunk(game: str, seed: int, deals: np.ndarray) -> tuple[np.ndarray, float]:
    """Features of some deals (in a worker): the rows, and the CPU milliseconds a deal they took."""
    from sim.game import Game

    g = Game(game)
    states = [g.deal(int(d), seed) for d in deals]
    t0 = time.process_time()
    X = F.features(g, states)
    return X.to_numpy(), (time.process_time() - t0) * 1000 / max(len(deals), 1)


def cached_features(game: str, deals, seed: int = SEED, cache: Path | None = CACHE, jobs: int = 2,
                    quiet: bool = False) -> pd.DataFrame:
    """The features of ``deals`` of ``game`` (index: deal), computed once and kept in ``cache`` (None: not kept)."""
    deals = np.unique(np.asarray(deals, np.int64))
    path = None if cache is None else Path(cache) / f"{game}-seed{seed}-{F.feature_hash()}.parquet"
    have = pd.read_parquet(path) if path is not None and path.exists() else pd.DataFrame(columns=list(F.NAMES), dtype=float)
    todo = np.setdiff1d(deals, have.index.to_numpy(np.int64))
    if len(todo):
        t0 = time.time()
        parts = [todo[i:i + CHUNK] for i in range(0, len(todo), CHUNK)]
        if jobs > 1 and len(parts) > 1:
            from joblib import Parallel, delayed

            done = Parallel(n_jobs=jobs)(delayed(_chunk)(game, seed, p) for p in parts)
        else:
            done = [_chunk(game, seed, p) for p in parts]
        new = pd.DataFrame(np.vstack([d[0] for d in done]), columns=list(F.NAMES), index=pd.Index(todo, name="deal"))
        have = new if have.empty else pd.concat([have, new]).sort_index()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            have.to_parquet(path)
        if not quiet:
            ms = np.mean([d[1] for d in done])
            print(f"  {game}: features of {len(todo):,} deals, {ms:.2f} CPU-ms a deal, {time.time() - t0:.0f} s", flush=True)
    have.index = have.index.astype(np.int64)
    return have.loc[deals]


def _timing(game: str, model: M.Model, deals, seed: int = SEED, n: int = 300) -> dict:
    """CPU milliseconds a deal for the features (fresh, in this process) and for the model (probability and
    contributions), on ``n`` of ``deals``."""
    from sim.game import Game

    g = Game(game)
    states = [g.deal(int(d), seed) for d in np.asarray(deals)[:n]]
    F.features(g, states[:2])  # the kernel loaded
    t0 = time.process_time()
    X = F.features(g, states)
    t1 = time.process_time()
    model.predict(X)
    model.contributions(X)
    t2 = time.process_time()
    return {"features_ms": round((t1 - t0) * 1000 / len(states), 2), "model_ms": round((t2 - t1) * 1000 / len(states), 3)}


def train_game(game: str, verdicts: pd.DataFrame, cache: Path | None = CACHE, jobs: int = 2, seed: int = SEED,
               variants: bool = True) -> M.Model:
    """``game``'s model, trained on its first deals and judged on the rest (its ``holdout``)."""
    v = verdicts[verdicts.game == game]
    at = split_at(v.deal)
    train = v.deal.to_numpy() < at
    if min(v.won[train].sum(), (~v.won[train]).sum()) < M.MIN_CLASS:  # (nearly) all one verdict: no features needed
        model = M.constant_model(game, v.won[train], v.deal[train], seed)
        test = ~train
        model.holdout = {**M.quality(np.full(test.sum(), model.base_rate), v.won[test]),
                         "deal_ranges": M._ranges(v.deal[test].to_numpy())}
        return model
    X = cached_features(game, v.deal, seed, cache, jobs)
    won = v.set_index("deal").won.loc[X.index].to_numpy(bool)
    train = X.index.to_numpy() < at
    model = M.fit(game, X[train].reset_index(drop=True), won[train], X.index[train], seed=seed)
    test = ~train
    p = model.predict(X[test])
    holdout = {**M.quality(p, won[test]), "deal_ranges": M._ranges(X.index[test].to_numpy()),
               "won_by_probe": int(F.won_by_probe(X[test]).sum())}
    if variants and not model.constant:
        for name, cols in VARIANTS.items():
            m = M.fit(game, X.loc[train, cols].reset_index(drop=True), won[train], X.index[train], seed=seed)
            holdout[name] = M.quality(m.predict(X.loc[test, cols]), won[test])
    holdout.update(_timing(game, model, X.index[test], seed))
    model.holdout = holdout
    return model


def build(data: str | Path = "data/published", out: Path | None = None, cache: Path | None = None, jobs: int = 2,
          games: list[str] | None = None) -> pd.DataFrame:
    """Train and save every game's model from the solver verdicts of ``data``; the table of their held-out quality.

    Features are cached in ``cache`` (default: :func:`cache_folder`).
    """
    from .load import load_study

    cache = cache or cache_folder()
    df, _ = load_study(data)
    v = solved(df)
    rows = []
    for game in games or sorted(v.game.unique()):
        t0 = time.time()
        print(f"{game}:", flush=True)
        model = train_game(game, v, cache, jobs)
        path = model.save(None if out is None else Path(out) / M.model_path(game).name)
        rows.append(table_row(model, path))
        print(f"  {time.time() - t0:.0f} s: {rows[-1]}", flush=True)
    return pd.DataFrame(rows)


def table_row(model: M.Model, path: Path | None = None) -> dict:
    """A model's line of the quality table."""
    h, t = model.holdout, model.training
    row = {"game": model.game, "model": t.get("kind"), "train deals": t.get("deals_count"),
           "held-out deals": h.get("deals"),
           "won / lost": f"{h.get('won', 0):,} / {h.get('lost', 0):,}", "AUC": h.get("auc"), "ECE": h.get("ece"),
           "layout alone AUC": (h.get("layout") or {}).get("auc"), "no beam AUC": (h.get("cheap") or {}).get("auc"),
           "features ms": h.get("features_ms"), "model ms": h.get("model_ms")}
    if path is not None:
        row["KB"] = round(Path(path).stat().st_size / 1024, 1)
    return row


def model_table(games: list[str] | None = None) -> pd.DataFrame:
    """The shipped models' held-out quality, a row each (:func:`table_row`), from their files."""
    from .games import in_study_order

    rows = []
    for game in in_study_order(games or M.shipped()):
        path = M.model_path(game)
        if path.exists():
            rows.append(table_row(M.read(path), path))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------
# what the notebook reads
# --------------------------------------------------------------------------


def usable_model(game: str) -> M.Model | None:
    """``game``'s shipped model, or None (with a printed note) when it has none or it does not fit the code."""
    try:
        return M.model_for(game)
    except M.ModelError as e:
        print(f"note: {e}")
        return None


def cache_folder() -> Path:
    """Where ``make model`` keeps its features: ``data/explain`` of the checkout the package lives in."""
    from . import notebooks

    return Path(notebooks.CHECKOUT) / CACHE


def predictions(df: pd.DataFrame, games: list[str], limit: int = SAMPLE) -> pd.DataFrame:
    """Held-out predictions of the shipped models (those with a booster) on the solved deals of ``df``: ``game,
    deal, won, p_win, held_out`` and every feature. Features come from ``make model``'s cache when it holds them
    (it is only read), else are computed here, at most ``limit`` deals a game.

    A deal is held out when its model never trained on it; a small dataset may hold only training deals (then
    ``held_out`` is False: its quality is not a held-out one).
    """
    v = solved(df)
    out = []
    for game in games:
        model = usable_model(game)
        d = v[v.game == game]
        if model is None or model.constant or d.empty:
            continue
        trained = _in_ranges(d.deal.to_numpy(), model.training.get("deals", []))
        pick = d[~trained] if (~trained).any() else d
        path = cache_folder() / f"{game}-seed{SEED}-{F.feature_hash()}.parquet"
        cached = pd.read_parquet(path) if path.exists() else pd.DataFrame(columns=list(F.NAMES), dtype=float)
        have = pick[pick.deal.isin(cached.index)]
        fresh = pick[~pick.deal.isin(cached.index)]
        if len(fresh) > limit:
            fresh = fresh.sample(limit, random_state=0)
        parts = [cached.loc[have.deal.to_numpy()]] if len(have) else []
        if len(fresh):
            parts.append(cached_features(game, fresh.deal, cache=None, jobs=1, quiet=True))
        X = pd.concat(parts).sort_index()
        X.index = X.index.astype(np.int64)
        won = d.set_index("deal").won.loc[X.index].to_numpy(bool)
        frame = X.assign(game=game, won=won, p_win=model.predict(X), held_out=bool((~trained).any()))
        out.append(frame.rename_axis("deal").reset_index())
    cols = ["deal", *F.NAMES, "game", "won", "p_win", "held_out"]
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=cols)


def _in_ranges(deals: np.ndarray, ranges: list[list[int]]) -> np.ndarray:
    inside = np.zeros(len(deals), bool)
    for lo, hi in ranges:
        inside |= (deals >= lo) & (deals <= hi)
    return inside


def contributions(game: str, X: pd.DataFrame) -> pd.DataFrame:
    """Long form of ``game``'s model's contributions on the rows of ``X``: ``feature, value, push`` (empty without a booster)."""
    model = usable_model(game)
    if model is None or model.constant or X.empty:
        return pd.DataFrame(columns=["feature", "value", "push"])
    c = model.contributions(X[list(F.NAMES)].reset_index(drop=True)).drop(columns="bias")
    vals = X[c.columns].reset_index(drop=True)
    return pd.DataFrame({"feature": np.repeat(c.columns.to_numpy(), len(c)), "value": vals.to_numpy().T.ravel(),
                         "push": c.to_numpy().T.ravel()})


def importance(long: pd.DataFrame) -> pd.Series:
    """The mean absolute push of each feature, largest first."""
    if long.empty:
        return pd.Series(dtype=float)
    return long.assign(a=long.push.abs()).groupby("feature").a.mean().sort_values(ascending=False)


def deal_features(game: str, deals, seed: int = SEED) -> pd.DataFrame:
    """The features of some deals of ``game`` (index: deal), computed here (no cache)."""
    return cached_features(game, deals, seed, cache=None, jobs=1, quiet=True)


def per_base(deals, seed: int = SEED, game: str = "selective-castle") -> pd.DataFrame:
    """Each deal read at every base rank: the features of the deal with its shared base fixed in advance (the
    solver's 13 fixed-base problems; the probes then play that base), a row per ``deal, base``."""
    from sim.game import Game
    from sim.kernels.layout import S_BASE

    g = Game(game)
    states, keys = [], []
    for d in deals:
        start = g.deal(int(d), seed)
        for b in range(13):
            s = start.copy()
            s.array[S_BASE:S_BASE + 4] = b
            states.append(s)
            keys.append((int(d), b))
    X = F.features(g, states)
    return X.assign(deal=[k[0] for k in keys], base=[k[1] for k in keys])


def base_verdicts(df: pd.DataFrame, game: str = "selective-castle") -> pd.DataFrame:
    """Per ``deal, base``: did the solver win that base (its ``bases_won`` mask: 1.0 won, 0.0 lost, NaN unsettled)."""
    if "bases_won" not in df.columns:
        return pd.DataFrame(columns=["deal", "base", "won"])
    rows = df[(df.game == game) & df.bases_won.notna()]
    unknown = rows.bases_unknown if "bases_unknown" in rows.columns else pd.Series(0, index=rows.index)
    out = []
    for deal, mask, unk in zip(rows.deal, rows.bases_won.astype(int), unknown.fillna(0).astype(int)):
        for b in range(13):
            out.append({"deal": int(deal), "base": b, "won": np.nan if unk >> b & 1 else float(mask >> b & 1)})
    return pd.DataFrame(out, columns=["deal", "base", "won"]).drop_duplicates(["deal", "base"])


# --------------------------------------------------------------------------
# the notebook's figures
# --------------------------------------------------------------------------

#: the three models of the quality figure, smallest first
STAGES = (("layout alone AUC", "the layout alone"), ("no beam AUC", "+ greedy, strategist, lookahead"), ("AUC", "+ a quick beam (the model)"))


def plot_quality(table: pd.DataFrame):
    """Held-out AUC per game: the layout alone, with the cheap players, with the quick beam too."""
    import matplotlib.pyplot as plt

    from .games import name

    t = table[table["AUC"].notna()].reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(t) + 1.4))
    y = np.arange(len(t))
    h = 0.26
    for k, (col, label) in enumerate(STAGES):
        vals = pd.to_numeric(t[col], errors="coerce").to_numpy(float)
        ax.barh(y + (k - 1) * h, np.nan_to_num(vals - 0.5), h, left=0.5, label=label, color=("#BBBBBB", "#88AACC", "#225588")[k])
    ax.set_yticks(y, [name(g) for g in t.game])
    ax.invert_yaxis()
    ax.set_xlim(0.5, 1.0)
    ax.set_xlabel("ROC AUC on held-out deals (won against lost)")
    ax.axvline(0.9, color="#999999", lw=0.8, ls=":")
    ax.set_title("What the layout alone tells, and what cheap play adds")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.6 / fig.get_figheight()), ncol=3, fontsize=7.5, frameon=False)
    fig.tight_layout()
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
        r = M.reliability(d.p_win, d.won, bins)
        r = r[r.deals >= least]
        ax.plot([0, 1], [0, 1], color="#999999", lw=0.8, ls="--")
        ax.plot(r.p_mean, r.won, "-", color=colour(g), lw=1)
        ax.scatter(r.p_mean, r.won, s=4 + 60 * np.sqrt(r.deals / max(len(d), 1)), color=colour(g), zorder=3)
        a = M.auc(d.p_win, d.won)
        ax.set_title(f"{name(g)}\nECE {M.ece(d.p_win, d.won):.3f}" + (f", AUC {a:.3f}" if a is not None else "")
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
        ax.scatter(d.value + jitter, d.push, s=3, alpha=0.35, color="#225588", lw=0)
        means = d.groupby("value").push.mean()
        ax.plot(means.index, means.to_numpy(), color="#D55E00", lw=1.2)
        ax.axhline(0, color="#999999", lw=0.6)
        ax.set_title(f, fontsize=8.5)
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
        ax.set_title(f, fontsize=8.5)
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
        kinds = [F.feature(f).kind for f in imp.index]
        ax.barh(range(len(imp)), imp.to_numpy(), color=[colour(g) if k == "play" else "#AAAAAA" for k in kinds])
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
        ax.plot(g.x, g.won, "o-", color="#0072B2")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(f"{f} at that base", fontsize=8)
        ax.set_title(F.feature(f).meaning if len(F.feature(f).meaning) < 60 else f, fontsize=7.5)
    axes[0][0].set_ylabel("share of bases the solver wins")
    fig.suptitle("Selective Castle, one fixed base at a time", fontsize=10)
    fig.tight_layout()
    return fig


def plot_no_good_base(pred: pd.DataFrame, features: tuple[str, ...] = ("base_buried_fewest", "bases_good", "base_depth_best")):
    """Selective Castle's lost deals against its won ones: how the layouts that leave no good base look."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(features), figsize=(3.6 * len(features), 3), squeeze=False)
    for ax, f in zip(axes[0], features):
        for won, colour, label in ((True, "#0072B2", "won"), (False, "#D55E00", "lost")):
            v = pred.loc[pred.won == won, f].dropna()
            if len(v):
                ax.hist(v, bins=np.arange(v.min() - 0.5, v.max() + 1.5) if v.nunique() < 40 else 30, density=True,
                        histtype="step", color=colour, label=f"{label} ({len(v):,})")
        ax.set_xlabel(f, fontsize=8)
        ax.legend(fontsize=7, frameon=False)
    axes[0][0].set_ylabel("share of deals")
    fig.suptitle("Selective Castle: the deals no base wins, against the others", fontsize=10)
    fig.tight_layout()
    return fig


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    data = argv[0] if argv else "data/published"
    t0 = time.time()
    table = build(data)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False))
    print(f"models in {M.MODELS}: {sum(p.stat().st_size for p in M.MODELS.glob('*.json.gz')) / 1024:.0f} KB; {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
