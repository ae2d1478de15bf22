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
# # 02 · Selective Castle: the base rank
#
# In Selective Castle the first card founded sets the base of all four
# foundations. Which bases do players choose, how does each fare, and — where
# the solver's per-base verdicts (`bases_won`, a 13-bit mask) are present —
# how many bases win a deal and how often the player's choice was one of them?

# %% tags=["parameters"]
import os
from pathlib import Path

DATA = Path(os.environ.get("CASTLE_DATA", "data/default"))
FIGURES = Path(os.environ.get("CASTLE_FIGURES", "reports/figures"))

# %%
from analysis import plots, stats
from analysis.load import load_results

FIGURES.mkdir(parents=True, exist_ok=True)
df = load_results(DATA, games=["selective-castle"])
print(f"{len(df):,} Selective Castle games; players: {sorted(df.player.unique())}")

# %% [markdown]
# ## Win rate by chosen base rank

# %%
bases = stats.base_rank_rates(df)
if len(bases):
    fig = plots.base_ranks(bases)
    fig.savefig(FIGURES / "02-base-ranks.png", dpi=110)
bases

# %% [markdown]
# ## How many bases win a deal (solver)

# %%
counts = stats.winning_bases(df)
if len(counts):
    print(counts.to_string(index=False))
    for player in sorted(p for p in set(df.player) if not stats.is_solver(p)):
        c = stats.choice_was_winning(df, "selective-castle", player)
        if c["deals"]:
            print(f"{player}: winning base chosen on {c['winning_choice']} of {c['deals']} winnable deals ({c['share']:.1%})")
else:
    print("no per-base solver results in this dataset (run the solver with bases)")
