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

from .errors import UserError


@dataclass(frozen=True)
class Item:
    """One deal or board: its name in the output, and how to make its state."""

    key: str  #: "deal" or "board"
    name: str
    text: str | None = None  #: board text (None for a deal)

    def state(self, game, seed: int):
        return game.deal(self.name, seed) if self.text is None else game.from_board(self.text)


def game_fields(rules) -> dict:
    """A JSON row's game: its slug, and its dialect when it is not the rule sheet's (as the runner's rows)."""
    return {"game": rules.slug, **({"dialect": rules.dialect} if rules.dialect != "sheet" else {})}


def items(game, names: list[str], boards: bool, seed: int) -> list[Item]:
    """The items named on the command line, each checked (its state made once) before anything is run."""
    if not names:
        raise UserError("give a DEAL, or --board and a board file (several of either may be given)")
    found: list[Item] = []
    for name in names:
        if not boards:
            found.append(Item("deal", name))
        elif name == "-":
            found += [Item("board", f"-:{k}", text) for k, text in enumerate(_split(sys.stdin.read()), start=1)]
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


def _read(path: Path) -> str:
    """A board file's text; a file that is not text is bad input, not a crash."""
    try:
        return path.read_text()
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a board text file (it is not UTF-8 text)") from None


def each(work: Callable[[Item], dict], todo: list[Item], jobs: int) -> Iterator[dict]:
    """``work(item)`` for every item, on ``jobs`` processes; results as they finish."""
    if jobs <= 1 or len(todo) == 1:
        yield from map(work, todo)
        return
    from joblib import Parallel, delayed

    yield from Parallel(n_jobs=min(jobs, len(todo)), return_as="generator_unordered", batch_size=1)(
        delayed(work)(item) for item in todo)


def echo_lines(results: Iterable[dict]) -> None:
    for row in results:
        typer.echo(json.dumps(row))
