"""Replays of a few telling deals, each a page of its own beside the report."""

from __future__ import annotations

import pandas as pd

from ... import stats
from ...games import SELECTIVE, STREETS, name
from ..model import Report, Section

#: replays of solver wins re-solve the deal: the report picks ones that solve within this many CPU seconds
#: (so that replays add seconds, not minutes, to `make figures`); data without solver verdicts (the default
#: experiment's) has no telling deal, and the report writes no replays/
REPLAY_BUDGET_S = 3.0


def replays(r: Report) -> Section | None:
    """A page per telling deal; a replay that cannot be made is listed with why, and costs the report nothing else."""
    if r.replay is None:
        return None
    picks = telling_deals(r.solver, r.players, [(a, b) for a, b, _ in r.perfect_pairs], r.solver_only)
    if not picks:
        return None
    items = []
    for what, game, deal, player in picks:
        what = what.replace(player, r.name(player))
        file = f"replays/{game}-{deal}-{player.split(':')[0]}.html"
        try:
            r.replay(game, deal, player, r.out.out / file)
        except Exception as exc:  # a replay that cannot be made must not cost the report
            items.append({"what": what, "game": name(game), "deal": deal, "error": str(exc)[:80]})
            continue
        items.append({"what": what, "game": name(game), "deal": deal, "player": r.name(player), "file": file})
    return Section("Deals to step through", "replays.html.j2", {"items": items})


def telling_deals(solver: pd.DataFrame, players: list[str], pairs: list[tuple[str, str]],
                  difficulty: pd.DataFrame | None) -> list[tuple[str, str, int, str]]:
    """(what it shows, game, deal, player): a deal Selective Castle wins and Streets and Alleys loses, the hardest
    deal the solver won quickly enough to replay, and one every heuristic player loses but the solver wins."""
    picks = []
    strongest = players[-1] if players else None
    if (SELECTIVE, STREETS) in pairs:
        # per deal its cheapest run (two solver runs may have played it: the study's, and the effort measure's)
        sa = solver[(solver.game == STREETS) & (solver.result == "lost")].groupby("deal").cpu_us.min()
        sc = solver[(solver.game == SELECTIVE) & (solver.result == "won")].groupby("deal").cpu_us.min()
        both = (sa.reindex(sc.index) + sc).dropna().sort_values()
        if len(both):
            deal = int(both.index[0])
            label = solver[(solver.game == SELECTIVE) & (solver.deal == deal)].player.iloc[0]
            picks.append(("Selective Castle won", SELECTIVE, deal, label))
            picks.append(("the same deal, Streets and Alleys proved lost",
                          STREETS, deal, solver[(solver.game == STREETS) & (solver.deal == deal)].player.iloc[0]))
    single = solver[~solver.player.str.contains("bases=1")]  # (a per-base row's replay would solve all 13 bases again)
    won = single[(single.result == "won") & (single.cpu_us <= REPLAY_BUDGET_S * 1e6)]
    if len(won):
        hardest = won.loc[won.cpu_us.idxmax()]
        picks.append((f"the hardest deal the solver won in under {REPLAY_BUDGET_S:g} CPU seconds", hardest.game, int(hardest.deal),
                      hardest.player))
    if difficulty is not None and len(difficulty):
        only = difficulty[difficulty.difficulty == stats.SOLVER_ONLY][["game", "seed", "deal"]]
        cost = only.merge(won[["game", "seed", "deal", "cpu_us", "player"]], on=["game", "seed", "deal"])
        if len(cost):
            row = cost.loc[cost.cpu_us.idxmin()]  # the quickest to solve again for its replay
            picks.append(("every heuristic player loses it, the solver wins it", row.game, int(row.deal), row.player))
            if strongest:
                picks.append((f"the same deal, lost by {strongest}", row.game, int(row.deal), strongest))
    return picks
