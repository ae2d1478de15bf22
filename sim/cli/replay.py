"""``castle replay``: a whole game as one self-contained HTML page that steps through it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import typer

from ..core.deals import DEFAULT_SEED
from .show import check_out


def register(app: typer.Typer) -> None:
    app.command("replay")(replay)


def replay(
    game: str = typer.Argument(..., help="game slug or alias, see `castle games`"),
    deal: str = typer.Argument(..., help="deal number or pysol:N"),
    player: str = typer.Option(..., "--player", help="player and parameters, e.g. greedy or solver:budget_seconds=10 (see `castle players`)"),
    seed: int = typer.Option(DEFAULT_SEED, help="seed of the deal numbering and the player's draws"),
    max_moves: Optional[int] = typer.Option(None, min=1, help="move cap (overrides the player's max_moves)", show_default=False),
    out: Optional[Path] = typer.Option(None, "--out", help="the page to write, FILE.html [default: replay-GAME-DEAL-PLAYER.html here]", show_default=False),
    tidy: bool = typer.Option(True, "--tidy/--no-tidy", help="show a solver's win tidied for reading (moves that go nowhere taken out; the result is the same), or its line as found"),
) -> None:
    """Play a deal and write a page that replays it: buttons, arrow keys, a slider and the move list.

    With --player solver the page replays the solver's win (tidied for reading:
    see --no-tidy); a deal it proves
    lost (or cannot settle within its budget) gives a page showing the deal
    and saying so. The page is one HTML file that needs no network.
    """
    from ..core.deals import parse_deal_id
    from ..core.game import Game
    from ..players.registry import parse_player
    from ..render.replay import record_replay, replay_html

    g = Game(game)
    parse_deal_id(deal)
    choice = parse_player(player)
    if out is None:
        name = "-".join(re.sub(r"[^A-Za-z0-9-]+", "", part) for part in (g.rules.full_slug.replace('@', '-'), deal, choice.name))
        out = Path(f"replay-{name}.html")
    check_out(out, (".html", ".htm"))
    g.deal(deal, seed)  # a bad deal or seed is said before any play
    rep = record_replay(g, deal, player, seed, max_moves=max_moves, tidy=tidy)
    out.write_text(replay_html(rep), encoding="utf-8")
    typer.echo(f"wrote {out}: {rep.result}, {len(rep.moves)} moves, {rep.cards_home}/52 cards home")
