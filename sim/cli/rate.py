"""``castle rate``: a player's rating on the ladder's scale, from a few hundred of the deals the ladder rated."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from . import options
from ..core.jsontext import dumps
from .errors import UserError


def register(app: typer.Typer) -> None:
    app.command("rate")(rate)


def rate(
    player: str = typer.Argument(..., help="player and parameters, as for castle play (a built-in, path/to/file.py:Name "
                                 "or package.module:Name)"),
    game: str = options.game(help="game slug or alias (one the ladder of the shipped study played)"),
    deals: int = typer.Option(300, "--deals", min=20, max=100_000, help="how many of the rated deals to play (the first "
                              "by number): the interval narrows as one over their square root"),
    jobs: int = options.jobs(),
    data: Optional[Path] = typer.Option(None, "--data", help="the study whose ladder sets the scale [default: "
                                        "data/published here, else the checkout's]", show_default=False),
    as_json: bool = options.as_json(help="one JSON object instead of text"),
) -> None:
    """Rate PLAYER on the scale of deals and players (analysis/ratings.py: a Rasch model of the ladder's wins, in Elo's
    points, the rung beam:budget=1000000 at 1500): it plays the first N deals of seed 0 the ladder rated (winnable
    deals every rung played; in a game the study's ladder did not play, Citadel, PySol's numbers its ladder played,
    on that game's own scale), and its rating is the one that makes its wins most likely with the deals' ratings
    held fixed, with a 95% interval (profile likelihood). Then where it stands among the ladder's rungs, and its
    chance on each tier's deals (averaged over what each deal's rating may be: analysis.ratings.chance)."""
    from analysis import catalogue
    from analysis import ratings as ratings_analysis
    from analysis.report import default_reference

    from ..core.rules import find_game
    from .boards import checked_player

    rules = find_game(game)
    choice = checked_player(player)
    folder = data or default_reference()
    if folder is None or not Path(folder).is_dir():
        raise UserError(f"--data {data}: no such folder" if data is not None else
                        "no shipped study here to rate against: give --data (a folder holding the ladder and the solver's rows)")
    scale = catalogue.scale_for(folder, rules.full_slug)
    if scale is None:
        raise UserError(f"{folder} holds no ladder of {rules.name} to rate against (its rungs on the deals the solver won)")
    keys = scale.deals.sort_values(["seed", "deal"]).head(deals)
    if len(keys) < deals:
        typer.echo(f"castle rate: the ladder rated {len(keys)} deals of {rules.name}; playing those", err=True)
    games = _play(rules, choice, keys, jobs)
    r = ratings_analysis.rate_player(scale.fit, games)
    table = scale.players()
    below = table[table.rating < r.rating].tail(1)
    above = table[table.rating >= r.rating].head(1)
    chances = ratings_analysis.chance(r.rating, scale.deals.rating, scale.deals.se)
    tiers = scale.deals.assign(chance=chances).groupby("tier", sort=False).chance.mean()
    tiers = {t: float(tiers[t]) for t in ratings_analysis.TIERS if t in tiers.index}
    if as_json:
        typer.echo(dumps({"player": choice.label, "game": rules.full_slug, "rating": r.rating, "low": r.lo, "high": r.hi,
                          "bound": r.bound or None, "deals": r.deals, "won": r.won,
                          "ladder": [{"player": p, "rating": x} for p, x in zip(table.player, table.rating)],
                          "chance_by_tier": tiers}))
        return
    pysol = "" if (keys.seed >= 0).all() else " (PySol's numbers: the study's ladder did not play this game, the scale is its own)"
    if r.bound:
        typer.echo(f"{choice.label} on {rules.name}: rating {'below' if r.bound == 'below' else 'above'} {r.rating:,.0f} "
                   f"(won {r.won} of {r.deals} deals: only a bound, 95%){pysol}")
    else:
        typer.echo(f"{choice.label} on {rules.name}: rating {r.rating:,.0f} (95% interval {r.lo:,.0f} to {r.hi:,.0f}), "
                   f"from {r.won} won of {r.deals} rated deals{pysol}")
    where = (f"between {below.player.iloc[0]} ({below.rating.iloc[0]:,.0f}) and {above.player.iloc[0]} ({above.rating.iloc[0]:,.0f})"
             if len(below) and len(above) else
             f"above every rung (the strongest, {below.player.iloc[0]}, is {below.rating.iloc[0]:,.0f})" if len(below) else
             f"below every rung (the weakest, {above.player.iloc[0]}, is {above.rating.iloc[0]:,.0f})")
    typer.echo(f"on the ladder: {where}; the scale: beam:budget=1000000 is 1500, 400 points more is 10:1 odds")
    typer.echo("its chance on each tier's deals: " + ", ".join(f"{t} {p:.0%}" for t, p in tiers.items()))


def _play(rules, choice, keys, jobs: int):
    """The player's games on ``keys``' deals (``seed, deal, won``): contiguous runs of deal numbers, on ``jobs``
    processes the way castle play's are (boards.each: Ctrl-C and SIGTERM stop them)."""
    from functools import partial

    import numpy as np
    import pandas as pd

    from .boards import each

    spans = []
    for seed, g in keys.groupby("seed"):
        d = np.sort(g.deal.to_numpy())
        for run in np.split(d, np.flatnonzero(np.diff(d) > 1) + 1):
            spans += [(int(seed), int(run[i]), int(run[min(i + 199, len(run) - 1)])) for i in range(0, len(run), 200)]
    out = pd.concat(list(each(partial(_span, rules, choice), spans, jobs)), ignore_index=True)
    return pd.DataFrame({"seed": out.seed, "deal": out.deal, "won": out.result.astype(str).eq("won")})


def _span(rules, choice, span: tuple[int, int, int]):
    """Deals ``first..last`` of ``seed`` played (in a worker): their seed, deal and result."""
    from ..study.rows import play_rows

    seed, first, last = span
    return play_rows(rules, choice, seed, first, last).select(["seed", "deal", "result"]).to_pandas()
