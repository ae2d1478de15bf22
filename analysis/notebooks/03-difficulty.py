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
# # 03 · The ladder of players and the difficulty of a deal
#
# Each rung's share of the solver's winnable deals won against its CPU per
# deal; a deal's difficulty as the cheapest rung that wins it, side by side
# for the three games on the same deals.

# %% tags=["parameters"]
DATA = None  # a dataset or a folder of them; None: $CASTLE_DATA, else data/published

# %%
from analysis import ladder, plots
from analysis.games import SELECTIVE, STREETS, in_study_order
from analysis.notebooks import open_study

df, _, FIGURES = open_study(DATA)
games = in_study_order(df.game)
solved = ladder.verdicts(df)
print(f"rungs, cheapest first: {ladder.rungs(df)}; deals the solver settled: {len(solved):,}")

# %%
table = ladder.ladder_table(df, solved)
plots.ladder(table, games).savefig(FIGURES / "03-ladder.png", dpi=110, bbox_inches="tight")
table

# %% [markdown]
# ## Difficulty by rung

# %%
diff = ladder.difficulty_by_rung(df, solved)
shares = ladder.difficulty_shares(diff)
if len(shares):
    plots.difficulty(shares[[g for g in games if g in shares.columns]]).savefig(FIGURES / "03-difficulty.png", dpi=110,
                                                                              bbox_inches="tight")
shares

# %%
ladder.paired_difficulty(diff, SELECTIVE, STREETS) if len(diff) else None
