"""One estimator per sampling design: the share of deals winnable (or won), its 95% interval, and what it cost.

A design is a property of the run, recorded in its rows; the analysis never
re-decides it:

* **plain**: every deal played to the end (the solver at its full budget, or a
  heuristic player). The estimate is the share won; the interval is Wilson's,
  computed with the unknowns counted as lost and as won and the outer bounds
  kept (Blake & Gent's convention, :func:`analysis.stats.rate_interval`).
* **two-phase / three-phase** (the ``phased`` player, :mod:`sim.solver.phased`):
  a short budget on every deal, and longer ones on seeded random subsamples of
  the deals left unsettled. At each phase the deals split into two strata,
  settled (observed in full) and unsettled (observed on the subsample that went
  on), and the estimate is the stratified mean with the unsettled stratum's
  mean estimated from its subsample, recursively:

      m_k = (W_k + U_k · m_{k+1}) / D_k,      m_K = (W_K + t · K_K) / D_K

  (``D_k`` deals reached phase ``k``, ``W_k`` were won there, ``U_k`` left it
  unsettled, ``K_K`` stayed unknown at the full budget, counted as lost with
  ``t = 0`` and as won with ``t = 1``). Its variance is the double-sampling
  variance for stratification (Cochran, *Sampling Techniques*, 12.2; Thompson,
  *Sampling*, ch. 14), one level per phase:

      v(m_k) = w_S² a(1-a)/S_k + w_U² v(m_{k+1}) + [w_S (a - m_k)² + w_U (m_{k+1} - m_k)²] / D_k

  with ``a`` the settled stratum's win share and ``w_S``, ``w_U`` the strata's
  shares of ``D_k``. Each stratum is weighted by its **realised** share of the
  deals (``S_k / D_k`` settled, ``U_k / D_k`` unsettled, as counted), and the
  unsettled stratum's win share is the mean of the subsample that went on,
  whatever its size came out: double sampling for stratification. Weighting
  each deal by the inverse of its nominal rate instead (Horvitz-Thompson) would
  add the noise of how many deals the draw happened to take; the realised
  shares are known exactly, since every deal plays the first phase.

  The interval (:mod:`analysis.conventions`): from the estimate with every
  unknown lost minus ``q`` of its standard errors to the estimate with every
  unknown won plus ``q`` of its own, ``q`` Student's t quantile at
  Satterthwaite's degrees of freedom (1.96 once every part of the variance
  rests on thousands of deals; larger when the deepest subsample is small).

Several runs of one game (the study's plain run on its first deals, a phased
run on the next ones) are strata of deals: the combined estimate weighs each by
its deals, its variance adds theirs with the squared weights, and its quantile
is Satterthwaite's over all their parts (:func:`combine`), each bound again
with its own side's variance.

**Unknowns solved again.** The ``settle`` player's rows (an experiment with
``unknowns_of``, :mod:`sim.study.unknowns`) are no stratum: each is the solver,
deeper, on a deal an exact run left unknown at its full budget, and a verdict
it finds takes the unknown's place (its CPU is added to the deal's). Every
such deal is solved again, whatever it is, so this is one more phase at rate
1: the estimators above apply unchanged, and the deals still unknown (or not
yet solved again) are counted both ways as before. Coverage is
tested by simulation on populations resampled from the shipped rows
(``tests/test_designs.py``; ``benchmarks/design_coverage.py`` for the full check).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd

from sim.core.jsontext import dumps
from sim.players.spec import EXACT

from .roles import role
from .stats import player_name, rate_interval, rows_of

Z = 1.959963984540054  #: the normal quantile of a 95% interval
PHASED = "phased"
SETTLE = "settle"  #: the solver again on others' unknowns: its verdicts replace them (no stratum of its own)
#: Solvitaire's half-width on Streets and Alleys (Blake & Gent): the precision the cost is quoted at
SOLVITAIRE_HALF_WIDTH = 0.00186


@dataclass(frozen=True)
class Estimate:
    """A design's estimate of a share, with its interval and cost; ``variance`` is the estimate's (unknowns as lost),
    ``per_deal`` the variance times the deals (what one more deal buys), ``unknown`` the share counted both ways."""

    game: str
    player: str
    design: str
    estimate: float
    lo: float
    hi: float
    deals: int
    solved: int  #: deals given a verdict (all of them in a plain design; the subsample's in a phased one)
    cpu_seconds: float
    variance: float
    unknown: float
    q: float = Z  #: the quantile its interval was made with (Student's, with Satterthwaite's degrees of freedom)
    again: int = 0  #: deals left unknown at the full budget and solved again deeper (the ``settle`` player's)
    #: the variance's parts, (contribution, deals it rests on), with the unknowns lost and with them won: what
    #: Satterthwaite's degrees of freedom are counted from (empty: the variance alone, on all the deals)
    parts: tuple = ()
    parts_won: tuple = ()
    #: deals (won, lost, unknown at the full budget, left unsettled by the design and not followed): a heuristic
    #: player's "lost" is every deal not won
    counts: tuple = ()

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    @property
    def described(self) -> str:
        """The design in words, with the unknowns solved again: ``plain + three-phase, 23 unknowns solved again``."""
        return self.design + (f", {self.again:,} unknown{'s' if self.again > 1 else ''} solved again" if self.again else "")

    @property
    def per_deal(self) -> float:
        return self.variance * self.deals

    @property
    def cpu_per_deal(self) -> float:
        return self.cpu_seconds / self.deals if self.deals else math.nan

    def cpu_hours_to(self, half_width: float = SOLVITAIRE_HALF_WIDTH) -> float:
        """CPU-hours this design would need for a sampling half-width of ``half_width`` (the unknowns' spread aside)."""
        return self.per_deal * self.cpu_per_deal / (half_width / Z) ** 2 / 3600

    def cpu_hours_whole(self, half_width: float = SOLVITAIRE_HALF_WIDTH, settled: float = 0.0,
                        settle_cpu: float = 0.0) -> float:
        """CPU-hours this design would need for a whole interval of ±``half_width``: the sampling part and the unknowns'
        spread (half their share, less the share ``settled`` that solving them again settles, at ``settle_cpu`` more
        CPU seconds for each deal played); infinite if the unknowns alone are wider."""
        sampling = half_width - self.unknown * (1 - settled) / 2
        if sampling <= 0:
            return math.inf
        return self.per_deal * (Z / sampling) ** 2 * (self.cpu_per_deal + settle_cpu) / 3600

    def side(self, won: bool) -> tuple[tuple[float, int], ...]:
        """The variance's parts with the unknowns lost (``won`` False) or won."""
        return (self.parts_won if won else self.parts) or ((self.variance, self.deals),)

    def to_json(self) -> str:
        """The fields ``castle summary --json`` prints: game, player, design, estimate, lo, hi, deals, cpu_seconds, and
        solved_again (deals unknown at the full budget solved again deeper)."""
        d = asdict(self) | {"solved_again": self.again}
        keep = ("game", "player", "design", "estimate", "lo", "hi", "deals", "cpu_seconds", "solved_again")
        return dumps({k: (round(d[k], 6) if isinstance(d[k], float) else d[k]) for k in keep})  # (null: not defined)


# --------------------------------------------------------------------------------------------------------------
# the designs
# --------------------------------------------------------------------------------------------------------------


def design_of(rows: pd.DataFrame) -> str:
    """The design a player's rows were played in: ``plain``, or ``two-phase`` / ``three-phase`` (the phased player)."""
    label = str(rows.player.iloc[0])
    if player_name(label) != PHASED:
        return "plain"
    params = json.loads(rows.player_params.iloc[0]) if "player_params" in rows.columns else {}
    return "two-phase" if int(params.get("middle", 1)) == 0 else "three-phase"


def plain(won: int, unknown: int, n: int) -> tuple[float, float, float, float]:
    """(estimate, low, high, variance) of a plain design: Wilson's interval with unknowns both ways."""
    mid, lo, hi = rate_interval(won, unknown, n)
    p = won / n if n else math.nan
    return mid, lo, hi, p * (1 - p) / n if n else math.nan


def plain_estimate(game: str, player: str, won: int, unknown: int, n: int, cpu_seconds: float, again: int = 0) -> Estimate:
    """A plain design's :class:`Estimate`, with its variance on each side (unknowns lost, won) for :func:`combine`."""
    mid, lo, hi, var = plain(won, unknown, n)
    p = (won + unknown) / n
    return Estimate(game, player, "plain", mid, lo, hi, n, n, cpu_seconds, var, unknown / n, again=again,
                    parts=((var, n),), parts_won=((p * (1 - p) / n, n),), counts=(won, n - won - unknown, unknown, 0))


def phased_mean(phase: np.ndarray, left: np.ndarray, result: np.ndarray, unknown_as: int, level: int = 1,
                last: int | None = None) -> tuple[float, float, list[tuple[float, int]]]:
    """(estimate, variance, the variance's parts) of the win share of the deals that reached phase ``level``: the
    recursion of the module's docstring. ``unknown_as``: 0 or 1, what a deal unknown at the full budget counts as.
    The parts are (contribution, deals it is estimated from), for Satterthwaite's degrees of freedom."""
    last = int(phase.max()) if last is None else last
    here = phase >= level
    d = int(here.sum())
    if d == 0:
        return math.nan, math.nan, []
    at = here & (phase == level)
    won = int((at & (result == "won")).sum())
    if level == last:
        k = won + unknown_as * int((at & (result == "unknown") & ~left).sum())
        v = _spread(k, d) / d
        return k / d, v, [(v, d)]
    settled = int((at & np.isin(result, ("won", "lost"))).sum())
    unsettled = d - settled
    if unsettled == 0:
        v = _spread(won, d) / d
        return won / d, v, [(v, d)]
    sub, v_sub, parts_sub = phased_mean(phase, left, result, unknown_as, level + 1, last)
    if math.isnan(sub):  # no deal went on: the unsettled stratum is all unknown
        sub, v_sub, parts_sub = float(unknown_as), 0.0, []
    a = won / settled if settled else 0.0
    w_s, w_u = settled / d, unsettled / d
    m = w_s * a + w_u * sub
    within = w_s * w_s * _spread(won, settled) / settled if settled else 0.0
    between = (w_s * (a - m) ** 2 + w_u * (sub - m) ** 2) / d
    parts = [(within, settled), (between, d)] + [(w_u * w_u * c, n) for c, n in parts_sub]
    return m, within + w_u * w_u * v_sub + between, parts


def quantile(parts: list[tuple[float, int]]) -> float:
    """The 97.5% quantile for an interval whose variance adds ``parts``: Student's t with Satterthwaite's degrees of
    freedom (the deepest phase's subsample may hold only tens of deals; with thousands it is the normal's 1.96)."""
    from scipy.stats import t

    num = sum(c for c, _ in parts) ** 2
    den = sum(c * c / (n - 1) for c, n in parts if n > 1 and c > 0)
    return float(t.ppf(0.975, num / den)) if den > 0 else Z


def phased_interval(phase: np.ndarray, left: np.ndarray, result: np.ndarray) -> tuple[float, float, float, float, float]:
    """(estimate with unknowns lost, with unknowns won, the first's variance, low, high) of a phased design's rows."""
    m0, m1, v0, lo, hi, _, _ = _phased(phase, left, result)
    return m0, m1, v0, lo, hi


def _phased(phase, left, result) -> tuple:
    """:func:`phased_interval`, and the variance's parts on each side (unknowns lost, won)."""
    result = np.asarray(result).astype(str)
    m0, v0, p0 = phased_mean(phase, left, result, 0)
    m1, v1, p1 = phased_mean(phase, left, result, 1)
    lo, hi = max(0.0, m0 - quantile(p0) * math.sqrt(v0)), min(1.0, m1 + quantile(p1) * math.sqrt(v1))
    return m0, m1, v0, lo, hi, tuple(p0), tuple(p1)


def _spread(k: int, n: int) -> float:
    """The variance of one deal's outcome in a stratum of ``n`` with ``k`` wins, as ``p(1 - p)`` with ``p`` taken
    as ``(k + 1) / (n + 2)``: a stratum of a few deals that all went one way is not taken to have no variance
    (the deepest phase's subsample may hold only tens of deals)."""
    p = (k + 1) / (n + 2)
    return p * (1 - p)


def estimate(rows: pd.DataFrame, game: str | None = None, player: str | None = None) -> Estimate:
    """The estimate of one (game, player)'s rows in their design."""
    game = game or str(rows.game.iloc[0])
    player = player or str(rows.player.iloc[0])
    design = design_of(rows)
    cpu = float(rows.cpu_us.sum()) / 1e6
    result = rows.result.astype(str).to_numpy().astype(str)
    if design == "plain":
        won, unknown = int((result == "won").sum()), int((result == "unknown").sum())
        return plain_estimate(game, player, won, unknown, len(rows), cpu)
    phase, left = rows.phase.to_numpy(int), rows.left.fillna(False).to_numpy(bool)
    m0, m1, v0, lo, hi, p0, p1 = _phased(phase, left, result)
    solved = int((~left).sum())
    counts = tuple(int(((result == r) & ~left).sum()) for r in ("won", "lost", "unknown")) + (int(left.sum()),)
    return Estimate(game, player, design, (m0 + m1) / 2, lo, hi, len(rows), solved, cpu, v0, m1 - m0, quantile(p0),
                    parts=p0, parts_won=p1, counts=counts)


def combine(parts: list[Estimate], game: str, player: str = "perfect play") -> Estimate:
    """Disjoint sets of deals of one game, each in its own design, as one stratified estimate weighted by deals: each
    bound is its side's estimate (unknowns lost, won) with Student's t quantile at the Satterthwaite degrees of
    freedom of all the parts' variances, scaled by the squared weights, times that side's standard error."""
    if len(parts) == 1:
        return replace(parts[0], game=game, player=player)
    n = sum(p.deals for p in parts)
    w = [p.deals / n for p in parts]
    low = sum(wi * (p.estimate - p.unknown / 2) for wi, p in zip(w, parts))
    high = sum(wi * (p.estimate + p.unknown / 2) for wi, p in zip(w, parts))
    sides = [tuple((wi * wi * c, k) for wi, p in zip(w, parts) for c, k in p.side(won)) for won in (False, True)]
    var, var_won = (sum(c for c, _ in side) for side in sides)
    q, q_won = (quantile(list(side)) for side in sides)
    design = " + ".join(dict.fromkeys(p.design for p in parts))
    return Estimate(game, player, design, (low + high) / 2, max(0.0, low - q * math.sqrt(var)),
                    min(1.0, high + q_won * math.sqrt(var_won)), n, sum(p.solved for p in parts),
                    sum(p.cpu_seconds for p in parts), var, high - low, q, sum(p.again for p in parts), *sides,
                    counts=tuple(map(sum, zip(*(p.counts for p in parts)))) if all(p.counts for p in parts) else ())


# --------------------------------------------------------------------------------------------------------------
# a dataset's estimates
# --------------------------------------------------------------------------------------------------------------


def is_exact(player: str) -> bool:
    """Does this label give verdicts: is its player's role exact (the solver, the solver in phases, the solver again
    on others' unknowns; :mod:`analysis.roles`)?"""
    return role(player) == EXACT


def estimates(df: pd.DataFrame, cheap=None) -> list[Estimate]:
    """Every (game, player)'s estimate in its design, then per game one for perfect play over all its exact runs.

    With ``cheap`` (:class:`analysis.scan.CheapRows`), ``df`` holds the judged rows and the heuristic players'
    plain estimates are made of their counts, where the rows lie.
    """
    out = {(str(game), str(player)): estimate(g, game, player)
           for (game, player), g in df.groupby(["game", "player"], observed=True, sort=True)
           if player_name(player) != SETTLE}
    if cheap is not None:
        counts = cheap.counts(["game", "player"]).merge(cheap.pairs()[["game", "player", "cpu_us"]], on=["game", "player"])
        for game, player, n, won, unknown, cpu_us in counts[["game", "player", "deals", "won", "unknown", "cpu_us"]].itertuples(
                index=False, name=None):
            out[(game, player)] = plain_estimate(game, player, int(won), int(unknown), int(n), float(int(cpu_us)) / 1e6)
    return [out[k] for k in sorted(out)] + list(perfect_play_by_game(df).values())


def perfect_play(rows: pd.DataFrame, game: str) -> Estimate | None:
    """Winnability of ``game`` over every exact run: the plain solver runs' deals combined into one verdict per deal
    (won if any run won it, lost if any proved it lost), then each phased run on the deals the plain runs did not
    play, as further strata; the ``settle`` rows' verdicts in place of the unknowns they solved again. None without
    exact rows."""
    from .ladder import verdicts

    again = solved_again(rows_of(rows, SETTLE))
    plain_rows = rows_of(rows, "solver")
    parts = []
    covered = pd.DataFrame(columns=["seed", "deal"])
    if len(plain_rows):
        v = verdicts(plain_rows)
        cpu, n = float(plain_rows.cpu_us.sum()) / 1e6, 0
        if len(again):
            v, n, extra_us = _replace_unknowns(v.rename(columns={"verdict": "result"}), again)
            v, cpu = v.rename(columns={"result": "verdict"}), cpu + extra_us / 1e6
        won, unknown = int((v.verdict == "won").sum()), int((v.verdict == "unknown").sum())
        parts.append(plain_estimate(game, "solver", won, unknown, len(v), cpu, again=n))
        covered = v[["seed", "deal"]]
    for label, g in rows_of(rows, PHASED).groupby("player", observed=True):
        fresh = g.merge(covered, on=["seed", "deal"], how="left", indicator=True)
        fresh = fresh[fresh["_merge"] == "left_only"].drop(columns="_merge")
        n = 0
        if len(fresh) and len(again):
            fresh, n, _ = _replace_unknowns(fresh, again)
        if len(fresh):
            parts.append(replace(estimate(fresh, game, str(label)), again=n))
    return combine(parts, game) if parts else None


def solved_again(rows: pd.DataFrame) -> pd.DataFrame:
    """The ``settle`` rows' verdict per (seed, deal): won if any won, lost if any proved it lost, else unknown; with
    their CPU (microseconds)."""
    from .ladder import one_verdict

    if rows.empty:
        return pd.DataFrame(columns=["seed", "deal", "again", "again_us"])
    us = rows.assign(again_us=rows.cpu_us.astype("int64")).groupby(["seed", "deal"], observed=True).again_us.sum().reset_index()
    return one_verdict(rows, ["seed", "deal"]).rename(columns={"verdict": "again"}).merge(us, on=["seed", "deal"])


def _replace_unknowns(rows: pd.DataFrame, again: pd.DataFrame) -> tuple[pd.DataFrame, int, int]:
    """``rows`` (one per deal, a ``result`` column) with each unknown at the full budget that ``again`` solved
    replaced by its verdict (still unknown if it found none), and that deal's CPU added (to ``cpu_us`` where rows have
    it); how many were solved again, and the CPU added (microseconds)."""
    m = rows.merge(again, on=["seed", "deal"], how="left")
    left = m["left"].fillna(False).astype(bool) if "left" in m.columns else pd.Series(False, index=m.index)
    hit = m.again.notna() & m.result.astype(str).eq("unknown") & ~left
    extra = m.again_us.where(hit, 0).fillna(0).astype("int64")
    out = rows.copy()
    res = out.result.astype(str).to_numpy(dtype=object)
    res[hit.to_numpy()] = m.again[hit].to_numpy()
    out["result"] = res
    if "cpu_us" in out.columns:
        out["cpu_us"] = out.cpu_us.astype("int64").to_numpy() + extra.to_numpy()
    return out, int(hit.sum()), int(extra.sum())


def exact_mask(players: pd.Series) -> pd.Series:
    """Which rows are exact verdicts (:func:`is_exact` asked once per distinct label)."""
    return players.isin([p for p in players.unique() if is_exact(p)])


def perfect_play_by_game(df: pd.DataFrame) -> dict[str, Estimate]:
    """:func:`perfect_play` of every game with exact rows: what the report's answer, the README and ``castle summary``
    say a game's winnability is."""
    exact = df[exact_mask(df.player)]
    return {game: e for game, rows in exact.groupby("game", observed=True, sort=True)
            if (e := perfect_play(rows, str(game))) is not None}


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """:func:`estimates` as a table (fractions), with the cost of each design: CPU per deal, variance per deal, and
    the CPU-hours it would take to reach Solvitaire's ±0.186 points."""
    rows = []
    for e in estimates(df):
        rows.append(asdict(e) | {"half_width": e.half_width, "per_deal_variance": e.per_deal, "cpu_per_deal": e.cpu_per_deal,
                                 "cpu_hours_to_solvitaire": e.cpu_hours_to()})
    return pd.DataFrame(rows)
