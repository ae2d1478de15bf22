"""The one error type a command raises for bad input it finds itself, and how a command is stopped."""

from __future__ import annotations

from ..study.interrupt import terminate_as_interrupt  # noqa: F401 (the commands take it from here)


#: the longest error line castle prints: beyond it (a board, a move list or a TOML key pasted whole) the line is cut
MOST = 1000


def cut(line: str, most: int = MOST) -> str:
    """``line`` at most ``most`` characters: its start kept, and said to be cut (by how much), never a 10 MB token whole.

    >>> cut("castle: 'ZZZZZZZZZZZZ' is not a card", 20)
    "castle: 'ZZZZZZZZZZZ… (cut: 16 characters more)"
    """
    if len(line) <= most:
        return line
    return f"{line[:most]}… (cut: {len(line) - most:,} characters more)"


class UserError(ValueError):
    """Bad input: the message is shown as one line and the command exits with status 2."""


class Interrupted(BaseException):
    """Ctrl-C or SIGTERM, with what the command left on disk: one line (``castle: interrupted (...)``), exit 130.

    Raised from the ``KeyboardInterrupt`` once the command has cleared up. Not a ``KeyboardInterrupt`` itself:
    typer turns those into a bare exit code, and the line would be lost; nor an ``Exception``, which a handler
    on the way out might take for an error of its own.
    """

    def __init__(self, left: str):
        super().__init__(left)
        self.left = left


