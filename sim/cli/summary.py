"""``castle summary``: per game, perfect play then each player, with counts, intervals, seeds and deals; or A − B paired.

The numbers are :mod:`analysis.summary`'s (the report's estimators); this
module only lays them out: a table fitted to the terminal (rich), CSV,
Markdown, or strict JSON lines.
"""

from __future__ import annotations

import csv
import enum
import io
import math
from pathlib import Path
from typing import Optional, Tuple

import typer

from .errors import UserError


class Format(str, enum.Enum):
    table = "table"
    csv = "csv"
    markdown = "markdown"
    json = "json"


def register(app: typer.Typer) -> None:
    app.command("summary")(summary)


def summary(
    data: Optional[Path] = typer.Argument(None, help="result dataset folder, or a folder of them such as data/published (default: data/default)",
                                          show_default=False),
    format: Format = typer.Option(Format.table, "--format", help="table (fitted to the terminal), csv, markdown, or json "
                                                                 "(one strict JSON object a line; shares as fractions)"),
    json_lines: bool = typer.Option(False, "--json", help="the same as --format json"),
    paired: Optional[Tuple[str, str]] = typer.Option(None, "--paired", metavar="A B", help="A − B deal by deal: two players "
                                               "(names or labels; 'perfect play' for the solver) in each game both played, "
                                               "or two games for each player of both and under perfect play", show_default=False),
) -> None:
    """Each game's winnability under perfect play (every solver run joined, in its design), then each player's share
    of deals won, strongest first: won, lost and unknown deals (unknowns counted both ways), the 95% interval, the
    seeds and deals, the CPU, and any run still unfinished. The judges (corridor, mistakes) are listed apart: they
    judge deals, they do not play them. ``--paired A B`` compares two players or two games on the same deals.
    """
    from analysis.load import ResultsError, count_cheap_rows, load_study, study_parts
    from analysis.scan import CheapRows, memory_limit

    from ..study.paths import DEFAULT_DATA

    fmt = Format.json if json_lines else format
    data = data or DEFAULT_DATA
    try:
        memory_limit()  # (before the rows are read: a bad setting is said at once)
        df, held = load_study(data, judged_only=True)  # (the heuristic players' rows are counted where they lie)
        cheap = CheapRows(study_parts(data))
        count_cheap_rows(df, cheap)  # (the games each run holds, as the report counts them: its progress said alike)
    except ResultsError as e:
        raise UserError(str(e)) from None
    try:
        if paired and all(paired):
            return _paired(df, cheap, paired, fmt)
        from analysis.summary import lines, unfinished_runs

        rows = lines(df, cheap, held)
        running = unfinished_runs(df, held)
    finally:
        cheap.close()
    if not rows:
        typer.echo(f"no estimates in {data}: none of its runs is a design (a settle run's verdicts only take the place of "
                   "other runs' unknowns: read it with them)")
        return
    _emit([r.as_dict() for r in rows], fmt, _table, running)


def _paired(df, cheap, names: list[str], fmt: Format) -> None:
    from analysis.summary_paired import PairError, paired

    a, b = names
    try:
        t = paired(df, cheap, a, b)
    except PairError as e:
        raise UserError(str(e)) from None
    if fmt in (Format.table, Format.markdown):
        from analysis.compare import PAIRING

        import textwrap

        from rich.console import Console

        said = (f"A = {a}, B = {b}: A − B in percentage points, {PAIRING}; unknowns counted both ways (Newcombe's "
                "interval at each side's bound, so no McNemar p under perfect play: —)")
        typer.echo(textwrap.fill(said, Console().width) + "\n")
    _emit(t.to_dict("records"), fmt, _pair_table, [])


def _emit(records: list[dict], fmt: Format, table, running: list[str]) -> None:
    from sim.core.jsontext import dumps

    if fmt is Format.json:
        for r in records:
            typer.echo(dumps(r))
    elif fmt is Format.csv:
        out = io.StringIO()
        w = csv.DictWriter(out, fieldnames=list(records[0]) if records else [], lineterminator="\n")
        w.writeheader()
        w.writerows({k: ("" if isinstance(v, float) and not math.isfinite(v) else "" if v is None else v)
                     for k, v in r.items()} for r in records)
        typer.echo(out.getvalue(), nl=False)
    else:
        header, rows = table(records, fmt is Format.table)
        if fmt is Format.markdown:
            typer.echo("| " + " | ".join(header) + " |")
            typer.echo("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
            for r in rows:
                if r is not None:
                    typer.echo("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
        else:
            from rich.console import Console
            from rich.table import Table

            t = Table(*header, box=None, pad_edge=False, header_style="bold")
            for i, col in enumerate(t.columns):
                col.justify = "left" if i == 0 else "right"
                col.overflow = "fold"
                col.no_wrap = i > 0
            t.columns[0].min_width = 20 if table is _table else 12
            for r in rows:
                if r is None:
                    t.add_section()
                else:
                    t.add_row(*r)
            Console(highlight=False, soft_wrap=False).print(t)
    if running and fmt in (Format.table, Format.markdown):
        import textwrap

        from rich.console import Console

        said = "still running (every figure above is of the games played so far): " + "; ".join(running)
        typer.echo("\n" + (textwrap.fill(said, Console().width, break_on_hyphens=False) if fmt is Format.table else said))


def _pct(x, unit: str = "%") -> str:
    return "" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{100 * x:.2f}{unit}"


def _n(x) -> str:
    return "" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{int(x):,}"


def _table(records: list[dict], styled: bool) -> tuple[list[str], list]:
    """The summary's header and rows (None: a line between games), each game's name on a line of its own above
    them, and under each player its design, seeds and deals; ``styled``: rich's markup (the data escaped), else
    Markdown's."""
    import textwrap

    from rich.markup import escape

    def mark(text: str, style: str) -> str:
        if styled:
            return f"[{style}]{escape(text)}[/{style}]"
        return f"**{text}**" if style == "bold" else f"({text})" if style == "dim" else text

    from rich.console import Console

    header = ["game / player", "won", "lost", "unknown", "% (95% interval)", "CPU-h"]
    numbers = [[_n(r["won"]), _n(r["lost"]), _n(r["unknown"]), "" if r["estimate"] is None else
                f"{_pct(r['estimate'], '')} ({_pct(r['lo'], '')}–{_pct(r['hi'], '')})", f"{r['cpu_hours']:.2f}"] for r in records]
    widths = [max([len(h)] + [len(x[i]) for x in numbers]) for i, h in enumerate(header[1:])]
    room = Console().width - sum(widths) - 2 * len(widths) - 4  # (what the numbers leave the details under a player)
    rows: list = []
    game = None
    for r, nums in zip(records, numbers):
        if r["game"] != game:
            if game is not None:
                rows.append(None)
            game = r["game"]
            rows.append([mark(game, "bold"), "", "", "", "", ""])
        who = r["player"] if r["role"] != "judge" else f"{r['player']}: a judge, not a player"
        detail = r["design"].split(", ") + ([f"{r['not_followed']:,} unsettled not followed"] if r["not_followed"] else []) + \
            [f"seed {r['seeds']}" if "," not in r["seeds"] else f"seeds {r['seeds']}", r["deal_span"]]
        said = " · ".join(detail) if not styled else _packed(detail, room)
        shown = "  " + (escape(who) if styled else who) + ("\n    " if styled else " ") + mark(said, "dim")
        if r["running"]:
            going = f"running: {r['running']}"
            shown += ("\n    " + mark("\n    ".join(textwrap.wrap(going, max(room, 16), break_on_hyphens=False)), "yellow") if styled
                      else " " + mark(going, "yellow"))
        rows.append([shown, *nums])
    return header, rows


def _packed(items: list[str], room: int) -> str:
    """``items`` joined by " · ", a new indented line wherever the next would pass ``room`` characters."""
    out = [items[0]]
    for item in items[1:]:
        if len(out[-1]) + 3 + len(item) <= room:
            out[-1] += " · " + item
        else:
            out.append(item)
    return "\n    ".join(out)


def _pair_table(records: list[dict], styled: bool) -> tuple[list[str], list]:
    """A − B: one row per game (two players) or per player (two games), in percentage points."""
    from analysis.stats import p_text
    from rich.markup import escape

    plain = escape if styled else str
    by_game = bool(records) and bool(records[0]["game"])
    header = ["game" if by_game else "player", "deals", "A − B", "95% interval", "p (McNemar)"]
    rows = [[plain(r["game"] if by_game else r["player"]), _n(r["deals"]), f"{100 * r['diff']:+.2f} pts",
             f"{100 * r['lo']:+.2f} to {100 * r['hi']:+.2f}",
             p_text(r["p"]) if r["p"] == r["p"] else "—"] for r in records]
    return header, rows
