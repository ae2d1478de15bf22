"""``castle report``: one self-contained HTML page, figures as PNG, tables as CSV.

The page is a list of sections (:data:`SECTIONS`), each a function of the
dataset that adds its headings, tables and figures to the page. It works
with any subset of games and players: a section whose data is missing says
so instead of failing. Adding a section: a function here, named in the list.
"""

from __future__ import annotations

import base64
import html
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from . import plots, stats
from .games import BELEAGUERED, INDEPENDENT, SELECTIVE, STREETS, STUDY, name
from .load import ResultsError, load_manifest, load_results

MAIN_PAIR = (SELECTIVE, STREETS)
#: pairs of games on the same layout where the first may win more (the containment laws of the rule sheet)
CONTAINMENT = ((STREETS, SELECTIVE), (SELECTIVE, INDEPENDENT))

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#222;line-height:1.5}
h1{font-size:1.7em;margin-bottom:.2em} h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.88em;margin:1em 0} th,td{padding:.25em .7em;border-bottom:1px solid #eee;text-align:right}
th{background:#f6f6f6} td:first-child,th:first-child,td:nth-child(2){text-align:left}
.summary{background:#f4f8f4;border-left:4px solid #1b7837;padding:.8em 1em} .missing{color:#a33}
img{max-width:100%} pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:.8em}
"""


def _pct(x: float) -> str:
    return "n/a" if pd.isna(x) else f"{100 * x:.2f}%"


def _fmt_table(df: pd.DataFrame, pct_cols=(), float_cols=()) -> str:
    shown = df.copy()
    for c in pct_cols:
        if c in shown:
            shown[c] = shown[c].map(_pct)
    for c in float_cols:
        if c in shown:
            shown[c] = shown[c].map(lambda v: "n/a" if pd.isna(v) else f"{v:.3g}")
    return shown.to_html(index=False, border=0, escape=True)


class _Page:
    """Collects sections; saves each figure as PNG and embeds it."""

    def __init__(self, out: Path):
        self.out = out
        self.parts: list[str] = []
        (out / "figures").mkdir(parents=True, exist_ok=True)
        (out / "tables").mkdir(parents=True, exist_ok=True)

    def h2(self, text: str) -> None:
        self.parts.append(f"<h2>{html.escape(text)}</h2>")

    def p(self, text: str, cls: str = "") -> None:
        attr = f' class="{cls}"' if cls else ""
        self.parts.append(f"<p{attr}>{text}</p>")

    def figure(self, fig: plt.Figure, name: str, caption: str) -> None:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        fig.savefig(self.out / "figures" / f"{name}.png", dpi=110)
        plt.close(fig)
        data = base64.b64encode(buf.getvalue()).decode()
        self.parts.append(f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
                          f"<figcaption>{html.escape(caption)}</figcaption></figure>")

    def table(self, df: pd.DataFrame, name: str, **fmt) -> None:
        df.to_csv(self.out / "tables" / f"{name}.csv", index=False)
        self.parts.append(_fmt_table(df, **fmt))


def summary_text(rates: pd.DataFrame, pairs: list[stats.Paired], present: set[str]) -> str:
    """The one-paragraph answer: Selective Castle against Streets and Alleys, with numbers."""
    a, b = MAIN_PAIR
    missing = [g for g in MAIN_PAIR if g not in present]
    if missing:
        return (f"This dataset has no {' and no '.join(name(g) for g in missing)}, so the main comparison "
                f"(Selective Castle against Streets and Alleys, deal by deal) cannot be made here.")
    sentences = []
    for pair in pairs:
        if not (pair.a.startswith(a + " /") and pair.b.startswith(b + " /")):
            continue
        player = pair.a.split(" / ")[1]
        verdict = ("easier" if pair.diff_low > 0 else "harder" if pair.diff_high < 0 else "not measurably different")
        what = "winnable" if stats.is_solver(player) else f"won by the {player} player"
        sentences.append(
            f"On the same {pair.deals:,} deals, {_pct(pair.rate_a)} of Selective Castle deals were {what} against "
            f"{_pct(pair.rate_b)} of Streets and Alleys deals: a paired difference of "
            f"{100 * pair.diff:+.2f} points (95% CI {100 * pair.diff_low:+.2f} to {100 * pair.diff_high:+.2f}; "
            f"McNemar exact p = {pair.p_value:.2g}), so for this player Selective Castle is <b>{verdict}</b>."
        )
    if not sentences:
        return "Selective Castle and Streets and Alleys were not played by a common player on common deals."
    return " ".join(sentences)


@dataclass
class Report:
    """What every section reads: the rows, the manifest, and what the sections before it worked out."""

    df: pd.DataFrame
    manifest: dict
    data: Path
    page: _Page
    present: set[str] = field(default_factory=set)
    players: list[str] = field(default_factory=list)
    rates: pd.DataFrame | None = None
    pairs: list[stats.Paired] = field(default_factory=list)


def section_completeness(r: Report) -> None:
    """An unfinished run says so before anything else: its numbers are of the deals played so far."""
    held = r.manifest.get("experiment", {})
    if not r.manifest or r.manifest.get("finished"):
        return
    first, end = held.get("deal_range", [0, 0])
    expected = (end - first) * len(held.get("games", {})) * len(held.get("players", {}))
    r.page.p(f"<b>Incomplete:</b> {len(r.df):,} of {expected:,} games of this experiment are played; the run has not "
             "finished (rerun it to resume). Every number below is of the games played so far.", cls="missing")


def section_summary(r: Report) -> None:
    """The answer first: Selective Castle against Streets and Alleys, deal by deal; the games missing."""
    r.rates = stats.win_rates(r.df)
    for player in r.players:
        for a, b in [MAIN_PAIR, (SELECTIVE, BELEAGUERED), (STREETS, BELEAGUERED), (INDEPENDENT, SELECTIVE)]:
            pair = stats.paired(r.df, (a, player), (b, player))
            if pair is not None:
                r.pairs.append(pair)
    for game in sorted(r.present):
        ps = [p for p in r.players if ((r.df.game == game) & (r.df.player == p)).any()]
        for i, pa in enumerate(ps):
            for pb in ps[i + 1:]:
                pair = stats.paired(r.df, (game, pa), (game, pb))
                if pair is not None:
                    r.pairs.append(pair)
    r.page.p(summary_text(r.rates, r.pairs, r.present), cls="summary")
    for game in sorted(set(STUDY) - r.present):
        r.page.p(f"{name(game)} is not in this dataset.", cls="missing")


def section_win_rates(r: Report) -> None:
    r.page.h2("Win rates")
    r.page.p("Share of deals won, with 95% Wilson intervals. For the solver, unknown verdicts are counted both ways and "
             "the outer bounds kept (the convention of Blake &amp; Gent); the rate shown is the midpoint.")
    r.page.table(r.rates, "win_rates", pct_cols=("rate", "ci_low", "ci_high", "half_width"))
    r.page.figure(plots.win_rates(r.rates), "win_rates", "Win rate by game and player, 95% intervals")


def section_paired(r: Report) -> None:
    r.page.h2("Paired comparisons, deal by deal")
    if not r.pairs:
        r.page.p("No two games or players share deals in this dataset.", cls="missing")
        return
    table = stats.paired_table(r.pairs)
    r.page.p("Each row compares two (game, player) pairs on the deals both played: the 2x2 table, McNemar's exact "
             "test and the difference in win rate with Newcombe's paired interval.")
    r.page.table(table, "paired", pct_cols=("rate_a", "rate_b", "diff", "diff_low", "diff_high"), float_cols=("p_value",))
    r.page.figure(plots.paired_differences(table), "paired", "Paired differences in win rate")


def section_containment(r: Report) -> None:
    """The rule sheet's containment laws, checked on every deal both games' solver settled."""
    checks = [c for weaker, stronger in CONTAINMENT if (c := stats.containment(r.df, weaker, stronger)) is not None]
    if not checks:
        return
    r.page.h2("Containment: a deal won in the stricter game is won in the looser one")
    for c in checks:
        broken = ", ".join(str(d) for d in c.violations[:20]) or "none"
        r.page.p(f"{name(c.weaker)} won &rArr; {name(c.stronger)} won: {c.checked:,} deals where both are settled "
                 f"and the first is won; deals that break it: <b>{broken}</b>.")
        r.page.table(c.table, f"containment-{c.weaker}-{c.stronger}")


def section_base_rank(r: Report) -> None:
    r.page.h2("Selective Castle: the base rank")
    bases = stats.base_rank_rates(r.df)
    if not len(bases):
        r.page.p("No game with a base choice was played.", cls="missing")
        return
    r.page.table(bases, "base_ranks", pct_cols=("rate", "ci_low", "ci_high", "half_width"))
    r.page.figure(plots.base_ranks(bases), "base_ranks", "Base rank chosen, and win rate by base rank")
    counts = stats.winning_bases(r.df)
    if len(counts):
        r.page.p("How many of the 13 base ranks win each deal (solver):")
        r.page.table(counts, "winning_bases")
        for player in r.players:
            if stats.is_solver(player):
                continue
            c = stats.choice_was_winning(r.df, SELECTIVE, player)
            if c["deals"]:
                r.page.p(f"The {html.escape(player)} player chose a winning base on {c['winning_choice']:,} of "
                         f"{c['deals']:,} winnable deals ({_pct(c['share'])}).")


def section_difficulty(r: Report) -> None:
    r.page.h2("Difficulty")
    r.page.table(stats.difficulty(r.df), "difficulty", float_cols=("cards_home_not_won_mean", "cards_home_not_won_median", "moves_to_win_median"))
    gap = stats.winnable_not_won(r.df)
    if len(gap):
        r.page.p("Deals the solver won that a player did not (the difficulty gap):")
        r.page.table(gap, "winnable_not_won", pct_cols=("share_not_won", "ci_low", "ci_high"))
    else:
        r.page.p("No solver results here: the gap between heuristic play and solvability needs the solver.", cls="missing")
    r.page.figure(plots.cards_home(r.df), "cards_home", "Cards home when a game was not won")
    conv = stats.convergence(r.df)
    conv.to_csv(r.page.out / "tables" / "convergence.csv", index=False)
    r.page.figure(plots.convergence(conv), "convergence", "Running win rate as deals accumulate")


def section_experiment(r: Report) -> None:
    r.page.h2("Experiment")
    text = html.escape(json.dumps(r.manifest, indent=2, default=str)) if r.manifest else "no manifest"
    r.page.parts.append(f"<pre>{text}</pre>")


#: the report's sections, in page order
SECTIONS = (section_completeness, section_summary, section_win_rates, section_paired, section_containment, section_base_rank,
            section_difficulty, section_experiment)


def title_of(manifest: dict, data: Path) -> str:
    """The experiment's name as the runner records it (``experiment.name``), else the folder's."""
    return str(manifest.get("experiment", {}).get("name") or manifest.get("name") or data.name)


def build_report(data: str | Path, out: str | Path) -> Path:
    """Write ``out/index.html`` (plus figures/ and tables/) for the dataset in ``data``; return its path.

    The report never goes into the dataset, nor the dataset into the report
    folder: the one would stop ``pandas.read_parquet`` reading the data, the
    other would be overwritten.
    """
    data, out = Path(data), Path(out)
    d, o = data.resolve(), out.resolve()
    if o == d or d in o.parents or o in d.parents:
        raise ResultsError(f"the report folder {out} and the dataset {data} must not contain each other: choose another --out")
    df = load_results(data)
    out.mkdir(parents=True, exist_ok=True)
    r = Report(df, load_manifest(data), data, _Page(out), set(df.game.unique()), sorted(df.player.unique()))
    for section in SECTIONS:
        section(r)
    title = "Castle report: " + html.escape(title_of(r.manifest, data))
    doc = (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title><style>{CSS}</style></head>"
           f"<body><h1>{title}</h1><p>{len(df):,} games from <code>{html.escape(str(data))}</code>; "
           f"games: {', '.join(name(g) for g in sorted(r.present))}; players: {', '.join(r.players)}.</p>"
           + "\n".join(r.page.parts) + "</body></html>")
    index = out / "index.html"
    index.write_text(doc)
    return index
