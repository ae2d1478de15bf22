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
3. **The unknowns solved again** (``settle``, on by default): a deal unknown at the full budget counts both ways,
   so half the unknown share is a floor under the half-width that no number of deals lowers (in Streets and Alleys
   about 0.19 points at 200 million positions). The pilot's unknowns are solved again deeper (the player
   ``settle``, a billion positions) before the design is made, which measures what share of them that settles and
   what it costs; the design then counts on that share (shrunk: ``k`` settled of ``n`` counts as ``k / (n + 1)``,
   so a pilot with few unknowns does not promise more than it saw), and its cost is in Neyman's allocation. After
   the main run every unknown it left is solved again the same way. Every unknown is taken, whatever it is (a
   fourth phase at rate 1), so the estimator is unchanged (:mod:`sim.study.unknowns`).
4. **A CPU cap** (``cpu_hours``) stops the run early if it is spent: the interval is then that of the deals played,
   most likely wider than asked. The command says when the plan needs more than the cap, when the cap stops it, and
   at the end whether the interval is as asked or wider. The main run goes in twenty blocks, the cap looked at
   after each, so it is passed by a twentieth of the plan at most; each block is cut into at least two chunks a
   worker (every thread of a Dask cluster counted, whatever ``--jobs`` says), so a cluster's workers all have deals,
   and the unknowns are solved again as many at a time as there are workers.

The design is written to ``_design.json`` in the results folder before the main run starts, and read back on a
rerun: an interrupted run resumes with the design unchanged. The pilot and the main run are two datasets of the
folder (``pilot/``, ``main-GAME/`` and ``settled/``), which ``castle summary`` and ``castle report`` read as one folder of datasets,
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
from .study.workers import parallelism

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


def check_halfwidth(halfwidth: float) -> None:
    if not 0 < halfwidth <= MAX_HALFWIDTH:
        raise ArgumentError("{halfwidth} must be above 0 and at most {most} points, got {got}", most=f"{MAX_HALFWIDTH:g}",
                            got=f"{halfwidth:g}")


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


#: a run to a half-width plays its deals in this many blocks, saying the interval and looking at the CPU cap after each
BLOCKS = 20


def blocks(deals: int, chunk_size: int, workers: int) -> tuple[int, int]:
    """(deals a block, deals a chunk) of a main run of ``deals``: a twentieth of them a block, so a CPU cap is passed by
    about a twentieth of the plan at most; each block cut into at least two chunks a worker (never larger than
    ``chunk_size``), so every worker, a cluster's too, has deals through the block and a slow one is shared out."""
    block = max(1, math.ceil(deals / BLOCKS))
    return block, max(1, min(chunk_size, math.ceil(block / (2 * max(1, workers)))))


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
        deals = max(1, math.ceil(nv * (Z / sampling) ** 2))
        deepest = deals * m.q1 * rate * (m.q2 * rate2 if middle else 1.0)
        if deepest >= DEEPEST or (rate >= 1 and rate2 >= 1) or m.q1 == 0 or (middle and m.q2 == 0):
            break
        if middle and rate2 < 1:
            rate2 = min(1.0, rate2 * 1.25)
        else:
            rate = min(1.0, rate * 1.25)
    return Design(game, halfwidth, rate, rate2, deals, first, nv, cost, deals * cost / 3600, settle, again, m.unknown)


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


def settle_choice(text: str | bool | None):
    """The player that solves the unknowns again (``settle``, with its parameters), or None for ``none``/empty."""
    from .players.registry import parse_player

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


def run_to_halfwidth(exp: Experiment, out: Path, halfwidth: float, cpu_hours: float | None = None, pilot: int = PILOT_DEALS,
                     settle: str | None = "settle", say=print, **run_args):
    """Pilot (its unknowns solved again), design, the fixed number of deals of each game, then every unknown they left
    solved again (see the module's docstring); the summaries."""
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
    again = settle_choice(settle)
    out = Path(out)
    designs, needed = read_design(out), None
    workers = parallelism(int(run_args.get("jobs", 1)), run_args.get("backend", "loky"), run_args.get("scheduler"))
    pilot_exp = replace(exp, name=f"{exp.name}-pilot", players=tuple(pilot_choice(c) for c in exp.players),
                        end=exp.first + pilot, chunk_size=min(exp.chunk_size, math.ceil(pilot / (2 * workers))))
    summaries = [run(pilot_exp, out / "pilot", **run_args)]
    if designs is None:
        from analysis.load import load_results

        rows = load_results(out / "pilot")
        settled = None
        if again is not None:
            summaries.append(_settle(run, exp, again, out, [out / "pilot"], None, say, workers, **run_args))
            settled = load_results(out / SETTLED) if (out / SETTLED).is_dir() else rows.iloc[:0]
        designs = []
        for rules in exp.games:
            for choice in exp.players:
                g = rows[(rows.game == rules.full_slug)]
                s = None if settled is None else settled[settled.game == rules.full_slug]
                m = measure(g, int(choice.params["first"]), int(choice.params["middle"]), s,
                            int(again.params["budget_nodes"]) if again is not None else 0)
                designs.append(plan(m, rules.full_slug, halfwidth, exp.first + pilot, bool(choice.params["middle"]),
                                    again.label if again is not None else ""))
        write_design(out, designs, exp, cpu_hours)
        needed = _cpu_hours(out) + sum(d.predicted_cpu_hours for d in designs)  # the pilot's spent, the rest predicted
    for d in designs:
        solved = ("" if not d.settle else ", the pilot left no deal unknown" if not d.unknown
                  else f", {100 * d.solved_again:.0f}% of its unknowns ({100 * d.unknown:.2f}% of the deals) planned to "
                       "be settled by solving them again")
        say(f"castle run: {d.game}: rates {d.rate:.2f} / {d.rate2:.2f}, {d.deals:,} deals after the pilot's{solved} "
            f"(predicted ±{d.halfwidth:g} points, {d.predicted_cpu_hours:.2g} CPU-hours)")
    if needed is not None and cpu_hours is not None and needed > cpu_hours:
        say(f"castle run: the plan needs about {needed:.2g} CPU-hours with the pilot's, more than the cap of {cpu_hours:g}: "
            "expect an interval wider than asked")
    for d, rules in zip(designs, [r for r in exp.games for _ in exp.players]):
        choice = exp.players[0]
        main = replace(exp, name=f"{exp.name}-main-{rules.slug}", games=(rules,),
                       players=(choose_player(choice.name, {**choice.params, "rate": d.rate, "rate2": d.rate2}),),
                       first=d.first, end=d.first + d.deals)
        summaries.append(_capped(run, main, out / f"main-{rules.slug}", out, cpu_hours, say, workers, **run_args))
    planned = next((d.settle for d in designs if d.settle), "")
    if planned:  # the design's own settle player, whatever this call asked: a resumed run keeps its design
        summaries.append(_settle(run, exp, settle_choice(planned), out, [out], cpu_hours, say, workers, **run_args))
    _say_interval(out, exp, designs, say)
    return summaries


#: where a run to a half-width keeps the verdicts of its unknowns solved again
SETTLED = "settled"


def _cpu_hours(out: Path) -> float:
    """CPU spent so far by every dataset in ``out`` (the rows' own CPU)."""
    from analysis.load import ResultsError, load_results

    try:
        return float(load_results(out, columns=["cpu_us"]).cpu_us.sum()) / 3.6e9
    except ResultsError:
        return 0.0


def _settle(run, exp: Experiment, choice, out: Path, folders: list[Path], cpu_hours: float | None, say, workers: int = 1,
            **run_args):
    """Solve the deals ``folders``' exact runs left unknown again with ``choice``, into ``out/settled``, ``workers`` at a
    time so the CPU cap is looked at between them; their runs' summaries as one (None if there were none)."""
    from .study.experiment import unknowns_experiment

    whole = unknowns_experiment([str(f) for f in folders], replace(exp, name=f"{exp.name}-settled", players=(choice,)))
    done = _verdicts(out / SETTLED)
    listed = [(g, d) for g, deals in whole.only for d in deals if (g, d) not in done]
    if not listed:
        return None
    say(f"castle run: {_deals(len(listed))} left unknown at the full budget, to be solved again with {choice.label} "
        f"(up to {int(choice.params['budget_nodes']):,} positions each)")
    step, summaries = workers, []
    for k in range(0, len(listed), step):
        if cpu_hours is not None and _cpu_hours(out) >= cpu_hours:
            say(f"castle run: the CPU cap of {cpu_hours:g} hours is spent: {len(listed) - k:,} "
                f"{'unknown' if len(listed) - k == 1 else 'unknowns'} not solved again")
            break
        block = listed[k:k + step]
        only = tuple((g, tuple(d for h, d in block if h == g)) for g, _ in whole.only)
        summaries.append(run(replace(whole, only=only, first=min(d for _, d in block), end=max(d for _, d in block) + 1),
                             out / SETTLED, **{**run_args, "progress": False}))
        found = _verdicts(out / SETTLED)
        say(f"castle run: {k + len(block):,} of {len(listed):,} solved again: "
            + ", ".join(f"{g} {d} {found.get((g, d), 'unknown')}" for g, d in block))
    return _joined(summaries, nested=False)


def _deals(n: int) -> str:
    return f"{n:,} deal" if n == 1 else f"{n:,} deals"


def _verdicts(folder: Path) -> dict[tuple[str, int], str]:
    """The verdict of each (game, deal) solved again in ``folder`` (none if it holds none yet)."""
    from analysis.load import ResultsError, load_results

    try:
        rows = load_results(folder, columns=["game", "deal", "result"])
    except ResultsError:
        return {}
    return {(str(g), int(d)): str(r) for g, d, r in rows[["game", "deal", "result"]].itertuples(index=False, name=None)}


def _say_interval(out: Path, exp: Experiment, designs: list[Design], say) -> None:
    """Each game's interval with every dataset of the run joined, against the half-width asked."""
    from analysis.designs import perfect_play
    from analysis.load import ResultsError, load_results

    try:
        rows = load_results(out)
    except ResultsError:
        return
    for d in designs:
        e = perfect_play(rows[rows.game == d.game], d.game)
        if e is None:
            continue
        verdict = "as asked" if 100 * e.half_width <= d.halfwidth + 1e-9 else "wider than asked"
        say(f"castle run: {d.game}: {100 * e.estimate:.2f}% [{100 * e.lo:.2f}, {100 * e.hi:.2f}] (±{100 * e.half_width:.2f} "
            f"points, {verdict}: ±{d.halfwidth:g}) on {e.deals:,} deals" + (f", {e.again:,} unknowns solved again" if e.again else ""))


def _capped(run, exp: Experiment, out: Path, whole: Path, cpu_hours: float | None, say, workers: int = 1, **run_args):
    """Run ``exp`` in :data:`BLOCKS` blocks of chunks for ``workers`` (:func:`blocks`), saying the interval so far (the
    pilot's deals joined) after each block that played deals, until its end or the CPU cap (spent by every dataset in
    ``whole``, looked at after such a block); the blocks' summaries as one."""
    import pandas as pd

    from analysis.designs import perfect_play
    from analysis.load import ResultsError, load_results

    block, chunk = blocks(exp.end - exp.first, exp.chunk_size, workers)
    exp = replace(exp, chunk_size=chunk)  # the rows are the same whatever the chunks (a rerun plays only the gaps)
    at, summaries = exp.first, []
    while at < exp.end:
        stop = min(at + block, exp.end)
        summaries.append(run(replace(exp, end=stop), out, **run_args))
        at = stop
        if not summaries[-1].deals_played:
            continue  # a block a rerun finds played: on, silently
        try:
            rows = load_results(out)
            game = exp.games[0].full_slug
            both = pd.concat([rows, load_results(whole / "pilot", games=[game])], ignore_index=True)
            e = perfect_play(both, game)
            spent = _cpu_hours(whole)
            left = "" if cpu_hours is None else f", {max(cpu_hours - spent, 0):.2g} of {cpu_hours:g} CPU-hours left"
            say(f"castle run: {exp.games[0].slug}: {len(rows):,} of {exp.end - exp.first:,} deals, with the pilot's "
                f"{100 * e.estimate:.2f}% [{100 * e.lo:.2f}, {100 * e.hi:.2f}] (±{100 * e.half_width:.2f}) so far{left}")
            if cpu_hours is not None and spent >= cpu_hours and stop < exp.end:
                say(f"castle run: the CPU cap of {cpu_hours:g} hours is spent after {len(rows):,} of {exp.end - exp.first:,} "
                    "deals: the interval is that of the deals played")
                break
        except ResultsError:
            pass
    return _joined(summaries)


def _joined(summaries: list, nested: bool = True):
    """The summaries of one run's blocks as one: ``nested``, each block's experiment ends further from the same first
    deal (the main run's); else the blocks are apart (the unknowns solved again)."""
    if not summaries:
        return None
    last, played = summaries[-1], sum(s.deals_played for s in summaries)
    total = last.deals_total if nested else sum(s.deals_total for s in summaries)
    return replace(last, deals_total=total, deals_played=played, deals_already=total - played,
                   seconds=sum(s.seconds for s in summaries), replaced=[p for s in summaries for p in s.replaced])
