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

``python -m analysis.explain [DATA]`` (``make model``) rebuilds the shipped models and prints their table (``make
model`` then trains the models of a deal's rating: :mod:`analysis.explain_ratings`);
``python -m analysis.explain --typical`` only writes again each shipped model's usual values (what ``castle
explain``'s points compare with: the medians of its first training deals' features, as :func:`~sim.explain.model.fit`
takes them), in a minute, the boosters untouched.
The notebook's figures of them are :mod:`analysis.explain_plots`.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from sim.core import files
from sim.explain import features as explain_features
from sim.explain import model as explain_model

#: the share of a game's deal range held out (its highest-numbered deals)
HOLDOUT = 0.2
SEED = 0
#: where computed features are cached
CACHE = Path("data") / "explain"
CHUNK = 1000
#: the notebook computes at most this many held-out deals a game that the cache does not hold
SAMPLE = 600

LAYOUT = [f.name for f in explain_features.FEATURES if f.kind == "layout"]
CHEAP = LAYOUT + [f.name for f in explain_features.FEATURES if f.probe and f.probe != "beam"]
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
    X = explain_features.features(g, states)
    return X.to_numpy(), (time.process_time() - t0) * 1000 / max(len(deals), 1)


def cached_features(game: str, deals, seed: int = SEED, cache: Path | None = CACHE, jobs: int = 2,
                    quiet: bool = False) -> pd.DataFrame:
    """The features of ``deals`` of ``game`` (index: deal), computed once and kept in ``cache`` (None: not kept)."""
    deals = np.unique(np.asarray(deals, np.int64))
    path = None if cache is None else Path(cache) / f"{game}-seed{seed}-{explain_features.feature_hash()}.parquet"
    have = pd.read_parquet(path) if path is not None and path.exists() else pd.DataFrame(columns=list(explain_features.NAMES), dtype=float)
    todo = np.setdiff1d(deals, have.index.to_numpy(np.int64))
    if len(todo):
        t0 = time.time()
        parts = [todo[i:i + CHUNK] for i in range(0, len(todo), CHUNK)]
        if jobs > 1 and len(parts) > 1:
            from joblib import Parallel, delayed

            done = Parallel(n_jobs=jobs)(delayed(_chunk)(game, seed, p) for p in parts)
        else:
            done = [_chunk(game, seed, p) for p in parts]
        new = pd.DataFrame(np.vstack([d[0] for d in done]), columns=list(explain_features.NAMES), index=pd.Index(todo, name="deal"))
        have = new if have.empty else pd.concat([have, new]).sort_index()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            with files.replacing(path) as tmp:
                have.to_parquet(tmp)
        if not quiet:
            ms = np.mean([d[1] for d in done])
            print(f"  {game}: features of {len(todo):,} deals, {ms:.2f} CPU-ms a deal, {time.time() - t0:.0f} s", flush=True)
    have.index = have.index.astype(np.int64)
    return have.loc[deals]


def _timing(game: str, model: explain_model.Model, deals, seed: int = SEED, n: int = 300) -> dict:
    """CPU milliseconds a deal for the features (fresh, in this process) and for the model (probability and
    contributions), on ``n`` of ``deals``."""
    from sim.game import Game

    g = Game(game)
    states = [g.deal(int(d), seed) for d in np.asarray(deals)[:n]]
    explain_features.features(g, states[:2])  # the kernel loaded
    t0 = time.process_time()
    X = explain_features.features(g, states)
    t1 = time.process_time()
    model.predict(X)
    model.contributions(X)
    t2 = time.process_time()
    return {"features_ms": round((t1 - t0) * 1000 / len(states), 2), "model_ms": round((t2 - t1) * 1000 / len(states), 3)}


def train_game(game: str, verdicts: pd.DataFrame, cache: Path | None = CACHE, jobs: int = 2, seed: int = SEED,
               variants: bool = True) -> explain_model.Model:
    """``game``'s model, trained on its first deals and judged on the rest (its ``holdout``)."""
    v = verdicts[verdicts.game == game]
    at = split_at(v.deal)
    train = v.deal.to_numpy() < at
    if min(v.won[train].sum(), (~v.won[train]).sum()) < explain_model.MIN_CLASS:  # (nearly) all one verdict: no features needed
        model = explain_model.constant_model(game, v.won[train], v.deal[train], seed)
        test = ~train
        model.holdout = {**explain_model.quality(np.full(test.sum(), model.base_rate), v.won[test]),
                         "deal_ranges": explain_model._ranges(v.deal[test].to_numpy())}
        return model
    X = cached_features(game, v.deal, seed, cache, jobs)
    won = v.set_index("deal").won.loc[X.index].to_numpy(bool)
    train = X.index.to_numpy() < at
    model = explain_model.fit(game, X[train].reset_index(drop=True), won[train], X.index[train], seed=seed)
    test = ~train
    p = model.predict(X[test])
    holdout = {**explain_model.quality(p, won[test]), "deal_ranges": explain_model._ranges(X.index[test].to_numpy()),
               "won_by_probe": int(explain_features.won_by_probe(X[test]).sum())}
    if variants and not model.constant:
        for name, cols in VARIANTS.items():
            m = explain_model.fit(game, X.loc[train, cols].reset_index(drop=True), won[train], X.index[train], seed=seed)
            holdout[name] = explain_model.quality(m.predict(X.loc[test, cols]), won[test])
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
        path = model.save(None if out is None else Path(out) / explain_model.model_path(game).name)
        rows.append(table_row(model, path))
        print(f"  {time.time() - t0:.0f} s: {rows[-1]}", flush=True)
    return pd.DataFrame(rows)


def table_row(model: explain_model.Model, path: Path | None = None) -> dict:
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
    for game in in_study_order(games or explain_model.shipped()):
        path = explain_model.model_path(game)
        if path.exists():
            rows.append(table_row(explain_model.read(path), path))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------
# what the notebook reads
# --------------------------------------------------------------------------


def usable_model(game: str) -> explain_model.Model | None:
    """``game``'s shipped model, or None (with a printed note) when it has none or it does not fit the code."""
    try:
        return explain_model.model_for(game)
    except explain_model.ModelError as e:
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
        path = cache_folder() / f"{game}-seed{SEED}-{explain_features.feature_hash()}.parquet"
        cached = pd.read_parquet(path) if path.exists() else pd.DataFrame(columns=list(explain_features.NAMES), dtype=float)
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
    cols = ["deal", *explain_features.NAMES, "game", "won", "p_win", "held_out"]
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
    c = model.contributions(X[list(explain_features.NAMES)].reset_index(drop=True)).drop(columns="bias")
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

    g = Game(game)
    states, keys = [], []
    for d in deals:
        start = g.deal(int(d), seed)
        for b in range(13):
            states.append(start.with_base(b))
            keys.append((int(d), b))
    X = explain_features.features(g, states)
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


def usual_values(model: explain_model.Model, seed: int = SEED) -> dict[str, float]:
    """``model``'s usual values (:func:`sim.explain.effects.typical_of`) taken again from the features of its first
    training deals: what :func:`~sim.explain.model.fit` records, without training again ({} for a constant model)."""
    from sim.explain.effects import TYPICAL, typical_of

    if model.constant:
        return {}
    deals = np.array([d for lo, hi in model.training["deals"] for d in range(lo, min(hi, lo + TYPICAL) + 1)][:TYPICAL])
    X = cached_features(model.game, deals, seed, cache=None, jobs=1, quiet=True)
    return typical_of(X, X.index.to_numpy(), model.columns)


def add_typical(path: Path) -> int:
    """Write the model file ``path`` again with its usual values (:func:`usual_values`), every other field as it
    was (its booster's text too); how many features got one."""
    import gzip
    import json

    raw = files.read_bytes(path, files.MODEL_FILE, "a model file")
    d = files.loads_json(files.gunzip(raw, files.MODEL_TEXT, "a model file", str(path)))
    d["typical"] = usual_values(explain_model.read(path))
    text = json.dumps(d, indent=1, sort_keys=True) + "\n"
    files.write_atomic(Path(path), gzip.compress(text.encode(), compresslevel=9, mtime=0))
    return len(d["typical"])


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--typical"]:
        for game in explain_model.shipped():
            print(f"{game}: usual values of {add_typical(explain_model.model_path(game))} features", flush=True)
        return
    data = argv[0] if argv else "data/published"
    t0 = time.time()
    table = build(data)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False))
    print(f"models in {explain_model.MODELS}: {sum(p.stat().st_size for p in explain_model.MODELS.glob('*.json.gz')) / 1024:.0f} KB; {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
