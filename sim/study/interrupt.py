"""SIGTERM taken as Ctrl-C, so a killed command clears up (worker pools, temporary folders) as an interrupted one does."""

from __future__ import annotations

import contextlib
from typing import Iterator


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
