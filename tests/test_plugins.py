"""A researcher's own player (issue 52): from a file or a module, in Python or compiled, with everything a built-in
player gets; the guide (examples/players/README.md) run exactly as it is written."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.core.rules import STUDY_GAMES, find_game, with_dialect
from sim.players.registry import parse_player
from sim.players.spec import UnknownPlayerError
from sim.study.dataset import played_rows
from sim.study.experiment import ExperimentError, build
from sim.study.rows import play_rows
from sim.study.runner import run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "players"
CASTLE = [sys.executable, "-c", "from sim.cli import main; main()"]
ROW = ["result", "moves", "cards_home", "base_rank", "max_empty_piles", "positions"]


def same_rows(a, b) -> bool:
    a, b = a.to_pandas()[ROW], b.to_pandas()[ROW]
    return a.equals(b)


@pytest.mark.parametrize("rules", [*STUDY_GAMES, with_dialect(find_game("selective-castle"), "pysol"), find_game("castles-end")],
                         ids=lambda r: r.full_slug)
def test_greedy_written_again_as_a_compiled_plugin_plays_greedys_games(rules):
    mine = parse_player(f"{EXAMPLES / 'greedy_compiled.py'}:MyGreedy")
    assert mine.spec.compiled and mine.spec.kernel is None
    assert same_rows(play_rows(rules, parse_player("greedy"), 0, 1, 400), play_rows(rules, mine, 0, 1, 400))


def test_the_evaluation_weights_of_a_compiled_plugin_are_its_parameters():
    rules = find_game("streets-and-alleys")
    for params in ("home=4.0,empty=1.5", "mobility=0.0,dig=2.0"):
        mine = parse_player(f"{EXAMPLES / 'greedy_compiled.py'}:MyGreedy:{params}")
        assert same_rows(play_rows(rules, parse_player(f"greedy:{params}"), 0, 1, 200), play_rows(rules, mine, 0, 1, 200))


@pytest.mark.parametrize("python, compiled, deals", [("my_players.py:Digger", "my_players.py:FastDigger", 200),
                                                     ("my_players.py:Digger:empty=7", "my_players.py:FastDigger:empty=7", 100),
                                                     ("two_deep.py:TwoDeep", "two_deep.py:FastTwoDeep", 12)])
def test_one_idea_in_python_and_compiled_plays_the_same_games(python, compiled, deals):
    for rules in (find_game("beleaguered-castle"), find_game("selective-castle")):
        a = play_rows(rules, parse_player(f"{EXAMPLES}/{python}"), 0, 1, deals)
        b = play_rows(rules, parse_player(f"{EXAMPLES}/{compiled}"), 0, 1, deals)
        assert same_rows(a, b)


def test_a_compiled_plugin_plays_move_by_move_as_in_a_chunk():
    """``castle play``, reviews and replay pages play a plug-in through Python's loop: the games of the chunk."""
    from sim.game import Game
    from sim.players.loop import play_deal

    ref = f"{EXAMPLES / 'my_players.py'}:FastDigger"
    rows = play_rows(find_game("streets-and-alleys"), parse_player(ref), 0, 1, 30).to_pandas()
    for r in rows.itertuples():
        rec = play_deal(Game("streets-and-alleys"), ref, r.deal)
        assert (str(rec.result), len(rec.moves), rec.positions) == (r.result, r.moves, r.positions)


def player_file(folder: Path, *bodies: str, name: str = "mine.py") -> Path:
    path = folder / name
    path.write_text("\n".join(textwrap.dedent(b) for b in bodies))
    return path


FIRST = """
    class First:
        '''The first legal move.'''
        def __init__(self, seed=0, deal=0, skip=0):
            self.skip = skip
        def choose(self, state):
            actions = state.actions()
            return int(actions[min(self.skip, len(actions) - 1)])
"""


def test_rows_name_the_file_and_hash_its_code_and_a_resume_refuses_edited_code(tmp_path):
    path = player_file(tmp_path, FIRST)
    exp = build({"games": ["bc"], "players": [f"{path}:First:skip=1"], "deals": 6, "chunk_size": 3})
    run(exp, tmp_path / "out")
    rows = pd.read_parquet(tmp_path / "out")
    import hashlib

    assert set(rows.player) == {"First:skip=1"}
    assert set(rows.player_source) == {f"file {path}"} and set(rows.player_sha256) == {hashlib.sha256(path.read_bytes()).hexdigest()}
    run(exp, tmp_path / "out")  # the same code resumes (nothing left to play)
    path.write_text(path.read_text().replace("The first legal move.", "The first legal move, edited."))
    edited = build({"games": ["bc"], "players": [f"{path}:First:skip=1"], "deals": 9, "chunk_size": 3})
    with pytest.raises(ExperimentError, match="code changed since its rows were played"):
        run(edited, tmp_path / "out")
    assert len(pd.read_parquet(tmp_path / "out")) == 6


def test_a_player_file_run_by_castle_then_imported_in_a_notebook_loads_its_compiled_helpers(tmp_path):
    """numba's cache beside a file records the module name it was compiled under: `castle run` loads a file under
    its own name, a notebook imports it as itself; the other's cache entry is then a miss, never an ImportError."""
    player_file(tmp_path, """
        from numba import njit
        from sim.players.plugin import compiled, kit

        @njit(cache=True)
        def twice(x):
            return 2 * x

        @compiled()
        @njit(cache=True)
        def Twice(v, moves, n):
            return moves[twice(n) // (2 * n) - 1]
    """)
    played = subprocess.run(CASTLE + ["run", "--game", "sa", "--player", "mine.py:Twice", "--deals", "2", "--out", "d",
                                      "--no-progress"], cwd=tmp_path, capture_output=True, text=True)
    assert played.returncode == 0, played.stderr
    assert list((tmp_path / "__pycache__").glob("mine.twice-*.nbi"))  # (the helper was cached under castle's name)
    notebook = subprocess.run([sys.executable, "-c", "import mine; print(mine.twice(21))"], cwd=tmp_path, capture_output=True, text=True)
    assert notebook.returncode == 0 and notebook.stdout.strip() == "42", notebook.stderr
    again = subprocess.run(CASTLE + ["run", "--game", "sa", "--player", "mine.py:Twice", "--deals", "4", "--out", "d",
                                     "--no-progress"], cwd=tmp_path, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr


def test_a_file_players_parameters_are_checked_as_a_built_in_players(tmp_path):
    ref = f"{EXAMPLES / 'my_players.py'}"
    assert parse_player(f"{ref}:Digger:empty=3").label == "Digger:empty=3"
    for text, words in ((f"{ref}:Digger:empty=11", "empty must be 0 to 10"), (f"{ref}:Digger:depth=2", "no parameter 'depth'"),
                        (f"{ref}:FastDigger:empty=x", "must be an integer"), (f"{ref}:Nobody", "has no player 'Nobody'"),
                        (f"{ref}:buried", "is not a player"), (f"{tmp_path}/none.py:X", "no player file"),
                        (f"{ref}", "name the player after the file"), ("no_such_module.players:X", "no player module")):
        with pytest.raises(UnknownPlayerError, match=words):
            parse_player(text)


def test_a_player_may_not_take_a_built_in_players_name(tmp_path):
    path = player_file(tmp_path, FIRST.replace("class First", "class Greedy"))
    with pytest.raises(UnknownPlayerError, match="the name of a built-in"):
        parse_player(f"{path}:Greedy")


def test_castle_players_from_lists_a_files_players_and_a_module_plays_as_a_file_does(tmp_path):
    listed = subprocess.run(CASTLE + ["players", "--from", str(EXAMPLES / "my_players.py")], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0].rpartition(":")[2] for line in listed.stdout.splitlines() if not line.startswith(" ")]
    assert names == ["Digger", "FastDigger"]
    assert "[compiled]" in listed.stdout and "empty=2" in listed.stdout and "(0 to 10)" in listed.stdout
    pkg = tmp_path / "labbook"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    player_file(pkg, FIRST, name="players.py")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(CASTLE + ["run", "--game", "sa", "--player", "labbook.players:First", "--deals", "4", "--out", "d",
                                    "--no-progress"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert set(pd.read_parquet(tmp_path / "d").player_source) == {"module labbook.players"}


def test_dask_workers_rebuild_a_player_from_its_code_without_the_users_files(tmp_path, monkeypatch):
    """The run reads the file; then it is gone: the workers of a LocalCluster (in another folder) play from the text."""
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # where a worker writes the code it was sent
    home = tmp_path / "home"
    home.mkdir()
    path = player_file(home, FIRST, textwrap.dedent("""
        from numba import njit
        from sim.players.plugin import compiled

        @compiled()
        @njit(cache=True)
        def Last(v, moves, n):
            '''The last legal move.'''
            return moves[n - 1]
    """))
    exp = build({"games": ["bc"], "players": [f"{path}:First", f"{path}:Last"], "deals": 8, "chunk_size": 2})
    expected = {p.label: play_rows(find_game("bc"), p, 0, 1, 8).to_pandas()[ROW] for p in exp.players}  # deals = 8: deals 1-8
    shutil.rmtree(home)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, local_directory=str(elsewhere)) as cluster:
        run(exp, tmp_path / "out", backend="dask", scheduler=cluster.scheduler_address)
    rows = played_rows(tmp_path / "out")
    for label, want in expected.items():
        got = rows[rows.player == label].sort_values("deal")[ROW].reset_index(drop=True)
        assert got.astype(str).equals(want.astype(str)), label
    assert list((tmp_path / "cache" / "castle" / "players").glob("*/mine.py"))  # the code the workers were sent


BROKEN = {
    "raises": ("""
        class Boom:
            def choose(self, state):
                if len(state.move_stack) > 2:
                    raise ZeroDivisionError("my bug")
                return int(state.actions()[0])
    """, "Boom", "ZeroDivisionError: my bug"),
    "returns junk": ("""
        class Junk:
            def choose(self, state):
                return "sideways"
    """, "Junk", "not a move"),
    "compiled raises": ("""
        from numba import njit
        from sim.players.plugin import compiled, kit

        @compiled()
        @njit(cache=True)
        def Boom(v, moves, n):
            if kit.moves_played(v) > 2:
                raise ValueError("my compiled bug")
            return moves[0]
    """, "Boom", "ValueError: my compiled bug"),
    "does not compile": ("""
        from numba import njit
        from sim.players.plugin import compiled

        @compiled()
        @njit(cache=True)
        def Typo(v, moves, n):
            return moves[0] + "one"
    """, "Typo", "does not compile (numba): No implementation of function"),
    "illegal move": ("""
        from numba import njit
        from sim.players.plugin import compiled, kit

        @compiled()
        @njit(cache=True)
        def Cheat(v, moves, n):
            return 13 * 14 + 13 if kit.moves_played(v) > 2 else moves[0]
    """, "Cheat", "returned move FC-F, which is not a legal move"),
    "illegal push": ("""
        from numba import njit
        from sim.players.plugin import compiled, kit

        @compiled()
        @njit(cache=True)
        def Peek(v, moves, n):
            kit.push(v, 13 * 14 + 13)
            return moves[0]
    """, "Peek", "push() was given move FC-F"),
    "unbalanced push": ("""
        from numba import njit
        from sim.players.plugin import compiled, kit

        @compiled()
        @njit(cache=True)
        def Leaky(v, moves, n):
            kit.push(v, moves[0])
            return moves[0]
    """, "Leaky", "with moves still pushed"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_player_is_one_line_naming_it_and_the_deal_keeps_the_parts_and_no_worker(tmp_path, case):
    body, name, words = BROKEN[case]
    player_file(tmp_path, FIRST, body)
    marker = uuid.uuid4().hex
    # deals 1-6 of a good player land first (its chunks are planned first); the broken one stops the run
    done = subprocess.run(CASTLE + ["run", "--game", "sa", "--player", "mine.py:First", "--player", f"mine.py:{name}",
                                    "--deals", "6", "--chunk-size", "3", "--jobs", "2", "--out", "d", "--no-progress"],
                          cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "CASTLE_TEST_MARKER": marker})
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert re.search(rf"player {name}\b", lines[0]) and words in lines[0], lines[0]
    assert case == "does not compile" or re.search(r"deal \d+", lines[0]), lines[0]
    for part in (tmp_path / "d").rglob("part-*.parquet"):  # every part on disk is whole: part-<first>-<last>
        first, last = map(int, re.fullmatch(r"part-(\d+)-(\d+)\.parquet", part.name).groups())
        assert sorted(pd.read_parquet(part).deal) == list(range(first, last + 1))
    assert not _processes_marked(marker)


def _processes_marked(marker: str) -> list[int]:
    """Processes still alive that this test started (they carry its marker in their environment)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if f"CASTLE_TEST_MARKER={marker}".encode() in (proc / "environ").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                pass
    return found


# -- the guide, as written --------------------------------------------------------------------------------------
GUIDE = EXAMPLES / "README.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(), flags=re.S)


def test_the_guides_file_is_the_example_file():
    assert blocks("python")[0] == (EXAMPLES / "my_players.py").read_text()


def test_the_guide_runs_as_written_from_an_empty_folder(tmp_path):
    (tmp_path / "my_players.py").write_text(blocks("python")[0])
    script = blocks("sh")[0].replace("\\\n", " ")
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    outputs = []
    for command in filter(None, (line.strip() for line in script.splitlines())):
        done = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        outputs.append(done.stdout)
    assert "my_players.py:FastDigger" in outputs[0]
    summary = outputs[2]
    for label in ("Digger", "FastDigger:empty=3", "greedy"):
        assert re.search(rf"\b{re.escape(label)}\b", summary), summary
    assert "move" in outputs[3].lower()
    page = (tmp_path / "reports" / "mine" / "index.html").read_text()
    assert "FastDigger:empty=3" in page and "perfect play" in page
    rows = played_rows(tmp_path / "data" / "mine")
    assert len(rows) == 3 * 2 * 2000 and rows.deal.min() == 1
    toml = blocks("toml")[0]
    (tmp_path / "exp.toml").write_text('games = ["bc"]\ndeals = 3\n' + toml)
    done = subprocess.run(CASTLE + ["run", "exp.toml", "--out", "e", "--no-progress"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert set(pd.read_parquet(tmp_path / "e").player) == {"FastDigger:empty=3"}


def test_an_unowned_array_is_the_same_memory_and_only_arrays_and_numbers_are_taken():
    """The loops hand compiled code their arrays uncounted (sim/kernels/unowned.py): the same memory, written
    through; anything else in a tuple (a list, a string) is refused when compiling, not counted wrongly."""
    from numba import njit
    from numba.core.errors import TypingError

    from sim.kernels.unowned import unowned

    @njit
    def write_through(a, pair):
        u, (p, n) = unowned(a), unowned(pair)
        u[0] = 7
        p[1] = n
        return u.sum() + p.sum()

    a, b = np.zeros(4, np.int64), np.zeros((2, 3), np.float64)
    assert write_through(a, (b[0], 5.0)) == 12 and a[0] == 7 and b[0, 1] == 5.0

    @njit
    def refused(pair):
        return unowned(pair)[0]

    with pytest.raises(TypingError, match="unowned"):
        refused((np.zeros(2), "text"))
