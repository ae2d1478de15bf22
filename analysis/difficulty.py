"""Difficulty, deal by deal: the corridor's index per deal, its bands, and how it agrees with the ladder.

The rows are the ``corridor`` player's (:mod:`sim.solver.corridor`): per deal
its verdict and, when won, its difficulty index (bits of luck a player
choosing uniformly among sensible moves needs to stay winnable), decision
points and critical positions. A deal's **band** (easy, medium, hard) is its
index's third among the winnable deals of its game, so the bands of two
games are each game's own tertiles; ``A:B`` asks for an index between A and
B bits directly.

**Validity**: the index is compared with the ladder's weakest winning rung
(:func:`analysis.ladder.difficulty_by_rung`, each game's rungs ordered by
their strength on its own deals), a measure it was not tuned to: Spearman's
rank correlation per game over the winnable deals both measured, with the
deals no rung wins as one rank above every rung and without them, each with
a 95% interval from Fisher's z with Bonett and Wright's standard error.
A weak correlation is a finding (the ladder's rungs and the index measure
different things), not a failure.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from . import ladder, stats
from .designs import Z
from .games import STUDY

CORRIDOR = "corridor"
BANDS = ("easy", "medium", "hard")
#: PySol FC's numbering in the rows: the runner writes seed -1 for deals numbered as PySol numbers its games
PYSOL_SEED = -1


def corridor_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The corridor player's rows: one per deal, with its index and figures (``pysol``: the PySol game number, or null)."""
    rows = stats.rows_of(df, CORRIDOR)
    keep = [c for c in ("game", "player", "seed", "deal", "result", "difficulty", "decisions", "critical", "questions", "searched",
                        "unknown_moves", "moves", "cpu_us", "dataset") if c in rows.columns]
    out = rows[keep].copy()
    out["pysol"] = np.where(out.seed == PYSOL_SEED, out.deal, np.nan)
    return out.reset_index(drop=True)


def bands(rows: pd.DataFrame) -> pd.DataFrame:
    """Each game's band edges: the index's tertiles over its winnable deals (columns game, low, high, deals)."""
    out = []
    for game, g in rows[rows.result == "won"].groupby("game", observed=True):
        lo, hi = np.quantile(g.difficulty.astype(float), [1 / 3, 2 / 3])
        out.append({"game": game, "low": float(lo), "high": float(hi), "deals": len(g)})
    return pd.DataFrame(out, columns=["game", "low", "high", "deals"])


def band_of(rows: pd.DataFrame, edges: pd.DataFrame | None = None) -> pd.Series:
    """Each winnable deal's band (easy, medium, hard) by its game's tertiles; empty for the others."""
    edges = bands(rows) if edges is None else edges
    e = rows.merge(edges, on="game", how="left")
    band = np.where(e.difficulty <= e.low, "easy", np.where(e.difficulty <= e.high, "medium", "hard"))
    return pd.Series(np.where(rows.result.to_numpy() == "won", band, ""), index=rows.index)


def parse_band(text: str) -> tuple[str | None, float, float]:
    """``easy``/``medium``/``hard`` -> (band, nan, nan); ``A:B`` -> (None, A, B) bits (either side may be empty)."""
    text = str(text).strip().lower()
    if text in BANDS:
        return text, math.nan, math.nan
    lo, sep, hi = text.partition(":")
    try:
        if not sep:
            raise ValueError
        a = float(lo) if lo else 0.0
        b = float(hi) if hi else math.inf
    except ValueError:
        raise ValueError(f"difficulty {text!r}: expected easy, medium, hard or A:B (bits, e.g. 5:20 or 30:)") from None
    if a > b or a < 0:
        raise ValueError(f"difficulty {text!r}: A:B needs 0 <= A <= B")
    return None, a, b


def with_rungs(rows: pd.DataFrame, df: pd.DataFrame, cheap=None) -> pd.DataFrame:
    """``rows`` with each deal's weakest winning rung of the ladder (``rung``; empty where the ladder did not play
    the deal) and its place on its game's ladder (``rung_rank``: 0 the weakest rung, ..., the number of rungs for a
    deal only the solver wins; none for unknown and unwinnable deals): the game's own order by strength
    (:func:`analysis.ladder.order`, measured on its rungs' rows of that game).

    The rungs' rows are ``df``'s, or, given ``cheap`` (:class:`analysis.scan.CheapRows`), those where they lie (only
    the deals of ``rows`` come back from there); the solver's verdicts are ``df``'s.
    """
    solved = ladder.verdicts(df)
    if cheap is None:
        heur = df[stats.player_mask(df.player)]
        heur = heur[heur.player.isin(_study_rungs(heur))]
        if heur.player.nunique() < 2:
            return rows.assign(rung="", rung_rank=np.nan)
        diff = ladder.difficulty_by_rung(heur, solved)
        order = list(diff.difficulty.cat.categories)
        d = diff.assign(rung=diff.difficulty.astype(str), rung_rank=diff["rank"])
    else:
        held = cheap.pairs()
        games = held.groupby("player").game.nunique()
        players = list(games[games >= 2].index)
        if len(players) < 2:
            return rows.assign(rung="", rung_rank=np.nan)
        s = ladder.strength(cheap, solved, sorted(set(rows.game) & set(held.game)), players)
        order = ladder.order(s) + [stats.SOLVER_ONLY, stats.UNKNOWN, stats.UNWINNABLE]
        frames = []
        for game in rows.game.unique():
            played = ladder.order(s, game)
            if played:
                c = cheap.cheapest_rung(game, played, solved, keys=rows[rows.game == game])
                frames.append(c.assign(game=game, rank=c.difficulty.map(ladder.rank_in(played))))
        d = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["game", "seed", "deal", "difficulty", "rank"])
        d = d.assign(rung=d.difficulty.astype(str), rung_rank=d["rank"].astype(float))
    out = rows.merge(d[["game", "seed", "deal", "rung", "rung_rank"]], on=["game", "seed", "deal"], how="left")
    out["rung"] = out.rung.fillna("")
    out.attrs["rungs"] = order
    return out


def _study_rungs(heur: pd.DataFrame) -> list[str]:
    """The ladder's rungs: players of two games or more (the advice's variants of one game are not rungs)."""
    games = heur.groupby("player", observed=True).game.nunique()
    return list(games[games >= 2].index)


def validity(rows: pd.DataFrame) -> pd.DataFrame:
    """Per game: Spearman's rank correlation of the index with the weakest winning rung, with its 95% interval
    (Fisher's z, Bonett and Wright's standard error), two ways: over every winnable deal both measured, the deals no
    rung wins (only the solver) as one rank above the strongest rung (``rho``, on ``deals``), and over the deals
    some rung wins (``rho_rungs``, on ``deals_rungs``). The first keeps the hardest deals, tied; the second asks
    only how the rungs order the deals they win."""
    from scipy.stats import spearmanr

    def rank_correlation(g: pd.DataFrame) -> tuple[int, float, float, float]:
        n = len(g)
        if n < 10:
            return n, np.nan, np.nan, np.nan
        rho = float(spearmanr(g.difficulty, g.rung_rank).statistic)
        se = math.sqrt((1 + rho * rho / 2) / (n - 3))
        z = math.atanh(max(min(rho, 0.999999), -0.999999))
        return n, rho, math.tanh(z - Z * se), math.tanh(z + Z * se)

    out = []
    for game, g in rows[(rows.result == "won") & rows.rung_rank.notna()].groupby("game", observed=True):
        every = rank_correlation(g)
        some = rank_correlation(g[g.rung != stats.SOLVER_ONLY])
        if every[0] >= 10:
            out.append(dict(zip(["game", "deals", "rho", "lo", "hi", "deals_rungs", "rho_rungs", "lo_rungs", "hi_rungs"],
                                (game, *every, *some))))
    return pd.DataFrame(out, columns=["game", "deals", "rho", "lo", "hi", "deals_rungs", "rho_rungs", "lo_rungs", "hi_rungs"])


def cost(rows: pd.DataFrame) -> pd.DataFrame:
    """Per game: what the corridors cost (CPU seconds a deal: median, mean, p90, max, over won and over all deals) and
    the share of judged moves left unknown."""
    out = []
    for game, g in rows.groupby("game", observed=True):
        won = g[g.result == "won"]
        s, w = g.cpu_us.to_numpy() / 1e6, won.cpu_us.to_numpy() / 1e6
        out.append({"game": game, "deals": len(g), "won": len(won), "cpu_s_median": float(np.median(s)), "cpu_s_mean": float(s.mean()),
                    "won_cpu_s_median": float(np.median(w)) if len(w) else np.nan, "won_cpu_s_mean": float(w.mean()) if len(w) else np.nan,
                    "cpu_s_p90": float(np.percentile(s, 90)), "cpu_s_max": float(s.max()),
                    "questions": int(g.questions.sum()), "searched": int(g.searched.sum()), "unknown_moves": int(g.unknown_moves.sum()),
                    "unknown_share": float(g.unknown_moves.sum() / max(g.questions.sum(), 1))})
    return pd.DataFrame(out)


def catalogue(rows: pd.DataFrame, hardest: int = 5) -> pd.DataFrame:
    """Per game, the PySol deals judged (rows numbered as PySol numbers its games): how many, won / lost / unknown,
    the index of the winnable ones (median and quartiles, bits), and the ``hardest`` winnable game numbers, hardest
    first, to open in PySol (``castle deals GAME --pysol --difficulty hard`` picks more)."""
    cols = ["game", "first", "last", "deals", "won", "lost", "unknown", "median", "q1", "q3", "hardest"]
    out = []
    for game, g in rows[rows.seed == PYSOL_SEED].groupby("game", observed=True):
        won = g[g.result == "won"]
        q1, q2, q3 = (won.difficulty.astype(float).quantile([0.25, 0.5, 0.75]) if len(won) else [np.nan] * 3)
        top = won.sort_values(["difficulty", "deal"], ascending=[False, True], kind="stable").deal.head(hardest)
        out.append({"game": game, "first": int(g.deal.min()), "last": int(g.deal.max()), "deals": len(g), "won": len(won),
                    "lost": int((g.result == "lost").sum()), "unknown": int((g.result == "unknown").sum()),
                    "median": q2, "q1": q1, "q3": q3, "hardest": [int(x) for x in top]})
    k = pd.DataFrame(out, columns=cols)
    order = {g: i for i, g in enumerate(STUDY)}  # the study's games first, in its order, then the others
    return k.iloc[sorted(range(len(k)), key=lambda i: (order.get(k.game[i], len(order)), k.game[i]))].reset_index(drop=True)


def catalogue_view(k: pd.DataFrame, code: bool = False) -> pd.DataFrame:
    """:func:`catalogue` as a table to read (the report's and the README's): the game numbers ``pysol:N`` (in
    backticks with ``code``, for Markdown), and the hard band's edge where ``k`` has it (``hard_above``)."""
    from .games import name

    mark = "`" if code else ""
    view = {"game": [name(g) for g in k.game], "PySol games": [f"{a:,}-{b:,}" for a, b in zip(k["first"], k["last"])],
            "won / lost / unknown": [f"{w:,} / {lo:,} / {u:,}" for w, lo, u in zip(k.won, k.lost, k.unknown)],
            "index of the winnable, bits: median [quartiles]": [f"{m:.1f} [{a:.1f}, {b:.1f}]" for m, a, b in zip(k["median"], k.q1, k.q3)]}
    if "hard_above" in k:
        view["hard: above (bits)"] = [f"{x:.1f}" for x in k.hard_above]
    view["the hardest winnable, hardest first"] = [", ".join(f"{mark}pysol:{n}{mark}" for n in h) for h in k.hardest]
    return pd.DataFrame(view)
