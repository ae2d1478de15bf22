"""A catalogue of bad input across every command: exit status 2, one line on stderr, no traceback,
and nothing written or changed on disk (the command runs in a folder whose every file is compared)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CASTLE = [sys.executable, "-c", "from sim.cli import main; main()"]


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> Path:
    """A working folder holding a small dataset, boards good and bad, and experiment files good and bad."""
    root = tmp_path_factory.mktemp("bad-input")
    ok = subprocess.run(CASTLE + ["run", "--game", "bc", "--player", "greedy", "--deals", "6", "--chunk-size", "3",
                                  "--out", "data/small", "--no-progress"], cwd=root, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    boards = root / "boards"
    boards.mkdir()
    good = subprocess.run(CASTLE + ["deal", "bc", "3"], cwd=root, capture_output=True, text=True).stdout
    (boards / "good.txt").write_text(good)
    (boards / "junk.bin").write_bytes(bytes(range(256)) * 4)
    lines = good.splitlines()  # a Foundations: line, then 8 piles
    twice = list(lines)
    twice[2] += " " + lines[1].split()[0]
    (boards / "twice.txt").write_text("\n".join(twice) + "\n")
    (boards / "seven.txt").write_text("\n".join(lines[:-1]) + "\n")
    (boards / "token.txt").write_text("\n".join([lines[0], lines[1] + " ZZ"] + lines[2:]) + "\n")
    (boards / "partial.txt").write_text("\n".join(lines[:3]) + "\n")
    exps = root / "exps"
    exps.mkdir()
    (exps / "empty.toml").write_text("")
    (exps / "nogames.toml").write_text('games = []\nplayers = ["greedy"]\ndeals = 3\n')
    (exps / "typo.toml").write_text('gmaes = ["bc"]\n')
    (exps / "broken.toml").write_text("games = [\n")
    (exps / "noplayers.toml").write_text('games = ["bc"]\nplayers = []\ndeals = 3\n')
    (exps / "badout.toml").write_text('games = ["bc"]\nplayers = ["greedy"]\ndeals = 3\nout = 5\n')
    broken = root / "data" / "broken-manifest"
    broken.mkdir(parents=True)
    (broken / "_manifest.json").write_text("{not json")
    for name, text in (("list-manifest", "[1, 2]"), ("no-experiment", '{"experiment": 5}'), ("empty-manifest", "{}")):
        (root / "data" / name).mkdir()
        (root / "data" / name / "_manifest.json").write_text(text)  # JSON, but not a manifest
    corrupt = root / "data" / "corrupt"
    subprocess.run(CASTLE + ["run", "--game", "bc", "--player", "random", "--deals", "4", "--out", str(corrupt), "--no-progress"],
                   cwd=root, check=True, capture_output=True)
    part = next(corrupt.rglob("part-*.parquet"))
    part.write_bytes(part.read_bytes()[:100])
    (root / "a-file").write_text("x")
    return root


CASES = [
    # castle deal, games
    (["deal", "klondike", "1"], "unknown game"),
    (["deal", "sa", "abc"], "bad deal"),
    (["deal", "sa", "pysol:0"], "PySol game numbers start at 1"),
    (["deal", "sa", "99999999999999999999"], "deal numbers run from 0"),
    (["deal", "sa", "1", "--seed", "-1"], "seed -1 is out of range"),
    (["deal", "sa", "1", "--format", "xml"], "xml"),
    (["deal", "fortress", "pysol:5"], "PySol has no deal numbering for fortress"),
    (["deal"], "Missing argument"),
    (["deal", "sa@bogus", "1"], "unknown dialect 'bogus' (dialects of streets-and-alleys: sheet, supermoves)"),
    # castle play, players
    (["play", "sa", "1", "--player", "nobody"], "unknown player"),
    (["play", "sa", "1", "--player", "greedy:depht=2"], "no parameter 'depht'"),
    (["play", "sa", "1", "--player", "greedy:depth=x"], "must be an integer"),
    (["play", "sa", "1", "--player", "greedy:depth=1,depth=2"], "given twice"),
    (["play", "sa", "1", "--player", "strategist:choose_base=7"], "choose_base must be 0 to 2"),
    (["play", "sa", "1", "--max-moves", "0"], "max-moves"),
    (["players", "--frob"], "No such option"),
    (["play", "bc@pysol", "1"], "dialect 'pysol' does not apply to beleaguered-castle"),
    # castle solve
    (["solve", "bc"], "give a DEAL, or --board and a board file"),
    (["solve", "bc", "--board", "exps"], "a folder with no board files"),
    (["solve", "bc", "--board", "-"], "no board on standard input"),
    (["solve", "sa", "1", "--dead-end=3"], "does not take a value"),
    (["solve", "bc", "3", "x"], "bad deal 'x'"),
    (["play", "bc", "--board", "boards/good.txt", "boards/token.txt"], "'ZZ' is not a card"),
    (["solve", "bc", "--board", "boards/missing.txt"], "No such file"),
    (["solve", "bc", "--board", "boards/junk.bin"], "not a board text file"),
    (["solve", "bc", "--board", "boards/twice.txt"], "is already on line"),
    (["solve", "bc", "--board", "boards/seven.txt"], "expected 8 piles"),
    (["solve", "bc", "--board", "boards/token.txt"], "'ZZ' is not a card"),
    (["solve", "bc", "--board", "boards/partial.txt"], "expected 8 piles"),
    (["solve", "bc", "1", "--table-size", "1000"], "table-size must be a power of two"),
    (["solve", "bc", "1", "--budget-seconds", "0"], "budget-seconds must be more than 0"),
    (["solve", "bc", "1", "--budget-nodes", "0"], "budget-nodes must be at least 1"),
    (["solve", "sa", "1", "--bases"], "--bases needs a game whose shared base"),
    (["solve", "sc@supermoves", "1"], "(dialects of selective-castle: sheet, pysol)"),
    # castle run
    (["run", "--game", "nowhere", "--deals", "3", "--out", "data/new"], "unknown game"),
    (["run", "--game", "sa@freecell", "--deals", "3", "--out", "data/new"], "unknown dialect 'freecell'"),
    (["run", "--deals", "0", "--out", "data/new"], "must be positive"),
    (["run", "--game", "sa", "--player", "solver:dead_end=2", "--deals", "3", "--out", "data/new"], "dead_end must be 0 or 1, got 2"),
    (["run", "--deal-range", "9:3", "--out", "data/new"], "holds no deals"),
    (["run", "--deals", "3", "--jobs", "0", "--out", "data/new"], "--jobs"),
    (["run", "--deals", "3", "--backend", "spark", "--out", "data/new"], "unknown backend"),
    (["run", "--deals", "3", "--scheduler", "tcp://1.2.3.4:1", "--out", "data/new"], "--scheduler needs --backend dask"),
    (["run", "exps/empty.toml", "--out", "data/new"], "does not say its games, players, deals"),
    (["run", "exps/nogames.toml", "--out", "data/new"], "games is an empty list"),
    (["run", "exps/noplayers.toml", "--out", "data/new"], "players is an empty list"),
    (["run", "exps/typo.toml", "--out", "data/new"], "unknown experiment field(s): gmaes"),
    (["run", "exps/broken.toml", "--out", "data/new"], "is not valid TOML"),
    (["run", "exps/badout.toml"], "out must be a folder name"),
    (["run", "exps/missing.toml", "--out", "data/new"], "no experiment file"),
    (["run", "exps/typo.toml", "exps/empty.toml", "--out", "data/new"], "--out names one results folder"),
    (["run", "--game", "bc", "--player", "greedy", "--deals", "6", "--seed", "4", "--out", "data/small"], "different experiment"),
    (["run", "--game", "bc", "--player", "greedy", "--deals", "3", "--out", "a-file"], "not a directory"),
    (["run", "--game", "bc", "--player", "greedy", "--deals", "3", "--out", "data/broken-manifest"], "is unreadable"),
    # castle report
    (["report", "nothing-here"], "no results in nothing-here"),
    (["report", "data/small", "--out", "data/small/report"], "must not contain each other"),
    (["report", "data/small", "--out", "data"], "must not contain each other"),
    (["report", "data/corrupt", "--out", "reports/corrupt"], "rerun the experiment to replace it"),
    (["report", "data/corrupt", "--out", "reports/corrupt"], "(Parquet magic bytes not found in footer)"),  # a whole sentence
    (["report", "data/broken-manifest", "--out", "reports/broken"], "is not a readable manifest"),
    (["report", "data/list-manifest", "--out", "reports/list"], "is not a readable manifest (no experiment in it)"),
    (["report", "data/no-experiment", "--out", "reports/no-experiment"], "is not a readable manifest (no experiment in it)"),
    (["report", "data/empty-manifest", "--out", "reports/empty"], "is not a readable manifest (no experiment in it)"),
    (["run", "--game", "bc", "--player", "greedy", "--deals", "3", "--out", "data/list-manifest"], "is unreadable"),
    # castle show
    (["show", "klondike", "1"], "unknown game"),
    (["show", "sa", "abc"], "bad deal"),
    (["show", "sa"], "give a DEAL or --board FILE"),
    (["show", "bc", "3", "--board", "boards/good.txt"], "give a DEAL or --board FILE"),
    (["show", "bc", "--board", "boards/token.txt"], "'ZZ' is not a card"),
    (["show", "bc", "--board", "boards/missing.txt"], "No such file"),
    (["show", "sa", "1", "--out", "board.jpg"], "unknown extension '.jpg'; use .svg or .png"),
    (["show", "sa", "1", "--out", "board"], "no extension; use .svg or .png"),
    (["show", "sa", "1", "--out", "a-file/board.svg"], "not a folder a-file"),
    (["show", "sa", "1", "--out", "nowhere/board.png"], "no folder nowhere"),
    (["show", "sa", "1", "--move", "xyz"], "not a move"),
    (["show", "sa", "1", "--move", "1-9"], "there is no pile 9"),
    (["show", "sa", "1", "--move", "1-2x0"], "not a move"),
    (["show", "sa", "1", "--move", "1-2x3"], "moves one card at a time"),
    # castle replay
    (["replay", "klondike", "1", "--player", "greedy"], "unknown game"),
    (["replay", "sa", "x", "--player", "greedy"], "bad deal"),
    (["replay", "sa", "1"], "Missing option '--player'"),
    (["replay", "sc@pysol2", "1", "--player", "greedy"], "unknown dialect 'pysol2'"),
    (["replay", "sa", "1", "--player", "nobody"], "unknown player"),
    (["replay", "sa", "1", "--player", "solver:budget_nodes=0"], "budget_nodes must be at least 1"),
    (["replay", "sa", "1", "--player", "greedy", "--out", "game.txt"], "unknown extension '.txt'; use .html or .htm"),
    (["replay", "sa", "1", "--player", "greedy", "--out", "a-file/game.html"], "not a folder a-file"),
    (["replay", "sa", "1", "--player", "greedy", "--seed", "-1"], "seed -1 is out of range"),
    # the command itself
    (["frobnicate"], "No such command"),
]


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.name != "_lock"}


@pytest.mark.parametrize("args,message", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(place, args, message):
    before = _files(place)
    p = subprocess.run(CASTLE + args, cwd=place, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], p.stderr
    assert "Traceback" not in p.stderr
    assert _files(place) == before


def test_the_catalogue_is_long():
    assert len(CASES) >= 30
