"""``castle explain``: how likely a deal is to be winnable, and why, before any search (:mod:`sim.explain`).

Each deal or board gets its game's calibrated probability of being
winnable and the few features that move it most up or down, in a player's
words, each with the points of probability it adds or takes (the chance
less the chance were that one thing as on a usual deal of the game), and,
where the game has a rating model, the deal's predicted rating on the
study's scale with its held-out error and its tier; a few milliseconds a deal. ``--solve`` puts the solver's verdict and the
corridor's difficulty index beside it (seconds to minutes a deal).
"""

from __future__ import annotations

from typing import List, Optional

import typer

from . import options
from ..core.jsontext import finite
from .boards import echo_lines, game_fields, items
from .errors import UserError


def register(app: typer.Typer) -> None:
    app.command("explain")(explain_cmd)


def explain_cmd(
    game: str = typer.Argument(..., help="game slug or alias, see `castle games`"),
    deals: Optional[List[str]] = typer.Argument(None, help="deal numbers or pysol:N; with --board, board files, folders of them, or - (standard input, boards separated by blank lines)", show_default=False),
    board: bool = options.boards(),
    seed: int = options.seed(),
    reasons: int = typer.Option(4, min=3, max=5, help="reasons given a deal (3 to 5)"),
    as_json: bool = options.as_json(help="JSON, one line per deal or board in the order given (probability in p_win; reasons as a list: "
                                 "feature, value, usual, contribution (its SHAP value on the log-odds), points (of probability), helps, text; "
                                 "rating, rating_rmse (its held-out error, points) and tier: null where the game has no rating model)"),
    solve: bool = typer.Option(False, "--solve", help="also the solver's verdict and the corridor's difficulty index (slow: seconds to minutes a deal)"),
    budget_seconds: Optional[float] = typer.Option(None, help="with --solve: CPU seconds the solver spends at most on a deal "
                                                   "[default: 60]", show_default=False),
    model_file: Optional[str] = typer.Option(None, "--model", metavar="FILE", help="a model file (.json.gz) instead of the game's shipped one", show_default=False),
    rating_file: Optional[str] = typer.Option(None, "--rating-model", metavar="FILE", help="a rating model file (.rating.json.gz) instead of the game's shipped one", show_default=False),
) -> None:
    """The calibrated probability that each deal is winnable, and what helps or stands in the way most, in points of probability."""
    from ..game import Game
    from ..explain import rating as RM
    from ..explain.model import ModelError, load, model_for
    from ..explain.reasons import explain

    budget_seconds = _budget(solve, budget_seconds)
    g = Game(game)
    todo = items(g, deals or [], board, seed)
    try:
        model = model_for(g.rules.full_slug) if model_file is None else load(model_file, g.rules)
        rating = RM.rating_for(g.rules.full_slug) if rating_file is None else RM.load(rating_file, g.rules)
    except ModelError as e:
        raise UserError(str(e)) from None
    states = [it.state(g, seed) for it in todo]
    found = explain(g, states, model, k=reasons)
    try:
        ratings = RM.rated(rating, found)
    except ModelError as e:
        raise UserError(str(e)) from None
    rows = []
    for item, state, e, r in zip(todo, states, found, ratings):
        row = {**game_fields(g.rules), item.key: item.name, **({"seed": seed} if item.key == "deal" else {}), **e.to_dict(), **r}
        if solve:
            row.update(_solved(g, state, budget_seconds))
        rows.append(row)
        if as_json:  # a line as soon as it is known (--solve takes a while a deal)
            echo_lines([finite(row)])  # (NaN and Infinity as null: strict JSON)
    if not as_json:
        for row in rows:
            typer.echo("\n".join(_text(row)))
        if rating is not None and rows:
            typer.echo(RM.note(rating))
        if any(r["points"] is not None for row in rows for r in row["reasons"]):
            from ..explain.words import POINTS_NOTE, POINTS_NOTE_SHAP

            typer.echo(POINTS_NOTE if all(row["points_by"] == "usual" for row in rows) else POINTS_NOTE_SHAP)


def _budget(solve: bool, budget_seconds: float | None) -> float:
    """The solver's CPU seconds a deal, checked before any work: an option that only means something with --solve is
    refused without it (it was ignored without a word)."""
    from ..core.limits import check_limits

    if budget_seconds is not None and not solve:
        raise UserError("--budget-seconds bounds the solver's CPU a deal: it goes with --solve")
    budget_seconds = 60.0 if budget_seconds is None else budget_seconds
    problem = check_limits(100_000_000, budget_seconds, 1 << 27)
    if problem:
        raise UserError(problem.replace("budget_", "--budget-"))
    return budget_seconds


def _solved(game, state, budget_seconds: float) -> dict:
    """The solver's verdict and, when won, the corridor's difficulty index (bits of luck along its line)."""
    from ..core.outcome import Result
    from ..solver.answer import solve
    from ..solver.corridor import corridor

    res = solve(game, state.copy(), budget_seconds=budget_seconds, dead_end=True)
    out = {"verdict": str(res.result), "difficulty": None}
    if res.result is Result.WON:
        c = corridor(game, state.copy(), line=res.moves)
        out["difficulty"] = round(c.difficulty, 3)
    return out


def _text(row: dict) -> list[str]:
    """A deal's lines: its chance, then a reason a line, its points first (``=``: a certainty or a share, no points)."""
    from ..explain.words import points_text

    name = f"deal {row['deal']}" if "deal" in row else f"board {row['board']}"
    head = f"{name}: {_share(row['p_win'])} winnable"
    if row["certain"]:
        head += " (won by a probe: certain" + (f"; the model alone says {_share(row['p_model'])})" if row["p_model"] is not None else ")")
    if row["rating"] is not None:
        head += f"; predicted rating {row['rating']:,} ± {row['rating_rmse']:,} ({row['tier']})"
    if "verdict" in row:
        diff = "" if row["difficulty"] is None else f", difficulty {row['difficulty']:.1f} bits"
        head += f"; solver: {row['verdict']}{diff}"
    lines = [head]
    for r in row["reasons"]:
        points = "=" if r["points"] is None else points_text(r["points"])
        lines.append(f"  {points:>12}  {r['text']}")
    return lines


def _share(p: float) -> str:
    """A probability as a percentage, never rounded to a certainty it is not."""
    if p >= 1.0:
        return "100%"
    if p > 0.995:
        return ">99.5%"
    if p < 0.005:
        return "<0.5%"
    return f"{100 * p:.0f}%"
