"""``castle report``: one self-contained HTML page, figures as PNG, tables as CSV, replays of telling deals.

The page is a list of sections (:data:`SECTIONS`, in :mod:`.sections`): each
computes its numbers, tables and figures from the dataset and names the
Jinja2 template (``templates/``, autoescaped) that lays them out. The answer
comes first and fills the first screen; the players' legend and what was run
close the page. Adding a section: a function returning a :class:`Section`,
named in the list, and its template.

A dataset is a runner's output folder, or a folder of them (the shipped
study, ``data/published``): every part below it is read, with each
experiment's manifest. When the dataset has no solver rows for a game, the
answer takes that game's perfect play from the shipped study
(``reference``), and says so.

The report is written into a temporary folder beside ``out`` and swapped in
whole at the end, so an interrupted build leaves the previous report as it
was.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import jinja2
from markupsafe import Markup

from .. import designs, stats
from ..games import in_study_order
from ..load import ResultsError, load_results, load_study
from . import page
from .model import Report, Section
from .page import Artifacts, slug
from .sections import SECTIONS

__all__ = ["build_report", "SECTIONS", "Report", "Section", "default_reference"]

#: the shipped study, read for reference when a dataset has no solver rows of its own
PUBLISHED = Path("data") / "published"
TEMPLATES = Path(__file__).parent / "templates"


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
        write_replay(game, deal, player, seed, path, back="../index.html")

    return replay


def environment() -> jinja2.Environment:
    """The templates, autoescaped, with the report's number formats as filters (``{{ x|pct }}``)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(pct=page.pct, points=page.points, interval=page.interval)
    return env


def shown_path(path: Path) -> str:
    """A path as the page shows it: relative to the current folder when below it, else its last two parts
    (never the reader's absolute path: the page is shared)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(Path(*path.resolve().parts[-2:]))


def build_report(data: str | Path, out: str | Path, reference: str | Path | None = "default", replays: bool = True) -> Path:
    """Write ``out/index.html`` (plus figures/, tables/, replays/) for the dataset in ``data``; return its path.

    ``reference`` is the shipped study to take perfect play from where the
    dataset has none ("default": :func:`default_reference`; None: none).
    The report never goes into the dataset, nor the dataset into the report
    folder: the one would stop the data being read, the other would be
    overwritten. A folder at ``out`` that is not a report is never replaced.
    """
    data, out = Path(data), Path(out)
    d, o = data.resolve(), out.resolve()
    if o == d or d in o.parents or o in d.parents:
        raise ResultsError(f"the report folder {out} and the dataset {data} must not contain each other: choose another --out")
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "index.html").exists())):
        raise ResultsError(f"{out} exists and is not a castle report: choose another --out")
    df, held = load_study(data)
    ref_path = default_reference() if reference == "default" else (Path(reference) if reference else None)
    ref = None
    if ref_path is not None and ref_path.resolve() != d and d not in ref_path.resolve().parents:
        rows = load_results(ref_path)
        ref = rows[designs.exact_mask(rows.player)]
    work = out.parent / f".{out.name}.building-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    try:
        index = _write(df, held, data, work, ref, shown_path(ref_path) if ref is not None else "", replays)
        _swap(work, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out / index.name


def _write(df, held, data: Path, work: Path, ref, ref_name: str, replays: bool) -> Path:
    """Compute every section and write the page into ``work``."""
    work.mkdir(parents=True)
    games = in_study_order(df.game.unique())
    seed = int(df.seed.iloc[0]) if len(df) else 0
    r = Report(df, held, data, Artifacts(work), ref, ref_name, _replayer(seed) if replays else None, games,
               stats.players_by_strength(df))
    env = environment()
    sections = []
    for make in sections_in_order():
        s = make(r)
        if s is None:
            continue
        s.anchor = s.anchor or slug(s.title)
        while any(t.anchor == s.anchor for t in sections):
            s.anchor += "-x"
        template = env.from_string(s.source) if s.source else env.get_template(s.template)
        s.html = Markup(template.render(**s.context))
        sections.append(s)
    names = [str(m.get("experiment", {}).get("name") or label) for label, m in held.items()] or [data.name]
    title = "Castle report: " + (names[0] if len(names) == 1 else data.name)
    subtitle = (f"{len(df):,} games" + (f" of {len(names)} experiments" if len(names) > 1 else "") + f" in {shown_path(data)}"
                + (f"; perfect play for the games it did not solve from {ref_name}" if ref_name else ""))
    index = work / "index.html"
    index.write_text(env.get_template("page.html.j2").render(title=title, subtitle=subtitle, sections=sections), encoding="utf-8")
    return index


def _swap(work: Path, out: Path) -> None:
    """Put the finished report ``work`` in the place of ``out`` (the old one removed only once the new one is there)."""
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        out.rename(old)
    work.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def sections_in_order():
    """The sections the page is made of (this module's ``SECTIONS``, so a test may add one)."""
    import sys

    return sys.modules[__name__].SECTIONS
