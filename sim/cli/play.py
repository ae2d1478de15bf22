"""``castle play`` and ``castle players``: any player on one deal, and the list of players."""

from __future__ import annotations

from functools import partial
from typing import List, Optional

import typer

from ..core.deals import DEFAULT_SEED
from .boards import Item, each, echo_lines, game_fields, items


def register(app: typer.Typer) -> None:
    app.command("play")(play)
    app.command("players")(players)


def play(
    game: str = typer.Argument(..., help="game slug or alias"),
    deals: Optional[List[str]] = typer.Argument(None, help="deal numbers or pysol:N; with --board, board files, folders of them, or - (standard input)", show_default=False),
    board: bool = typer.Option(False, "--board", help="the arguments are board files, folders or -, not deals"),
    player: str = typer.Option("random", help="player and parameters, e.g. greedy or lookahead:depth=3 (see `castle players`)"),
    seed: int = typer.Option(DEFAULT_SEED, help="seed of the deal numbering and the player's draws"),
    max_moves: Optional[int] = typer.Option(None, min=1, help="move cap (overrides the player's max_moves)", show_default=False),
    show: bool = typer.Option(False, "--show", help="draw the board before and after (one deal, as text)"),
    jobs: int = typer.Option(1, min=1, help="processes playing at once (several deals or boards)"),
    as_json: bool = typer.Option(False, "--json", help="JSON (one line per deal or board) instead of text"),
) -> None:
    """Let a player play deals or boards; print its moves and the result."""
    from ..core.cards import RANKS
    from ..core.game import Game
    from ..players.registry import choose_player, parse_player

    g = Game(game)
    choice = parse_player(player)
    if max_moves is not None:
        choice = choose_player(choice.name, {**choice.params, "max_moves": max_moves})
    todo = items(g, deals or [], board, seed)
    work = partial(_play, g.rules.full_slug, seed, choice.label)
    if len(todo) > 1 or as_json:
        echo_lines(each(work, todo, jobs))
        return
    state = todo[0].state(g, seed)
    if show:
        from ..render.text import coloured

        typer.echo(coloured(str(state)) + "\n")
    row = work(todo[0], state=state)
    typer.echo(" ".join(row["moves"]))
    if show:
        typer.echo("\n" + coloured(str(state)))
    base = "" if row["base_rank"] is None else f", base {RANKS[row['base_rank']]}"
    extra = "".join(f", {k} {v}" for k, v in row.get("extra", {}).items())
    typer.echo(f"{row['result']} after {len(row['moves'])} moves, {row['cards_home']}/52 cards home{base}{extra}")


def _play(name: str, seed: int, player: str, item: Item, state=None) -> dict:
    """One item played, as a JSON-ready row (in a worker when there are several)."""
    import time

    from ..core.deals import parse_deal_id
    from ..core.game import Game
    from ..players.loop import play_choice
    from ..players.registry import parse_player

    game = Game(name)
    choice = parse_player(player)
    state = state if state is not None else item.state(game, seed)
    number = parse_deal_id(item.name)[1] if item.key == "deal" else 0
    c0 = time.process_time()
    record = play_choice(choice, state, seed, number)
    row = {**game_fields(game.rules), item.key: item.name, "seed": seed, "player": choice.label, "player_params": choice.params,
           "result": str(record.result), "moves": [str(m) for m in record.moves], "cards_home": record.cards_home,
           "base_rank": record.base_rank, "positions": record.positions, "cpu_seconds": round(time.process_time() - c0, 4)}
    if record.extra:
        row["extra"] = record.extra
    return row


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
            allowed = f" ({p.range_text})" if p.range_text else ""
            typer.echo(f"{'':<{width}}    {f'{p.name}={p.default}':<{pw}}  {p.help}{allowed}")
