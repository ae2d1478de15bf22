"""What a player is to the registry: its parameters (:class:`Param`), its spec and a choice of its values.

Kept apart from the registry so the built-in specs (:mod:`.builtin`) and the
compiled player (:mod:`.compiled`) build on these records while the registry
builds on them: the imports run one way.
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from ..core.deals import DEFAULT_SEED

DEFAULT_MAX_MOVES = 1000
#: the label's and ``player_params``' name for a choice's random stream (:attr:`PlayerChoice.stream`)
STREAM = "stream"
#: the streams a player may play: 0 to MAX_STREAM (the salt it keys stays within 64 bits)
MAX_STREAM = (1 << 40) - 1


class Player(Protocol):
    def choose(self, state) -> Any: ...


class UnknownPlayerError(KeyError):
    """A player name, parameter or value the registry does not know."""

    def __str__(self) -> str:
        return str(self.args[0])


class PlayerFault(UnknownPlayerError):
    """A player that broke while playing (its exception, a compile error, an illegal move): one line naming the
    player, the deal and what went wrong."""


@dataclass(frozen=True)
class Param:
    """One player parameter: its name, default (whose type it keeps), meaning and allowed range."""

    name: str
    default: int | float
    help: str
    lo: int | float | None = None  #: the smallest value allowed (None: any)
    hi: int | float | None = None  #: the largest value allowed (None: any)

    @property
    def range_text(self) -> str:
        """The allowed values in words: "0 or 1", "1 to 16", "at least 1", or ""."""
        if self.lo is not None and self.hi is not None:
            return f"{self.lo} or {self.hi}" if self.hi == self.lo + 1 and isinstance(self.default, int) else f"{self.lo:,} to {self.hi:,}"
        return f"at least {self.lo:,}" if self.lo is not None else (f"at most {self.hi:,}" if self.hi is not None else "")

    def coerce(self, value: Any, player: str) -> int | float:
        """``value`` (text from the command line, or a TOML value) as this parameter's type, within its range."""
        kind = type(self.default)
        try:
            if isinstance(value, bool):
                raise ValueError
            if kind is int:
                if isinstance(value, float):
                    if not value.is_integer():
                        raise ValueError
                    value = int(value)
                out = int(value)
            else:
                out = float(value)
                if not math.isfinite(out):
                    raise ValueError
        except (TypeError, ValueError):
            raise UnknownPlayerError(
                f"player {player}: parameter {self.name} must be {'an integer' if kind is int else 'a number'}, got {value!r}"
            ) from None
        if (self.lo is not None and out < self.lo) or (self.hi is not None and out > self.hi):
            raise UnknownPlayerError(f"player {player}: {self.name} must be {self.range_text}, got {out}")
        return out


#: what a player's rows are, the role its spec gives it (:attr:`PlayerSpec.role`): a heuristic plays to win (its rows
#: are cheap and many: the ladder); an exact player gives each deal a verdict, won, lost or unknown (the solver, in
#: phases, again on others' unknowns: perfect play's rows); a judge judges a deal's moves rather than play to win
#: (the corridor, the mistake finder). Analysis reads rows by role, never by a list of names.
HEURISTIC, EXACT, JUDGE = "heuristic", "exact", "judge"
ROLES = (HEURISTIC, EXACT, JUDGE)

MAX_MOVES_PARAM = Param("max_moves", DEFAULT_MAX_MOVES, "move cap: the game is given up after this many moves", lo=1)


def resolve(ref: Any) -> Any:
    """A ``"module:attr"`` reference, imported; anything else as it is."""
    if isinstance(ref, str):
        module, _, attr = ref.partition(":")
        return getattr(importlib.import_module(module), attr)
    return ref


@dataclass(frozen=True)
class PlayerSpec:
    """Everything the registry knows about a player.

    ``kernel`` names the compiled decision kernel (:data:`sim.kernels.players.KINDS`)
    that plays whole chunks and, move by move, :class:`sim.players.compiled.CompiledPlayer`;
    ``decide`` is a compiled plug-in's decision (:mod:`sim.players.plugin`), played the
    same two ways; ``salt`` keys its random stream. ``source`` says where a player
    loaded from a researcher's file or module came from (:mod:`.sources`): such a spec
    travels to another process as its source, and is rebuilt there from the code. ``factory(seed=, deal=, **params)``
    makes a move-by-move player of any other kind (``max_moves`` is the
    loop's, not passed on). ``play_deal(state, seed=, deal=, **params) ->
    GameRecord`` replaces the loop for players that play a deal with their
    own code; their ``extra_columns`` (name, Arrow type name) are added to
    the result rows from ``GameRecord.extra``. ``check(params)`` returns
    what is wrong with a set of values. ``version`` is bumped whenever the
    player's games change; it is in every row. ``role`` (one of :data:`ROLES`)
    says what its rows are; a run's manifest records it beside the version.
    """

    name: str
    summary: str
    params: tuple[Param, ...] = ()
    kernel: str | None = None
    salt: int = 0
    factory: Callable[..., Player] | str | None = None
    play_deal: Callable[..., Any] | str | None = None
    extra_columns: tuple[tuple[str, str], ...] = ()
    check: Callable[[dict], str | None] | None = None
    version: int = 1
    decide: Any = None
    source: Any = None  #: a :class:`sim.players.sources.PlayerSource`, or None (built-in and entry-point players)
    role: str = HEURISTIC

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"player {self.name}: role must be one of {', '.join(ROLES)}, not {self.role!r}")

    def __reduce__(self):
        if self.source is None:
            return super().__reduce__()
        return (resolve("sim.players.sources:rebuild"), (self.source,))

    @property
    def all_params(self) -> tuple[Param, ...]:
        names = {p.name for p in self.params}
        return self.params + (() if "max_moves" in names else (MAX_MOVES_PARAM,))

    @property
    def defaults(self) -> dict[str, int | float]:
        return {p.name: p.default for p in self.all_params}

    @property
    def compiled(self) -> bool:
        """Does it play whole chunks inside the compiled loop (a built-in kernel or a compiled plug-in)?"""
        return self.kernel is not None or self.decide is not None

    def takes_stream(self) -> bool:
        """Can it play another random stream (:attr:`PlayerChoice.stream`)? A compiled player can (its stream is
        keyed by its salt); a Python player if its class takes a ``stream`` keyword; a player that plays whole deals
        with its own code (the solver) cannot."""
        return self.compiled or (self.factory is not None and _takes(resolve(self.factory), STREAM) is True)


@dataclass(frozen=True)
class PlayerChoice:
    """A player with all its parameter values: one competitor of an experiment.

    ``stream``: which of the player's random streams it plays (0, its own, unless a run asks for more): the same
    player on the same deal with another stream draws other random numbers, so a player that draws them (nmcs,
    random, a plug-in's ``kit.random``) can answer a deal several times. Not a parameter: it changes no decision
    rule. Its label and ``player_params`` name it when it is not 0 (``nmcs:stream=2``)."""

    spec: PlayerSpec
    params: dict[str, int | float] = field(hash=False)
    stream: int = 0

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def label(self) -> str:
        """The name, plus the parameters that differ from their defaults (``lookahead:depth=2``)."""
        changed = {k: _fmt(v) for k, v in self.params.items() if v != self.spec.defaults[k]}
        if self.stream:
            changed[STREAM] = str(self.stream)
        return self.spec.name + (":" + ",".join(f"{k}={v}" for k, v in sorted(changed.items())) if changed else "")

    @property
    def params_json(self) -> str:
        """Every parameter value, as canonical JSON (the ``player_params`` column), and the stream unless it is 0."""
        return json.dumps({**self.params, STREAM: self.stream} if self.stream else self.params, sort_keys=True, separators=(",", ":"))

    @property
    def salt(self) -> int:
        """What keys its random stream: the player's own salt (below 2**16), and the stream above it."""
        return int(self.spec.salt) + (int(self.stream) << 16)

    @property
    def max_moves(self) -> int:
        return int(self.params["max_moves"])

    @property
    def own_params(self) -> dict[str, int | float]:
        """The parameters the player itself receives (the move cap belongs to the loop)."""
        own = {p.name for p in self.spec.params}
        return {k: v for k, v in self.params.items() if k != "max_moves" or k in own}

    def make(self, seed: int = DEFAULT_SEED, deal: int = 0) -> Player:
        """The move-by-move player for deal ``deal`` of ``seed``."""
        if self.spec.factory is not None:
            factory = resolve(self.spec.factory)
            offered = (("seed", seed), ("deal", deal)) + (((STREAM, self.stream),) if self.stream else ())
            # a class of a researcher's may take neither seed nor deal (nor a stream: the registry checks)
            given = {k: v for k, v in offered if _takes(factory, k) is not False}
            return factory(**given, **self.own_params)
        if self.spec.kernel is not None:  # (named, as specs name their code: listing players loads no kernel)
            return resolve("sim.players.compiled:CompiledPlayer")(self, seed, deal)
        if self.spec.decide is not None:
            return resolve("sim.players.plugin:PluginPlayer")(self, seed, deal)
        raise UnknownPlayerError(f"player {self.name} plays whole deals only, not move by move")


def spec_from_class(name: str, cls: type) -> PlayerSpec:
    """A spec for a plain player class: its ``__init__`` keyword defaults are its parameters (a class attribute
    ``params``, a tuple of :class:`Param` of the same names, gives them help and ranges), its docstring's first
    line its summary, and a class attribute ``version`` (an int) its version."""
    declared = {p.name: p for p in getattr(cls, "params", ()) if isinstance(p, Param)}
    params = []
    for p in inspect.signature(cls).parameters.values():
        if p.name in ("seed", "deal") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if isinstance(p.default, (int, float)) and not isinstance(p.default, bool):
            given = declared.get(p.name)
            params.append(Param(p.name, p.default, given.help, given.lo, given.hi) if given else Param(p.name, p.default, ""))
    doc = inspect.getdoc(cls)
    version = getattr(cls, "version", 1)
    return PlayerSpec(name, doc.splitlines()[0] if doc else "", tuple(params), factory=cls,
                      version=version if isinstance(version, int) and not isinstance(version, bool) else 1)


def _takes(fn, keyword: str) -> bool | None:
    """Does ``fn`` take ``keyword`` (by name or through ``**kwargs``)? None when its signature cannot be read."""
    try:
        takes = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None
    return keyword in takes or any(p.kind is p.VAR_KEYWORD for p in takes.values())


def _fmt(v: int | float) -> str:
    return repr(v) if isinstance(v, float) else str(v)
