"""Errors whose remedy is one of a run's arguments, worded so that a front end can name the argument its own way.

The runner is a library: its messages name what it was given in its own
terms (``jobs``, an output folder). A command line that took those arguments
as flags says the same thing with its flags' names: :meth:`ArgumentError.worded`.
"""

from __future__ import annotations

from typing import Any

#: how the library's messages name the arguments (``{jobs}``, ``{out}`` ... in a template)
NAMES = {
    "jobs": "jobs",
    "scheduler": "a scheduler",
    "dask": "the dask backend",
    "out": "output folder",
    "halfwidth": "the half-width",
    "cpu_hours": "the CPU cap (hours)",
    "pilot": "the pilot",
    "deals": "the deal count",
    "deal_range": "a deal range",
    "unknowns_of": "unknowns_of",
    "settle": "settle",
    "plan": "plan_only",
}


class ExperimentError(ValueError):
    """An experiment that cannot be run as asked: bad file, bad values, or a results directory that holds another one."""


class ArgumentError(ExperimentError):
    """What is wrong with a run's argument: ``str(e)`` in the library's words (:data:`NAMES`).

    ``template`` names each argument by a field of :data:`NAMES` (``"{jobs} must be at least 1, got {got}"``);
    ``values`` fill its other fields.
    """

    def __init__(self, template: str, **values: Any):
        self.template, self.values = template, values
        super().__init__(self.worded(NAMES))

    def worded(self, names: dict[str, str]) -> str:
        """The message with each argument named as ``names`` says (a command line: by its flag), else in the library's words."""
        return self.template.format(**{**NAMES, **names, **self.values})
