"""Load a result dataset (``DIR/game=<g>/player=<p>/part-*.parquet``) and its manifest.

A dialect's rows (``dialect`` other than ``sheet``; their folder is
``game=<slug>@<dialect>``) come back with ``game`` = ``<slug>@<dialect>``,
the name ``find_game`` takes: to the analysis a dialect is a game of its
own, so no figure of the rule sheets' games ever mixes its rows in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from sim.core.rules import SHEET
from sim.study.dataset import MANIFEST


class ResultsError(ValueError):
    """A path that holds no result dataset."""


def load_results(
    path: str | Path,
    games: list[str] | None = None,
    players: list[str] | None = None,
    columns: list[str] | None = None,
) -> pd.DataFrame:
    """All rows of a dataset, filtered lazily by game and player before anything is read.

    ``game`` and ``player`` come back as plain strings whether the files or
    the partition folders hold them; a dialect's ``game`` is ``slug@dialect``
    (``games`` takes those names too).
    """
    path = Path(path)
    files = parquet_parts(path)
    if not files:
        raise ResultsError(f"no results in {path} (expected a folder of Parquet parts)")
    # parts of different players may carry extra columns (the solver's nodes): unify them
    schemas = []
    for f in files:
        try:
            schemas.append(pq.read_schema(f))
        except (OSError, pa.ArrowException) as e:
            raise ResultsError(f"{f} is not a readable Parquet part ({_first_sentence(e)}); rerun the experiment to replace it") from None
    schema = pa.unify_schemas(schemas, promote_options="permissive")
    # folder keys (game=..., player=...) not stored in the files become string columns
    keys = [part.split("=", 1)[0] for part in Path(files[0]).relative_to(path).parts[:-1] if "=" in part]
    folders = pa.schema([(k, pa.string()) for k in keys if k not in schema.names])
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
    return df


def _first_sentence(e: Exception, most: int = 100) -> str:
    """The first sentence of an exception's message, whole (not cut mid-word), at most ``most`` characters."""
    text = (str(e).splitlines() or [e.__class__.__name__])[0]
    text = text.split(". ")[0].rstrip(".")
    return text if len(text) <= most else text[: most - 1].rsplit(" ", 1)[0] + "…"


def parquet_parts(path: Path) -> list[str]:
    """Every finished Parquet part below ``path`` (temporary and hidden files skipped)."""
    if not path.is_dir():
        return []
    return sorted(
        str(f) for f in path.rglob("*.parquet")
        if not any(part.startswith((".", "_")) for part in f.relative_to(path).parts)
    )


def load_manifest(path: str | Path) -> dict:
    """The experiment's manifest as the runner writes it (``_manifest.json``; empty dict if the dataset has none)."""
    file = Path(path) / MANIFEST
    if not file.exists():
        return {}
    try:
        manifest = json.loads(file.read_text())
    except (OSError, ValueError) as e:
        raise ResultsError(f"{file} is not a readable manifest ({e.__class__.__name__})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("experiment"), dict):  # as the runner reads it
        raise ResultsError(f"{file} is not a readable manifest (no experiment in it)")
    return manifest


def manifests(path: str | Path) -> dict[str, dict]:
    """The manifest of the dataset at ``path``, or of each experiment folder just below it, keyed by folder name."""
    path = Path(path)
    own = load_manifest(path)
    if own:
        return {path.name: own}
    return {m.parent.name: load_manifest(m.parent) for m in sorted(path.glob("*/_manifest.json"))}


def load_study(path: str | Path) -> tuple[pd.DataFrame, dict[str, dict]]:
    """Every row of a dataset, or of a folder of datasets (the shipped study), with the folder each came from
    in ``dataset``; and the manifests (:func:`manifests`)."""
    path = Path(path)
    held = manifests(path)
    if not held or list(held) == [path.name]:
        return load_results(path).assign(dataset=path.name), held
    folders = [p for p in sorted(path.iterdir()) if p.is_dir() and parquet_parts(p)]
    if not folders:
        raise ResultsError(f"no results in {path} (expected a folder of Parquet parts)")
    df = pd.concat([load_results(p).assign(dataset=p.name) for p in folders], ignore_index=True)
    held_games = df.dataset.value_counts().to_dict()  # before two experiments' shared games are kept once
    held_cpu = (df.groupby("dataset").cpu_us.sum() / 1e6).to_dict()
    df = _one_row_per_game(df)
    df.attrs["games_held"], df.attrs["cpu_seconds_held"] = held_games, held_cpu
    return df, held


def unfinished(df: pd.DataFrame, held: dict[str, dict]) -> list[tuple[str, int, int]]:
    """``(experiment folder, games it holds, games its experiment plays)`` for each run that has not finished."""
    t = experiments_table(df, held)
    return [(r.experiment, r.games, r.planned) for r in t.itertuples() if not r.finished]


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
        exp = m.get("experiment", {})
        first, end = exp.get("deal_range", [0, 0])
        runs = m.get("runs", [])
        rows.append({"experiment": label, "games": int(games.get(label, 0)),
                     "planned": (end - first) * len(exp.get("games", {})) * len(exp.get("players", {})),
                     "finished": bool(m.get("finished")), "cpu_hours": float(cpu.get(label, 0.0)) / 3600,
                     "commits": ", ".join(dict.fromkeys(str(r.get("git_commit") or "?")[:7] for r in runs))})
    return pd.DataFrame(rows, columns=["experiment", "games", "planned", "finished", "cpu_hours", "commits"])


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
