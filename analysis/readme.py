"""The README's results: tables made from the shipped study and written between two markers, so they never drift.

    python -m analysis.readme data/published reports/published   # rewrite README.md's results, copy its figures
    python -m analysis.readme data/published --check              # exit 1 if README.md's results differ from the data

The block's words are a Jinja2 template (``analysis/report/templates/readme.md.j2``, beside the report's), its
tables laid out by one markdown macro (``_markdown.md.j2``) over the rows :mod:`.readme_tables` computes.
``make figures`` runs the first; ``tests/test_readme.py`` the check. The
figures the README shows are copied from the study's report into
``reports/readme/`` (the only report files kept in git).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import pandas as pd

from sim.core import files
from sim.study.experiment import read_toml

from . import designs, settling, stats, winnability
from .games import SELECTIVE, STREETS, STUDY, name
from .load import ResultsError, load_study, unfinished
from .readme_tables import (again_text, catalogue_table, dialects_table, difficulty_table, effort_table, family_table,
                            hidden_cards_table, ladder_table, markdown, perfect_play_table, pysol_tiers_table, solvitaire_text,
                            winnability_table)

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
START = "<!-- results: written by `make figures` from data/published; edit analysis/readme.py, not this block -->"
END = "<!-- end of results -->"
#: the report's figures the README shows, in order, with their captions (those the report drew from the data)
FIGURES = (("answer", "Win rate by player and under perfect play"), ("ladder", "The ladder: winnable deals won against CPU per deal"),
           ("against_published", "How precise: each game's 95% interval beside Solvitaire's, the part its unknowns make thick"),
           ("difficulty", "Difficulty: the weakest rung that wins a deal"),
           ("difficulty_index", "Difficulty, deal by deal: the index of every winnable deal"),
           ("fixed_bases", "Selective Castle: one base rank for every deal"))
FIGURE_DIR = Path("reports") / "readme"


def headline(df: pd.DataFrame) -> list[str]:
    """The answer in two sentences: Selective Castle's winnability beside Streets and Alleys' (each over all its exact
    runs, in their designs: what ``castle summary`` says), and the paired difference (unknowns counted both ways)."""
    solver = df[stats.solver_mask(df.player)]
    w = designs.perfect_play_by_game(df[df.game.isin(STUDY)])
    pp = winnability.perfect_play_pair(solver, SELECTIVE, STREETS)
    if SELECTIVE not in w or STREETS not in w or pp is None:
        return []
    status = settling.status(df[designs.exact_mask(df.player) & df.game.isin(STUDY)], {})

    def share(game: str) -> str:
        e = w[game]
        design = "" if e.design == "plain" else f", {e.design} design"
        design += settling.described(e, status).removeprefix(e.design)
        return f"**{100 * e.estimate:.2f}%** of {name(game)} deals (95% interval {100 * e.lo:.2f}-{100 * e.hi:.2f}%, {e.deals:,} deals{design})"

    verdict = ("easier" if pp.diff_low > 0 else "harder" if pp.diff_high < 0 else "not measurably different")
    law = ("no deal won in Streets and Alleys is lost in Selective Castle, as the rule sheet's containment law says"
           if not pp.a_lost_b_won else "deals " + ", ".join(map(str, pp.a_lost_b_won)) + " break the containment law: a bug")
    return [f"**The answer:** under perfect play (the study's exact solver, every win replayed) {share(SELECTIVE)} are winnable, "
            f"against {share(STREETS)}. Paired on the same {pp.deals:,} deals, Selective Castle is **{verdict}**: "
            f"{100 * pp.diff:+.2f} points (95% interval {100 * pp.diff_low:+.2f} to {100 * pp.diff_high:+.2f}, the unknowns "
            f"counted both ways); {law}.", ""]


def range_changes(held: dict[str, dict]) -> list[str]:
    """A sentence for each change of an experiment's deals during its run, as its manifest records it
    (``range_changes``: from, to, at, deals_played, reason, recorded), so "the number of deals is fixed" is never
    read of a run whose range moved."""
    said = []
    for label, m in sorted(held.items()):
        for c in m.get("range_changes") or []:
            if c.get("from") is None:  # (a run's first range: where it started, not a change)
                continue
            (a, b), (x, y) = c["from"], c["to"]
            played = f", {c['deals_played']:,} deals in" if c.get("deals_played") is not None else ""
            note = f" ({c['recorded']})" if c.get("recorded") else ""
            said.append(f"`{label}`'s deals grew from {a:,}-{b - 1:,} to {x:,}-{y - 1:,} during its run, from the run "
                        f"started {c['at'][:16].replace('T', ' ')} UTC{played}: {c['reason']}{note}.")
    return [" ".join(["The deals of a run changed while it ran:", *said]), ""] if said else []


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
    """The README's results block, made from the dataset(s) in ``data``: the words are the template's
    (analysis/report/templates/readme.md.j2), every number the data's."""
    df, held = load_study(data)
    solver = df[stats.solver_mask(df.player)]
    tables = {"winnability": winnability_table(df, held), "perfect_play": perfect_play_table(solver), "ladder": ladder_table(df),
              "family": family_table(df), "hidden_cards": hidden_cards_table(df), "effort": effort_table(df, held),
              "dialects": dialects_table(df), "difficulty": difficulty_table(df), "catalogue": catalogue_table(df),
              "pysol_tiers": pysol_tiers_table(data)}
    return markdown().get_template("readme.md.j2").render(
        start=START, end=END, t=tables, headline=_text(headline(df)), progress=_text(progress(df, held, data)),
        again=again_text(df, held), solvitaire=solvitaire_text(df), changes=_text(range_changes(held)),
        figures=[(FIGURE_DIR / f"{stem}.png", caption) for stem, caption in FIGURES if (ROOT / FIGURE_DIR / f"{stem}.png").exists()])


def _text(lines: list[str]) -> str:
    """A paragraph given as its lines and the blank line after it, as one text ("" for none)."""
    return "\n".join(lines).strip("\n")


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
