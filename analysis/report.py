"""``castle report``: one self-contained HTML page, figures as PNG, tables as CSV.

The page works with any subset of games and players: a section whose data
is missing says so instead of failing.
"""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from . import plots, stats
from .load import load_manifest, load_results

MAIN_PAIR = ("selective-castle", "streets-and-alleys")
GAME_NAMES = {"selective-castle": "Selective Castle", "streets-and-alleys": "Streets and Alleys",
              "beleaguered-castle": "Beleaguered Castle", "selective-castle-independent": "Selective Castle (independent bases)"}

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#222;line-height:1.5}
h1{font-size:1.7em;margin-bottom:.2em} h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.88em;margin:1em 0} th,td{padding:.25em .7em;border-bottom:1px solid #eee;text-align:right}
th{background:#f6f6f6} td:first-child,th:first-child,td:nth-child(2){text-align:left}
.summary{background:#f4f8f4;border-left:4px solid #1b7837;padding:.8em 1em} .missing{color:#a33}
img{max-width:100%} pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:.8em}
"""


def _name(game: str) -> str:
    return GAME_NAMES.get(game, game)


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
        return (f"This dataset has no {' and no '.join(_name(g) for g in missing)}, so the main comparison "
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


def build_report(data: str | Path, out: str | Path) -> Path:
    """Write ``out/index.html`` (plus figures/ and tables/) for the dataset in ``data``; return its path."""
    data, out = Path(data), Path(out)
    df = load_results(data)
    manifest = load_manifest(data)
    out.mkdir(parents=True, exist_ok=True)
    page = _Page(out)
    present = set(df.game.unique())
    players = sorted(df.player.unique())

    rates = stats.win_rates(df)
    pairs: list[stats.Paired] = []
    for player in players:
        for a, b in [MAIN_PAIR, ("selective-castle", "beleaguered-castle"), ("streets-and-alleys", "beleaguered-castle"),
                     ("selective-castle-independent", "selective-castle")]:
            pair = stats.paired(df, (a, player), (b, player))
            if pair is not None:
                pairs.append(pair)
    for game in sorted(present):
        ps = [p for p in players if ((df.game == game) & (df.player == p)).any()]
        for i, pa in enumerate(ps):
            for pb in ps[i + 1:]:
                pair = stats.paired(df, (game, pa), (game, pb))
                if pair is not None:
                    pairs.append(pair)

    page.p(summary_text(rates, pairs, present), cls="summary")
    expected = set(GAME_NAMES) - {"selective-castle-independent"}
    for game in sorted(expected - present):
        page.p(f"{_name(game)} is not in this dataset.", cls="missing")

    page.h2("Win rates")
    page.p("Share of deals won, with 95% Wilson intervals. For the solver, unknown verdicts are counted both ways and "
           "the outer bounds kept (the convention of Blake &amp; Gent); the rate shown is the midpoint.")
    page.table(rates, "win_rates", pct_cols=("rate", "ci_low", "ci_high", "half_width"))
    page.figure(plots.win_rates(rates), "win_rates", "Win rate by game and player, 95% intervals")

    page.h2("Paired comparisons, deal by deal")
    if pairs:
        table = stats.paired_table(pairs)
        page.p("Each row compares two (game, player) pairs on the deals both played: the 2x2 table, McNemar's exact "
               "test and the difference in win rate with Newcombe's paired interval.")
        page.table(table, "paired", pct_cols=("rate_a", "rate_b", "diff", "diff_low", "diff_high"), float_cols=("p_value",))
        page.figure(plots.paired_differences(table), "paired", "Paired differences in win rate")
    else:
        page.p("No two games or players share deals in this dataset.", cls="missing")

    page.h2("Selective Castle: the base rank")
    bases = stats.base_rank_rates(df)
    if len(bases):
        page.table(bases, "base_ranks", pct_cols=("rate", "ci_low", "ci_high", "half_width"))
        page.figure(plots.base_ranks(bases), "base_ranks", "Base rank chosen, and win rate by base rank")
        counts = stats.winning_bases(df)
        if len(counts):
            page.p("How many of the 13 base ranks win each deal (solver):")
            page.table(counts, "winning_bases")
            for player in players:
                if stats.is_solver(player):
                    continue
                c = stats.choice_was_winning(df, "selective-castle", player)
                if c["deals"]:
                    page.p(f"The {html.escape(player)} player chose a winning base on {c['winning_choice']:,} of "
                           f"{c['deals']:,} winnable deals ({_pct(c['share'])}).")
    else:
        page.p("No game with a base choice was played.", cls="missing")

    page.h2("Difficulty")
    page.table(stats.difficulty(df), "difficulty", float_cols=("cards_home_not_won_mean", "cards_home_not_won_median", "moves_to_win_median"))
    gap = stats.winnable_not_won(df)
    if len(gap):
        page.p("Deals the solver won that a player did not (the difficulty gap):")
        page.table(gap, "winnable_not_won", pct_cols=("share_not_won", "ci_low", "ci_high"))
    else:
        page.p("No solver results here: the gap between heuristic play and solvability needs the solver.", cls="missing")
    page.figure(plots.cards_home(df), "cards_home", "Cards home when a game was not won")
    conv = stats.convergence(df)
    conv.to_csv(out / "tables" / "convergence.csv", index=False)
    page.figure(plots.convergence(conv), "convergence", "Running win rate as deals accumulate")

    page.h2("Experiment")
    page.parts.append(f"<pre>{html.escape(json.dumps(manifest, indent=2, default=str)) if manifest else 'no manifest.json'}</pre>")

    title = "Castle report: " + html.escape(str(manifest.get("name", data.name)))
    doc = (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title><style>{CSS}</style></head>"
           f"<body><h1>{title}</h1><p>{len(df):,} games from <code>{html.escape(str(data))}</code>; "
           f"games: {', '.join(_name(g) for g in sorted(present))}; players: {', '.join(players)}.</p>"
           + "\n".join(page.parts) + "</body></html>")
    index = out / "index.html"
    index.write_text(doc)
    return index
