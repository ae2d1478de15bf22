"""The design of a run to a half-width: what its pilot measured of each phase, Neyman's rates, and the fixed number of
deals whose predicted interval is as asked (the package's docstring says why fixed); kept in ``_design.json`` so a
rerun resumes with it unchanged."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from analysis.designs import Z  # (the 95% normal quantile: the estimator's, one definition)

from ..core import files
from ..core.deals import MAX_DEAL
from ..core.jsontext import dumps
from ..players.registry import choose_player
from ..study.errors import ArgumentError
from ..study.experiment import Experiment, ExperimentError
from ..study.halfwidth import MAX_HALFWIDTH, MIN_HALFWIDTH

DESIGN = "_design.json"


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
    again: float = 0.0  #: share of the unknowns at the full budget that solving them again settles (planned; 0: none)
    c4: float = 0.0  #: CPU seconds of solving one unknown again


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
    settle: str = ""  #: the player that solves the unknowns again after the run ("": none)
    solved_again: float = 0.0  #: the share of the unknowns that is planned to settle
    unknown: float = 0.0  #: the pilot's unknown share at the full budget
    settle_cpu: float = 0.0  #: CPU seconds of solving one unknown again, as the pilot measured (0: not recorded)
    worker_mb: float = 0.0  #: the largest memory a pilot's worker reached, MB (0: not measured)


def measure(rows, first: int, middle: int, again=None, settle_nodes: int = 0) -> Phases:
    """Each phase's shares and costs, from pilot rows played with rates 1 (every unsettled deal went on); with
    ``again`` (the ``settle`` rows of the pilot's unknowns, solved again with at most ``settle_nodes`` positions), the
    share of them that settles and its cost."""
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
    share, c4 = (0.0, 0.0) if again is None else _solved_again(rows.deal[result == "unknown"], again, settle_nodes * per_node)
    return Phases(p=float(won.mean()), unknown=float((result == "unknown").mean()), q1=float(q1),
                  r1=float(won[went2].mean()) if went2.any() else 0.0, q2=float(q2),
                  r2=float(won[last].mean()) if last.any() else 0.0,
                  c1=float(spent1.mean() * per_node),
                  c2=float(spent2[went2].mean() * per_node) if middle and went2.any() else 0.0,
                  c3=float(spent3[last].mean() * per_node) if last.any() else 0.0,
                  again=share, c4=c4)


def _solved_again(unknown, again, most: float) -> tuple[float, float]:
    """(planned share settled, CPU s a deal) of solving the pilot's ``unknown`` deals again (``again``: their rows).
    The share is shrunk, ``k`` of ``n`` counting as ``k / (n + 1)``; with none to measure the cost is ``most``, the
    settle budget at the pilot's CPU per position."""
    deals = set(int(d) for d in unknown)
    mine = again[again.deal.astype(int).isin(deals)]
    settled = int(mine.result.astype(str).isin(("won", "lost")).sum())
    cost = float(mine.cpu_us.mean()) / 1e6 if len(mine) else most
    return settled / (len(deals) + 1), cost


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
    # an unknown is found only on a deal that reached the last phase, and each is solved again
    return nv, cost + m.unknown * rate * (rate2 if middle else 1.0) * m.c4


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


def plan(m: Phases, game: str, halfwidth: float, first: int, middle: bool, settle: str = "") -> Design:
    """The design reaching ±``halfwidth`` points (the unknowns' spread included, less the share ``settle`` is planned
    to solve again); an error if the unknowns alone are wider. Rates are Neyman's, but never below :data:`MIN_RATE`,
    and raised until the deepest subsample expects :data:`DEEPEST` deals."""
    again = m.again if settle else 0.0
    left = m.unknown * (1 - again)
    sampling = halfwidth / 100 - left / 2
    if sampling <= 0:
        how = (f"even with {100 * again:.0f}% of them settled by solving them again, as the pilot's were: ask for less "
               "or raise the solver's budget" if settle
               else "raise the solver's budget, ask for less, or solve them again ({settle})")
        raise ArgumentError("{game}: the unknowns alone (counted both ways, {share}% of the pilot's deals) are wider than "
                            "±{asked} points, " + how, game=game, share=f"{100 * m.unknown:.2f}", asked=f"{halfwidth:g}")
    if not settle:
        m = replace(m, c4=0.0)
    rate, rate2 = (max(MIN_RATE, x) for x in allocate(m, middle))
    while True:
        nv, cost = variance_cost(m, rate, rate2, middle)
        need = nv * (Z / sampling) ** 2 if sampling > 1e-100 else math.inf
        if not need <= MAX_DEAL - first:
            raise ArgumentError("{game}: ±{asked} points needs more deals after deal {first} than there are deal numbers "
                                "(the pilot's unknowns, counted both ways, leave {room} points to sampling): ask for less",
                                game=game, asked=f"{halfwidth:g}", first=first, room=f"{100 * sampling:.2g}")
        deals = max(1, math.ceil(need))
        deepest = deals * m.q1 * rate * (m.q2 * rate2 if middle else 1.0)
        if deepest >= DEEPEST or (rate >= 1 and rate2 >= 1) or m.q1 == 0 or (middle and m.q2 == 0):
            break
        if middle and rate2 < 1:
            rate2 = min(1.0, rate2 * 1.25)
        else:
            rate = min(1.0, rate * 1.25)
    return Design(game, halfwidth, rate, rate2, deals, first, nv, cost, deals * cost / 3600, settle, again, m.unknown,
                  m.c4 if settle else 0.0)


def most_deals(halfwidth: float) -> int:
    """The most deals a plan to ±``halfwidth`` points can need when its pilot leaves no deal unknown: every stratum's
    variance at its largest (a quarter) and both rates at :data:`MIN_RATE` (unknowns can ask for more: :func:`plan`
    refuses a plan past the last deal number)."""
    worst = 0.25 * (1 + (1 / MIN_RATE - 1) + (1 - MIN_RATE) / MIN_RATE**2)
    return math.ceil(worst * (Z / (halfwidth / 100)) ** 2)


def pilot_choice(choice):
    """The pilot's player: the phased player with every unsettled deal going on."""
    return choose_player(choice.name, {**choice.params, "rate": 1.0, "rate2": 1.0})


def read_design(out: Path) -> list[Design] | None:
    """The designs ``_design.json`` holds (None: there is none), checked whole: a hand-damaged one is one line."""
    f = out / DESIGN
    if not f.exists():
        return None
    if not f.is_file():
        raise ExperimentError(f"{f} is not a readable design (not a file); remove it to plan again")
    try:
        data = files.read_json(f, files.MANIFEST, "a design")
        problem = design_problem(data)
    except UnicodeDecodeError:
        problem = "not UTF-8 text"
    except ValueError as e:
        problem = "nested too deep" if "nested" in str(e) else "not JSON"
    except OSError as e:  # (larger than a design may be, too)
        problem = e.strerror or e.__class__.__name__
    if problem:
        raise ExperimentError(f"{f} is not a readable design ({problem}); remove it to plan again") from None
    return [Design(**d) for d in data["designs"]]


def _number(v, low: float = 0.0, high: float = math.inf) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and low <= v <= high


def _whole(v, low: int = 0) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and low <= v <= MAX_DEAL


#: what each field of a design holds (:class:`Design`)
_FIELDS = {
    "game": lambda v: isinstance(v, str) and v != "", "halfwidth": lambda v: _number(v, MIN_HALFWIDTH, MAX_HALFWIDTH),
    "rate": lambda v: _number(v, 1e-9, 1.0), "rate2": lambda v: _number(v, 1e-9, 1.0), "deals": lambda v: _whole(v, 1),
    "first": _whole, "per_deal_variance": _number, "cpu_per_deal": _number, "predicted_cpu_hours": _number,
    "settle": lambda v: isinstance(v, str), "solved_again": lambda v: _number(v, 0.0, 1.0), "unknown": lambda v: _number(v, 0.0, 1.0),
    "settle_cpu": _number, "worker_mb": _number,
}
_REQUIRED = ("game", "halfwidth", "rate", "rate2", "deals", "first", "per_deal_variance", "cpu_per_deal", "predicted_cpu_hours")


def design_problem(data) -> str | None:
    """What makes ``data`` (parsed JSON) other than a ``_design.json`` castle writes, or None."""
    if not isinstance(data, dict) or not isinstance(data.get("designs"), list) or not data["designs"]:
        return "no designs in it"
    if not isinstance(data.get("experiment", ""), str) or not (data.get("cpu_hours") is None or _number(data["cpu_hours"], 1e-12)):
        return "its experiment or cpu_hours is not what castle writes"
    for k, d in enumerate(data["designs"]):
        if not isinstance(d, dict):
            return f"design {k + 1} is not a table"
        missing = [f for f in _REQUIRED if f not in d]
        unknown = [f for f in d if f not in _FIELDS]
        bad = next((f for f in _FIELDS if f in d and not _FIELDS[f](d[f])), None)
        if missing or unknown or bad:
            why = f"no {missing[0]}" if missing else f"an unknown field {unknown[0]!r}" if unknown else \
                f"its {bad} is {json.dumps(d[bad])[:40]}"
            return f"design {k + 1}: {why}"
        if d["first"] + d["deals"] > MAX_DEAL:
            return f"design {k + 1}: its deals run past the last deal number"
    return None


def write_design(out: Path, designs: list[Design], exp: Experiment, cpu_hours: float | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".{DESIGN}.tmp"
    tmp.write_text(dumps({"experiment": exp.name, "cpu_hours": cpu_hours, "designs": [asdict(d) for d in designs]}, indent=2))
    tmp.replace(out / DESIGN)
