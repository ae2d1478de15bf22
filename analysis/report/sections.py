"""The report's sections, in page order: each a function of the :class:`Report` that adds to its page.

A section whose data is not in the dataset says so in a line (or, for the
study's own sections, leaves itself out), so the same report works for the
default heuristic experiment, a solver run, the shipped study, or any mix.

Conventions, said once on the page: win rates with 95% Wilson intervals;
the solver's unknown verdicts counted both ways (the outer bounds, and the
midpoint as the estimate, as Blake & Gent report); in comparisons paired by
deal an unknown counts as not won, and the page says how far counting it as
won could move the difference; p-values of a family of comparisons are
Holm-adjusted.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from sim.core.cards import RANKS

from .. import advice, ladder, plots, stats, winnability
from ..games import BELEAGUERED, INDEPENDENT, SELECTIVE, STREETS, STUDY, name
from ..load import experiments_table, unfinished
from .page import Page, breakable, pct, points

PERFECT = plots.PERFECT


@dataclass
class Report:
    """What every section reads: the rows, the manifests, the shipped study's solver rows for reference."""

    df: pd.DataFrame
    manifests: dict[str, dict]
    data: Path
    page: Page
    reference: pd.DataFrame | None = None  #: solver rows of the shipped study (used for games this dataset did not solve)
    reference_name: str = ""
    replay: Callable | None = None  #: writes a replay page: (game, deal, player, path) -> None
    games: list[str] = field(default_factory=list)  #: the games here, the study's first
    players: list[str] = field(default_factory=list)  #: the heuristic players here, weakest first
    notes: dict = field(default_factory=dict)  #: what sections work out for later ones

    def solver_rows(self, game: str) -> tuple[pd.DataFrame, str]:
        """The solver's rows of ``game``: this dataset's, else the shipped study's; and where they come from."""
        own = self.df[(self.df.game == game) & stats.solver_mask(self.df.player)]
        if len(own) or self.reference is None:
            return own, "this dataset"
        return self.reference[self.reference.game == game], self.reference_name

    @cached_property
    def colours(self) -> dict[str, str]:
        """A player's colour in every figure: the study's players (the ladder's rungs) from one palette, the
        variants of one game's experiments (the advice's) from another, so the rungs' colours stay apart."""
        main = _headline_players(self)
        rest = [p for p in self.players if p not in main]
        return {**plots.player_colours(rest, "Dark2" if len(rest) <= 8 else "tab20b"), **plots.player_colours(main)}

    @cached_property
    def solver(self) -> pd.DataFrame:
        """The solver's rows (any ``solver`` label)."""
        return self.df[stats.solver_mask(self.df.player)]

    @cached_property
    def heuristic(self) -> pd.DataFrame:
        """Every other player's rows."""
        return self.df[~stats.solver_mask(self.df.player)]


def _fmt_pct(v) -> str:
    return pct(v)


def _interval(lo, hi) -> str:
    return "n/a" if pd.isna(lo) else f"{100 * lo:.2f} to {100 * hi:.2f}"


# --------------------------------------------------------------------------
# the answer
# --------------------------------------------------------------------------


def section_completeness(r: Report) -> None:
    """An unfinished run says so before anything else: its numbers are of the games played so far."""
    for label, have, expected in unfinished(r.df, r.manifests):
        r.page.p(f"<b>Incomplete:</b> {html.escape(label)} holds {have:,} of {expected:,} games of its experiment; the run "
                 "has not finished (rerun it to resume). Every number below is of the games played so far.", cls="missing")


def _headline_rates(r: Report) -> pd.DataFrame:
    """Every player's win rate per game, and perfect play (this dataset's solver, else the shipped study's), with its source."""
    frames, sources = [], {}
    for game in r.games:
        rows, source = r.solver_rows(game)
        if len(rows):
            frames.append(rows)
            sources[game] = source
    rates = winnability.rates_with_perfect_play(r.df, pd.concat(frames) if frames else r.df.iloc[:0])
    rates["source"] = [sources.get(g, "this dataset") if p == PERFECT else "this dataset" for g, p in zip(rates.game, rates.player)]
    return rates


def _game_pairs(r: Report, rates: pd.DataFrame) -> pd.DataFrame:
    """Selective Castle minus each other study game, per player and under perfect play."""
    rows = []
    for other in (STREETS, BELEAGUERED):
        if SELECTIVE not in r.games or other not in r.games:
            continue
        for player in _headline_players(r):
            pr = stats.paired(r.df, (SELECTIVE, player), (other, player))
            if pr is not None:
                rows.append({"comparison": f"{name(SELECTIVE)} − {name(other)}", "player": player, "deals": pr.deals,
                             "diff": pr.diff, "diff_low": pr.diff_low, "diff_high": pr.diff_high, "p": pr.p_value, "unknown_shift": 0.0})
        a_rows, a_src = r.solver_rows(SELECTIVE)
        b_rows, b_src = r.solver_rows(other)
        pp = winnability.perfect_play_pair(pd.concat([a_rows, b_rows]), SELECTIVE, other)
        if pp is not None:
            rows.append({"comparison": f"{name(SELECTIVE)} − {name(other)}", "player": PERFECT, "deals": pp.deals, "diff": pp.diff,
                         "diff_low": pp.diff_low, "diff_high": pp.diff_high, "p": np.nan, "unknown_shift": pp.unknown_shift})
    return pd.DataFrame(rows, columns=["comparison", "player", "deals", "diff", "diff_low", "diff_high", "p", "unknown_shift"])


def _headline_players(r: Report) -> list[str]:
    """The players the answer shows: those that played two games of the study or more (the ladder, not the
    variants of one game's experiments), weakest first; all of them when none did."""
    study = r.df[r.df.game.isin(STUDY)]
    games = study.groupby("player", observed=True).game.nunique()
    many = [p for p in r.players if games.get(p, 0) >= 2]
    return many or [p for p in r.players if p in games.index]


def section_answer(r: Report) -> None:
    """At the top, the answer: is Selective Castle easier, and by how much, for each player and under perfect play?"""
    rates = _headline_rates(r)
    r.notes["rates"] = rates
    pairs = _game_pairs(r, rates)
    r.notes["game_pairs"] = pairs
    r.page.h2("The answer")
    missing = [g for g in STUDY if g not in r.games]
    if missing:
        r.page.p(f"This dataset has no {' and no '.join(name(g) for g in missing)}: the comparisons below that need it are left out.",
                 cls="missing")
    sentences = []
    for _, row in pairs[pairs.player == PERFECT].iterrows():
        a, b = row.comparison.split(" − ")
        verdict = (f"easier than {b}" if row.diff_low > 0 else f"harder than {b}" if row.diff_high < 0
                   else f"not measurably different from {b}")
        sentences.append(f"Under perfect play, {a} is {verdict}: "
                         f"<b>{points(row['diff'])} points</b> of winnable deals (95% CI {points(row.diff_low)} to {points(row.diff_high)}, "
                         f"{row.deals:,} deals paired).")
    heur = pairs[pairs.player != PERFECT]
    if len(heur):
        easier = int((heur.diff_low > 0).sum())
        harder = int((heur.diff_high < 0).sum())
        sentences.append(f"Of the {len(heur)} comparisons of one heuristic player across two games, Selective Castle comes out "
                         f"easier in {easier}, harder in {harder} and not measurably different in {len(heur) - easier - harder} "
                         "(the table below): weak players lose most deals of every game, so what they measure is the player.")
    if not sentences:
        sentences.append("Selective Castle and another game of the study were not played on common deals here.")
    r.page.p(" ".join(sentences), cls="answer")
    study = [g for g in r.games if g in STUDY]
    shown = _headline_players(r)
    cols = shown + ([PERFECT] if (rates.player == PERFECT).any() else [])
    table = pd.DataFrame({"player": cols})
    for game in study:
        g = rates[rates.game == game].set_index("player")
        table[name(game)] = [f"{pct(g.rate[p])} [{_interval(g.ci_low[p], g.ci_high[p])}]" if p in g.index else "" for p in cols]
    r.page.table(table, "answer_win_rates")
    ref = rates[(rates.player == PERFECT) & (rates.source != "this dataset") & rates.game.isin(study)]
    if len(ref):
        r.page.p(f"Perfect play for {', '.join(name(g) for g in ref.game)} comes from the study's shipped data "
                 f"(<code>{html.escape(r.reference_name)}</code>), on its own deals: this dataset has no solver rows for "
                 f"{'it' if len(ref) == 1 else 'them'}.", cls="note")
    if len(pairs):
        paired = pairs.assign(difference=[f"{points(d)} [{points(lo)} to {points(hi)}]" for d, lo, hi in
                                          zip(pairs["diff"], pairs.diff_low, pairs.diff_high)])
        r.page.table(paired[["comparison", "player", "deals", "difference"]], "answer_paired", left=2)
        r.page.p("Differences in percentage points, paired by deal (the same tableau in both games), with Newcombe's 95% interval. "
                 "Under perfect play an unknown verdict counts as not won; counting every unknown as won would move a "
                 f"difference by at most {points(pairs.unknown_shift.max(), 3)} points.", cls="note")
    r.page.figure(plots.headline(rates[rates.game.isin(study)], shown, study), "answer",
                  "Win rate by player and under perfect play, per game, 95% intervals")


# --------------------------------------------------------------------------
# perfect play: the study
# --------------------------------------------------------------------------


def section_winnability(r: Report) -> None:
    """Each game's winnability with its interval, beside the published figures where there are some."""
    if r.solver.empty:
        return
    w = r.notes["winnability"] = winnability.winnability(r.solver)
    r.page.h2("Winnability under perfect play")
    shown = pd.DataFrame({
        "game": [name(g) for g in w.game], "deals": w.deals, "won": w.won, "lost": w.lost, "unknown": w.unknown,
        "winnable": [pct(x, 3) for x in w.rate], "95% interval (unknowns both ways)": [_interval(a, b) for a, b in zip(w.ci_low, w.ci_high)],
        "± points": [f"{100 * h:.3f}" for h in w.half_width],
        "Solvitaire (Blake & Gent)": ["" if pd.isna(p) else f"{100 * p:.3f}% ± {100 * h:.3f}" for p, h in zip(w.published, w.published_half_width)],
        "overlaps": ["" if o is None else ("yes" if o else "NO") for o in w.overlaps],
    })
    r.page.table(shown, "winnability")
    r.page.p("The solver's verdicts, seed 0: a deal is won (with a solution replayed in both engines), proved lost, or unknown "
             "when its budget ran out. The interval counts unknowns as lost for its lower bound and as won for its upper one.", cls="note")


def section_perfect_play(r: Report) -> None:
    """Selective Castle against Streets and Alleys and Beleaguered Castle, deal by deal, under perfect play."""
    solver = r.solver
    pairs = [(SELECTIVE, STREETS), (SELECTIVE, BELEAGUERED), (STREETS, BELEAGUERED)]
    found = [(a, b, pp) for a, b in pairs if (pp := winnability.perfect_play_pair(solver, a, b)) is not None]
    if not found:
        return
    r.page.h2("Selective Castle against the others, deal by deal")
    for a, b, pp in found:
        r.page.h3(f"{name(a)} (rows) and {name(b)} (columns): {pp.deals:,} deals")
        t = pp.table.reset_index(names=f"{name(a)} \\ {name(b)}")
        r.page.table(t, f"perfect-{a}-{b}")
        text = (f"Winnable in {name(a)} minus in {name(b)}: <b>{points(pp.diff)} points</b> "
                f"(95% CI {points(pp.diff_low)} to {points(pp.diff_high)}). ")
        if (a, b) == (SELECTIVE, STREETS):
            listed = ", ".join(str(d) for d in pp.a_lost_b_won[:30]) or "none"
            text += (f"Deals won in Streets and Alleys but lost in Selective Castle (the containment law says there are none): "
                     f"<b>{listed}</b>. Of the Streets and Alleys deals proved lost, the chosen base rescues "
                     f"<b>{pct(pp.rescued)}</b> (95% CI {_interval(pp.rescued_low, pp.rescued_high)}).")
        r.page.p(text)
    r.notes["perfect_pairs"] = found


#: containment laws of the rule sheet: a deal won in the first game (or dialect) is won in the second. A supermove is a
#: macro of single moves, so single-card play and supermoves win the same deals (both ways); PySol's sequence moves
#: only add moves to Selective Castle's
LAWS = ((STREETS, SELECTIVE), (SELECTIVE, INDEPENDENT), (SELECTIVE, f"{SELECTIVE}@pysol"),
        (STREETS, f"{STREETS}@supermoves"), (f"{STREETS}@supermoves", STREETS),
        (BELEAGUERED, f"{BELEAGUERED}@supermoves"), (f"{BELEAGUERED}@supermoves", BELEAGUERED))


def section_containment(r: Report) -> None:
    """The containment laws, checked on every deal both sides' solver settled: any deal that breaks one is listed."""
    solver = r.solver
    rows = []
    for weaker, stronger in LAWS:
        c = winnability.containment(solver, weaker, stronger)
        if c is not None:
            rows.append({"law": f"{name(weaker)} won ⇒ {name(stronger)} won", "deals checked": c[0],
                         "deals that break it": ", ".join(map(str, c[1][:50])) or "none"})
    if not rows:
        return
    r.page.h2("Containment laws")
    r.page.p("Checked on every deal where the first is won and the second settled (there should be no deal that breaks one):")
    r.page.table(pd.DataFrame(rows), "containment")


def section_independent(r: Report) -> None:
    """How much easier the common misreading (each foundation its own base) is than the shared base."""
    solver = r.solver
    pp = winnability.perfect_play_pair(solver, INDEPENDENT, SELECTIVE)
    if pp is None:
        return
    r.page.h2("The misreading: independent bases")
    r.page.table(pp.table.reset_index(names=f"{name(INDEPENDENT)} \\ {name(SELECTIVE)}"), "independent")
    listed = ", ".join(str(d) for d in pp.a_lost_b_won[:30]) or "none"
    r.page.p(f"On {pp.deals:,} deals, independent bases are winnable <b>{points(pp.diff)} points</b> more often than the shared base "
             f"(95% CI {points(pp.diff_low)} to {points(pp.diff_high)}). Deals the shared base wins but independent bases lose "
             f"(there should be none: any shared base is also a choice of four bases): <b>{listed}</b>.")


# --------------------------------------------------------------------------
# the players
# --------------------------------------------------------------------------


def section_players(r: Report) -> None:
    """Every player's win rate per game, weakest first."""
    rates = r.notes.get("rates", _headline_rates(r))
    heur = rates[rates.player != PERFECT]
    if heur.empty:
        return
    r.page.h2("Win rates of the players")
    order = {p: i for i, p in enumerate(r.players)}
    heur = heur.assign(_o=heur.player.map(order), _g=heur.game.map({g: i for i, g in enumerate(r.games)})).sort_values(["_o", "_g"])
    shown = pd.DataFrame({"player": heur.player, "game": [name(g) for g in heur.game], "deals": heur.deals, "won": heur.won,
                          "win rate": [pct(x) for x in heur.rate], "95% interval": [_interval(a, b) for a, b in zip(heur.ci_low, heur.ci_high)]})
    r.page.table(shown, "win_rates", left=2)


def _holm(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    df["p_holm"] = multipletests(df.p, method="holm")[1] if len(df) else []
    return df


def section_across_games(r: Report) -> None:
    """The same player in two games, deal by deal: the only comparison across games that measures the games."""
    rows = []
    for player in r.players:
        for a, b in ((SELECTIVE, STREETS), (SELECTIVE, BELEAGUERED), (STREETS, BELEAGUERED)):
            pr = stats.paired(r.df, (a, player), (b, player))
            if pr is not None:
                rows.append({"label": f"{player}: {name(a)} − {name(b)}", "player": player, "a": a, "b": b, "deals": pr.deals,
                             "diff": pr.diff, "diff_low": pr.diff_low, "diff_high": pr.diff_high, "p": pr.p_value})
    if not rows:
        return
    t = _holm(pd.DataFrame(rows))
    t["colour"] = [r.colours.get(p, "#333333") for p in t.player]
    r.page.h2("One player, two games")
    r.page.p("Each row: one player's win rate in the first game minus in the second, on the same deals (McNemar's exact test, "
             "Holm-adjusted over the rows of this table; Newcombe's paired 95% interval).")
    r.page.table(t.assign(difference=[f"{points(d)} [{points(lo)} to {points(hi)}]" for d, lo, hi in zip(t["diff"], t.diff_low, t.diff_high)],
                          p_holm_text=[stats.p_text(p) for p in t.p_holm])[["label", "deals", "difference", "p_holm_text"]]
                 .rename(columns={"label": "comparison", "p_holm_text": "p (Holm)"}), "across_games")
    r.page.figure(plots.paired(t, "One player, two games: paired differences"), "across_games",
                  "Paired differences between games for each player, weakest player first, 95% intervals")


def section_within_games(r: Report) -> None:
    """Players within a game: each against the next stronger one, deal by deal.

    Among the study's players (the ladder's rungs): the variants of one game's experiment are compared with
    their own player in the advice section.
    """
    rows = []
    rungs = set(_headline_players(r))
    for game in r.games:
        ps = [p for p in r.players if p in rungs and ((r.df.game == game) & (r.df.player == p)).any()]
        for weak, strong in zip(ps, ps[1:]):
            pr = stats.paired(r.df, (game, strong), (game, weak))
            if pr is not None:
                rows.append({"label": f"{name(game)}: {strong} − {weak}", "player": strong, "deals": pr.deals, "diff": pr.diff,
                             "diff_low": pr.diff_low, "diff_high": pr.diff_high, "p": pr.p_value})
    if not rows:
        return
    t = _holm(pd.DataFrame(rows))
    t["colour"] = [r.colours.get(p, "#333333") for p in t.player]
    r.page.h2("Players within a game")
    r.page.p("Each player against the next weaker one in the same game, on the same deals (Holm-adjusted over this table).")
    r.page.table(t.assign(difference=[f"{points(d)} [{points(lo)} to {points(hi)}]" for d, lo, hi in zip(t["diff"], t.diff_low, t.diff_high)],
                          p_holm_text=[stats.p_text(p) for p in t.p_holm])[["label", "deals", "difference", "p_holm_text"]]
                 .rename(columns={"label": "comparison", "p_holm_text": "p (Holm)"}), "within_games")
    r.page.figure(plots.paired(t, "Within a game: each player against the next weaker one"), "within_games",
                  "Paired differences between consecutive players of a game, 95% intervals")


def _verdicts_for_ladder(r: Report) -> pd.DataFrame:
    frames = [r.solver_rows(g)[0] for g in r.games]
    frames = [f for f in frames if len(f)]
    return ladder.verdicts(pd.concat(frames)) if frames else ladder.verdicts(r.df.iloc[:0])


def section_ladder(r: Report) -> None:
    """The ladder: each rung's strength against its cost, and each deal's difficulty as the cheapest rung that wins it.

    The rungs are the players of two study games or more (as in the answer): the variants of one game's
    experiments (the advice's) are not rungs, and their deals would shrink the deals every rung played;
    a game only one rung played (the dialects, the family's strongest beam) has no ladder.
    """
    heur = r.heuristic[r.heuristic.player.isin(_headline_players(r))]
    rungs_played = heur.groupby("game", observed=True).player.nunique()
    heur = heur[heur.game.isin(rungs_played[rungs_played >= 2].index)]  # a game one player played (a dialect's) has no ladder
    if heur.player.nunique() < 2:
        return
    solved = _verdicts_for_ladder(r)
    t = ladder.ladder_table(heur, solved)
    r.page.h2("The ladder of players")
    r.page.p("Rungs from the cheapest to the most expensive (mean CPU per deal over their games). The share of winnable deals "
             "won is over the deals the solver won.")
    shown = pd.DataFrame({
        "player": t.player, "game": [name(g) for g in t.game], "deals": t.deals, "win rate": [pct(x) for x in t.rate],
        "winnable won": [pct(x) if not pd.isna(x) else "n/a" for x in t.share_of_winnable],
        "95% interval": [_interval(a, b) for a, b in zip(t.share_ci_low, t.share_ci_high)],
        "CPU ms mean": [f"{x:.1f}" for x in t.cpu_ms_mean], "median": [f"{x:.1f}" for x in t.cpu_ms_median],
        "p90": [f"{x:.1f}" for x in t.cpu_ms_p90]})
    r.page.table(shown, "ladder", left=2)
    r.page.figure(plots.ladder(t, [g for g in r.games if (t.game == g).any()], r.colours), "ladder",
                  "Each rung: share of the solver's winnable deals won against mean CPU per deal, 95% intervals")
    diff = ladder.difficulty_by_rung(heur, solved)
    if diff.empty:
        return
    shares = ladder.difficulty_shares(diff)
    shares = shares[[g for g in r.games if g in shares.columns]]
    r.page.h3("Difficulty by rung")
    r.page.p("A deal's difficulty is the cheapest rung that wins it; if none does, \"solver only\" when the solver won it, "
             "\"unwinnable\" when it proved it lost, \"unknown\" otherwise. Only deals every rung of a game played count.")
    table = shares.reset_index().rename(columns={"difficulty": "difficulty"})
    r.page.table(table.rename(columns={g: name(g) for g in shares.columns}), "difficulty", formats={name(g): _fmt_pct for g in shares.columns})
    r.page.figure(plots.difficulty(shares, r.colours), "difficulty", "Share of deals at each difficulty, per game (the same deal ids)")
    if SELECTIVE in shares.columns and STREETS in shares.columns:
        cross = ladder.paired_difficulty(diff, SELECTIVE, STREETS)
        r.page.p(f"The same deals in both games (rows: {name(SELECTIVE)}, columns: {name(STREETS)}), counts:")
        cross = cross.loc[:, cross.sum() > 0]
        cross = cross[cross.sum(axis=1) > 0]
        r.page.table(cross.reset_index(names="Selective \\ Streets"), "difficulty_paired")
    r.notes["difficulty"] = diff


def section_base_rank(r: Report) -> None:
    """Selective Castle's base rank: how many bases win a deal, a fixed base for every deal, and the players' choices."""
    solver, source = r.solver_rows(SELECTIVE)
    has_bases = "bases_won" in solver.columns and solver.bases_won.notna().any()
    chosen = r.df[(r.df.game == SELECTIVE) & ~stats.solver_mask(r.df.player) & r.df.base_rank.notna()]
    if not has_bases and chosen.empty:
        return
    r.page.h2("Selective Castle: the base rank")
    if has_bases:
        both = pd.concat([solver, chosen])
        counts = winnability.bases_per_deal(both, SELECTIVE)
        r.page.p(f"The solver's verdict for each of the 13 base ranks on {int(counts.deals.sum()):,} deals ({html.escape(source)}):")
        r.page.figure(plots.bases_per_deal(counts), "bases_per_deal", "How many of the 13 base ranks win a deal")
        fixed = winnability.fixed_base_rates(both, SELECTIVE)
        r.page.table(pd.DataFrame({"base": fixed.base, "deals": fixed.deals, "won": fixed.won, "unknown": fixed.unknown,
                                   "win rate if always chosen": [pct(x) for x in fixed.rate],
                                   "95% interval": [_interval(a, b) for a, b in zip(fixed.ci_low, fixed.ci_high)]}), "fixed_bases")
        chosen_rate = 1 - float(counts.loc[counts.winning_bases == 0, "share"].sum())
        best, overlapping = winnability.best_fixed_base(fixed)
        if not overlapping:
            verdict = f"The best fixed base is <b>{best.base}</b> ({pct(best.rate)}), measurably above every other"
        else:
            verdict = (f"The highest is <b>{best.base}</b> ({pct(best.rate)}), but its interval overlaps {overlapping} of the "
                       f"other 12: on {int(best.deals):,} deals no fixed base is measurably best")
        r.page.p(f"{verdict}. Choosing the base per deal wins every deal some base wins ({pct(chosen_rate)}).")
        r.page.figure(plots.fixed_bases(fixed, chosen_rate), "fixed_bases",
                      "Win rate under perfect play if one base rank were chosen for every deal, and with the base chosen per deal")
        hits = winnability.chosen_base_hits(both, SELECTIVE)
        if len(hits):
            r.page.p("How often a player's base (the rank of its first card founded) is one of the winning bases, on deals some base wins:")
            r.page.table(pd.DataFrame({"player": hits.player, "deals": hits.deals, "winning base chosen": hits.winning_choice,
                                       "share": [pct(x) for x in hits.share],
                                       "95% interval": [_interval(a, b) for a, b in zip(hits.ci_low, hits.ci_high)]}), "chosen_bases")
    if len(chosen):
        rates = stats.base_rank_rates(chosen)
        rates = rates[rates.deals >= 20]
        if len(rates):
            r.page.p("Win rate by the base a player founded (bases chosen on at least 20 deals):")
            r.page.table(pd.DataFrame({"player": rates.player, "base": [RANKS[int(b)] for b in rates.base_rank], "deals": rates.deals,
                                       "win rate": [pct(x) for x in rates.rate],
                                       "95% interval": [_interval(a, b) for a, b in zip(rates.ci_low, rates.ci_high)]}),
                         "base_ranks_played", left=2)


def section_advice(r: Report) -> None:
    """The rule sheet's advice, tested: each piece switched off, paired by deal with the player that follows it."""
    e = advice.effects(r.df, SELECTIVE)
    if e.empty:
        return
    r.page.h2("The advice, tested")
    r.page.p("Each row: a player following the rule sheet's advice against the same player with one piece of it switched off "
             "(or replaced by a naive rule), on the same Selective Castle deals. The effect is the win rate with the advice "
             "minus without, in points; McNemar's exact test, Holm-adjusted over the rows.")
    shown = pd.DataFrame({"player": e.player, "advice switched off": e["advice switched off"], "deals": e.deals,
                          "with": [pct(x) for x in e["with advice"]], "without": [pct(x) for x in e.without],
                          "effect (points)": [f"{points(d)} [{points(lo)} to {points(hi)}]" for d, lo, hi in zip(e.effect, e.effect_low, e.effect_high)],
                          "p (Holm)": [stats.p_text(p) for p in e.p_holm]})
    r.page.table(shown, "advice", left=2)
    t = e.rename(columns={"effect": "diff", "effect_low": "diff_low", "effect_high": "diff_high"})
    t["label"] = [f"{p}: {a}" for p, a in zip(e.player, e["advice switched off"])]
    r.page.figure(plots.paired(t, "What each piece of advice is worth"), "advice",
                  "Win rate with the advice minus without, paired by deal, 95% intervals")


def section_convergence(r: Report) -> None:
    """How the estimates settle as deals accumulate, one panel per game of the study, for its players (the rungs)."""
    games = [g for g in r.games if g in STUDY] or r.games
    players = [p for p in r.players if p in set(_headline_players(r))]
    heur = r.heuristic[r.heuristic.player.isin(players) & r.heuristic.game.isin(games)]
    frames = [heur]
    for game in games:
        s, _ = r.solver_rows(game)
        if len(s):
            v = ladder.verdicts(s)
            frames.append(pd.DataFrame({"game": game, "player": PERFECT, "seed": v.seed, "deal": v.deal, "result": v.verdict}))
    conv = stats.convergence(pd.concat(frames, ignore_index=True)[["game", "player", "seed", "deal", "result"]])
    if conv.empty or conv.deals.max() < 400:
        return
    conv.to_csv(r.page.out / "tables" / "convergence.csv", index=False)
    r.page.h2("How the estimates converge")
    r.page.figure(plots.convergence(conv, games, players, colours=r.colours), "convergence",
                  "Running win rate and its 95% interval as deals accumulate (from 200 deals on)")


def section_cards_home(r: Report) -> None:
    """How far the study's players (the rungs) got in the games they lost, in the games they played."""
    players = [p for p in r.players if p in set(_headline_players(r))]
    lost = r.heuristic[r.heuristic.player.isin(players) & (r.heuristic.result != "won")]
    games = [g for g in r.games if (lost.game == g).any()]
    if not games:
        return
    r.page.h2("Games not won: how far they got")
    r.page.figure(plots.cards_home(lost, games, players, colours=r.colours), "cards_home",
                  "Cards home when a game was not won, per game and player")


def section_effort(r: Report) -> None:
    """What the verdicts cost: CPU per deal by game and verdict, and the unknowns a smaller budget would leave."""
    if r.solver.empty:
        return
    e = winnability.effort(r.solver)
    r.page.h2("Effort")
    r.page.table(pd.DataFrame({"game": [name(g) for g in e.game], "solver": e.player, "verdict": e.verdict,
                               "deals": e.deals,
                               "CPU s mean": [f"{x:.3f}" for x in e.cpu_s_mean], "median": [f"{x:.3f}" for x in e.cpu_s_median],
                               "p90": [f"{x:.2f}" for x in e.cpu_s_p90], "max": [f"{x:.1f}" for x in e.cpu_s_max]}), "effort", left=3)
    u = winnability.unknown_by_budget(r.solver)
    cols = [c for c in u.columns if c.endswith(" s")] + ["at the cap"]
    r.page.p("Share of deals not settled within a budget of CPU seconds (read off the rows: the deals that took longer, "
             "and those left unknown), at the run's own cap, and its mean CPU per deal:")
    formats = {c: (lambda v: pct(v, 2)) for c in cols} | {"CPU s a deal": lambda v: f"{v:.2f}"}
    r.page.table(u.assign(game=[name(g) for g in u.game]).rename(columns={"cpu_s_mean": "CPU s a deal"}),
                 "unknown_by_budget", formats=formats, left=2)
    r.page.figure(plots.unknown_by_budget(u), "unknown_by_budget", "The solver's unsettled share against its budget")


def section_replays(r: Report) -> None:
    """Replays of a few telling deals, each a page of its own beside the report."""
    if r.replay is None:
        return
    picks = _telling_deals(r)
    if not picks:
        return
    r.page.h2("Deals to step through")
    items = []
    for what, game, deal, player in picks:
        file = f"replays/{game}-{deal}-{player.split(':')[0]}.html"
        try:
            r.replay(game, deal, player, r.page.out / file)
        except Exception as exc:  # a replay that cannot be made must not cost the report
            items.append(f"<li>{html.escape(what)}: {name(game)} deal {deal} ({html.escape(str(exc)[:80])})</li>")
            continue
        items.append(f'<li>{html.escape(what)}: <a href="{file}">{name(game)} deal {deal}, played by {breakable(player)}</a></li>')
    r.page.raw("<ul>" + "".join(items) + "</ul>")


def _telling_deals(r: Report) -> list[tuple[str, str, int, str]]:
    """(what it shows, game, deal, player): a deal Selective Castle wins and Streets and Alleys loses, the hardest
    deal the solver won quickly enough to replay, and one every heuristic player loses but the solver wins."""
    picks = []
    strongest = r.players[-1] if r.players else None
    found = dict((a, pp) for a, b, pp in r.notes.get("perfect_pairs", []) if b == STREETS)
    solver = r.solver
    if SELECTIVE in found:
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
    diff = r.notes.get("difficulty")
    if diff is not None and len(diff):
        only = diff[diff.difficulty == ladder.SOLVER_ONLY][["game", "seed", "deal"]]
        cost = only.merge(won[["game", "seed", "deal", "cpu_us", "player"]], on=["game", "seed", "deal"])
        if len(cost):
            row = cost.loc[cost.cpu_us.idxmin()]  # the quickest to solve again for its replay
            picks.append(("every heuristic player loses it, the solver wins it", row.game, int(row.deal), row.player))
            if strongest:
                picks.append((f"the same deal, lost by {strongest}", row.game, int(row.deal), strongest))
    return picks


#: replays of solver wins re-solve the deal: the report picks ones that solve within this many CPU seconds
#: (so that `make figures` stays under a minute)
REPLAY_BUDGET_S = 3.0


def section_dialects(r: Report) -> None:
    """Other programs' dialects against the rule sheet, paired by deal: what they change under perfect play and for players."""
    d = winnability.dialects(r.df)
    if d.empty:
        return
    r.page.h2("Other programs' dialects")
    r.page.p("Each dialect against its rule sheet on the same deals: PySol FC's Selective Castle moves whole sequences "
             "(<code>@pysol</code>); supermoves carry as many cards as single moves through the empty piles could "
             "(<code>@supermoves</code>, FreeCell's rule without cells), so they are macros of single moves and cannot change "
             "whether a deal is winnable. Difference: dialect minus sheet, percentage points, Newcombe's paired 95% interval; "
             "moves: the mean length of a win, over the deals won in both.")
    r.page.table(pd.DataFrame({
        "dialect": [name(g) for g in d.dialect], "player": d.player, "deals": d.deals,
        "sheet": [pct(x) for x in d.sheet_rate], "dialect ": [pct(x) for x in d.dialect_rate],
        "difference": [f"{points(x)} [{points(a)} to {points(b)}]" for x, a, b in zip(d["diff"], d.diff_low, d.diff_high)],
        "won in the sheet only": d.won_sheet_lost_dialect, "won in the dialect only": d.won_dialect_lost_sheet,
        "moves of a win (sheet / dialect)": [f"{a:.0f} / {b:.0f}" if not (pd.isna(a) or pd.isna(b)) else "" for a, b in
                                             zip(d.moves_sheet, d.moves_dialect)],
    }), "dialects", left=2)


def section_family(r: Report) -> None:
    """The rest of the family: each game's winnability, what it costs, the best player beside it, and the published anchors."""
    others = [g for g in r.games if g not in STUDY + (INDEPENDENT,) and not winnability.is_dialect(g)]
    if not others:
        return
    f = winnability.family(r.df[r.df.game.isin(others)])
    if f.empty:
        return
    r.page.h2("The whole family")
    r.page.table(pd.DataFrame({
        "game": [name(g) for g in f.game], "deals": f.deals, "won / lost / unknown": [f"{a} / {b} / {c}" if n else "not solved yet" for n, a, b, c in zip(f.deals, f.won, f.lost, f.unknown)],
        "winnable": [pct(x) for x in f.rate], "95% interval": [_interval(a, b) for a, b in zip(f.ci_low, f.ci_high)],
        "CPU s a deal": ["" if pd.isna(x) else f"{x:.3f}" for x in f.cpu_s_mean],
        "best player": [p or "" for p in f.player],
        "its win rate (same deals)": ["" if pd.isna(x) else f"{pct(x)} [{_interval(a, b)}]" for x, a, b in zip(f.player_rate, f.player_ci_low, f.player_ci_high)],
        "published": f.anchor, "inside the interval": ["" if x is None else ("yes" if x else "no") for x in f.anchor_inside],
    }), "family", left=1)
    most = winnability.most_home_distribution(r.df, "fortress")
    if most:
        w = winnability.WOLTER_MOST_HOME
        r.page.p(f"Fortress, the most cards that can be moved home, over {most['deals']:,} deals ({most['exact']:,} settled exactly): "
                 f"none in <b>{pct(most['none'], 1)}</b> of deals (Wolter: about {pct(w['none'], 0)}), exactly one in "
                 f"<b>{pct(most['one'], 1)}</b> (about {pct(w['one'], 0)}), <b>{most['mean']:.2f}</b> on average ({w['mean']}).")


def section_hidden_cards(r: Report) -> None:
    """Face-down cards: what the player who cannot see them wins, beside the same beam seeing every card and the solver."""
    h = winnability.hidden_cards(r.df)
    if h.empty:
        return
    r.page.h2("Playing without seeing the face-down cards")
    r.page.p("PySol FC deals Castles in Spain with three cards face down under each pile's top card. They take no move away "
             "(a move takes a pile's top card, and a card turns face up as soon as it is on top), so the solver's verdicts "
             "stand; they hide cards from the player. The <code>hidden</code> player guesses them (every arrangement of the "
             "unseen cards equally likely), lets the beam play each guess to the end and plays the move most of those games "
             "win with, guessing again whenever a card turns up. Cost: the same beam seeing every card minus the hidden "
             "player, percentage points, Newcombe's paired 95% interval.")
    r.page.table(pd.DataFrame({
        "game": [name(g) for g in h.game], "player": h.player, "cards hidden per pile": h.hidden, "deals": h.deals,
        "win rate": [pct(x) for x in h.rate], "95% interval": [_interval(a, b) for a, b in zip(h.ci_low, h.ci_high)],
        "the beam seeing every card": [f"{pct(x)} ({b})" if not pd.isna(x) else "" for x, b in zip(h.beam_rate, h.beam)],
        "cost of the hidden cards": ["" if pd.isna(x) else f"{points(x)} [{points(a)} to {points(b)}]" for x, a, b in zip(h["diff"], h.diff_low, h.diff_high)],
        "winnable (same deals)": ["" if pd.isna(x) else f"{pct(x)} of {n:,}" for x, n in zip(h.winnable, h.solved)],
        "published": h.anchor, "inside the interval": ["" if x is None else ("yes" if x else "no") for x in h.anchor_inside],
    }), "hidden_cards", left=2)


def section_experiment(r: Report) -> None:
    """What was run: per experiment its games (of those planned), whether it finished, its CPU and commits; the manifests."""
    r.page.h2("Experiment")
    if r.manifests:
        t = experiments_table(r.df, r.manifests)
        r.page.p(f"{len(t)} experiment{'s' * (len(t) != 1)}, {t.cpu_hours.sum():,.1f} CPU-hours in their rows "
                 "(the CPU each game took, summed: every run's, stopped ones too):")
        r.page.table(t, "experiments", left=1, formats={"games": "{:,}".format, "planned": "{:,}".format,
                                                        "finished": lambda f: "yes" if f else "no", "cpu_hours": "{:,.2f}".format})
    text = html.escape(json.dumps(r.manifests, indent=2, default=str)) if r.manifests else "no manifest"
    r.page.raw(f"<pre>{text}</pre>")


#: the report's sections, in page order
SECTIONS = (section_completeness, section_answer, section_winnability, section_perfect_play, section_containment, section_independent,
            section_players,
            section_across_games, section_within_games, section_ladder, section_base_rank, section_advice, section_convergence,
            section_cards_home, section_effort, section_family, section_hidden_cards, section_dialects, section_replays, section_experiment)
