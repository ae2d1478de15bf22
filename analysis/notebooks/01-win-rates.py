# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.7
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
# published figures, the games compared **deal by deal** under perfect play,
# and every player's win rate beside perfect play.
#
# *Deal by deal* pairs the same seed and deal number, that is the same
# shuffled deck. Selective Castle and Streets and Alleys then share their
# tableau; Beleaguered Castle does not: it takes the deck's four Aces out to
# the foundations and deals the other 48 cards, in the same order, into 8
# piles of 6.

# %% tags=["parameters"]
DATA = None  # a dataset or a folder of them; None: $CASTLE_DATA, else data/published (here, else the checkout's)

# %%
import pandas as pd

from analysis import designs, plots, solvitaire, stats, winnability
from analysis.games import BELEAGUERED, SELECTIVE, STREETS, STUDY, in_study_order, name
from analysis.notebooks import interval, open_study, pct, points, show, study_players

df, manifests, FIGURES = open_study(DATA)
games = in_study_order(df.game)
study = [g for g in games if g in STUDY]
players = study_players(df)
solver = df[df.player.map(stats.is_solver)]
print(f"{len(df):,} games from {len(manifests)} experiment(s)")
print(f"games: {', '.join(name(g) for g in games)}")
print(f"players of the study's games, weakest first: {', '.join(players)}")

# %% [markdown]
# ## The answer and each game's winnability, as the README gives them
# The README's own functions (`analysis/readme.py`, `analysis/readme_tables.py`) on this dataset, so every number
# here is the README's: each game over **all** its exact runs, each in its design (the plain runs of the first
# deals, the precision runs' phases, the unknowns solved again), the unknowns counted both ways.

# %%
from IPython.display import Markdown

from analysis import readme, readme_tables

display(Markdown("\n".join(readme.headline(df)) or "(the study's games are not solved in this dataset)"))  # noqa: F821
display(Markdown(readme_tables.winnability_table(df, manifests)))  # noqa: F821 (a notebook builtin)
for text in (readme_tables.again_text(df, manifests), readme_tables.solvitaire_text(df)):
    if text:
        display(Markdown(text))  # noqa: F821 (a notebook builtin)

# %% [markdown]
# ## The plain runs only, beside Blake & Gent's Solvitaire
# Only the plain runs (the first deals every game's solver played, at one budget): fewer deals than above, so a
# wider interval and a slightly different estimate; the deal-by-deal comparisons below use these deals. Unknown
# verdicts count both ways: the interval runs from "all lost" to "all won"; the estimate is its midpoint.

# %%
if len(solver):
    w = winnability.winnability(solver).set_index("game").loc[in_study_order(solver.game)].reset_index()
    display(pd.DataFrame({  # noqa: F821 (a notebook builtin)
        "game": [name(g) for g in w.game], "plain runs' deals": w.deals, "won": w.won, "lost": w.lost,
        "unknown": w.unknown, "winnable (plain runs only)": [pct(x, 2) for x in w.rate],
        "95% interval": [interval(a, b, 2) for a, b in zip(w.ci_low, w.ci_high)],
        "Solvitaire": [f"{pct(p, 2)} ± {100 * h:.2f}" if p == p else "" for p, h in zip(w.published, w.published_half_width)]}))
else:
    print("no solver rows in this dataset")

# %% [markdown]
# Against Solvitaire as a test, over every exact run of each game (the solver in phases too): ours minus theirs,
# the interval's outer bounds with the unknowns of both counted both ways, z on the two sampling standard errors,
# the two-sided p and Holm's over the games compared, how far the unknowns could move the difference.

# %%
test = solvitaire.against(designs.perfect_play_by_game(df[df.game.isin(list(winnability.PUBLISHED))]))
if len(test):
    display(pd.DataFrame({  # noqa: F821 (a notebook builtin)
        "game": [name(g) for g in test.game], "difference (points)": [f"{points(d, 3)} [{points(a, 3)} to {points(b, 3)}]"
                                                                      for d, a, b in zip(test["diff"], test.diff_low, test.diff_high)],
        "z": test.z.round(2), "p": test.p.round(3), "p (Holm)": test.p_holm.round(3),
        "the unknowns could move it by (points)": (100 * test.moved).round(3),
        "rules": ["Solvitaire's preset" if not d else ", ".join(d) for d in test.differences]}))

# %% [markdown]
# ## Under perfect play, deal by deal
# Each table counts the deals both games were solved on (the same seed and deal number: the same shuffled deck) by
# the first game's verdict (rows) and the second's (columns). The difference counts the unknowns both ways: its low
# bound with the first game's unknowns lost and the second's won, its high bound the other way.

# %%
display(Markdown(readme_tables.perfect_play_table(solver)))  # noqa: F821 (the README's table of these pairs)
for a, b in [(SELECTIVE, STREETS), (SELECTIVE, BELEAGUERED)]:
    pp = winnability.perfect_play_pair(solver, a, b)
    if pp is None:
        continue
    print(f"{name(a)} minus {name(b)}: {points(pp.diff)} points [{points(pp.diff_low)} to {points(pp.diff_high)}] "
          f"on {pp.deals:,} deals; won in {name(b)} but lost in {name(a)}: {pp.a_lost_b_won or 'none'}")
    display(pp.table.rename_axis(index=f"{name(a)} ↓", columns=f"{name(b)} →"))  # noqa: F821 (a notebook builtin)

# %% [markdown]
# ## Every player beside perfect play
# The players of two study games or more, weakest first (the variants of one game's experiments, such as the
# advice's, are in notebook 02), and perfect play; 95% intervals. Each on its own deals: a player over the deals it
# played, perfect play over every deal the solver settled (many more in Selective Castle), so a strong player can
# come out a little above perfect play.

# %%
rates = winnability.rates_with_perfect_play(df[df.game.isin(study)], solver[solver.game.isin(study)])
if len(rates):
    show(plots.headline(rates, players, study), FIGURES / "01-win-rates.png")
shown = [p for p in players + [winnability.PERFECT] if (rates.player == p).any()]
table = pd.DataFrame({"player": shown})
for game in study:
    r = rates[rates.game == game].set_index("player")
    table[name(game)] = [f"{pct(r.rate[p])} [{interval(r.ci_low[p], r.ci_high[p])}]" if p in r.index else "" for p in shown]
table
