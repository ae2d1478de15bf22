# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 04 · What makes a deal hard, before any search
#
# `castle explain` gives a deal a calibrated probability of being winnable
# and the few features that push it most up or down, in a few milliseconds.
# Its features are named as a player would name them: how deep the cards the
# foundations need next lie, what lies on what, the moves at the start, and
# how far cheap players get from the deal (a greedy player, the rule sheet's
# strategist, a two-move lookahead, a quick beam search of 5,000 positions).
# A LightGBM model per game learns the solver's verdicts on the study's
# deals (the first 80% of each game's solved deals; the rest are held out),
# calibrated by a logistic regression on its out-of-fold scores. Here: each
# model's quality on the held-out deals, what the layout alone tells against
# what cheap play adds, the calibration, each feature's effect, and
# Selective Castle read base by base.

# %% tags=["parameters"]
DATA = None  # a dataset or a folder of them; None: $CASTLE_DATA, else data/published (here, else the checkout's)

# %%
import pandas as pd

from analysis import explain as ex
from analysis import explain_plots as ex_plots
from analysis.games import SELECTIVE, in_study_order, name
from analysis.notebooks import open_study, show

df, _, FIGURES = open_study(DATA)
table = ex.model_table()
solved = ex.solved(df)
games = [g for g in in_study_order(solved.game) if g in set(table.game)]
print(f"models shipped: {', '.join(name(g) for g in table.game)}")
print(f"games with solver verdicts here and a model: {', '.join(name(g) for g in games) or 'none'}")

# %% [markdown]
# ## Each model's quality, on deals it never saw
# From the model files (`make model` writes them): ROC AUC (won against lost), expected calibration error (ten
# equal bins), and the CPU milliseconds a deal of the features and of the model. A game whose solved deals are all
# winnable gets a constant model: its share, and probability 1 for a deal a probe wins.

# %%
show(ex_plots.plot_quality(table), FIGURES / "04-quality.png")
table

# %% [markdown]
# ## The layout alone, and what cheap play adds
# The same split, three models: the layout's features alone; with the greedy player, the strategist and the
# lookahead; with the quick beam too. The layout tells a little (the depth of the cards needed next, the cards
# buried under later cards of their suit, the Kings off the bottom); watching cheap players try the deal tells
# much more, and a quick beam most of what remains.

# %%
stages = table[table["AUC"].notna()][["game", "layout alone AUC", "no beam AUC", "AUC", "features ms"]]
stages.assign(game=[name(g) for g in stages.game]).rename(
    columns={"layout alone AUC": "layout alone", "no beam AUC": "+ cheap players", "AUC": "+ quick beam"})

# %% [markdown]
# The layout's features one at a time, with no model: the share of the deals here that the solver won, against
# each feature's value. (The held-out deals of the cache of `make model`, or a sample computed here.)

# %%
pred = ex.predictions(df, games)
if pred.empty:
    print("note: no deal here has both a solver verdict and a model with a booster: no layout, no calibration to draw")
else:
    if not pred.held_out.all():
        print("note: some games' deals here were all trained on (a small dataset): their quality is not a held-out one")
    show(ex_plots.plot_marginal(pred, [g for g in games if g in set(pred.game)]), FIGURES / "04-layout.png")

# %% [markdown]
# ## Calibration
# The same deals, binned by the probability given: a calibrated model's points lie on the diagonal.

# %%
if len(pred):
    show(ex_plots.plot_reliability(pred, [g for g in games if g in set(pred.game)]), FIGURES / "04-calibration.png")
quality = pd.DataFrame([{"game": name(g), **ex.explain_model.quality(d.p_win, d.won)} for g, d in pred.groupby("game", sort=False)])
quality

# %% [markdown]
# ## Each feature's effect
# Per feature, its push on the log-odds of winning (SHAP values through the calibration): which features move the
# probability most, and how each one's push changes with its value. A push is the feature's effect *given the
# others*: once the quick beam has been watched, a deep layout can push a deal up, for it explains a beam that
# got few cards home without the deal being lost (the figure above shows the layout's effects alone).

# %%
effect_games = [g for g in in_study_order(set(table.game[table.model == "lightgbm"]) & set(df.game))][:3]
longs = {}
for g in effect_games:
    rows = pred[pred.game == g] if len(pred) else pred
    if rows.empty:  # no verdicts here: the deals the dataset played
        deals = sorted(df.loc[df.game == g, "deal"].unique())[:300]
        rows = ex.deal_features(g, deals)
    longs[g] = ex.contributions(g, rows)
if any(len(v) for v in longs.values()):
    show(ex_plots.plot_importance(longs), FIGURES / "04-importance.png")
    for g in effect_games:
        if len(longs[g]):
            show(ex_plots.plot_effects(longs[g], title=name(g)), FIGURES / f"04-effects-{g}.png")
else:
    print("note: no model with a booster for the games of this dataset")

# %% [markdown]
# ## Selective Castle, base by base
# With the solver's per-base verdicts: each deal read at every base rank (its shared base fixed in advance, as the
# solver splits it), and the share of (deal, base) pairs won against what lies where at that base.

# %%
bases = ex.base_verdicts(df)
if bases.empty:
    print("note: no per-base verdicts of Selective Castle here (the solver's bases=1 runs)")
else:
    deals = sorted(bases.deal.unique())[:150]
    pb = ex.per_base(deals).merge(bases, on=["deal", "base"])
    print(f"{len(deals):,} deals x 13 bases; the solver wins {pb.won.mean():.1%} of the pairs it settled")
    show(ex_plots.plot_bases(pb), FIGURES / "04-bases.png")

# %% [markdown]
# ## The layouts that leave no good base
# Selective Castle's lost deals (no base wins) against its won ones, by the features that sum the bases up: even
# at its best base, how many cards lie under a later card of their suit; how many bases come close to that best.

# %%
sc = pred[pred.game == SELECTIVE] if len(pred) else pred
if len(sc) and sc.won.nunique() == 2:
    show(ex_plots.plot_no_good_base(sc), FIGURES / "04-no-good-base.png")
else:
    print("note: no lost and won deals of Selective Castle with features here")
summary = ["bases_on_top", "bases_good", "base_buried_fewest", "base_depth_best", "beam_home"]
sc.groupby("won")[summary].mean().round(2) if len(sc) else pd.DataFrame(columns=summary)
