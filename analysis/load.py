"""Load a result dataset (``DIR/game=<g>/player=<p>/part-*.parquet``) and its manifest.

A dialect's rows (``dialect`` other than ``sheet``; their folder is
``game=<slug>@<dialect>``) come back with ``game`` = ``<slug>@<dialect>``,
the name ``find_game`` takes: to the analysis a dialect is a game of its
own, so no figure of the rule sheets' games ever mixes its rows in.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from sim.core.rules import SHEET
from sim.players.spec import EXACT
from sim.study.dataset import MANIFEST, parse_manifest
from sim.study.values import BadValue, check_values

from .parts import ResultsError, column_range, folder_keys, folder_values, holds, key_rows, not_castle_rows, parquet_parts
from .roles import learn, role
from .stats import is_judge


def load_results(
    path: str | Path,
    games: list[str] | None = None,
    players: list[str] | None = None,
    columns: list[str] | None = None,
    judged_only: bool = False,
) -> pd.DataFrame:
    """All rows of a dataset, filtered lazily by game and player before anything is read.

    ``game`` and ``player`` come back as plain strings whether the files or
    the partition folders hold them; a dialect's ``game`` is ``slug@dialect``
    (``games`` takes those names too). ``judged_only``: only the rows of the
    players :mod:`analysis.scan` leaves to pandas (the solver's and the other
    judges', a few seconds of search each); the cheap players' millions stay
    on disk for :class:`analysis.scan.CheapRows` (their parts are still checked).
    """
    path = Path(path)
    files = parquet_parts(path)
    if not files:
        raise ResultsError(f"no results in {path} (expected a folder of Parquet parts)")
    every = files
    nested = _nested_datasets(path)
    # folder keys (game=..., player=...) not stored in the files become string columns
    keys = folder_keys(path, files[0])
    for f in files[1:] if len(nested) <= 1 else ():  # (a folder of datasets may hold them at several depths)
        if folder_keys(path, f) != keys or len(Path(f).relative_to(path).parts) != len(Path(files[0]).relative_to(path).parts):
            raise ResultsError(f"{f} does not sit where {files[0]} does ({'/'.join(k + '=…' for k in keys)}/part-….parquet "
                               f"below {path}): a dataset inside another? give each dataset its own folder")
    # parts of different players may carry extra columns (the solver's nodes): unify them
    schemas = []
    for f in files:
        try:
            meta = pq.read_metadata(f)
            schemas.append(meta.schema.to_arrow_schema())
        except (OSError, pa.ArrowException) as e:
            raise ResultsError(f"{f} is not a readable Parquet part ({_first_sentence(e)}); rerun the experiment to replace it") from None
        if meta.num_rows == 0:  # (the runner writes a part only for deals played: an empty one is not its)
            raise ResultsError(f"{f} holds no rows: castle never writes an empty part; move it out of {path}")
        problem = not_castle_rows(schemas[-1], keys)
        if problem:
            raise ResultsError(f"{f} is not a part castle wrote ({problem}); move it out of {path}")
    try:
        schema = pa.unify_schemas(schemas, promote_options="permissive")
    except (pa.ArrowException, TypeError, ValueError) as e:
        raise ResultsError(f"{path}: its parts disagree on their columns ({_first_sentence(e)})") from None
    folders = pa.schema([(k, pa.string()) for k in keys if k not in schema.names])
    manifest = load_manifest(path)  # (first: the roles it records say which parts are read whole)
    if judged_only:
        files = [f for f in files if is_judge(folder_values(path, f).get("player", ""))]
    dataset = ds.dataset(
        files,
        schema=pa.unify_schemas([schema, folders]),
        format="parquet",
        partitioning=ds.partitioning(folders, flavor="hive"),
        partition_base_dir=str(path),
    )
    names = set(dataset.schema.names)
    condition = None
    for column, wanted in (("game", games), ("player", players)):
        if wanted:
            if column not in names:
                raise ResultsError(f"{path}: rows have no {column!r} column")
            on_disk = list(dict.fromkeys(w.partition("@")[0] for w in wanted)) if column == "game" else list(wanted)
            expr = ds.field(column).isin(on_disk)
            condition = expr if condition is None else condition & expr
    try:
        table = dataset.to_table(filter=condition, columns=columns)
    except (OSError, pa.ArrowException) as e:
        raise ResultsError(f"{path}: a Parquet part does not read back ({_first_sentence(e)}); rerun the experiment to replace it") from None
    if "player_params" in table.column_names:  # (one JSON text per player repeated on every row: the frame's widest column)
        i = table.column_names.index("player_params")
        table = table.set_column(i, "player_params", table.column(i).cast(pa.string()).dictionary_encode())
    df = table.to_pandas()
    for column in ("game", "player", "result"):
        if column in df.columns:
            df[column] = df[column].astype(str)
    if "dialect" in df.columns:
        df["dialect"] = df["dialect"].astype(str)
        other = df["dialect"] != SHEET
        if other.any():
            df.loc[other, "game"] = df.loc[other, "game"] + "@" + df.loc[other, "dialect"]
        if games and "game" in df.columns:
            df = df[df["game"].isin(list(games))].reset_index(drop=True)
    if len(nested) <= 1 and all(c in df.columns for c in KEY):  # one dataset: each game once (a folder of them may repeat one)
        _no_game_twice(df, files, path)
    if manifest:
        _rows_of_the_manifest(df, manifest["experiment"], files, path)
    if judged_only and len(files) < len(every):
        _check_cheap_parts(path, [f for f in every if f not in set(files)], len(nested) <= 1)
    _check_values(path, every, nested, {f: s.names for f, s in zip(every, schemas)})
    return df


def _check_values(path: Path, files: list[str], nested: list[Path], names: dict[str, list[str]]) -> None:
    """Every value of every part, read or left on disk, against its column's meaning and its dataset's manifest
    (:mod:`sim.study.values`): each dataset's parts against its own manifest, the deepest first (``names``: each
    part's columns)."""
    left = list(files)
    for root in sorted(nested, key=lambda p: -len(p.parts)):
        mine = [f for f in left if Path(f).is_relative_to(root)]
        left = [f for f in left if not Path(f).is_relative_to(root)]
        try:
            check_values(path, mine, load_manifest(root).get("experiment"), set().union(*(names[f] for f in mine)))
        except BadValue as e:
            raise ResultsError(str(e)) from None
    try:
        check_values(path, left, None, set().union(*(names[f] for f in left)))
    except BadValue as e:
        raise ResultsError(str(e)) from None


def _rows_of_the_manifest(df: pd.DataFrame, exp: dict, files: list[str], path: Path) -> None:
    """A dataset's rows are of the experiment its manifest names: its seed, games and players (those it says).

    A part copied in from another dataset (another seed, game or player)
    would otherwise be read as this experiment's; the first such part is named.
    """
    checks = []
    if isinstance(exp.get("seed"), int) and "seed" in df.columns:
        checks.append(("seed", {exp["seed"]}))
    for column, section in (("game", "games"), ("player", "players")):
        if isinstance(exp.get(section), dict) and exp[section] and column in df.columns:
            checks.append((column, set(exp[section])))
    for column, allowed in checks:
        found = set(pd.unique(df[column]))
        other = sorted(map(str, found - allowed))
        if not other:
            continue
        where = next((Path(f).relative_to(path) for f in files if holds(f, path, column, other)), None)
        raise ResultsError(f"{path}: {f'{where}: ' if where else ''}rows of {column} {', '.join(other[:3])}, which the dataset's "
                           f"manifest does not name ({', '.join(sorted(map(str, allowed)))[:80]}): a part of another dataset? "
                           "move it out")


def _check_cheap_parts(path: Path, files: list[str], one_dataset: bool) -> None:
    """The checks :func:`load_results` makes of the rows it reads, made of the parts it leaves on disk from their
    folders and Parquet statistics alone: each part's seed, game and player are the manifest's, and no two parts
    of one (game, player) hold the same deal (only parts whose deal ranges overlap are read to find out)."""
    exp = load_manifest(path).get("experiment", {}) if (path / MANIFEST).exists() else {}
    spans: dict[tuple[str, str], list[tuple[int, int, str]]] = {}
    for f in files:
        where = folder_values(path, f)
        game, player = where.get("game", ""), where.get("player", "")
        seed_lo, seed_hi = column_range(f, "seed")
        deal_lo, deal_hi = column_range(f, "deal")
        checks = [("seed", {seed_lo, seed_hi} - {None}, {exp["seed"]} if isinstance(exp.get("seed"), int) else None),
                  ("game", {game}, set(exp["games"]) if isinstance(exp.get("games"), dict) and exp["games"] else None),
                  ("player", {player}, set(exp["players"]) if isinstance(exp.get("players"), dict) and exp["players"] else None)]
        for column, found, allowed in checks:
            other = sorted(map(str, found - allowed)) if allowed is not None else []
            if other:
                raise ResultsError(f"{path}: {Path(f).relative_to(path)}: rows of {column} {', '.join(other[:3])}, which the "
                                   f"dataset's manifest does not name ({', '.join(sorted(map(str, allowed)))[:80]}): a part of "
                                   "another dataset? move it out")
        if deal_lo is not None:
            spans.setdefault((game, player), []).append((deal_lo, deal_hi, f))
    if not one_dataset:
        return
    suspects = []
    for parts in spans.values():
        parts.sort()
        for (lo1, hi1, f1), (lo2, hi2, f2) in zip(parts, parts[1:]):
            if lo2 <= hi1:
                suspects += [f1, f2]
    if suspects:
        suspects = list(dict.fromkeys(suspects))
        rows = pd.concat([key_rows(path, f) for f in suspects], ignore_index=True)
        _no_game_twice(rows, suspects, path)


def _nested_datasets(path: Path) -> list[Path]:
    """The datasets (folders with a manifest) at or below ``path``; a dataset holding another is refused."""
    found = sorted(m.parent for m in path.rglob(MANIFEST) if not any(p.startswith(".") for p in m.relative_to(path).parts))
    if (path / MANIFEST).exists() and len(found) > 1:
        inner = next(f for f in found if f != path)
        raise ResultsError(f"{inner} is a dataset of its own inside the dataset {path}: report one of them "
                           "(move the other out, or give the folder that holds both)")
    return found


def _no_game_twice(df: pd.DataFrame, files: list[str], path: Path) -> None:
    """One dataset holds each (game, player, seed, deal) once: a part copied beside itself, or a part of another run
    of the same deals, would count its games twice. The parts holding the same games are named."""
    twice = df.duplicated(KEY, keep=False)
    if not twice.any():
        return
    keys = set(map(tuple, df.loc[twice, KEY].astype(str).itertuples(index=False, name=None)))
    holders = []
    for f in files:
        try:
            rows = pq.read_table(f, columns=[c for c in ("game", "player", "seed", "deal", "dialect") if c in pq.read_schema(f).names]).to_pandas()
        except (OSError, pa.ArrowException):
            continue
        for c, value in folder_values(path, f).items():
            if c not in rows.columns:
                rows[c] = value
        if "dialect" in rows.columns:
            other = rows["dialect"].astype(str) != SHEET
            rows["game"] = rows["game"].astype(str).where(~other, rows["game"].astype(str) + "@" + rows["dialect"].astype(str))
        if any(k in keys for k in map(tuple, rows[KEY].astype(str).itertuples(index=False, name=None))):
            holders.append(Path(f).relative_to(path))
    shown = " and ".join(map(str, holders[:2])) + (f" (and {len(holders) - 2} more)" if len(holders) > 2 else "")
    raise ResultsError(f"{path}: {twice.sum() // 2 or 1:,} games are held twice, by {shown or 'two parts'}: a copy of a part? "
                       "keep one of them")


def _first_sentence(e: Exception, most: int = 100) -> str:
    """The first sentence of an exception's message, whole (not cut mid-word), at most ``most`` characters."""
    text = (str(e).splitlines() or [e.__class__.__name__])[0]
    text = text.split(". ")[0].rstrip(".")
    return text if len(text) <= most else text[: most - 1].rsplit(" ", 1)[0] + "…"


def load_manifest(path: str | Path) -> dict:
    """The experiment's manifest as the runner writes it (``_manifest.json``; empty dict if the dataset has none); the
    roles it records are learned (:func:`analysis.roles.learn`) for players the registry does not know."""
    if not (file := Path(path) / MANIFEST).exists():
        return {}
    manifest, problem = parse_manifest(file)
    if problem:
        raise ResultsError(f"{file} is not a readable manifest ({problem})")
    learn(manifest)
    return manifest


def manifests(path: str | Path) -> dict[str, dict]:
    """The manifest of the dataset at ``path``, or of each experiment folder just below it, keyed by folder name."""
    path = Path(path)
    if own := load_manifest(path):
        return {path.name: own}
    return {m.parent.name: load_manifest(m.parent) for m in sorted(path.glob("*/_manifest.json"))}


def study_folders(path: str | Path) -> list[Path]:
    """The dataset folders :func:`load_study` reads at ``path``, in its order: ``path`` itself, or each folder below it."""
    path = Path(path)
    held = manifests(path)
    if not held or list(held) == [path.name]:
        return [path]
    folders = [p for p in sorted(path.iterdir()) if p.is_dir() and parquet_parts(p)]
    if not folders:
        raise ResultsError(f"no results in {path} (expected a folder of Parquet parts)")
    return folders


def catalogue_beside(folder: Path, study: Path) -> bool:
    """Is ``folder`` a dataset on PySol's numbering inside a folder of datasets (``study``)? Such a dataset is a
    catalogue beside the study (PySol's game numbers, :mod:`analysis.catalogue` reads it): only its judges' rows that
    are not exact are read with the study's (:func:`beside_rows`), so a player's win rate and a game's winnability stay
    those of the study's seeded deals, the sample drawn for them. A PySol dataset read on its own is read whole."""
    from sim.core.deals import PYSOL_SEED

    return folder != study and (load_manifest(folder).get("experiment") or {}).get("seed") == PYSOL_SEED


def beside_rows(folder: Path) -> pd.DataFrame:
    """What the study reads of a catalogue beside it (:func:`catalogue_beside`): its judges' rows, the exact ones' not."""
    rows = load_results(folder, judged_only=True)
    return rows[rows.player.map(lambda p: role(p) != EXACT).astype(bool)].reset_index(drop=True)


def study_parts(path: str | Path) -> list[tuple[str, list[str]]]:
    """(dataset label, its cheap players' Parquet parts) for each folder :func:`load_study` reads: what
    :class:`analysis.scan.CheapRows` reads where it lies (none of a catalogue beside the study, :func:`catalogue_beside`)."""
    path = Path(path)
    return [(p.name, [] if catalogue_beside(p, path) else [f for f in parquet_parts(p) if not is_judge(folder_values(p, f).get("player", ""))])
            for p in study_folders(path)]


def load_study(path: str | Path, judged_only: bool = False) -> tuple[pd.DataFrame, dict[str, dict]]:
    """Every row of a dataset, or of a folder of datasets (the shipped study), with the folder each came from
    in ``dataset``; and the manifests (:func:`manifests`). ``judged_only``: as :func:`load_results`."""
    path, held = Path(path), manifests(path)
    folders = study_folders(path)
    if folders == [path]:
        return load_results(path, judged_only=judged_only).assign(dataset=path.name), held
    df = pd.concat(_shared_categories([(beside_rows(p) if catalogue_beside(p, path) else load_results(p, judged_only=judged_only))
                                       .assign(dataset=p.name) for p in folders]), ignore_index=True)
    held_games = df.dataset.value_counts().to_dict()  # before two experiments' shared games are kept once
    held_us = {k: int(v) for k, v in df.groupby("dataset").cpu_us.sum().items()}
    for p in folders:  # a catalogue's players' rows are not read, but they were played: its games and CPU count
        if catalogue_beside(p, path):
            played = ds.dataset(parquet_parts(p), format="parquet").to_table(columns=["cpu_us"]).column("cpu_us")
            held_games[p.name], held_us[p.name] = len(played), int(pc.sum(played).as_py() or 0)
    df = _one_row_per_game(df)
    df.attrs["games_held"], df.attrs["cpu_us_held"] = held_games, held_us
    df.attrs["cpu_seconds_held"] = {k: v / 1e6 for k, v in held_us.items()}
    return df, held


def _shared_categories(frames: list[pd.DataFrame]) -> list[pd.DataFrame]:
    """The frames with each categorical column (``player_params``) on the same categories, so that joining them keeps
    it categorical (pandas writes out every row's text when the categories differ)."""
    for column in ("player_params",):
        held = [f for f in frames if isinstance(f.get(column, pd.Series(dtype=object)).dtype, pd.CategoricalDtype)]
        if len(held) == len(frames) > 1:
            categories = sorted(set().union(*(f[column].cat.categories for f in held)))
            for f in held:
                f[column] = f[column].cat.set_categories(categories)
    return frames


def unfinished(df: pd.DataFrame, held: dict[str, dict]) -> list[tuple[str, int, int]]:
    """``(experiment folder, games it holds, games its experiment plays)`` for each run that has not finished."""
    return [(r.experiment, r.games, r.planned) for r in experiments_table(df, held).itertuples() if not r.finished]


def count_cheap_rows(df: pd.DataFrame, cheap) -> None:
    """Add the cheap rows' games and CPU per experiment folder (:class:`analysis.scan.CheapRows`) to what
    :func:`load_study` counted of the judged rows: the experiments table's, the completeness notes' and
    ``castle summary``'s numbers (a frame of judged rows alone would say a run played only its judges' games)."""
    games = dict(df.attrs.get("games_held") or df.dataset.value_counts().to_dict())
    cpu_us = dict(df.attrs.get("cpu_us_held") or {k: int(v) for k, v in df.groupby("dataset").cpu_us.sum().items()})
    for row in cheap.held.itertuples():
        games[row.dataset] = games.get(row.dataset, 0) + int(row.games)
        cpu_us[row.dataset] = cpu_us.get(row.dataset, 0) + int(row.cpu_us)
    df.attrs["games_held"], df.attrs["cpu_us_held"] = games, cpu_us
    df.attrs["cpu_seconds_held"] = {k: v / 1e6 for k, v in cpu_us.items()}


def experiments_table(df: pd.DataFrame, held: dict[str, dict]) -> pd.DataFrame:
    """Per experiment folder: games held and planned, whether it finished, the CPU its rows took (every run's,
    stopped ones too) and the commits its runs were made on.

    ``df`` is :func:`load_study`'s frame: its counts are taken before shared games are kept once.
    """
    if "games_held" in df.attrs:
        games, cpu = df.attrs["games_held"], df.attrs["cpu_seconds_held"]
    elif "dataset" in df:
        games, cpu = df.dataset.value_counts().to_dict(), (df.groupby("dataset").cpu_us.sum() / 1e6).to_dict()
    else:  # one dataset's own rows
        games, cpu = {label: len(df) for label in held}, {label: df.cpu_us.sum() / 1e6 for label in held}
    rows = []
    for label, m in held.items():
        if not m:
            continue
        exp, runs = m.get("experiment", {}), m.get("runs", [])
        rows.append({"experiment": label, "games": int(games.get(label, 0)), "planned": _planned(exp),
                     "finished": bool(m.get("finished")), "cpu_hours": float(cpu.get(label, 0.0)) / 3600,
                     "commits": ", ".join(dict.fromkeys(str(r.get("git_commit") or "?")[:7] for r in runs))})
    return pd.DataFrame(rows, columns=["experiment", "games", "planned", "finished", "cpu_hours", "commits"])


def _planned(exp: dict) -> int:
    """The games an experiment's manifest plans: its deals (a range, or listed per game) x games x players."""
    players = len(exp.get("players", {}))
    if isinstance(exp.get("deals"), dict):
        return sum(len(d) for d in exp["deals"].values()) * players
    first, end = exp.get("deal_range", [0, 0])
    return (end - first) * len(exp.get("games", {})) * players


KEY = ["game", "player", "seed", "deal"]


def _one_row_per_game(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, player, seed, deal): two experiments may play the same player on the same deals.

    Such rows are the same game (rows depend only on the deal, the player's
    parameters and the versions), so the first is kept; a pair whose results
    differ (another version of the player) is an error, never averaged.
    """
    dup = df.duplicated(KEY, keep=False)
    if not dup.any():
        return df
    twice = df[dup]
    differ = twice.groupby(KEY, observed=True).result.nunique()
    if (differ > 1).any():
        (game, player, seed, deal) = differ[differ > 1].index[0]
        raise ResultsError(f"two experiments disagree on {game} deal {deal} (seed {seed}) played by {player}: "
                           "one of them ran another version; keep one of them out of the folder")
    return df.drop_duplicates(KEY, keep="first").reset_index(drop=True)
