"""One progress line over a whole run to a half-width: its phase, the deals done of those planned, the half-width
reached against the one asked (once the main run has one), and the time left for the whole plan.

Why not the runner's bar: a run to a half-width is many runs (the pilot, the main run's twenty blocks, each unknown
solved again), and a bar a run showed a bare count of games with a time left that swung with each slow deal and knew
nothing of the phases after it. Here the time left is the plan's (:mod:`.forecast`): for the phase under way its
pace per deal, moving to the pace measured as the phase's deals are done, then the later phases as planned. On a
terminal the line is redrawn in place; elsewhere (a log) it is a plain line a minute and one at the end of each
phase.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time

from .forecast import Forecast, _duration


class Meter:
    """The run's progress; ``update(n)`` as the runner's workers play deals (from any thread)."""

    EVERY = 60.0  #: seconds between a log's lines
    DRAW = 0.2  #: seconds between a terminal's redraws

    def __init__(self, forecast: Forecast, tty: bool, say=print, stream=None):
        self.forecast, self.tty, self._say, self.stream = forecast, tty, say, stream or sys.stderr
        self.index, self.total, self.done, self.start_done, self.half = 0, 0.0, 0, 0, None
        self.t0 = self.phase_t0 = self.last = self.drawn = time.perf_counter()
        self.shown, self.logged, self.started = False, None, False
        self._lock, self._stop = threading.RLock(), threading.Event()
        if not tty:
            threading.Thread(target=self._beat, name="castle-plan-minute", daemon=True).start()

    def _beat(self) -> None:
        while not self._stop.wait(self.EVERY / 4):
            self.update(0)

    def replan(self, forecast: Forecast) -> None:
        """The plan made again (after the pilot): the time left is reckoned from it."""
        with self._lock:
            self.forecast = forecast

    def begin(self, index: int, total: float | None = None, done: int = 0) -> None:
        """Phase ``index`` of the plan starts, ``total`` deals (default: the plan's), ``done`` of them on disk."""
        with self._lock:
            step = self.forecast.steps[index]
            self.index, self.done, self.start_done, self.half = index, done, done, None
            self.total = float(step.deals or 0) if total is None else float(total)
            self.phase_t0, self.started = time.perf_counter(), True
            self._show(force=True)

    def end(self) -> None:
        """The phase is over: a log gets its line (a terminal's line moves on with the next phase)."""
        with self._lock:
            if not self.tty and self.logged != (self.index, self.done, self.half):
                self._show(force=True)

    def interval(self, half_points: float) -> None:
        """The half-width reached so far, in points (the main run's, after each block)."""
        with self._lock:
            self.half = half_points
            self._show(force=self.tty)

    def update(self, n: int) -> None:
        with self._lock:
            self.done += n
            self._show()

    def say(self, line: str) -> None:
        """A line of its own (the plan, a verdict), printed above a terminal's progress line."""
        with self._lock:
            self._clear()
            self._say(line)
            if self.tty and self.started:
                self._show(force=True)

    def close(self) -> None:
        """No more lines; a terminal's progress line is cleared (the run's closing lines say where it ended)."""
        self._stop.set()
        with self._lock:
            self._clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # what the line says

    def text(self) -> str:
        step = self.forecast.steps[self.index]
        total = max(self.total, float(self.done))
        pct = f" ({100 * self.done / total:.0f}%)" if total else ""
        parts = [f"castle run: {step.name}: {self.done:,} of {total:,.0f} deals{pct}"]
        if self.half is not None:
            parts.append(f"±{self.half:.2f} points so far (target ±{self.forecast.halfwidth:g})")
        now = time.perf_counter()
        parts.append(f"{_duration(now - self.t0)} in")
        left = self.left(now)
        if left is not None:
            parts.append(f"about {_duration(left)} left")
        elif self.forecast.left_wall(self.index + 1) is None:
            parts.append("time left unknown: no figures yet for the phases after this one")
        else:
            parts.append("time left unknown until deals are timed")
        return ", ".join(parts)

    def left(self, now: float) -> float | None:
        """Seconds the whole plan still takes: this phase at its pace, then the later phases as planned."""
        step, workers = self.forecast.steps[self.index], self.forecast.workers
        later = self.forecast.left_wall(self.index + 1)
        todo = max(0.0, self.total - self.done)
        played, spent = self.done - self.start_done, now - self.phase_t0
        planned = step.cpu / step.deals / workers if step.cpu is not None and step.deals else None
        measured = spent / played if played else None
        if planned is None and measured is None:
            return None
        if planned is None or measured is None:
            pace = planned if measured is None else measured
        else:  # the measured pace weighs as much as the share of the phase it was measured on
            w = min(1.0, played / max(self.total - self.start_done, 1.0))
            pace = (1 - w) * planned + w * measured
        return None if later is None else todo * pace + later

    def _show(self, force: bool = False) -> None:
        if not self.started:
            return
        now = time.perf_counter()
        if self.tty:
            if force or now - self.drawn >= self.DRAW:
                self.drawn = now
                width = shutil.get_terminal_size((100, 20)).columns - 1
                self.stream.write("\r" + self.text()[:width] + "\x1b[K")
                self.stream.flush()
                self.shown = True
        elif force or now - self.last >= self.EVERY:
            self.last, self.logged = now, (self.index, self.done, self.half)
            self._say(self.text())

    def _clear(self) -> None:
        if self.tty and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
