"""The unknowns solved again deeper (the ``settle`` player's rows): how many of each game's, what they found, which
were still being solved when the rows were taken, and what solving them again would cost a design.

Why the deals still being solved matter: a settle run plays its list in order, a few at a time, and the deals that
take longest are the last to land. Counting only the finished ones measures the fast ones: it overstates the share a
deeper solve settles and understates its CPU. The rows cannot say how much CPU a deal still being solved has had (a
killed attempt's CPU is written nowhere, a running one's not yet), so the cost is given both ways: those deals
assumed to go as the finished ones did, and each counted as never settling at its full budget (the most it can cost).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from .designs import PHASED, SETTLE, Estimate, solved_again
from .ladder import verdicts
from .stats import named, player_name, rows_of


def running(manifests: dict[str, dict], rows: pd.DataFrame) -> pd.DataFrame:
    """The deals each unfinished settle experiment had started and not finished when its rows were taken (game, deal,
    dataset, budget_s: the CPU seconds its player may spend on a deal).

    A settle run plays its listed deals (the manifest's ``deals``) in order, game after game, ``jobs`` at a time
    (:func:`sim.study.chunks.plan`), so the deals in flight are the first ``jobs`` of its last run's list that have no
    row yet: if that run did not finish, they were started (and are still running, or were stopped with it). A run
    given some of the games (``--game``) records them (``games``) and plays only theirs; a run recorded before runs
    named their games is taken to play them all.
    """
    out = []
    for label, m in manifests.items():
        exp, runs = m.get("experiment", {}), m.get("runs") or []
        listed = exp.get("deals") or {}
        settle = [p for p in exp.get("players", {}) if player_name(p) == SETTLE]
        if not listed or not settle or not runs or m.get("finished") or runs[-1].get("finished"):
            continue
        mine = rows[rows.dataset == label] if "dataset" in rows.columns else rows.iloc[:0]
        done = set(zip(mine.game.astype(str), mine.deal.astype(int)))
        playing = runs[-1].get("games") or list(exp.get("games", listed))
        todo = [(g, int(d)) for g in exp.get("games", listed) if g in playing for d in listed.get(g, ()) if (g, int(d)) not in done]
        budget = float(exp["players"][settle[0]].get("budget_seconds", math.nan))
        out += [{"game": g, "deal": d, "dataset": label, "budget_s": budget} for g, d in todo[:int(runs[-1].get("jobs") or 1)]]
    return pd.DataFrame(out, columns=["game", "deal", "dataset", "budget_s"])


def status(df: pd.DataFrame, manifests: dict[str, dict]) -> pd.DataFrame:
    """Per game and kind of run (``plain``: the solver's runs, each deal's verdicts combined; ``phased``: the solver in
    phases on the other deals): the deals left unknown at the full budget, how many of them a settle experiment of
    ``manifests`` lists, how many were solved again (won, lost, still unknown) and which were being solved when the
    rows were taken (:func:`running`)."""
    again = solved_again(rows_of(df, SETTLE))
    flying = running(manifests, rows_of(df, SETTLE))
    listed = {(g, int(d)) for m in manifests.values() for g, deals in (m.get("experiment", {}).get("deals") or {}).items()
              for d in deals if any(player_name(p) == SETTLE for p in m.get("experiment", {}).get("players", {}))}
    out = []
    cols = [c for c in ("game", "player", "seed", "deal", "result", "left") if c in df.columns]  # (not every column copied)
    for game, rows in df.loc[named(df.player, "solver", PHASED), cols].groupby("game", observed=True):
        plain = verdicts(rows_of(rows, "solver"))
        unknown = {"plain": plain[plain.verdict == "unknown"][["seed", "deal"]]}
        phased = rows_of(rows, PHASED)
        if len(phased):
            fresh = phased.merge(plain[["seed", "deal"]], on=["seed", "deal"], how="left", indicator=True)
            left = fresh["left"].fillna(False).astype(bool) if "left" in fresh.columns else False
            unknown["phased"] = fresh[(fresh["_merge"] == "left_only") & fresh.result.astype(str).eq("unknown") & ~left][["seed", "deal"]]
        for kind, deals in unknown.items():
            hit = deals.merge(again, on=["seed", "deal"])
            verdict = hit.again.astype(str)
            busy = sorted(set(flying.deal[flying.game == game]) & set(deals.deal.astype(int)) - set(hit.deal.astype(int)))
            out.append({"game": str(game), "run": kind, "unknown": len(deals),
                        "listed": sum((str(game), int(d)) in listed for d in deals.deal), "solved": len(hit),
                        "won": int(verdict.eq("won").sum()), "lost": int(verdict.eq("lost").sum()),
                        "still": int(verdict.eq("unknown").sum()), "running": busy})
    return pd.DataFrame(out, columns=["game", "run", "unknown", "listed", "solved", "won", "lost", "still", "running"])


@dataclass(frozen=True)
class SettleCost:
    """What a design would spend for a whole interval of Solvitaire's ±0.186 points with its unknowns solved again."""

    hours: float  #: at the share and CPU the finished ``settle`` rows measured (the deals still being solved left out)
    settled: float | None  #: that share, k settled of n counted as k / (n + 1) (None: none solved again yet)
    hours_worst: float  #: the deals still being solved counted as never settling, each at its full budget
    settled_worst: float | None
    running: int  #: deals still being solved when the rows were taken


def whole_interval_hours(e: Estimate, runs: pd.DataFrame, again: pd.DataFrame, flying: pd.DataFrame | None = None) -> SettleCost:
    """CPU-hours ``e``'s design (its rows ``runs``) would need for Solvitaire's ±0.186 points in the whole interval,
    each unknown it leaves solved again at the share and the CPU the ``settle`` rows ``again`` measured (per deal: a
    deal solved again twice counts once, with both runs' CPU; ``k`` settled of ``n`` count as ``k / (n + 1)``, as the
    ``--halfwidth`` planner shrinks them); and again with the deals ``flying`` (:func:`running`, columns deal and
    budget_s) counted as never settling at their full budget."""
    per_deal = solved_again(again)
    flying = flying if flying is not None else pd.DataFrame(columns=["deal", "budget_s"])
    flying = flying[~flying.deal.isin(per_deal.deal)] if len(per_deal) else flying
    left = runs["left"].fillna(False).astype(bool) if "left" in runs.columns else False
    unknowns = float((runs.result.astype(str).eq("unknown") & ~left).mean())  # a deal's chance to need solving again

    def cost(n_extra: int, extra_s: float) -> tuple[float, float | None]:
        n = len(per_deal) + n_extra
        if n == 0:
            return e.cpu_hours_whole(), None
        settled = float(per_deal.again.astype(str).isin(("won", "lost")).sum()) / (n + 1)
        cpu = (float(per_deal.again_us.sum()) / 1e6 + extra_s) / n
        return e.cpu_hours_whole(settled=settled, settle_cpu=unknowns * cpu), settled

    hours, settled = cost(0, 0.0)
    worst, settled_worst = cost(len(flying), float(flying.budget_s.sum()))
    return SettleCost(hours, settled, worst, settled_worst, len(flying))


def described(e: Estimate, status: pd.DataFrame) -> str:
    """A design in words with how many of the game's unknowns were solved again (``status``: :func:`status`):
    ``plain + three-phase, 10 of its 90 unknowns solved again``."""
    unknown = int(status.unknown[status.game == e.game].sum()) if len(status) else 0
    return e.design + (f", {e.again:,} of its {unknown:,} unknowns solved again" if e.again else "")
