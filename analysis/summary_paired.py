"""``castle summary --paired A B``: two players, or two games, compared deal by deal, by the report's own functions.

Two players: in each game both played, A's share won minus B's on the deals
both played (:func:`analysis.scan.pair`: Newcombe's interval, McNemar's
test). Perfect play (``perfect play``, or ``solver``) against a player: the
solver's verdicts (:func:`analysis.ladder.verdicts`) and the player's results
on the deals both have, the unknowns counted both ways
(:func:`analysis.stats.paired_both_ways`). Two games: each player that played
both, and perfect play (:func:`analysis.winnability.perfect_play_pair`),
paired by deal as :data:`analysis.compare.PAIRING` says.
"""

from __future__ import annotations

import math

import pandas as pd

from . import scan
from .ladder import verdicts
from .picks import pick
from .stats import is_judge, paired_both_ways, player_name, solver_mask
from .winnability import PERFECT, perfect_play_pair

COLUMNS = ["a", "b", "game", "player", "deals", "diff", "lo", "hi", "p"]
_PERFECT_NAMES = (PERFECT, "perfect", "solver")


class PairError(ValueError):
    """A name that is neither a game nor a player of the data, or a player name several labels share."""


def paired(df: pd.DataFrame, cheap, a: str, b: str) -> pd.DataFrame:
    """A − B deal by deal (columns :data:`COLUMNS`; ``p`` McNemar's, none under perfect play)."""
    held = cheap.pairs()[["game", "player"]] if cheap is not None and len(cheap) else pd.DataFrame(columns=["game", "player"])
    games = sorted(set(map(str, held.game)) | set(map(str, df.game)))
    if a in games and b in games:
        return _games(df, cheap, held, a, b)
    if a in games or b in games:
        raise PairError(f"--paired takes two games or two players, not one of each ({a if a in games else b} is a game)")
    out = []
    for game in games:
        la, lb = _label(held, game, a), _label(held, game, b)
        if la is None or lb is None:
            continue
        out.append(_pair(df, cheap, game, la, lb, f"{a}", f"{b}"))
    found = [r for r in out if r is not None]
    if not found:
        known = sorted({player_name(p) for p in held.player}) + [PERFECT]
        raise PairError(f"no deal both {a!r} and {b!r} played: give two games ({', '.join(games)}) or two players "
                        f"({', '.join(known)})")
    return pd.DataFrame(found, columns=COLUMNS)


def _label(held: pd.DataFrame, game: str, name: str) -> str | None:
    """The player label ``name`` means in ``game`` (a label, or a player name only one label of the game has)."""
    if name.lower() in _PERFECT_NAMES:
        return PERFECT
    here = [str(p) for p in held.player[held.game == game] if not is_judge(str(p))]
    if name in here:
        return name
    same = [p for p in here if player_name(p) == name]
    if len(same) > 1:
        raise PairError(f"{name!r} in {game} is {len(same)} players: give one of {', '.join(same)}")
    return same[0] if same else None


def _pair(df, cheap, game: str, la: str, lb: str, a: str, b: str) -> dict | None:
    """One game's A − B, either side possibly perfect play."""
    if PERFECT not in (la, lb):
        pr = scan.pair(cheap, (game, la), (game, lb))
        return None if pr is None else {"a": la, "b": lb, "game": game, "player": "", "deals": pr.deals, "diff": pr.diff,
                                        "lo": pr.diff_low, "hi": pr.diff_high, "p": pr.p_value}
    if la == lb:
        return None
    solver = df[(df.game == game) & solver_mask(df.player)]
    if solver.empty:
        return None
    v = verdicts(solver)
    other = lb if la == PERFECT else la
    rows = cheap.rows_on(v[["game", "seed", "deal"]], pick(games=[game], players=[other]), ["seed", "deal", "result"])
    j = v.merge(rows, on=["seed", "deal"])
    if j.empty:
        return None
    x, y = (j.verdict, j.result) if la == PERFECT else (j.result, j.verdict)
    d, lo, hi = paired_both_ways(x.to_numpy(), y.to_numpy())
    return {"a": la, "b": lb, "game": game, "player": "", "deals": len(j), "diff": d, "lo": lo, "hi": hi, "p": math.nan}


def _games(df, cheap, held: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Game A − game B for each player that played both, and under perfect play."""
    out = []
    both = sorted(set(held.player[held.game == a]) & set(held.player[held.game == b]))
    for player in both:
        pr = scan.pair(cheap, (a, player), (b, player))
        if pr is not None:
            out.append({"a": a, "b": b, "game": "", "player": player, "deals": pr.deals, "diff": pr.diff,
                        "lo": pr.diff_low, "hi": pr.diff_high, "p": pr.p_value})
    pp = perfect_play_pair(df[solver_mask(df.player)], a, b) if len(df) else None
    if pp is not None:
        out.insert(0, {"a": a, "b": b, "game": "", "player": PERFECT, "deals": pp.deals, "diff": pp.diff,
                       "lo": pp.diff_low, "hi": pp.diff_high, "p": math.nan})
    if not out:
        raise PairError(f"{a} and {b} share no deal played by one player (nor both solved)")
    return pd.DataFrame(out, columns=COLUMNS)
