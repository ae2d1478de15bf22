"""Where the chunks are played: in this process, on loky's worker processes, or on a Dask cluster.

Its own module because the backends are what a run's speed depends on and
its rows must not: whatever plays the chunks, each writes its own part
(:func:`~sim.study.rows.run_chunk`). A SIGTERM stops the workers as Ctrl-C
does (:mod:`.interrupt`).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from .chunks import Chunk
from .errors import ArgumentError
from .experiment import ExperimentError
from .interrupt import terminate_as_interrupt
from .progress import Progress, SendReport, reports_from_workers
from .rows import run_chunk


def execute(chunks: Iterator[Chunk], total: int, out: str, jobs: int, backend: str, client: Any, bar: bool,
            tally: dict, meter: Any = None) -> None:
    """Play the chunks on ``jobs`` workers, adding each finished chunk's games and CPU seconds to ``tally``
    (``played``, ``cpu``) as it lands, so a stopped run knows what it did, and the most memory a worker held
    (``mb``). ``meter``: a progress of the caller's (anything with ``update(n)``, kept open) in place of a bar.

    The progress bar hears of the deals as they are played, several times a
    second (:func:`~sim.study.rows.play_rows`'s ``report``): directly with one job, through
    :func:`reports_from_workers` from loky's workers. Dask's come a chunk at
    a time, as each lands: a finer report would need a channel every worker
    can reach (on a cluster, not this machine's socket), and Dask plays a
    lost worker's chunk again elsewhere, so its deals reported so far would
    count twice.
    """
    from joblib import Parallel, delayed, parallel_config

    progress = meter if meter is not None else Progress(total, bar)
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(terminate_as_interrupt())  # joblib then stops its workers
            if backend == "dask":
                if client is None:
                    stack.enter_context(dask_client(jobs, None))
                stack.enter_context(parallel_config(backend="dask"))
                parallel = Parallel(n_jobs=-1, return_as="generator_unordered", batch_size=1)
                report = None
            elif jobs == 1:
                parallel = Parallel(n_jobs=1, return_as="generator_unordered")
                report = progress.update
            else:
                parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered", batch_size=1)
                report = SendReport(stack.enter_context(reports_from_workers(progress)))
            for n, seconds, mb in parallel(delayed(run_chunk)(c, out, report) for c in chunks):
                tally["played"] += n
                tally["cpu"] += seconds
                tally["mb"] = max(tally.get("mb", 0.0), mb)
                if report is None:
                    progress.update(n)
    finally:
        if meter is None:
            progress.close()


def parallelism(jobs: int, backend: str = "loky", scheduler: str | None = None) -> int:
    """How many chunks a run plays at once: ``jobs``, or every thread of the Dask cluster at ``scheduler``."""
    if backend != "dask" or not scheduler:
        return max(1, jobs)
    with dask_client(jobs, scheduler) as client:
        return max(1, sum(client.nthreads().values()))


@contextlib.contextmanager
def dask_client(jobs: int, scheduler: str | None) -> Iterator[Any]:
    """A client of the cluster at ``scheduler``, or of a local cluster of ``jobs`` worker processes."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ArgumentError("{dask} needs the 'distributed' package (pip install dask distributed)") from None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError) as e:
            raise ExperimentError(f"cannot reach the Dask scheduler at {scheduler}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        with client:
            yield client
        return
    with LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster, Client(cluster) as client:
        yield client
