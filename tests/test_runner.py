"""The batch runner: the dataset, determinism, resume after kill -9, refusal to mix, Dask, bad input."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from sim.study.experiment import ExperimentError, build, read_toml
from sim.kernels.legal import ENGINE_VERSION
from sim.players.spec import PlayerSpec
from sim.players.registry import parse_player, register
from sim.core.rules import find_game
from sim.study import chunks, workers
from sim.study import rows as rows_module
from sim.study.dataset import MANIFEST, TIMING, schema
from sim.study.runner import run

CASTLE = [sys.executable, "-c", "from sim.cli import main; main()"]
GAMES = ["streets-and-alleys", "selective-castle"]
PLAYERS = ["random:max_moves=200", "greedy", "strategist"]


def small(**kw):
    args = dict(games=GAMES, players=PLAYERS, deals=40, chunk_size=15)
    args.update(kw)
    return build({}, **args)


def rows(out: Path) -> pd.DataFrame:
    df = pd.read_parquet(out)
    df["game"] = df["game"].astype(str)
    df["player"] = df["player"].astype(str)
    return df.drop(columns=["elapsed_us", "cpu_us"]).sort_values(["game", "player", "deal"]).reset_index(drop=True)


def files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("ref") / "run"
    run(small(), out, jobs=1)
    return rows(out)


def test_dataset_layout_schema_and_manifest(tmp_path, reference):
    out = tmp_path / "run"
    run(small(), out, jobs=1)
    df = pd.read_parquet(out)
    assert list(df.columns) == schema().names
    assert len(df) == len(GAMES) * len(PLAYERS) * 40
    assert not df.duplicated(["game", "player", "deal"]).any()
    assert set(df.result) <= {"won", "stuck", "gave_up"} and (df.won == (df.result == "won")).all()
    assert (df.engine_version == ENGINE_VERSION).all() and (df.rules_version == 1).all()
    assert df.loc[df.game == "streets-and-alleys", "base_rank"].isna().all()
    assert df.loc[df.game == "selective-castle", "base_rank"].notna().any()
    assert (df.elapsed_us >= 0).all() and df.cards_home.between(0, 52).all()
    parts = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.parquet"))
    assert "game=streets-and-alleys/player=greedy/part-1-14.parquet" in parts  # deals 1-40, chunks at multiples of 15
    assert "game=selective-castle/player=random%3Amax_moves%3D200/part-30-40.parquet" in parts
    import json

    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["experiment"]["deal_range"] == [1, 41] and manifest["finished"]
    assert {"package_version", "git_commit", "started"} <= set(manifest)


def test_rows_are_the_same_whatever_jobs_and_chunk_size(tmp_path, reference):
    out = tmp_path / "run"
    run(small(chunk_size=7), out, jobs=2)
    pd.testing.assert_frame_equal(rows(out), reference)


def test_dask_local_cluster_gives_the_same_rows(tmp_path, reference):
    pytest.importorskip("distributed")
    out = tmp_path / "run"
    run(small(chunk_size=20), out, jobs=2, backend="dask")  # the runner starts its own LocalCluster
    pd.testing.assert_frame_equal(rows(out), reference)


def test_dask_scheduler_address_gives_the_same_rows(tmp_path, reference):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster:
        out = tmp_path / "run"
        run(small(chunk_size=9), out, jobs=2, backend="dask", scheduler=cluster.scheduler_address)
        pd.testing.assert_frame_equal(rows(out), reference)
        # a run to a half-width cuts its blocks for every thread of the cluster, whatever --jobs says
        from sim.study.workers import parallelism

        assert parallelism(1, "dask", cluster.scheduler_address) == 2 and parallelism(3) == 3


def test_a_log_hears_from_the_run_every_minute_even_when_no_deal_ends_in_it(monkeypatch, capsys):
    """A deal may take an hour (a settle's): the line a minute comes without one, then the last line once."""
    from sim.study.progress import Progress

    monkeypatch.setattr(Progress, "EVERY", 0.2)
    progress = Progress(3, bar=False)
    time.sleep(0.7)
    waiting = capsys.readouterr().err.strip().splitlines()
    assert len(waiting) >= 2 and all(line.startswith("castle run: 0 of 3 games (0.0%)") and line.endswith("no game finished "
                                      "yet to time the rest by") for line in waiting), waiting
    progress.update(3)
    assert capsys.readouterr().err.startswith("castle run: 3 of 3 games (100.0%)")
    progress.close()
    time.sleep(0.4)
    assert capsys.readouterr().err == ""  # closed: silent, and the finished line not said twice
    assert not [t for t in threading.enumerate() if t.name == "castle-progress-minute" and t.is_alive()]


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_comes_while_a_chunk_is_played_and_its_rows_are_those_of_the_whole_chunk(tmp_path, monkeypatch, jobs):
    """The bar hears of a chunk's deals in steps while they are played (with one job, before its part is written),
    adding up to its deals; the part holds the rows of the chunk played in one go (timing aside). A compiled player
    (its steps are kernel calls) and one that plays in Python with columns of its own (the solver)."""
    updates = []  # (deals, the thread that reported them, parts on disk then)

    class Bar:
        def __init__(self, total, bar):
            assert total == 2 * 30

        def update(self, n):
            updates.append((n, threading.current_thread().name, len(list(out.rglob("part-*.parquet")))))

        def close(self):
            pass

    monkeypatch.setattr(workers, "Progress", Bar)
    if jobs == 1:
        monkeypatch.setattr(rows_module, "REPORT_SECONDS", 0.0)  # in this process, so a report after every deal
    exp = build({}, games=["sa"], players=["lookahead:depth=2", "solver:budget_nodes=2000"], deal_range="0:30", chunk_size=30)
    out = tmp_path / "run"
    assert run(exp, out, jobs=jobs).finished
    counts = [n for n, _, _ in updates]
    assert sum(counts) == 60 and min(counts) >= 1
    if jobs == 1:
        assert counts == [1] * 60
        assert [parts for _, _, parts in updates] == [0] * 30 + [1] * 30
    else:  # from the workers, through the run's socket: each chunk's first deal alone, then the rest in steps
        assert len(counts) >= 4 and {thread for _, thread, _ in updates} == {"castle-progress"}
        assert not [t for t in threading.enumerate() if t.name == "castle-progress"]
    for chunk in chunks.plan(exp):
        written = pq.read_table(out / chunk.relpath())
        whole = rows_module.play_rows(find_game(chunk.game), chunk.choice, chunk.seed, chunk.first, chunk.last, schema(chunk.extra))
        assert written.num_rows == 30 and written.drop_columns(list(TIMING)).equals(whole.drop_columns(list(TIMING)))


def test_play_rows_in_steps_gives_the_rows_of_one_go(monkeypatch):
    """Whatever the steps (one deal each, or sized by time), the rows are those of the deals played in one go."""
    rules = find_game("selective-castle")
    for label in ("random:max_moves=300", "strategist", "solver:budget_nodes=500"):
        choice = parse_player(label)
        whole = rows_module.play_rows(rules, choice, 3, 10, 49).drop_columns(list(TIMING))
        for seconds in (0.0, 0.001, rows_module.REPORT_SECONDS):
            monkeypatch.setattr(rows_module, "REPORT_SECONDS", seconds)
            steps = []
            stepped = rows_module.play_rows(rules, choice, 3, 10, 49, report=steps.append)
            assert sum(steps) == 40 and steps[0] == 1 and (seconds or steps == [1] * 40)
            assert stepped.drop_columns(list(TIMING)).equals(whole), (label, seconds)


def test_resume_after_kill_9_completes_every_deal_exactly_once(tmp_path):
    out = tmp_path / "run"
    cmd = CASTLE + ["run", "--game", "sa", "--player", "lookahead:depth=2", "--player", "random", "--deal-range", "0:600",
                    "--chunk-size", "20", "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline and len(list(out.rglob("part-*.parquet"))) < 3:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done = len(list(out.rglob("part-*.parquet")))
    assert 3 <= done < 60, "the kill should land mid-run"
    # a crash may also leave a half-written temporary: the resumed run must ignore and clear it
    (next(out.rglob("player=random")) / ".part-0-19.parquet.99999.tmp").write_bytes(b"half a file")
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert f"{done * 20:,} of 1,200 already there" in again.stdout
    df = pd.read_parquet(out)
    assert len(df) == 1200 and not df.duplicated(["player", "deal"]).any()
    assert not list(out.rglob("*.tmp"))
    fresh = tmp_path / "fresh"
    subprocess.run(cmd[:-3] + ["--out", str(fresh), "--no-progress"], check=True, capture_output=True)
    pd.testing.assert_frame_equal(rows(out), rows(fresh))


def test_a_different_experiment_is_refused_and_nothing_is_touched(tmp_path):
    out = tmp_path / "run"
    run(small(deals=10), out, jobs=1)
    before = files(out)
    with pytest.raises(ExperimentError, match="different experiment.*seed"):
        run(small(deals=10, seed=5), out, jobs=1)
    import json

    manifest = json.loads((out / MANIFEST).read_text())
    for section, key, value in (("engine_version", None, 0), ("players", "greedy", {"home": 1}), ("games", "selective-castle", 0)):
        edited = json.loads(json.dumps(manifest))
        if key is None:
            edited["experiment"][section] = value
        else:
            edited["experiment"][section][key] = value
        (out / MANIFEST).write_text(json.dumps(edited))
        with pytest.raises(ExperimentError, match=f"different experiment.*{section}"):
            run(small(deals=10), out, jobs=1)
    (out / MANIFEST).write_text(before[MANIFEST].decode())
    assert files(out) == before
    # the same experiment again is a no-op resume
    summary = run(small(deals=10), out, jobs=1)
    assert summary.deals_played == 0 and summary.deals_already == summary.deals_total


def test_rows_played_before_a_parameter_existed_resume_with_it_at_its_default(tmp_path):
    """A player that gains a parameter (the solver's ``dead_end``) still resumes its older datasets, whose rows the
    default plays the same; the parameter set otherwise is another experiment."""
    import json

    out = tmp_path / "run"
    run(small(deals=10), out, jobs=1)
    manifest = json.loads((out / MANIFEST).read_text())
    players = manifest["experiment"]["players"]
    label = "greedy"
    defaults = {q.name: q.default for q in parse_player(label).spec.all_params}
    added = next(k for k, v in players[label].items() if v == defaults[k])  # as if the manifest predated it
    del players[label][added]
    (out / MANIFEST).write_text(json.dumps(manifest))
    summary = run(small(deals=20), out, jobs=1)
    assert summary.deals_already == summary.deals_total // 2
    players[label][added] = "not its default"
    (out / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ExperimentError, match="different experiment.*players"):
        run(small(deals=20), out, jobs=1)


def test_an_experiment_grows_by_deals_players_and_games_without_playing_a_deal_twice(tmp_path, reference):
    """More deals (with a partial last chunk before), another player, another chunk size: only the new games
    are played, and the rows are those of one fresh run."""
    out = tmp_path / "run"
    run(small(deals=22, players=PLAYERS[:2], games=GAMES[:1]), out, jobs=1)
    grown = run(small(deals=40, chunk_size=7), out, jobs=2)
    assert grown.deals_already == 22 * 2 and grown.deals_played == 40 * 3 * 2 - 22 * 2
    pd.testing.assert_frame_equal(rows(out), reference)
    import json

    held = json.loads((out / MANIFEST).read_text())["experiment"]
    assert held["deal_range"] == [1, 41] and set(held["players"]) == set(PLAYERS) and set(held["games"]) == set(GAMES)


def test_a_damaged_part_is_played_again_and_said(tmp_path, reference):
    out = tmp_path / "run"
    run(small(), out, jobs=1)
    part = out / "game=streets-and-alleys" / "player=greedy" / "part-15-29.parquet"
    part.write_bytes(part.read_bytes()[:300])  # truncated, as a full disk or a crash in a copy leaves it
    p = subprocess.run(CASTLE + ["run", "--game", "sa", "--game", "sc", "--player", PLAYERS[0], "--player", PLAYERS[1],
                                 "--player", PLAYERS[2], "--deals", "40", "--chunk-size", "15", "--out", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "part-15-29.parquet was damaged" in p.stderr and "15 games played" in p.stdout
    pd.testing.assert_frame_equal(rows(out), reference)


def test_a_foreign_directory_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ExperimentError, match="not empty"):
        run(small(deals=5), tmp_path, jobs=1)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_a_run_killed_while_writing_its_first_manifest_starts_afresh(tmp_path, reference):
    """Killed between the half-written manifest and its rename: the folder holds only that temporary (and
    perhaps the lock), so it is still an empty output, not a foreign one."""
    out = tmp_path / "run"
    out.mkdir()
    (out / f".{MANIFEST}.12345.tmp").write_text('{"experiment": {"na')
    (out / "_lock").write_bytes(b"")
    run(small(), out, jobs=1)
    pd.testing.assert_frame_equal(rows(out), reference)
    assert not list(out.glob("*.tmp"))


def test_a_python_player_with_its_own_columns(tmp_path):
    """A player that plays whole deals itself (like the solver) adds its columns; others get nulls."""

    def whole_deal(state, seed, deal, max_moves):
        from sim.players.loop import play
        from sim.players.registry import parse_player

        rec = play(state, parse_player("random").make(seed, deal), max_moves)
        rec.extra["nodes"] = deal * 10
        return rec

    register(PlayerSpec("test-whole", "test", (), play_deal=whole_deal, extra_columns=(("nodes", "int64"),)))
    register(PlayerSpec("test-pyrandom", "test", (), factory=lambda seed, deal: parse_player("random").make(seed, deal)))
    exp = build({}, games=["bc"], players=["random:max_moves=150", "test-whole:max_moves=150", "test-pyrandom:max_moves=150"], deals=12, chunk_size=5)
    run(exp, tmp_path / "run", jobs=2)
    df = rows(tmp_path / "run")
    whole = df[df.player.str.startswith("test-whole")]
    assert list(whole.nodes) == [d * 10 for d in range(1, 13)]
    assert df.loc[df.player.str.startswith("random"), "nodes"].isna().all()
    # the compiled random player and its Python loop give the same games
    cols = ["deal", "result", "moves", "cards_home", "max_empty_piles", "positions"]
    for label in ("test-whole:max_moves=150", "test-pyrandom:max_moves=150"):
        a = df[df.player == label][cols].reset_index(drop=True)
        b = df[df.player == "random:max_moves=150"][cols].reset_index(drop=True)
        pd.testing.assert_frame_equal(a, b)


def test_experiment_file_and_flag_overrides(tmp_path):
    f = tmp_path / "e.toml"
    f.write_text('name = "e"\nseed = 4\ndeal_range = "10:30"\ngames = ["bc"]\n[[players]]\nname = "lookahead"\ndepth = 2\nwidth = 3\n')
    exp = build(read_toml(f))
    assert (exp.name, exp.seed, exp.first, exp.end) == ("e", 4, 10, 30)
    assert exp.players[0].label == "lookahead:depth=2,width=3"
    exp = build(read_toml(f), deals=5, players=["greedy"], seed=1)
    assert (exp.first, exp.end, exp.seed, exp.players[0].label) == (1, 6, 1, "greedy")
    default = build(read_toml(Path(__file__).parents[1] / "experiments" / "default.toml"))
    assert {p.name for p in default.players} == {"random", "greedy", "strategist", "lookahead"} and len(default.games) == 3


def test_a_count_of_deals_is_deals_1_to_n_and_a_range_from_0_still_plays_deal_0(tmp_path):
    """One convention (the study's files and PySol's game numbers): ``--deals 5`` and ``deals = 5`` play deals 1-5;
    ``deal_range = "0:5"`` plays 0-4 (END excluded)."""
    flags = tmp_path / "flags"
    r = subprocess.run(CASTLE + ["run", "--game", "bc", "--player", "greedy", "--deals", "5", "--out", str(flags),
                                 "--no-progress"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(pd.read_parquet(flags).deal) == [1, 2, 3, 4, 5]
    (tmp_path / "count.toml").write_text('games = ["bc"]\nplayers = ["greedy"]\ndeals = 5\n')
    (tmp_path / "zero.toml").write_text('games = ["bc"]\nplayers = ["greedy"]\ndeal_range = "0:5"\n')
    count, zero = (build(read_toml(tmp_path / f"{n}.toml"), from_file=True) for n in ("count", "zero"))
    assert (count.first, count.end) == (1, 6) and (zero.first, zero.end) == (0, 5)
    run(zero, tmp_path / "zero", jobs=1, progress=False)
    assert sorted(pd.read_parquet(tmp_path / "zero").deal) == [0, 1, 2, 3, 4]
    assert (build({}).first, build({}).n_deals) == (1, 1000)  # nothing said: deals 1 to 1,000


BAD = [
    (["--game", "nowhere", "--deals", "3"], "unknown game"),
    (["--player", "nobody", "--deals", "3"], "unknown player"),
    (["--player", "greedy:depht=2", "--deals", "3"], "no parameter"),
    (["--deals", "0"], "must be positive"),
    (["--deals", "-4"], "must be positive"),
    (["--deal-range", "9:3"], "holds no deals"),
    (["--deals", "3", "--jobs", "0"], "--jobs"),
    (["--deals", "3", "--backend", "spark"], "unknown backend"),
]


@pytest.mark.parametrize("args,message", BAD)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    out = tmp_path / "out"
    p = subprocess.run(CASTLE + ["run", "--out", str(out)] + args, capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and message in p.stderr and "Traceback" not in p.stderr
    assert not out.exists()


def test_bad_files_and_unwritable_output(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("games = [\n")
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("gmaes = ['bc']\n")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    cases = [
        ([str(broken)], "not valid TOML"),
        ([str(unknown)], "unknown experiment field"),
        ([str(tmp_path / "missing.toml")], "no experiment file"),
        (["--deals", "2", "--out", str(blocker / "sub")], "cannot write"),
        (["--deals", "2", "--out", str(blocker)], "not a directory"),
    ]
    for args, message in cases:
        p = subprocess.run(CASTLE + ["run"] + args, capture_output=True, text=True, cwd=tmp_path)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr.count("\n") == 1 and message in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert blocker.read_text() == "x"
    # refusing to mix, through the command line
    out = tmp_path / "out"
    ok = subprocess.run(CASTLE + ["run", "--game", "bc", "--player", "greedy", "--deals", "4", "--out", str(out)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    before = files(out)
    p = subprocess.run(CASTLE + ["run", "--game", "bc", "--player", "greedy", "--deals", "4", "--seed", "3", "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 2 and "different experiment" in p.stderr and p.stderr.count("\n") == 1
    assert files(out) == before


def test_more_workers_than_cpus_is_said_in_the_librarys_words(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    run(build({}, games=["beleaguered-castle"], players=["random"], deals=4, chunk_size=1), tmp_path / "out", jobs=2)
    err = capsys.readouterr().err
    assert "2 worker processes on this machine's 1 CPUs" in err and "--jobs" not in err


def test_workers_that_would_not_fit_in_memory_are_fewer_and_the_run_says_so(capsys):
    """Two settle workers with 2**29 slots (about 15 GB each) were killed for memory on a 24 GB machine, the solves in
    progress lost: the runner runs as many as fit in the free memory (a test gives it), and says so in one line."""
    from sim.solver.memory import BASE_MB, fitting_workers, player_mb
    from sim.study.runner import _fitting

    deep = build({}, games=["beleaguered-castle"], players=["settle:budget_nodes=3000000000,table_size=536870912"], deals=4)
    each = player_mb(deep.players[0].params)
    assert 14_000 < each < 17_000  # the measured 4.2 GB at the default table, four times the table
    assert _fitting(deep, 2, machine_mb=23_000) == 1
    assert "2 workers of up to" in capsys.readouterr().err
    assert _fitting(deep, 2, machine_mb=64_000) == 2 and capsys.readouterr().err == ""
    assert _fitting(deep, 1, machine_mb=8_000) == 1  # one worker always runs, warned
    assert "may be killed for memory" in capsys.readouterr().err
    light = build({}, games=["beleaguered-castle"], players=["greedy", "solver:budget_nodes=300000"], deals=4)
    assert max(player_mb(c.params) for c in light.players) < 2 * BASE_MB  # a small budget fills a small table
    assert _fitting(light, 2, machine_mb=2_000) == 2
    assert fitting_workers(8, 1_000.0, None) == 8  # memory not known: as asked


def test_castle_solve_runs_no_more_workers_than_fit_either(monkeypatch):
    """The same cap for ``castle solve --jobs``: on a machine with 6 GB free (the test's, not this one's), two
    workers with the default table (about 4 GB each) become one, said in a line; the deals' lines are whole."""
    from typer.testing import CliRunner

    from sim.cli import full_app
    from sim.solver import memory

    monkeypatch.setattr(memory, "free_mb", lambda: 6_000.0)
    out = CliRunner().invoke(full_app(), ["solve", "bc", "1", "2", "--jobs", "2", "--budget-seconds", "0.2",
                                          "--budget-nodes", "200000000", "--json"])
    assert out.exit_code == 0, out.output
    assert "castle solve: 2 workers of up to 4.1 GB each do not fit in the 5.9 GB this machine has free: running 1\n" in out.output
    assert sum(line.startswith('{"game"') for line in out.output.splitlines()) == 2


def test_a_manifest_whose_run_names_its_games_wrongly_is_refused_in_one_line():
    """``runs[].games`` (what a run played, read by analysis.settling) is checked as every other field: a list of
    names, else the manifest is not one castle wrote."""
    from sim.study.dataset import manifest_problem

    good = {"experiment": {"name": "x"}, "runs": [{"jobs": 1, "games": ["beleaguered-castle"]}]}
    assert manifest_problem(good) is None
    for bad in ("beleaguered-castle", [1], {"g": 1}):
        assert manifest_problem({**good, "runs": [{"jobs": 1, "games": bad}]}) == f"its runs is {_shown_runs(bad)}"


def _shown_runs(games) -> str:
    from sim.study.dataset import _shown

    return _shown([{"jobs": 1, "games": games}])
