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

- :mod:`.design`: what a pilot measured, Neyman's rates and the number of deals (the plan, written to
  ``_design.json``)
- :mod:`sim.study.halfwidth`: what a run to a half-width asks (half-width, CPU cap, pilot, settle), checked where
  its experiment is built, a file's fields and the flags alike
- :mod:`.folder`: the request checked whole before the pilot, and the folder a rerun resumes only as its design planned
- :mod:`.run`: the run itself: the pilot, the main run in blocks under the CPU cap, the unknowns solved again
- :mod:`.forecast`: the plan said before anything is spent (phases, deals, CPU-hours, wall time, memory), from
  :mod:`.prior` (the study's own figures) before the pilot and from the design after it; ``--plan`` says it and stops
- :mod:`.meter`: one progress line over the whole run, its time left reckoned from the plan
"""

from ..study.halfwidth import MAX_HALFWIDTH, MIN_HALFWIDTH, PILOT_DEALS, check_halfwidth, settle_choice
from .design import DESIGN, Design, Phases, allocate, measure, plan, variance_cost
from .run import BLOCKS, SETTLED, blocks, run_to_halfwidth

__all__ = ["DESIGN", "MAX_HALFWIDTH", "MIN_HALFWIDTH", "PILOT_DEALS", "BLOCKS", "SETTLED", "Design", "Phases", "allocate", "blocks",
           "check_halfwidth", "measure", "plan", "run_to_halfwidth", "settle_choice", "variance_cost"]
