"""Faults: a run killed at any moment, a Dask worker lost, a full disk. After each, a rerun leaves every
deal exactly once, rows identical to an uninterrupted run. (``benchmarks/fault_kills.py`` runs the kills at
many more moments; its results are in the issue notes.)"""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from sim.study.dataset import played_rows

HERE = Path(__file__).parent
CASTLE = [sys.executable, "-c", "from sim.cli import main; main()"]
RUN = ["run", "--game", "sa", "--game", "bc", "--player", "greedy", "--player", "random:max_moves=200", "--deals", "60",
       "--chunk-size", "10", "--jobs", "1", "--no-progress"]




@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("whole") / "run"
    subprocess.run(CASTLE + RUN + ["--out", str(out)], check=True, capture_output=True)
    return played_rows(out)


def test_killed_at_random_moments_then_resumed_gives_every_deal_once(tmp_path, whole):
    """Kill -9 at several random moments, writes slowed so kills land in them (the part, the rename, the
    manifest); after each, the rerun is resumed from what is on disk."""
    out = tmp_path / "run"
    rng = random.Random(4)
    slowed = [sys.executable, str(HERE / "faults.py"), "0.05"] + RUN + ["--out", str(out)]
    kills = 0
    for _ in range(6):
        proc = subprocess.Popen(slowed, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(rng.uniform(0.8, 3.0))
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 3
    done = subprocess.run(CASTLE + RUN + ["--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    pd.testing.assert_frame_equal(played_rows(out), whole)
    assert not list(out.rglob("*.tmp"))


def test_a_full_disk_is_one_line_leaves_no_part_and_the_rerun_completes(tmp_path, whole, monkeypatch):
    """The part write fails half way (no space left): one clear error, no partial part, and a rerun completes."""
    out = tmp_path / "run"
    script = f"""
import errno, pyarrow.parquet as pq
real = pq.write_table
calls = []
def full(table, where, **kw):
    calls.append(where)
    if len(calls) == 3:
        open(where, "wb").write(b"PAR1 half")
        raise OSError(errno.ENOSPC, "No space left on device")
    return real(table, where, **kw)
pq.write_table = full
from sim.cli import main
main({RUN + ["--out", str(out)]!r})
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0] and "Traceback" not in p.stderr
    assert not list(out.rglob("*.tmp")) and len(list(out.rglob("part-*.parquet"))) == 2
    again = subprocess.run(CASTLE + RUN + ["--out", str(out)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    pd.testing.assert_frame_equal(played_rows(out), whole)
    assert errno.ENOSPC


def test_a_dask_worker_killed_mid_run_loses_no_deal(tmp_path, whole):
    distributed = pytest.importorskip("distributed")
    from sim.study.experiment import build
    from sim.study.runner import run

    exp = build({}, games=["sa", "bc"], players=["greedy", "random:max_moves=200"], deals=60, chunk_size=2)
    out = tmp_path / "run"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        result = {}
        thread = threading.Thread(target=lambda: result.setdefault("summary", run(exp, out, jobs=2, backend="dask",
                                                                                  scheduler=cluster.scheduler_address)))
        thread.start()
        deadline = time.time() + 60
        while time.time() < deadline and len(list(out.rglob("part-*.parquet"))) < 5:
            time.sleep(0.05)
        victim = next(iter(cluster.workers.values()))
        os.kill(victim.process.pid, signal.SIGKILL)  # the worker process the nanny watches, mid-run
        thread.join(timeout=180)
    assert result["summary"].finished
    pd.testing.assert_frame_equal(played_rows(out), whole)


def test_a_terminated_run_stops_its_workers_and_resumes(tmp_path):
    """SIGTERM (kill, a scheduler stopping a job) ends a --jobs 2 run as Ctrl-C does: at once, its workers
    with it (no chunk is played on behind its back), exit 130 and one line; the rerun completes every deal once."""
    out = tmp_path / "run"
    deals = 200  # about 5 CPU-s in all: the run is still going a second after its first parts land
    run = CASTLE + ["run", "--game", "sa", "--player", "solver:budget_nodes=300000", "--deals", str(deals), "--chunk-size", "1",
                    "--jobs", "2", "--no-progress", "--out", str(out)]
    proc = subprocess.Popen(run, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 90
    while len(list(out.rglob("part-*.parquet"))) < 2 and time.time() < deadline:  # the workers are at work
        time.sleep(0.05)
    time.sleep(1)  # a part is on disk a moment before the run hears of it: give it time to count some
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 130
    assert proc.stderr.read().strip().splitlines()[-1].startswith("castle: interrupted")
    time.sleep(1)
    workers = subprocess.run(["pgrep", "-f", "LokyProcess"], capture_output=True, text=True).stdout.split()
    assert not [pid for pid in workers if _parent_gone(pid, proc.pid)], "workers left running"
    stopped = json.loads((out / "_manifest.json").read_text())
    assert stopped["finished"] is None
    first = stopped["runs"][-1]  # the stopped run says when it stopped, what it put on disk and the CPU that took
    assert first["stopped"] and first["finished"] is None
    on_disk = len(pd.read_parquet(out))  # a part a worker wrote as the run stopped may not have been counted
    assert 0 < first["games_played"] <= on_disk and first["cpu_seconds"] > 0
    done = subprocess.run(run, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    df = pd.read_parquet(out)
    assert sorted(df.deal) == list(range(deals))
    second = json.loads((out / "_manifest.json").read_text())["runs"][-1]
    assert second["finished"] and second["games_played"] == deals - on_disk


def _parent_gone(pid: str, killed: int) -> bool:
    """Was ``pid`` a child of the run that was killed (its parent is now init, or the run itself)?"""
    try:
        ppid = int(next(line.split()[1] for line in open(f"/proc/{pid}/status") if line.startswith("PPid:")))
    except (OSError, StopIteration):
        return False
    return ppid in (1, killed)
