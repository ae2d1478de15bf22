"""The one error type a command raises for bad input it finds itself, and how a command is stopped."""

from __future__ import annotations

import contextlib
from typing import Iterator


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


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """A SIGTERM (``kill``, a scheduler's stop, a pipeline torn down) stops the block as Ctrl-C does.

    Its ``finally`` clauses then run: worker pools are shut down with their
    workers, temporary folders removed. Without it SIGTERM ends the process
    at once and leaves both behind. Only the main thread can take signals:
    elsewhere the block runs as it is.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
