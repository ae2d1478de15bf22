"""Deals and players on one scale: each rung's rating and each deal's, the tiers and what they mean, and how well
the ratings predict games they were not fitted on."""

from __future__ import annotations

import pandas as pd

from ... import catalogue
from ... import difficulty as difficulty_analysis
from ... import difficulty_plots, rated
from ... import ratings as ratings_analysis
from ... import ratings_check
from ... import explain_ratings as ER
from ...games import STUDY, in_study_order, name
from ..model import Report, Section
from ..page import pct

#: folds of the held-out pairs in the report (each fold a fit: about a second a game)
FOLDS = 5


def ratings(r: Report) -> Section | None:
    """One fit per game of the study the ladder played (:mod:`analysis.rated`), checked on what it did not see."""
    if len(r.ladder_order) < 2:
        return None
    scales = {g: s for g in r.games if g in STUDY and (s := rated.rate_game(r.cheap, r.verdicts, g)) is not None}
    if not scales:
        return None
    games = list(scales)
    own = _own_scales(r, games)
    players = pd.concat([s.players().assign(game=g) for g, s in scales.items()], ignore_index=True)
    every = pd.concat([players, *(s.players().assign(game=g) for g, s in own.items())], ignore_index=True)
    wide = every.assign(text=[_rating(a, b, c) for a, b, c in zip(every.rating, every.lo, every.hi)]) \
        .pivot(index="player", columns="game", values="text")
    order = players.groupby("player").rating.mean().sort_values().index
    order = [*order, *every[~every.player.isin(order)].groupby("player").rating.mean().sort_values().index]
    wide = wide.reindex(order)[[*games, *own]].fillna("won none or all: not rated")
    for g in own:  # (the study's rungs all play the study's games; not every one played PySol's numbers)
        played = set(catalogue.pysol_rows(r.data, g)[0].player)
        wide.loc[~wide.index.isin(played), g] = "not played"
    shown_players = pd.DataFrame({"rung (weakest first)": [r.name(p) for p in wide.index],
                                  **{_named(g, own): wide[g].to_numpy() for g in [*games, *own]}})
    tiers = []
    for g, s in [*scales.items(), *own.items()]:
        t = rated.tiers_table(s)
        tiers.append(t.assign(game=g))
    tiers = pd.concat(tiers, ignore_index=True)
    described = [p for p in ratings_analysis.DESCRIBED_BY if p in tiers.columns]
    shown_tiers = pd.DataFrame({
        "game": [_named(g, own) for g in tiers.game], "tier": tiers.tier,
        "ratings": [_span(a, b) for a, b in zip(tiers["from"], tiers["to"])],
        "deals": [f"{n:,} ({pct(x)})" for n, x in zip(tiers.deals, tiers.share)],
        **{f"{r.name(p)} won": [pct(x) if x == x else "–" for x in tiers[p]] for p in described}})
    index = difficulty_analysis.corridor_rows(r.df) if len(r.df) else pd.DataFrame()
    scores, cal, held, streams = [], [], [], {}
    for g, s in scales.items():
        o = rated.outcomes(r.cheap, r.verdicts, g, s.rungs)
        n = o.groupby("player").stream.nunique()
        streams[g] = ", ".join(f"{r.name(p)} on {k} random streams" for p, k in n[n > 1].items())
        idx = index[index.game == g][["seed", "deal", "difficulty"]] if len(index) else None
        pred = ratings_check.held_out_pairs(o, idx if idx is not None and len(idx) else None, folds=FOLDS)
        scores.append(ratings_check.scores(pred).assign(game=g))
        cal.append(ratings_check.calibration(pred.rating, pred.won).assign(game=g))
        held.append(ratings_check.held_out_players(o).assign(game=g))
    scores, cal, held = (pd.concat(x, ignore_index=True) for x in (scores, cal, held))
    what = {"rating": "the ratings (player minus deal)", "index": "the corridor's index (a logistic fit per player)",
            "rate": "the player's win rate alone", "two parameters": "a check: two parameters (a slope per player)"}
    shown_scores = pd.DataFrame({"game": [name(g) for g in scores.game], "predictor": [what[p] for p in scores.predictor],
                                 "held-out games": scores.games, "log loss": [f"{x:.3f}" for x in scores.log_loss],
                                 "AUC": [f"{x:.3f}" for x in scores.auc]})
    shown_held = pd.DataFrame({"game": [name(g) for g in held.game], "rung left out": [r.name(p) for p in held.player],
                               f"rated from its first {ratings_check.RATE_FROM} games": [_rating(a, b, c) for a, b, c in zip(held.rating, held.lo, held.hi)],
                               "in the fit of every rung": [f"{x:,.0f}" if x == x else "not rated" for x in held.full],
                               "its other games: log loss": [f"{x:.3f}" for x in held.log_loss],
                               "AUC": [f"{x:.3f}" if x == x else "–" for x in held.auc]})
    before = _before_search(in_study_order({*games, *ER.RM.shipped()}))
    deals = pd.concat([s.deals.assign(game=g) for g, s in scales.items()], ignore_index=True)
    censored = deals.groupby(["game", "censored"]).size().unstack(fill_value=0)
    context = {
        "reference": r.name(ratings_analysis.REFERENCE), "cuts": [f"{c:,.0f}" for c in ratings_analysis.CUTS], "folds": FOLDS, "rate_from": ratings_check.RATE_FROM,
        "censored": [{"game": name(g), "above": int(censored.loc[g].get("above", 0)), "below": int(censored.loc[g].get("below", 0)),
                      "deals": int(censored.loc[g].sum())} for g in games],
        "levels": [{"game": name(g), "ratings": int(s.deals.rating.round().nunique()), "rungs": len(s.rungs), "streams": streams[g]}
                   for g, s in scales.items()],
        "figure": r.out.figure(difficulty_plots.ratings(players, deals, games, r.colours, names=r.names,
                                                                        cuts=ratings_analysis.CUTS, tiers=ratings_analysis.TIERS), "ratings",
                               "Each game on one scale: its deals' ratings (grey) and its rungs' (95% intervals)"),
        "players": r.out.table(shown_players, "ratings_players", raw=every, summary="Each rung's rating in each game, 95% interval"),
        "own": [{"game": name(g), "deals": len(s.deals), "first": int(s.deals.deal.min()), "last": int(s.deals.deal.max())}
                for g, s in own.items()],
        "tiers": r.out.table(shown_tiers, "ratings_tiers", left=2, raw=tiers,
                             summary="The five tiers: their ratings, their deals, and the share of them named rungs won"),
        "scores": r.out.table(shown_scores, "ratings_held_out", left=2, raw=scores,
                              summary="Games the fit did not see, predicted by the ratings and by two baselines"),
        "held": r.out.table(shown_held, "ratings_new_players", left=2, raw=held,
                            summary="Each rung left out of the fit and rated from a few hundred games, as a new player would be"),
        "before": None if before is None else r.out.table(
            before, "ratings_before_search", raw=before,
            summary="A deal's rating predicted before any search (castle explain's shipped models), on deals they never trained on"),
        "calibration": r.out.figure(difficulty_plots.calibration(cal, games), "ratings_calibration",
                                    "Held-out games: the ratings' predicted chance against the share won"),
        "pysol": _pysol(r),
    }
    return Section("Deals and players on one scale", "ratings.html.j2", context, incomplete=r.incomplete(cheap=r.ladder_pick))


def _own_scales(r: Report, games: list[str]) -> dict:
    """The games of PySol's catalogue not among ``games`` that a ladder played on PySol's numbers, each on a scale
    of its own (:func:`analysis.catalogue.own_scale`: Citadel, which the study's ladder did not play)."""
    return {g: s for g in catalogue.GAMES if g not in games and (s := catalogue.own_scale(r.data, g)) is not None}


def _named(game: str, own: dict) -> str:
    """A game's name in the tables, said to be on a scale of its own where it is."""
    return f"{name(game)} (PySol's numbers, a scale of its own)" if game in own else name(game)


def _pysol(r: Report):
    """The catalogue of PySol's numbers shipped beside the data (:mod:`analysis.catalogue`), by game and tier; None
    when the data has none."""

    t = catalogue.tiers_by_game(r.data)
    if t.empty:
        return None
    shown = catalogue.tiers_view(t)
    return r.out.table(shown, "ratings_pysol", raw=t, summary="PySol FC's game numbers: verdicts, and the won by tier")


def _before_search(games: list[str]) -> pd.DataFrame | None:
    """The shipped rating models' held-out error (read from their files: the figures ``castle explain`` shows with
    each rating), per game of ``games`` that has one; None when none has."""
    t = ER.rating_table([g for g in games if ER.RM.rating_path(g).exists()])
    if t.empty:
        return None
    return pd.DataFrame({"game": [name(g) for g in t.game],
                         "rated deals": ["the study's deals" if d == "the study's" else "PySol's numbers (a scale of its own)"
                                         for d in t["deals of"]],
                         "trained on": [f"{n:,}" for n in t["train deals"]],
                         "held out": [f"{n:,}" for n in t["held-out deals"]],
                         "censored, left out": [f"{n:,}" for n in t["censored left out"]],
                         "error (RMSE, points)": [f"{x:,.0f}" for x in t.RMSE],
                         "a constant's error": [f"{x:,.0f}" for x in t["constant's RMSE"]],
                         "Spearman": [f"{x:.2f}" for x in t.Spearman],
                         "the fitted ratings' own error": [f"{x:,.0f}" if x == x and x is not None else "–" for x in t["ratings' own error"]],
                         "the layout alone": [f"{x:,.0f}" for x in t["layout alone RMSE"]],
                         "no beam probe": [f"{x:,.0f}" for x in t["no beam RMSE"]]})


def _rating(x: float, lo: float, hi: float) -> str:
    if x != x:
        return "–"
    fmt = lambda v: "−∞" if v == float("-inf") else "+∞" if v == float("inf") else f"{v:,.0f}"  # noqa: E731
    return f"{x:,.0f} [{fmt(lo)}, {fmt(hi)}]"


def _span(a: float, b: float) -> str:
    if a == float("-inf"):
        return f"up to {b:,.0f}"
    if b == float("inf"):
        return f"above {a:,.0f}"
    return f"{a:,.0f} to {b:,.0f}"
