# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 02 · Selective Castle: the base rank, and the rule sheet's advice
#
# With the solver's per-base verdicts (`bases=1`): how many of the 13 base
# ranks win a deal, how one fixed base would do, how often players found a
# winning base; then each piece of the rule sheet's advice switched off.

# %% tags=["parameters"]
DATA = None  # a dataset or a folder of them; None: $CASTLE_DATA, else data/published

# %%
from analysis import advice, plots, stats, winnability
from analysis.games import SELECTIVE
from analysis.notebooks import open_study

df, _, FIGURES = open_study(DATA)
print(f"{len(df):,} games; Selective Castle players: {sorted(df[df.game == SELECTIVE].player.unique())}")

# %% [markdown]
# ## How many bases win a deal; one base for every deal

# %%
counts = winnability.bases_per_deal(df, SELECTIVE)
fixed = winnability.fixed_base_rates(df, SELECTIVE)
if len(fixed):
    plots.bases_per_deal(counts).savefig(FIGURES / "02-bases-per-deal.png", dpi=110, bbox_inches="tight")
    plots.fixed_bases(fixed).savefig(FIGURES / "02-fixed-bases.png", dpi=110, bbox_inches="tight")
fixed

# %% [markdown]
# ## Did the players found a winning base?

# %%
winnability.chosen_base_hits(df, SELECTIVE)

# %% [markdown]
# ## The advice, tested (paired by deal, Holm-adjusted)

# %%
effects = advice.effects(df, SELECTIVE)
if len(effects):
    t = effects.rename(columns={"effect": "diff", "effect_low": "diff_low", "effect_high": "diff_high"})
    t["label"] = [f"{p}: {a}" for p, a in zip(effects.player, effects["advice switched off"])]
    plots.paired(t, "What each piece of advice is worth").savefig(FIGURES / "02-advice.png", dpi=110, bbox_inches="tight")

# %%
rates = stats.base_rank_rates(df[(df.game == SELECTIVE) & ~df.player.map(stats.is_solver)])
if len(rates):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3))
    for player, r in rates.groupby("player"):
        ax.plot(r.base_rank, r.deals, "o-", label=player)
    ax.set_xticks(range(13), list("A23456789TJQK"))
    ax.set_xlabel("base rank founded")
    ax.set_ylabel("deals")
    ax.legend(fontsize=7)
    fig.savefig(FIGURES / "02-bases-founded.png", dpi=110, bbox_inches="tight")
effects
