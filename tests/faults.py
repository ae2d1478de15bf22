"""Run ``castle`` with its writes slowed down, so a kill lands inside them: the fault tests' harness.

``python faults.py SLOW_SECONDS castle-args...`` wraps the dataset's part
write (``pyarrow.parquet.write_table``), the rename that publishes a part
and the manifest write, each with a pause before and after, then runs the
command line in this one process (use ``--jobs 1``: workers would not carry
the wrapping). For ``castle report`` it pauses before each section of the
page instead, so an interrupt lands while the report is being built.
Nothing of the package is changed; only what it calls.
"""

from __future__ import annotations

import os
import sys
import time


def _slowed(fn, slow: float):
    def wrapper(*args, **kwargs):
        time.sleep(slow)
        out = fn(*args, **kwargs)
        time.sleep(slow)
        return out

    return wrapper


def main() -> None:
    import pyarrow.parquet as pq

    from sim.cli import main as castle
    from sim.study import dataset, resume, runner

    slow = float(sys.argv[1])
    if sys.argv[2:3] == ["report"]:
        import analysis.report as report

        sections = report.sections_in_order
        report.sections_in_order = lambda: [_slowed(make, slow / 2) for make in sections()]
        castle(sys.argv[2:])
        return
    pq.write_table = _slowed(pq.write_table, slow)
    slowed_os = type(sys)("os_slowed")
    slowed_os.__dict__.update(os.__dict__)
    slowed_os.replace = _slowed(os.replace, slow)
    dataset.os = slowed_os
    dataset.write_json_atomic = resume.write_json_atomic = runner.write_json_atomic = _slowed(dataset.write_json_atomic, slow)
    castle(sys.argv[2:])


if __name__ == "__main__":
    main()
