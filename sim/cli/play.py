"""``castle play`` and ``castle players``: any player on one deal, and the list of players."""

from __future__ import annotations

from typing import Optional

import typer

from ..core.deals import DEFAULT_SEED


def register(app: typer.Typer) -> None:
    app.command("play")(play)
    app.command("players")(players)


def play(
    game: str = typer.Argument(..., help="game slug or alias"),
    deal: str = typer.Argument(..., help="deal number, or pysol:N"),
    player: str = typer.Option("random", help="player and parameters, e.g. greedy or lookahead:depth=3 (see `castle players`)"),
    seed: int = typer.Option(DEFAULT_SEED, help="seed of the deal numbering and the player's draws"),
    max_moves: Optional[int] = typer.Option(None, min=1, help="move cap (overrides the player's max_moves)", show_default=False),
    show: bool = typer.Option(False, "--show", help="draw the board before and after"),
) -> None:
    """Let a player play one deal; print its moves and the result."""
    from ..core.cards import RANKS
    from ..core.deals import parse_deal_id
    from ..core.game import Game
    from ..players.loop import play_choice
    from ..players.registry import choose_player, parse_player

    g = Game(game)
    choice = parse_player(player)
    if max_moves is not None:
        choice = choose_player(choice.name, {**choice.params, "max_moves": max_moves})
    state = g.deal(deal, seed)
    _, number = parse_deal_id(deal)
    if show:
        typer.echo(str(state) + "\n")
    record = play_choice(choice, state, seed, number)
    typer.echo(" ".join(str(m) for m in record.moves))
    if show:
        typer.echo("\n" + str(state))
    base = "" if record.base_rank is None else f", base {RANKS[record.base_rank]}"
    extra = "".join(f", {k} {v}" for k, v in record.extra.items())
    typer.echo(f"{record.result} after {len(record.moves)} moves, {record.cards_home}/52 cards home{base}{extra}")


def players() -> None:
    """List the players, each with its parameters and their defaults."""
    from ..players.registry import registry

    specs = registry()
    width = max(len(n) for n in specs)
    for name, spec in specs.items():
        kind = "compiled" if spec.compiled else "python"
        typer.echo(f"{name:<{width}}  [{kind}] {spec.summary}")
        pw = max((len(f"{p.name}={p.default}") for p in spec.all_params), default=0)
        for p in spec.all_params:
            typer.echo(f"{'':<{width}}    {f'{p.name}={p.default}':<{pw}}  {p.help}")
