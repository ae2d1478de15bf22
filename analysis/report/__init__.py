"""``castle report``: one self-contained HTML page, figures as PNG, tables as CSV, replays of telling deals.

The page is a list of sections (:data:`SECTIONS`, in :mod:`.sections`),
each a function of the dataset that adds its headings, tables and figures.
Adding a section: a function in :mod:`.sections`, named in the list.

A dataset is a runner's output folder, or a folder of them (the shipped
study, ``data/published``): every part below it is read, with each
experiment's manifest. When the dataset has no solver rows for a game, the
answer at the top takes that game's perfect play from the shipped study
(``reference``), and says so.
"""

from __future__ import annotations

import html
from pathlib import Path

from .. import stats
from ..games import in_study_order
from ..load import ResultsError, load_results, load_study
from . import sections
from .page import Page
from .sections import SECTIONS, Report

__all__ = ["build_report", "SECTIONS", "Report", "default_reference"]

#: the shipped study, read for reference when a dataset has no solver rows of its own
PUBLISHED = Path("data") / "published"


def default_reference() -> Path | None:
    """The shipped study: ``data/published`` here, else the copy in the checkout the package runs from, if any."""
    for candidate in (PUBLISHED, Path(__file__).resolve().parents[2] / PUBLISHED):
        if candidate.is_dir() and any(candidate.rglob("*.parquet")):
            return candidate
    return None


def _replayer(seed: int):
    def replay(game: str, deal: int, player: str, path: Path) -> None:
        from sim.render.replay import write_replay

        path.parent.mkdir(parents=True, exist_ok=True)
        write_replay(game, deal, player, seed, path)

    return replay


def build_report(data: str | Path, out: str | Path, reference: str | Path | None = "default", replays: bool = True) -> Path:
    """Write ``out/index.html`` (plus figures/, tables/, replays/) for the dataset in ``data``; return its path.

    ``reference`` is the shipped study to take perfect play from where the
    dataset has none ("default": :func:`default_reference`; None: none).
    The report never goes into the dataset, nor the dataset into the report
    folder: the one would stop ``pandas.read_parquet`` reading the data, the
    other would be overwritten.
    """
    data, out = Path(data), Path(out)
    d, o = data.resolve(), out.resolve()
    if o == d or d in o.parents or o in d.parents:
        raise ResultsError(f"the report folder {out} and the dataset {data} must not contain each other: choose another --out")
    df, held = load_study(data)
    ref_path = default_reference() if reference == "default" else (Path(reference) if reference else None)
    ref = None
    if ref_path is not None and ref_path.resolve() != d and d not in ref_path.resolve().parents:
        rows = load_results(ref_path)
        ref = rows[stats.solver_mask(rows.player)]
    out.mkdir(parents=True, exist_ok=True)
    for folder in ("figures", "tables", "replays"):  # a report made again holds nothing stale
        for f in (out / folder).glob("*") if (out / folder).is_dir() else ():
            if f.suffix in (".png", ".csv", ".html"):
                f.unlink()
    games = in_study_order(df.game.unique())
    seed = int(df.seed.iloc[0]) if len(df) else 0
    r = Report(df, held, data, Page(out), ref, str(ref_path) if ref is not None else "", _replayer(seed) if replays else None,
               games, stats.players_by_strength(df))
    for section in sections_in_order():
        section(r)
    names = [str(m.get("experiment", {}).get("name") or label) for label, m in held.items()] or [data.name]
    title = "Castle report: " + (names[0] if len(names) == 1 else f"{data.name} ({len(names)} experiments: {', '.join(names)})")
    intro = (f"<p>{len(df):,} games from <code>{html.escape(str(data))}</code>: "
             f"{', '.join(html.escape(sections.name(g)) for g in games)}; players, weakest first: "
             f"{', '.join(html.escape(p) for p in r.players) or 'none'}{'; and the solver' if stats.solver_mask(df.player).any() else ''}.</p>"
             f"<p class=note>{html.escape(sections.__doc__.split('Conventions, said once on the page:')[1].strip().replace(chr(10), ' '))}</p>")
    index = out / "index.html"
    index.write_text(r.page.html(title, intro), encoding="utf-8")
    return index


def sections_in_order():
    """The sections the page is made of (this module's ``SECTIONS``, so a test may add one)."""
    import sys

    return sys.modules[__name__].SECTIONS
