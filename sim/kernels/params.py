"""The parameters every built-in compiled player reads, declared once: one record, a field per parameter.

A player's parameters reach the kernels as one record of :data:`PARAMS` (a
NumPy structured array of one element, its fields read by name: ``p.depth``,
``p.home``), filled from the named parameters of its spec by
:func:`sim.players.compiled.weights`. A count (a budget, a width, a depth)
is an integer field and a weight a float one, so a value keeps its type
from the spec to the loop that reads it. Which code reads which field is
said beside each; the specs' help says what each means to a user.
"""

from __future__ import annotations

import numpy as np

#: name, NumPy type, who reads it
FIELDS = (
    # the evaluation (:mod:`.evaluate`): what greedy, lookahead, strategist and the planners think is good
    ("home", np.float64, "evaluate: score per card on the foundations"),
    ("empty", np.float64, "evaluate: score per empty tableau pile"),
    ("dig", np.float64, "evaluate: penalty per card above each suit's next needed card"),
    ("block", np.float64, "evaluate: penalty per card lying above a card needed before it"),
    ("seq", np.float64, "evaluate: score per card resting on a card it could be built on"),
    ("balance", np.float64, "evaluate: penalty per card between the suits most and least home"),
    ("mobility", np.float64, "evaluate: score per legal move, up to 16 (0: no move generation)"),
    ("last", np.float64, "evaluate: penalty per card under a card of the last foundation order"),
    # the players' own (:mod:`.players`)
    ("wrap", np.float64, "strategist: bonus for a move putting a King on an Ace"),
    ("depth", np.int64, "greedy, lookahead: plies searched (1 = one-move greedy)"),
    ("width", np.int64, "greedy, lookahead: children expanded per node (0 = all); beam: positions kept per layer"),
    ("keep_empty", np.float64, "strategist: cost of filling an empty pile without unlocking anything"),
    ("choose_base", np.int64, "every player but random: how the base rank is chosen (players.BASE_*)"),
    ("even", np.int64, "strategist: 1 bank evenly (only safe cards home at once), 0 every card home at once"),
    # the planners (:mod:`.planners`, :mod:`.beam`, :mod:`.rollouts`)
    ("budget", np.int64, "beam, rollout, nmcs: nodes per deal"),
    ("max_moves", np.int64, "beam, rollout, nmcs: the move cap (a plan never runs past it)"),
    ("grow", np.int64, "beam: width factor between restarts (1: none)"),
    ("patience", np.int64, "beam: layers without a new card home before a beam stops"),
    ("spread", np.int64, "beam: children of one position kept in a layer at most (0: any number)"),
    ("level", np.int64, "nmcs: nesting level"),
    ("noise", np.float64, "nmcs: size of the uniform draw added to each score of its playouts"),
)

#: the record's type
PARAMS = np.dtype([(name, kind) for name, kind, _ in FIELDS])
#: values other than zero before a spec's parameters are set
DEFAULTS = {"depth": 1}


def record(values: dict[str, int | float] | None = None) -> np.ndarray:
    """A parameter record (one element of :data:`PARAMS`) with ``values`` set by name; names that are no field are
    left out (a plug-in's own parameters travel apart)."""
    p = np.zeros(1, PARAMS)
    for name, value in {**DEFAULTS, **(values or {})}.items():
        if name in PARAMS.names:
            p[name] = value
    return p
