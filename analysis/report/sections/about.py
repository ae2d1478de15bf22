"""The end of the page: the conventions, the players' short names and what they stand for, and what was run."""

from __future__ import annotations

import json

import pandas as pd

from ... import compare, conventions
from ...load import experiments_table
from ..model import Report, Section
from ..page import hours


def players_legend(r: Report) -> Section | None:
    """Every short name of the page, with the player's full specification (its label) and what kind of player it is."""
    from sim.players.registry import parse_player

    held = pd.concat([r.held[["game", "player", "deals"]],
                      r.df.groupby(["game", "player"], observed=True).size().rename("deals").reset_index()], ignore_index=True)
    labels = list(dict.fromkeys(r.players + sorted(set(held.player) | set(r.perfect.player))))
    if not labels:
        return None
    rows = []
    for label in labels:
        try:
            about = parse_player(label).spec.summary
        except Exception:  # a plug-in not installed here: its label says what there is to say
            about = ""
        mine = held[held.player == label]
        games = sorted(set(mine.game) | set(r.perfect.game[r.perfect.player == label]))
        rows.append({"short name": r.name(label), "player": label, "what it is": about, "games": len(games),
                     "games played": int(mine.deals.sum() or (r.perfect.player == label).sum())})
    t = pd.DataFrame(rows)
    return Section("Players", "players.html.j2", {"table": r.out.table(t, "players", left=2, fold=len(t) > 30)})


def experiments(r: Report) -> Section:
    """What was run: per experiment its games (of those planned), whether it finished, its CPU and commits; the manifests."""
    t = experiments_table(r.df, r.manifests) if r.manifests else pd.DataFrame()
    table = None
    if len(t):
        table = r.out.table(t, "experiments", formats={"games": "{:,}".format, "planned": "{:,}".format,
                                                      "finished": lambda f: "yes" if f else "no",
                                                      "cpu_hours": lambda h: hours(h * 3600)}, fold=False)
    return Section("Experiments", "experiments.html.j2", {
        "table": table, "count": len(t), "cpu": hours(float(t.cpu_hours.sum()) * 3600) if len(t) else "0",
        "manifests": json.dumps(r.manifests, indent=2, default=str) if r.manifests else "",
        "rule": COMBINING, "pairing": compare.PAIRING, "conventions": conventions.TEXT,
    })


#: how the runs of one deal are combined, said once on the page
COMBINING = ("A deal several solver runs played (another budget, another search mode) counts once: won if any run won it "
             "(every win is replayed in both engines), lost if any run proved it lost, unknown only if every run left it "
             "unknown. No deal is won by one run and proved lost by another (the analysis checks). A heuristic player "
             "that two experiments played on the same deal counts once too: the rows are the same game.")
