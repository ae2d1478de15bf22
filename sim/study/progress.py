"""The progress of a run: a bar on a terminal, else a line a minute; and how loky's workers report to it.

Its own module because progress is the run's only output while it plays,
and reaching it from worker processes takes a channel of its own (a socket
read by a thread of the run), which nothing else of the runner needs.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Iterator


def want_progress(progress: bool | None) -> bool:
    return sys.stderr.isatty() if progress is None else progress


class Progress:
    """A bar on a terminal; elsewhere (a run in the background, a log) a line a minute with the time left.

    The line comes every minute even when no deal ended in it: a deal may take
    an hour (the unknowns solved again), and a log silent that long cannot be
    told from a run that is gone. A thread of its own beats the minute; the
    search returns to Python between slices of positions, so it gets its turn.
    """

    EVERY = 60.0

    def __init__(self, total: int, bar: bool):
        from tqdm import tqdm

        self.total, self.done, self.t0, self.last = total, 0, time.perf_counter(), time.perf_counter()
        self.bar = tqdm(total=total, unit="game", unit_scale=True, dynamic_ncols=True, smoothing=0.1) if bar else None
        self._lock, self._stop = threading.Lock(), threading.Event()
        if self.bar is None and total > 0:
            threading.Thread(target=self._beat, name="castle-progress-minute", daemon=True).start()

    def _beat(self) -> None:
        while not self._stop.wait(self.EVERY / 4):
            self.update(0)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.done += n
            self.bar.update(n)
            return
        with self._lock:
            self.done += n
            now_ = time.perf_counter()
            if now_ - self.last >= self.EVERY or (n and self.done == self.total):
                self.last = now_
                spent = now_ - self.t0
                left = (f"about {_duration(spent / self.done * (self.total - self.done))} left" if self.done
                        else "no game finished yet to time the rest by")
                print(f"castle run: {self.done:,} of {self.total:,} games ({100 * self.done / self.total:.1f}%) in "
                      f"{_duration(spent)}; {left}", file=sys.stderr, flush=True)

    def close(self) -> None:
        self._stop.set()
        if self.bar is not None:
            self.bar.close()


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"



_REPORT = struct.Struct("<q")  #: one report: a number of deals played (-1 ends the reading)


@contextlib.contextmanager
def reports_from_workers(progress: Progress) -> Iterator[str]:
    """The address of a socket the loky workers send their reports to (:class:`SendReport`); a thread of
    this process reads them into ``progress`` until the block is left.

    A datagram socket on this machine, in a private temporary folder,
    rather than a ``multiprocessing.Manager`` queue: a Manager is one more
    process, to stop on every path (a kill -9 of the run would leave it
    behind), and its proxy, passed with each task, opens two authenticated
    connections a task to count its references (about 2 ms a task, several
    percent of a greedy chunk). Here no process is added and a report is one
    small message, sent before its task ends: a finished task's reports are
    all read before the block's own end message.
    """
    with tempfile.TemporaryDirectory(prefix="castle-run-") as folder, socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        address = os.path.join(folder, "progress")
        sock.bind(address)

        def read() -> None:
            while (n := _REPORT.unpack(sock.recv(_REPORT.size))[0]) >= 0:
                # a bar that cannot be drawn (stderr closed) must not stop the reading: the workers would wait to send
                with contextlib.suppress(Exception):
                    progress.update(n)

        reader = threading.Thread(target=read, name="castle-progress", daemon=True)
        reader.start()
        try:
            yield address
        finally:
            SendReport(address)(-1)
            reader.join()


@dataclass(frozen=True)
class SendReport:
    """``report(n)`` in a loky worker: ``n`` deals played, sent to :func:`reports_from_workers`' socket."""

    address: str

    def __call__(self, n: int) -> None:
        # a report that cannot be sent (the run is gone, or not reading for a second) is lost, never the chunk
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.settimeout(1.0)
            sock.sendto(_REPORT.pack(n), self.address)
