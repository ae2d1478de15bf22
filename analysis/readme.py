"""The README's results: tables made from the shipped study and written between two markers, so they never drift.

    python -m analysis.readme data/published reports/published   # rewrite README.md's results, copy its figures
    python -m analysis.readme data/published --check              # exit 1 if README.md's results differ from the data

``make figures`` runs the first; ``tests/test_readme.py`` the check. The
figures the README shows are copied from the study's report into
``reports/readme/`` (the only report files kept in git).
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
from pathlib import Path

import pandas as pd

from sim.core import files
from sim.study.experiment import read_toml

from . import designs, ladder, stats, winnability
from .games import BELEAGUERED, INDEPENDENT, SELECTIVE, STREETS, STUDY, name
from .load import ResultsError, load_study, unfinished

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
START = "<!-- results: written by `make figures` from data/published; edit analysis/readme.py, not this block -->"
END = "<!-- end of results -->"
#: the report's figures the README shows, in order, with their captions (those the report drew from the data)
FIGURES = (("answer", "Win rate by player and under perfect play"), ("ladder", "The ladder: winnable deals won against CPU per deal"),
           ("against_published", "How precise: each game's 95% interval beside Solvitaire's, the part its unknowns make thick"),
           ("difficulty", "Difficulty: the cheapest rung that wins a deal"),
           ("difficulty_index", "Difficulty, deal by deal: the index of every winnable deal"),
           ("fixed_bases", "Selective Castle: one base rank for every deal"))
FIGURE_DIR = Path("reports") / "readme"


def _pct(x: float, digits: int = 2) -> str:
    return "n/a" if pd.isna(x) else f"{100 * x:.{digits}f}%"


def _md(df: pd.DataFrame, right: int = 1) -> str:
    """A markdown table; columns from ``right`` on are right-aligned."""
    head = "| " + " | ".join(df.columns) + " |"
    rule = "|" + "|".join("---" if i < right else "---:" for i in range(len(df.columns))) + "|"
    rows = ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def headline(df: pd.DataFrame) -> list[str]:
    """The answer in two sentences: Selective Castle's winnability beside Streets and Alleys' (each over all its exact
    runs, in their designs: what ``castle summary`` says), and the paired difference."""
    solver = df[stats.solver_mask(df.player)]
    w = designs.perfect_play_by_game(df[df.game.isin(STUDY)])
    pp = winnability.perfect_play_pair(solver, SELECTIVE, STREETS)
    if SELECTIVE not in w or STREETS not in w or pp is None:
        return []

    def share(game: str) -> str:
        e = w[game]
        design = "" if e.design == "plain" else f", {e.design} design"
        design += f", {e.again:,} of its unknowns solved again" if e.again else ""
        return f"**{100 * e.estimate:.2f}%** of {name(game)} deals (95% interval {100 * e.lo:.2f}-{100 * e.hi:.2f}%, {e.deals:,} deals{design})"

    verdict = ("easier" if pp.diff_low > 0 else "harder" if pp.diff_high < 0 else "not measurably different")
    law = ("no deal won in Streets and Alleys is lost in Selective Castle, as the rule sheet's containment law says"
           if not pp.a_lost_b_won else "deals " + ", ".join(map(str, pp.a_lost_b_won)) + " break the containment law: a bug")
    return [f"**The answer:** under perfect play (the study's exact solver, every win replayed) {share(SELECTIVE)} are winnable, "
            f"against {share(STREETS)}. Paired on the same {pp.deals:,} deals, Selective Castle is **{verdict}**: "
            f"{100 * pp.diff:+.2f} points (95% interval {100 * pp.diff_low:+.2f} to {100 * pp.diff_high:+.2f}); {law}.", ""]


def winnability_table(df: pd.DataFrame) -> str:
    """Each game of the study's winnability over all its exact runs (``castle summary``'s perfect play), with the
    plain runs' counts and Solvitaire's figure beside it."""
    games = STUDY + (INDEPENDENT,)
    est = designs.perfect_play_by_game(df[df.game.isin(games)])
    if not est:
        return "(the study's games are not solved in the data yet)"
    solver = df[stats.solver_mask(df.player) & df.game.isin(games)]
    plain = winnability.winnability(solver).set_index("game") if len(solver) else pd.DataFrame()
    rows = []
    for game in [g for g in games if g in est]:
        e, pub = est[game], winnability.PUBLISHED.get(game)
        c = plain.loc[game] if game in plain.index else None
        rows.append({"game": name(game), "deals": f"{e.deals:,}", "design": e.described,
                     "plain runs: won / lost / unknown": "" if c is None else f"{c.won:,} / {c.lost:,} / {c.unknown:,}",
                     "winnable": _pct(e.estimate, 3), "95% interval (unknowns both ways)": f"{100 * e.lo:.3f}-{100 * e.hi:.3f}%",
                     "± points": f"{100 * e.half_width:.3f}", "of which the unknowns": f"{100 * e.unknown / 2:.3f}",
                     "Solvitaire": "" if pub is None else f"{pub[0]:.3f}% ± {pub[1]:.3f} ({winnability.PUBLISHED_EFFORT[game][0] / 2:.3f})"})
    return _md(pd.DataFrame(rows))


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
    t = ladder.ladder_table(df[stats.player_mask(df.player)], ladder.verdicts(df))
    if t.empty:
        return "(no ladder in the data)"
    rows = []
    for rung in ladder.rungs(df[df.dataset == "ladder"] if "dataset" in df and (df.dataset == "ladder").any() else df):
        r = t[t.player == rung].set_index("game")
        row = {"rung (cheapest first)": f"`{rung}`"}
        for g in STUDY:
            row[name(g)] = f"{_pct(r.rate[g], 1)} ({_pct(r.share_of_winnable[g], 1)})" if g in r.index else ""
        row["CPU ms a deal"] = f"{(r.cpu_ms_mean * r.deals).sum() / r.deals.sum():.1f}"
        rows.append(row)
    return _md(pd.DataFrame(rows))


def family_table(df: pd.DataFrame) -> str:
    others = sorted(g for g in set(df.game) if g not in STUDY + (INDEPENDENT,) and not winnability.is_dialect(g))
    if not others:
        return "(the rest of the family is not in the data yet)"
    f = winnability.family(df[df.game.isin(others)])
    return _md(pd.DataFrame({
        "game": [name(g) for g in f.game], "deals": [f"{n:,}" if n else "" for n in f.deals],
        "winnable (95% interval)": [f"not solved yet: at least {_pct(x, 1)}, the beam's wins" if pd.isna(r)
                                    else f"{_pct(r, 2)} ({100 * a:.2f}-{100 * b:.2f}%)"
                                    for r, a, b, x in zip(f.rate, f.ci_low, f.ci_high, f.player_rate)],
        "CPU s a deal": ["" if pd.isna(x) else f"{x:.3f}" for x in f.cpu_s_mean],
        "strongest beam wins": ["" if pd.isna(x) else f"{_pct(x, 1)} of {n:,}" for x, n in zip(f.player_rate, f.player_deals)],
        "published": [(a if i is None else f"{a} ({'inside' if i else 'outside'} our interval)") if a else "" for a, i in zip(f.anchor, f.anchor_inside)],
    }))


EFFORT_BUDGETS = (5, 10, 30, 60)  #: CPU seconds at which the effort table reads the unsettled share
EFFORT_DEALS = (1, 2000)  #: the deals (seed 0) the solver's effort is measured on, first and last


def effort_table(df: pd.DataFrame) -> str:
    """The solver's unknown share against its budget on deals 1-2,000 of the two games Solvitaire measured,
    for every solver run that played them all, beside Solvitaire's rate and mean CPU a deal."""
    first, last = EFFORT_DEALS
    rows = []
    for game in (STREETS, BELEAGUERED):
        g = df[(df.game == game) & stats.solver_mask(df.player) & (df.seed == 0) & df.deal.between(first, last)]
        for label, runs in g.groupby("player", observed=True):
            if len(runs) < last - first + 1:
                continue  # a run still part-way, or not on these deals
            u = winnability.unknown_by_budget(runs, budgets=EFFORT_BUDGETS).iloc[0]
            e = designs.estimate(runs, game, str(label))
            rows.append({"game": name(game), "run": f"`{label}`", "deals": f"{len(runs):,}",
                         **{f"{b} s": "" if pd.isna(u[f"{b} s"]) else _pct(u[f"{b} s"]) for b in EFFORT_BUDGETS},
                         "at its cap": f"{_pct(u['at the cap'])} ({int(runs.result.eq('unknown').sum())})",
                         "CPU s a deal": f"{u.cpu_s_mean:.2f}", "variance a deal": f"{e.per_deal:.3f}",
                         "CPU-h to ±0.186": f"{e.cpu_hours_to():,.0f}", "whole interval": _hours(e.cpu_hours_whole())})
        phased = df[(df.game == game) & designs.exact_mask(df.player) & ~stats.solver_mask(df.player)]
        again = stats.rows_of(phased, designs.SETTLE)
        for label, runs in phased.groupby("player", observed=True):
            if stats.player_name(label) == designs.SETTLE:
                res = runs.result.astype(str)
                rows.append({"game": name(game), "run": f"`{label}` (the unknowns solved again)",
                             "deals": f"{len(runs):,} ({int(res.eq('won').sum())} won, {int(res.eq('lost').sum())} lost)",
                             **{f"{b} s": "" for b in EFFORT_BUDGETS}, "at its cap": f"{_pct(res.eq('unknown').mean())}",
                             "CPU s a deal": f"{runs.cpu_us.mean() / 1e6:.0f}", "variance a deal": "", "CPU-h to ±0.186": "",
                             "whole interval": ""})
                continue
            e = designs.estimate(runs, game, str(label))
            hours, settled = designs.whole_interval_hours(e, runs, again)
            rows.append({"game": name(game), "run": f"`{label}` ({e.design})", "deals": f"{len(runs):,} (from {runs.deal.min():,})",
                         **{f"{b} s": "" for b in EFFORT_BUDGETS}, "at its cap": f"{_pct(e.unknown)}",
                         "CPU s a deal": f"{e.cpu_per_deal:.3f}", "variance a deal": f"{e.per_deal:.3f}",
                         "CPU-h to ±0.186": f"{e.cpu_hours_to():,.0f}",
                         "whole interval": _hours(hours)
                         + (f" (its unknowns solved again, counting on {100 * settled:.0f}% settling)" if settled is not None else "")})
        rate, mean = winnability.PUBLISHED_EFFORT[game]
        rows.append({"game": name(game), "run": f"Solvitaire ({winnability.PUBLISHED_DEALS:,} deals)", "deals": "", **{f"{b} s": "" for b in EFFORT_BUDGETS},
                     "at its cap": f"{rate:.3f}%", "CPU s a deal": f"{mean:.1f}", "variance a deal": "",
                     "CPU-h to ±0.186": f"{winnability.PUBLISHED_DEALS * mean / 3600:,.0f}",
                     "whole interval": f"{winnability.PUBLISHED_DEALS * mean / 3600:,.0f}"})
    return _md(pd.DataFrame(rows), right=2)


def _hours(h: float) -> str:
    """CPU-hours as the effort table gives them; beyond reach when the unknowns alone are wider."""
    return "out of reach (the unknowns alone are wider)" if math.isinf(h) else f"{h:,.0f}"


def dialects_table(df: pd.DataFrame) -> str:
    d = winnability.dialects(df)
    if d.empty:
        return "(no dialect in the data yet)"
    return _md(pd.DataFrame({
        "dialect": [f"`{g}`" for g in d.dialect], "player": [f"`{p}`" if p != "perfect play" else p for p in d.player],
        "deals": [f"{n:,}" for n in d.deals], "sheet": [_pct(x, 1) for x in d.sheet_rate], "dialect ": [_pct(x, 1) for x in d.dialect_rate],
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
        "wins without seeing them (95% interval)": [f"{_pct(x, 1)} ({100 * a:.1f}-{100 * b:.1f}%)" for x, a, b in zip(h.rate, h.ci_low, h.ci_high)],
        "the same beam seeing every card": ["" if pd.isna(x) else f"{_pct(x, 1)} (`{b}`)" for x, b in zip(h.beam_rate, h.beam)],
        "what the hidden cards cost (points)": ["" if pd.isna(x) else f"{100 * x:+.1f} [{100 * a:+.1f}, {100 * b:+.1f}]"
                                                for x, a, b in zip(h["diff"], h.diff_low, h.diff_high)],
        "winnable": ["" if pd.isna(x) else f"{_pct(x, 1)} of {n:,}" for x, n in zip(h.winnable, h.solved)],
        "published": [(a if i is None else f"{a} ({'inside' if i else 'outside'} the interval)") if a else "" for a, i in zip(h.anchor, h.anchor_inside)],
    }), right=2)


def difficulty_table(df: pd.DataFrame) -> str:
    """Per game of the study: the difficulty index of its winnable deals (median and quartiles, in bits), its rank
    correlation with the ladder's cheapest winning rung, and what judging every move cost."""
    from . import difficulty as D

    rows = D.corridor_rows(df)
    rows = rows[rows.seed >= 0]
    if rows.empty:
        return "(no corridor rows yet)"
    rows = D.with_rungs(rows, df)
    v = D.validity(rows).set_index("game")
    c = D.cost(rows).set_index("game")
    out = []
    for game in [g for g in STUDY if (rows.game == g).any()]:
        won = rows[(rows.game == game) & (rows.result == "won")].difficulty
        q1, q2, q3 = won.quantile([0.25, 0.5, 0.75])
        rho = (f"{v.rho[game]:+.2f} [{v.lo[game]:+.2f}, {v.hi[game]:+.2f}] on {int(v.deals[game]):,}" if game in v.index else "n/a")
        out.append({"game": name(game), "winnable deals": f"{len(won):,} of {int(c.deals[game]):,}",
                    "index, bits: median [quartiles]": f"{q2:.1f} [{q1:.1f}, {q3:.1f}]",
                    "Spearman with the cheapest winning rung": rho,
                    "CPU s a deal: median / mean": f"{c.cpu_s_median[game]:.2f} / {c.cpu_s_mean[game]:.2f}",
                    "moves left unknown": f"{100 * c.unknown_share[game]:.2f}%"})
    return _md(pd.DataFrame(out))


def catalogue_table(df: pd.DataFrame) -> str:
    """Per game PySol deals: its judged game numbers, their verdicts, the index of the winnable ones and the hardest."""
    from . import difficulty as D

    k = D.catalogue(D.corridor_rows(df), hardest=3)
    if k.empty:
        return "(no PySol deals judged yet)"
    return _md(D.catalogue_view(k, code=True), right=1)


def progress(df: pd.DataFrame, held: dict[str, dict], data: Path) -> list[str]:
    """A paragraph naming the experiments still running (and, for the shipped study, those not started),
    so a partial figure is never read as final."""
    running = unfinished(df, held)
    shipped = Path(data).resolve() == (ROOT / "data" / "published").resolve()
    waiting = [f.relative_to(ROOT).as_posix() for f, out in _study_files() if shipped and Path(out).name not in held]
    if not running and not waiting:
        return []
    listed = "; ".join(f"`{label}` {have:,} of {expected:,} games" for label, have, expected in running) or "none"
    text = (f"The study is still running (`make published` resumes it), and every figure below is of the games "
            f"played so far. Part-way: {listed}.")
    if waiting:
        text += " Not started: " + ", ".join(f"`{f}`" for f in waiting) + "."
    return [text, ""]


def _study_files() -> list[tuple[Path, str]]:
    """The experiment files whose results ship in data/published (those `make published` runs), with their folders."""
    files = sorted((ROOT / "experiments").glob("*.toml")) + sorted((ROOT / "experiments").glob("*/*.toml"))
    outs = [(f, str(read_toml(f).get("out", ""))) for f in files]
    return [(f, out) for f, out in outs if out.startswith("data/published/")]


def results(data: Path) -> str:
    """The README's results block, made from the dataset(s) in ``data``."""
    df, held = load_study(data)
    solver = df[stats.solver_mask(df.player)]
    parts = [START, "", *headline(df), *progress(df, held, data), "Winnability under perfect play (seed 0; unknowns counted both "
             "ways, as Blake & Gent do, so half the unknown share is a floor no number of deals lowers: the ± column's part "
             "from the unknowns beside it, and in brackets Solvitaire's; every exact run of a game joined, each in its "
             "design, as `castle summary` gives it):", "",
             winnability_table(df), "", "Deal by deal under perfect play (an unknown counts as not won):", "",
             perfect_play_table(solver), "",
             "The ladder of players on deals 1-2,000: win rate (in brackets: share of the solver's winnable deals won):", "",
             ladder_table(df), "", "The rest of the family (the solver; the strongest beam on the first 2,000 deals):", "",
             family_table(df), "",
             "Playing without seeing the face-down cards PySol deals (three under each pile's top card in Castles in Spain; "
             "they take no move away, so the deals are as winnable, but the player must guess them):", "",
             hidden_cards_table(df), "",
             "The solver's own effort, on seed 0's deals 1-2,000 (CPU seconds; the share of deals not settled within "
             "each budget, read off the rows; `dead_end=1` is pruning rule 5), and each design's cost: the variance one deal "
             "brings (its estimate's variance times its deals) and the CPU-hours it would spend to reach Solvitaire's ±0.186 "
             "points by sampling alone, and in the whole interval, the unknowns counted both ways included (the phased "
             "designs with their unknowns solved again, at the share the `settle` rows settled so far, k of n counted as k/(n+1), and their CPU) "
             "(the solver in phases, `phased`, plays the deals after the study's first 10,000):", "",
             effort_table(df), "",
             "Other programs' dialects against the rule sheet, on the same deals (supermoves cannot change winnability; PySol's "
             "sequence moves in Selective Castle only add moves):", "", dialects_table(df), "",
             "Difficulty, deal by deal (seed 0, deals 1-2,000): every move of each winnable deal's winning line judged by the "
             "solver (`castle play GAME N --player corridor`); the index is the bits of luck a player choosing uniformly among "
             "the sensible moves needs to stay on a winning path (sim/solver/corridor.py says why this definition); its rank "
             "correlation with the cheapest rung of the ladder that wins the deal, with its 95% interval:", "",
             difficulty_table(df), "",
             "PySol FC's deals by difficulty, judged the same way, so a player can open `pysol:N` in PySol knowing whether "
             "it is winnable and how hard (`castle deals streets-and-alleys --pysol --winnable --difficulty hard` picks more):",
             "", catalogue_table(df), ""]
    parts += [f"![{caption}]({FIGURE_DIR / stem}.png)" for stem, caption in FIGURES if (ROOT / FIGURE_DIR / f"{stem}.png").exists()]
    parts += ["", END]
    return "\n".join(parts)


def replace_block(text: str, block: str) -> str:
    if START not in text or END not in text:
        raise ValueError(f"README.md has no results block (the lines {START!r} ... {END!r})")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return head + block + tail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m analysis.readme", description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="?", type=Path, default=ROOT / "data" / "published", help="the study's results folder")
    ap.add_argument("report", nargs="?", type=Path, help="the report to copy the README's figures from")
    ap.add_argument("--check", action="store_true", help="exit 1 if README.md's results differ from the data; write nothing")
    args = ap.parse_args(argv)
    if args.report is not None and not (args.report / "figures").is_dir():  # else every README figure would be removed
        print(f"analysis.readme: {args.report} is not a report (no figures/ in it): run `castle report` first", file=sys.stderr)
        return 2
    try:
        if args.report is not None and not args.check:
            _copy_figures(args.report)  # first: the results link the figures that are there
        text = README.read_text()
        new = replace_block(text, results(args.data))
    except (ResultsError, ValueError, OSError) as e:
        print(f"analysis.readme: {e}", file=sys.stderr)
        return 2
    if args.check:
        if new != text:
            print("README.md's results differ from the data: run `make figures`", file=sys.stderr)
            return 1
        return 0
    files.write_atomic(README, new)
    return 0


def _copy_figures(report: Path) -> None:
    """Copy the README's figures from the report; one the report did not draw (its data is missing) is removed."""
    (ROOT / FIGURE_DIR).mkdir(parents=True, exist_ok=True)
    for stem, _ in FIGURES:
        src, dst = report / "figures" / f"{stem}.png", ROOT / FIGURE_DIR / f"{stem}.png"
        if src.exists():
            shutil.copyfile(src, dst)
        else:
            dst.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
