"""PySol FC's game numbers as a catalogue a player can pick from: each number's verdict, its rating and tier, and
what they rest on, written as one plain text file a game (the form a "winnable deals only, by difficulty" mode reads).

A number's **verdict** is the solver's, from the exact rows on PySol's numbering (``corridor``, ``solver``) in the
study's folder: won (a win found and replayed), lost (no win exists), unknown (its budget ran out), or unsolved
(not searched yet). Its **rating** is a point on the study's scale (:mod:`analysis.ratings`: the reference rung
1500, 400 points = 10:1 odds) and is given to a deal the solver won, or one not searched yet, never to a lost or
unknown one:

- ``played``: the ladder's rungs played it (experiments/published/ladder-pysol.toml); its rating is its posterior
  given their wins and losses, the rungs held at the ratings the study's ladder gives them on seed 0's deals
  (:func:`analysis.ratings.rate_deals`), so a PySol deal and a study deal of the same rating are equally hard.
  A game the study's ladder did not play (Citadel) is put on a scale of its own from these games, its reference
  rung at 1500 too (the file's header says which).
- ``predicted``: no rung played it; its rating is ``castle explain``'s before any search (the rating model of
  :mod:`sim.explain.rating`, from the layout and cheap probes; its held-out error in the header; Citadel's is
  trained on the numbers played here, :func:`own_scale`). For an unsolved
  deal it is the rating the deal has if it is winnable.

The tier is the rating's (:data:`analysis.ratings.TIERS`, cut at :data:`analysis.ratings.CUTS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sim.core import files

from . import ladder
from . import ratings as ratings_analysis
from .stats import player_mask

FORMAT = "castle-pysol-catalogue"
FORMAT_VERSION = 1
FIELDS = ("number", "verdict", "tier", "rating", "basis")
VERDICTS = ("won", "lost", "unknown", "unsolved")
BASES = ("played", "predicted")
FOLDER = "pysol-catalogue"  #: where ``make catalogue`` writes the files, inside data/published
LAST = 10_000  #: PySol's game numbers 1 to LAST
#: the games of the family PySol FC deals and ``pysol-cards`` reproduces (``make catalogue`` writes one file each)
GAMES = ("streets-and-alleys", "beleaguered-castle", "citadel", "selective-castle")
#: the scale of a game the study's ladder did not play, in words (the file's header)
OWN_SCALE = "its own: the ladder's rungs on these PySol deals (the study's ladder did not play this game)"


@dataclass
class Catalogue:
    """One game's catalogue: a row a number (``deal``, ``verdict``, ``rating``, ``tier``, ``basis``) and what it rests on."""

    game: str
    deals: pd.DataFrame
    scale: str  #: where the played deals' ratings come from, in words
    predicted_by: str = ""  #: the rating model's held-out error, in words ("" when the game has none)
    sources: list[str] = field(default_factory=list)  #: the datasets read

    def counts(self) -> dict[str, int]:
        d = self.deals
        return {**{v: int((d.verdict == v).sum()) for v in VERDICTS}, **{b: int((d.basis == b).sum()) for b in BASES}}


def tier_word(tier: str) -> str:
    """A tier as the file and the command line spell it: ``Very hard`` -> ``very-hard``."""
    return tier.lower().replace(" ", "-") if tier else "-"


def pysol_rows(folder: str | Path, game: str) -> tuple[pd.DataFrame, list[str]]:
    """Every row of ``game`` on PySol's numbering in the study at ``folder`` (``player``, ``deal``, ``result``), and the
    datasets they came from: only the datasets whose manifest says PySol's numbering are read."""
    from sim.core.deals import PYSOL_SEED

    from .load import load_manifest, load_results, study_folders
    from .parts import folder_values, parquet_parts

    frames, names = [], []
    for f in study_folders(Path(folder)):
        seed = (load_manifest(f).get("experiment") or {}).get("seed")
        if seed != PYSOL_SEED or not any(folder_values(f, p).get("game", game) == game for p in parquet_parts(f)):
            continue
        rows = load_results(f, games=[game], columns=["player", "seed", "deal", "result"])
        frames.append(rows[rows.seed == PYSOL_SEED])
        names.append(f.name)
    if not frames:
        return pd.DataFrame(columns=["player", "deal", "result"]), names
    rows = pd.concat(frames, ignore_index=True)
    return rows.assign(player=rows.player.astype(str), result=rows.result.astype(str), deal=rows.deal.astype(np.int64)), names


def build(folder: str | Path, game: str, last: int | None = LAST, predict: bool = True) -> Catalogue:
    """``game``'s catalogue of PySol's numbers 1 to ``last`` from the study at ``folder`` (see the module's docstring);
    ``last=None``: to the highest number its rows hold (1 when none). ``predict=False``: no prediction before search
    (numbers not played keep no rating)."""
    from .rated import scale_of

    rows, sources = pysol_rows(folder, game)
    if last is None:
        last = int(rows.deal.max()) if len(rows) else 1
    verdicts, games = _verdicts_and_games(rows)
    numbers = np.arange(1, last + 1, dtype=np.int64)
    out = pd.DataFrame({"deal": numbers})
    out["verdict"] = verdicts.reindex(numbers).fillna("unsolved").to_numpy()
    out["rating"] = np.nan
    out["basis"] = ""
    won = out.deal[out.verdict == "won"]
    games = games[games.deal.isin(won)]
    scale = scale_of(folder, game) if len(games) else None
    if scale is not None:
        rated = ratings_analysis.rate_deals(scale.fit, games)
        fit, said = scale.fit, "the study's ladder on seed 0's deals (the rungs held at their ratings there)"
    elif (own := _own_scale(games, won, game)) is not None:
        fit, rated, said = own.fit, own.fit.deals, OWN_SCALE
    else:
        fit, rated, said = None, None, "none: no rung played these deals"
    if fit is not None and rated is not None and len(rated):
        at = out.set_index("deal").index.get_indexer(rated.deal)
        out.loc[at, "rating"] = fit.rating(rated.b.to_numpy())
        out.loc[at, "basis"] = "played"
    predicted_by = ""
    if predict:
        predicted_by = _predict(out, game)
    out["tier"] = np.where(out.rating.notna(), ratings_analysis.tier_of(out.rating.fillna(0).to_numpy()), "")
    return Catalogue(game, out[["deal", "verdict", "tier", "rating", "basis"]], said, predicted_by, sources)


def scale_for(folder: str | Path, game: str):
    """``game``'s scale (an :class:`analysis.rated.Rated`): the study's (:func:`analysis.rated.scale_of`, seed 0's
    deals), or, for a game the study's ladder did not play (Citadel), its own from its ladder's games on PySol's
    numbers (:func:`own_scale`, its deals on seed -1); None where no ladder played it."""
    from .rated import scale_of

    s = scale_of(folder, game)
    return s if s is not None else own_scale(folder, game)


def own_scale(folder: str | Path, game: str):
    """``game`` on a scale of its own (an :class:`analysis.rated.Rated`, its deals labelled with PySol's seed), from
    the ladder's games on its won PySol numbers in the study at ``folder``, its reference rung at 1500 as in every
    game: the scale of a game the study's ladder did not play (Citadel), on which its catalogue rates the numbers
    played and its rating model (:mod:`analysis.explain_ratings`) is trained. None where fewer than two rungs
    played them."""
    from sim.core.deals import PYSOL_SEED

    verdicts, games = _verdicts_and_games(pysol_rows(folder, game)[0])
    won = verdicts.index[verdicts == "won"]
    own = _own_scale(games[games.deal.isin(won)], won, game)
    if own is not None:
        own.deals = own.deals.assign(seed=PYSOL_SEED)
        own.fit.deals = own.fit.deals.assign(seed=PYSOL_SEED)
    return own


def _verdicts_and_games(rows: pd.DataFrame) -> tuple[pd.Series, pd.DataFrame]:
    """:func:`pysol_rows` as the solver's verdict a number (index: deal) and the rungs' games (``player, seed, deal,
    won``; seed 0, as :func:`analysis.rated.outcomes` reads it)."""
    exact, heur = rows[~player_mask(rows.player)], rows[player_mask(rows.player)]
    verdicts = ladder.one_verdict(exact, ["deal"]).set_index("deal").verdict if len(exact) else pd.Series(dtype=object)
    return verdicts, pd.DataFrame({"player": heur.player, "seed": 0, "deal": heur.deal, "won": heur.result.eq("won")})


def _own_scale(games: pd.DataFrame, won, game: str):
    """The rungs' ``games`` (:func:`_verdicts_and_games`) on the ``won`` numbers, fitted on a scale of their own; None
    where fewer than two rungs played."""
    from .rated import rate_game

    if not len(games) or games.player.nunique() < 2:
        return None
    solved = pd.DataFrame({"game": game, "seed": 0, "deal": np.asarray(won), "verdict": "won"})
    return rate_game(games.assign(game=game, result=np.where(games.won, "won", "lost")), solved, game,
                     rungs=sorted(games.player.unique()))


def _predict(out: pd.DataFrame, game: str) -> str:
    """Ratings before search for the deals won or unsolved that no rung played, in place; the model's error in words."""
    from sim.core.deals import PYSOL_SEED
    from sim.explain.features import features
    from sim.explain.rating import rating_for
    from sim.game import Game

    model = rating_for(game)
    if model is None:
        return ""
    todo = out.index[(out.basis == "") & out.verdict.isin(["won", "unsolved"])]
    if len(todo):
        g = Game(game)
        X = features(g, [g.deal(int(d), PYSOL_SEED) for d in out.deal[todo]])
        out.loc[todo, "rating"] = model.predict(X)
        out.loc[todo, "basis"] = "predicted"
    trained = ", trained on the numbers played here" if model.on_pysol_numbers else ""
    return f"castle explain's rating model{trained} (held-out error ±{model.rmse:.0f} points, root mean square)"


def text(c: Catalogue, rules) -> str:
    """The catalogue as its plain text file: a header of ``#`` lines saying what each field means, then one line a
    number, its fields separated by a space (see :data:`FIELDS`)."""
    n = c.counts()
    unrated = int(((c.deals.verdict == "won") & (c.deals.tier == "")).sum())
    first, last = int(c.deals.deal.min()), int(c.deals.deal.max())
    head = [
        f"# {FORMAT} {FORMAT_VERSION}",
        f"# game: {rules.full_slug} ({rules.name}; PySol FC's game numbers {first}-{last}, open #N in PySol FC)",
        f"# fields: {' '.join(FIELDS)}",
        "# verdict: won (the solver found a win, replayed move by move), lost (proved: no win exists), "
        "unknown (the solver's budget ran out), unsolved (not searched yet)",
        "# tier: " + ", ".join(tier_word(t) for t in ratings_analysis.TIERS) + " (cut at "
        + ", ".join(f"{c:,.0f}" for c in ratings_analysis.CUTS) + " points), or - (no rating: lost or unknown"
        + (f"; and {unrated:,} won numbers the ladder did not play, with no rating model for this game to predict them"
           if unrated else "") + ")",
        f"# rating: points, {ratings_analysis.REFERENCE} rated {ratings_analysis.CENTRE:,.0f}, 400 points = 10:1 odds"
        " (a player rated 400 above a deal wins it 10 times in 11), or -",
        "# basis: played (rated from the ladder's games on the deal; scale: " + c.scale + "), "
        + (f"predicted (before any search, by {c.predicted_by}; for an unsolved deal, its rating if it is winnable)"
           if c.predicted_by else "predicted (not made for this game: no rating model)") + ", or -",
        f"# counts: won {n['won']}, lost {n['lost']}, unknown {n['unknown']}, unsolved {n['unsolved']}; "
        f"played {n['played']}, predicted {n['predicted']}",
        f"# from: {', '.join(c.sources) or 'no rows'}",
    ]
    lines = [f"{int(r.deal)} {r.verdict} {tier_word(r.tier)} {'-' if r.rating != r.rating else round(r.rating)} {r.basis or '-'}"
             for r in c.deals.itertuples(index=False)]
    return "\n".join(head + lines) + "\n"


def file_name(rules) -> str:
    """The catalogue file of a game: ``<slug>.pysol.txt``."""
    return f"{rules.full_slug}.pysol.txt"


def read(path: str | Path) -> pd.DataFrame:
    """A catalogue file's numbers (``deal``, ``verdict``, ``tier`` as :data:`analysis.ratings.TIERS` names it or "",
    ``rating`` or NaN, ``basis`` or ""); ValueError in one line for a file that is not one."""
    path = Path(path)
    lines = files.read_text(path, files.CATALOGUE, "a catalogue file").splitlines()
    if not lines or lines[0] != f"# {FORMAT} {FORMAT_VERSION}":
        raise ValueError(f"{path} is not a castle catalogue of PySol numbers (its first line is not '# {FORMAT} {FORMAT_VERSION}')")
    tiers = {tier_word(t): t for t in ratings_analysis.TIERS} | {"-": ""}
    out = []
    for k, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        parts = line.split(" ")
        if len(parts) != len(FIELDS) or not parts[0].isdigit() or parts[1] not in VERDICTS or parts[2] not in tiers \
                or parts[4] not in (*BASES, "-"):
            raise ValueError(f"{path}:{k}: not '{' '.join(FIELDS)}': {line[:60]!r}")
        out.append((int(parts[0]), parts[1], tiers[parts[2]], np.nan if parts[3] == "-" else float(parts[3]),
                    "" if parts[4] == "-" else parts[4]))
    return pd.DataFrame(out, columns=["deal", "verdict", "tier", "rating", "basis"])


def shipped(folder: str | Path) -> dict[str, pd.DataFrame]:
    """The catalogue files in ``folder``'s :data:`FOLDER`, read, by game (full slug; in the study's order of games)."""
    from .games import in_study_order

    found = {}
    for path in sorted((Path(folder) / FOLDER).glob("*.pysol.txt")):
        found[path.name.removesuffix(".pysol.txt")] = read(path)
    return {g: found[g] for g in in_study_order(set(found))}


def tiers_by_game(folder: str | Path) -> pd.DataFrame:
    """Per game of the shipped catalogue: its numbers, their verdicts, the numbers won in each tier and how many of
    those the ladder played, and the numbers not yet searched by predicted tier (the tier each has if winnable)."""
    rows = []
    for game, d in shipped(folder).items():
        won, unsolved = d[d.verdict == "won"], d[d.verdict == "unsolved"]
        rows.append({"game": game, "first": int(d.deal.min()), "last": int(d.deal.max()),
                     **{v: int((d.verdict == v).sum()) for v in VERDICTS}, "played": int((won.basis == "played").sum()),
                     **{f"won {t}": int((won.tier == t).sum()) for t in ratings_analysis.TIERS},
                     **{f"unsolved {t}": int((unsolved.tier == t).sum()) for t in ratings_analysis.TIERS},
                     "unsolved_unrated": int((unsolved.tier == "").sum()), "won_unrated": int((won.tier == "").sum())})
    return pd.DataFrame(rows)


def tiers_view(t: pd.DataFrame) -> pd.DataFrame:
    """:func:`tiers_by_game` as the README and the report show it: a row a game, counts in words."""
    from .games import name

    def counts(r, kind: str) -> str:
        return " / ".join(f"{int(r[f'{kind} {tier}']):,}" for tier in ratings_analysis.TIERS)

    def unsolved(r) -> str:
        if not r.unsolved:
            return "–"
        return counts(r, "unsolved") if r.unsolved > r.unsolved_unrated else "– (no rating model for this game)"

    return pd.DataFrame([{
        "game": name(r.game), "PySol numbers": f"{r['first']:,}-{r['last']:,}",
        "won / lost / unknown / unsolved": f"{r.won:,} / {r.lost:,} / {r.unknown:,} / {r.unsolved:,}",
        "won, by tier (very easy / easy / medium / hard / very hard)": counts(r, "won") + (
            f" ({r.won_unrated:,} not rated: not played by the ladder, no rating model)" if r.won_unrated else ""),
        "of the won, rated from the ladder's games": f"{r.played:,}",
        "unsolved, by predicted tier": unsolved(r)} for _, r in t.iterrows()])


def predicted_against_played(folder: str | Path, game: str) -> dict | None:
    """How well the rating predicted before search agrees with the rating the ladder's games give, on the PySol
    numbers the ladder played (deals neither model nor scale saw in training): deals, root-mean-square error,
    Spearman's correlation, the share given the same tier, the error of a constant (the played ratings' mean).
    A model trained on these numbers (a game the study's ladder did not play: :func:`own_scale`) is judged on the
    ones it held out. None where the game has no rating model or no such played number."""
    from scipy.stats import spearmanr

    from sim.explain.rating import rating_for

    model = rating_for(game)
    if model is None:
        return None
    c = build(folder, game, None, predict=False)
    played = c.deals[c.deals.basis == "played"].reset_index(drop=True)
    if model.on_pysol_numbers:
        unseen = np.zeros(len(played), bool)
        for lo, hi in model.holdout.get("deal_ranges") or []:
            unseen |= played.deal.between(lo, hi).to_numpy()
        played = played[unseen].reset_index(drop=True)
    if played.empty:
        return None
    guess = played.assign(basis="", rating=np.nan)
    _predict(guess, game)
    err = guess.rating.to_numpy() - played.rating.to_numpy()
    return {"game": game, "deals": len(played), "rmse": float(np.sqrt(np.mean(err**2))),
            "rmse_constant": float(played.rating.std(ddof=0)), "spearman": float(spearmanr(guess.rating, played.rating)[0]),
            "same_tier": float((ratings_analysis.tier_of(guess.rating.to_numpy()) == played.tier.to_numpy()).mean()),
            "model_rmse": float(model.rmse)}


def main(argv: list[str] | None = None) -> int:
    """``python -m analysis.catalogue [FOLDER]``: the before-search ratings against the played ones, per game."""
    import argparse

    from .games import in_study_order

    ap = argparse.ArgumentParser(prog="python -m analysis.catalogue", description=main.__doc__)
    ap.add_argument("folder", nargs="?", default="data/published", help="the study's folder")
    args = ap.parse_args(argv)
    print("game | played deals | before search: RMSE (a constant's) | Spearman | same tier | the model's held-out RMSE")
    for game in in_study_order(GAMES):
        r = predicted_against_played(args.folder, game)
        if r is not None:
            print(f"{game} | {r['deals']:,} | {r['rmse']:.0f} ({r['rmse_constant']:.0f}) | {r['spearman']:.2f} | "
                  f"{r['same_tier']:.0%} | {r['model_rmse']:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
