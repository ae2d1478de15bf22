"""The run to a half-width: the pilot (its unknowns solved again), the design, the main run of each game in blocks
under the CPU cap, then the unknowns it left solved again; what it says as it goes."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from ..players.registry import choose_player
from ..solver.memory import worker_mb
from ..study.experiment import Experiment
from ..study.halfwidth import PILOT_DEALS, settle_choice
from ..study.workers import parallelism
from .design import DESIGN, Design, measure, pilot_choice, plan, read_design, write_design
from .folder import check_request
from .forecast import before_pilot, from_designs, lines, searches
from .meter import Meter

#: a run to a half-width plays its deals in this many blocks, saying the interval and looking at the CPU cap after each
BLOCKS = 20


def blocks(deals: int, chunk_size: int, workers: int) -> tuple[int, int]:
    """(deals a block, deals a chunk) of a main run of ``deals``: a twentieth of them a block, so a CPU cap is passed by
    about a twentieth of the plan at most; each block cut into at least two chunks a worker (never larger than
    ``chunk_size``), so every worker, a cluster's too, has deals through the block and a slow one is shared out."""
    block = max(1, math.ceil(deals / BLOCKS))
    return block, max(1, min(chunk_size, math.ceil(block / (2 * max(1, workers)))))



def run_to_halfwidth(exp: Experiment, out: Path, halfwidth: float, cpu_hours: float | None = None, pilot: int = PILOT_DEALS,
                     settle: str | None = "settle", settle_given: bool = True, say=print, plan_only: bool = False,
                     **run_args):
    """Pilot (its unknowns solved again), design, the fixed number of deals of each game, then every unknown they left
    solved again (see the module's docstring); the summaries. ``settle_given``: ``settle`` was asked for, not a default
    (a rerun that does not ask keeps its design's). The plan (:mod:`.forecast`) is said first, and again once the
    pilot has measured it; ``plan_only``: said, and nothing played or written."""
    from ..study.progress import want_progress
    from ..study.runner import run

    check_request(exp, Path(out), halfwidth, cpu_hours, pilot, settle, settle_given)
    again = settle_choice(settle)
    out = Path(out)
    designs, needed = read_design(out), None
    workers = parallelism(int(run_args.get("jobs", 1)), run_args.get("backend", "loky"), run_args.get("scheduler"))
    if designs is None:
        forecast, when = before_pilot(exp, halfwidth, pilot, again, workers), "before the pilot"
        forecast.steps[0].done = _rows_in(out / "pilot")  # (a pilot interrupted: what it kept)
    else:
        forecast, when = _resumed(out, exp, designs, pilot, workers), "as designed, resumed"
    if plan_only:
        for line in lines(forecast, when):
            say(line)
        return []
    with Meter(forecast, want_progress(run_args.get("progress")), say) as meter:
        for line in lines(forecast, when):
            meter.say(line)
        summaries, designs = _pilot(run, exp, out, halfwidth, cpu_hours, pilot, again, designs, workers, meter, **run_args)
        if designs is None:
            return summaries
        k = 2 if any(d.settle for d in designs) else 1
        for i, (d, rules) in enumerate(zip(designs, [r for r in exp.games for _ in exp.players])):
            choice = exp.players[0]
            main = replace(exp, name=f"{exp.name}-main-{rules.slug}", games=(rules,),
                           players=(choose_player(choice.name, {**choice.params, "rate": d.rate, "rate2": d.rate2}),),
                           first=d.first, end=d.first + d.deals)
            meter.begin(k + i, d.deals, _rows_in(out / f"main-{rules.slug}"))
            summaries.append(_capped(run, main, out / f"main-{rules.slug}", out, cpu_hours, meter.say, workers,
                                     why=f"the design's {d.deals:,} deals (±{d.halfwidth:g} points, {DESIGN})",
                                     cpu_per_deal=d.cpu_per_deal, meter=meter, **run_args))
            meter.end()
        planned = next((d.settle for d in designs if d.settle), "")
        if planned:  # the design's own settle player, whatever this call asked: a resumed run keeps its design
            summaries.append(_settle(run, exp, settle_choice(planned), out, [out], cpu_hours, meter, workers,
                                     len(meter.forecast.steps) - 1, **run_args))
        _say_interval(out, exp, designs, meter.say)
    return summaries


def _pilot(run, exp: Experiment, out: Path, halfwidth: float, cpu_hours, pilot: int, again, designs, workers: int,
           meter: Meter, **run_args):
    """The pilot (in parts of at most :data:`PILOT_PART` deals, so an interrupt loses minutes of it), its unknowns
    solved again, the design made from them and the plan said again; (summaries, designs)."""
    pilot_exp = replace(exp, name=f"{exp.name}-pilot", players=tuple(pilot_choice(c) for c in exp.players),
                        end=exp.first + pilot, chunk_size=pilot_part(exp.chunk_size, pilot, workers))
    meter.begin(0, pilot * len(exp.games), _rows_in(out / "pilot"))
    summaries = [run(pilot_exp, out / "pilot", reason=f"the pilot's {pilot:,} deals from deal {exp.first}", meter=meter,
                     **run_args)]
    meter.end()
    if designs is not None:
        return summaries, designs
    from analysis.load import load_results

    rows = load_results(out / "pilot")
    settled = None
    if again is not None:
        summaries.append(_settle(run, exp, again, out, [out / "pilot"], None, meter, workers, 1, **run_args))
        settled = load_results(out / SETTLED) if (out / SETTLED).is_dir() else rows.iloc[:0]
    mb = max((s.worker_mb for s in summaries if s is not None), default=0.0)
    designs = []
    for rules in exp.games:
        for choice in exp.players:
            g = rows[(rows.game == rules.full_slug)]
            s = None if settled is None else settled[settled.game == rules.full_slug]
            m = measure(g, int(choice.params["first"]), int(choice.params["middle"]), s,
                        int(again.params["budget_nodes"]) if again is not None else 0)
            d = plan(m, rules.full_slug, halfwidth, exp.first + pilot, bool(choice.params["middle"]),
                     again.label if again is not None else "")
            designs.append(replace(d, worker_mb=round(mb, 1)))
    write_design(out, designs, exp, cpu_hours)
    forecast = _resumed(out, exp, designs, pilot, workers)
    meter.replan(forecast)
    for line in lines(forecast, "made again from the pilot's measures"):
        meter.say(line)
    needed = _cpu_hours(out) + sum(d.predicted_cpu_hours for d in designs)  # the pilot's spent, the rest predicted
    if cpu_hours is not None and needed > cpu_hours:
        meter.say(f"castle run: the plan needs about {needed:.2g} CPU-hours with the pilot's, more than the cap of "
                  f"{cpu_hours:g}: expect an interval wider than asked")
    return summaries, designs


#: the most deals of a pilot's part: at a pilot's 1-2 CPU-s a deal, a minute or two of a worker, which is what an
#: interrupt may lose
PILOT_PART = 50
#: the CPU seconds a main run's part aims at (its deals at the design's CPU a deal): what an interrupt may lose
PART_SECONDS = 120.0


def pilot_part(chunk_size: int, pilot: int, workers: int) -> int:
    """Deals a pilot's part: at most :data:`PILOT_PART`, and at least two parts a worker."""
    return max(1, min(chunk_size, PILOT_PART, math.ceil(pilot / (2 * workers))))


def _resumed(out: Path, exp: Experiment, designs: list[Design], pilot: int, workers: int):
    """The plan from the design, with what the folder holds already (the pilot and its unknowns as spent)."""
    from analysis.load import ResultsError, load_results

    end = exp.first + pilot
    try:
        again = load_results(out / SETTLED, columns=["deal", "cpu_us"])
    except ResultsError:
        again = None
    mine = again[again.deal.astype(int) < end] if again is not None else None
    done = {d.game: _rows_in(out / f"main-{d.game.split('@')[0]}") for d in designs}
    planned = next((d.settle for d in designs if d.settle), "")
    memory = worker_mb(searches(exp.players[0], settle_choice(planned) if planned else None))
    return from_designs(designs, pilot, _cpu_hours(out / "pilot") * 3600,
                        0 if mine is None else len(mine), 0.0 if mine is None else float(mine.cpu_us.sum()) / 1e6,
                        workers, done, 0 if again is None else len(again) - len(mine), memory,
                        max(d.worker_mb for d in designs))


def _rows_in(folder: Path) -> int:
    """How many rows ``folder``'s dataset holds (0: none yet)."""
    from analysis.load import ResultsError, load_results

    try:
        return len(load_results(folder, columns=["deal"]))
    except ResultsError:
        return 0


#: where a run to a half-width keeps the verdicts of its unknowns solved again
SETTLED = "settled"


def _cpu_hours(out: Path) -> float:
    """CPU spent so far by every dataset in ``out`` (the rows' own CPU)."""
    from analysis.load import ResultsError, load_results

    try:
        return float(load_results(out, columns=["cpu_us"]).cpu_us.sum()) / 3.6e9
    except ResultsError:
        return 0.0


def _settle(run, exp: Experiment, choice, out: Path, folders: list[Path], cpu_hours: float | None, meter: Meter,
            workers: int = 1, index: int = 1, **run_args):
    """Solve the deals ``folders``' exact runs left unknown again with ``choice``, into ``out/settled``, ``workers`` at a
    time so the CPU cap is looked at between them; their runs' summaries as one (None if there were none). ``meter``
    shows it as the plan's phase ``index``."""
    from ..study.experiment import unknowns_experiment

    whole = unknowns_experiment([str(f) for f in folders], replace(exp, name=f"{exp.name}-settled", players=(choice,)))
    done = _verdicts(out / SETTLED)
    listed = [(g, d) for g, deals in whole.only for d in deals if (g, d) not in done]
    if not listed:
        return None
    say = meter.say
    say(f"castle run: {_deals(len(listed))} left unknown at the full budget, to be solved again with {choice.label} "
        f"(up to {int(choice.params['budget_nodes']):,} positions each)")
    meter.begin(index, len(listed))
    step, summaries = workers, []
    for k in range(0, len(listed), step):
        if cpu_hours is not None and _cpu_hours(out) >= cpu_hours:
            say(f"castle run: the CPU cap of {cpu_hours:g} hours is spent: {len(listed) - k:,} "
                f"{'unknown' if len(listed) - k == 1 else 'unknowns'} not solved again")
            break
        block = listed[k:k + step]
        only = tuple((g, tuple(d for h, d in block if h == g)) for g, _ in whole.only)
        summaries.append(run(replace(whole, only=only, first=min(d for _, d in block), end=max(d for _, d in block) + 1),
                             out / SETTLED, reason="the deals the runs left unknown at their full budget, solved again",
                             meter=meter, **run_args))
        found = _verdicts(out / SETTLED)
        say(f"castle run: {k + len(block):,} of {len(listed):,} solved again: "
            + ", ".join(f"{g} {d} {found.get((g, d), 'unknown')}" for g, d in block))
    meter.end()
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


def _capped(run, exp: Experiment, out: Path, whole: Path, cpu_hours: float | None, say, workers: int = 1, why: str = "",
            cpu_per_deal: float = 0.0, meter: Meter | None = None, **run_args):
    """Run ``exp`` in :data:`BLOCKS` blocks of chunks for ``workers`` (:func:`blocks`), saying the interval so far (the
    pilot's deals joined) after each block that played deals, until its end or the CPU cap (spent by every dataset in
    ``whole``, looked at after such a block); the blocks' summaries as one. ``why``: what the deals are, for the
    manifest's record of each block's range. Its parts are of at most :data:`PART_SECONDS` at ``cpu_per_deal``, so an
    interrupt loses minutes; ``meter``: the run's progress, told each block's half-width (a log gets the line too)."""
    import pandas as pd

    from analysis.designs import perfect_play
    from analysis.load import ResultsError, load_results

    block, chunk = blocks(exp.end - exp.first, exp.chunk_size, workers)
    if cpu_per_deal > 0:
        chunk = min(chunk, max(1, math.ceil(PART_SECONDS / cpu_per_deal)))
    exp = replace(exp, chunk_size=chunk)  # the rows are the same whatever the chunks (a rerun plays only the gaps)
    at, summaries = exp.first, []
    while at < exp.end:
        stop = min(at + block, exp.end)
        k = -(-(stop - exp.first) // block)
        summaries.append(run(replace(exp, end=stop), out, reason=f"block {k} of {-(-(exp.end - exp.first) // block)}"
                             + (f" of {why}" if why else ""), meter=meter, **run_args))
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
            if meter is not None:
                meter.interval(100 * e.half_width)
            if meter is None or not meter.tty:
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
                   seconds=sum(s.seconds for s in summaries), replaced=[p for s in summaries for p in s.replaced],
                   worker_mb=max(s.worker_mb for s in summaries))
