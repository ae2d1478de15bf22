"""The ladder of players: each rung's strength and cost, and a deal's difficulty as the weakest rung that wins it.

A *rung* is a heuristic player (any label but the solver's). Rungs are
ordered by strength, weakest first, measured on the ladder's own deals
(:func:`strength`, :func:`order`): in a game, by the share of the solver's
winnable deals each wins among the deals every rung of that game played,
ties broken by its mean CPU a deal on its rows of that game; across games,
by the share over all of them. Never by CPU alone: two rungs a few
hundredths of a millisecond apart would swap with the machine's load. A
deal's difficulty is the weakest rung that wins it. The solver's verdicts
(:func:`verdicts`) say which deals can be won at all: a deal no rung wins is
"solver only" when the solver won it, "unwinnable" when it proved it lost,
and "unknown" when neither.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .stats import SOLVER_ONLY, UNKNOWN, UNWINNABLE, player_mask, solver_mask, wilson


def verdicts(df: pd.DataFrame) -> pd.DataFrame:
    """The solver's verdict per (game, seed, deal), over every solver row of ``df``.

    Several solver runs may cover a deal (another budget, per-base
    verdicts): a deal is won if any run won it, else lost if any proved it
    lost, else unknown. A deal won by one run and proved lost by another
    would be a solver bug: :func:`contradictions` lists them.
    """
    return one_verdict(df[solver_mask(df.player)], ["game", "seed", "deal"])


def one_verdict(rows: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """One verdict per ``by`` over several exact runs' ``rows``: won if any won, else lost if any proved it lost, else
    unknown (column ``verdict``)."""
    if rows.empty:
        return pd.DataFrame(columns=[*by, "verdict"])
    result = rows.result.astype(str)
    flags = rows.assign(won=result.eq("won"), lost=result.eq("lost"))
    g = flags.groupby(by, observed=True)[["won", "lost"]].any().reset_index()
    g["verdict"] = np.where(g.won, "won", np.where(g.lost, "lost", "unknown"))
    return g[[*by, "verdict"]]


def contradictions(df: pd.DataFrame) -> pd.DataFrame:
    """Deals one solver run won and another proved lost (there should be none)."""
    rows = df[solver_mask(df.player)]
    g = rows.groupby(["game", "seed", "deal"], observed=True).result.agg(lambda r: {"won", "lost"} <= set(r))
    return g[g].reset_index()[["game", "seed", "deal"]]


def strength(rows, solved: pd.DataFrame, games: list[str] | None = None, players: list[str] | None = None) -> pd.DataFrame:
    """Per game and rung (of ``players``, all the heuristic players by default): the solver's winnable deals among
    those every rung of the game played (``winnable``), how many of them the rung won (``won``), and its rows of that
    game (``deals``) with their wins (``won_all``) and CPU (``cpu_us``, summed). ``rows``: a frame, or
    :class:`analysis.scan.CheapRows`."""
    from .picks import pick
    from .scan import as_rows

    rows = as_rows(rows)
    held = rows.pairs(pick(games, players))
    out = []
    for game, h in held.groupby("game", sort=True):
        common = solved[(solved.game == game) & (solved.verdict == "won")][["game", "seed", "deal"]]
        for player in h.player:
            common = rows.which(common, pick([game], [player]))
        won = rows.on_deals(common, pick([game], list(h.player))).set_index("player").won
        out += [{"game": game, "player": p, "winnable": len(common), "won": int(won.get(p, 0)), "deals": int(n),
                 "won_all": int(w), "cpu_us": int(c)} for p, n, w, c in zip(h.player, h.deals, h.won, h.cpu_us)]
    return pd.DataFrame(out, columns=["game", "player", "winnable", "won", "deals", "won_all", "cpu_us"])


def order(s: pd.DataFrame, game: str | None = None) -> list[str]:
    """The rungs of :func:`strength` ``s``, weakest first: in ``game``, or across every game of ``s`` (the share of
    the winnable deals won over all of them; the win rate where the solver has no verdict on the deals); ties
    broken by mean CPU a deal on the same rows."""
    s = s if game is None else s[s.game == game]
    if s.empty:
        return []
    g = s.groupby("player", sort=True)[["won", "winnable", "deals", "won_all", "cpu_us"]].sum()
    g = g.assign(share=(g.won / g.winnable).where(g.winnable > 0, g.won_all / g.deals), cpu=g.cpu_us / g.deals)
    return list(g.sort_values(["share", "cpu"], kind="stable").index)


def swaps(s: pd.DataFrame) -> dict[str, list[tuple[str, str]]]:
    """Where a game's own order (:func:`order` in it) differs from the order across games: per such game, the pairs
    (a, b) of rungs it ranks a below b though the order across games ranks b below a."""
    across = {r: i for i, r in enumerate(order(s))}
    out = {}
    for game in sorted(set(s.game)):
        own = order(s, game)
        pairs = [(a, b) for i, a in enumerate(own) for b in own[i + 1:] if across[a] > across[b]]
        if pairs:
            out[game] = pairs
    return out


def rungs(df: pd.DataFrame, solved: pd.DataFrame | None = None, game: str | None = None) -> list[str]:
    """The heuristic players of ``df``, weakest first (:func:`order`: in ``game``, or across its games)."""
    heur = df[player_mask(df.player)]
    if heur.empty:
        return []
    return order(strength(heur, verdicts(df) if solved is None else solved), game)


def ladder_table(df, solved: pd.DataFrame | None = None, order: list[str] | None = None) -> pd.DataFrame:
    """Per game (in the study's order) and rung: win rate, share of the solver's winnable deals won (95% Wilson), CPU
    per deal.

    ``df``: rows (a frame), or the rungs' rows where they lie (:class:`analysis.scan.CheapRows`, with ``solved``
    and ``order`` given). ``solved`` is :func:`verdicts` (of ``df`` itself when not given); ``order`` the rungs
    weakest first (:func:`rungs` of ``df`` when not given).
    """
    from .games import in_study_order
    from .scan import as_rows

    solved = verdicts(df) if solved is None else solved
    order = rungs(df, solved) if order is None else order
    rows = as_rows(df)
    counts = rows.counts(["game", "player"]).set_index(["game", "player"])
    winnable = rows.on_deals(solved[solved.verdict == "won"][["game", "seed", "deal"]]).set_index(["game", "player"])
    cpu = rows.cpu(["game", "player"]).set_index(["game", "player"])
    out = []
    for game in in_study_order(counts.index.get_level_values(0).unique()):
        for rung in order:
            if (game, rung) not in counts.index:
                continue
            n, won = int(counts.deals[(game, rung)]), int(counts.won[(game, rung)])
            lo, hi = wilson(won, n)
            w_n = int(winnable.deals.get((game, rung), 0))
            w_won = int(winnable.won.get((game, rung), 0)) if w_n else 0
            w_lo, w_hi = wilson(w_won, w_n)
            c = cpu.loc[(game, rung)]  # (integer microseconds: exact, wherever they are counted)
            out.append({"game": game, "player": rung, "deals": n, "won": won, "rate": won / n, "ci_low": lo, "ci_high": hi,
                        "winnable": w_n, "winnable_won": w_won, "share_of_winnable": w_won / w_n if w_n else np.nan,
                        "share_ci_low": w_lo, "share_ci_high": w_hi, "cpu_ms_mean": int(c.cpu_sum) / n / 1000,
                        "cpu_ms_median": float(c.cpu_median) / 1000, "cpu_ms_p90": float(c.cpu_p90) / 1000})
    return pd.DataFrame(out)


def difficulty_by_rung(df: pd.DataFrame, solved: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per (game, seed, deal) played by every rung of its game: the weakest rung that wins it, by that game's own
    order (:func:`order`), as an ordered category (the categories in the order across games), and its place in the
    game's order (``rank``: 0 the weakest rung, the number of rungs when only the solver wins it; none when no one
    does).

    Only deals every rung of the game played count, so the classes of two
    games on the same deal ids compare the same shuffled decks (the same
    tableau in Selective Castle and Streets and Alleys; Beleaguered Castle
    deals the deck without its Aces).
    """
    solved = verdicts(df) if solved is None else solved
    heur = df[player_mask(df.player)]
    s = strength(heur, solved)
    across = order(s)
    out = []
    for game, g in heur.groupby("game", observed=True, sort=False):
        played = order(s, game)
        wide = g.pivot_table(index=["seed", "deal"], columns="player", values="won", aggfunc="first", observed=True)
        wide = wide[played].dropna().astype(bool)
        first = np.full(len(wide), "", dtype=object)
        for rung in reversed(played):
            first = np.where(wide[rung].to_numpy(), rung, first)
        res = pd.DataFrame({"game": game, "seed": wide.index.get_level_values(0), "deal": wide.index.get_level_values(1),
                            "difficulty": first})
        v = solved[solved.game == game].set_index(["seed", "deal"]).verdict
        verdict = v.reindex(pd.MultiIndex.from_frame(res[["seed", "deal"]])).to_numpy()
        none = res.difficulty == ""
        res.loc[none & (verdict == "won"), "difficulty"] = SOLVER_ONLY
        res.loc[none & (verdict == "lost"), "difficulty"] = UNWINNABLE
        res.loc[res.difficulty == "", "difficulty"] = UNKNOWN
        res["rank"] = res.difficulty.map(rank_in(played))
        out.append(res)
    if not out:
        return pd.DataFrame(columns=["game", "seed", "deal", "difficulty", "rank"])
    res = pd.concat(out, ignore_index=True)
    res["difficulty"] = pd.Categorical(res.difficulty, categories=across + [SOLVER_ONLY, UNKNOWN, UNWINNABLE], ordered=True)
    return res


def rank_in(played: list[str]) -> dict[str, float]:
    """A deal's place on a game's ladder (``played``, weakest first) by the weakest rung that wins it: 0 for the
    weakest rung, the number of rungs for a deal only the solver wins (above every rung); unknown and unwinnable deals
    have none (absent)."""
    return {r: float(i) for i, r in enumerate(played)} | {SOLVER_ONLY: float(len(played))}


def difficulty_shares(diff: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """The share of each game's deals at each difficulty (rows: difficulty in ladder order; columns: games).

    ``diff``: :func:`difficulty_by_rung`'s deals, or their counts (game, difficulty, n) with the rungs' ``order``.
    """
    if diff.empty:
        return pd.DataFrame()
    if "n" in diff.columns:
        counts = _table(diff.rename(columns={"difficulty": "a", "game": "b"}), order + [SOLVER_ONLY, UNKNOWN, UNWINNABLE],
                        sorted(diff.game.unique()), "difficulty", "game")
    else:
        counts = pd.crosstab(diff.difficulty, diff.game, dropna=False)
    return counts / counts.sum()


def _table(counted: pd.DataFrame, rows: list[str], columns: list[str], row_name: str, column_name: str) -> pd.DataFrame:
    """Counts (columns a, b, n) as a full table: every row and column named, in their order, empty cells 0."""
    t = counted.pivot_table(index="a", columns="b", values="n", aggfunc="sum", fill_value=0, observed=True)
    t = t.reindex(index=rows, columns=columns, fill_value=0).astype("int64")
    t.index = pd.CategoricalIndex(rows, categories=rows, ordered=True, name=row_name)
    t.columns = pd.Index(columns, name=column_name)
    return t


def paired_difficulty(diff: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """How the difficulty of deal ``d`` in game ``a`` relates to the same deal in game ``b`` (counts)."""
    x = diff[diff.game == a].set_index(["seed", "deal"]).difficulty
    y = diff[diff.game == b].set_index(["seed", "deal"]).difficulty
    j = pd.concat([x.rename(a), y.rename(b)], axis=1, join="inner")
    return pd.crosstab(j[a], j[b], dropna=False)


def paired_difficulty_of_counts(counted: pd.DataFrame, order: list[str], a: str, b: str) -> pd.DataFrame:
    """:func:`paired_difficulty` of pairs already counted (columns a, b: the two games' difficulties of one deal; n)."""
    classes = order + [SOLVER_ONLY, UNKNOWN, UNWINNABLE]
    return _table(counted, classes, classes, a, b)
