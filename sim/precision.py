"""``castle run --halfwidth H``: play until each game's winnability is known to ±H points, spending CPU where the
statistics need it.

How, and why so:

1. **A pilot** of ``pilot`` deals plays the solver in phases with every unsettled deal going on (rates 1): every deal
   gets its verdict, and the rows tell, per phase, how many deals it settles, how the rest divide, and what each phase
   costs (its positions, at the pilot's measured CPU per position).
2. **The design** follows from the pilot: the rates of the later phases by Neyman's allocation (the rates that
   minimise variance times cost, :func:`allocate`), and then **a fixed number of deals**, the one whose predicted
   interval is ±H, the unknowns' spread (counted both ways) included. The run then plays exactly those deals.
   The sample size is fixed from the pilot and never from the interval as it grows: stopping the first time an
   interval looks narrow enough would make it too narrow (optional stopping breaks coverage). A fixed size from an
   internal pilot keeps the 95% interval valid (Wittes and Brittain, *Statistics in Medicine* 9, 1990); a confidence
   sequence would allow stopping at any time, at the price of wider intervals throughout.
3. **A CPU cap** (``cpu_hours``) stops the run early if it is spent: the interval is then that of the deals played,
   wider than asked, and the command says so.

The design is written to ``_design.json`` in the results folder before the main run starts, and read back on a
rerun: an interrupted run resumes with the design unchanged. The pilot and the main run are two datasets of the
folder (``pilot/`` and ``main/``), which ``castle summary`` and ``castle report`` read as one folder of datasets,
joined as strata of deals (:mod:`analysis.designs`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from .players.registry import choose_player
from .study.errors import ArgumentError
from .study.experiment import Experiment, ExperimentError

DESIGN = "_design.json"
PILOT_DEALS = 1000
Z = 1.959963984540054
MAX_HALFWIDTH = 50.0  #: points


@dataclass(frozen=True)
class Phases:
    """What a pilot measured of one game: phase shares, win shares of the unsettled strata, costs (CPU s a deal)."""

    p: float  #: winnable share (unknowns as lost)
    unknown: float  #: unknown share at the full budget
    q1: float  #: share the first phase leaves unsettled
    r1: float  #: win share among them
    q2: float  #: share of those the middle phase leaves unsettled (0 without a middle phase)
    r2: float  #: win share among those
    c1: float  #: CPU seconds of the first phase, a deal
    c2: float  #: of the middle phase, a deal reaching it
    c3: float  #: of the last phase, a deal reaching it


@dataclass(frozen=True)
class Design:
    """The rates, the deals to play, and what the pilot predicts of them (written to ``_design.json``)."""

    game: str
    halfwidth: float  #: asked, in points
    rate: float
    rate2: float
    deals: int  #: main run's deals
    first: int  #: the main run's first deal
    per_deal_variance: float
    cpu_per_deal: float
    predicted_cpu_hours: float


def check_halfwidth(halfwidth: float) -> None:
    if not 0 < halfwidth <= MAX_HALFWIDTH:
        raise ArgumentError("{halfwidth} must be above 0 and at most {most} points, got {got}", most=f"{MAX_HALFWIDTH:g}",
                            got=f"{halfwidth:g}")


def measure(rows, first: int, middle: int) -> Phases:
    """Each phase's shares and costs, from pilot rows played with rates 1 (every unsettled deal went on)."""
    result = rows.result.astype(str).to_numpy()
    phase = rows.phase.to_numpy(int)
    nodes = rows.nodes.to_numpy(np.float64)
    cpu = rows.cpu_us.to_numpy(np.float64) / 1e6
    per_node = cpu.sum() / max(nodes.sum(), 1.0)
    won = result == "won"
    n = len(rows)
    went2 = phase >= 2
    went3 = phase >= 3
    spent1 = np.minimum(nodes, first)
    spent2 = np.clip(nodes - first, 0, middle) if middle else np.zeros(n)
    spent3 = np.clip(nodes - first - middle, 0, None)
    q1 = went2.mean()
    q2 = went3[went2].mean() if middle and went2.any() else 0.0
    last = went3 if middle else went2
    return Phases(p=float(won.mean()), unknown=float((result == "unknown").mean()), q1=float(q1),
                  r1=float(won[went2].mean()) if went2.any() else 0.0, q2=float(q2),
                  r2=float(won[last].mean()) if last.any() else 0.0,
                  c1=float(spent1.mean() * per_node),
                  c2=float(spent2[went2].mean() * per_node) if middle and went2.any() else 0.0,
                  c3=float(spent3[last].mean() * per_node) if last.any() else 0.0)


def variance_cost(m: Phases, rate: float, rate2: float, middle: bool) -> tuple[float, float]:
    """(variance a deal brings, CPU seconds a deal) of the design with these rates (``analysis.designs``' model)."""
    v1, v2 = m.r1 * (1 - m.r1), m.r2 * (1 - m.r2)
    base = m.p * (1 - m.p)
    if middle:
        nv = base + m.q1 * v1 * (1 / rate - 1) + m.q1 * m.q2 * v2 * (1 - rate2) / (rate * rate2)
        cost = m.c1 + m.q1 * rate * m.c2 + m.q1 * rate * m.q2 * rate2 * m.c3
    else:
        nv = base + m.q1 * v1 * (1 / rate - 1)
        cost = m.c1 + m.q1 * rate * m.c3
    return nv, cost


def allocate(m: Phases, middle: bool) -> tuple[float, float]:
    """Neyman's allocation: the rates minimising variance times cost (a grid over (0, 1], fine enough for rates)."""
    grid = np.concatenate([np.linspace(0.01, 0.1, 10), np.linspace(0.12, 1.0, 45)])
    best = (math.inf, 1.0, 1.0)
    for rate in grid:
        for rate2 in (grid if middle else [1.0]):
            nv, cost = variance_cost(m, rate, rate2, middle)
            if nv * cost < best[0]:
                best = (nv * cost, float(rate), float(rate2))
    return best[1], best[2]


#: the fewest deals the deepest phase's subsample should expect: fewer, and its stratum's mean and variance are
#: guesses (the interval's coverage falls; tests/test_designs.py)
DEEPEST = 30
MIN_RATE = 0.05


def plan(m: Phases, game: str, halfwidth: float, first: int, middle: bool) -> Design:
    """The design reaching ±``halfwidth`` points (the unknowns' spread included); an error if the unknowns alone
    are wider. Rates are Neyman's, but never below :data:`MIN_RATE`, and raised until the deepest subsample
    expects :data:`DEEPEST` deals."""
    sampling = halfwidth / 100 - m.unknown / 2
    if sampling <= 0:
        raise ArgumentError("{game}: the unknowns alone (counted both ways, {share}% of the pilot's deals) are wider than "
                            "±{asked} points; raise the solver's budget, ask for less, or solve the run's unknowns again "
                            "deeper after it ({unknowns_of})", game=game, share=f"{100 * m.unknown:.2f}", asked=f"{halfwidth:g}")
    rate, rate2 = (max(MIN_RATE, x) for x in allocate(m, middle))
    while True:
        nv, cost = variance_cost(m, rate, rate2, middle)
        deals = max(1, math.ceil(nv * (Z / sampling) ** 2))
        deepest = deals * m.q1 * rate * (m.q2 * rate2 if middle else 1.0)
        if deepest >= DEEPEST or (rate >= 1 and rate2 >= 1) or m.q1 == 0 or (middle and m.q2 == 0):
            break
        if middle and rate2 < 1:
            rate2 = min(1.0, rate2 * 1.25)
        else:
            rate = min(1.0, rate * 1.25)
    return Design(game, halfwidth, rate, rate2, deals, first, nv, cost, deals * cost / 3600)


def pilot_choice(choice):
    """The pilot's player: the phased player with every unsettled deal going on."""
    return choose_player(choice.name, {**choice.params, "rate": 1.0, "rate2": 1.0})


def read_design(out: Path) -> list[Design] | None:
    f = out / DESIGN
    if not f.exists():
        return None
    try:
        return [Design(**d) for d in json.loads(f.read_text())["designs"]]
    except (OSError, ValueError, TypeError, KeyError) as e:
        raise ExperimentError(f"{f} is not a readable design ({e.__class__.__name__}); remove it to plan again") from None


def write_design(out: Path, designs: list[Design], exp: Experiment, cpu_hours: float | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".{DESIGN}.tmp"
    tmp.write_text(json.dumps({"experiment": exp.name, "cpu_hours": cpu_hours, "designs": [asdict(d) for d in designs]}, indent=2))
    tmp.replace(out / DESIGN)


def run_to_halfwidth(exp: Experiment, out: Path, halfwidth: float, cpu_hours: float | None = None, pilot: int = PILOT_DEALS,
                     say=print, **run_args):
    """Pilot, design, then the fixed number of deals of each game (see the module's docstring); the summaries."""
    from .study.runner import run

    check_halfwidth(halfwidth)
    if cpu_hours is not None and not cpu_hours > 0:
        raise ArgumentError("{cpu_hours} must be above 0, got {got}", got=f"{cpu_hours:g}")
    wrong = [c.label for c in exp.players if c.name != "phased"]
    if wrong:
        raise ArgumentError("{halfwidth} plans the solver in phases (player phased); {wrong} cannot settle a deal in a design "
                            "(play it without {halfwidth})", wrong=", ".join(wrong))
    if pilot < 100:
        raise ArgumentError("{pilot} must be at least 100 deals, got {got}", got=pilot)
    out = Path(out)
    designs = read_design(out)
    pilot_exp = replace(exp, name=f"{exp.name}-pilot", players=tuple(pilot_choice(c) for c in exp.players),
                        end=exp.first + pilot, chunk_size=min(exp.chunk_size, pilot))
    summaries = [run(pilot_exp, out / "pilot", **run_args)]
    if designs is None:
        from analysis.load import load_results

        rows = load_results(out / "pilot")
        designs = []
        for rules in exp.games:
            for choice in exp.players:
                g = rows[(rows.game == rules.full_slug)]
                m = measure(g, int(choice.params["first"]), int(choice.params["middle"]))
                designs.append(plan(m, rules.full_slug, halfwidth, exp.first + pilot, bool(choice.params["middle"])))
        write_design(out, designs, exp, cpu_hours)
    for d in designs:
        say(f"castle run: {d.game}: rates {d.rate:.2f} / {d.rate2:.2f}, {d.deals:,} deals after the pilot's "
            f"(predicted ±{d.halfwidth:g} points, {d.predicted_cpu_hours:.2g} CPU-hours)")
    spent = sum(s.seconds for s in summaries) / 3600
    for d, rules in zip(designs, [r for r in exp.games for _ in exp.players]):
        choice = exp.players[0]
        main = replace(exp, name=f"{exp.name}-main-{rules.slug}", games=(rules,),
                       players=(choose_player(choice.name, {**choice.params, "rate": d.rate, "rate2": d.rate2}),),
                       first=d.first, end=d.first + d.deals)
        summaries.append(_capped(run, main, out / f"main-{rules.slug}", out / "pilot", cpu_hours, spent, say, **run_args))
    return summaries


def _capped(run, exp: Experiment, out: Path, pilot: Path, cpu_hours: float | None, spent: float, say, **run_args):
    """Run ``exp`` in blocks of chunks, saying the interval so far (the pilot's deals joined) after each, until its
    end or the CPU cap."""
    import pandas as pd

    from analysis.designs import perfect_play
    from analysis.load import ResultsError, load_results

    block = max(exp.chunk_size, (exp.end - exp.first) // 20)
    at, summary = exp.first, None
    while at < exp.end:
        stop = min(at + block, exp.end)
        summary = run(replace(exp, end=stop), out, **run_args)
        try:
            rows = load_results(out)
            game = exp.games[0].full_slug
            both = pd.concat([rows, load_results(pilot, games=[game])], ignore_index=True)
            e = perfect_play(both, game)
            cpu = rows.cpu_us.sum() / 3.6e9
            left = "" if cpu_hours is None else f", {max(cpu_hours - spent - cpu, 0):.1f} of {cpu_hours:g} CPU-hours left"
            say(f"castle run: {exp.games[0].slug}: {len(rows):,} of {exp.end - exp.first:,} deals, with the pilot's "
                f"{100 * e.estimate:.2f}% [{100 * e.lo:.2f}, {100 * e.hi:.2f}] (±{100 * e.half_width:.2f}) so far{left}")
            if cpu_hours is not None and spent + cpu >= cpu_hours:
                say(f"castle run: the CPU cap of {cpu_hours:g} hours is spent: the interval is that of the deals played, "
                    "wider than asked")
                break
        except ResultsError:
            pass
        at = stop
    return summary
