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
# # 03 · Difficulty: solvability against heuristic play
#
# How far heuristic players fall short of what is winnable ("deals winnable
# but not won"), how close lost games come (cards home), how long wins take,
# and how the estimates converge as deals accumulate.

# %% tags=["parameters"]
import os
from pathlib import Path

DATA = Path(os.environ.get("CASTLE_DATA", "data/default"))
FIGURES = Path(os.environ.get("CASTLE_FIGURES", "reports/figures"))

# %%
from analysis import plots, stats
from analysis.load import load_results

FIGURES.mkdir(parents=True, exist_ok=True)
df = load_results(DATA)

# %% [markdown]
# ## The difficulty gap

# %%
gap = stats.winnable_not_won(df)
gap if len(gap) else print("no solver results: the gap needs the solver player")

# %% [markdown]
# ## Result mix, cards home, moves to win

# %%
stats.difficulty(df)

# %%
fig = plots.cards_home(df)
fig.savefig(FIGURES / "03-cards-home.png", dpi=110)

# %% [markdown]
# ## Convergence

# %%
fig = plots.convergence(stats.convergence(df))
fig.savefig(FIGURES / "03-convergence.png", dpi=110)
