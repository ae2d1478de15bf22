"""Perfect play: what the solver's verdicts say about each game, deal by deal.

Every function reads the solver's rows (any ``solver`` label) of a result
table. Unknown verdicts count both ways everywhere (:mod:`analysis.conventions`):
winnability by the outer Wilson bounds with the midpoint as the estimate
(Blake & Gent's convention), and the games compared deal by deal by the outer
bounds of the paired intervals (:func:`analysis.stats.paired_both_ways`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim.core.cards import RANKS
from sim.players.registry import parse_player

from .games import BELEAGUERED, STREETS
from .ladder import verdicts
from .stats import paired_both_ways, player_mask, rate_interval, rates_of_counts, rows_of, solver_mask, wilson

#: Blake & Gent's Solvitaire (2,000,000 deals each): winnable share and half-width of the outer 95% interval, in %
PUBLISHED = {BELEAGUERED: (68.170, 0.099), STREETS: (51.187, 0.186)}
#: the deals Solvitaire solved for each of them
PUBLISHED_DEALS = 2_000_000
#: Solvitaire's effort on the same games (2,000,000 deals each): its unknown share in %, and its mean CPU seconds a deal
PUBLISHED_EFFORT = {BELEAGUERED: (0.068, 4.9), STREETS: (0.232, 29.0)}
#: the other published figures of the family, each with its source: what they say, the share they give, and what
#: that share is: ``winnability`` (a solver's, to be held against ours), ``players`` (a win rate of human players),
#: ``unstated`` (the method is not given); only the first is like ours
ANCHORS = {
    "fortress": ("Wolter, depth-first search on Politaire deals: 202,396 of 1,000,000", 0.202396, "winnability"),
    "castles-in-spain": ("its publisher: \"about 70% winnable\"", 0.70, "unstated"),
    "bakers-dozen": ("Warfield: average players win about 75%", 0.75, "players"),
}
#: each kind of published figure in words
ANCHOR_KINDS = {"winnability": "a solver's winnability, as ours", "players": "human players' win rate, not winnability",
                "unstated": "how it was measured is not said"}
#: Wolter's distribution of the most cards that can be moved home in Fortress: share with none, with exactly one; mean
WOLTER_MOST_HOME = {"none": 0.19, "one": 0.20, "mean": 12.12}
KINDS = ("won", "lost", "unknown")


def winnability(df: pd.DataFrame) -> pd.DataFrame:
    """Per game: deals solved, won / lost / unknown, the winnable share with its outer interval, and the published figure."""
    v = verdicts(df)
    rows = []
    for game, g in v.groupby("game", observed=True, sort=False):
        n = len(g)
        won, lost = int((g.verdict == "won").sum()), int((g.verdict == "lost").sum())
        unknown = n - won - lost
        mid, lo, hi = rate_interval(won, unknown, n)
        pub = PUBLISHED.get(game)
        overlap = None if pub is None else bool(lo * 100 <= pub[0] + pub[1] and hi * 100 >= pub[0] - pub[1])
        rows.append({"game": game, "deals": n, "won": won, "lost": lost, "unknown": unknown, "rate": mid, "ci_low": lo,
                     "ci_high": hi, "half_width": (hi - lo) / 2,
                     "published": np.nan if pub is None else pub[0] / 100,
                     "published_half_width": np.nan if pub is None else pub[1] / 100, "overlaps": overlap})
    return pd.DataFrame(rows)


PERFECT = "perfect play"  #: the player label under which the solver's winnability stands beside the players


def rates_with_perfect_play(players, solver: pd.DataFrame) -> pd.DataFrame:
    """Win rates per game and heuristic player (of ``players``: a frame, or :class:`analysis.scan.CheapRows`), and per
    game under perfect play (of ``solver``'s rows)."""
    from .scan import as_rows

    rows = [rates_of_counts(as_rows(players).counts(["game", "player"]))]
    if len(solver):
        w = winnability(solver)
        rows.append(w.assign(player=PERFECT)[["game", "player", "deals", "won", "unknown", "rate", "ci_low", "ci_high", "half_width"]])
    return pd.concat(rows, ignore_index=True)


@dataclass(frozen=True)
class PerfectPlayPair:
    """Two games on the same deals under perfect play.

    ``table`` is the 3x3 table of verdicts (rows ``a``, columns ``b``);
    ``diff`` is winnable(a) - winnable(b) with its paired interval, the
    unknowns counted both ways (:func:`analysis.stats.paired_both_ways`);
    ``a_lost_b_won`` lists the deals ``b`` wins and ``a`` loses; ``rescued``
    is the share of ``b``'s proved losses that ``a`` wins (its unknowns both
    ways).
    """

    a: str
    b: str
    deals: int
    table: pd.DataFrame
    diff: float
    diff_low: float
    diff_high: float
    a_lost_b_won: list[int]
    rescued: float
    rescued_low: float
    rescued_high: float


def perfect_play_pair(df: pd.DataFrame, a: str, b: str) -> PerfectPlayPair | None:
    """Compare games ``a`` and ``b`` deal by deal under perfect play; None when they share no solved deal."""
    v = verdicts(df)
    va = v[v.game == a].set_index(["seed", "deal"]).verdict
    vb = v[v.game == b].set_index(["seed", "deal"]).verdict
    j = pd.concat([va.rename("a"), vb.rename("b")], axis=1, join="inner")
    if j.empty:
        return None
    table = pd.crosstab(pd.Categorical(j.a, KINDS), pd.Categorical(j.b, KINDS), dropna=False)
    table.index = [f"{k}" for k in KINDS]
    table.columns = [f"{k}" for k in KINDS]
    d, lo, hi = paired_both_ways(j.a.to_numpy(), j.b.to_numpy())
    bad = sorted(int(x) for x in j[(j.a == "lost") & (j.b == "won")].index.get_level_values("deal"))
    b_lost = j[j.b == "lost"]
    rescued, r_lo, r_hi = rate_interval(int((b_lost.a == "won").sum()), int((b_lost.a == "unknown").sum()), len(b_lost))
    return PerfectPlayPair(a, b, len(j), table, d, lo, hi, bad, rescued, r_lo, r_hi)


def containment(df: pd.DataFrame, weaker: str, stronger: str) -> tuple[int, list[int]] | None:
    """A containment law, ``weaker`` won implies ``stronger`` won on the same deal: (deals it was checked on, deals that
    break it). Checked where ``weaker`` is won and ``stronger`` settled; None when the two share no solved deal."""
    pp = perfect_play_pair(df, stronger, weaker)
    if pp is None:
        return None
    t = pp.table
    return int(t.loc["won", "won"] + t.loc["lost", "won"]), pp.a_lost_b_won


def _bits(mask: pd.Series) -> np.ndarray:
    """13-bit masks as a (deals, 13) boolean array (bit b: base rank b)."""
    m = mask.fillna(0).to_numpy(np.int64)
    return ((m[:, None] >> np.arange(13)) & 1).astype(bool)


def _base_rows(df: pd.DataFrame, game: str) -> pd.DataFrame:
    rows = df[(df.game == game) & solver_mask(df.player)]
    if "bases_won" not in rows.columns:
        return rows.iloc[:0]
    return rows[rows.bases_won.notna()]


def bases_per_deal(df: pd.DataFrame, game: str) -> pd.DataFrame:
    """How many of the 13 base ranks win each deal (the solver's per-base verdicts): deals per count."""
    rows = _base_rows(df, game)
    if rows.empty:
        return pd.DataFrame(columns=["winning_bases", "deals", "share"])
    counts = pd.Series(_bits(rows.bases_won).sum(axis=1)).value_counts().reindex(range(14), fill_value=0)
    out = counts.rename_axis("winning_bases").rename("deals").reset_index()
    out["share"] = out.deals / len(rows)
    return out


def fixed_base_rates(df: pd.DataFrame, game: str) -> pd.DataFrame:
    """Per base rank (A-K): the share of deals it wins if always chosen, unknown bases counted both ways."""
    rows = _base_rows(df, game)
    if rows.empty:
        return pd.DataFrame(columns=["base", "deals", "won", "unknown", "rate", "ci_low", "ci_high"])
    won = _bits(rows.bases_won)
    unk = _bits(rows.bases_unknown) if "bases_unknown" in rows.columns else np.zeros_like(won)
    n = len(rows)
    out = []
    for b in range(13):
        w, u = int(won[:, b].sum()), int(unk[:, b].sum())
        mid, lo, hi = rate_interval(w, u, n)
        out.append({"base": RANKS[b], "deals": n, "won": w, "unknown": u, "rate": mid, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(out)


def best_fixed_base(fixed: pd.DataFrame) -> tuple[pd.Series, int]:
    """The fixed base with the highest rate (a row of :func:`fixed_base_rates`), and how many of the other
    twelve have intervals reaching its lower bound (0: it is measurably the best)."""
    best = fixed.loc[fixed.rate.idxmax()]
    others = fixed.drop(index=best.name)
    return best, int((others.ci_high >= best.ci_low).sum())


def chosen_base_hits(df: pd.DataFrame, game: str) -> pd.DataFrame:
    """Per heuristic player: on deals some base wins, how often the base it founded was a winning one."""
    rows = _base_rows(df, game)
    if rows.empty:
        return pd.DataFrame(columns=["player", "deals", "winning_choice", "share", "ci_low", "ci_high"])
    mask = rows.drop_duplicates(["seed", "deal"]).set_index(["seed", "deal"]).bases_won.astype(np.int64)
    mask = mask[mask > 0]
    out = []
    for player, p in df[(df.game == game) & player_mask(df.player) & df.base_rank.notna()].groupby("player", observed=True):
        base = p.set_index(["seed", "deal"]).base_rank.astype(np.int64)
        j = pd.concat([mask.rename("mask"), base.rename("base")], axis=1, join="inner")
        if j.empty:
            continue
        hit = int((((j["mask"].to_numpy() >> j["base"].to_numpy()) & 1) == 1).sum())
        lo, hi = wilson(hit, len(j))
        out.append({"player": player, "deals": len(j), "winning_choice": hit, "share": hit / len(j), "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(out, columns=["player", "deals", "winning_choice", "share", "ci_low", "ci_high"])


def family(df: pd.DataFrame, best: dict[str, str] | None = None, cheap=None, games: list[str] | None = None) -> pd.DataFrame:
    """Per game: winnability with its outer interval, mean CPU per deal, the published figure (``anchor``, with what
    it is: ``anchor_kind``, :data:`ANCHORS`; held against our interval only when it is a winnability too), and the
    best heuristic player's win rate beside the solver's winnability on the same deals (``player_*`` and
    ``same_*``: the deals both played; ``best``: game -> player label; default the one that played most deals
    there, then the one winning most: a short run of a side experiment never stands for the game).

    The players' rows are ``df``'s, or, given ``cheap`` (:class:`analysis.scan.CheapRows`), those of ``games``
    where they lie.
    """
    from .picks import pick
    from .scan import as_rows

    is_solver_row = solver_mask(df.player)
    players = as_rows(df) if cheap is None else cheap.only(pick(games))
    held = players.pairs()
    w = winnability(df[is_solver_row]).set_index("game")
    # the solved games, then those only a player has played yet: no verdict (0 deals, no rate), but the player's
    # wins bound winnability below
    games = list(w.index) + sorted(set(held.game) - set(w.index))
    counts = ["deals", "won", "lost", "unknown"]
    w = w.reindex(games).fillna({c: 0 for c in counts}).astype({c: int for c in counts})
    rows = []
    for g in w.itertuples():  # (itertuples keeps each column's type)
        game = g.Index
        solver = df[(df.game == game) & is_solver_row]
        here = held[held.game == game].set_index("player")
        by = pd.DataFrame({"size": here.deals, "mean": here.won / here.deals})
        label = (best or {}).get(game) or (max(by.index, key=lambda k: tuple(by.loc[k])) if len(by) else None)
        p = pick([game], [label] if label else [])
        same = verdicts(solver)
        if len(solver):  # the player on the deals the solver settled too, and the solver on the deals the player played
            c = players.on_deals(solver[["seed", "deal"]].drop_duplicates(), p=p, by=["game"])
            same = same.merge(players.which(same[["game", "seed", "deal"]], p), on=["game", "seed", "deal"])
        else:
            c = players.counts(["game"], p)
        n, won = (int(c.deals.iloc[0]), int(c.won.iloc[0])) if len(c) else (0, 0)
        lo, hi = wilson(won, n)
        s_mid, s_lo, s_hi = rate_interval(int(same.verdict.eq("won").sum()), int(same.verdict.eq("unknown").sum()), len(same))
        text, share, kind = ANCHORS.get(game, ("", np.nan, ""))
        rows.append({"game": game, "deals": g.deals, "won": g.won, "lost": g.lost, "unknown": g.unknown,
                     "rate": g.rate, "ci_low": g.ci_low, "ci_high": g.ci_high,
                     "cpu_s_mean": solver.cpu_us.mean() / 1e6 if len(solver) else np.nan,
                     "player": label, "player_deals": n, "player_rate": won / n if n else np.nan,
                     "player_ci_low": lo, "player_ci_high": hi, "same_deals": len(same), "same_rate": s_mid,
                     "same_ci_low": s_lo, "same_ci_high": s_hi, "anchor": text, "anchor_rate": share, "anchor_kind": kind,
                     "anchor_inside": bool(g.ci_low <= share <= g.ci_high) if kind == "winnability" and g.deals else None})
    return pd.DataFrame(rows)


def most_home_distribution(df: pd.DataFrame, game: str) -> dict | None:
    """From solver rows with ``most_home``: the share of deals where no card, exactly one, ... can be moved home; the mean."""
    rows = df[(df.game == game) & solver_mask(df.player)]
    if "most_home" not in rows.columns or rows.most_home.isna().all():
        return None
    m = rows.most_home.dropna().astype(int)
    return {"deals": len(m), "none": float((m == 0).mean()), "one": float((m == 1).mean()), "mean": float(m.mean()),
            "exact": int(rows[rows.most_home.notna()].result.isin(["won", "lost"]).sum()),
            "counts": m.value_counts().sort_index()}


def is_dialect(game: str) -> bool:
    """Is ``game`` another program's dialect of a game (``selective-castle@pysol``), not a rule sheet's?"""
    return "@" in str(game)


def sheet_of(game: str) -> str:
    """The rule sheet's game a dialect plays (``selective-castle`` for ``selective-castle@pysol``)."""
    return str(game).split("@", 1)[0]


def dialects(df: pd.DataFrame, cheap=None) -> pd.DataFrame:
    """Each dialect against its rule sheet, paired by deal: under perfect play and for every player that played both.

    One row per (dialect, player): deals paired, win rate in the sheet and in the dialect, the difference
    (dialect minus sheet, Newcombe's paired 95% interval), the solver's deals won in one and lost in the
    other (a supermove is a macro of single moves: there must be none either way; PySol's sequence moves
    only add moves: none won in the sheet and lost in the dialect), and the mean moves of a win in each.
    """
    from .scan import as_rows, pair

    rows = []
    solver = df[solver_mask(df.player)]
    players = as_rows(df) if cheap is None else cheap
    held = players.pairs()
    for dialect in sorted(g for g in set(df.game) | set(held.game) if is_dialect(g)):
        sheet = sheet_of(dialect)
        pp = perfect_play_pair(solver, dialect, sheet)
        if pp is not None:
            t = pp.table
            rows.append({"dialect": dialect, "sheet": sheet, "player": "perfect play", "deals": pp.deals,
                         "sheet_rate": (t.loc[:, "won"].sum() + t.loc[:, "unknown"].sum() / 2) / pp.deals,
                         "dialect_rate": (t.loc["won"].sum() + t.loc["unknown"].sum() / 2) / pp.deals,
                         "diff": pp.diff, "diff_low": pp.diff_low, "diff_high": pp.diff_high,
                         "won_sheet_lost_dialect": int(t.loc["lost", "won"]), "won_dialect_lost_sheet": int(t.loc["won", "lost"]),
                         "moves_sheet": _mean_win_moves(solver, sheet, dialect), "moves_dialect": _mean_win_moves(solver, dialect, sheet)})
        for player in sorted(set(held.player[held.game == dialect])):
            pr = pair(players, (dialect, player), (sheet, player))
            if pr is None:
                continue
            rows.append({"dialect": dialect, "sheet": sheet, "player": player, "deals": pr.deals, "sheet_rate": pr.rate_b,
                         "dialect_rate": pr.rate_a, "diff": pr.diff, "diff_low": pr.diff_low, "diff_high": pr.diff_high,
                         "won_sheet_lost_dialect": pr.only_b, "won_dialect_lost_sheet": pr.only_a,
                         "moves_sheet": players.mean_win_moves(player, sheet, dialect),
                         "moves_dialect": players.mean_win_moves(player, dialect, sheet)})
    return pd.DataFrame(rows)


def _mean_win_moves(df: pd.DataFrame, game: str, other: str) -> float:
    """Mean moves of ``game``'s wins on the deals ``other`` also won, by the same exact run (player label): the two
    means are of the same deals and the same search, and a deal other runs also won (another budget, the per-base
    solver: other lines) counts once."""
    won = df[df.result == "won"]
    won = won.assign(player=won.player.astype(str))
    a = won[won.game == game].set_index(["seed", "deal", "player"]).moves
    b = won[won.game == other].set_index(["seed", "deal", "player"]).moves
    common = a.index.intersection(b.index)
    return float(a.loc[common].mean()) if len(common) else np.nan


HIDDEN = "hidden"  #: the player who cannot see the face-down cards (:mod:`sim.players.hidden`)


def hidden_cards(df: pd.DataFrame, cheap=None) -> pd.DataFrame:
    """What the face-down cards cost a player: each ``hidden`` run against the same beam seeing every card.

    One row per (game, hidden-player label): its deals and win rate (Wilson interval); the beam of the
    same budget and width on the same deals, and the difference (beam minus hidden, Newcombe's paired
    interval); the share of those deals the solver won; the published figure and whether it lies in the
    hidden player's interval. A hidden run without its beam gets no difference. The players' rows are
    ``df``'s, or those where they lie (``cheap``: :class:`analysis.scan.CheapRows`).
    """
    from .picks import pick
    from .scan import as_rows, pair

    rows = []
    players = as_rows(df) if cheap is None else cheap
    held = players.pairs()
    solved = verdicts(df)
    hidden = rows_of(held, HIDDEN)
    for game, label, n, won in zip(hidden.game, hidden.player, hidden.deals, hidden.won):
        params = json.loads(players.first("player_params", game, label))
        beam = parse_player(f"beam:budget={params['budget']},width={params['width']}").label
        pr = pair(players, (game, beam), (game, label))
        n, won = int(n), int(won)
        lo, hi = wilson(won, n)
        here = solved[solved.game == game]
        v = here.merge(players.rows_on(here[["seed", "deal"]], pick([game], [label]), ["seed", "deal"]), on=["seed", "deal"])
        anchor = ANCHORS.get(game)
        winnable = rate_interval(int(v.verdict.eq("won").sum()), int(v.verdict.eq("unknown").sum()), len(v))[0] if len(v) else np.nan
        rows.append({"game": game, "player": label, "hidden": params["hidden"], "deals": n, "rate": won / n,
                     "ci_low": lo, "ci_high": hi, "beam": beam, "beam_deals": pr.deals if pr else 0,
                     "beam_rate": pr.rate_a if pr else np.nan, "diff": pr.diff if pr else np.nan,
                     "diff_low": pr.diff_low if pr else np.nan, "diff_high": pr.diff_high if pr else np.nan,
                     "solved": len(v), "winnable": winnable, "anchor": anchor[0] if anchor else "",
                     "anchor_kind": anchor[2] if anchor else "", "anchor_inside": None if anchor is None else bool(lo <= anchor[1] <= hi)})
    return pd.DataFrame(rows)
