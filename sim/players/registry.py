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

import dataclasses
import sys
from typing import Any

from .sources import is_reference, read_reference, spec_of, split_reference
from .spec import MAX_STREAM, STREAM, PlayerChoice, PlayerSpec, UnknownPlayerError, spec_from_class

ENTRY_POINT_GROUP = "castle.players"


# --------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------

_PLAYERS: dict[str, PlayerSpec] = {}
_BUILTIN: set[str] = set()


def register(spec: PlayerSpec, *, builtin: bool = False) -> None:
    """Add a player to the registry (built-in names cannot be replaced). Its name is kept lower case, as
    :func:`find_player` looks names up: a plug-in registered as ``MixedCase`` is listed, chosen and labelled
    ``mixedcase`` (it was listed under a name no ``--player`` reached)."""
    if isinstance(spec.name, str) and spec.name != spec.name.lower():
        spec = dataclasses.replace(spec, name=spec.name.lower())
    if spec.name in _BUILTIN:
        raise ValueError(f"player name {spec.name!r} is taken by a built-in player")
    if not spec.name or any(ch in spec.name for ch in ":,=/ "):
        raise ValueError(f"bad player name {spec.name!r}")
    _PLAYERS[spec.name] = spec
    if builtin:
        _BUILTIN.add(spec.name)


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


def is_builtin(spec: PlayerSpec) -> bool:
    """Is ``spec`` one of the toolkit's own players (not a plug-in's, nor a file's)?"""
    registry()
    return spec.source is None and spec.name in _BUILTIN and _PLAYERS.get(spec.name) is spec


def role_of(name: str) -> str | None:
    """The role (:data:`~.spec.ROLES`) of the registered player ``name`` (a label's name: ``phased`` of
    ``phased:rate=0.1``), or None for a name the registry does not know (a file's player, a plug-in not installed)."""
    spec = registry().get(str(name).split(":", 1)[0].strip().lower())
    return None if spec is None else spec.role


def names_of(*roles: str) -> list[str]:
    """The registered players whose role is one of ``roles``, in the registry's order."""
    return [name for name, spec in registry().items() if spec.role in roles]


def find_player(name: str) -> PlayerSpec:
    """The spec of a registered player, or of a player in a file or module (``my_players.py:Name``, :mod:`.sources`)."""
    if is_reference(name):
        ref, attr, params = split_reference(name)
        if params:
            raise UnknownPlayerError(f"player {name!r}: give its parameters apart from its name")
        spec = spec_of(read_reference(ref, attr))
        if spec.name.lower() in registry():  # rows would not tell it from the registered player
            raise UnknownPlayerError(f"player {spec.name}: the name of a built-in or installed player; name yours otherwise")
        return spec
    players = registry()
    key = name.strip().lower()
    if key not in players:
        raise UnknownPlayerError(f"unknown player {name!r} (known: {', '.join(players)})")
    return players[key]


def choose_player(name: str, params: dict[str, Any] | None = None) -> PlayerChoice:
    """The named player with ``params`` (text or numbers) over its defaults, validated."""
    return choose_from_spec(find_player(name), params)


def choose_from_spec(spec: PlayerSpec, params: dict[str, Any] | None = None) -> PlayerChoice:
    """The player of ``spec`` with ``params`` (text or numbers) over its defaults, validated."""
    known = {p.name: p for p in spec.all_params}
    values = spec.defaults
    params = dict(params or {})
    stream = _stream(spec, params.pop(STREAM)) if STREAM in params and STREAM not in known else 0
    for k, v in params.items():
        if k not in known:
            options = ", ".join(known) or "none"
            raise UnknownPlayerError(f"player {spec.name} has no parameter {k!r} (parameters: {options})")
        values[k] = known[k].coerce(v, spec.name)
    if values["max_moves"] < 1:  # a plug-in's own max_moves may have no range
        raise UnknownPlayerError(f"player {spec.name}: max_moves must be at least 1, got {values['max_moves']}")
    problem = spec.check(values) if spec.check else None
    if problem:
        raise UnknownPlayerError(f"player {spec.name}: {problem}")
    return PlayerChoice(spec, values, stream)


def _stream(spec: PlayerSpec, value: Any) -> int:
    """A choice's random stream (:attr:`PlayerChoice.stream`), checked: a whole number the player can take."""
    text = str(value).strip()
    whole = not isinstance(value, bool) and (isinstance(value, int) or text.isascii() and text.isdigit())
    if not whole or not 0 <= int(text) <= MAX_STREAM:
        raise UnknownPlayerError(f"player {spec.name}: stream must be a whole number 0 to {MAX_STREAM}, got {value!r}")
    stream = int(text)
    if stream and not spec.takes_stream():
        raise UnknownPlayerError(f"player {spec.name} draws no random stream a run can change (a Python player's class "
                                 f"takes a stream keyword to play several)")
    return stream


def parse_player(text: str) -> PlayerChoice:
    """``"greedy"``, ``"lookahead:depth=3,width=4"`` or ``"my_players.py:Mine:depth=2"`` as a :class:`PlayerChoice`
    (each parameter once)."""
    if is_reference(text):
        ref, attr, rest = split_reference(text)
        name = f"{ref}:{attr}"
    else:
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
