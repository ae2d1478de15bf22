"""The player registry: names, parameters with defaults, and how each player is made.

A player is any object with ``choose(state) -> Move | None`` (None: it gives
up) that receives its random stream when it is made, as in OpenSpiel. The
registry maps a name to a :class:`PlayerSpec`: its parameters with defaults,
how to make it, and, for compiled players, the kernel that lets the runner
play whole chunks inside numba. Specs name their code by ``"module:attr"``
so the registry can be listed without loading any compiled code.

Third-party packages add players through the entry-point group
``castle.players``: the entry point may name a :class:`PlayerSpec` or a
player class whose ``__init__(seed, deal, **params)`` keyword defaults are
its parameters. A player that plays whole deals with its own code (the
solver) sets ``play_deal`` and may add ``extra_columns`` to the result rows.

>>> choice = parse_player("lookahead:depth=2")
>>> choice.label, choice.params["width"]
('lookahead:depth=2', 0)
>>> parse_player("greedy").label
'greedy'
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from ..core.deals import DEFAULT_SEED

DEFAULT_MAX_MOVES = 1000
ENTRY_POINT_GROUP = "castle.players"


class Player(Protocol):
    def choose(self, state) -> Any: ...


class UnknownPlayerError(KeyError):
    """A player name, parameter or value the registry does not know."""

    def __str__(self) -> str:
        return str(self.args[0])


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
    ``salt`` keys its random stream. ``factory(seed=, deal=, **params)``
    makes a move-by-move player of any other kind (``max_moves`` is the
    loop's, not passed on). ``play_deal(state, seed=, deal=, **params) ->
    GameRecord`` replaces the loop for players that play a deal with their
    own code; their ``extra_columns`` (name, Arrow type name) are added to
    the result rows from ``GameRecord.extra``. ``check(params)`` returns
    what is wrong with a set of values. ``version`` is bumped whenever the
    player's games change; it is in every row.
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

    @property
    def all_params(self) -> tuple[Param, ...]:
        names = {p.name for p in self.params}
        return self.params + (() if "max_moves" in names else (MAX_MOVES_PARAM,))

    @property
    def defaults(self) -> dict[str, int | float]:
        return {p.name: p.default for p in self.all_params}

    @property
    def compiled(self) -> bool:
        return self.kernel is not None


@dataclass(frozen=True)
class PlayerChoice:
    """A player with all its parameter values: one competitor of an experiment."""

    spec: PlayerSpec
    params: dict[str, int | float] = field(hash=False)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def label(self) -> str:
        """The name, plus the parameters that differ from their defaults (``lookahead:depth=2``)."""
        changed = [f"{k}={_fmt(v)}" for k, v in sorted(self.params.items()) if v != self.spec.defaults[k]]
        return self.spec.name + (":" + ",".join(changed) if changed else "")

    @property
    def params_json(self) -> str:
        """Every parameter value, as canonical JSON (the ``player_params`` column)."""
        return json.dumps(self.params, sort_keys=True, separators=(",", ":"))

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
            return resolve(self.spec.factory)(seed=seed, deal=deal, **self.own_params)
        if self.spec.kernel is not None:
            from .compiled import CompiledPlayer

            return CompiledPlayer(self, seed, deal)
        raise UnknownPlayerError(f"player {self.name} plays whole deals only, not move by move")


def _fmt(v: int | float) -> str:
    return repr(v) if isinstance(v, float) else str(v)


# --------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------

_PLAYERS: dict[str, PlayerSpec] = {}
_BUILTIN: set[str] = set()


def register(spec: PlayerSpec, *, builtin: bool = False) -> None:
    """Add a player to the registry (built-in names cannot be replaced)."""
    if spec.name in _BUILTIN:
        raise ValueError(f"player name {spec.name!r} is taken by a built-in player")
    if not spec.name or any(ch in spec.name for ch in ":,=/ "):
        raise ValueError(f"bad player name {spec.name!r}")
    _PLAYERS[spec.name] = spec
    if builtin:
        _BUILTIN.add(spec.name)


def spec_from_class(name: str, cls: type) -> PlayerSpec:
    """A spec for a plain player class: its ``__init__`` keyword defaults are its parameters."""
    params = []
    for p in inspect.signature(cls).parameters.values():
        if p.name in ("seed", "deal") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if isinstance(p.default, (int, float)) and not isinstance(p.default, bool):
            params.append(Param(p.name, p.default, ""))
    doc = inspect.getdoc(cls)
    return PlayerSpec(name, doc.splitlines()[0] if doc else "", tuple(params), factory=cls)


def _load_plugins() -> None:
    """Register the players of the ``castle.players`` entry-point group (a broken one is reported and skipped)."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            register(obj if isinstance(obj, PlayerSpec) else spec_from_class(ep.name, obj))
        except Exception as exc:  # a third party's bug must not break the command line
            print(f"castle: skipping player plug-in {ep.name!r}: {exc}", file=sys.stderr)


def registry() -> dict[str, PlayerSpec]:
    """Every known player: the built-in ones (:mod:`.builtin`) first, then the entry-point ones."""
    if not _BUILTIN:
        from .builtin import BUILTIN_PLAYERS

        for spec in BUILTIN_PLAYERS:
            register(spec, builtin=True)
        _load_plugins()
    return _PLAYERS


def find_player(name: str) -> PlayerSpec:
    players = registry()
    key = name.strip().lower()
    if key not in players:
        raise UnknownPlayerError(f"unknown player {name!r} (known: {', '.join(players)})")
    return players[key]


def choose_player(name: str, params: dict[str, Any] | None = None) -> PlayerChoice:
    """The named player with ``params`` (text or numbers) over its defaults, validated."""
    spec = find_player(name)
    known = {p.name: p for p in spec.all_params}
    values = spec.defaults
    for k, v in (params or {}).items():
        if k not in known:
            options = ", ".join(known) or "none"
            raise UnknownPlayerError(f"player {spec.name} has no parameter {k!r} (parameters: {options})")
        values[k] = known[k].coerce(v, spec.name)
    if values["max_moves"] < 1:  # a plug-in's own max_moves may have no range
        raise UnknownPlayerError(f"player {spec.name}: max_moves must be at least 1, got {values['max_moves']}")
    problem = spec.check(values) if spec.check else None
    if problem:
        raise UnknownPlayerError(f"player {spec.name}: {problem}")
    return PlayerChoice(spec, values)


def parse_player(text: str) -> PlayerChoice:
    """``"greedy"`` or ``"lookahead:depth=3,width=4"`` as a :class:`PlayerChoice` (each parameter once)."""
    name, _, rest = text.partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        k, eq, v = item.partition("=")
        k = k.strip()
        if not eq or not k:
            raise UnknownPlayerError(f"bad player parameter {item!r} in {text!r} (expected name=value)")
        if k in params:
            raise UnknownPlayerError(f"parameter {k!r} given twice in {text!r}")
        params[k] = v.strip()
    return choose_player(name, params)
