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
# # 01 · Win rates: Selective Castle, Streets and Alleys, Beleaguered Castle
#
# The three games compared player by player, with 95% Wilson intervals, then
# **paired deal by deal**: Selective Castle and Streets and Alleys share the
# tableau of every deal id, so each deal is its own control.

# %% tags=["parameters"]
import os
from pathlib import Path

DATA = Path(os.environ.get("CASTLE_DATA", "data/default"))
FIGURES = Path(os.environ.get("CASTLE_FIGURES", "reports/figures"))

# %%
from analysis import plots, stats
from analysis.load import load_manifest, load_results

FIGURES.mkdir(parents=True, exist_ok=True)
df = load_results(DATA)
manifest = load_manifest(DATA)
print(f"{len(df):,} games; games: {sorted(df.game.unique())}; players: {sorted(df.player.unique())}")

# %% [markdown]
# ## Win rates with intervals

# %%
rates = stats.win_rates(df)
fig = plots.win_rates(rates)
fig.savefig(FIGURES / "01-win-rates.png", dpi=110)
rates

# %% [markdown]
# ## Paired by deal: Selective Castle against Streets and Alleys
#
# The 2x2 table counts deals won in both, in one only, in neither; McNemar's
# exact test asks whether the discordant deals lean one way; the difference
# in win rate has Newcombe's paired interval.

# %%
pairs = []
for player in sorted(df.player.unique()):
    pair = stats.paired(df, ("selective-castle", player), ("streets-and-alleys", player))
    if pair is None:
        print(f"{player}: the two games share no deal here")
        continue
    pairs.append(pair)
    print(f"{player}: SC {pair.rate_a:.2%} vs SA {pair.rate_b:.2%}; diff {pair.diff:+.2%} "
          f"[{pair.diff_low:+.2%}, {pair.diff_high:+.2%}], McNemar p = {pair.p_value:.2g}")
    display(pair.table())  # noqa: F821 (a notebook builtin)

# %%
if pairs:
    fig = plots.paired_differences(stats.paired_table(pairs))
    fig.savefig(FIGURES / "01-paired.png", dpi=110)
