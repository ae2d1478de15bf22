"""``castle deals``: deals to play, picked from the catalogue of deals by difficulty (winnable, easy or hard...)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import typer

from . import options
from ..core import files
from ..core.jsontext import dumps
from .errors import UserError


def register(app: typer.Typer) -> None:
    app.command("deals")(deals)


def deals(
    game: str = typer.Argument(..., help="game slug or alias"),
    winnable: bool = typer.Option(False, "--winnable", help="only deals the solver won"),
    difficulty: Optional[str] = typer.Option(None, "--difficulty", help="easy, medium or hard (each game's thirds of the "
                                             "index among its winnable deals), or A:B bits (5:20, 30:); implies --winnable",
                                             show_default=False),
    tier: Optional[str] = typer.Option(None, "--tier", help="very-easy, easy, medium, hard or very-hard: the tiers of the "
                                       "ratings the ladder's games give seed 0's deals (analysis/ratings.py; each tier "
                                       "described by what named players won of it); with --pysol, the PySol numbers the "
                                       "solver won, by the catalogue's tiers (analysis/catalogue.py)", show_default=False),
    count: int = typer.Option(10, "--count", min=1, help="how many deals"),
    pysol: bool = typer.Option(False, "--pysol", help="PySol FC's game numbers (open pysol:N in PySol) instead of seed 0's deals"),
    as_json: bool = options.as_json(help="one JSON line per deal (with --pysol, its deal is pysol:N)"),
    data: Optional[Path] = typer.Option(None, "--data", help="the catalogue: a folder of corridor rows [default: "
                                        "data/published here, else the checkout's]", show_default=False),
    compute: int = typer.Option(100, "--compute", min=0, help="deals to judge at most when the catalogue holds too few "
                                "(about 1-5 CPU-s each); 0: never"),
    export: Optional[str] = typer.Option(None, "--export", metavar="pysol", help="write the catalogue of PySol FC's game "
                                         "numbers 1 to --last as one plain text file (number verdict tier rating basis; "
                                         "see the README), instead of listing deals", show_default=False),
    out: Path = typer.Option(Path("."), "--out", help="with --export: the folder the file is written to"),
    last: int = typer.Option(10_000, "--last", min=1, max=1_000_000, help="with --export: PySol's numbers 1 to N"),
) -> None:
    """Deals of a game picked by difficulty, from the shipped catalogue of every deal's difficulty index (the solver's
    corridor: sim/solver/corridor.py), first by deal number; when it holds too few, the next deals are judged here
    (said on stderr). Bands: easy, medium and hard are each game's thirds of the index over its winnable deals.
    --export pysol writes PySol's game numbers instead, each with its verdict, rating and tier (analysis/catalogue.py)."""
    from analysis import difficulty as difficulty_analysis

    from ..core.deals import DEFAULT_SEED, PYSOL_SEED
    from ..core.rules import find_game

    rules = find_game(game)
    if (pysol or export is not None) and rules.pysol_name is None:
        raise UserError(f"PySol deals no game numbers for {rules.slug}")
    if export is not None:
        if export != "pysol":
            raise UserError(f"--export {export}: the one form is pysol")
        if winnable or difficulty is not None or tier is not None:
            raise UserError("--export writes every number with its verdict and tier: give it without --winnable, --difficulty and --tier")
        _export(rules, _study(data), out, last)
        return
    if tier is not None:
        if difficulty is not None:
            raise UserError("--tier and --difficulty pick by different measures (the rating, the corridor's index): give one")
        if pysol:
            _tiered_pysol(rules, tier, count, as_json, _study(data))
        else:
            _tiered(rules, tier, count, as_json, data)
        return
    band, lo, hi = None, -math.inf, math.inf
    if difficulty is not None:
        try:
            band, lo, hi = difficulty_analysis.parse_band(difficulty)
        except ValueError as e:
            raise UserError(str(e)) from None
        if band is None and not (math.isfinite(lo) and lo <= hi):  # nan:1 and inf: pass parse_band, then judged 100 deals
            raise UserError(f"difficulty {difficulty!r}: A:B needs 0 <= A <= B in bits, A finite (e.g. 5:20 or 30:)")
        winnable = True
    seed = PYSOL_SEED if pysol else DEFAULT_SEED
    rows = _catalogue(data, rules.full_slug, seed)
    if band is not None:
        edges = difficulty_analysis.bands(rows)
        if edges.empty:
            raise UserError(f"no catalogue of {rules.name}'s difficulty{' on PySol numbers' if pysol else ''} to cut into bands: "
                            "give --difficulty A:B, or run experiments/published/difficulty.toml")
        e = edges.iloc[0]
        lo, hi = {"easy": (0.0, e.low), "medium": (e.low, e.high), "hard": (e.high, math.inf)}[band]
        lo = lo if band == "easy" else lo + 1e-9  # (a band's low edge belongs to the band below)
    picked = _pick(rows, winnable, lo, hi)[:count]
    out = [dict(r, source="catalogue") for r in picked]
    if len(out) < count and compute:
        start = int(rows.deal.max()) + 1 if len(rows) else (1 if pysol else 1)
        typer.echo(f"castle deals: the catalogue holds {len(out)} such deal{'s' * (len(out) != 1)} of {rules.name}; "
                   f"judging deals from {start} on (at most {compute})", err=True)
        out += _computed(rules, seed, start, compute, count - len(out), winnable, lo, hi)
    if not out:
        raise UserError(f"no deal of {rules.name} found that is {difficulty or ('winnable' if winnable else 'in the catalogue')}")
    edges = difficulty_analysis.bands(rows)
    for r in out:
        r["band"] = _band(r, edges)
        deal = f"pysol:{r['deal']}" if pysol else str(r["deal"])
        if as_json:
            typer.echo(dumps({"game": rules.full_slug, "deal": deal, "result": r["result"],
                                   "difficulty": None if r["difficulty"] is None else round(r["difficulty"], 3), "band": r["band"],
                                   "decisions": r["decisions"], "critical": r["critical"], "source": r["source"]}))
        else:
            what = "lost" if r["result"] == "lost" else "unknown" if r["difficulty"] is None else \
                f"{r['difficulty']:5.1f} bits{' (' + r['band'] + ')' if r['band'] else ''}, {r['decisions']} decision points, {r['critical']} critical"
            typer.echo(f"{deal:>12}  {what}")


def _tiered(rules, tier: str, count: int, as_json: bool, data: Path | None) -> None:
    """The first ``count`` deals of ``tier``, with their ratings and what the tier means."""
    from analysis import catalogue, rated

    try:
        wanted = rated.tier_named(tier)
    except ValueError as e:
        raise UserError(str(e)) from None
    folder = _study(data)
    scale = catalogue.scale_for(folder, rules.full_slug)
    if scale is None:
        raise UserError(f"{folder} holds no ladder of {rules.name} to rate deals by")
    picked = scale.deals[scale.deals.tier == wanted].sort_values(["seed", "deal"])
    if picked.empty:
        raise UserError(f"no deal of {rules.name} the ladder rated is {wanted}")
    t = rated.tiers_table(scale).set_index("tier").loc[wanted]
    said = ", ".join(f"{p} won {t[p]:.0%}" for p in scale.rungs[::-1] if p in t.index and t[p] == t[p])
    pysol = (scale.deals.seed < 0).all()  # (a game the study's ladder did not play: its ladder's PySol numbers)
    where = ", PySol's numbers, a scale of its own" if pysol else ""
    if not as_json:
        typer.echo(f"{wanted} ({rules.name}{where}): {int(t.deals):,} of the {len(scale.deals):,} rated deals; of them {said}",
                   err=True)
    for r in picked.head(count).itertuples(index=False):
        if as_json:
            typer.echo(dumps({"game": rules.full_slug, "deal": str(r.deal), "seed": int(r.seed), "rating": round(float(r.rating), 1),
                              "tier": wanted, "censored": r.censored or None}))
        else:
            bound = {"above": " (no rung won it: a bound)", "below": " (every rung won it: a bound)"}.get(r.censored, "")
            typer.echo(f"{('pysol:' if pysol else '') + str(r.deal):>12}  rating {r.rating:,.0f}{bound}")


def _study(data: Path | None) -> Path:
    """The study folder the catalogue is built from: ``--data``, else the shipped one."""
    from analysis.report import default_reference

    folder = data or default_reference()
    if folder is None or not Path(folder).is_dir():
        raise UserError(f"--data {data}: no such folder" if data is not None else "no shipped study here: give --data")
    return Path(folder)


def _export(rules, folder: Path, out: Path, last: int) -> None:
    """Write ``rules``' catalogue of PySol's numbers 1 to ``last`` into ``out`` (whole or not at all)."""
    from analysis import catalogue
    from analysis.load import ResultsError

    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: not a folder")
    try:
        c = catalogue.build(folder, rules.full_slug, last)
    except ResultsError as e:
        raise UserError(str(e)) from None
    path = out / catalogue.file_name(rules)
    try:
        out.mkdir(parents=True, exist_ok=True)
        files.write_atomic(path, catalogue.text(c, rules))
    except OSError as e:
        raise UserError(f"--out {out}: cannot write {path.name} ({e.strerror or e})") from None
    n = c.counts()
    typer.echo(f"castle deals: {path}: PySol's numbers 1-{last:,} of {rules.name}: won {n['won']:,}, lost {n['lost']:,}, "
               f"unknown {n['unknown']:,}, unsolved {n['unsolved']:,}; rated from the ladder's games {n['played']:,}, "
               f"predicted before search {n['predicted']:,}", err=True)
    typer.echo(str(path))


def _tiered_pysol(rules, tier: str, count: int, as_json: bool, folder: Path) -> None:
    """The first ``count`` PySol numbers the solver won whose tier is ``tier``: from the catalogue file shipped in
    the study's folder, else from its rows (numbers the ladder played or the solver won, rated as the file is)."""
    from analysis import catalogue, rated
    from analysis.load import ResultsError

    try:
        wanted = rated.tier_named(tier)
    except ValueError as e:
        raise UserError(str(e)) from None
    shipped = folder / catalogue.FOLDER / catalogue.file_name(rules)
    try:
        rows = catalogue.read(shipped) if shipped.exists() else catalogue.build(folder, rules.full_slug, None).deals
    except (ValueError, OSError, ResultsError) as e:
        raise UserError(str(e)) from None
    picked = rows[(rows.verdict == "won") & (rows.tier == wanted)]
    if picked.empty:
        raise UserError(f"no PySol number of {rules.name} in the catalogue is won and {wanted}")
    if not as_json:
        won = rows[rows.verdict == "won"]
        typer.echo(f"{wanted} ({rules.name}, PySol's numbers): {len(picked):,} of the {len(won):,} the solver won "
                   f"({(picked.basis == 'played').sum():,} rated from the ladder's games, {(picked.basis == 'predicted').sum():,} "
                   "predicted before search)", err=True)
    for r in picked.head(count).itertuples(index=False):
        if as_json:
            typer.echo(dumps({"game": rules.full_slug, "deal": f"pysol:{r.deal}", "result": "won", "rating": round(float(r.rating), 1),
                              "tier": wanted, "basis": r.basis}))
        else:
            typer.echo(f"{'pysol:' + str(r.deal):>12}  rating {r.rating:,.0f} ({r.basis})")


def _catalogue(data: Path | None, game: str, seed: int):
    import pandas as pd

    from analysis import difficulty as difficulty_analysis
    from analysis.load import ResultsError, load_results
    from analysis.parts import parquet_parts
    from analysis.report import default_reference

    folder = data or default_reference()
    if folder is None or not Path(folder).is_dir():
        if data is not None:
            raise UserError(f"--data {data}: no such folder")
        return pd.DataFrame(columns=["game", "seed", "deal", "result", "difficulty", "decisions", "critical"])
    try:
        frames = [load_results(p.parent, games=[game]) for p in sorted(Path(folder).rglob("_manifest.json"))
                  if parquet_parts(p.parent)] or [load_results(folder, games=[game])]
    except ResultsError as e:
        raise UserError(str(e)) from None
    rows = difficulty_analysis.corridor_rows(pd.concat(frames, ignore_index=True)) if frames else pd.DataFrame()
    rows = rows[(rows.game == game) & (rows.seed == seed)] if len(rows) else rows
    return rows.drop_duplicates(["seed", "deal"]).sort_values("deal").reset_index(drop=True) if len(rows) else \
        pd.DataFrame(columns=["game", "seed", "deal", "result", "difficulty", "decisions", "critical"])


def _pick(rows, winnable: bool, lo: float, hi: float) -> list[dict]:
    out = []
    for r in rows.itertuples(index=False):
        won = r.result == "won"
        if winnable and not won:
            continue
        d = float(r.difficulty) if won and r.difficulty == r.difficulty else None
        if (lo > -math.inf or hi < math.inf) and (d is None or not lo <= d <= hi):
            continue
        out.append({"deal": int(r.deal), "result": r.result, "difficulty": d,
                    "decisions": None if d is None else int(r.decisions), "critical": None if d is None else int(r.critical)})
    return out


def _computed(rules, seed: int, start: int, limit: int, wanted: int, winnable: bool, lo: float, hi: float) -> list[dict]:
    """Judge deals from ``start`` on until ``wanted`` match or ``limit`` were judged."""
    from ..game import Game
    from ..solver.corridor import corridor

    game, out = Game(rules), []
    for deal in range(start, start + limit):
        c = corridor(game, game.deal(deal, seed))
        s = c.summary()
        row = {"deal": deal, "result": s["result"], "difficulty": s["difficulty"], "decisions": s["decision_points"],
               "critical": s["critical"], "source": "computed"}
        if row["difficulty"] is None:
            row["decisions"] = row["critical"] = None
        if _pick_one(row, winnable, lo, hi):
            out.append(row)
            if len(out) >= wanted:
                break
    return out


def _pick_one(row: dict, winnable: bool, lo: float, hi: float) -> bool:
    if winnable and row["result"] != "won":
        return False
    d = row["difficulty"]
    return not ((lo > -math.inf or hi < math.inf) and (d is None or not lo <= d <= hi))


def _band(row: dict, edges) -> str:
    if row["difficulty"] is None or edges.empty:
        return ""
    e = edges.iloc[0]
    return "easy" if row["difficulty"] <= e.low else "medium" if row["difficulty"] <= e.high else "hard"
