"""The deals a folder's exact runs left unknown at their full budget: what an experiment with ``unknowns_of`` plays.

Why: a deal unknown at the full budget is counted both ways in every
interval (won at one end, lost at the other), so half the unknown share is
a floor under the half-width however many deals are played. In Streets and
Alleys that floor (about 0.19 points at 200 million positions) lies above
Solvitaire's whole unknowns' part. Solving just those deals again with a
deeper budget (the player ``settle``) lowers the floor for a few CPU-hours;
:mod:`analysis.designs` puts each verdict found in place of the unknown.

A deal counts if a ``solver`` row of it is unknown, or a ``phased`` row is
unknown at the last phase, and no exact run in the folders settled it (not *left*: a deal the design's draw did not take
on is stood for by the deals that went on, never solved again). ``settle``
rows count too: a deal an earlier settle solved is not taken again, one it
left unknown is, so a settle with a deeper budget that names the earlier
one's folder goes on from where it stopped. Every such
deal is taken, whatever it is, so the verdicts that replace unknowns are a
fixed function of the deal, and the design stays what it was (a fourth phase
at rate 1).

The exact runs' rows are checked first, as the report checks them (:mod:`.values`: a result no game ends with,
a null, a deal outside the manifest's range): one bad value would change which deals are played without a word.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.rules import Rules
from ..players.registry import names_of, role_of
from ..players.spec import EXACT
from .dataset import MANIFEST, parse_manifest
from .errors import ArgumentError, ExperimentError
from .values import BadValue, check_values

_COLUMNS = ("game", "dialect", "player", "seed", "deal", "result")
_PARTS = "game=*/player=*/part-*.parquet"


def unknown_deals(folders: list[str] | tuple[str, ...], games: tuple[Rules, ...], seed: int) -> dict[str, tuple[int, ...]]:
    """Per game (its full name), the sorted deals of ``seed`` that the exact runs in ``folders`` left unknown."""
    found: dict[str, set[int]] = {g.full_slug: set() for g in games}
    settled: dict[str, set[int]] = {g.full_slug: set() for g in games}
    by_name = {(g.slug, g.dialect): g.full_slug for g in games}
    for folder in folders:
        path = Path(folder)
        if not path.is_dir():
            raise ArgumentError("{unknowns_of}: no results folder {folder}", folder=repr(folder))
        # a dataset, or a folder of them (a study; a --halfwidth run's pilot/ and main/)
        parts = sorted(p for pattern in (_PARTS, "*/" + _PARTS) for p in path.glob(pattern) if not p.name.startswith("."))
        if not parts:
            raise ArgumentError("{unknowns_of}: {folder} holds no results", folder=repr(folder))
        for part in parts:
            if not part.is_file():  # (a FIFO would block the read for ever)
                raise ArgumentError("{unknowns_of}: {part} is named as a Parquet part but is not a file; move it out",
                                    part=str(part))
        recorded = _recorded_roles(parts)
        exact_parts = [p for p in parts if _exact_player(p, recorded)]
        _check(path, exact_parts)
        exact = False
        for part in exact_parts:
            rows = _exact_rows(part, recorded)
            if rows is None:
                continue
            for (game, dialect), g in rows[rows.seed == seed].groupby(["game", "dialect"], observed=True):
                name = by_name.get((str(game), str(dialect)))
                if name is None:
                    continue
                exact = True
                result = g.result.astype(str)
                left = g["left"].fillna(False).astype(bool) if "left" in g else False
                settled[name].update(g.deal[result.isin(("won", "lost"))].astype(int).tolist())
                found[name].update(g.deal[(result == "unknown") & ~left].astype(int).tolist())
        if not exact:  # (a folder of heuristic players' runs, another seed's or other games': a mistake, said)
            raise ArgumentError("{unknowns_of}: {folder} holds no exact run ({runs}) of {games} with seed {seed}: it has no "
                                "unknowns to play", folder=repr(folder), runs=", ".join(names_of(EXACT)),
                                games=", ".join(g.full_slug for g in games), seed=seed)
    return {name: tuple(sorted(deals - settled[name])) for name, deals in found.items()}


def _recorded_roles(parts: list[Path]) -> dict[str, str]:
    """The roles the manifests of the parts' datasets record, by player name: what says a player the registry does
    not know is exact (a manifest from before roles records none; one that does not parse is refused by :func:`_check`
    if its parts are read)."""
    out: dict[str, str] = {}
    for root in dict.fromkeys(p.parents[2] for p in parts):  # (a part lies at DATASET/game=.../player=.../part-...)
        if (root / MANIFEST).is_file():
            manifest, _ = parse_manifest(root / MANIFEST)
            for label, role in ((manifest or {}).get("experiment", {}).get("player_roles") or {}).items():
                out.setdefault(label.split(":", 1)[0], role)
    return out


def _is_exact(name: str, recorded: dict[str, str]) -> bool:
    """Does the player ``name`` give verdicts: its spec's role in the registry, else the role its manifest recorded?
    (The runs read: the solver's, the solver in phases', and a settle's: what it settled is not taken again.)"""
    return (role_of(name) or recorded.get(name)) == EXACT


def _exact_player(part: Path, recorded: dict[str, str]) -> bool:
    """Is ``part`` in an exact run's folder (``player=solver...``)?"""
    player = part.parent.name.removeprefix("player=")
    return _is_exact(player.split("%3A", 1)[0].split(":", 1)[0], recorded)


def _check(folder: Path, parts: list[Path]) -> None:
    """Refuse the first value of ``parts`` its column cannot hold, or its dataset's manifest did not play
    (:func:`~.values.check_values`), each dataset's parts against its own manifest."""
    import duckdb

    by_dataset: dict[Path, list[str]] = {}
    for part in parts:  # (a part lies at DATASET/game=.../player=.../part-...)
        by_dataset.setdefault(part.parents[2], []).append(str(part))
    for root, mine in by_dataset.items():
        exp = None
        if (root / MANIFEST).exists():
            manifest, problem = parse_manifest(root / MANIFEST)
            if problem:
                raise ArgumentError("{unknowns_of}: {file} is not a readable manifest ({problem})",
                                    file=str(root / MANIFEST), problem=problem)
            exp = manifest.get("experiment")
        try:
            check_values(folder, mine, exp)
        except BadValue as e:
            raise ArgumentError("{unknowns_of}: {problem}", problem=str(e)) from None
        except (OSError, duckdb.Error, pa.ArrowException) as e:
            first = (str(e).splitlines() or [e.__class__.__name__])[0]
            raise ArgumentError("{unknowns_of}: {folder}: its exact runs' parts are not castle's rows ({problem})",
                                folder=str(folder), problem=first[:120]) from None


def _exact_rows(part: Path, recorded: dict[str, str]) -> pd.DataFrame | None:
    """The rows of one part, if an exact run's (a deal another run settled is not unknown); None if another player's."""
    if not _exact_player(part, recorded):
        return None
    try:
        names = set(pq.read_schema(part).names)
        columns = list(_COLUMNS) + (["left"] if "left" in names else [])
        df = pq.read_table(part, columns=columns).to_pandas()
    except (OSError, ValueError, pa.ArrowException) as e:
        raise ExperimentError(f"unknowns_of: cannot read {part}: {e}") from None
    names = df.player.astype(str).str.split(":").str[0]
    return df[names.isin([n for n in names.unique() if _is_exact(n, recorded)])]
