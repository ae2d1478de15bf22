"""``castle replay``: a whole game as one self-contained HTML page that steps through it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import typer

from . import options
from ..core import files
from .boards import check_seed, checked_player
from .errors import UserError
from .show import check_out


def register(app: typer.Typer) -> None:
    app.command("replay")(replay)


def replay(
    game: str = typer.Argument(..., help="game slug or alias, see `castle games`"),
    deal: str = typer.Argument(..., help="deal number or pysol:N"),
    player: Optional[str] = options.player(help="player and parameters, e.g. greedy or solver:budget_seconds=10 (see `castle players`); or --moves"),
    moves_from: Optional[str] = typer.Option(None, "--moves", metavar="FILE", help="replay this move list instead of a player's game: moves as the board text writes them (3-7, 2-F), separated by spaces or lines, # comments; - reads standard input", show_default=False),
    review: bool = typer.Option(False, "--review", help="the solver judges the game: every move coloured by its verdict, the first losing move marked with what would have kept the deal, a won game's critical moves"),
    seed: int = options.seed(draws=True),
    max_moves: Optional[int] = typer.Option(None, min=1, help="move cap (overrides the player's max_moves)", show_default=False),
    out: Optional[Path] = typer.Option(None, "--out", help="the page to write, FILE.html [default: replay-GAME-DEAL-PLAYER.html here]", show_default=False),
    tidy: bool = typer.Option(True, "--tidy/--no-tidy", help="show a solver's win tidied for reading (moves that go nowhere taken out; the result is the same), or its line as found"),
) -> None:
    """Play a deal and write a page that replays it: buttons, arrow keys, a slider and the move list.

    With --player solver the page replays the solver's win (tidied for reading:
    see --no-tidy); a deal it proves
    lost (or cannot settle within its budget) gives a page showing the deal
    and saying so. The page is one HTML file that needs no network.

    --moves FILE replays a list of moves (a person's game) instead of a
    player's; --review has the solver judge the game played.
    """
    from ..core.deals import parse_deal_id
    from ..game import Game
    from ..replay import record_replay, replay_html
    from ..replay.movelist import alternatives_text, move_name

    g = Game(game)
    parse_deal_id(deal)
    if (player is None) == (moves_from is None):
        raise UserError("Missing option '--player' (or --moves FILE): give one of them, not both")
    if moves_from is not None and max_moves is not None:
        raise UserError("--max-moves caps a player's game, not a list of moves")
    who = checked_player(player, max_moves).name if player is not None else "moves"
    if out is None:
        name = "-".join(re.sub(r"[^A-Za-z0-9-]+", "", part) for part in (g.rules.full_slug.replace('@', '-'), deal, who))
        out = Path(f"replay-{name}.html")
    check_out(out, (".html", ".htm"))
    check_seed(seed)
    state = g.deal(deal, seed)  # a bad deal or seed is said before any play
    moves, label = None, None
    if moves_from is not None:
        from .play import _where, read_moves
        from .boards import Item

        moves = read_moves(moves_from, state, _where(g, Item("deal", deal), seed))
        label = "the moves of " + ("standard input" if moves_from == "-" else Path(moves_from).name)
    rep = record_replay(g, deal, player if moves is None else label, seed, max_moves=max_moves, tidy=tidy, review=review,
                        moves=moves)
    files.write_atomic(out, replay_html(rep))  # the old page stays whole until the new one is
    typer.echo(f"wrote {out}: {rep.result}, {len(rep.moves)} moves, {rep.cards_home}/52 cards home")
    if rep.review_note is not None:
        k = rep.first_mistake
        if k is not None:
            kept = alternatives_text(rep) or "no other move was proved to keep it"
            typer.echo(f"review: the first mistake is move {k + 1}, {move_name(rep.positions[k], rep.moves[k])}; why: "
                       f"{rep.why}; would have kept the deal: {kept}")
        else:
            typer.echo(f"review: {rep.review_note}")
        if rep.critical:
            typer.echo("critical moves: " + ", ".join(f"{i + 1} {move_name(rep.positions[i], rep.moves[i])}" for i in rep.critical))
