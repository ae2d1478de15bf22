"""An experiment: games x players x a deal range, from a TOML file and flags.

The file names what to play; command-line flags override it field by
field; :func:`build` validates the result into an :class:`Experiment`
whose :meth:`~Experiment.identity` is what a results directory must match
to be resumed (a different experiment is never mixed into it).

A file looks like ``experiments/default.toml``::

    name = "default"
    seed = 0
    deals = 2000                 # deals 1 to 2000; or: deal_range = "1:2001" (FIRST:END, END excluded)
    chunk_size = 500
    games = ["streets-and-alleys", "beleaguered-castle", "selective-castle"]

    [[players]]
    name = "random"

    [[players]]
    name = "lookahead"
    depth = 3                    # any other key is a player parameter

Deals are numbered as stored (PySol FC's game numbers, and the study's ranges, start at 1): a range
``FIRST:END`` plays ``FIRST`` to ``END - 1``, and a count ``N`` (``deals = N``, ``--deals N``, or the
default when neither is given) plays deals 1 to ``N``; deal 0 is played only when a range starts there
(``deal_range = "0:N"``).

``players`` may also be a list of strings like ``"lookahead:depth=3"``; ``out``
names the results folder (default ``data/<name>``).

``unknowns_of = ["data/published/precision-streets"]`` in place of the deals
plays only the deals those folders' exact runs left unknown at their full
budget (:mod:`.unknowns`), each game its own; a rerun takes the ones found
since (the list grows with its source, as a deal range may).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..core import files
from ..core.deals import DEFAULT_SEED, FIRST_DEAL, MAX_DEAL
from ..core.rules import STUDY_GAMES, Rules, UnknownDialectError, UnknownGameError, find_game
from ..players.spec import PlayerChoice, UnknownPlayerError
from ..players.registry import choose_player, parse_player
from .errors import ArgumentError, ExperimentError  # noqa: F401  (ExperimentError is named here too, where experiments are read)

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, as a package
    import tomli as tomllib

# what is played when neither the file nor the flags say (results go to DATA_DIR / <name> unless --out says)
DEFAULT_GAMES = tuple(g.slug for g in STUDY_GAMES)
DEFAULT_PLAYERS = ("random", "greedy", "strategist", "lookahead")
DEFAULT_DEALS = 1000
DEFAULT_CHUNK_SIZE = 5000
_KEYS = {"name", "seed", "deals", "deal_range", "chunk_size", "games", "players", "description", "out", "numbering",
         "unknowns_of"}
#: how deals are numbered: ``seed`` (deal N of the seed, the default) or ``pysol`` (PySol FC's game N)
NUMBERINGS = ("seed", "pysol")


@dataclass(frozen=True)
class Experiment:
    """What to play: every game with every player on deals ``first`` to ``end - 1`` of ``seed``."""

    name: str
    games: tuple[Rules, ...]
    players: tuple[PlayerChoice, ...]
    seed: int = DEFAULT_SEED
    first: int = FIRST_DEAL
    end: int = FIRST_DEAL + DEFAULT_DEALS
    chunk_size: int = DEFAULT_CHUNK_SIZE
    description: str = ""
    out: str | None = None  #: the results folder the file names (relative to where the command runs), if any
    unknowns_of: tuple[str, ...] = ()  #: the folders whose unknown deals are played (none: every deal of the range)
    only: tuple[tuple[str, tuple[int, ...]], ...] = ()  #: with ``unknowns_of``: per game (full name), its deals

    @property
    def n_deals(self) -> int:
        return self.end - self.first

    def deals_of(self, game: str) -> tuple[int, ...] | None:
        """The deals ``game`` (a full name) plays when they are listed (``unknowns_of``); None: the whole range."""
        return dict(self.only).get(game, ()) if self.unknowns_of else None

    @property
    def n_games(self) -> int:
        """Games to play in all: deals x games x players."""
        if self.unknowns_of:
            return sum(len(d) for _, d in self.only) * len(self.players)
        return self.n_deals * len(self.games) * len(self.players)

    def identity(self, engine_version: int) -> dict[str, Any]:
        """Everything that decides the rows: a directory holding another identity is not resumed into."""
        return {
            "games": {g.full_slug: g.version for g in self.games},
            "players": {p.label: p.params for p in self.players},
            "player_versions": {p.label: p.spec.version for p in self.players},
            "player_roles": {p.label: p.spec.role for p in self.players},  # (what its rows are; no rows depend on it)
            "seed": self.seed,
            "deal_range": [self.first, self.end],
            "chunk_size": self.chunk_size,
            "engine_version": engine_version,
        } | ({"unknowns_of": list(self.unknowns_of), "deals": {g: list(d) for g, d in self.only}} if self.unknowns_of else {}) \
          | ({"player_sources": sources} if (sources := self.player_sources()) else {})

    def player_sources(self) -> dict[str, dict[str, str]]:
        """Where each player loaded from a file or module came from, and its code's SHA-256 (by label)."""
        return {p.label: {"source": p.spec.source.label, "sha256": p.spec.source.sha256}
                for p in self.players if p.spec.source is not None}


def read_toml(path: str | Path) -> dict[str, Any]:
    """The experiment file's table, or one clear :class:`ExperimentError`."""
    p = Path(path)
    try:
        data = tomllib.loads(files.read_text(p, files.EXPERIMENT, "an experiment file"))
    except FileNotFoundError:
        raise ExperimentError(f"no experiment file {str(p)!r}") from None
    except IsADirectoryError:
        raise ExperimentError(f"{str(p)!r} is a directory, not an experiment file") from None
    except OSError as e:
        raise ExperimentError(f"cannot read {str(p)!r}: {e.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ExperimentError(f"{str(p)!r} is not valid TOML: {e}") from None
    except RecursionError:  # arrays in arrays a million deep
        raise ExperimentError(f"{str(p)!r} is not valid TOML: nested too deeply") from None
    data.setdefault("name", p.stem)
    return data


_DIGITS = re.compile(r"[0-9]+")


def parse_deal_range(text: str) -> tuple[int, int]:
    """``"A:B"`` (deals A to B-1) as a pair, checked."""
    a, sep, b = str(text).partition(":")
    a, b = a.strip(), b.strip()
    if not sep or not _DIGITS.fullmatch(a) or not _DIGITS.fullmatch(b):  # ASCII digits only: int() takes "1_000" and "１７"
        raise ExperimentError(f"bad deal range {text!r}: expected FIRST:END, e.g. 0:1000")
    pair = (int(a), int(b))
    return _check_range(*pair)


def _check_range(first: int, end: int) -> tuple[int, int]:
    if first < 0 or end > MAX_DEAL:
        raise ExperimentError(f"deal range {first}:{end} is outside 0 to 2**63-1")
    if end <= first:
        raise ExperimentError(f"deal range {first}:{end} holds no deals (END must exceed FIRST)")
    return first, end


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ExperimentError(f"{what} must be an integer, got {value!r}")
    return value


#: the most random streams a run plays a player on each deal (``streams = N`` in its table)
MAX_STREAMS = 1000


def _players(entry: Any) -> list[PlayerChoice]:
    """An entry of the file's players: one choice, or with ``streams = N`` the player on its streams 0 to N-1
    (a player that draws random numbers answers each deal N times: more of what it wins, deal by deal)."""
    if not isinstance(entry, dict) or "streams" not in entry:
        return [_player(entry)]
    n = entry["streams"]
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_STREAMS:
        raise ExperimentError(f"player {entry.get('name')}: streams must be a whole number 1 to {MAX_STREAMS}, got {n!r}")
    rest = {k: v for k, v in entry.items() if k != "streams"}
    if "stream" in rest or isinstance(rest.get("params"), dict) and "stream" in rest["params"]:
        raise ExperimentError(f"player {entry.get('name')}: give streams or stream, not both")
    return [_player({**rest, "stream": k}) for k in range(n)]


def _player(entry: Any) -> PlayerChoice:
    if isinstance(entry, str):
        return parse_player(entry)
    if isinstance(entry, dict) and isinstance(entry.get("name"), str):
        params = {k: v for k, v in entry.items() if k != "name"}
        if isinstance(params.get("params"), dict):  # [players.params] sub-table
            sub = params.pop("params")
            both = sorted(set(params) & set(sub))
            if both:
                raise ExperimentError(f"player {entry['name']}: {', '.join(both)} given both beside name and in params; give each once")
            params = {**params, **sub}
        return choose_player(entry["name"], params)
    raise ExperimentError(f"a player must be a name or a table with a name, got {entry!r}")


#: the longest game a player may be asked to play (``max_moves``): its record buffers are sized by it (a million
#: moves is about 64 MB of them; the study's games stop at 1,000)
MAX_MAX_MOVES = 1_000_000
#: the compiled kernels take 64-bit integers
_INT64 = 1 << 63


def check_numbers(choice: PlayerChoice) -> None:
    """Parameter values the kernels can take: 64-bit integers, and a move cap whose buffers fit in memory.

    (The registry checks each parameter's own range; these bounds hold for every player, plug-ins included, and
    for every command that plays one: ``castle play`` and ``castle replay`` too.)
    """
    if choice.max_moves > MAX_MAX_MOVES:
        raise ExperimentError(f"player {choice.name}: max_moves must be 1 to {MAX_MAX_MOVES:,}, got {choice.max_moves}")
    for k, v in choice.params.items():
        if isinstance(v, int) and not -_INT64 <= v < _INT64:
            raise ExperimentError(f"player {choice.name}: {k} = {v} is too large (at most 2**63-1)")


def _text(value: Any, what: str) -> str:
    """A name, folder or description: a string without control characters (a NUL cannot be in a path; a newline
    would make a folder whose name breaks every listing)."""
    if not isinstance(value, str):
        raise ExperimentError(f"{what} must be a string, got {value!r}")
    bad = sorted({c for c in value if unicodedata.category(c) == "Cc" and (what != "description" or c not in "\n\t")})
    if bad:
        raise ExperimentError(f"{what} {value!r} holds a control character ({', '.join(repr(c) for c in bad)})")
    return value


def build(
    data: dict[str, Any] | None = None,
    *,
    games: list[str] | None = None,
    players: list[str] | None = None,
    deals: int | None = None,
    deal_range: str | None = None,
    seed: int | None = None,
    chunk_size: int | None = None,
    name: str | None = None,
    from_file: bool = False,
) -> Experiment:
    """The experiment of table ``data`` with the given flags overriding it.

    An experiment file (``from_file``) must say what it plays: its games, its
    players and its deals, unless the flags do; only flags alone fall back to
    the defaults, and an empty list is never a default.
    """
    data = dict(data or {})
    unknown = set(data) - _KEYS
    if unknown:
        raise ExperimentError(f"unknown experiment field(s): {', '.join(sorted(unknown))} (known: {', '.join(sorted(_KEYS))})")
    if from_file:
        missing = [k for k, flag in (("games", games), ("players", players)) if k not in data and not flag]
        if "deals" not in data and "deal_range" not in data and "unknowns_of" not in data and deals is None and deal_range is None:
            missing.append("deals (or deal_range)")
        if missing:
            raise ExperimentError(f"the experiment file does not say its {', '.join(missing)}")
    for key in ("games", "players"):
        if key in data and data[key] == []:
            raise ExperimentError(f"{key} is an empty list")
    try:
        game_names = games or data.get("games") or list(DEFAULT_GAMES)
        if isinstance(game_names, str) or not isinstance(game_names, list):
            raise ExperimentError(f"games must be a list of names, got {game_names!r}")
        rules = tuple(dict.fromkeys(find_game(str(g)) for g in game_names))
        if players:
            choices = [parse_player(p) for p in players]
        else:
            entries = data.get("players", list(DEFAULT_PLAYERS))
            if not isinstance(entries, list) or not entries:
                raise ExperimentError("players must be a non-empty list")
            choices = [c for e in entries for c in _players(e)]
    except (UnknownGameError, UnknownDialectError, UnknownPlayerError) as e:
        raise ExperimentError(str(e)) from None
    for c in choices:
        check_numbers(c)
    labels = [c.label for c in choices]
    dupes = sorted({x for x in labels if labels.count(x) > 1})
    if dupes:
        raise ExperimentError(f"player listed twice: {', '.join(dupes)}")

    if deals is not None and deal_range is not None:
        raise ArgumentError("give {deals} or {deal_range}, not both")
    if "unknowns_of" in data and (deals is not None or deal_range is not None):
        raise ArgumentError("an experiment with unknowns_of plays the deals its folders left unknown: give no {deals} or {deal_range}")
    if "unknowns_of" in data and ("deals" in data or "deal_range" in data):
        raise ExperimentError("an experiment with unknowns_of plays the deals its folders left unknown: give no deals or deal_range")
    if deals is not None:
        first, end = _counted(deals, "{deals}")
    elif deal_range is not None:
        first, end = parse_deal_range(deal_range)
    elif "deals" in data and "deal_range" in data:
        raise ExperimentError("the experiment file gives both deals and deal_range")
    elif "deals" in data:
        first, end = _counted(_int(data["deals"], "deals"), "deals")
    elif "deal_range" in data:
        dr = data["deal_range"]
        if isinstance(dr, list) and len(dr) == 2:
            first, end = _check_range(_int(dr[0], "deal_range"), _int(dr[1], "deal_range"))
        else:
            first, end = parse_deal_range(dr)
    else:
        first, end = FIRST_DEAL, FIRST_DEAL + DEFAULT_DEALS

    seed = _int(seed if seed is not None else data.get("seed", DEFAULT_SEED), "seed")
    if not 0 <= seed <= MAX_DEAL:
        raise ExperimentError(f"seed {seed} is outside 0 to 2**63-1")
    numbering = data.get("numbering", "seed")
    if numbering not in NUMBERINGS:
        raise ExperimentError(f"numbering must be one of {', '.join(NUMBERINGS)}, got {numbering!r}")
    if numbering == "pysol":
        seed = _pysol_numbering(rules, choices, first, "seed" in data)
    chunk = _count(_int(chunk_size if chunk_size is not None else data.get("chunk_size", DEFAULT_CHUNK_SIZE), "chunk_size"), "chunk size")
    name = name or data.get("name", "adhoc")  # a file's name = "" (or false, 0) is refused, not made "adhoc"
    if not isinstance(name, str) or not name.strip() or "/" in name or "\\" in name or name.startswith(".") or name != name.strip():
        raise ExperimentError(f"bad experiment name {name!r}")
    _text(name, "experiment name")
    out = data.get("out")
    if out is not None and (not isinstance(out, str) or not out.strip()):
        raise ExperimentError(f"out must be a folder name, got {out!r}")
    if out is not None:
        _text(out, "out")
    description = _text(data.get("description", ""), "description")
    if "unknowns_of" in data:
        return unknowns_experiment(data["unknowns_of"], Experiment(name, rules, tuple(choices), seed, 0, 0, chunk, description, out))
    return Experiment(name, rules, tuple(choices), seed, first, end, chunk, description, out)


def unknowns_experiment(folders: Any, exp: Experiment) -> Experiment:
    """``exp`` playing the deals ``folders``' exact runs left unknown (:mod:`.unknowns`)."""
    from .unknowns import unknown_deals

    if isinstance(folders, str):
        folders = [folders]
    if not isinstance(folders, list) or not folders or not all(isinstance(f, str) and f.strip() for f in folders):
        raise ExperimentError(f"unknowns_of must name results folders, got {folders!r}")
    only = unknown_deals(folders, exp.games, exp.seed)
    every = [d for deals in only.values() for d in deals]
    first, end = (min(every), max(every) + 1) if every else (0, 0)
    return replace(exp, first=first, end=end, unknowns_of=tuple(folders), only=tuple(sorted(only.items())))


def _pysol_numbering(rules, choices, first: int, seed_given: bool) -> int:
    """PySol FC's numbering: deals are its game numbers (dealt through pysol-cards, and handed to a compiled
    player's loop as starting positions); the rows carry :data:`~sim.core.deals.PYSOL_SEED` as their seed."""
    from ..core.deals import PYSOL_SEED

    if seed_given:
        raise ExperimentError("numbering = \"pysol\" numbers deals by PySol's game numbers: give no seed")
    missing = [g.slug for g in rules if g.pysol_name is None]
    if missing:
        raise ExperimentError(f"PySol deals no game numbers for {', '.join(missing)}")
    if first < 1:
        raise ExperimentError("PySol game numbers start at 1: the deal range must too")
    return PYSOL_SEED


def _count(n: int, what: str, most: int = MAX_DEAL) -> int:
    """``n`` checked as a count of ``what`` (an argument's field of :data:`~.errors.NAMES`, as ``"{deals}"``, or words)."""
    if n <= 0:
        raise ArgumentError(f"{what} must be positive, got {{got}}", got=n)
    if n > most:  # deals are numbered 0 to 2**63-1 (and a chunk holds no more)
        raise ArgumentError(f"{what} must be at most 2**63-{(1 << 63) - most}, got {{got}}", got=n)
    return n


def _counted(n: int, what: str) -> tuple[int, int]:
    """A count of deals as its range: deals 1 to ``n`` (the range's END, ``n + 1``, is a deal number too)."""
    return FIRST_DEAL, FIRST_DEAL + _count(n, what, most=MAX_DEAL - FIRST_DEAL)
