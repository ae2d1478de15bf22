"""The rest of the family, playing without seeing PySol's face-down cards, and other programs' dialects."""

from __future__ import annotations

import pandas as pd

from ... import picks, winnability
from ...games import INDEPENDENT, STUDY, name
from ..model import Report, Section
from ..page import diff_interval, interval, pct


def family(r: Report) -> Section | None:
    """Each game's winnability, what it costs, the best player beside it, and the published anchors."""
    others = [g for g in r.games if g not in STUDY + (INDEPENDENT,) and not winnability.is_dialect(g)]
    if not others:
        return None
    rows = r.df[r.df.game.isin(others)]
    f = winnability.family(rows, cheap=r.cheap, games=others)
    if f.empty:
        return None
    shown = pd.DataFrame({
        "game": [name(g) for g in f.game], "deals": f.deals,
        "won / lost / unknown": [f"{a:,} / {b:,} / {c:,}" if n else "not solved yet" for n, a, b, c in zip(f.deals, f.won, f.lost, f.unknown)],
        "winnable": [pct(x) for x in f.rate], "95% interval": [interval(a, b) for a, b in zip(f.ci_low, f.ci_high)],
        "CPU s a deal": ["" if pd.isna(x) else f"{x:.3f}" for x in f.cpu_s_mean],
        "best player": [r.name(p) if p else "" for p in f.player],
        "its win rate": ["" if pd.isna(x) else f"{pct(x)} [{interval(a, b)}] of {n:,}" for x, a, b, n in
                         zip(f.player_rate, f.player_ci_low, f.player_ci_high, f.player_deals)],
        "winnable on those deals": ["" if not n else f"{pct(x)} [{interval(a, b)}]" for x, a, b, n in
                                    zip(f.same_rate, f.same_ci_low, f.same_ci_high, f.same_deals)],
        "published": f.anchor, "what it is": [winnability.ANCHOR_KINDS.get(k, k) for k in f.anchor_kind],
        "inside our interval": ["" if x is None else ("yes" if x else "no") for x in f.anchor_inside],
    })
    most = winnability.most_home_distribution(r.df, "fortress")
    return Section("The whole family", "family.html.j2", {
        "table": r.out.table(shown, "family", raw=f, fold=False), "most": most, "wolter": winnability.WOLTER_MOST_HOME,
    }, incomplete=r.incomplete(rows, picks.pick(others)))


def hidden_cards(r: Report) -> Section | None:
    """Face-down cards: what the player who cannot see them wins, beside the same beam seeing every card and the solver."""
    h = winnability.hidden_cards(r.df, r.cheap)
    if h.empty:
        return None
    shown = pd.DataFrame({
        "game": [name(g) for g in h.game], "player": [r.name(p) for p in h.player], "cards hidden per pile": h.hidden, "deals": h.deals,
        "win rate": [pct(x) for x in h.rate], "95% interval": [interval(a, b) for a, b in zip(h.ci_low, h.ci_high)],
        "the beam seeing every card": [f"{pct(x)} ({r.name(b)})" if not pd.isna(x) else "" for x, b in zip(h.beam_rate, h.beam)],
        "cost of the hidden cards (points)": [diff_interval(x, a, b) for x, a, b in zip(h["diff"], h.diff_low, h.diff_high)],
        "winnable (same deals)": ["" if pd.isna(x) else f"{pct(x)} of {n:,}" for x, n in zip(h.winnable, h.solved)],
        "published": h.anchor, "what it is": [winnability.ANCHOR_KINDS.get(k, k) for k in h.anchor_kind],
        "inside this player's interval": ["" if x is None else ("yes" if x else "no") for x in h.anchor_inside],
    })
    rows = r.df[r.df.game.isin(h.game)]
    return Section("Playing without seeing the face-down cards", "hidden_cards.html.j2",
                   {"table": r.out.table(shown, "hidden_cards", left=2, raw=h, fold=False)},
                   incomplete=r.incomplete(rows, picks.pick(h.game)))


def dialects(r: Report) -> Section | None:
    """Other programs' dialects against the rule sheet, paired by deal: what they change under perfect play and for players."""
    d = winnability.dialects(r.df, r.cheap)
    if d.empty:
        return None
    shown = pd.DataFrame({
        "dialect": [name(g) for g in d.dialect], "player": [r.name(p) for p in d.player], "deals": d.deals,
        "sheet": [pct(x) for x in d.sheet_rate], "dialect ": [pct(x) for x in d.dialect_rate],
        "difference (points)": [diff_interval(x, a, b) for x, a, b in zip(d["diff"], d.diff_low, d.diff_high)],
        "won in the sheet only": d.won_sheet_lost_dialect, "won in the dialect only": d.won_dialect_lost_sheet,
        "moves of a win (sheet / dialect)": [f"{a:.0f} / {b:.0f}" if not (pd.isna(a) or pd.isna(b)) else "" for a, b in
                                             zip(d.moves_sheet, d.moves_dialect)],
    })
    # the rows the table is made of: the dialects' and, of their sheets, only those on the deals a dialect was played
    # on by the same player (a run of the sheet on other deals, such as a precision run still going, changes nothing here)
    games = set(d.dialect) | set(d.sheet)
    played = r.df[r.df.game.isin(set(d.dialect))][["seed", "deal"]].drop_duplicates()
    rows = r.df[r.df.game.isin(games)].merge(played, on=["seed", "deal"])
    players = [p for p in d.player if p != winnability.PERFECT]
    return Section("Other programs' dialects", "dialects.html.j2",
                   {"table": r.out.table(shown, "dialects", left=2, raw=d, fold=False)},
                   incomplete=r.incomplete(rows, picks.pick(games, players) if players else None))
