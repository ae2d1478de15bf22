"""What a run to a half-width is asked, checked whole before anything is played; and the folder it writes: one of its
own, which a rerun resumes only as its design planned.

Why here and up front: a pilot costs CPU-hours, so a request that cannot be carried out (a half-width so fine no
number of deals reaches it, a pilot that never ends, deals past the last deal number) must be refused before it, not
after. And a design is a fixed number of deals at fixed rates (the package's docstring says why fixed): a rerun asking
another half-width, pilot, settle player or other games would silently be held to the old plan, or play a game's
pilot that no plan would ever use, so it is refused, saying how to resume and how to plan anew.
"""

from __future__ import annotations

from pathlib import Path

from ..core.deals import MAX_DEAL
from ..study.dataset import LOCK, MANIFEST, check_path, read_manifest
from ..study.errors import ArgumentError, ExperimentError
from ..study.experiment import Experiment
from ..study.halfwidth import check_values, settle_choice
from .design import DESIGN, most_deals, read_design

#: what a run to a half-width writes in its folder (the datasets of the pilot, main runs and unknowns solved again)
ITS_OWN = ("pilot", "settled", DESIGN, f".{DESIGN}.tmp", LOCK)


def check_request(exp: Experiment, out: Path, halfwidth, cpu_hours, pilot, settle, settle_given: bool = True) -> None:
    """Refuse (:class:`ArgumentError`) what a run of ``exp`` to ``halfwidth`` points cannot do in ``out``; nothing is
    written. ``settle_given``: the settle player was asked for, not a default (a rerun not asking keeps its design's)."""
    check_values(halfwidth, cpu_hours, pilot, settle)
    wrong = [c.label for c in exp.players if c.name != "phased"]
    if wrong:
        raise ArgumentError("{halfwidth} plans the solver in phases (player phased); {wrong} cannot settle a deal in a design "
                            "(play it without {halfwidth})", wrong=", ".join(wrong))
    if exp.first + pilot + most_deals(halfwidth) > MAX_DEAL:  # the pilot's deals, then the main run's, are deal numbers
        raise ArgumentError("the pilot's {n:,} deals from deal {first} and the up to {most:,} a plan to ±{asked} points may "
                            "play after them run past the last deal number (2**63-1): start {deal_range} lower", n=pilot,
                            first=exp.first, most=most_deals(halfwidth), asked=f"{halfwidth:g}")
    again = settle_choice(settle)
    check_folder(exp, Path(out), halfwidth, pilot, again.label if again is not None else "", settle_given)


def check_folder(exp: Experiment, out: Path, halfwidth: float, pilot: int, settle: str, settle_given: bool = True) -> None:
    """``out`` is new, empty, or a run to a half-width's own folder, and what it holds was planned as now asked."""
    try:
        check_path(out)
    except ValueError as e:
        raise ExperimentError(str(e)) from None
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"output {out} exists and is not a directory")
    if not out.is_dir():
        return
    if (out / MANIFEST).exists():
        raise ArgumentError("{path} holds a dataset (its {manifest}): a run to a half-width writes a folder of its own "
                            "(pilot/, main-GAME/, its design); choose another {out}", path=out, manifest=MANIFEST)
    other = sorted(p.name for p in out.iterdir() if p.name not in ITS_OWN and not p.name.startswith("main-"))
    if other:
        raise ArgumentError("output {path} is not empty and holds no run to a half-width ({name} is not one's); choose "
                            "another {out}", path=out, name=other[0])
    designs = read_design(out)
    if designs is None:
        _check_pilot(exp, out, pilot)
        return
    games = [g.full_slug for g in exp.games]
    planned = list(dict.fromkeys(d.game for d in designs))
    added = [g for g in games if g not in planned]
    if added or len(games) != len(planned):
        raise ArgumentError("{path}'s design plans {planned}; {asked}: games are added to a run to a half-width only before "
                            "its design is made: resume it with the games it plans, or choose another {out} for a new plan",
                            path=out, planned=", ".join(planned),
                            asked=f"{', '.join(added)} {'is' if len(added) == 1 else 'are'} not in it" if added
                            else f"this run asks only {', '.join(games)}")
    held = sorted({d.halfwidth for d in designs})
    if held != [halfwidth]:
        raise ArgumentError("{path} was planned for ±{planned} points (its {design}), not ±{asked}: ask {halfwidth} "
                            "{planned} to resume it, or choose another {out} for a new plan", path=out, design=DESIGN,
                            planned=f"{held[0]:g}", asked=f"{halfwidth:g}")
    starts = sorted({d.first for d in designs})
    if starts != [exp.first + pilot]:
        raise ArgumentError("{path} was planned after a pilot ending at deal {end} (its {design}), not {asked}: ask the "
                            "same {pilot} and deal range to resume it, or choose another {out} for a new plan", path=out,
                            design=DESIGN, end=starts[0] - 1, asked=exp.first + pilot - 1)
    kept = sorted({d.settle for d in designs})
    if settle_given and kept != [settle]:
        raise ArgumentError("{path} was planned to solve its unknowns again with {planned} (its {design}), not {asked}: "
                            "give no {settle} (or that one) to resume it, or choose another {out} for a new plan", path=out,
                            design=DESIGN, planned=kept[0] or "none", asked=settle or "none")


def _check_pilot(exp: Experiment, out: Path, pilot: int) -> None:
    """A pilot begun but not yet planned from: resumed only with its deals (a longer or shorter one would lap over the
    main run's first deals, or leave a gap)."""
    manifest = read_manifest(out / "pilot") if (out / "pilot").is_dir() else None
    if manifest is None:
        return
    held = manifest["experiment"].get("deal_range")
    if held and held != [exp.first, exp.first + pilot]:
        raise ArgumentError("{path}'s pilot plays deals {first} to {last}, not {asked}: ask {pilot} {n} and the deal range "
                            "from {first} to resume it, or choose another {out}", path=out, first=held[0], last=held[1] - 1,
                            asked=f"{exp.first} to {exp.first + pilot - 1}", n=held[1] - held[0])
