"""A researcher's own players, from a file or a module: ``my_players.py:Name`` or ``package.module:Name``.

No packaging is needed to try an idea: ``castle run --player my_players.py:Greedy2:depth=2`` loads the
object ``Greedy2`` of that file and plays it. The object may be

- a class with ``choose(state)`` (a Python player; its ``__init__`` keyword defaults are its parameters),
- a compiled decision made with :func:`sim.players.plugin.compiled` (played inside the compiled chunk loop),
- or a :class:`~sim.players.spec.PlayerSpec`.

The spec made from it carries the code's text and SHA-256 (:class:`PlayerSource`): rows name exactly what
played them, a resumed run refuses a part played by another version of the file, and a worker (a loky
process, a Dask worker on another machine) rebuilds the player from that text, so it never needs the
user's files. A file that imports a neighbour of its own is hashed alone: keep a player in one file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import tempfile
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ..core import files
from .spec import PlayerSpec, UnknownPlayerError, spec_from_class

#: the largest player file read (a player is a page or two of code; a bigger file is not one)
MAX_SOURCE_BYTES = 1 << 20
#: the columns a player from a file or module adds to its rows: where it came from and its code's SHA-256
SOURCE_COLUMNS = (("player_source", "string"), ("player_sha256", "string"))

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class PlayerSourceError(UnknownPlayerError):
    """A player file or module that cannot be read, or holds no such player."""


@dataclass(frozen=True)
class PlayerSource:
    """Where a player's code came from, and the code itself."""

    kind: str  #: "file" or "module"
    where: str  #: the file's absolute path, or the module's dotted name
    attr: str  #: the object that plays
    text: str = dataclasses.field(repr=False)  #: the code's text: what a worker loads
    sha256: str = ""

    @property
    def label(self) -> str:
        """``file /home/me/my_players.py`` or ``module mypkg.players``: the ``player_source`` column."""
        return f"{self.kind} {self.where}"

    @property
    def short(self) -> str:
        """The first 12 hex digits of the code's SHA-256, as summaries show it."""
        return self.sha256[:12]


def is_reference(text: str) -> bool:
    """Does a player name refer to a file (``path.py:Name``) or a module (``pkg.mod:Name``) rather than a registered player?"""
    head = str(text).partition(":")[0].strip()
    return head.endswith(".py") or "/" in head or "\\" in head or "." in head


def split_reference(text: str) -> tuple[str, str, str]:
    """``"my.py:Name:depth=2"`` -> ``("my.py", "Name", "depth=2")``; the parameters part may be empty."""
    ref, _, rest = str(text).partition(":")
    attr, _, params = rest.partition(":")
    ref, attr = ref.strip(), attr.strip()
    if not attr:
        raise PlayerSourceError(f"player {text!r}: name the player after the file or module, e.g. {ref}:MyPlayer")
    if not _NAME.fullmatch(attr):
        raise PlayerSourceError(f"player {text!r}: {attr!r} is not a Python name")
    return ref, attr, params


# --------------------------------------------------------------------------------------------------------------
# reading code
# --------------------------------------------------------------------------------------------------------------
def read_reference(ref: str, attr: str) -> PlayerSource:
    """The code ``ref`` names (a ``.py`` file, or an importable module), read once, with its hash."""
    if ref.endswith(".py") or "/" in ref or "\\" in ref:
        path = Path(ref).expanduser()
        if not path.name.endswith(".py"):
            raise PlayerSourceError(f"player file {ref!r}: a player file is a Python file ending in .py")
        try:
            path = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise PlayerSourceError(f"no player file {ref!r}") from None
        if not path.is_file():
            raise PlayerSourceError(f"player file {ref!r} is not a file")
        return PlayerSource("file", str(path), attr, *_text_and_hash(path, ref))
    if not _MODULE.fullmatch(ref):
        raise PlayerSourceError(f"player {ref}:{attr}: {ref!r} is neither a .py file nor a module name")
    try:
        spec = importlib.util.find_spec(ref)
    except (ImportError, ValueError) as e:
        raise PlayerSourceError(f"no player module {ref!r} importable from here ({e})") from None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise PlayerSourceError(f"no player module {ref!r} (a module of Python source, importable from here)")
    return PlayerSource("module", ref, attr, *_text_and_hash(Path(spec.origin), ref))


def _text_and_hash(path: Path, ref: str) -> tuple[str, str]:
    try:
        data = files.read_bytes(path, MAX_SOURCE_BYTES, "a player file")
    except files.TooLarge:
        raise PlayerSourceError(f"player file {ref!r} is larger than a player file may be ({files.limit_text(MAX_SOURCE_BYTES)})") from None
    except OSError as e:
        raise PlayerSourceError(f"cannot read player file {ref!r}: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PlayerSourceError(f"player file {ref!r} is not UTF-8 text") from None
    return text, hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------------------------------------------
# running code: one module per (kind, where, hash), in every process that plays it
# --------------------------------------------------------------------------------------------------------------
_MODULES: dict[tuple[str, str, str], ModuleType] = {}
_LOCK = threading.Lock()


def module_of(source: PlayerSource) -> ModuleType:
    """The module of ``source``'s code, loaded once per process.

    Loaded from its own file when that file still holds the same code (numba then caches a compiled
    player beside it); else, on a worker that does not share the user's files or after the file was
    edited, from a copy of the text in a folder named by its hash, so what plays is always the code hashed.
    """
    key = (source.kind, source.where, source.sha256)
    with _LOCK:
        if key in _MODULES:
            return _MODULES[key]
        if source.kind == "module":
            module = _import_module(source)
        else:
            path = Path(source.where)
            if not _same_code(path, source.sha256):
                path = _copy_of(source)
            module = _load_file(path, f"castle_player_{source.sha256[:16]}", source)
        _MODULES[key] = module
        return module


def _same_code(path: Path, sha256: str) -> bool:
    try:
        return hashlib.sha256(files.read_bytes(path, MAX_SOURCE_BYTES, "a player file")).hexdigest() == sha256
    except OSError:
        return False


def _copy_of(source: PlayerSource) -> Path:
    """The code written to ``<cache>/castle/players/<sha256>/<name>.py`` (written once, atomically)."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = root / "castle" / "players" / source.sha256
    name = Path(source.where).name if source.kind == "file" else source.where.rpartition(".")[2] + ".py"
    path = folder / name
    if _same_code(path, source.sha256):
        return path
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = Path(tempfile.mkdtemp(prefix="castle-player-"))
        path = folder / name
    files.write_atomic(path, source.text)
    return path


def _load_file(path: Path, module_name: str, source: PlayerSource) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # (dataclasses and pickling look a module up by name)
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[module_name]
        raise PlayerSourceError(f"player {source.attr} in {source.where}: loading it failed: {_one_line(e)}") from None
    return module


def _import_module(source: PlayerSource) -> ModuleType:
    try:
        module = importlib.import_module(source.where)
        if _same_code(Path(inspect.getfile(module)), source.sha256):
            return module
    except Exception:  # not importable here (a worker elsewhere), or importing it failed: run the text
        pass
    return _load_file(_copy_of(source), f"castle_player_{source.sha256[:16]}", source)


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


# --------------------------------------------------------------------------------------------------------------
# specs
# --------------------------------------------------------------------------------------------------------------
def spec_of(source: PlayerSource) -> PlayerSpec:
    """The spec of the player ``source`` names, carrying its source (what rows record and workers rebuild from)."""
    module = module_of(source)
    if not hasattr(module, source.attr):
        found = ", ".join(s.name for s in players_of(module, source)) or "none"
        raise PlayerSourceError(f"{source.where} has no player {source.attr!r} (players there: {found})")
    spec = _spec(getattr(module, source.attr), source.attr, source)
    if spec is None:
        raise PlayerSourceError(f"{source.attr} in {source.where} is not a player: a player is a class with choose(state), "
                                "a function made with sim.players.plugin.compiled, or a PlayerSpec")
    return spec


def players_of(module: ModuleType, source: PlayerSource) -> list[PlayerSpec]:
    """Every player a module defines (its own objects, not those it imports), in the order they appear."""
    from .plugin import CompiledDecision

    out = []
    for name, obj in vars(module).items():
        home = getattr(obj.decide.py_func if isinstance(obj, CompiledDecision) else obj, "__module__", module.__name__)
        if name.startswith("_") or (home != module.__name__ and not isinstance(obj, PlayerSpec)):
            continue
        spec = _spec(obj, name, dataclasses.replace(source, attr=name))
        if spec is not None:
            out.append(spec)
    return out


def players_in(ref: str) -> list[PlayerSpec]:
    """Every player of the file or module ``ref`` (``castle players --from``)."""
    source = read_reference(ref, "_")
    return players_of(module_of(source), source)


def _spec(obj, attr: str, source: PlayerSource) -> PlayerSpec | None:
    from .plugin import CompiledDecision

    if isinstance(obj, CompiledDecision):
        spec = obj.spec(attr)
    elif isinstance(obj, PlayerSpec):
        spec = obj
    elif inspect.isclass(obj) and callable(getattr(obj, "choose", None)):
        spec = spec_from_class(attr, obj)
    else:
        return None
    salt = spec.salt or zlib.crc32(spec.name.encode()) & 0xFFFF  # the player's own random stream
    return dataclasses.replace(spec, source=source, salt=salt, extra_columns=spec.extra_columns + SOURCE_COLUMNS)


def rebuild(source: PlayerSource) -> PlayerSpec:
    """The spec again from its source, in another process (how a spec with a source is unpickled)."""
    return spec_of(source)
