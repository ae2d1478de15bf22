"""An experiment against the folder it writes to: may it write there, and which of its deals are there already.

Its own module because this is what makes a rerun resume and an extension
grow safely: :func:`check` refuses, before anything is written, a folder
holding another experiment (or anything else); :func:`prepare` writes or
extends the manifest; :func:`survey` finds the parts on disk that this
experiment wrote, removes damaged ones and refuses foreign ones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.rules import Rules
from ..kernels.legal import ENGINE_VERSION
from ..players.spec import PlayerChoice
from .chunks import Chunk
from .dataset import MANIFEST, PathError, check_path, left_by_a_killed_start, read_manifest, write_json_atomic
from .errors import ArgumentError
from .experiment import Experiment, ExperimentError
from .provenance import git_commit, now, package_version


def conflict(held: dict, new: dict, defaults: dict[str, dict]) -> str | None:
    """What makes ``new`` rows incompatible with the rows ``held`` describes, or None.

    A dataset may grow (more deals, games, players) as long as every row it
    holds would be played the same: same seed and engine, and each game and
    player it already has at the same version and parameters. A parameter
    a player gained after the rows were played, at its default (``defaults``:
    label -> parameter -> default), plays them as before.
    """
    for key in ("seed", "engine_version"):
        if held.get(key) != new[key]:
            return key
    for label, source in (new.get("player_sources") or {}).items():
        had = (held.get("player_sources") or {}).get(label)
        if had is not None and had.get("sha256") != source["sha256"]:
            return (f"player_sources ({label}: its code changed since its rows were played, SHA-256 {str(had.get('sha256'))[:12]} "
                    f"then, {source['sha256'][:12]} now)")
        if had is None and label in (held.get("players") or {}):
            return f"player_sources ({label}: its rows were played by another player of that name)"
    for section in ("games", "players", "player_versions"):
        have = held.get(section) or {}
        for name, value in new[section].items():
            if section == "players" and name in have:
                value = {k: v for k, v in value.items() if k in have[name] or v != defaults[name].get(k)}
            if name in have and have[name] != value:
                return f"{section} ({name})"
    return None



def check(exp: Experiment, out: Path) -> dict | None:
    """Refuse, before anything is written, an ``out`` that cannot receive ``exp``; the manifest it holds, if any.

    ``out`` must be a folder (or not exist yet) whose name the Parquet
    library can take, and either hold this experiment's manifest with rows
    ``exp`` would play the same, or nothing a killed start did not leave.
    Nothing is written: a command with several experiments checks them all
    before it plays any.
    """
    out = Path(out)
    try:
        check_path(out)
    except PathError as e:
        raise ExperimentError(str(e)) from None
    identity = json.loads(json.dumps(exp.identity(ENGINE_VERSION)))
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"output {out} exists and is not a directory")
    manifest = read_manifest(out) if out.exists() else None
    if manifest is None:
        if out.exists() and any(not left_by_a_killed_start(f) for f in out.iterdir()):
            raise ArgumentError("output {path} is not empty and holds no castle experiment; choose another {out}", path=out)
        return None
    held = manifest["experiment"]
    problem = conflict(held, identity, {p.label: {q.name: q.default for q in p.spec.all_params} for p in exp.players})
    if problem:
        raise ArgumentError(
            "{path} holds a different experiment ({name}; differs in {problem}); refusing to mix them: choose another {out}",
            path=out, name=repr(held.get("name")), problem=problem,
        )
    return manifest


def prepare(exp: Experiment, out: Path, reason: str | None = None) -> dict:
    """Check ``out`` may receive ``exp`` (new, empty, or holding rows it would play the same); return the manifest.

    The manifest's ``experiment`` describes everything the folder holds: an
    extension adds its games, players and deal range to it. Each range the
    folder's deals have had is kept in ``range_changes``, with when and why
    (``reason``; by default, that the experiment asked for those deals), so
    a range grown during a run (a design's blocks, an experiment file
    edited) says so.
    """
    identity = json.loads(json.dumps(exp.identity(ENGINE_VERSION)))
    manifest = check(exp, out)
    if manifest is None:
        manifest = {
            "experiment": {"name": exp.name, "description": exp.description, **identity},
            "package_version": package_version(),
            "git_commit": git_commit(),
            "started": now(),
            "finished": None,
            "runs": [],
            "range_changes": [_range_change(None, identity["deal_range"], exp, reason)],
        }
    else:
        held = manifest["experiment"]
        for section in ("games", "players", "player_versions", "player_roles"):  # (a manifest from before roles has none)
            held[section] = {**(held.get(section) or {}), **identity[section]}
        if identity.get("player_sources"):
            held["player_sources"] = {**(held.get("player_sources") or {}), **identity["player_sources"]}
        first, end = before = held.get("deal_range") or identity["deal_range"]
        if exp.end > exp.first:
            held["deal_range"] = [min(first, exp.first), max(end, exp.end)] if end > first else [exp.first, exp.end]
        if held.get("deal_range") != before:
            manifest.setdefault("range_changes", []).append(_range_change(before, held["deal_range"], exp, reason))
        if "deals" in identity:  # listed deals (unknowns_of): the folder holds every list it was given
            listed = held.get("deals") or {}
            held["deals"] = {g: sorted(set(listed.get(g, [])) | set(d)) for g, d in {**listed, **identity["deals"]}.items()}
            held["unknowns_of"] = list(dict.fromkeys([*(held.get("unknowns_of") or []), *identity["unknowns_of"]]))
        return manifest
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_json_atomic(manifest, out / MANIFEST)
    except OSError as e:
        raise ExperimentError(f"cannot write to {out}: {e.strerror or e}") from None
    return manifest



def _range_change(before: list[int] | None, after: list[int], exp: Experiment, reason: str | None) -> dict:
    """One change of a folder's deal range, for its manifest's ``range_changes``."""
    asked = f"deals {exp.first} to {exp.end - 1}" if exp.end > exp.first else "no deals"
    why = reason or (f"the experiment asked for {asked}" + ("" if before is None else ": the range grown to hold them"))
    return {"at": now(), "from": before, "to": list(after), "reason": why}


_PART = re.compile(r"part-(\d+)-(\d+)\.parquet")


def survey(out: Path, exp: Experiment) -> tuple[dict[tuple[str, str], list[tuple[int, int]]], list[Path]]:
    """The deals each (game, player) of ``exp`` already has on disk, and the parts found damaged (removed).

    A part counts only if it reads back with one row per deal of its name,
    of its game, player (label and parameters) and seed. One that does not
    read back as Parquet (truncated: a full disk, a crash in a copy) is
    damaged: removed, to be played again. A file that reads back but holds
    other rows (a part of another dataset, of another seed or other
    parameters), one named as no part is (``part-0-2-copy.parquet``), or
    two parts holding the same deals, were not written by this experiment
    and are not the run's to delete: the run is refused, naming them, and
    nothing is changed.
    """
    covered: dict[tuple[str, str], list[tuple[int, int]]] = {}
    damaged: list[Path] = []
    foreign: list[tuple[Path, str]] = []
    for rules in exp.games:
        for choice in exp.players:
            folder = out / Chunk(rules.full_slug, choice, exp.seed, 0, 0).relpath().rsplit("/", 1)[0]
            ranges: list[tuple[int, int, Path]] = []
            for path in sorted(folder.glob("part-*.parquet")) if folder.is_dir() else ():
                m = _PART.fullmatch(path.name)
                if not path.is_file():
                    foreign.append((path, "it is not a file"))
                    continue
                if not m:
                    foreign.append((path, "castle names its parts part-FIRST-LAST.parquet"))
                    continue
                problem = _part_problem(path, rules, choice, exp.seed, int(m[1]), int(m[2]))
                if problem is None:
                    ranges.append((int(m[1]), int(m[2]), path))
                elif problem == _DAMAGED:
                    damaged.append(path)
                else:
                    foreign.append((path, problem))
            ranges.sort()
            for (a, b, first_path), (c, d, path) in zip(ranges, ranges[1:]):
                if c <= b:
                    foreign.append((path, f"its deals {c}-{d} overlap those of {first_path.name}"))
            covered[(rules.full_slug, choice.label)] = [(a, b) for a, b, _ in ranges]
    if foreign:
        path, why = foreign[0]
        more = f"; and {len(foreign) - 1} more such file{'s' if len(foreign) > 2 else ''}" if len(foreign) > 1 else ""
        raise ExperimentError(f"{path} is not a part of this experiment ({why}){more}: move it out of {out} "
                              "(nothing was played or removed)")
    for path in damaged:
        path.unlink(missing_ok=True)
    return covered, damaged


#: what :func:`_part_problem` says of a part that does not read back (to be played again)
_DAMAGED = "damaged"


def _part_problem(path: Path, rules: Rules, choice: PlayerChoice, seed: int, first: int, last: int) -> str | None:
    """None if ``path`` is the part this experiment writes for these deals; :data:`_DAMAGED` if it does not read back
    as Parquet; else what makes it another file (read back whole, so never removed)."""
    try:
        names = set(pq.read_schema(path).names)
    except (OSError, ValueError, pa.ArrowException):
        return _DAMAGED
    wanted = ["game", "dialect", "player", "player_params", "seed", "deal", "rules_version", "engine_version", "player_version"]
    missing = [c for c in wanted if c not in names]
    if missing:
        return f"it has no {', '.join(missing)} column{'s' if len(missing) > 1 else ''}"
    try:
        table = pq.read_table(path, columns=wanted)
    except (OSError, ValueError, pa.ArrowException):
        return _DAMAGED
    deals = table.column("deal").to_numpy(zero_copy_only=False)

    def values(column: str) -> set:
        return set(table.column(column).to_pylist())

    if len(deals) != last - first + 1 or not bool((deals == np.arange(first, last + 1)).all()):
        return f"its rows are not deals {first} to {last}, one each"
    for column, expected in (("game", rules.slug), ("dialect", rules.dialect), ("player", choice.label), ("seed", seed),
                             ("rules_version", rules.version), ("engine_version", ENGINE_VERSION),
                             ("player_version", choice.spec.version)):
        held = values(column)
        if held != {expected}:
            return f"its rows' {column} is {', '.join(sorted(map(str, held)))}, this experiment's {expected}"
    defaults = {q.name: q.default for q in choice.spec.all_params}
    mine = json.loads(choice.params_json)  # (its parameters, and its random stream unless it is 0)
    for text in values("player_params"):
        try:
            params = json.loads(text)
        except (TypeError, ValueError):
            params = None
        # a parameter the player gained after these rows were played, at its default, plays them as before
        if not isinstance(params, dict) or params != {k: v for k, v in mine.items() if k in params or v != defaults.get(k)}:
            return f"its rows' player parameters are {text}, this experiment's {choice.params_json}"
    return None
