"""The plan a run to a half-width says before it spends: its phases (the pilot, the pilot's unknowns solved again, the
main run of each game, the unknowns it leaves solved again), the deals of each, the CPU-hours and wall time they are
expected to take on the workers asked for, and the memory.

Why: a pilot alone is a good part of an hour of CPU, and nothing of the run is on disk before its first parts, so a
user must see what the run will cost before it starts, and see it again once the pilot has measured it. Before the
pilot the figures are the study's own (:mod:`.prior`), after it the pilot's (the design, ``_design.json``); each
plan says which. Wall times are CPU over the workers, but the unknowns are solved one a worker: each of them is a
long solve, so their wall time goes by rounds of as many as there are workers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from ..solver.memory import worker_mb
from ..study.errors import ArgumentError
from .design import Design, Phases, plan, variance_cost
from .prior import prior_for


@dataclass
class Step:
    """One phase of the plan."""

    name: str
    deals: float | None  #: planned (expected, for unknowns); None: not known before the pilot
    cpu: float | None  #: CPU seconds expected for all its deals; None: no figure to expect it by
    done: int = 0  #: deals of it already on disk
    one_a_worker: bool = False  #: long solves, one a worker (wall time in rounds)
    expected: bool = False  #: its deals are a forecast, not a number fixed by a design
    note: str = ""

    def left_cpu(self) -> float | None:
        if self.cpu is None or self.deals is None:
            return None
        return self.cpu * max(0.0, 1 - self.done / self.deals) if self.deals else 0.0

    def wall(self, workers: int) -> float | None:
        """Seconds still to take on ``workers``."""
        left = self.left_cpu()
        if left is None or not self.deals:
            return left
        if self.one_a_worker:
            todo = max(0.0, self.deals - self.done)
            return math.ceil(todo / workers) * self.cpu / self.deals if todo >= 0.5 else 0.0
        return left / workers


@dataclass
class Forecast:
    halfwidth: float
    workers: int
    steps: list[Step]
    source: str  #: where the figures come from
    memory_mb: float  #: the most a worker may hold (an estimate)
    memory_source: str
    notes: list[str] = field(default_factory=list)
    measured_mb: float = 0.0  #: the most a worker of the pilot held (0: not measured yet)

    def left_wall(self, after: int = 0) -> float | None:
        """Seconds the steps from ``after`` on still take (None: some step has no figure)."""
        walls = [s.wall(self.workers) for s in self.steps[after:]]
        return None if any(w is None for w in walls) else sum(walls)


def _pilot_cpu(m: Phases, middle: bool) -> float:
    """CPU seconds of one pilot deal: every phase on every deal, the unknowns not yet solved again."""
    return variance_cost(replace(m, c4=0.0), 1.0, 1.0, middle)[1]


def before_pilot(exp, halfwidth: float, pilot: int, again, workers: int) -> Forecast:
    """The plan from the study's figures (:mod:`.prior`), before any deal is played."""
    choice = exp.players[0]
    params, middle = choice.params, bool(choice.params["middle"])
    priors = {g.full_slug: prior_for(g.full_slug, params) for g in exp.games}
    have = all(p is not None for p in priors.values())
    settle = again.label if again is not None else ""
    c4 = lambda m: m.c4 if again is not None and int(again.params["budget_nodes"]) == 1_000_000_000 else None  # noqa: E731
    steps = [Step("pilot", pilot * len(priors), sum(pilot * _pilot_cpu(p.phases, middle) for p in priors.values()) if have
                  else None, note="every phase on every deal")]
    notes = []
    if again is not None:
        n = sum(pilot * p.phases.unknown for p in priors.values()) if have else None
        cost = sum(pilot * p.phases.unknown * (c4(p.phases) or math.nan) for p in priors.values()) if have else None
        steps.append(Step("its unknowns solved again", n, None if cost is None or math.isnan(cost) else cost, one_a_worker=True,
                          expected=True))
    main_unknowns, main_cost = 0.0, 0.0
    for rules in exp.games:
        p = priors[rules.full_slug]
        name = f"main run, {rules.full_slug}"
        if p is None:
            steps.append(Step(name, None, None, note="its deals are set by the pilot"))
            main_unknowns = main_cost = None
            continue
        try:
            d = plan(p.phases, rules.full_slug, halfwidth, exp.first + pilot, middle, settle)
        except ArgumentError as e:
            notes.append(f"by these figures, {e}: the pilot will tell")
            steps.append(Step(name, None, None, note="its deals are set by the pilot"))
            main_unknowns = main_cost = None
            continue
        found = d.deals * d.unknown * d.rate * d.rate2
        steps.append(Step(name, d.deals, d.deals * d.cpu_per_deal - found * d.settle_cpu,
                          note=f"rates {d.rate:.2f} / {d.rate2:.2f}; the pilot sets them and the deals", expected=True))
        if main_unknowns is not None:
            main_unknowns += found
            main_cost = None if c4(p.phases) is None or main_cost is None else main_cost + found * c4(p.phases)
    if again is not None:
        steps.append(Step("its unknowns solved again", main_unknowns, main_cost, one_a_worker=True, expected=True))
    sources = sorted({p.source for p in priors.values() if p is not None})
    source = ("figures of " + "; ".join(sources) + ", as the machine that played them took them" if sources
              else "no figures for these games or phases before the pilot")
    if any(p is None for p in priors.values()):
        missing = [g for g, p in priors.items() if p is None]
        notes.append(f"no prior figures for {', '.join(missing)} with these phases: the plan is made from the pilot")
    mb, where = worker_mb(searches(choice, again))
    return Forecast(halfwidth, workers, steps, source, mb, where, notes)


def searches(choice, again) -> list[tuple[int, int]]:
    """(table size, positions at most) of each kind of solve a worker runs: the phases', and the unknowns' again."""
    out = [(int(choice.params["table_size"]), int(choice.params["budget_nodes"]))]
    if again is not None:
        out.append((int(again.params["table_size"]), int(again.params["budget_nodes"])))
    return out


def from_designs(designs: list[Design], pilot: int, pilot_cpu: float, pilot_unknowns: int, again_cpu: float,
                 workers: int, done: dict[str, int], unknowns_done: int, memory: tuple[float, str],
                 measured_mb: float = 0.0) -> Forecast:
    """The plan from the pilot's measures (the design): the pilot and its unknowns as spent (``pilot_cpu``,
    ``again_cpu`` seconds), each main run with ``done`` of its deals on disk, then the unknowns it is expected to
    leave (``unknowns_done`` of them solved again already)."""
    steps = [Step("pilot", pilot * len(designs), pilot_cpu, pilot * len(designs), note="done"),
             Step("its unknowns solved again", pilot_unknowns, again_cpu, pilot_unknowns, one_a_worker=True, note="done")]
    if not any(d.settle for d in designs):
        steps.pop()
    found, cost = 0.0, 0.0
    for d in designs:
        n = d.deals * d.unknown * d.rate * d.rate2
        found, cost = found + n, cost + n * d.settle_cpu
        steps.append(Step(f"main run, {d.game}", d.deals, d.deals * d.cpu_per_deal - n * d.settle_cpu,
                          done.get(d.game, 0), note=f"rates {d.rate:.2f} / {d.rate2:.2f}"))
    if any(d.settle for d in designs):
        steps.append(Step("its unknowns solved again", max(found, unknowns_done), cost if all(d.settle_cpu for d in designs if d.settle)
                          else None, min(unknowns_done, math.ceil(found)), one_a_worker=True, expected=True))
    return Forecast(designs[0].halfwidth, workers, steps, "figures the pilot measured (its design, _design.json)",
                    max(memory[0], measured_mb), memory[1], measured_mb=measured_mb)


def lines(f: Forecast, when: str) -> list[str]:
    """The plan as the run says it: a heading, a line a phase, the totals and the memory."""
    out = [f"castle run: the plan to ±{f.halfwidth:g} points on {f.workers} {'worker' if f.workers == 1 else 'workers'}, "
           f"{when} ({f.source}):"]
    width = max(len(s.name) for s in f.steps)
    for s in f.steps:
        deals = "deals set by the pilot" if s.deals is None else _count(s.deals, s.expected)
        if s.done and s.deals and s.note != "done":
            deals += f" ({s.done:,} done)" if s.done < s.deals else " (all done)"
        cost = ("done" if s.note == "done" else "CPU unknown" if s.cpu is None
                else f"{_hours(s.cpu)}, {_duration(s.wall(f.workers))}")
        cost = f"{_hours(s.cpu)} spent" if s.note == "done" and s.cpu else cost
        extra = "" if s.note in ("", "done") else f" ({s.note})"
        if s.one_a_worker and s.deals and s.cpu is not None and s.note != "done":
            extra += f" (one a worker, about {_duration(s.cpu / s.deals)} each)"
        out.append(f"  {s.name:<{width}}  {deals:>24}  {cost}{extra}")
    cpu = [s.left_cpu() for s in f.steps]
    wall = f.left_wall()
    if all(c is not None for c in cpu):
        out.append(f"  {'still to run':<{width}}  {'':>24}  {_hours(sum(cpu))}, {_duration(wall)} on {f.workers} "
                   f"{'worker' if f.workers == 1 else 'workers'}")
    seen = f"the pilot's workers held at most {_gb(f.measured_mb)} each (measured); " if f.measured_mb else ""
    out.append(f"  memory: {seen}up to about {_gb(f.memory_mb)} a worker, {_gb(f.memory_mb * f.workers)} in all, where a "
               f"search runs deepest (an estimate: {f.memory_source})")
    out += [f"  {n}" for n in f.notes]
    return out


def _count(n: float, expected: bool) -> str:
    if not expected:
        return f"{n:,.0f} deals"
    if n < 1.5:
        return f"about {n:.1f} deals"
    return f"about {float(f'{n:.2g}') if n >= 1000 else round(n):,.0f} deals"


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.2g} CPU-hours"


def _gb(mb: float) -> str:
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb:,.0f} MB"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "time unknown"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
