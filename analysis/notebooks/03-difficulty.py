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
# # 03 · The ladder of players and the difficulty of a deal
#
# Each rung's share of the solver's winnable deals won against its CPU per
# deal; a deal's difficulty as the weakest rung that wins it, side by side
# for the three games on the same deals. The rungs are ordered by strength, as
# the conventions say (`analysis/conventions.py`): in a game, by the share of
# the solver's winnable deals each wins on the deals every rung played, ties
# by mean CPU a deal; never by CPU alone.
#
# *The same deals* are the same seed and deal number, that is the same
# shuffled deck. Selective Castle and Streets and Alleys then share their
# tableau; Beleaguered Castle does not: it takes the deck's four Aces out to
# the foundations and deals the other 48 cards, in the same order, into 8
# piles of 6.

# %% tags=["parameters"]
DATA = None  # a dataset or a folder of them; None: $CASTLE_DATA, else data/published (here, else the checkout's)

# %%
import pandas as pd
from IPython.display import Markdown

from analysis import difficulty_plots, ladder, plots, readme_tables, stats
from analysis.games import BELEAGUERED, SELECTIVE, STREETS, in_study_order, name
from analysis.notebooks import interval, open_study, pct, show, study_players

df, _, FIGURES = open_study(DATA)
# the rungs: the players of two study games or more (the variants of one game's experiments are not rungs, and their
# deals would shrink the deals every rung played); a game only one rung played has no ladder
players = study_players(df)
heur = df[~df.player.map(stats.is_solver) & df.player.isin(players)]
per_game = heur.groupby("game", observed=True).player.nunique()
games = [g for g in in_study_order(heur.game) if per_game.get(g, 0) >= 2]
heur = heur[heur.game.isin(games)]
solved = ladder.verdicts(df)
# a rung's colour, the same in every figure here and in the report (analysis/palette.py)
colours = plots.player_colours(players)
print(f"games: {', '.join(name(g) for g in games)}")
strength = ladder.strength(heur, solved)
print(f"rungs, weakest first over the games: {', '.join(ladder.order(strength))}; deals the solver settled: {len(solved):,}")
for g, pairs in ladder.swaps(strength).items():
    print(f"{name(g)}'s own order ranks " + ", ".join(f"{a} below {b}" for a, b in pairs))

# %% [markdown]
# ## The ladder
# The share of winnable deals won is over the deals the solver won (a game without solver rows shows the win rate).
# First the README's table (`analysis/readme_tables.py`: the rungs of the `ladder` experiment, each game's win rate
# and, in brackets, its share of the winnable deals), then the figure and every rung's numbers in full.

# %%
display(Markdown(readme_tables.ladder_table(df)))  # noqa: F821 (a notebook builtin)
table = ladder.ladder_table(heur, solved, ladder.order(strength))
if len(table):
    show(difficulty_plots.ladder(table, games, colours), FIGURES / "03-ladder.png")
pd.DataFrame({"game": [name(g) for g in table.game], "player": table.player, "deals": table.deals,
              "win rate": [pct(x) for x in table.rate], "winnable won": [pct(x) for x in table.share_of_winnable],
              "95% interval": [interval(a, b) for a, b in zip(table.share_ci_low, table.share_ci_high)],
              "CPU ms mean": table.cpu_ms_mean.round(1), "median": table.cpu_ms_median.round(1)})

# %% [markdown]
# ## Difficulty by rung
# A deal's difficulty is the weakest rung that wins it, by its game's own order; if none does, "solver only" when the solver won it,
# "unwinnable" when it proved it lost, "unknown" otherwise. Only deals every rung of a game played count.

# %%
diff = ladder.difficulty_by_rung(heur, solved)
shares = ladder.difficulty_shares(diff)
if len(shares):
    shares = shares[[g for g in games if g in shares.columns]]
    show(difficulty_plots.difficulty(shares, colours), FIGURES / "03-difficulty.png")
    shares = shares[shares.sum(axis=1) > 0]
shares.apply(lambda col: col.map(pct)).rename(columns=name) if len(shares) else shares

# %% [markdown]
# ## The same deal in two games
# Deals counted by their difficulty in the first game (rows) and in the second (columns); classes no deal has are
# left out.

# %%
for a, b in [(SELECTIVE, STREETS), (SELECTIVE, BELEAGUERED)]:
    if len(diff) and {a, b} <= set(diff.game):
        cross = ladder.paired_difficulty(diff, a, b)
        cross = cross.loc[cross.sum(axis=1) > 0, cross.sum() > 0]
        display(cross.rename_axis(index=f"{name(a)} ↓", columns=f"{name(b)} →"))  # noqa: F821 (a notebook builtin)

# %% [markdown]
# ## Difficulty from the solver: every move judged
# The `corridor` player judged every move of every position along each deal's winning line (it keeps the deal
# winnable, loses it, or stays unknown). A deal's difficulty index is the bits of luck a player choosing uniformly
# among sensible moves needs to stay on a winnable path (`sim/solver/corridor.py` says why this definition).
# Does it agree with the ladder? Spearman's rank correlation with the weakest winning rung, per game: over every
# winnable deal (those no rung wins tied at the top rank, `rho`) and over the deals some rung wins (`rho_rungs`).

# %%
from analysis import difficulty as difficulty_analysis

corr = difficulty_analysis.corridor_rows(df)
if len(corr):
    corr = difficulty_analysis.with_rungs(corr[corr.seed >= 0], df)
    cgames = [g for g in in_study_order(corr.game)]
    show(difficulty_plots.difficulty_index(corr, cgames), FIGURES / "03-difficulty-index.png")
    if corr.rung.ne("").any():
        show(difficulty_plots.difficulty_by_rung(corr, cgames), FIGURES / "03-difficulty-by-rung.png")
    display(Markdown(readme_tables.difficulty_table(df)))  # noqa: F821 (the README's table)
else:
    print("no corridor rows in this dataset (experiments/published/difficulty.toml makes them)")

# %% [markdown]
# ## PySol's deals by difficulty
# PySol FC's game numbers, judged the same way (`experiments/published/difficulty-pysol.toml`), so a player can open
# `pysol:N` in PySol knowing whether it is winnable and how hard; `castle deals GAME --pysol --difficulty hard` picks more.

# %%
catalogue = difficulty_analysis.catalogue(difficulty_analysis.corridor_rows(df))
if len(catalogue):
    display(Markdown(readme_tables.catalogue_table(df)))  # noqa: F821 (the README's table)
else:
    print("no PySol deals judged in this dataset (experiments/published/difficulty-pysol.toml judges them)")

# %% [markdown]
# ## Deals and players on one scale
# Every rung and every winnable deal the ladder played get a rating in Elo's points (`analysis/ratings.py`: a Rasch
# model, 400 points = 10:1 odds, `beam:budget=1000000` 1500 in every game), as the report's section of the same name.
# Below: each game's deals and rungs on the scale, the rungs' ratings with 95% intervals, the tiers and what named rungs
# won of each, games the fit did not see against what it predicted, and PySol FC's game numbers by tier.

# %%
from analysis import catalogue, rated, ratings_check
from analysis import ratings as ratings_analysis
from analysis.games import name as game_name
from analysis.labels import short_names
from analysis.notebooks import find_data

scales = rated.study(df, df, games)
if scales:
    names = short_names(list(players))
    on_scale = pd.concat([s.players().assign(game=g) for g, s in scales.items()], ignore_index=True)
    rated_deals = pd.concat([s.deals.assign(game=g) for g, s in scales.items()], ignore_index=True)
    show(difficulty_plots.ratings(on_scale, rated_deals, list(scales), colours, names=names, cuts=ratings_analysis.CUTS,
                                  tiers=ratings_analysis.TIERS), FIGURES / "03-ratings.png")
    display(on_scale.pivot(index="player", columns="game", values="rating").round(0)  # noqa: F821 (a notebook builtin)
            .reindex(on_scale.groupby("player").rating.mean().sort_values().index))
    tiers = pd.concat([rated.tiers_table(s).assign(game=g) for g, s in scales.items()], ignore_index=True)
    display(tiers.round(3))  # noqa: F821
    cal = []
    for g, s in scales.items():
        held = ratings_check.held_out_pairs(rated.outcomes(df, solved, g, s.rungs), None, folds=5)
        cal.append(ratings_check.calibration(held.rating, held.won).assign(game=g))
    show(difficulty_plots.calibration(pd.concat(cal, ignore_index=True), list(scales)), FIGURES / "03-ratings-calibration.png")
else:
    print("no ladder here to rate deals and players by (experiments/ladder.toml plays it)")
for g in catalogue.GAMES:  # a game the study's ladder did not play (Citadel): its own scale, from PySol's numbers
    own = None if g in scales else catalogue.own_scale(find_data(DATA), g)
    if own is not None:
        display(Markdown(f"**{game_name(g)}**, which the study's ladder did not play: the same fit on its ladder's games on "  # noqa: F821
                         f"{len(own.deals):,} of PySol's numbers, a scale of its own (`beam:budget=1000000` 1500 there too)"))
        display(own.players().round(0))  # noqa: F821
        display(rated.tiers_table(own).round(3))  # noqa: F821
display(Markdown(readme_tables.pysol_tiers_table(find_data(DATA))))  # noqa: F821 (the README's table)

# %% [markdown]
# ## Where players go wrong
# Each rung's games on the winnable deals it lost, judged by the solver: the move of its first mistake (from a winnable
# position to a lost one), the cards home then, and what kind of move it was (`sim/solver/mistakes.py` defines the kinds).

# %%
from analysis import mistakes as mistakes_analysis

first = mistakes_analysis.first_mistakes(df)
if len(first):
    from sim.solver.mistakes import KINDS, RUNGS

    mgames = in_study_order(first.game)
    rungs = [r for r in RUNGS if (first.rung == r).any()]
    show(difficulty_plots.first_mistakes(first, mgames, rungs), FIGURES / "03-first-mistakes.png")
    show(difficulty_plots.mistake_kinds(mistakes_analysis.kinds(first, list(KINDS)).reindex(rungs).dropna(how="all")), FIGURES / "03-mistake-kinds.png")
    display(mistakes_analysis.summary(first))  # noqa: F821 (a notebook builtin)
else:
    print("no mistakes rows in this dataset (experiments/published/mistakes.toml makes them)")
