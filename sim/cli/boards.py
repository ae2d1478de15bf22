"""What ``castle solve`` and ``castle play`` work on: deals, or board files, many in one call.

Arguments are deal ids (``17``, ``pysol:1080``), or, with ``--board``, board
files, folders of them (every ``*.txt`` inside, sorted) and ``-`` for
boards on standard input separated by blank lines. Every board is read and
checked before any work starts, so bad input stops the call with one line
and nothing done. Several items are worked on by ``--jobs`` processes and
reported as one JSON line each, as each finishes.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

import typer

from ..core import files
from .errors import Interrupted, UserError, terminate_as_interrupt


@dataclass(frozen=True)
class Item:
    """One deal or board: its name in the output, and how to make its state."""

    key: str  #: "deal" or "board"
    name: str
    text: str | None = None  #: board text (None for a deal)

    def state(self, game, seed: int):
        """The item's position; a board no deal of the game can reach is bad input (:func:`~sim.game.why_impossible`)."""
        return game.deal(self.name, seed) if self.text is None else game.from_board(self.text, check=True)


def game_fields(rules) -> dict:
    """A JSON row's game: its slug, and its dialect when it is not the rule sheet's (as the runner's rows)."""
    return {"game": rules.slug, **({"dialect": rules.dialect} if rules.dialect != "sheet" else {})}


def items(game, names: list[str], boards: bool, seed: int) -> list[Item]:
    """The items named on the command line, each checked (its state made once) before anything is run."""
    if not names:
        raise UserError("give a DEAL, or --board and a board file (several of either may be given)")
    check_seed(seed)
    found: list[Item] = []
    for name in names:
        if not boards:
            found.append(Item("deal", name))
        elif name == "-":
            found += [Item("board", f"-:{k}", text) for k, text in enumerate(_split(_read_stdin()), start=1)]
        else:
            path = Path(name)
            files = sorted(path.glob("*.txt")) if path.is_dir() else [path]
            if path.is_dir() and not files:
                raise UserError(f"{path}: a folder with no board files (*.txt) in it")
            found += [Item("board", str(f), _read(f)) for f in files]
    for item in found:
        try:
            item.state(game, seed)
        except ValueError as e:
            raise UserError(f"{item.name}: {e}") from None
    return found


def check_seed(seed: int) -> None:
    """A seed of the deal numbering: 0 to 2**63-1 (the runner's rows mark PySol's numbering with -1; here it is pysol:N)."""
    from ..core.deals import MAX_DEAL

    if not 0 <= seed <= MAX_DEAL:
        raise UserError(f"seed {seed} is out of range (0 to 2**63-1; PySol's deals are pysol:N)")


def checked_player(text: str, max_moves: int | None = None):
    """The player ``text`` (with ``--max-moves`` as its move cap), held to the bounds ``castle run`` holds it to:
    a move cap past a million, or a number past 64 bits, reached numba as a traceback."""
    from ..players.registry import choose_from_spec, parse_player
    from ..study.experiment import ExperimentError, check_numbers

    choice = parse_player(text)
    if max_moves is not None:
        choice = choose_from_spec(choice.spec, {**choice.params, "max_moves": max_moves})
    try:
        check_numbers(choice)
    except ExperimentError as e:
        raise UserError(str(e)) from None
    return choice


def _split(text: str) -> list[str]:
    """Boards separated by blank lines."""
    boards, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.append(line)
        elif current:
            boards.append("\n".join(current) + "\n")
            current = []
    if current:
        boards.append("\n".join(current) + "\n")
    if not boards:
        raise UserError("no board on standard input")
    return boards


def _read_stdin() -> str:
    """Standard input's text, read as UTF-8 whatever the locale says (a board file is UTF-8 text), at most
    :data:`~sim.core.files.BOARDS` bytes (they are read whole, and checked, before any is played)."""
    data = files.read_stream(sys.stdin, files.BOARDS, "a list of boards")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError("standard input: not board text (it is not UTF-8 text)") from None


def _read(path: Path) -> str:
    """A board file's text, at most :data:`~sim.core.files.BOARD` bytes; a file that is not text is bad input, not a crash."""
    try:
        return files.read_text(path, files.BOARD, "a board file")
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a board text file (it is not UTF-8 text)") from None


def each(work: Callable[[Item], dict], todo: list[Item], jobs: int) -> Iterator[dict]:
    """``work(item)`` for every item, on ``jobs`` processes; results as they finish.

    A SIGTERM stops the workers with the command, as Ctrl-C does (left
    alone they would play on, holding standard output open, so a pipeline
    reading it would wait for them). A reader that stops early (``| head``)
    cancels what is left without joblib's warning about it: that is what
    the reader asked for.
    """
    if jobs <= 1 or len(todo) == 1:
        yield from map(work, todo)
        return
    import warnings

    from joblib import Parallel, delayed

    warnings.filterwarnings("ignore", message=r".*tasks which were still being processed by the workers have been cancelled",
                            category=UserWarning)
    try:
        with terminate_as_interrupt():
            yield from Parallel(n_jobs=min(jobs, len(todo)), return_as="generator_unordered", batch_size=1)(
                delayed(work)(item) for item in todo)
    except KeyboardInterrupt:  # joblib has stopped the workers on its way out
        raise Interrupted("every line printed is whole; the items not printed were not finished") from None


def echo_lines(results: Iterable[dict]) -> None:
    for row in results:
        typer.echo(json.dumps(row))
