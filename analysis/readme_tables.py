"""The README's results, table by table: each made from the study's rows (what :mod:`analysis.readme` assembles
between its markers, and ``tests/test_readme.py`` checks against the data)."""

from __future__ import annotations

import math
from pathlib import Path

import jinja2
import pandas as pd

from . import conventions, designs, effort, ladder, settling, solvitaire, stats, winnability
from .games import BELEAGUERED, INDEPENDENT, SELECTIVE, STREETS, STUDY, name
from .report.page import pct  # (the report's own: a share reads the same in both)

TEMPLATES = Path(__file__).parent / "report" / "templates"


def markdown() -> jinja2.Environment:
    """The README's templates (the report's folder; markdown, so nothing is escaped)."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False, trim_blocks=True,
                              lstrip_blocks=True, undefined=jinja2.StrictUndefined)


def _md(df: pd.DataFrame, right: int = 1) -> str:
    """A markdown table of ``df`` as the template lays one out; columns from ``right`` on are right-aligned."""
    macro = markdown().get_template("_markdown.md.j2").module.table
    return str(macro([str(c) for c in df.columns], [[str(v) for v in row] for row in df.itertuples(index=False)], right))


def winnability_table(df: pd.DataFrame, manifests: dict | None = None) -> str:
    """Each game of the study's winnability over all its exact runs (``castle summary``'s perfect play), with the
    plain runs' counts and Solvitaire's figure beside it."""
    games = STUDY + (INDEPENDENT,)
    est = designs.perfect_play_by_game(df[df.game.isin(games)])
    if not est:
        return "(the study's games are not solved in the data yet)"
    solver = df[stats.solver_mask(df.player) & df.game.isin(games)]
    plain = winnability.winnability(solver).set_index("game") if len(solver) else pd.DataFrame()
    status = settling.status(df[designs.exact_mask(df.player) & df.game.isin(games)], manifests or {})
    rows = []
    for game in [g for g in games if g in est]:
        e, pub = est[game], winnability.PUBLISHED.get(game)
        c = plain.loc[game] if game in plain.index else None
        rows.append({"game": name(game), "deals": f"{e.deals:,}", "design": settling.described(e, status),
                     "plain runs: won / lost / unknown": "" if c is None else f"{c.won:,} / {c.lost:,} / {c.unknown:,}",
                     "winnable": pct(e.estimate, 3), "95% interval (unknowns both ways)": f"{100 * e.lo:.3f}-{100 * e.hi:.3f}%",
                     "± points": f"{100 * e.half_width:.3f}", "of which the unknowns": f"{100 * e.unknown / 2:.3f}",
                     "Solvitaire": "" if pub is None else f"{pub[0]:.3f}% ± {pub[1]:.3f} ({winnability.PUBLISHED_EFFORT[game][0] / 2:.3f})"})
    return _md(pd.DataFrame(rows))


def again_text(df: pd.DataFrame, manifests: dict | None = None) -> str:
    """How many of each study game's unknowns were solved again (the ``settle`` rows so far), what that found, and
    which deals were still being solved when the rows were taken."""
    st = settling.status(df[designs.exact_mask(df.player) & df.game.isin(STUDY)], manifests or {})
    st = st[st.unknown > 0]
    if not (st.listed.sum() or st.solved.sum()):
        return ""
    said = []
    for game in [g for g in STUDY if (st.game == g).any()]:
        parts = []
        for r in st[st.game == game].itertuples():
            runs = "its plain runs left" if r.run == "plain" else "its phased run left"
            if not r.listed and not r.solved:
                parts.append(f"none of the {r.unknown:,} {runs} (no settle run lists them)")
                continue
            listed = "all listed by a settle run" if r.listed == r.unknown else f"{r.listed:,} listed by a settle run"
            found = f"{r.solved:,} so far ({r.won} won, {r.lost} lost, {r.still} still unknown)" if r.solved else "none so far"
            busy = (f", {len(r.running)} more being solved when these rows were taken (deal{'s' if len(r.running) > 1 else ''} "
                    + ", ".join(map(str, r.running)) + ")") if r.running else ""
            parts.append(f"of the {r.unknown:,} {runs} ({listed}), {found}{busy}")
        said.append(f"{name(game)}: " + "; ".join(parts))
    return ("Unknowns solved again deeper (the `settle` rows so far; each verdict takes the unknown's place above). "
            + ". ".join(said) + ".")


def solvitaire_text(df: pd.DataFrame) -> str:
    """Each game against Solvitaire stated as a test (:func:`analysis.solvitaire.against`), with what was checked."""
    t = solvitaire.against(designs.perfect_play_by_game(df[df.game.isin(list(winnability.PUBLISHED))]))
    if t.empty:
        return ""
    tests = [f"{name(r.game)} {100 * r.diff:+.3f} points [{100 * r.diff_low:+.3f}, {100 * r.diff_high:+.3f}], z = {r.z:+.2f}, "
             f"two-sided p = {r.p:.3f} ({r.p_holm:.3f} Holm-adjusted over the {len(t)} games compared); the unknowns of "
             f"both could move it by at most {100 * r.moved:.3f} points either way (z from {r.z_low:+.2f} to {r.z_high:+.2f})"
             for r in t.itertuples()]
    differ = [f"{name(r.game)}'s differ in " + ", ".join(r.differences) for r in t.itertuples() if r.differences]
    rules = ("; ".join(differ) if differ else "no setting of Solvitaire's presets differs from our rule records ("
             + solvitaire.preset_words() + "; `analysis/solvitaire.py` checks each)")
    return ("Against Solvitaire, as a test (ours minus Blake & Gent's, each the midpoint with its unknowns counted both "
            "ways; the interval the outer bounds, our unknowns lost and theirs won at the low end, the other way at the "
            "high end; z on the two sampling standard errors, theirs their half-width less half their unknown share, "
            "over 1.96): " + "; ".join(tests) + ". The rules: " + rules + ". The deals: uniformly random on both sides "
            "(ours by Fisher-Yates from a counter-based generator, each card's place checked by `tests/test_deals.py`). "
            "The verdicts: our losses agree with fc-solve's on a seeded random sample of Beleaguered Castle's "
            "(`benchmarks/fcsolve_lost.py`, its output under \"The exact solver\"), and every win is replayed.")


def perfect_play_table(solver: pd.DataFrame) -> str:
    rows: list[dict] = []
    for a, b in ((SELECTIVE, STREETS), (SELECTIVE, BELEAGUERED), (INDEPENDENT, SELECTIVE)):
        pp = winnability.perfect_play_pair(solver, a, b)
        if pp is None:
            continue
        rows.append({"comparison": f"{name(a)} − {name(b)}", "deals": f"{pp.deals:,}",
                     "difference (points)": f"{100 * pp.diff:+.2f} [{100 * pp.diff_low:+.2f}, {100 * pp.diff_high:+.2f}]",
                     "won in the second, lost in the first": ", ".join(map(str, pp.a_lost_b_won)) or "none"})
    return _md(pd.DataFrame(rows)) if rows else "(no two of these games solved on the same deals in the data yet)"


def ladder_table(df: pd.DataFrame) -> str:
    """The ladder's rungs (the players of the ``ladder`` experiment) in the study's games, weakest first by
    :func:`analysis.ladder.order` (the header says the rule), and where a game's own order differs."""
    own = df[df.dataset == "ladder"] if "dataset" in df and (df.dataset == "ladder").any() else df
    heur = df[stats.player_mask(df.player) & df.game.isin(STUDY)]
    heur = heur[heur.player.isin(set(own.player))]
    solved = ladder.verdicts(df)
    strength = ladder.strength(heur, solved)
    order = ladder.order(strength)
    t = ladder.ladder_table(heur, solved, order)
    if t.empty:
        return "(no ladder in the data)"
    rows = []
    for rung in order:
        r = t[t.player == rung].set_index("game")
        row = {f"rung ({conventions.LADDER_RULE})": f"`{rung}`"}
        for g in STUDY:
            row[name(g)] = f"{pct(r.rate[g], 1)} ({pct(r.share_of_winnable[g], 1)})" if g in r.index else ""
        row["CPU ms a deal"] = f"{(r.cpu_ms_mean * r.deals).sum() / r.deals.sum():.1f}"
        rows.append(row)
    swaps = ladder.swaps(strength)
    note = "; ".join(f"{name(g)} ranks " + ", ".join(f"`{a}` below `{b}`" for a, b in pairs) for g, pairs in swaps.items())
    return _md(pd.DataFrame(rows)) + ("\n\nEach game's own order, which a deal's difficulty below uses, is this one but "
                                      f"where {note}." if note else "\n\nEach game's own order is this one.")


def family_table(df: pd.DataFrame) -> str:
    others = sorted(g for g in set(df.game) if g not in STUDY + (INDEPENDENT,) and not winnability.is_dialect(g))
    if not others:
        return "(the rest of the family is not in the data yet)"
    f = winnability.family(df[df.game.isin(others)])
    return _md(pd.DataFrame({
        "game": [name(g) for g in f.game], "deals": [f"{n:,}" if n else "" for n in f.deals],
        "winnable (95% interval)": [f"not solved yet: at least {pct(x, 1)}, the beam's wins" if pd.isna(r)
                                    else f"{pct(r, 2)} ({100 * a:.2f}-{100 * b:.2f}%)"
                                    for r, a, b, x in zip(f.rate, f.ci_low, f.ci_high, f.player_rate)],
        "CPU s a deal": ["" if pd.isna(x) else f"{x:.3f}" for x in f.cpu_s_mean],
        "on the beam's deals: winnable / the strongest beam wins": [
            "" if pd.isna(x) else (f"{pct(w, 1)} / " if n else "") + f"{pct(x, 1)} of {m:,}"
            for x, m, w, n in zip(f.player_rate, f.player_deals, f.same_rate, f.same_deals)],
        "published (what it is)": [_published(a, k, i) for a, k, i in zip(f.anchor, f.anchor_kind, f.anchor_inside)],
    }))


def _published(text: str, kind: str, inside) -> str:
    """A published figure with what it measures, and whether it lies in our interval where it is a winnability too."""
    if not text:
        return ""
    where = "" if inside is None else f"; {'inside' if inside else 'outside'} our interval"
    return f"{text} ({winnability.ANCHOR_KINDS.get(kind, kind)}{where})"


EFFORT_BUDGETS = (5, 10, 30, 60)  #: CPU seconds at which the effort table reads the unsettled share
EFFORT_DEALS = (1, 2000)  #: the deals (seed 0) the solver's effort is measured on, first and last


def effort_table(df: pd.DataFrame, manifests: dict | None = None) -> str:
    """The solver's unknown share against its budget on deals 1-2,000 of the two games Solvitaire measured,
    for every solver run that played them all, beside Solvitaire's rate and mean CPU a deal; each design's cost,
    the whole interval's with its unknowns solved again (the deals still being solved counted both ways:
    :func:`analysis.settling.whole_interval_hours`, from the settle experiments' ``manifests``)."""
    first, last = EFFORT_DEALS
    rows = []
    for game in (STREETS, BELEAGUERED):
        g = df[(df.game == game) & stats.solver_mask(df.player) & (df.seed == 0) & df.deal.between(first, last)]
        for label, runs in g.groupby("player", observed=True):
            if len(runs) < last - first + 1:
                continue  # a run still part-way, or not on these deals
            u = effort.unknown_by_budget(runs, budgets=EFFORT_BUDGETS).iloc[0]
            e = designs.estimate(runs, game, str(label))
            rows.append({"game": name(game), "run": f"`{label}`", "deals": f"{len(runs):,}",
                         **{f"{b} s": "" if pd.isna(u[f"{b} s"]) else pct(u[f"{b} s"]) for b in EFFORT_BUDGETS},
                         "at its cap": f"{pct(u['at the cap'])} ({int(runs.result.eq('unknown').sum())})",
                         "CPU s a deal": f"{u.cpu_s_mean:.2f}", "variance a deal": f"{e.per_deal:.3f}",
                         "CPU-h to ±0.186": f"{e.cpu_hours_to():,.0f}", "whole interval": _hours(e.cpu_hours_whole())})
        phased = df[(df.game == game) & designs.exact_mask(df.player) & ~stats.solver_mask(df.player)]
        again = stats.rows_of(phased, designs.SETTLE)
        flying = settling.running(manifests or {}, again)
        flying = flying[flying.game == game]
        for label, runs in phased.groupby("player", observed=True):
            if stats.player_name(label) == designs.SETTLE:
                res = runs.result.astype(str)
                busy = f"; {len(flying)} more started, not finished" if len(flying) else ""
                rows.append({"game": name(game), "run": f"`{label}` (the unknowns solved again)",
                             "deals": f"{len(runs):,} ({int(res.eq('won').sum())} won, {int(res.eq('lost').sum())} lost{busy})",
                             **{f"{b} s": "" for b in EFFORT_BUDGETS}, "at its cap": f"{pct(res.eq('unknown').mean())}",
                             "CPU s a deal": f"{runs.cpu_us.mean() / 1e6:.0f}" + (" (finished ones)" if busy else ""),
                             "variance a deal": "", "CPU-h to ±0.186": "", "whole interval": ""})
                continue
            e = designs.estimate(runs, game, str(label))
            rows.append({"game": name(game), "run": f"`{label}` ({e.design})", "deals": f"{len(runs):,} (from {runs.deal.min():,})",
                         **{f"{b} s": "" for b in EFFORT_BUDGETS}, "at its cap": f"{pct(e.unknown)}",
                         "CPU s a deal": f"{e.cpu_per_deal:.3f}", "variance a deal": f"{e.per_deal:.3f}",
                         "CPU-h to ±0.186": f"{e.cpu_hours_to():,.0f}",
                         "whole interval": _whole(settling.whole_interval_hours(e, runs, again, flying))})
        rate, mean = winnability.PUBLISHED_EFFORT[game]
        rows.append({"game": name(game), "run": f"Solvitaire ({winnability.PUBLISHED_DEALS:,} deals)", "deals": "", **{f"{b} s": "" for b in EFFORT_BUDGETS},
                     "at its cap": f"{rate:.3f}%", "CPU s a deal": f"{mean:.1f}", "variance a deal": "",
                     "CPU-h to ±0.186": f"{winnability.PUBLISHED_DEALS * mean / 3600:,.0f}",
                     "whole interval": f"{winnability.PUBLISHED_DEALS * mean / 3600:,.0f}"})
    return _md(pd.DataFrame(rows), right=2)


def _hours(h: float) -> str:
    """CPU-hours as the effort table gives them; beyond reach when the unknowns alone are wider."""
    return "out of reach (the unknowns alone are wider)" if math.isinf(h) else f"{h:,.0f}"


def _whole(c: settling.SettleCost) -> str:
    """The whole interval's cost in words: with the unknowns solved again at the share the finished settle rows
    measured, and, when some were still being solved, what it would be if none of those settled."""
    if c.settled is None and not c.running:
        return _hours(c.hours)
    text = _hours(c.hours) if not c.running else f"{_hours(c.hours)} to {_hours(c.hours_worst)}"
    said = f"its unknowns solved again, counting on {100 * c.settled:.0f}% settling" if c.settled is not None else \
        "its unknowns solved again, none finished yet"
    if c.running:
        said += (f"; {c.running} started and not finished, whose CPU so far the rows do not hold: the first figure "
                 f"leaves them out, the second counts them as never settling ({100 * c.settled_worst:.0f}%), each at "
                 "its full budget")
    return f"{text} ({said})"


def dialects_table(df: pd.DataFrame) -> str:
    d = winnability.dialects(df)
    if d.empty:
        return "(no dialect in the data yet)"
    return _md(pd.DataFrame({
        "dialect": [f"`{g}`" for g in d.dialect], "player": [f"`{p}`" if p != "perfect play" else p for p in d.player],
        "deals": [f"{n:,}" for n in d.deals], "sheet": [pct(x, 1) for x in d.sheet_rate], "dialect ": [pct(x, 1) for x in d.dialect_rate],
        "difference (points)": [f"{100 * x:+.1f} [{100 * a:+.1f}, {100 * b:+.1f}]" for x, a, b in zip(d["diff"], d.diff_low, d.diff_high)],
        "won in one only (sheet / dialect)": [f"{a} / {b}" for a, b in zip(d.won_sheet_lost_dialect, d.won_dialect_lost_sheet)],
        "moves of a win (sheet / dialect)": ["" if pd.isna(a) or pd.isna(b) else f"{a:.0f} / {b:.0f}" for a, b in zip(d.moves_sheet, d.moves_dialect)],
    }), right=2)


def hidden_cards_table(df: pd.DataFrame) -> str:
    h = winnability.hidden_cards(df)
    if h.empty:
        return "(no player of hidden cards in the data yet)"
    return _md(pd.DataFrame({
        "game": [name(g) for g in h.game], "player": [f"`{p}`" for p in h.player], "deals": [f"{n:,}" for n in h.deals],
        "wins without seeing them (95% interval)": [f"{pct(x, 1)} ({100 * a:.1f}-{100 * b:.1f}%)" for x, a, b in zip(h.rate, h.ci_low, h.ci_high)],
        "the same beam seeing every card": ["" if pd.isna(x) else f"{pct(x, 1)} (`{b}`)" for x, b in zip(h.beam_rate, h.beam)],
        "what the hidden cards cost (points)": ["" if pd.isna(x) else f"{100 * x:+.1f} [{100 * a:+.1f}, {100 * b:+.1f}]"
                                                for x, a, b in zip(h["diff"], h.diff_low, h.diff_high)],
        "winnable": ["" if pd.isna(x) else f"{pct(x, 1)} of {n:,}" for x, n in zip(h.winnable, h.solved)],
        "published (what it is)": [f"{a} ({winnability.ANCHOR_KINDS.get(k, k)}; {'inside' if i else 'outside'} this player's interval)"
                                   if a else "" for a, k, i in zip(h.anchor, h.anchor_kind, h.anchor_inside)],
    }), right=2)


def difficulty_table(df: pd.DataFrame) -> str:
    """Per game of the study: the difficulty index of its winnable deals (median and quartiles, in bits), its rank
    correlation with the ladder's weakest winning rung (with the deals no rung wins as the top rank, and without
    them), and what judging every move cost."""
    from . import difficulty as difficulty_analysis

    rows = difficulty_analysis.corridor_rows(df)
    rows = rows[rows.seed >= 0]
    if rows.empty:
        return "(no corridor rows yet)"
    rows = difficulty_analysis.with_rungs(rows, df)
    v = difficulty_analysis.validity(rows).set_index("game")
    c = difficulty_analysis.cost(rows).set_index("game")
    out = []
    for game in [g for g in STUDY if (rows.game == g).any()]:
        won = rows[(rows.game == game) & (rows.result == "won")].difficulty
        q1, q2, q3 = won.quantile([0.25, 0.5, 0.75])
        def rho(suffix: str = "") -> str:
            if game not in v.index or pd.isna(v[f"rho{suffix}"][game]):
                return "n/a"
            return (f"{v[f'rho{suffix}'][game]:+.2f} [{v[f'lo{suffix}'][game]:+.2f}, {v[f'hi{suffix}'][game]:+.2f}] "
                    f"on {int(v[f'deals{suffix}'][game]):,}")

        out.append({"game": name(game), "winnable deals": f"{len(won):,} of {int(c.deals[game]):,}",
                    "index, bits: median [quartiles]": f"{q2:.1f} [{q1:.1f}, {q3:.1f}]",
                    "Spearman with the weakest winning rung: every winnable deal (no rung wins: the top rank)": rho(),
                    "only the deals some rung wins": rho("_rungs"),
                    "CPU s a deal: median / mean": f"{c.cpu_s_median[game]:.2f} / {c.cpu_s_mean[game]:.2f}",
                    "moves left unknown": f"{100 * c.unknown_share[game]:.2f}%"})
    return _md(pd.DataFrame(out))


def catalogue_table(df: pd.DataFrame) -> str:
    """Per game PySol deals: its judged game numbers, their verdicts, the index of the winnable ones and the hardest."""
    from . import difficulty as difficulty_analysis

    k = difficulty_analysis.catalogue(difficulty_analysis.corridor_rows(df), hardest=3)
    if k.empty:
        return "(no PySol deals judged yet)"
    return _md(difficulty_analysis.catalogue_view(k, code=True), right=1)


def pysol_tiers_table(data) -> str:
    """PySol's game numbers of each game as the shipped catalogue files hold them (:mod:`analysis.catalogue`): the
    solver's verdicts, the numbers won by tier, and those not searched yet by the tier predicted before search."""
    from . import catalogue

    t = catalogue.tiers_by_game(data)
    if t.empty:
        return f"(no catalogue in {catalogue.FOLDER}/ yet: `make catalogue` writes it)"
    return _md(catalogue.tiers_view(t))
