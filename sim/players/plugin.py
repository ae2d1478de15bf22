"""A researcher's compiled player: one numba function, played inside the compiled chunk loop like ``greedy``.

::

    import numpy as np
    from numba import njit
    from sim.players.plugin import Param, compiled, kit

    @compiled(Param("home_first", 1, "1: a move home whenever there is one", lo=0, hi=1))
    @njit(cache=True)
    def FirstUnseen(v, moves, n):
        "A move home first, else the first move to a position not seen in this game."
        for k in range(n):
            if v.params[0] == 1 and kit.to_foundation(moves[k]):
                return moves[k]
        for k in range(n):
            kit.push(v, moves[k])
            fresh = not kit.seen(v)
            kit.pop(v)
            if fresh:
                return moves[k]
        return -1

The decision ``decide(v, moves, n)`` returns one of ``moves[:n]`` (the legal actions, ascending) or -1 to
give up. ``v`` is the :class:`~sim.kernels.plugin.View`: the position, its hash, the positions the game has
passed through, the deal's random stream, the player's parameters (``v.params[k]``, in the order they are
declared, as float64) and ``v.memory`` (64 float64 slots, zero at each deal's start). ``kit`` is
:mod:`sim.kernels.plugin`: push/pop, seen, hash, legal, score (the built-in evaluation, under the weights
home, empty, dig, block, seq, mobility and last: greedy's unless the player declares a parameter of that
name, as :data:`EVALUATION` does), cards_home, empty_piles, rand_below and the rest.

Written in a file, it plays with ``castle run --player my_players.py:FirstUnseen`` (:mod:`.sources`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.moves import Move
from ..kernels import evaluate
from ..kernels import plugin as kit
from ..kernels import play as play_kernel
from ..kernels.rng import seed_rng
from ..kernels.seen import capacity, forget_all
from .spec import MAX_MOVES_PARAM, Param, PlayerChoice, PlayerFault, PlayerSpec, UnknownPlayerError

__all__ = ["Param", "compiled", "kit", "EVALUATION", "CompiledDecision", "PluginPlayer", "PluginFault"]

#: the evaluation's weights as parameters, with greedy's defaults: ``@compiled(*EVALUATION, ...)`` lets a run set them
EVALUATION = (
    Param("home", 10.0, "score per card on the foundations"),
    Param("empty", 3.0, "score per empty tableau pile"),
    Param("dig", 1.0, "penalty per card above each suit's next needed card"),
    Param("block", 1.0, "penalty per card lying above a card needed before it"),
    Param("seq", 0.5, "score per card resting on a card it could be built on"),
    Param("mobility", 0.5, "score per legal move (up to 16); a position without one scores -1e6 (0: neither)"),
    Param("last", 0.0, "penalty per card under a card of the rank below the base: it goes home last"),
)
_GREEDY_WEIGHTS = {p.name: p.default for p in EVALUATION}


class PluginFault(PlayerFault):
    """A compiled plug-in broke a rule of the kit (an illegal move pushed or returned, an unbalanced push/pop)."""


@dataclass(frozen=True)
class CompiledDecision:
    """A numba decision made into a player by :func:`compiled`; a file's object of this type is a player."""

    decide: object  #: the numba dispatcher
    params: tuple[Param, ...]
    name: str | None
    summary: str
    version: int

    def spec(self, attr: str) -> PlayerSpec:
        """The player's spec, named ``name`` or else ``attr`` (the name it has in its file)."""
        return PlayerSpec(self.name or attr, self.summary, self.params, decide=self.decide, version=self.version)

    def __call__(self, *args):
        """Call the decision itself (a test may)."""
        return self.decide(*args)


def compiled(*params: Param, name: str | None = None, version: int = 1):
    """Make a numba function ``decide(v, moves, n) -> action`` a player with these parameters (see the module doc).

    ``version``: bump it whenever the player's games change (it is in every row); the code's hash is too.
    """
    for p in params:
        if not isinstance(p, Param):
            raise TypeError(f"compiled(): parameters are Param(name, default, help), not {p!r}")
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise ValueError(f"compiled(): a parameter declared twice in {names}")
    if len([n for n in names if n != MAX_MOVES_PARAM.name]) > kit.N_PARAMS:
        raise ValueError(f"compiled(): at most {kit.N_PARAMS} parameters")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"compiled(): version must be a whole number from 1, got {version!r}")

    def wrap(fn):
        if not hasattr(fn, "py_func"):
            raise TypeError("compiled() wraps a numba function: put @njit(cache=True) under it")
        doc = (fn.py_func.__doc__ or "").strip()
        return CompiledDecision(fn, tuple(params), name, doc.splitlines()[0] if doc else "", version)

    return wrap


def arrays(choice: PlayerChoice) -> tuple[np.ndarray, np.ndarray]:
    """``v.params`` (the player's own parameters in declared order, the move cap left out) and ``v.weights``."""
    own = [p for p in choice.spec.params if p.name != MAX_MOVES_PARAM.name]
    params = np.array([float(choice.params[p.name]) for p in own], np.float64)
    from .compiled import weights  # (the parameter record: the evaluation reads its weights there by name)

    return params, weights({**_GREEDY_WEIGHTS, **{k: v for k, v in choice.params.items() if k in _GREEDY_WEIGHTS}})


def view_for(choice: PlayerChoice, rules_array: np.ndarray) -> kit.View:
    """A fresh view for ``choice``'s decision on a game of ``rules_array``."""
    params, w = arrays(choice)
    return kit.new_view(rules_array, int(capacity(choice.max_moves + 16)), params, w)


def compile_decision(choice: PlayerChoice) -> None:
    """Compile (or load from numba's cache) ``choice``'s decision for the one signature the loop calls; a typing
    error is one :class:`PluginFault` naming the player and the line of its file numba points at."""
    fn = choice.spec.decide
    if any(sig == kit.DECIDE.args for sig in fn.signatures):
        return
    from numba.core.errors import NumbaError

    try:
        fn.compile(kit.DECIDE.args)
    except NumbaError as e:
        lines = [x.strip() for x in str(e).splitlines() if x.strip()]
        what = next((x for x in lines if not x.startswith(("Failed in", "During:", "File ", ">>>", "There are"))), "")
        where = [m for x in lines if (m := re.match(r'File "(.*)", line (\d+)', x))]
        at = f" ({Path(where[-1][1]).name}, line {where[-1][2]})" if where else ""
        raise PluginFault(f"player {choice.label} does not compile (numba): {what}{at}") from None


def fault_message(choice: PlayerChoice, v: kit.View) -> str:
    """What the decision did wrong, in words (the move named as the board text names it)."""
    code, action = int(v.book[kit.F_FAULT]), int(v.book[kit.F_ACTION])
    try:
        move = str(Move.from_action(action))
    except ValueError:
        move = str(action)
    return kit.FAULTS.get(code, "fault {move}").format(move=move)


class PluginPlayer:
    """A compiled plug-in move by move, for Python's loop (``castle play``, reviews, replay pages): the same
    decisions as inside a chunk, its memory kept between calls."""

    def __init__(self, choice: PlayerChoice, seed: int = 0, deal: int = 0):
        self.choice = choice
        self._fn = choice.spec.decide
        self._v = None
        self._seed, self._deal = seed, deal

    def __repr__(self) -> str:
        return f"<PluginPlayer {self.choice.label}>"

    def choose(self, state) -> Move | None:
        v = self._v
        if v is None:
            v = self._v = view_for(self.choice, state.rules_array)
            forget_all(v.table, v.used, v.meta)
            seed_rng(v.rng, self._seed, self._deal, self.choice.salt)
        compile_decision(self.choice)
        v.state[:] = state.array
        if v.meta[0] * 2 >= len(v.table):
            raise PluginFault(f"player {self.choice.label}: a game longer than its move cap")
        a = play_kernel.plugin_loops()[1](self._fn, v)
        v.book[kit.F_PLAYED] += 1
        if a == -2:
            raise PluginFault(f"player {self.choice.label}: {fault_message(self.choice, v)}")
        return None if a < 0 else Move.from_action(int(a))
