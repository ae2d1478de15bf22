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
# # 01 · Winnability and win rates: Selective Castle, Streets and Alleys, Beleaguered Castle
#
# The study's shipped data (`data/published`, or any dataset named by
# `CASTLE_DATA`): each game's winnability under perfect play beside the
# published figures, the games compared **deal by deal** under perfect play
# (the same tableau in each), and every player's win rate beside perfect play.

# %% tags=["parameters"]
DATA = None  # a dataset or a folder of them; None: $CASTLE_DATA, else data/published

# %%
from analysis import plots, stats, winnability
from analysis.games import BELEAGUERED, SELECTIVE, STREETS, in_study_order
from analysis.notebooks import open_study

df, manifests, FIGURES = open_study(DATA)
games = in_study_order(df.game)
players = stats.players_by_strength(df)
solver = df[df.player.map(stats.is_solver)]
print(f"{len(df):,} games from {len(manifests)} experiment(s); games: {games}; players: {players}")

# %% [markdown]
# ## Winnability, beside Blake & Gent's Solvitaire
# Unknown verdicts count both ways: the interval runs from "all lost" to "all won"; the estimate is its midpoint.

# %%
winnability.winnability(solver) if len(solver) else "no solver rows in this dataset"

# %% [markdown]
# ## Under perfect play, deal by deal
# Rows: the first game's verdict; columns: the second's. The difference counts an unknown as not won.

# %%
for a, b in [(SELECTIVE, STREETS), (SELECTIVE, BELEAGUERED)]:
    pp = winnability.perfect_play_pair(solver, a, b)
    if pp is None:
        continue
    print(f"{a} - {b}: {100 * pp.diff:+.2f} points [{100 * pp.diff_low:+.2f}, {100 * pp.diff_high:+.2f}] on {pp.deals:,} deals; "
          f"won in {b} but lost in {a}: {pp.a_lost_b_won or 'none'}")
    display(pp.table)  # noqa: F821 (a notebook builtin)

# %% [markdown]
# ## Every player beside perfect play

# %%
rates = winnability.rates_with_perfect_play(df, solver)
fig = plots.headline(rates, players, games)
fig.savefig(FIGURES / "01-win-rates.png", dpi=110, bbox_inches="tight")
rates
