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
was; a folder castle did not write is never replaced (:mod:`.folder`: the
marker castle leaves in every report, and the check against it).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Callable

import jinja2
from markupsafe import Markup

from .. import designs, scan, stats
from ..games import in_study_order
from ..load import ResultsError, count_cheap_rows, load_results, load_study, study_parts
from . import folder as report_folder
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


#: what writes a telling deal's replay page: ``(game, deal, player, seed, path, back)``, as ``sim.replay.write_replay``
#: does; the report is handed one (``castle report`` hands it that) and never imports the engine to play
Replayer = Callable[..., None]


def _replayer(seed: int, write: Replayer):
    def replay(game: str, deal: int, player: str, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(game, deal, player, seed, path, back="../index.html")

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


def build_report(data: str | Path, out: str | Path, reference: str | Path | None = "default",
                 replays: Replayer | None = None) -> Path:
    """Write ``out/index.html`` (plus figures/, tables/, replays/) for the dataset in ``data``; return its path.

    ``replays``: what writes the replay pages of telling deals (:data:`Replayer`; None: the page has none).

    ``reference`` is the shipped study to take perfect play from where the
    dataset has none ("default": :func:`default_reference`, if there is one;
    None: none). A reference given by name must give it: one that holds no
    exact rows of the games the dataset did not solve (not a castle dataset,
    or the dataset itself) is refused rather than leaving perfect play out
    without a word. The report never goes into the dataset, nor the dataset
    into the report folder: the one would stop the data being read, the
    other would be overwritten. A folder at ``out`` is replaced only if it
    is empty or castle's own report, unchanged (:func:`.folder.check_replaceable`);
    a link at ``out`` is followed. Everything is read and checked before
    anything is written; the page is written into a temporary folder beside
    ``out`` and swapped in whole, so an interrupted build (Ctrl-C; SIGTERM
    where the caller makes it one, as ``castle report`` does) leaves the
    previous report as it was and no temporary behind.
    """
    data, shown = Path(data), Path(out)
    out = report_folder.place(shown)
    d, o = data.resolve(), out.resolve()
    if o == d or d in o.parents or o in d.parents:
        raise ResultsError(f"the report folder {shown} and the dataset {data} must not contain each other: choose another --out")
    report_folder.check_replaceable(out, shown)
    df, held = load_study(data, judged_only=True)
    ref_path = default_reference() if reference == "default" else (Path(reference) if reference else None)
    ref = None
    if ref_path is not None and ref_path.resolve() != d and d not in ref_path.resolve().parents:
        try:
            rows = load_results(ref_path, judged_only=True)
        except ResultsError as e:
            raise ResultsError(f"the reference {ref_path}: {e}") from None
        ref = rows[designs.exact_mask(rows.player)]
    cheap = scan.CheapRows(study_parts(data))
    if reference not in ("default", None):
        _check_reference(df, cheap, ref, Path(reference))
    work = out.parent / f".{out.name}.building-{os.getpid()}"
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    made = [p for p in (out.parent, *out.parent.parents) if not p.exists()]  # folders this build creates
    report_folder.remove_stale(out)
    finished = False
    try:
        index = _write(df, cheap, held, data, work, ref, shown_path(ref_path) if ref is not None else "", replays)
        report_folder.mark(work)
        report_folder.swap(work, out, old, shown)
        finished = True
    finally:
        cheap.close()
        with report_folder.signals_held():  # a second Ctrl-C must not stop the clearing up half way
            report_folder.remove(work)
            report_folder.remove(old)
            if not finished:
                for folder in made:  # deepest first: only the empty ones this build made
                    with contextlib.suppress(OSError):
                        folder.rmdir()
    return shown / index.name


def _check_reference(df, cheap, ref, reference: Path) -> None:
    """A reference named by the caller must give perfect play for the games the dataset did not solve itself."""
    solved = set(df.game[designs.exact_mask(df.player)].unique()) if len(df) else set()
    needed = [g for g in in_study_order(set(df.game.unique()) | set(cheap.pairs().game)) if g not in solved]
    if not needed:
        return
    have = set(ref.game.unique()) if ref is not None and len(ref) else set()
    if not have & set(needed):
        what = "it is the dataset itself" if ref is None else "no exact solver rows"
        raise ResultsError(f"the reference {reference} holds no perfect play of {', '.join(needed)} ({what}); "
                           "give a dataset with solver rows of them (the shipped study: data/published), or no --reference")


def _write(df, cheap, held, data: Path, work: Path, ref, ref_name: str, replays: Replayer | None) -> Path:
    """Compute every section and write the page into ``work``."""
    work.mkdir(parents=True)
    pairs = cheap.pairs()
    games = in_study_order(set(df.game.unique()) | set(pairs.game))
    count_cheap_rows(df, cheap)
    # the replays' seed: the seeded deals' (PySol's numbering, seed -1, is a catalogue beside them)
    seeds = sorted(set(df.seed.unique()) | set(cheap.seeds()))
    seeded = [x for x in seeds if x >= 0]
    seed = int(seeded[0]) if seeded else int(seeds[0]) if seeds else 0
    r = Report(df, held, data, Artifacts(work), ref, ref_name, _replayer(seed, replays) if replays is not None else None, games,
               stats.players_by_strength(pairs), cheap)
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
    subtitle = (f"{len(df) + len(cheap):,} games" + (f" of {len(names)} experiments" if len(names) > 1 else "") + f" in {shown_path(data)}"
                + (f"; perfect play for the games it did not solve from {ref_name}" if ref_name else ""))
    index = work / "index.html"
    index.write_text(env.get_template("page.html.j2").render(title=title, subtitle=subtitle, sections=sections), encoding="utf-8")
    return index


def sections_in_order():
    """The sections the page is made of (this module's ``SECTIONS``, so a test may add one)."""
    import sys

    return sys.modules[__name__].SECTIONS
