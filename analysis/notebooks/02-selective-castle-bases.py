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
# # 02 · Selective Castle: the base rank, and the rule sheet's advice
#
# With the solver's per-base verdicts (`bases=1`): how many of the 13 base
# ranks win a deal, how one fixed base would do, how often players found a
# winning base; then each piece of the rule sheet's advice switched off.

# %% tags=["parameters"]
DATA = None  # a dataset or a folder of them; None: $CASTLE_DATA, else data/published (here, else the checkout's)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis import advice, plots, stats, winnability
from analysis.games import SELECTIVE
from analysis.notebooks import interval, open_study, pct, points, show

df, _, FIGURES = open_study(DATA)
selective = df[df.game == SELECTIVE]
players = stats.players_by_strength(selective)  # heuristic players, weakest first
print(f"{len(df):,} games; {len(selective):,} of Selective Castle")
print(f"its players, weakest first: {', '.join(players)}")

# %% [markdown]
# ## How many bases win a deal; one base for every deal
# The solver's verdict for each of the 13 base ranks of a deal. The dashed line: the share of deals some base wins,
# which is what choosing the base per deal wins.

# %%
counts = winnability.bases_per_deal(df, SELECTIVE)
fixed = winnability.fixed_base_rates(df, SELECTIVE)
if len(fixed):
    chosen = 1 - float(counts.loc[counts.winning_bases == 0, "share"].sum())
    print(f"{int(counts.deals.sum()):,} deals with a verdict for every base; some base wins {pct(chosen)} of them")
    show(plots.bases_per_deal(counts), FIGURES / "02-bases-per-deal.png")
    show(plots.fixed_bases(fixed, chosen), FIGURES / "02-fixed-bases.png")
pd.DataFrame({"base": fixed.base, "deals": fixed.deals, "won": fixed.won, "unknown": fixed.unknown,
              "win rate if always chosen": [pct(x) for x in fixed.rate],
              "95% interval": [interval(a, b) for a, b in zip(fixed.ci_low, fixed.ci_high)]})

# %% [markdown]
# ## Did the players found a winning base?
# On the deals some base wins: how often the base a player founded (the rank of its first card home) is a winning one.

# %%
hits = winnability.chosen_base_hits(df, SELECTIVE)
hits = hits.set_index("player").reindex([p for p in players if p in set(hits.player)]).reset_index()
pd.DataFrame({"player": hits.player, "deals": hits.deals, "winning base founded": hits.winning_choice,
              "share": [pct(x) for x in hits.share], "95% interval": [interval(a, b) for a, b in zip(hits.ci_low, hits.ci_high)]})

# %% [markdown]
# ## The advice, tested
# Each piece of advice switched off in a player that follows it, on the same deals: its win rate with the advice
# minus without it, in percentage points, with its 95% interval (McNemar's exact test, Holm-adjusted over the table).

# %%
effects = advice.effects(df, SELECTIVE)
if len(effects):
    t = effects.rename(columns={"effect": "diff", "effect_low": "diff_low", "effect_high": "diff_high"})
    t["label"] = [plots.wrap(a, 48) for a in t["advice switched off"]]
    show(plots.forest(t, "label", "player", "Win rate with each piece of advice minus without it"), FIGURES / "02-advice.png")
pd.DataFrame({"player": effects.player, "advice switched off": effects["advice switched off"], "deals": effects.deals,
              "with advice": [pct(x) for x in effects["with advice"]], "without": [pct(x) for x in effects.without],
              "difference (points)": [f"{points(d)} [{points(a)} to {points(b)}]"
                                      for d, a, b in zip(effects.effect, effects.effect_low, effects.effect_high)],
              "p (Holm)": [stats.p_text(p) for p in effects.p_holm]})

# %% [markdown]
# ## Which bases the players found
# Each player's deals by the rank of the first card it sent home (its base), in percent of its deals: a player that
# chooses its base at random spreads them evenly, about 7.7% each.

# %%
founded = stats.base_rank_rates(selective[~selective.player.map(stats.is_solver)])
if len(founded):
    rows = [p for p in players if (founded.player == p).any()]
    grid = founded.pivot_table(index="player", columns="base_rank", values="deals", aggfunc="sum", fill_value=0)
    grid = grid.reindex(index=rows, columns=range(13), fill_value=0)
    share = 100 * grid.to_numpy() / grid.to_numpy().sum(axis=1, keepdims=True)
    fig, ax = plt.subplots(figsize=(9.5, 0.32 * len(rows) + 1.5))
    im = ax.imshow(share, cmap="Greens", vmin=0, vmax=max(20.0, float(np.nanmax(share))), aspect="auto")
    for i in range(len(rows)):
        for b in range(13):
            ax.text(b, i, f"{share[i, b]:.0f}", ha="center", va="center", fontsize=7,
                    color="white" if share[i, b] > 0.6 * im.norm.vmax else "black")
    ax.set_xticks(range(13), list("A23456789TJQK"))
    ax.set_yticks(range(len(rows)), [f"{p} ({int(n):,} deals)" for p, n in zip(rows, grid.sum(axis=1))], fontsize=8)
    ax.set_xlabel("base rank founded")
    ax.set_title("Selective Castle: the base each player founded, % of its deals", fontsize=10)
    fig.colorbar(im, ax=ax, label="% of the player's deals", fraction=0.03, pad=0.02)
    fig.tight_layout()
    show(fig, FIGURES / "02-bases-founded.png")
