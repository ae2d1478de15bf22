"""What a run to a half-width asks beside its experiment (``halfwidth``, ``cpu_hours``, ``pilot``, ``settle``), from an
experiment file's fields and a front end's flags, checked where the experiment is built.

Why here: a file and the flags ask for the same run, so they get the same rules and the same one-line messages (a
command line only names the fields its own way, :meth:`~.errors.ArgumentError.worded`). What needs the design (the
deals a plan may play, the folder a rerun resumes) is checked above, by :mod:`sim.precision.folder`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import ArgumentError
from .experiment import Experiment, build

#: the experiment file's fields that ask for a precision instead of a deal range (they are not part of its identity)
PRECISION_KEYS = ("halfwidth", "cpu_hours", "pilot", "settle")
#: the pilot's deals when none is asked; and the fewest and most a pilot may play (it plays every unsettled deal to
#: the full budget: a million is days of CPU)
PILOT_DEALS, MIN_PILOT, MAX_PILOT = 1000, 100, 1_000_000
#: points: ±0.01 already needs about a hundred million deals (a quarter divided by (0.0001 / 1.96) squared) at rates 1
MIN_HALFWIDTH, MAX_HALFWIDTH = 0.01, 50.0


@dataclass(frozen=True)
class Precision:
    """A run to ±``halfwidth`` points: its CPU cap, its pilot's deals, the player that solves unknowns again."""

    halfwidth: float
    cpu_hours: float | None = None
    pilot: int = PILOT_DEALS
    settle: Any = "settle"
    settle_given: bool = False  #: the settle player was asked for, not a default (a rerun not asking keeps its design's)

    @property
    def args(self) -> tuple:
        """As :func:`sim.precision.run_to_halfwidth` and :func:`sim.precision.folder.check_request` take them."""
        return self.halfwidth, self.cpu_hours, self.pilot, self.settle, self.settle_given


def build_run(data: dict[str, Any] | None = None, *, halfwidth=None, cpu_hours=None, pilot=None, settle=None,
              plan: bool = False, players: list[str] | None = None, from_file: bool = False,
              **flags) -> tuple[Experiment, Precision | None]:
    """The experiment of table ``data`` with the flags over it (:func:`~.experiment.build`), and the precision it
    asks for (None: its deals, as they are). The flags' players default to ``phased`` for a precision and to
    ``settle`` for ``unknowns_of``: the one player each is made for."""
    data = dict(data or {})
    fields = {k: data.pop(k) for k in PRECISION_KEYS if k in data}
    want = asked(fields, halfwidth=halfwidth, cpu_hours=cpu_hours, pilot=pilot, settle=settle, plan=plan,
                 unknowns="unknowns_of" in data)
    if not players and not from_file and "players" not in data:
        players = ["phased"] if want is not None else ["settle"] if "unknowns_of" in data else None
    return build(data, players=players, from_file=from_file, **flags), want


def asked(fields: dict[str, Any], *, halfwidth=None, cpu_hours=None, pilot=None, settle=None, plan: bool = False,
          unknowns: bool = False) -> Precision | None:
    """The precision the flags ask, else the file's ``fields``, else the defaults; checked whole."""
    h = halfwidth if halfwidth is not None else fields.get("halfwidth")
    if h is None:
        if cpu_hours is not None or pilot is not None or settle is not None or fields:
            raise ArgumentError("{cpu_hours}, {pilot} and {settle} (cpu_hours, pilot, settle) go with {halfwidth} (halfwidth)")
        if plan:
            raise ArgumentError("{plan} goes with {halfwidth} (halfwidth): it says what a run to a half-width will do and cost")
        return None
    if unknowns:
        raise ArgumentError("{unknowns_of} plays the deals a run left unknown, not a design: it does not go with "
                            "{halfwidth} (halfwidth)")
    want = Precision(h, cpu_hours if cpu_hours is not None else fields.get("cpu_hours"),
                     pilot if pilot is not None else fields.get("pilot", PILOT_DEALS),
                     settle if settle is not None else fields.get("settle", "settle"),
                     settle is not None or "settle" in fields)
    check_values(*want.args[:4])
    return want


def check_values(halfwidth, cpu_hours, pilot, settle) -> None:
    """Each value in its range (:class:`ArgumentError`): a half-width some number of deals reaches, a CPU cap above
    0, a pilot that ends, a settle player that is one."""
    check_halfwidth(halfwidth)
    if cpu_hours is not None and not (_number(cpu_hours) and cpu_hours > 0):
        raise ArgumentError("{cpu_hours} must be above 0, got {got}", got=_shown(cpu_hours))
    if not isinstance(pilot, int) or isinstance(pilot, bool) or not MIN_PILOT <= pilot <= MAX_PILOT:
        low = isinstance(pilot, int) and not isinstance(pilot, bool) and pilot < MIN_PILOT
        raise ArgumentError("{pilot} must be at least {least} deals, got {got}" if low else
                            "{pilot} must be {least} to {most:,} deals, got {got}", least=MIN_PILOT, most=MAX_PILOT, got=_shown(pilot))
    settle_choice(settle)


def check_halfwidth(halfwidth) -> None:
    if not _number(halfwidth) or not MIN_HALFWIDTH <= halfwidth <= MAX_HALFWIDTH:
        raise ArgumentError("{halfwidth} must be from {least} to {most} points (a finer one needs more deals than a "
                            "machine plays), got {got}", least=f"{MIN_HALFWIDTH:g}", most=f"{MAX_HALFWIDTH:g}", got=_shown(halfwidth))


def settle_choice(text: str | bool | None):
    """The player that solves the unknowns again (``settle``, with its parameters), or None for ``none``/empty."""
    from ..players.registry import parse_player

    if text is True:
        text = "settle"
    if text is None or text is False:
        return None
    if not isinstance(text, str):
        raise ArgumentError("{settle} must name the player settle (with its parameters) or none, got {got}", got=repr(text))
    if text.strip().lower() in ("", "none", "off", "false"):
        return None
    try:
        choice = parse_player(text.strip())
    except ValueError as e:
        raise ArgumentError("{settle}: {problem}", problem=str(e)) from None
    if choice.name != "settle":
        raise ArgumentError("{settle} solves the unknowns again with the player settle (or none), got {got}", got=repr(text))
    return choice


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _shown(value) -> str:
    text = f"{value:g}" if _number(value) and not isinstance(value, int) else repr(value) if not isinstance(value, int) else str(value)
    return text if len(text) <= 40 else text[:40] + "…"
