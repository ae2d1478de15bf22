"""The study's ladder put on one scale: per game, every rung's rating and every winnable deal's, the tiers, and what
each tier means in the chances of named players.

The outcomes are the ladder's (each heuristic rung on the same deals) on the deals the solver won, among those
every rung of the game played; the deals the solver proved lost or left unknown are not rated (no player can win
the first; nobody knows of the second). The fit is :func:`analysis.ratings.fit`, one per game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim.core.deals import DEFAULT_SEED

from . import labels, ladder
from .designs import Z
from . import ratings as ratings_analysis
from .picks import pick
from .scan import as_rows
from .stats import player_mask


@dataclass
class Rated:
    """One game on the scale: its fit, its rungs weakest first, each deal's rating and tier, the cuts between tiers."""

    game: str
    fit: ratings_analysis.Fit
    rungs: list[str]  #: the rungs rated, weakest first (by rating; those that won none or all of their deals are not)
    deals: pd.DataFrame  #: seed, deal, rating, se, censored, tier, and one column per rung: the share of its games it won
    cuts: list[float]

    def players(self) -> pd.DataFrame:
        """Each rung's rating with its 95% interval (±Z standard errors, Z the normal's 1.96), its deals and wins, weakest first."""
        p = self.fit.players.set_index("player").reindex(self.rungs).dropna(subset=["theta"]).reset_index()
        r = self.fit.rating(p.theta)
        half = Z * ratings_analysis.SCALE * p.se
        return pd.DataFrame({"player": p.player, "rating": r, "lo": r - half, "hi": r + half,
                             "deals": p.deals.astype(int), "won": p.won.astype(int)})


def outcomes(rows, solved: pd.DataFrame, game: str, rungs: list[str] | None = None) -> pd.DataFrame:
    """``player, seed, deal, won, stream`` of ``game``'s rungs on the solver's winnable deals every rung played, in
    the study's numbering (seed 0: the rungs on PySol's numbers rate those deals on this scale,
    :mod:`analysis.catalogue`, and do not move it). ``rows``: a frame or :class:`analysis.scan.CheapRows` (asked
    once, for the rows on those deals); ``solved``: :func:`analysis.ladder.verdicts`. Rungs are the players of two
    games or more (advice's variants of one game are not rungs), unless ``rungs`` names them.

    A rung played on other random streams (``stream=k`` labels, ``experiments/published/ladder-streams.toml``)
    answers a deal once a stream: each is a game of it (the fit counts them all), under the rung's own label. A
    rung whose other streams played the same games as its own (result, moves and cards home, deal by deal) draws
    no random numbers: those are the same game again, and only its own stream is kept."""
    rows = as_rows(rows)
    held = rows.pairs()
    if rungs is None:
        heur = held[player_mask(held.player)]
        games = heur.groupby("player").game.nunique()
        rungs = sorted(p for p in games[games >= 2].index if p in set(heur[heur.game == game].player))
    winnable = solved[(solved.game == game) & (solved.verdict == "won") & (solved.seed == DEFAULT_SEED)][["game", "seed", "deal"]]
    none = pd.DataFrame(columns=["player", "seed", "deal", "won", "stream"])
    if len(rungs) < 2 or winnable.empty:
        return none
    streams = sorted({str(p) for p in held[held.game == game].player.unique()
                      if labels.stream_of(p) and labels.without_stream(p) in set(rungs)})
    got = rows.rows_on(winnable, pick([game], list(rungs) + streams), columns=["player", "seed", "deal", "result", "moves", "cards_home"])
    got = got.drop_duplicates(["player", "seed", "deal"])
    got["stream"] = got.player.astype(str).map(labels.stream_of).astype(np.int64)
    got["player"] = got.player.astype(str).map(labels.without_stream)
    got = got[got.player.isin(_drawing(got)) | (got.stream == 0)]
    own = got[got.stream == 0]
    every = own.groupby(["seed", "deal"]).player.nunique() == own.player.nunique()
    got = got.set_index(["seed", "deal"]).loc[every[every].index].reset_index()
    return pd.DataFrame({"player": got.player.astype(str), "seed": got.seed.astype(np.int64),
                         "deal": got.deal.astype(np.int64), "won": got.result.astype(str).eq("won"),
                         "stream": got.stream.to_numpy()})


def _drawing(got: pd.DataFrame) -> set[str]:
    """The rungs of ``got`` (rows with ``stream``) whose other streams played a game other than their own somewhere
    (another result, length or count of cards home): the ones that draw random numbers."""
    own = got[got.stream == 0].set_index(["player", "seed", "deal"])[["result", "moves", "cards_home"]]
    other = got[got.stream > 0].merge(own.add_suffix("_own"), left_on=["player", "seed", "deal"], right_index=True)
    differs = ((other.result.astype(str) != other.result_own.astype(str)) | (other.moves != other.moves_own)
               | (other.cards_home != other.cards_home_own))
    return set(other.player[differs])


def rate_game(rows, solved: pd.DataFrame, game: str, rungs: list[str] | None = None) -> Rated | None:
    """``game`` on the scale (None when fewer than two rungs played its winnable deals)."""
    o = outcomes(rows, solved, game, rungs)
    if o.empty or o.player.nunique() < 2:
        return None
    f = ratings_analysis.fit(o)
    if ratings_analysis.REFERENCE not in set(f.players.player):
        return None
    order = list(f.players.sort_values("theta").player)  # weakest first, by rating
    cuts = list(ratings_analysis.CUTS)
    d = f.deals.assign(rating=f.rating(f.deals.b), se=ratings_analysis.SCALE * f.deals.se)
    d["tier"] = ratings_analysis.tier_of(d.rating, cuts)
    wide = o.pivot_table(index=["seed", "deal"], columns="player", values="won", aggfunc="mean")  # (the share of its streams)
    d = d.merge(wide.reset_index(), on=["seed", "deal"], how="left")
    return Rated(game, f, order, d[["seed", "deal", "rating", "se", "censored", "tier", *[p for p in order if p in d]]], cuts)


def tiers_table(r: Rated, described_by=ratings_analysis.DESCRIBED_BY) -> pd.DataFrame:
    """Per tier (easiest first): its ratings, its deals, and the share of them each of ``described_by`` won (what the
    players did on those deals, not what the model says)."""
    out = []
    bounds = [-np.inf, *r.cuts, np.inf]
    for i, tier in enumerate(ratings_analysis.TIERS[: len(r.cuts) + 1]):
        d = r.deals[r.deals.tier == tier]
        row = {"tier": tier, "from": bounds[i], "to": bounds[i + 1], "deals": len(d),
               "share": len(d) / len(r.deals) if len(r.deals) else np.nan}
        for p in described_by:
            row[p] = float(d[p].mean()) if p in d.columns and len(d) else np.nan
        out.append(row)
    return pd.DataFrame(out)


def verdicts_of(folder, game: str) -> pd.DataFrame:
    """The solver's verdicts on ``game`` (:func:`analysis.ladder.verdicts`) from the dataset, or folder of datasets, at
    ``folder``: only the datasets holding its rows are read (checked as :func:`analysis.load.load_results` checks)."""
    from pathlib import Path

    from .load import load_results, study_folders
    from .parts import folder_values, parquet_parts
    from .stats import player_name

    frames = []
    for f in study_folders(Path(folder)):
        held = [folder_values(f, p) for p in parquet_parts(f)]
        if any(v.get("game") == game and player_name(v.get("player", "")) == "solver" for v in held):
            frames.append(load_results(f, games=[game], judged_only=True))
    if not frames:
        return pd.DataFrame(columns=["game", "seed", "deal", "verdict"])
    return ladder.verdicts(pd.concat(frames, ignore_index=True))


def scale_of(folder, game: str) -> Rated | None:
    """``game`` on the scale of the study at ``folder`` (its ladder's rows where they lie, its solver's verdicts)."""
    from .scan import of

    return rate_game(of(folder), verdicts_of(folder, game), game)


def tier_named(text: str) -> str:
    """The tier a user named (``very-hard``, ``Very hard``, ``hard``...), or ValueError listing the tiers."""
    wanted = text.strip().lower().replace("-", " ").replace("_", " ")
    for tier in ratings_analysis.TIERS:
        if tier.lower() == wanted:
            return tier
    raise ValueError(f"no tier {text!r}: give one of " + ", ".join(t.lower().replace(" ", "-") for t in ratings_analysis.TIERS))


def study(rows, df: pd.DataFrame, games: list[str]) -> dict[str, Rated]:
    """Every game of ``games`` the ladder played, on its scale. ``df``: the judged rows (the solver's verdicts)."""
    solved = ladder.verdicts(df)
    out = {}
    for game in games:
        r = rate_game(rows, solved, game)
        if r is not None:
            out[game] = r
    return out
