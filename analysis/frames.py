"""The heuristic players' rows in a pandas frame, asked what :class:`analysis.scan.CheapRows` is asked.

A notebook's or a test's rows are a frame; the report's lie on disk. This
reader gives the same answers from a frame, so the analysis has one code
path wherever the rows are (:func:`analysis.scan.as_rows` chooses).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .picks import ALL, Pick
from .stats import paired_counts, player_mask


class FrameRows:
    """:class:`CheapRows`'s questions asked of a pandas frame (a notebook's, a test's): the same answers, so the
    analysis has one code path whether the rows lie on disk or in memory. Judged rows are left out, as there."""

    def __init__(self, df: pd.DataFrame):
        self.frame = df[player_mask(df.player)] if len(df) else df

    def _pick(self, p: Pick) -> pd.DataFrame:
        d = self.frame
        if p.games is not None:
            d = d[d.game.isin(p.games)]
        if p.players is not None:
            d = d[d.player.isin(p.players)]
        if p.not_won:
            d = d[d.result != "won"]
        for c in p.has:
            d = d[d[c].notna()]
        return d

    def __len__(self) -> int:
        return len(self.frame)

    def pairs(self, p: Pick = ALL) -> pd.DataFrame:
        d = self._pick(p)
        d = d.assign(won_=d.result.eq("won"), cpu_=d.cpu_us if "cpu_us" in d.columns else 0)
        g = d.groupby(["game", "player"], observed=True, sort=True)
        out = pd.DataFrame({"deals": g.size(), "won": g.won_.sum(), "cpu_us": g.cpu_.sum()}).reset_index()
        return out[["game", "player", "deals", "won", "cpu_us"]]

    def counts(self, by: list[str], p: Pick = ALL) -> pd.DataFrame:
        d = self._pick(p)
        g = d.assign(won_=d.result.eq("won"), unknown_=d.result.eq("unknown")).groupby(by, observed=True, sort=True)
        out = pd.DataFrame({"deals": g.size(), "won": g.won_.sum(), "unknown": g.unknown_.sum()}).reset_index()
        return out[by + ["deals", "won", "unknown"]]

    def span(self, p: Pick = ALL, by: list[str] | None = None) -> pd.DataFrame:
        d = self._pick(p)
        if not by:
            deals = d.deal
            return pd.DataFrame({"n": [deals.nunique()], "lo": [deals.min() if len(deals) else None],
                                 "hi": [deals.max() if len(deals) else None]})
        g = d.groupby(by, observed=True, sort=True).deal
        return pd.DataFrame({"n": g.nunique(), "lo": g.min(), "hi": g.max()}).reset_index()

    def paired(self, a: tuple[str, str], b: tuple[str, str]) -> tuple[int, int, int, int]:
        return paired_counts(self.frame, a, b)

    def deals_of(self, p: Pick) -> pd.DataFrame:
        return self._pick(p)[["game", "seed", "deal"]].drop_duplicates()

    def first(self, column: str, game: str, player: str):
        d = self.frame[(self.frame.game == game) & (self.frame.player == player)]
        return d[column].iloc[0] if len(d) else None

    def mean_win_moves(self, player: str, game: str, other: str) -> float:
        won = self.frame[(self.frame.player == player) & (self.frame.result == "won")]
        a = won[won.game == game].set_index(["seed", "deal"]).moves
        b = won[won.game == other].set_index(["seed", "deal"]).moves
        common = a.index.intersection(b.index)
        return float(a.loc[common].mean()) if len(common) else float("nan")

    def which(self, keys: pd.DataFrame, p: Pick = ALL) -> pd.DataFrame:
        k = keys[["game", "seed", "deal"]].drop_duplicates()
        return k.merge(self.deals_of(p), on=["game", "seed", "deal"]).sort_values(["game", "seed", "deal"], ignore_index=True)

    def rows_on(self, keys: pd.DataFrame, p: Pick = ALL, columns: list[str] | None = None) -> pd.DataFrame:
        on = [c for c in ("game", "seed", "deal") if c in keys.columns]
        d = self._pick(p).merge(keys[on].drop_duplicates(), on=on)
        return d[columns] if columns else d

    def cpu(self, by: list[str], p: Pick = ALL) -> pd.DataFrame:
        g = self._pick(p).groupby(by, observed=True, sort=True).cpu_us
        out = pd.DataFrame({"n": g.size(), "cpu_sum": g.sum().astype(object).map(int),
                            "cpu_median": g.agg(lambda x: float(np.median(x.to_numpy()))),
                            "cpu_p90": g.agg(lambda x: float(np.percentile(x.to_numpy(), 90)))}).reset_index()
        return out[by + ["n", "cpu_sum", "cpu_median", "cpu_p90"]]

    def on_deals(self, keys: pd.DataFrame, p: Pick = ALL, by: list[str] | None = None) -> pd.DataFrame:
        on = [c for c in ("game", "seed", "deal") if c in keys.columns]
        d = self._pick(p).merge(keys[on].drop_duplicates(), on=on)
        return FrameRows(d).counts(by or ["game", "player"])
