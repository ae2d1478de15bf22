"""The ``castle`` command line.

Every command reports bad input as one line on stderr and exits with status
2; no traceback reaches the user.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer
import typer.exceptions

from .board import BoardError
from .cards import CardError, card_str
from .deals import DEFAULT_SEED, DealError
from .experiment import ExperimentError
from .game import Game, IllegalMoveError
from .moves import MoveError
from .players import UnknownPlayerError
from .rules import GAMES, UnknownGameError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    help="Play, deal and measure games of the Beleaguered Castle family.",
)

#: errors that are the user's input, not our bug: one line, exit 2
USER_ERRORS = (
    UnknownGameError,
    UnknownPlayerError,
    ExperimentError,
    DealError,
    BoardError,
    CardError,
    MoveError,
    IllegalMoveError,
    OSError,
)


class Format(str, Enum):
    text = "text"
    json = "json"


def _state(game: Game, deal: str, seed: int):
    return game.deal(deal, seed)


@app.command()
def games() -> None:
    """List the games, one line each."""
    width = max(len(r.slug) for r in GAMES)
    for rules in GAMES:
        typer.echo(f"{rules.slug:<{width}}  {rules.description}")


@app.command()
def deal(
    game: str = typer.Argument(..., help="game slug or alias, see `castle games`"),
    deal: str = typer.Argument(..., help="deal number, or pysol:N for PySol FC's game N"),
    seed: int = typer.Option(DEFAULT_SEED, help="seed of the deal numbering"),
    format: Format = typer.Option(Format.text, "--format", help="text (board format) or json"),
) -> None:
    """Print a deal in the board text format."""
    g = Game(game)
    state = _state(g, deal, seed)
    if format is Format.json:
        pos = state.position()
        typer.echo(
            json.dumps(
                {
                    "game": g.rules.slug,
                    "deal": deal,
                    "seed": seed,
                    "piles": [[card_str(c) for c in p] for p in pos.piles],
                    "foundations": {"CDHS"[s]: pos.foundations[s] for s in range(4)},
                    "board": state.board_text(),
                }
            )
        )
    else:
        typer.echo(state.board_text(), nl=False)


@app.command("play")
def play_cmd(
    game: str = typer.Argument(..., help="game slug or alias"),
    deal: str = typer.Argument(..., help="deal number, or pysol:N"),
    player: str = typer.Option("random", help="player and parameters, e.g. greedy or lookahead:depth=3 (see `castle players`)"),
    seed: int = typer.Option(DEFAULT_SEED, help="seed of the deal numbering and the player's draws"),
    max_moves: Optional[int] = typer.Option(None, min=1, help="move cap (overrides the player's max_moves)", show_default=False),
    show: bool = typer.Option(False, "--show", help="draw the board before and after"),
) -> None:
    """Let a player play one deal; print its moves and the result."""
    from .deals import parse_deal_id
    from .players import choose_player, parse_player, play_choice

    g = Game(game)
    choice = parse_player(player)
    if max_moves is not None:
        choice = choose_player(choice.name, {**choice.params, "max_moves": max_moves})
    state = _state(g, deal, seed)
    _, number = parse_deal_id(deal)
    if show:
        typer.echo(str(state) + "\n")
    record = play_choice(choice, state, seed, number)
    typer.echo(" ".join(str(m) for m in record.moves))
    if show:
        typer.echo("\n" + str(state))
    base = "" if record.base_rank is None else f", base {'A23456789TJQK'[record.base_rank]}"
    extra = "".join(f", {k} {v}" for k, v in record.extra.items())
    typer.echo(f"{record.result} after {len(record.moves)} moves, {record.cards_home}/52 cards home{base}{extra}")


@app.command()
def bench(
    deals: int = typer.Option(2000, min=1, help="deals per game for the compiled engine"),
    reference_deals: int = typer.Option(20, min=1, help="deals per game for the reference engine"),
    max_moves: int = typer.Option(1000, min=1, help="move cap per playout"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object instead of the table"),
) -> None:
    """Random playouts: compiled engine against the reference engine, moves per second."""
    from .bench import run_bench

    results = run_bench(deals=deals, reference_deals=reference_deals, max_moves=max_moves)
    if as_json:
        typer.echo(json.dumps(results, indent=2))
        return
    typer.echo(f"{'game':<30} {'compiled moves/s':>17} {'reference moves/s':>18} {'ratio':>8}")
    for slug, row in results.items():
        typer.echo(
            f"{slug:<30} {row['compiled_moves_per_s']:>17,.0f} {row['reference_moves_per_s']:>18,.0f} {row['ratio']:>8,.0f}"
        )


@app.command()
def report(
    data: Path = typer.Argument(None, help="result dataset folder (default: data/default)"),
    out: Optional[Path] = typer.Option(None, "--out", help="report folder (default: reports/<dataset name>)"),
) -> None:
    """Build the HTML report (figures, tables, summary) of a result dataset."""
    from analysis.load import ResultsError
    from analysis.report import build_report

    from .paths import DEFAULT_DATA, REPORTS_DIR

    data = data or DEFAULT_DATA
    out = out or REPORTS_DIR / data.name
    try:
        index = build_report(data, out)
    except ResultsError as e:
        typer.echo(f"castle: {e}", err=True)
        raise typer.Exit(2) from None
    typer.echo(str(index))


def _register_commands() -> None:
    """Commands that live beside their subject: the runner's and the solver's."""
    from . import runner_cli, solver_cli

    runner_cli.register(app)
    solver_cli.register(app)


_register_commands()


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the app, turning user errors into one line and exit 2."""
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=argv, prog_name="castle", standalone_mode=False)
    except typer.Exit as e:
        sys.exit(getattr(e, "exit_code", 0))
    except typer.Abort:
        sys.exit(130)
    except typer.exceptions.TyperException as e:  # usage errors (typer's own click)
        message = e.format_message() if hasattr(e, "format_message") else str(e)
        print(f"castle: {message}", file=sys.stderr)
        sys.exit(2)
    except USER_ERRORS as e:
        print(f"castle: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(rv if isinstance(rv, int) else 0)


