"""Players, their registry, and the one play loop every player goes through.

A player is any object with ``choose(state) -> Move | None`` (None: it gives
up) that receives its random stream when it is made, as in OpenSpiel. The
registry maps a name to a :class:`PlayerSpec`: its parameters with defaults,
how to make it, and, for compiled players, the kernel kind that lets the
runner play whole chunks inside numba (:mod:`sim.compiled_players`). The
Python-side objects of compiled players call the very same decision kernel
move by move, so both paths give the same game.

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

import inspect
import json
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from . import compiled_players as K
from . import engine as E
from .deals import DEFAULT_SEED
from .game import Game, State
from .moves import Move
from .rules import FoundationBase
from .solver import DEFAULT_BUDGET_NODES, DEFAULT_BUDGET_SECONDS, DEFAULT_TABLE_SIZE

DEFAULT_MAX_MOVES = 1000
ENTRY_POINT_GROUP = "castle.players"


class Player(Protocol):
    def choose(self, state: State) -> Move | None: ...


class UnknownPlayerError(KeyError):
    """A player name, parameter or value the registry does not know."""

    def __str__(self) -> str:
        return str(self.args[0])


# --------------------------------------------------------------------------
# parameters and specs
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One player parameter: its name, default (whose type it keeps) and meaning."""

    name: str
    default: int | float
    help: str

    def coerce(self, value: Any, player: str) -> int | float:
        """``value`` (text from the command line, or a TOML value) as this parameter's type."""
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
                if not np.isfinite(out):
                    raise ValueError
        except (TypeError, ValueError):
            raise UnknownPlayerError(
                f"player {player}: parameter {self.name} must be {'an integer' if kind is int else 'a number'}, got {value!r}"
            ) from None
        return out


MAX_MOVES_PARAM = Param("max_moves", DEFAULT_MAX_MOVES, "move cap: the game is given up after this many moves")


@dataclass(frozen=True)
class PlayerSpec:
    """Everything the registry knows about a player.

    ``factory(seed=, deal=, **params)`` makes a move-by-move player
    (``max_moves`` is the loop's, not passed on). ``kind`` names the compiled
    kernel that plays whole chunks (None: Python only). ``play_deal(state,
    seed=, deal=, **params) -> GameRecord`` replaces the move loop for
    players that play a deal with their own code; their ``extra_columns``
    (name, Arrow type name) are added to the result rows from
    ``GameRecord.extra``.
    """

    name: str
    summary: str
    params: tuple[Param, ...] = ()
    factory: Callable[..., Player] | None = None
    kind: int | None = None
    salt: int = 0
    play_deal: Callable[..., "GameRecord"] | None = None
    extra_columns: tuple[tuple[str, str], ...] = ()
    check: Callable[[dict], str | None] | None = None

    @property
    def all_params(self) -> tuple[Param, ...]:
        names = {p.name for p in self.params}
        return self.params + (() if "max_moves" in names else (MAX_MOVES_PARAM,))

    @property
    def defaults(self) -> dict[str, int | float]:
        return {p.name: p.default for p in self.all_params}


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
        return {k: v for k, v in self.params.items() if k != "max_moves" or any(p.name == "max_moves" for p in self.spec.params)}

    def make(self, seed: int = DEFAULT_SEED, deal: int = 0) -> Player:
        if self.spec.factory is None:
            raise UnknownPlayerError(f"player {self.name} plays whole deals only, not move by move")
        return self.spec.factory(seed=seed, deal=deal, **self.own_params)


def _fmt(v: int | float) -> str:
    return repr(v) if isinstance(v, float) else str(v)


# --------------------------------------------------------------------------
# built-in players
# --------------------------------------------------------------------------


class RandomPlayer:
    """Uniform random legal move: the floor every other player must beat."""

    name = "random"
    #: salt of the random stream, so players with the same seed do not share draws
    SALT = 1

    def __init__(self, seed: int = DEFAULT_SEED, deal: int = 0):
        self._rng = np.zeros(1, np.uint64)
        E.seed_rng(self._rng, seed, deal, self.SALT)

    def choose(self, state: State) -> Move | None:
        actions = state.legal_moves.actions()
        if len(actions) == 0:
            return None
        return Move.from_action(int(actions[E.rand_below(self._rng, len(actions))]))


#: parameter name -> slot of the compiled players' weight array
_WEIGHT_SLOTS = {
    "home": K.W_HOME,
    "empty": K.W_EMPTY,
    "dig": K.W_DEPTH,
    "block": K.W_BLOCK,
    "seq": K.W_SEQ,
    "balance": K.W_BALANCE,
    "wrap": K.W_WRAP,
    "depth": K.P_DEPTH,
    "width": K.P_WIDTH,
    "keep_empty": K.P_KEEP_EMPTY,
    "choose_base": K.P_CHOOSE_BASE,
    "mobility": K.W_MOBILITY,
}

_EVAL_PARAMS = (
    Param("home", 10.0, "score per card on the foundations"),
    Param("empty", 3.0, "score per empty tableau pile"),
    Param("dig", 1.0, "penalty per card above each suit's next needed card"),
    Param("block", 1.0, "penalty per card lying above a card needed before it"),
    Param("seq", 0.5, "score per card resting on a card it could be built on"),
    Param("mobility", 0.5, "score per legal move (up to 16); a position without one scores -1e6"),
)


def weights(params: dict[str, int | float]) -> np.ndarray:
    """The float64 weight array the compiled players read, from named parameters."""
    w = np.zeros(K.N_WEIGHTS, np.float64)
    w[K.P_DEPTH] = 1
    for k, v in params.items():
        if k in _WEIGHT_SLOTS:
            w[_WEIGHT_SLOTS[k]] = v
    return w


class CompiledPlayer:
    """Move-by-move face of a compiled player: one call of the decision kernel per move.

    Keeps the player's memory (the seen-set, the chosen base) between calls,
    exactly as :func:`sim.compiled_players.play_chunk` does inside a chunk.
    """

    name = ""
    KIND = K.GREEDY
    SALT = 0

    def __init__(self, seed: int = DEFAULT_SEED, deal: int = 0, max_moves: int = DEFAULT_MAX_MOVES, **params: float):
        defaults = {k: v for k, v in PLAYERS[self.name].defaults.items() if k != "max_moves"}
        unknown = set(params) - set(defaults)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no parameter(s) {', '.join(sorted(unknown))}")
        self.params = {**defaults, **params}
        self._w = weights(self.params)
        self._rng = np.zeros(1, np.uint64)
        E.seed_rng(self._rng, seed, deal, self.SALT)
        cap = K.table_capacity(max_moves + 16)
        self._table = np.zeros(cap, np.uint64)
        self._used = np.zeros(cap, np.int64)
        self._meta = np.zeros(2, np.int64)
        self._tb = np.full(4, -1, np.int64)

    def choose(self, state: State) -> Move | None:
        if self._meta[K.M_USED] * 2 >= len(self._table):  # a longer game than planned: grow the set
            self._grow()
        a = K.choose_move(state._s, state._r, self.KIND, self._w, self._rng, self._table, self._used, self._meta, self._tb)
        return None if a < 0 else Move.from_action(int(a))

    def _grow(self) -> None:
        keys = self._table[self._used[: self._meta[K.M_USED]]]
        cap = len(self._table) * 2
        self._table = np.zeros(cap, np.uint64)
        self._used = np.zeros(cap, np.int64)
        done = self._meta[K.M_TB_DONE]
        self._meta[:] = 0
        for h in keys:
            K._remember(self._table, self._used, self._meta, h)
        self._meta[K.M_TB_DONE] = done


class GreedyPlayer(CompiledPlayer):
    """A foundation move whenever one exists, else the best-scoring move to an unseen position."""

    name = "greedy"
    KIND = K.GREEDY
    SALT = 2


class LookaheadPlayer(GreedyPlayer):
    """Greedy's score searched several moves ahead (depth; width: only the best children)."""

    name = "lookahead"
    SALT = 3


class StrategistPlayer(CompiledPlayer):
    """The rule sheet's human advice: chosen base, even banking, the wrap, empty piles kept."""

    name = "strategist"
    KIND = K.STRATEGIST
    SALT = 4


def _check_search(params: dict) -> str | None:
    if not 1 <= params["depth"] <= K.MAX_SEARCH_DEPTH:
        return f"depth must be 1 to {K.MAX_SEARCH_DEPTH}, got {params['depth']}"
    if params["width"] < 0:
        return f"width must be 0 (all) or more, got {params['width']}"
    return None


def _check_max_moves(params: dict) -> str | None:
    if params["max_moves"] < 1:
        return f"max_moves must be at least 1, got {params['max_moves']}"
    return None


def _solver_play_deal(state: State, seed: int, deal: int, budget_nodes: int, budget_seconds: float,
                      table_size: int, bases: int, max_moves: int) -> "GameRecord":
    """The exact solver as a player: its verdict, and on a win the solution replayed for the row.

    Extra columns: ``nodes`` searched; with ``bases=1`` (games with a base
    choice) ``bases_won`` / ``bases_unknown``, 13-bit masks of the base
    ranks that win / stayed unresolved.
    """
    from .solver import solve

    res = solve(Game(state.rules), state, budget_nodes=budget_nodes, budget_seconds=budget_seconds,
                table_size=table_size, bases=bool(bases) and state.rules.foundation_base == FoundationBase.FIRST_CARD_SHARED)
    extra: dict[str, Any] = {"nodes": int(res.nodes)}
    if res.bases is not None:
        extra["bases_won"] = sum(1 << b for b, r in res.bases.items() if r == "won")
        extra["bases_unknown"] = sum(1 << b for b, r in res.bases.items() if r == "unknown")
    seen = {state.hash()}
    max_empty = _empty_piles(state)
    for move in res.moves:  # the solution, replayed: base chosen, empty piles, positions
        state.push(move)
        seen.add(state.hash())
        max_empty = max(max_empty, _empty_piles(state))
    base = state.base_rank if res.moves and state.rules.foundation_base == FoundationBase.FIRST_CARD_SHARED else None
    return GameRecord(res.result, list(res.moves), state.cards_home, base, max_empty, len(seen), extra)


def _check_solver(values: dict) -> str | None:
    if values["budget_nodes"] < 1 or values["budget_seconds"] <= 0:
        return "budget_nodes >= 1 and budget_seconds > 0 are needed"
    size = values["table_size"]
    if size < 1024 or size & (size - 1):
        return f"table_size must be a power of two of at least 1024, not {size}"
    if values["bases"] not in (0, 1):
        return "bases must be 0 or 1"
    return None


SOLVER_SPEC = PlayerSpec(
    "solver",
    "The exact solver: won (with a replayed solution), lost (proved) or unknown (budget spent).",
    (
        Param("budget_nodes", DEFAULT_BUDGET_NODES, "nodes searched at most per deal"),
        Param("budget_seconds", DEFAULT_BUDGET_SECONDS, "CPU seconds at most per deal"),
        Param("table_size", DEFAULT_TABLE_SIZE, "transposition table capacity (slots; 16 bytes each; all bases together)"),
        Param("bases", 0, "1: solve each base rank of Selective Castle (bases_won, bases_unknown columns)"),
    ),
    play_deal=_solver_play_deal,
    extra_columns=(("nodes", "int64"), ("bases_won", "int16"), ("bases_unknown", "int16")),
    check=_check_solver,
)


BUILTIN_PLAYERS: tuple[PlayerSpec, ...] = (
    PlayerSpec("random", RandomPlayer.__doc__.strip(), (), RandomPlayer, K.RANDOM, RandomPlayer.SALT),
    PlayerSpec(
        "greedy",
        GreedyPlayer.__doc__.strip(),
        _EVAL_PARAMS
        + (
            Param("depth", 1, "moves searched ahead (1: one move; more: as lookahead)"),
            Param("width", 0, "children searched per position, best first (0: all)"),
        ),
        GreedyPlayer,
        K.GREEDY,
        GreedyPlayer.SALT,
        check=_check_search,
    ),
    PlayerSpec(
        "strategist",
        StrategistPlayer.__doc__.strip(),
        _EVAL_PARAMS
        + (
            Param("balance", 1.0, "penalty per card the leading suit is ahead of the last"),
            Param("wrap", 2.0, "bonus for putting a King on an Ace (games whose tableau wraps)"),
            Param("keep_empty", 2.0, "cost of filling an empty pile with anything but a King without uncovering a card that can then move"),
            Param("choose_base", 1, "1: choose the base rank from the whole board (sum of depths of its four cards)"),
        ),
        StrategistPlayer,
        K.STRATEGIST,
        StrategistPlayer.SALT,
    ),
    PlayerSpec(
        "lookahead",
        LookaheadPlayer.__doc__.strip(),
        _EVAL_PARAMS
        + (
            Param("depth", 3, "moves searched ahead"),
            Param("width", 0, "children searched per position, best first (0: all)"),
        ),
        LookaheadPlayer,
        K.GREEDY,
        LookaheadPlayer.SALT,
        check=_check_search,
    ),
    SOLVER_SPEC,
)

#: name -> spec; entry-point players are added on first lookup (see :func:`registry`)
PLAYERS: dict[str, PlayerSpec] = {spec.name: spec for spec in BUILTIN_PLAYERS}
_plugins_loaded = False


def register(spec: PlayerSpec) -> None:
    """Add a player to the registry (built-in names cannot be replaced)."""
    if spec.name in {b.name for b in BUILTIN_PLAYERS}:
        raise ValueError(f"player name {spec.name!r} is taken by a built-in player")
    if not spec.name or any(ch in spec.name for ch in ":,=/ "):
        raise ValueError(f"bad player name {spec.name!r}")
    PLAYERS[spec.name] = spec


def spec_from_class(name: str, cls: type) -> PlayerSpec:
    """A spec for a plain player class: its ``__init__`` keyword defaults are its parameters."""
    params = []
    for p in inspect.signature(cls).parameters.values():
        if p.name in ("seed", "deal") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if isinstance(p.default, (int, float)) and not isinstance(p.default, bool):
            params.append(Param(p.name, p.default, ""))
    summary = (inspect.getdoc(cls) or "").splitlines()[0] if inspect.getdoc(cls) else ""
    return PlayerSpec(name, summary, tuple(params), cls, salt=0)


def _load_plugins() -> None:
    """Register the players of the ``castle.players`` entry-point group (a broken one is reported and skipped)."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            spec = obj if isinstance(obj, PlayerSpec) else spec_from_class(ep.name, obj)
            register(spec)
        except Exception as exc:  # a third party's bug must not break the command line
            print(f"castle: skipping player plug-in {ep.name!r}: {exc}", file=sys.stderr)


def registry() -> dict[str, PlayerSpec]:
    """Every known player, built-in first, then the entry-point ones."""
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        _load_plugins()
    return PLAYERS


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
    for check in (_check_max_moves, spec.check):
        problem = check(values) if check else None
        if problem:
            raise UnknownPlayerError(f"player {spec.name}: {problem}")
    return PlayerChoice(spec, values)


def parse_player(text: str) -> PlayerChoice:
    """``"greedy"`` or ``"lookahead:depth=3,width=4"`` as a :class:`PlayerChoice`."""
    name, _, rest = text.partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        k, eq, v = item.partition("=")
        if not eq or not k.strip():
            raise UnknownPlayerError(f"bad player parameter {item!r} in {text!r} (expected name=value)")
        params[k.strip()] = v.strip()
    return choose_player(name, params)


def make_player(name: str, seed: int = DEFAULT_SEED, deal: int = 0) -> Player:
    """The move-by-move player named by ``name`` (with optional ``:k=v`` parameters)."""
    return parse_player(name).make(seed, deal)


# --------------------------------------------------------------------------
# the play loop
# --------------------------------------------------------------------------


@dataclass
class GameRecord:
    """One game played: what a result row is made of."""

    result: str  #: won, stuck or gave_up (a solver: won, lost or unknown)
    moves: list[Move] = field(default_factory=list)
    cards_home: int = 0
    base_rank: int | None = None
    max_empty_piles: int = 0
    positions: int = 0  #: distinct positions the game passed through, start and end included
    extra: dict[str, Any] = field(default_factory=dict)  #: a player's own columns (the solver's nodes)

    @property
    def won(self) -> bool:
        return self.result == "won"


def _empty_piles(state: State) -> int:
    return sum(1 for p in range(state.rules.n_tableau) if state._s[E.S_HEIGHT + p] == 0)


def play(state: State, player: Player, max_moves: int = DEFAULT_MAX_MOVES) -> GameRecord:
    """Let ``player`` play ``state`` until won, stuck, given up or ``max_moves``."""
    start = len(state.move_stack)
    result = "gave_up"
    seen = {state.hash()}
    max_empty = _empty_piles(state)
    while len(state.move_stack) - start < max_moves:
        if state.is_won():
            result = "won"
            break
        if len(state.legal_moves) == 0:
            result = "stuck"
            break
        move = player.choose(state)
        if move is None:
            break
        state.push(move)
        seen.add(state.hash())
        max_empty = max(max_empty, _empty_piles(state))
    else:
        if state.is_won():
            result = "won"
    base = state.base_rank if state.rules.foundation_base == FoundationBase.FIRST_CARD_SHARED else None
    return GameRecord(result, state.move_stack[start:], state.cards_home, base, max_empty, len(seen))


def play_choice(choice: PlayerChoice, state: State, seed: int = DEFAULT_SEED, deal: int = 0) -> GameRecord:
    """Play ``state`` with a configured player: its own ``play_deal`` if it has one, else the loop."""
    if choice.spec.play_deal is not None:
        return choice.spec.play_deal(state, seed=seed, deal=deal, **choice.params)
    return play(state, choice.make(seed, deal), choice.max_moves)


def play_deal(game: Game, player_name: str, deal: int, seed: int = DEFAULT_SEED, max_moves: int | None = None) -> GameRecord:
    """Deal ``deal`` of ``seed`` and let the named player (``name[:k=v,...]``) play it."""
    choice = parse_player(player_name)
    if max_moves is not None:
        choice = choose_player(choice.name, {**choice.params, "max_moves": max_moves})
    return play_choice(choice, game.deal(deal, seed), seed, deal)
