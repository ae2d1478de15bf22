"""What a run to a half-width is expected to cost before its pilot has measured anything: the figures the study's own
precision runs measured of each game (``data/published``), kept here so a plan can be said from any folder.

Why figures of earlier runs: the pilot is itself the largest single cost of a small plan (1,000 deals, every phase
on every deal: about 0.4 CPU-hours in Streets and Alleys), so a user must know it before it is spent, and only the
runs already played can tell. They hold only for the phases those runs played (:data:`PHASES`, the ``phased``
player's defaults) and for CPU times of the machine that played them; the plan says so, and is made again from the
pilot's own measures once it is played. ``tests/test_precision_plan.py`` derives them again from
``data/published`` (:func:`derive`) and checks the figures below against it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.limits import DEFAULT_TABLE_SIZE
from .design import Phases

#: the phases the published precision runs played (the ``phased`` player's defaults): the priors are theirs only
PHASES = {"first": 50_000, "middle": 2_000_000, "budget_nodes": 200_000_000, "table_size": DEFAULT_TABLE_SIZE,
          "portfolio": 1, "dead_end": 1}
#: the settle player the unknowns' prior cost is of (its default budget)
SETTLE_NODES = 1_000_000_000


@dataclass(frozen=True)
class Prior:
    """A game's figures before its pilot, and where they come from."""

    phases: Phases
    source: str


PRIORS = {
    "streets-and-alleys": Prior(
        Phases(p=0.511, unknown=0.00269, q1=0.212, r1=0.865, q2=0.0852, r2=0.482, c1=0.0246, c2=0.823, c3=69.5,
               again=0.36, c4=930.0),
        "the study's run precision-streets (590,000 deals) and settle-precision (10 of its unknowns solved again, "
        "4 settled within a billion positions)"),
    "beleaguered-castle": Prior(
        Phases(p=0.680, unknown=0.00053, q1=0.133, r1=0.902, q2=0.0414, r2=0.366, c1=0.0243, c2=0.758, c3=77.0,
               again=0.5, c4=1185.0),
        "the study's run precision-beleaguered (500,000 deals) and settle-precision (its 9 unknowns solved again, "
        "5 settled within a billion positions)"),
}



def prior_for(game: str, params: dict) -> Prior | None:
    """The game's prior figures, or None when there are none for it or its phases are not the published runs'."""
    if any(params.get(k) != v for k, v in PHASES.items()):
        return None
    return PRIORS.get(game)


def derive(rows, settled, first: int, middle: int, settle_nodes: int = SETTLE_NODES) -> Phases:
    """A game's :class:`Phases` from a phased run's ``rows`` played at any rates (the deals ``left`` stand for those
    like them that went on) and ``settled``, the rows of its unknowns solved again (a verdict counts if reached within
    ``settle_nodes`` positions; the share shrunk ``k / (n + 1)`` as the pilot's is, the cost capped at that budget)."""
    result = rows.result.astype(str).to_numpy()
    phase = rows.phase.to_numpy(int)
    left = rows.left.fillna(False).to_numpy(bool)
    nodes = rows.nodes.to_numpy(np.float64)
    per_node = rows.cpu_us.to_numpy(np.float64).sum() / 1e6 / max(nodes.sum(), 1.0)
    won = result == "won"
    went2, went3 = phase >= 2, phase >= 3
    q1 = float((went2 | ((phase == 1) & left)).mean())
    q2 = float((went3 | ((phase == 2) & left))[went2].mean())
    r2 = float(won[went3].mean())
    r1 = float((won & (phase == 2))[went2].mean()) + q2 * r2
    n_again, k = len(settled), 0
    c4 = settle_nodes * per_node
    if n_again:
        k = int((settled.result.astype(str).isin(("won", "lost")) & (settled.nodes <= settle_nodes)).sum())
        c4 = float((settled.cpu_us / 1e6 * (settle_nodes / settled.nodes).clip(upper=1.0)).mean())
    return Phases(p=float((won & (phase == 1)).mean()) + q1 * r1, unknown=q1 * q2 * float((result[went3] == "unknown").mean()),
                  q1=q1, r1=r1, q2=q2, r2=r2, c1=float(np.minimum(nodes, first).mean() * per_node),
                  c2=float(np.clip(nodes - first, 0, middle)[went2].mean() * per_node),
                  c3=float(np.clip(nodes - first - middle, 0, None)[went3].mean() * per_node),
                  again=k / (n_again + 1) if n_again else 0.0, c4=c4)
