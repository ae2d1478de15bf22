"""``castle play`` and ``castle players``: any player on one deal, and the list of players.

``--review`` has the solver judge the game played (:func:`sim.solver.review.review`):
its first losing move, the moves that would have kept the deal winnable there,
and a verdict for every move. ``--moves FILE`` plays a move list (a person's
game, in the board text's move notation) instead of a player.
"""

from __future__ import annotations

import sys
from functools import partial
from typing import List, Optional

import typer

from . import options
from ..core import files
from ..core.jsontext import finite
from .boards import Item, checked_player, each, echo_lines, game_fields, items
from .errors import UserError


def register(app: typer.Typer) -> None:
    app.command("play")(play)
    app.command("players")(players)


def play(
    game: str = typer.Argument(..., help="game slug or alias"),
    deals: Optional[List[str]] = typer.Argument(None, help="deal numbers or pysol:N; with --board, board files, folders of them, or - (standard input)", show_default=False),
    board: bool = options.boards(),
    player: Optional[str] = options.player(),
    seed: int = options.seed(draws=True),
    max_moves: Optional[int] = typer.Option(None, min=1, help="move cap (overrides the player's max_moves)", show_default=False),
    show: bool = typer.Option(False, "--show", help="draw the board before and after (one deal, as text)"),
    jobs: int = options.jobs("processes playing at once (several deals or boards)"),
    as_json: bool = options.as_json(help="JSON (one line per deal or board) instead of text; with --review, "
                                 "moves are numbered from 1 (first_mistake, critical), as the text says them"),
    review: bool = typer.Option(False, "--review", help="the solver judges the game: its first losing move, what would have kept the deal there, a verdict per move"),
    moves_from: Optional[str] = typer.Option(None, "--moves", metavar="FILE", help="play this move list instead of a player (one deal): moves as the board text writes them (3-7, 2-F), separated by spaces or lines, # comments; - reads standard input", show_default=False),
) -> None:
    """Let a player play deals or boards (or play a list of moves); print its moves and the result."""
    from ..game import Game

    g = Game(game)
    todo = items(g, deals or [], board, seed)
    if show and (len(todo) > 1 or as_json):  # (it drew nothing and said nothing)
        raise UserError("--show draws one game as text: give one DEAL (or one board), without --json")
    if moves_from is not None:
        if player is not None:
            raise UserError("give --player or --moves, not both")
        if max_moves is not None:
            raise UserError("--max-moves caps a player's game, not a list of moves")
        if len(todo) != 1:
            raise UserError("--moves plays one game: give one DEAL (or one board)")
        state = todo[0].state(g, seed)
        moves = read_moves(moves_from, state, _where(g, todo[0], seed))
        label = "moves"
    else:
        choice = checked_player("random" if player is None else player, max_moves)  # --player '' is no player, not random
        moves, label = None, choice  # (the choice itself: a player from a file travels to --jobs' workers as its code)
    work = partial(_play, g.rules.full_slug, seed, label, review=review, moves=moves, source=moves_from)
    if as_json:
        echo_lines(map(finite, each(work, todo, jobs)))  # (NaN and Infinity as null: strict JSON)
        return
    if len(todo) > 1:
        for k, row in enumerate(each(work, todo, jobs)):
            typer.echo(("\n" if k else "") + f"{row.get('board') or 'deal ' + str(row.get('deal'))}:")
            for line in _text(row, review):
                typer.echo(line)
        return
    state = todo[0].state(g, seed)
    if show:
        from ..render.text import coloured

        typer.echo(coloured(str(state)) + "\n")
    row = work(todo[0], state=state)
    lines = _text(row, review)
    typer.echo(lines[0])
    if show:
        typer.echo("\n" + coloured(str(state)))
    for line in lines[1:]:
        typer.echo(line)


def _text(row: dict, review: bool) -> list[str]:
    """One game as text: its moves (marked by the review), the result, and what the review found."""
    from ..core.cards import RANKS

    base = "" if row["base_rank"] is None else f", base {RANKS[row['base_rank']]}"
    extra = "".join(f", {k} {v}" for k, v in row.get("extra", {}).items())
    return [" ".join(_annotated(row)),
            f"{row['result']} after {len(row['moves'])} moves, {row['cards_home']}/52 cards home{base}{extra}",
            *(_review_lines(row) if review else [])]


def _where(game, item: Item, seed: int) -> str:
    """The game a move list is played on, as an error message names it."""
    if item.key == "board":
        return f"the board {item.name}"
    return f"{game.rules.slug} deal {item.name}" + ("" if item.name.startswith("pysol") else f" (seed {seed})")


def read_moves(source: str, state, where: str = "this deal") -> list:
    """The moves of ``source`` (a file, or ``-``: standard input), each checked legal where it is played from ``state``.

    Moves are written as the board text writes them (``3-7``, ``2-F``, ``FH-2``, ``3-5x4``), separated by
    whitespace, newlines or commas; ``#`` starts a comment to the end of its line. A file with no move, a
    word that is not a move, or a move that is not legal where it comes (a list for another deal) is bad
    input: a :class:`~.errors.UserError` naming the move's number and text.
    """
    from ..core.moves import IllegalMoveError, Move, MoveError

    name = "standard input" if source == "-" else source
    try:  # UTF-8 whatever the locale says, at most files.MOVE_LIST bytes
        data = files.read_stream(sys.stdin, files.MOVE_LIST, "a move list") if source == "-" else \
            files.read_bytes(source, files.MOVE_LIST, "a move list")
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{name}: not a move list (it is not UTF-8 text)") from None
    words = [w for line in text.splitlines() for w in line.split("#", 1)[0].replace(",", " ").split()]
    if not words:
        raise UserError(f"{name}: no moves in it (write them as the board text does, e.g. 3-7 2-F)")
    walk, moves = state.copy(), []
    for k, word in enumerate(words, start=1):
        try:
            move = Move.from_str(word)
        except MoveError:
            raise UserError(f"{name}: move {k} ({word}) is not a move (write e.g. 3-7 or 2-F)") from None
        try:
            walk.push(move)
        except IllegalMoveError as e:
            reason = str(e).split(": ", 1)[-1]
            at = f"at the start of {where} (a list for another deal?)" if k == 1 else f"after move {k - 1} on {where}"
            raise UserError(f"{name}: move {k} ({word}) is not legal {at}: {reason}") from None
        moves.append(move)
    return moves


def _play(name: str, seed: int, player, item: Item, state=None, review: bool = False, moves=None,
          source: str | None = None) -> dict:
    """One item played (by the player, or the list ``moves``), as a JSON-ready row (in a worker when there are several)."""
    import time

    from ..core.deals import stream_key
    from ..game import Game
    from ..players.loop import play_choice
    from ..players.registry import parse_player

    game = Game(name)
    state = state if state is not None else item.state(game, seed)
    start = state.copy()
    c0 = time.process_time()
    if moves is not None:
        record = _scripted(state, moves)
        params = {"file": source}
    else:
        choice = player if not isinstance(player, str) else parse_player(player)
        stream_seed, number = stream_key(item.name, seed) if item.key == "deal" else (seed, 0)
        record = play_choice(choice, state, stream_seed, number)
        player, params = choice.label, choice.params
    row = {**game_fields(game.rules), item.key: item.name, "seed": seed, "player": player, "player_params": params,
           "result": str(record.result), "moves": [str(m) for m in record.moves], "cards_home": record.cards_home,
           "base_rank": record.base_rank, "positions": record.positions, "cpu_seconds": round(time.process_time() - c0, 4)}
    if record.extra:
        row["extra"] = record.extra
    if review:
        from ..solver.review import review as judge_game

        rev = judge_game(game, start, record.moves)
        d = rev.to_dict()
        d["named"] = _named(start, record.moves, rev)
        row.update(first_mistake=d.pop("first_mistake"), kind=d.pop("kind"), why=d.pop("why"),
                   keeps_instead=d.pop("keeps_instead"), marks=d.pop("marks"), critical=d.pop("critical"), review=d)
    return row


def _named(start, moves, rev) -> dict:
    """The review's moves named as the replay page names them, by the card each takes (``3-7 (J♠)``)."""
    from ..replay.movelist import move_name

    walk, positions = start.copy(), []
    for m in moves:
        positions.append(walk.position())
        walk.push(m)
    k = rev.first_mistake
    return {"first_mistake": None if k is None else move_name(positions[k], moves[k]),
            "keeps_instead": [] if k is None else [move_name(positions[k], m) for m in rev.alternatives],
            "critical": [move_name(positions[i], moves[i]) for i in rev.critical or []]}


def _scripted(state, moves):
    """A move list played on ``state`` (left at its end) as the play loop's record: won, stuck, or gave_up (the list stopped)."""
    from ..core.outcome import Result
    from ..core.rules import FoundationBase
    from ..players.record import GameRecord

    seen = {state.hash()}
    empty = state.empty_piles
    for m in moves:
        state.push(m)
        seen.add(state.hash())
        empty = max(empty, state.empty_piles)
    result = Result.WON if state.is_won() else Result.STUCK if len(state.legal_moves) == 0 else Result.GAVE_UP
    shared = state.rules.foundation_base == FoundationBase.FIRST_CARD_SHARED  # the base as the play loop's rows give it
    return GameRecord(result, list(moves), state.cards_home, state.base_rank if shared else None, empty, len(seen))


def _annotated(row: dict) -> list[str]:
    """The moves, the first mistake marked ``?`` and a critical move (the only one keeping the deal) ``!``."""
    words = list(row["moves"])
    for k in row.get("critical") or []:  # (move numbers, from 1)
        words[k - 1] += "!"
    if row.get("first_mistake") is not None:
        words[row["first_mistake"] - 1] += "?"
    return words


def _review_lines(row: dict) -> list[str]:
    """What ``--review`` adds to the text: the finding, what would have kept the deal, the counts."""
    rev = row["review"]
    named = rev["named"]
    lines = [f"review: {rev['note']}"]
    k = row["first_mistake"]
    if k is not None:
        lines[0] = (f"review: the first mistake (marked ?) is move {k}, {named['first_mistake']}: the position before it "
                    f"is winnable, the one after it lost; why: {row['why']}")
        lines.append("would have kept the deal: " + (", ".join(named["keeps_instead"]) or "no other move was proved to keep it"))
    if row.get("critical"):
        lines.append("critical (marked !, the only move that kept the deal there): "
                     + ", ".join(f"move {i} {name}" for i, name in zip(row["critical"], named["critical"])))
    counts = rev["counts"]
    words = {"keeps": "kept the deal winnable", "loses": "lost it", "lost": "came after it was lost", "unknown": "not settled"}
    parts = [f"{counts[key]} {text}" for key, text in words.items() if counts.get(key)]
    asked = f"{rev['questions']} position{'s' * (rev['questions'] != 1)} asked" + (f", {rev['unknown']} unknown" if rev["unknown"] else "")
    lines.append(f"moves: {', '.join(parts) or 'none'} ({asked}, {rev['seconds']:.2f} s CPU)")
    return lines


def players(
    source: Optional[str] = typer.Option(None, "--from", metavar="<file.py|module>",
                                         help="list the players of this file or module instead (use them as FILE:Name)"),
) -> None:
    """List the players, each with its parameters and their defaults."""
    from ..players.registry import registry
    from ..players.sources import players_in

    if source is None:
        specs = registry()
    else:
        specs = {f"{source}:{s.name}": s for s in players_in(source)}
        if not specs:
            raise UserError(f"{source} defines no player (a class with choose(state), or a function made with "
                            "sim.players.plugin.compiled)")
    width = max(len(n) for n in specs)
    for name, spec in specs.items():
        kind = "compiled" if spec.compiled else "python"
        typer.echo(f"{name:<{width}}  [{kind}] {spec.summary}")
        pw = max((len(f"{p.name}={p.default}") for p in spec.all_params), default=0)
        for p in spec.all_params:
            allowed = f" ({p.range_text})" if p.range_text else ""
            typer.echo(f"{'':<{width}}    {f'{p.name}={p.default}':<{pw}}  {p.help}{allowed}")
