"""Faults: a run killed at any moment, a Dask worker lost, a full disk. After each, a rerun leaves every
deal exactly once, rows identical to an uninterrupted run. (``benchmarks/fault_kills.py`` runs the kills at
many more moments; its results are in the issue notes.)"""

from __future__ import annotations

import contextlib
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
    proc = subprocess.Popen(run, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 90
    while len(list(out.rglob("part-*.parquet"))) < 2 and time.time() < deadline:  # the workers are at work
        time.sleep(0.05)
    time.sleep(1)  # a part is on disk a moment before the run hears of it: give it time to count some
    tree = _tree(proc.pid)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 130
    assert proc.stderr.read().strip().splitlines()[-1].startswith("castle: interrupted")
    assert not _left_behind(proc.pid, tree), "workers left running"
    stopped = json.loads((out / "_manifest.json").read_text())
    assert stopped["finished"] is None
    first = stopped["runs"][-1]  # the stopped run says when it stopped, what it put on disk and the CPU that took
    assert first["stopped"] and first["finished"] is None
    on_disk = len(pd.read_parquet(out))  # a part a worker wrote as the run stopped may not have been counted
    assert 0 < first["games_played"] <= on_disk and first["cpu_seconds"] > 0
    done = subprocess.run(run, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    df = pd.read_parquet(out)
    assert sorted(df.deal) == list(range(1, deals + 1))  # --deals N plays deals 1 to N
    second = json.loads((out / "_manifest.json").read_text())["runs"][-1]
    assert second["finished"] and second["games_played"] == deals - on_disk


def _stat(pid: int) -> tuple[int, int, str, int] | None:
    """``(parent, session, state, start time)`` of a process, from /proc (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), int(fields[3]), fields[0], int(fields[19])


def _tree(root: int) -> dict[int, int]:
    """The processes ``root`` started, and theirs (pid -> start time): the run's own process tree, never the machine's
    (another program's loky workers are none of the run's business)."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (st := _stat(int(name))) is not None:
            parents[int(name)] = (st[0], st[3])
    tree, grew = {root: parents.get(root, (0, 0))[1]}, True
    while grew:
        grew = False
        for pid, (ppid, start) in parents.items():
            if ppid in tree and pid not in tree:
                tree[pid], grew = start, True
    return tree


def _left_behind(root: int, tree: dict[int, int], wait: float = 5.0) -> list[int]:
    """Processes of ``root``'s tree (taken before it was stopped) or of its session still alive ``wait`` seconds on.

    A process counts if it is the same one (its start time unchanged) and not a zombie waiting to be reaped;
    ``root`` is started in a session of its own, so anything it started later is in its session too.
    """
    deadline = time.time() + wait
    while True:
        alive = []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == root:
                continue
            st = _stat(int(name))
            if st is not None and st[2] != "Z" and (st[1] == root or tree.get(int(name)) == st[3]):
                alive.append(int(name))
        if not alive or time.time() > deadline:
            return alive
        time.sleep(0.2)


def _stop(pids: list[int]) -> None:
    """Kill what a failed test left (only the processes it found of its own tree)."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def test_a_terminated_solve_of_several_boards_stops_its_workers_at_once(tmp_path):
    """SIGTERM to ``castle solve --board DIR --jobs 2`` stops its loky workers (and their resource trackers) with it:
    none is left solving, and none keeps standard output open, so a pipeline reading it ends at once."""
    from sim.core.board import format_board
    from sim.core.deals import deal_position
    from sim.core.rules import find_game

    boards = tmp_path / "boards"
    boards.mkdir()
    for deal in range(1, 9):
        (boards / f"sa-{deal}.txt").write_text(format_board(deal_position(find_game("sa"), deal)))
    proc = subprocess.Popen(CASTLE + ["solve", "sa", "--board", str(boards), "--jobs", "2", "--budget-seconds", "30"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and sum("LokyProcess" in _cmdline(pid) for pid in _tree(proc.pid)) < 2:
            time.sleep(0.1)
        time.sleep(1)  # the workers are solving
        tree = _tree(proc.pid)
        assert sum("LokyProcess" in _cmdline(pid) for pid in tree) == 2, "the workers never started"
        proc.send_signal(signal.SIGTERM)
        t0 = time.time()
        out, err = proc.communicate(timeout=30)  # standard output ends: no worker holds it
        assert proc.returncode == 130 and time.time() - t0 < 15
        lines = err.decode().strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("castle: interrupted (every line printed is whole"), err
        left = _left_behind(proc.pid, tree)
        assert not left, f"left running: {[_cmdline(pid)[:80] for pid in left]}"
    finally:
        if proc.poll() is None:
            proc.kill()
        _stop(_left_behind(proc.pid, _tree(proc.pid), wait=0))


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_a_reader_that_stops_early_gets_no_warning(tmp_path):
    """``castle play ... --jobs 2 | head -1``: the lines not read are cancelled without joblib's two-line warning."""
    proc = subprocess.Popen(CASTLE + ["play", "bc", *map(str, range(1, 13)), "--jobs", "2", "--player", "greedy", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, start_new_session=True)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert json.loads(first)["game"] == "beleaguered-castle"
    assert "Warning" not in err and "warn" not in err, err
    _stop(_left_behind(proc.pid, {}, wait=5))


@pytest.fixture(scope="module")
def report_place(tmp_path_factory):
    """A small dataset (its own solver rows, so it is its own reference) and a report of it."""
    root = tmp_path_factory.mktemp("report")
    subprocess.run(CASTLE + ["run", "--game", "bc", "--player", "greedy", "--player", "solver:budget_nodes=2000", "--deals", "6",
                             "--out", "data", "--no-progress"], cwd=root, check=True, capture_output=True)
    (root / "reports").mkdir()
    subprocess.run(CASTLE + ["report", "data", "--out", "reports/R", "--reference", "data", "--no-replays"], cwd=root,
                   check=True, capture_output=True)
    return root


def _report_files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_report_leaves_the_previous_one_whole_and_no_temporary(report_place, sig):
    """Ctrl-C or SIGTERM while ``castle report DATA --out R`` rebuilds R: the old R is untouched (the new one is built
    aside and swapped in whole), the half-built one removed, one line, exit 130."""
    reports = report_place / "reports"
    before = _report_files(reports / "R")
    assert "index.html" in before
    slowed = [sys.executable, str(HERE / "faults.py"), "1.0", "report", "data", "--out", "reports/R", "--reference", "data",
              "--no-replays"]
    proc = subprocess.Popen(slowed, cwd=report_place, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and not list(reports.glob(".R.building-*/*")):
        time.sleep(0.05)
    time.sleep(1.5)  # inside the sections (each paused half a second either side)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0] == "castle: interrupted (reports/R is as it was: the report is built aside and swapped in whole)"
    assert _report_files(reports / "R") == before
    assert sorted(p.name for p in reports.iterdir()) == ["R"]


def test_a_report_that_fails_leaves_nothing_and_a_killed_ones_temporaries_are_cleared(tmp_path, monkeypatch):
    """A build that fails part way leaves no folder behind (not even the parents it made); the temporary folders of
    a build killed outright (SIGKILL: no clearing up) are removed by the next build of the same report."""
    import matplotlib

    matplotlib.use("Agg")
    import analysis.report as report

    from synthetic import write_dataset

    data = write_dataset(tmp_path / "data", deals=40, players=("greedy",))

    def broken(r):
        raise RuntimeError("a section's bug")

    monkeypatch.setattr(report, "SECTIONS", [broken])
    with pytest.raises(RuntimeError):
        report.build_report(data, tmp_path / "reports" / "deep" / "R", reference=None, replays=None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
    monkeypatch.undo()
    reports = tmp_path / "reports"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a process id no process holds now
    for kind in ("building", "old"):
        (reports / f".R.{kind}-{dead.pid}" / "figures").mkdir(parents=True)
    index = report.build_report(data, reports / "R", reference=None, replays=None)
    assert index.exists() and sorted(p.name for p in reports.iterdir()) == ["R"]


def test_the_portfolio_beam_keeps_to_the_deadline():
    """The beam the portfolio hands a deal after a million positions runs inside one compiled call: its budget is cut
    to the time left (a board whose beam took 4 s of a 2 s budget), and a beam that fits is run as asked (a study
    deal its full beam wins is still won, at the same positions)."""
    from sim.solver import answer
    from sim.core.cards import card_str
    from sim.core.deals import deal_position
    from sim.game import Game
    from sim.solver.rounds import clock

    beams = []
    real = answer._beam_line

    def spy(game, s, beam):
        beams.append(int(beam.params["budget"]))
        return real(game, s, beam)

    answer._beam_line = spy
    try:
        bd = Game("bakers-dozen")
        piles = deal_position(bd.rules, 2).piles  # its piles reversed: Kings on top (castle solve refuses it; the API takes it)
        state = bd.from_board("\n".join(" ".join(card_str(c) for c in reversed(p)) for p in piles) + "\n")
        t0 = clock()
        result = answer.solve(bd, state, budget_seconds=2.5)
        spent = clock() - t0
        assert str(result.result) == "unknown" and beams and beams[0] < 4_000_000, beams
        assert spent < 2.5 + 0.6, spent
        beams.clear()
        sa = Game("streets-and-alleys")
        won = answer.solve(sa, sa.deal(3878), budget_nodes=60_000_000, budget_seconds=600.0)
        assert str(won.result) == "won" and won.nodes == 1_084_101 and beams == [4_000_000]  # as data/published has it
    finally:
        answer._beam_line = real


# issue 50, part A: castle replaces only what it can prove it wrote, and a full disk never destroys an output file


def _tree_of(folder: Path) -> dict[str, object]:
    """Everything under ``folder``, links not followed: each file's bytes, each link's target, each folder."""
    out = {}
    for p in sorted(folder.rglob("*")):
        name = str(p.relative_to(folder))
        out[name] = ("link", os.readlink(p)) if p.is_symlink() else p.read_bytes() if p.is_file() else "<folder>"
    return out


@pytest.fixture(scope="module")
def own_report(tmp_path_factory):
    """A synthetic dataset and a report castle wrote of it (reports/R, with its marker)."""
    import matplotlib

    matplotlib.use("Agg")
    from analysis.report import build_report
    from synthetic import write_dataset

    root = tmp_path_factory.mktemp("own")
    data = write_dataset(root / "data", deals=40, players=("greedy",))
    build_report(data, root / "reports" / "R", reference=None, replays=None)
    return root


def test_a_report_over_a_folder_castle_did_not_write_is_one_line_and_deletes_nothing(report_place):
    """The issue's case: ``site`` holds an index.html, a thesis and photos castle never wrote (before: exit 0 and the
    thesis and the photos deleted)."""
    site = report_place / "site"
    (site / "photos").mkdir(parents=True)
    (site / "index.html").write_text("<p>my page</p>")
    (site / "thesis.tex").write_text("\\documentclass{article}")
    (site / "photos" / "a.jpg").write_bytes(b"\xff\xd8 a photo")
    before = _tree_of(report_place)
    p = subprocess.run(CASTLE + ["report", "data", "--out", "site", "--reference", "data", "--no-replays"], cwd=report_place,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [
        "castle: site holds a page but no castle-report.json (a report castle wrote before it marked its reports, or not "
        "castle's): castle replaces only a folder it can prove it wrote; remove it or choose another --out"]
    assert _tree_of(report_place) == before


def _holding(kind: str, folder: Path, report: Path, outside: Path) -> None:
    """Fill ``folder`` with one kind of thing castle did not write (``report``: a report castle did write)."""
    import shutil

    from analysis.report.folder import MARKER

    if kind.startswith("report"):
        shutil.copytree(report, folder, symlinks=True)
    else:
        folder.mkdir()
    marker = json.loads((report / MARKER).read_text())
    if kind == "a file":
        (folder / "thesis.tex").write_text("my thesis")
    elif kind == "a hidden file":
        (folder / ".secret").write_text("mine")
    elif kind == "a subfolder":
        (folder / "photos").mkdir()
        (folder / "photos" / "a.jpg").write_bytes(b"\xff\xd8")
    elif kind == "an index.html castle did not write":
        (folder / "index.html").write_text("<p>my page</p>")
    elif kind == "a marker copied beside pages castle did not write":
        (folder / "index.html").write_text("<p>my page</p>")
        (folder / MARKER).write_text(json.dumps(marker))
    elif kind == "report: its marker removed (written before reports were marked)":
        (folder / MARKER).unlink()
    elif kind == "report: a marker that lies (lists thesis.tex)":
        (folder / "thesis.tex").write_text("my thesis")
        marker["files"]["thesis.tex"] = "0" * 64
        (folder / MARKER).write_text(json.dumps(marker))
    elif kind == "report: a marker that lies (lists a path out of the folder)":
        marker["files"]["../outside.txt"] = "0" * 64
        (folder / MARKER).write_text(json.dumps(marker))
    elif kind == "report: a file added":
        (folder / "tables" / "mine.csv").write_text("a,b\n")
    elif kind == "report: a file changed":
        with open(folder / "index.html", "a") as f:
            f.write("<!-- my notes -->")
    elif kind == "report: a figure replaced by a link":
        figure = next((folder / "figures").iterdir())
        figure.unlink()
        figure.symlink_to(outside)
    elif kind == "report: its marker a link to /dev/zero":
        (folder / MARKER).unlink()
        (folder / MARKER).symlink_to("/dev/zero")
    elif kind == "report: a marker that is not JSON":
        (folder / MARKER).write_text("{not json")
    elif kind == "report: a marker of another id kind":
        marker["id"] = "../../x"
        (folder / MARKER).write_text(json.dumps(marker))
    else:
        raise AssertionError(kind)


FOREIGN = ["a file", "a hidden file", "a subfolder", "an index.html castle did not write",
           "a marker copied beside pages castle did not write", "report: its marker removed (written before reports were marked)",
           "report: a marker that lies (lists thesis.tex)", "report: a marker that lies (lists a path out of the folder)",
           "report: a file added", "report: a file changed", "report: a figure replaced by a link",
           "report: its marker a link to /dev/zero", "report: a marker that is not JSON", "report: a marker of another id kind"]


@pytest.mark.parametrize("through_link", [False, True], ids=["folder", "link to it"])
@pytest.mark.parametrize("kind", FOREIGN)
def test_a_folder_castle_did_not_write_is_never_deleted_whatever_it_holds(own_report, tmp_path, kind, through_link):
    """``report --out F`` where F holds anything castle cannot prove it wrote: refused (one line saying how to go on),
    and nothing in F, nor beside it, nor where a link in it points, is changed."""
    from analysis.load import ResultsError
    from analysis.report import build_report

    outside = tmp_path / "outside.txt"
    outside.write_text("a file of the user's")
    folder = tmp_path / "reports" / "F"
    folder.parent.mkdir()
    _holding(kind, folder, own_report / "reports" / "R", outside)
    out = folder
    if through_link:
        out = tmp_path / "reports" / "L"
        out.symlink_to("F")
    before = _tree_of(tmp_path)
    with pytest.raises(ResultsError) as e:
        build_report(own_report / "data", out, reference=None, replays=None)
    message = str(e.value)
    assert "\n" not in message and message.startswith(str(out)) and ("choose another --out" in message), message
    assert _tree_of(tmp_path) == before


def test_castle_replaces_its_own_report_and_an_empty_folder_and_marks_what_it_wrote(own_report, tmp_path):
    """An empty folder is taken; castle's own report, unchanged, is replaced; the marker lists every file written,
    with its SHA-256, and carries the report's own identity (a new id each build)."""
    import hashlib

    from analysis.report import build_report
    from analysis.report.folder import MARKER, read_marker

    out = tmp_path / "R"
    out.mkdir()
    ids = []
    for _ in range(2):
        build_report(own_report / "data", out, reference=None, replays=None)
        files = {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in out.rglob("*") if p.is_file()}
        ids.append(json.loads((out / MARKER).read_text())["id"])
        assert read_marker(out / MARKER) == {k: v for k, v in files.items() if k != MARKER}
        assert "index.html" in files and sorted(p.name for p in tmp_path.iterdir()) == ["R"]
    assert ids[0] != ids[1]


def test_a_link_to_a_report_is_written_through_and_nothing_is_left_beside_it(own_report, tmp_path, monkeypatch):
    """``report --out L`` where L links to castle's report R: the new report is built beside R and swapped in there; L
    stays the same link (before: L became a folder and a hidden .L.old-PID link stayed for ever). A build that fails
    half way leaves R as it was and nothing beside it; a link to nothing is refused."""
    import shutil

    import analysis.report as report
    from analysis.load import ResultsError
    from analysis.report.folder import MARKER

    reports = tmp_path / "reports"
    shutil.copytree(own_report / "reports" / "R", reports / "R")
    (reports / "L").symlink_to("R")
    before = json.loads((reports / "R" / MARKER).read_text())["id"]
    report.build_report(own_report / "data", reports / "L", reference=None, replays=None)
    assert (reports / "L").is_symlink() and os.readlink(reports / "L") == "R"
    assert json.loads((reports / "R" / MARKER).read_text())["id"] != before
    assert sorted(p.name for p in reports.iterdir()) == ["L", "R"]
    kept = _tree_of(reports)

    def broken(r):
        raise RuntimeError("a section's bug")

    monkeypatch.setattr(report, "SECTIONS", [broken])
    with pytest.raises(RuntimeError):
        report.build_report(own_report / "data", reports / "L", reference=None, replays=None)
    monkeypatch.undo()
    assert _tree_of(reports) == kept
    (reports / "nowhere").symlink_to("gone")
    with pytest.raises(ResultsError, match="is a link to .*gone, which does not exist: choose another --out"):
        report.build_report(own_report / "data", reports / "nowhere", reference=None, replays=None)
    assert sorted(p.name for p in reports.iterdir()) == ["L", "R", "nowhere"]


#: a script that fills the disk half way through castle's next file write, then runs castle with the arguments after it
_FULL_DISK = """
import errno, sys
import sim.core.files as files

class Full:
    def __init__(self, f):
        self.f = f
    def write(self, data):
        self.f.write(data[: len(data) // 2])
        self.f.flush()
        raise OSError(errno.ENOSPC, "No space left on device")
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        self.f.close()

def full(path, mode="r", *args, **kw):
    f = open(path, mode, *args, **kw)
    return Full(f) if "w" in mode else f

files.open = full
from sim.cli import main
main(sys.argv[1:])
"""

FULL = [(["show", "sa", "1", "--out", "b.svg"], "b.svg"), (["show", "sa", "1", "--out", "b.png"], "b.png"),
        (["replay", "sa", "1", "--player", "greedy", "--out", "r.html"], "r.html")]


@pytest.mark.parametrize("args,name", FULL, ids=[c[1] for c in FULL])
def test_a_full_disk_never_destroys_an_existing_output_file(tmp_path, args, name):
    """``show --out b.svg`` and ``replay --out r.html`` over existing files with the disk full half way through the
    write: one line, exit 2, the old file whole and no temporary left (before: the old file destroyed, a cut-off one
    left)."""
    old = tmp_path / name
    old.write_bytes(b"the old file, which must stay whole")
    p = subprocess.run([sys.executable, "-c", _FULL_DISK, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [f"castle: cannot write {name}: No space left on device"], p.stderr
    assert old.read_bytes() == b"the old file, which must stay whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_a_full_disk_never_destroys_a_saved_model_or_manifest(tmp_path, monkeypatch):
    """The same for a model saved over an old one and a dataset's manifest: the old file whole, no temporary."""
    import errno

    import sim.core.files as files
    from sim.explain import model as explain_model
    from sim.study.dataset import write_json_atomic

    real = open

    class Full:
        def __init__(self, f):
            self.f = f

        def write(self, data):
            self.f.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    monkeypatch.setattr(files, "open", lambda path, mode="r", *a, **k: Full(real(path, mode, *a, **k)) if "w" in mode
                        else real(path, mode, *a, **k), raising=False)
    for path, write in ((tmp_path / "m.json.gz", lambda p: explain_model.read(explain_model.model_path("castles-end")).save(p)),
                        (tmp_path / "_manifest.json", lambda p: write_json_atomic({"experiment": {}}, p))):
        path.write_bytes(b"old")
        with pytest.raises(OSError, match="No space left on device") as e:
            write(path)
        assert e.value.errno == errno.ENOSPC and path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_manifest.json", "m.json.gz"]


#: the modules that write a file in place (not through sim/core/files.py), and why a failed write there destroys nothing
IN_PLACE_WRITES_ALLOWED = {
    ("analysis/report/__init__.py", "write_text"): "index.html, into the report's folder built aside and swapped in whole",
    ("analysis/report/page.py", "to_csv"): "a table, into the report's folder built aside",
    ("analysis/report/page.py", "write_bytes"): "a figure, into the report's folder built aside",
    ("analysis/report/page.py", "savefig"): "into memory (a BytesIO), written as above",
    ("analysis/report/sections/rungs.py", "to_csv"): "a table, into the report's folder built aside",
    ("analysis/report/sections/difficulty.py", "to_csv"): "a table, into the report's folder built aside",
    ("analysis/report/sections/selective.py", "to_csv"): "a table, into the report's folder built aside",
    ("analysis/notebooks/__init__.py", "savefig"): "a notebook's figure (make figures regenerates every one)",
    ("analysis/explain.py", "to_parquet"): "into the temporary name sim.core.files.replacing gives",
    ("sim/study/dataset.py", "write_table"): "into the temporary name sim.core.files.replacing gives",
    ("sim/kernels/__init__.py", "write_text"): "numba's cache stamp: a torn one only means compiling again",
    ("sim/precision/design.py", "write_text"): "_design.json's own temporary, renamed into place",
}
WRITERS = {"write_text", "write_bytes", "to_csv", "to_parquet", "savefig", "write_table"}


def test_every_file_castle_writes_in_place_is_listed_with_why_a_failure_destroys_nothing():
    """A file castle writes goes through sim/core/files.py (a temporary name, synced, renamed into place), except
    those listed here: so a full disk never leaves an output cut short where the old one was."""
    import ast

    root = Path(__file__).resolve().parents[1]
    found = set()
    for path in sorted(root.glob("sim/**/*.py")) + sorted(root.glob("analysis/**/*.py")):
        name = str(path.relative_to(root))
        if name == "sim/core/files.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITERS:
                found.add((name, node.func.attr))
    assert found - set(IN_PLACE_WRITES_ALLOWED) == set(), "write through sim.core.files (write_atomic, replacing) instead"
    assert set(IN_PLACE_WRITES_ALLOWED) - found == set(), "an allowed exception no longer exists: take it off the list"


# issue 50, part B: values a file holds are never trusted (rows, manifests, designs, catalogues), closed streams,
# bounds on what a run to a half-width plans

#: for every column a row may carry, a value it cannot hold, and the player whose part is given it (a column added to
#: sim/players/record.py or to a player's own without a check in sim/study/values.py fails here)
BAD_VALUES = {
    "game": ("greedy", "klondike"), "player": ("greedy", None), "player_params": ("greedy", "{not json"),
    "seed": ("greedy", -5), "deal": ("greedy", -3), "result": ("solver", "banana"), "won": ("greedy", "flip"),
    "moves": ("greedy", -1), "cards_home": ("greedy", 53), "base_rank": ("greedy", 13), "max_empty_piles": ("greedy", 14),
    "positions": ("greedy", 0), "elapsed_us": ("greedy", -1), "cpu_us": ("solver", -20_000_000_000_000),
    "dialect": ("greedy", "freecell"), "rules_version": ("greedy", 0), "engine_version": ("greedy", -1),
    "player_version": ("greedy", 0), "nodes": ("solver", None), "bases_won": ("solver", 9000), "bases_unknown": ("solver", -1),
    "most_home": ("solver", 60), "difficulty": ("corridor", float("inf")), "decisions": ("corridor", None),
    "critical": ("corridor", -2), "questions": ("corridor", -1), "searched": ("corridor", None), "unknown_moves": ("corridor", -1),
    "question_nodes": ("corridor", -1), "review": ("mistakes", "{not json"), "phase": ("phased", 7), "left": ("phased", None),
}
#: more values refused: a null where every row holds one, a number that is no number
MORE_BAD = [("result", ("greedy", None)), ("cpu_us", ("greedy", None)), ("difficulty", ("corridor", -50.0)),
            ("difficulty", ("corridor", float("nan"))), ("won", ("solver", None)), ("deal", ("greedy", 2**62)),
            ("result", ("greedy", "lost")), ("cards_home", ("solver", "flip"))]


@pytest.fixture(scope="module")
def judged_dataset(tmp_path_factory) -> Path:
    from synthetic import write_dataset

    root = tmp_path_factory.mktemp("values") / "d"
    write_dataset(root, deals=12, games=("selective-castle",), players=("greedy",), judged=True)
    manifest = json.loads((root / "_manifest.json").read_text())
    manifest["experiment"] |= {"seed": 0, "deal_range": [0, 24], "engine_version": 1}
    (root / "_manifest.json").write_text(json.dumps(manifest))
    return root


def _doctored(data: Path, tmp_path: Path, player: str, column: str, value, row: int = 3) -> Path:
    """A copy of ``data`` whose ``player``'s part holds ``value`` in ``column`` at ``row`` (``"flip"``: the value's
    opposite: ``won`` not as ``result`` says, 52 cards home on a game not won)."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    part = next(copy.glob(f"game=*/player={player}/*.parquet"))
    table = pq.read_table(part)
    i = table.schema.get_field_index(column)
    values = table.column(i).to_pylist()
    if value == "flip":
        row = next(k for k, r in enumerate(table.column("result").to_pylist()) if r != "won")
        value = 52 if column == "cards_home" else not values[row]
    values[row] = value
    field = table.schema.field(i)
    kind = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
    array = pa.array(values, type=kind, from_pandas=False)
    table = table.set_column(i, field, array.dictionary_encode() if pa.types.is_dictionary(field.type) else array)
    pq.write_table(table, part)
    return copy


def test_every_column_has_a_value_check():
    from sim.study.values import ALL_COLUMNS, CHECKS

    assert set(ALL_COLUMNS) <= set(BAD_VALUES) and set(ALL_COLUMNS) <= set(CHECKS)


@pytest.mark.parametrize("column,bad", [*BAD_VALUES.items(), *MORE_BAD], ids=lambda v: str(v))
def test_a_value_its_column_cannot_hold_is_refused_naming_the_part_and_the_column(judged_dataset, tmp_path, column, bad):
    """The principle: every value of every column is checked, not only its type (a ``banana`` result, a column of
    nulls, a negative CPU time, an infinite difficulty were counted as the experiment's)."""
    from analysis.load import ResultsError, load_results

    load_results(judged_dataset)  # the dataset as written is whole
    player, value = bad
    copy = _doctored(judged_dataset, tmp_path, player, column, value)
    with pytest.raises(ResultsError) as e:
        load_results(copy, judged_only=True)  # (the cheap players' parts, left on disk, are checked too)
    message = str(e.value)
    assert f"player={player}/" in message and column in message, message
    assert len(message.splitlines()) == 1


@pytest.mark.parametrize("change,message", [
    ({"deal_range": [0, 10]}, "column deal holds 10 in row 11 (allowed: 0 to 9, the manifest's deal range)"),
    ({"deals": {"selective-castle": [0, 1, 2]}}, "column deal holds 3 in row 4 (allowed: one of the deals the manifest lists"),
    ({"engine_version": 2}, "column engine_version holds 1"),
    ({"games": {"selective-castle": 3}}, "column rules_version holds 1"),
    ({"player_versions": {"greedy": 4}}, "column player_version holds 1"),
])
def test_a_row_the_manifest_did_not_play_is_refused(judged_dataset, tmp_path, change, message):
    """Deals outside the manifest's range (or not among the deals it lists), versions other than its own."""
    import shutil

    from analysis.load import ResultsError, load_results

    copy = tmp_path / "copy"
    shutil.copytree(judged_dataset, copy)
    manifest = json.loads((copy / "_manifest.json").read_text())
    manifest["experiment"] |= change
    (copy / "_manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ResultsError) as e:
        load_results(copy)
    assert message in str(e.value), str(e.value)


@pytest.mark.parametrize("change,problem", [
    (lambda m: m["experiment"].update(deal_range="0:60"), "its experiment's deal_range is \"0:60\""),
    (lambda m: m["experiment"].update(deal_range=[60, 0]), "its experiment's deal_range is [60, 0]"),
    (lambda m: m.update(runs="oops"), "its runs is \"oops\""),
    (lambda m: m["runs"].append({"deal_range": [0, "9"]}), "its runs is"),
    (lambda m: m["experiment"].update(seed=True), "its experiment's seed is true"),
    (lambda m: m["experiment"].update(games={"bc": "1"}), "its experiment's games is"),
    (lambda m: m["experiment"].update(players={"greedy": [1]}), "its experiment's players is"),
    (lambda m: m["experiment"].update(deals={"bc": [-1]}), "its experiment's deals is"),
    (lambda m: m.update(experiment=[]), "no experiment in it"),
])
def test_a_manifest_is_checked_whole_where_it_is_read(tmp_path, change, problem):
    """One function (``parse_manifest``) reads every manifest: each field a manifest may hold is checked."""
    from analysis.load import ResultsError, load_manifest
    from sim.study.dataset import parse_manifest, read_manifest
    from sim.study.experiment import ExperimentError

    manifest = {"experiment": {"name": "x", "games": {"bc": 1}, "players": {"greedy": {"max_moves": 1000}}, "seed": 0,
                               "deal_range": [0, 6], "chunk_size": 3, "engine_version": 1}, "runs": [{"deal_range": [0, 6]}]}
    (tmp_path / "_manifest.json").write_text(json.dumps(manifest))
    assert parse_manifest(tmp_path / "_manifest.json") == (manifest, None)
    change(manifest)
    (tmp_path / "_manifest.json").write_text(json.dumps(manifest))
    assert problem in parse_manifest(tmp_path / "_manifest.json")[1]
    with pytest.raises(ResultsError, match="is not a readable manifest"):
        load_manifest(tmp_path)
    with pytest.raises(ExperimentError, match="is unreadable"):
        read_manifest(tmp_path)


@pytest.mark.parametrize("change,problem", [
    (lambda d: d.update(first="200"), 'its first is "200"'), (lambda d: d.update(rate=0), "its rate is 0"),
    (lambda d: d.update(deals=2**63), "its deals is"), (lambda d: d.update(halfwidth=1e-300), "its halfwidth is"),
    (lambda d: d.pop("game"), "no game"), (lambda d: d.update(colour="red"), "an unknown field 'colour'"),
    (lambda d: d.update(first=2**63 - 10), "its deals run past the last deal number"),
])
def test_a_design_is_checked_whole_before_it_is_used(tmp_path, change, problem):
    """A hand-damaged ``_design.json`` gave raw Python messages ("can only concatenate str (not "int") to str")."""
    from sim.precision.design import DESIGN, read_design
    from sim.study.experiment import ExperimentError

    design = {"game": "beleaguered-castle", "halfwidth": 30.0, "rate": 1.0, "rate2": 1.0, "deals": 14, "first": 200,
              "per_deal_variance": 0.24, "cpu_per_deal": 0.05, "predicted_cpu_hours": 0.0002, "settle": "", "solved_again": 0.0,
              "unknown": 0.07}
    (tmp_path / DESIGN).write_text(json.dumps({"experiment": "x", "cpu_hours": None, "designs": [design]}))
    assert read_design(tmp_path)[0].first == 200
    change(design)
    (tmp_path / DESIGN).write_text(json.dumps({"experiment": "x", "cpu_hours": None, "designs": [design]}))
    with pytest.raises(ExperimentError) as e:
        read_design(tmp_path)
    assert problem in str(e.value) and "remove it to plan again" in str(e.value), str(e.value)


def test_a_plan_past_the_last_deal_number_is_refused():
    """A half-width the pilot's unknowns leave almost no room for: the plan's deals would run past 2**63-1 (or overflow)."""
    from sim.precision import Phases, plan
    from sim.study.experiment import ExperimentError

    tight = Phases(p=0.5, unknown=0.0199999999, q1=0.25, r1=0.85, q2=0.09, r2=0.8, c1=0.04, c2=0.9, c3=47.0)
    with pytest.raises(ExperimentError, match="needs more deals after deal 1000 than there are deal numbers"):
        plan(tight, "streets-and-alleys", 1.0, 1000, True)


def test_a_new_folders_run_that_fails_before_any_part_leaves_nothing(tmp_path, monkeypatch):
    """A run that could not play (here: its kernels fail to load) left a _manifest.json and a _lock in a folder of nothing,
    and the manifest then made the folder another experiment's to the next run."""
    import sim.study.runner as runner
    from sim.study.experiment import build

    def broken(exp):
        raise OSError(errno.EIO, "the kernels did not load")

    monkeypatch.setattr(runner, "_warm_up", broken)
    out = tmp_path / "new" / "run"
    exp = build({}, games=["bc"], players=["greedy"], deal_range="0:6", chunk_size=3)  # two whole chunks
    with pytest.raises(OSError):
        runner.run(exp, out)
    assert not (tmp_path / "new").exists()
    monkeypatch.undo()
    runner.run(exp, out)  # (the same experiment afterwards: played whole)
    assert len(list(out.rglob("part-*.parquet"))) == 2
    monkeypatch.setattr(runner, "_warm_up", broken)
    with pytest.raises(OSError):  # a folder holding parts keeps everything
        runner.run(build({}, games=["bc"], players=["greedy"], deal_range="0:9", chunk_size=3), out)
    assert (out / "_manifest.json").exists() and len(list(out.rglob("part-*.parquet"))) == 2


def test_each_change_of_a_folders_deal_range_is_kept_with_its_reason(tmp_path):
    """Issue 51, 5: the range grew during a run and only the experiment's last range said so."""
    from sim.study.experiment import build
    from sim.study.runner import run

    out = tmp_path / "run"
    run(build({}, games=["bc"], players=["greedy"], deal_range="0:3", chunk_size=3), out)
    run(build({}, games=["bc"], players=["greedy"], deal_range="0:3", chunk_size=3), out)  # the same range: no change
    run(build({}, games=["bc"], players=["greedy"], deal_range="0:6", chunk_size=3), out, reason="a test's reason")
    changes = json.loads((out / "_manifest.json").read_text())["range_changes"]
    assert [(c["from"], c["to"]) for c in changes] == [(None, [0, 3]), ([0, 3], [0, 6])]
    assert changes[0]["reason"] == "the experiment asked for deals 0 to 2" and changes[1]["reason"] == "a test's reason"


def test_each_block_of_a_run_to_a_halfwidth_says_why_its_range_grew(tmp_path):
    """The main run grows its folder's deal range block by block: each block's run is given the design as its reason."""
    from sim.precision import run as precision_run
    from sim.study.experiment import build
    from sim.study.runner import RunSummary

    exp = build(name="x", games=["beleaguered-castle"], players=["phased"], deal_range="100:140")
    reasons = []

    def run(e, out, **kw):
        reasons.append(kw["reason"])
        return RunSummary(out, e.end - e.first, 0, 0, [], 0.1, True)

    precision_run._capped(run, exp, tmp_path, tmp_path, None, lambda line: None, workers=1, why="the design's 40 deals")
    assert reasons[0] == "block 1 of 20 of the design's 40 deals" and reasons[-1] == "block 20 of 20 of the design's 40 deals"
