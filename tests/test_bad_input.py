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
    ok = subprocess.run(CASTLE + ["run", "--game", "bc", "--player", "greedy", "--deal-range", "0:6", "--chunk-size", "3",
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
    _issue_31(root)
    return root


SMALL = ["--game", "bc", "--player", "greedy", "--deal-range", "0:6", "--chunk-size", "3", "--no-progress"]  #: data/small's run: parts 0-2, 3-5
PART = Path("game=beleaguered-castle") / "player=greedy"  #: where data/small's parts are


def _issue_31(root: Path) -> None:
    """The second round of bad input (issue 31): experiment files, datasets mixed or nested, impossible boards."""
    import shutil

    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sim.core.board import format_board
    from sim.core.cards import card_str, parse_card
    from sim.core.deals import deal_position
    from sim.core.rules import find_game

    exps, data, boards = root / "exps", root / "data", root / "boards"
    for name, text in (
        ("nul-name", 'name = "x\\u0000y"'), ("newline-name", 'name = "x\\ny"'), ("nul-out", 'out = "a\\u0000b"'),
        ("padded-name", 'name = " padded"'), ("description", "description = [1, 2]"),
        ("twin-a", 'name = "twin"\nseed = 0'), ("twin-b", 'name = "twin"\nseed = 1'),
    ):
        (exps / f"{name}.toml").write_text(text + '\ngames = ["bc"]\nplayers = ["greedy"]\ndeals = 3\n')
    (exps / "twice.toml").write_text('games = ["bc"]\ndeals = 3\n[[players]]\nname = "lookahead"\ndepth = 2\n'
                                     "[players.params]\ndepth = 3\n")
    # Parquet files castle did not write: one of nothing like its rows, one with a few of its columns
    for name, frame in (("foreign", pd.DataFrame({"a": [1]})),
                        ("castlish", pd.DataFrame({"game": ["bc"], "player": ["greedy"], "deal": [1], "result": ["won"], "won": [True]}))):
        (data / name).mkdir()
        frame.to_parquet(data / name / "p.parquet")
    small = data / "small"
    # a part of a seed-7 run copied over a part of a seed-0 dataset
    seven = root / "seven"
    for out, seed in ((data / "mixed", "0"), (seven, "7")):
        subprocess.run(CASTLE + ["run", *SMALL[:4], "--deal-range", "0:9", "--chunk-size", "3", "--seed", seed, "--out", str(out),
                                 "--no-progress"], cwd=root, check=True, capture_output=True)
    shutil.copy(seven / PART / "part-3-5.parquet", data / "mixed" / PART / "part-3-5.parquet")
    # a part copied beside itself; a part of the same deals under another chunking; a dataset inside another
    shutil.copytree(small, data / "dup")
    shutil.copy(small / PART / "part-0-2.parquet", data / "dup" / PART / "part-0-2-copy.parquet")
    other = root / "other"  # beside the seed-7 dataset, not in it: castle run refuses a dataset inside another
    subprocess.run(CASTLE + ["run", *SMALL[:4], "--deal-range", "1:3", "--chunk-size", "3", "--out", str(other),
                             "--no-progress"], cwd=root, check=True, capture_output=True)
    shutil.copytree(small, data / "overlap")
    shutil.copy(other / PART / "part-1-2.parquet", data / "overlap" / PART / "part-1-2.parquet")
    shutil.rmtree(seven)
    shutil.rmtree(other)
    shutil.copytree(small, data / "nest")
    shutil.copytree(small, data / "nest" / "inner")
    shutil.copytree(small, data / "greedy-only")
    # a part where no part goes, a part whose seed column is text, a folder named as a part, another player's part
    shutil.copytree(small, data / "stray")
    shutil.copy(small / PART / "part-0-2.parquet", data / "stray" / "part-0-2.parquet")
    shutil.copytree(small, data / "typed")
    frame = pd.read_parquet(data / "typed" / PART / "part-3-5.parquet")
    frame.astype({"seed": str}).to_parquet(data / "typed" / PART / "part-3-5.parquet")
    shutil.copytree(small, data / "folder-part")
    (data / "folder-part" / PART / "part-6-8.parquet").mkdir()
    shutil.copytree(small, data / "stranger")
    table = pq.read_table(small / PART / "part-0-2.parquet")
    at = table.schema.get_field_index("player")
    table = table.set_column(at, table.schema.field(at), pa.DictionaryArray.from_arrays(pa.array([0] * len(table), pa.int32()),
                                                                                         pa.array(["random"])))
    (data / "stranger" / "game=beleaguered-castle" / "player=random").mkdir()
    pq.write_table(table, data / "stranger" / "game=beleaguered-castle" / "player=random" / "part-0-2.parquet")
    # boards no deal of their game reaches: two cards in a one-card reserve, Kings above other cards in
    # Baker's Dozen, a Streets and Alleys deal (its Aces on the tableau) for Beleaguered Castle, two foundations of
    # Ordered Suits part-built, Checkerboard with nothing home
    ce = deal_position(find_game("castles-end"), 1)
    ce.piles[-1].append(ce.piles[0].pop())
    (boards / "ce-reserve.txt").write_text(format_board(ce))
    bd = deal_position(find_game("bakers-dozen"), 2)
    (boards / "bd-reversed.txt").write_text("\n".join(" ".join(card_str(c) for c in reversed(p)) for p in bd.piles) + "\n")
    (boards / "sa-deal.txt").write_text(format_board(deal_position(find_game("sa"), 1)))
    ordered = deal_position(find_game("ordered-suits"), 1)
    home = {parse_card(c) for c in ("AH", "2H", "AS")}
    ordered.piles = [[c for c in p if c not in home] for p in ordered.piles]
    (boards / "os-two-open.txt").write_text("Foundations: H-2 C-0 D-0 S-A\n" + format_board(ordered, foundations_line=False))
    checker = deal_position(find_game("checkerboard"), 1)
    checker.piles[0].append(next(c for s in range(4) for c in checker.foundation_cards(s)))
    (boards / "checker-none-home.txt").write_text(format_board(checker, foundations_line=False))
    good = (boards / "good.txt").read_text()
    (boards / "bom.txt").write_text("\ufeff" + good, encoding="utf-8")
    (boards / "cr.txt").write_bytes(good.replace("\n", "\r").encode())
    (boards / "crlf.txt").write_bytes(good.replace("\n", "\r\n").encode())
    (boards / "with-folder").mkdir()
    (boards / "with-folder" / "x.txt").mkdir()
    # the third pass: odd TOML types, a file that is a folder or not UTF-8, an empty board, a card missing, a
    # symbolic link that loops, an empty folder
    for name, text in (("deals-text", 'deals = "3"'), ("games-text", 'games = "bc"\ndeals = 3'), ("chunk-zero", "deals = 3\nchunk_size = 0"),
                       ("name-empty", 'name = ""\ndeals = 3'), ("name-false", "name = false\ndeals = 3")):
        (exps / f"{name}.toml").write_text(text + ("" if "games" in text else '\ngames = ["bc"]') + '\nplayers = ["greedy"]\n')
    (exps / "folder.toml").mkdir()
    (exps / "latin1.toml").write_bytes('name = "caf\u00e9"\n'.encode("latin-1"))
    (boards / "empty.txt").write_text("")
    lines = good.splitlines()
    (boards / "missing-card.txt").write_text("\n".join(lines[:-1] + [" ".join(lines[-1].split()[:-1])]) + "\n")
    (root / "loop").symlink_to("loop")
    (root / "empty-folder").mkdir()


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
    (["run", "--game", "bc", "--player", "greedy", "--deal-range", "0:6", "--seed", "4", "--out", "data/small"], "different experiment"),
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
    # castle deals (the catalogue by difficulty)
    (["deals", "sa", "--difficulty", "extreme"], "difficulty 'extreme': expected easy, medium, hard or A:B"),
    (["deals", "sa", "--difficulty", "5:2"], "A:B needs 0 <= A <= B"),
    (["deals", "fortress", "--pysol"], "PySol deals no game numbers for fortress"),
    (["deals", "sa", "--data", "no-such-folder"], "no-such-folder: no such folder"),
    (["deals", "sa", "--count", "0"], "0 is not in the range x>=1"),
    # the command itself
    (["frobnicate"], "No such command"),
    # issue 31, 1: what raised a traceback (a NUL or a newline in a name, Parquet files castle did not write, a part copied
    # beside itself, a move cap numba cannot take)
    (["run", "exps/nul-name.toml", "--out", "data/new"], "experiment name 'x\\x00y' holds a control character"),
    (["run", "exps/newline-name.toml"], "experiment name 'x\\ny' holds a control character"),
    (["run", "exps/nul-out.toml"], "out 'a\\x00b' holds a control character"),
    (["report", "data/foreign", "--out", "reports/foreign"], "data/foreign/p.parquet is not a part castle wrote (no game, player"),
    (["report", "data/castlish", "--out", "reports/castlish"], "is not a part castle wrote (no player_params, seed, moves"),
    (["report", "data/dup", "--out", "reports/dup"], "3 games are held twice, by game=beleaguered-castle/player=greedy/part-0-2-copy.parquet"),
    (["run", "--game", "bc", "--player", "random:max_moves=99999999999999999999", "--deals", "3", "--out", "data/new"],
     "max_moves must be 1 to 1,000,000, got 99999999999999999999"),
    (["run", "--game", "bc", "--player", "random:max_moves=1000001", "--deals", "3", "--out", "data/new"], "max_moves must be 1 to 1,000,000"),
    (["play", "bc", "1", "--max-moves", "99999999999999999999"], "player random: max_moves must be 1 to 1,000,000, got 99999999999999999999"),
    (["play", "bc", "1", "--player", "random:max_moves=1000001"], "player random: max_moves must be 1 to 1,000,000, got 1000001"),
    (["replay", "bc", "1", "--player", "greedy", "--max-moves", "99999999999999999999"], "player greedy: max_moves must be 1 to 1,000,000"),
    (["replay", "bc", "1", "--player", "random:max_moves=99999999999999999999"], "player random: max_moves must be 1 to 1,000,000"),
    # 2: data mixed or deleted silently (a part of another seed, a copy, nested datasets, a reference without perfect play)
    (["run", *SMALL[:4], "--deal-range", "0:9", "--chunk-size", "3", "--out", "data/mixed"],
     f"{PART / 'part-3-5.parquet'} is not a part of this experiment (its rows' seed is 7, this experiment's 0)"),
    (["report", "data/mixed", "--out", "reports/mixed"], "rows of seed 7, which the dataset's manifest does not name"),
    (["run", *SMALL, "--out", "data/dup"], "part-0-2-copy.parquet is not a part of this experiment (castle names its parts"),
    (["run", *SMALL, "--out", "data/overlap"], "part-1-2.parquet is not a part of this experiment (its deals 1-2 overlap those of part-0-2.parquet)"),
    (["report", "data/nest", "--out", "reports/nest"], "data/nest/inner is a dataset of its own inside the dataset data/nest"),
    (["report", "data/small", "--out", "reports/r", "--reference", "data/foreign"], "the reference data/foreign: data/foreign/p.parquet is not a part"),
    (["report", "data/small", "--out", "reports/r", "--reference", "data/greedy-only"],
     "the reference data/greedy-only holds no perfect play of beleaguered-castle (no exact solver rows)"),
    (["report", "data/small", "--out", "reports/r", "--reference", "data/small"], "holds no perfect play of beleaguered-castle (it is the dataset itself)"),
    # 6: boards no deal of their game reaches
    (["solve", "castles-end", "--board", "boards/ce-reserve.txt"], "pile 12 is a reserve dealt 1 card and nothing goes on it, but it holds 2"),
    (["solve", "bakers-dozen", "--board", "boards/bd-reversed.txt"], "the deal puts the Kings at the bottom"),
    (["solve", "bc", "--board", "boards/sa-deal.txt"], "AC AD AH AS on the tableau, but the Aces start on the foundations"),
    (["play", "bc", "--board", "boards/sa-deal.txt"], "no deal of beleaguered-castle can reach this position"),
    # 7: small things
    (["deal", "sa", "-1"], "bad deal '-1': deal numbers run from 0 to 2**63-1"),
    (["solve", "bc", "3", "-12"], "bad deal '-12': deal numbers run from 0 to 2**63-1"),
    (["deal", "sa", "pysol:100000000000000000000"], "PySol game numbers run from 1 to 2**63-1"),
    (["deal", "sa", "\uff11\uff17"], "digits 0-9 only"),
    (["deal", "sa", "1_000"], "digits 0-9 only"),
    (["run", "exps/twice.toml", "--out", "data/new"], "player lookahead: depth given both beside name and in params"),
    (["run", "exps/description.toml", "--out", "data/new"], "description must be a string, got [1, 2]"),
    (["run", "exps/twin-a.toml", "exps/twin-b.toml"],
     "exps/twin-a.toml and exps/twin-b.toml both write to data/twin but are different experiments (they differ in seed)"),
    # 8: twenty more, found in this round
    (["run", "--game", "bc", "--deals", "99999999999999999999", "--out", "data/new"], "--deals must be at most 2**63-2"),  # deals 1 to N: N+1 is a deal number too
    (["run", "--game", "bc", "--player", "solver:budget_nodes=99999999999999999999", "--deals", "2", "--out", "data/new"],
     "budget_nodes = 99999999999999999999 is too large (at most 2**63-1)"),
    (["run", "--game", "bc", "--deal-range", "1_0:20", "--out", "data/new"], "bad deal range '1_0:20'"),
    (["run", "--game", "bc", "--deal-range", "\uff10:\uff15", "--out", "data/new"], "bad deal range"),
    (["run", "exps/padded-name.toml", "--out", "data/new"], "bad experiment name ' padded'"),
    (["run", *SMALL, "--out", "data/x\ny"], "'data/x\\ny': a folder name with a control character ('\\n')"),
    (["report", "data/small", "--out", "reports/a\tb"], "a folder name with a control character ('\\t')"),
    (["report", "data/stray", "--out", "reports/stray"], "data/stray/part-0-2.parquet does not sit where"),
    (["report", "data/typed", "--out", "reports/typed"], "is not a part castle wrote (its column seed holds text, castle's int)"),
    (["report", "data/stranger", "--out", "reports/stranger"], "rows of player random, which the dataset's manifest does not name"),
    (["run", *SMALL, "--out", "data/folder-part"], "part-6-8.parquet is not a part of this experiment (it is not a file)"),
    (["solve", "ordered-suits", "--board", "boards/os-two-open.txt"], "foundations H and S are both part-built, but only one is open"),
    (["show", "checkerboard", "--board", "boards/checker-none-home.txt"], "no card home, but the deal's last card goes to its foundation"),
    (["solve", "bc", "--board", "boards/with-folder"], "boards/with-folder/x.txt: Is a directory"),
    (["show", "sa", "1", "--move", "\uff13-F"], "not a move"),
    (["show", "sa", "1", "--move", "+3-F"], "not a move"),
    (["show", "sa", "1", "--move", "3-+5"], "not a move"),
    (["run", "-5"], "No such option: -5 (a number cannot start with '-' here)"),
    # 9: twenty more again (the third pass); those marked "was:" were not clean before it
    (["run", "exps/deals-text.toml", "--out", "data/new"], "deals must be an integer, got '3'"),
    (["run", "exps/games-text.toml", "--out", "data/new"], "games must be a list of names, got 'bc'"),
    (["run", "exps/chunk-zero.toml", "--out", "data/new"], "chunk size must be positive, got 0"),
    (["run", *SMALL[:4], "--deals", "3", "--chunk-size", "-2", "--out", "data/new"], "chunk size must be positive, got -2"),
    (["run", "exps/name-empty.toml"], "bad experiment name ''"),  # was: played into data/adhoc
    (["run", "exps/name-false.toml", "--out", "data/new"], "bad experiment name False"),
    (["run", "exps/folder.toml", "--out", "data/new"], "'exps/folder.toml' is a directory, not an experiment file"),
    (["run", "exps/latin1.toml", "--out", "data/new"], "'exps/latin1.toml' is not valid TOML: 'utf-8' codec can't decode"),
    (["run", *SMALL[:4], "--deal-range", "0:99999999999999999999", "--out", "data/new"], "deal range 0:99999999999999999999 is outside 0 to 2**63-1"),
    (["run", *SMALL, "--out", "data/small/inner"], "data/small/inner is inside the dataset data/small"),  # was: a nested dataset
    (["run", *SMALL, "--out", "/dev/null"], "output /dev/null exists and is not a directory"),
    (["report", "data/small", "--out", "/dev/null"], "/dev/null exists and is not a castle report"),
    (["report", "loop", "--out", "reports/loop"], "loop: Too many levels of symbolic links"),  # was: RuntimeError
    (["report", "data/small", "--out", "reports/r", "--reference", "loop"], "loop: Too many levels of symbolic links"),
    (["report", "empty-folder", "--out", "reports/empty"], "no results in empty-folder"),
    (["summary", "exps", "--json"], "no results in exps"),
    (["solve", "bc", "--board", "boards/empty.txt"], "boards/empty.txt: expected 8 piles, found 0"),
    (["solve", "bc", "--board", "boards/missing-card.txt"], "does not account for"),
    (["play", "bc", "1", "--player", ""], "unknown player ''"),  # was: played random
    (["play", "bc", "1", "--player", "greedy:depth"], "bad player parameter 'depth' in 'greedy:depth' (expected name=value)"),
    (["replay", "sa", "99999999999999999999", "--player", "greedy"], "bad deal '99999999999999999999'"),
    (["bench", "--max-moves", "99999999999999999999"], "'--max-moves': 99999999999999999999 is not in the range 1<=x<=1000000"),  # was: OverflowError
    (["bench", "--deals", "99999999999999999999"], "'--deals': 99999999999999999999 is not in the range"),
    (["deals", "sa", "--difficulty", "nan:1"], "difficulty 'nan:1': A:B needs 0 <= A <= B in bits"),  # was: 100 deals judged
    (["deals", "sa", "--difficulty", "inf:"], "difficulty 'inf:': A:B needs 0 <= A <= B in bits"),
    (["play", "bc", "1", "2", "--show"], "--show draws one game as text"),  # was: --show ignored without a word
    (["play", "bc", "1", "--show", "--json"], "--show draws one game as text"),
]


def _files(root: Path) -> dict[str, bytes]:
    """Every file's bytes, and every folder (an empty one left behind is something written too)."""
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else b"<folder>"
            for p in sorted(root.rglob("*")) if p.name != "_lock"}


def _args(case) -> list[str]:
    return list(case.values[0] if hasattr(case, "values") else case[0])


@pytest.mark.parametrize("args,message", CASES, ids=[" ".join(_args(c))[:60] for c in CASES])
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


def test_the_second_round_is_in_the_catalogue():
    """Issue 31's cases and the twenty found with them (the cases after ``frobnicate``)."""
    assert len(CASES) - next(i for i, c in enumerate(CASES) if _args(c) == ["frobnicate"]) - 1 >= 45


@pytest.mark.parametrize("name", ["bom.txt", "cr.txt", "crlf.txt"])
def test_a_byte_order_mark_and_any_line_ending_are_read(place, name):
    """A UTF-8 byte-order mark (Windows editors write one) is not part of the board; CRLF and a lone CR end lines."""
    p = subprocess.run(CASTLE + ["show", "bc", "--board", f"boards/{name}"], cwd=place, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("<svg"), p.stderr


def test_standard_input_that_is_not_utf8_is_one_line(place):
    p = subprocess.run(CASTLE + ["solve", "bc", "--board", "-"], cwd=place, capture_output=True, input=b"\xff\xfe7H 8C\n", timeout=60)
    assert p.returncode == 2 and p.stderr.decode().strip() == "castle: standard input: not board text (it is not UTF-8 text)"


def test_a_folder_name_the_locale_cannot_spell_is_refused_before_anything_is_written(place):
    """``LC_ALL=C`` keeps ``ünï`` as undecodable bytes, which pyarrow refuses half way through a run: refused first."""
    import os

    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    before = _files(place)
    for args in (["run", *SMALL, "--out", "data/\u00fcn\u00ef"], ["report", "data/\u00fcn\u00ef", "--out", "reports/x"]):
        p = subprocess.run(CASTLE + args, cwd=place, capture_output=True, env=env, timeout=120)
        lines = p.stderr.decode("utf-8", "replace").strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1 and "this locale cannot spell the folder's name" in lines[0], p.stderr
    assert _files(place) == before


def test_the_python_api_raises_its_own_errors():
    """Wrong types given to the API raise its errors (each a ValueError or KeyError the command line reports as
    one line), never AttributeError or TypeError, and never a move played from a float or a bool."""
    from sim.core.board import BoardError
    from sim.core.deals import DealError
    from sim.game import Game
    from sim.core.moves import Move, MoveError
    from sim.core.rules import UnknownGameError

    game = Game("bc")
    state = game.deal(1)
    for call, error in (
        (lambda: Game(None), UnknownGameError), (lambda: Game(5), UnknownGameError),
        (lambda: game.from_board(None), BoardError), (lambda: game.from_board(b"AH"), BoardError),
        (lambda: state.push(None), MoveError), (lambda: state.push(1.5), MoveError), (lambda: state.push(True), MoveError),
        (lambda: state.push([1]), MoveError), (lambda: Move(1.5, 2), MoveError), (lambda: Move.from_str(None), MoveError),
        (lambda: Move.from_str("\uff13-F"), MoveError), (lambda: game.deal(None), DealError), (lambda: game.deal(1.5), DealError),
        (lambda: game.deal(True), DealError), (lambda: game.deal(1, seed="x"), DealError), (lambda: game.deal(1, seed=None), DealError),
        (lambda: game.deal("1_000"), DealError), (lambda: game.deal("+5"), DealError),
    ):
        with pytest.raises(error):
            call()
    assert state.move_stack == []
    import numpy as np

    state.push(np.int64(next(iter(state.legal_moves)).action))  # a NumPy integer is a whole number
    assert len(state.move_stack) == 1


def test_impossible_positions_are_refused_but_every_position_of_play_is_not():
    """The test of a board against its game (``why_impossible``) passes every deal of every game and dialect, and
    every position random play reaches from them; each kind of impossible board fails it."""
    import random

    from sim.game import Game, why_impossible
    from sim.core.rules import GAMES, dialects_of, with_dialect

    rng = random.Random(31)
    for rules in GAMES:
        for r in [rules] + [with_dialect(rules, d) for d in dialects_of(rules)]:
            game = Game(r)
            for deal in range(6):
                state = game.deal(deal, seed=deal % 2)
                for _ in range(120):
                    assert why_impossible(r, state.position()) is None, (r.full_slug, deal, state.board_text())
                    moves = list(state.legal_moves)
                    if not moves:
                        break
                    state.push(rng.choice(moves))


# issue 50, part A: model files of castle explain checked whole, every file read bounded (and as UTF-8)

#: a cap on the command's address space: a reader that is not bounded fails here with a MemoryError, not the machine
MEMORY_CAP = 4 << 30


def _capped():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _model_text(game: str) -> dict:
    import gzip
    import json

    from sim.explain import model as explain_model

    return json.loads(gzip.decompress(explain_model.model_path(game).read_bytes()))


def _write_model(path: Path, d: dict) -> None:
    import gzip
    import json

    path.write_bytes(gzip.compress(json.dumps(d).encode()))


@pytest.fixture(scope="module")
def models(place) -> Path:
    """Model files damaged as the issue found them, beside the shipped ones' own fields."""
    import re

    folder = place / "models"
    folder.mkdir(exist_ok=True)
    bc, constant = _model_text("beleaguered-castle"), _model_text("castles-end")
    text = bc["booster_text"]
    for name, change in (("split", {"booster_text": re.sub(r"split_feature=\d+", "split_feature=999999", text, count=1)}),
                         ("garbage", {"booster_text": "garbage"}), ("empty", {"booster_text": ""}),
                         ("four", {"booster_text": text.replace("max_feature_idx=37", "max_feature_idx=3")}),
                         ("cal1", {"calibration": [1.0]}), ("calab", {"calibration": "ab"}), ("colnull", {"columns": None}),
                         ("col5", {"columns": bc["columns"][:5]}), ("certnull", {"certain_from": None}),
                         ("cal-nan", {"calibration": [float("nan"), 1.0]}), ("cal-flat", {"calibration": [2.0, 0.0]}),
                         ("loop", {"booster_text": text.replace("left_child=1 2 -1 -3 -2 -4", "left_child=1 0 -1 -3 -2 -4", 1)})):
        _write_model(folder / f"bc-{name}.json.gz", {**bc, **change})
    for name, rate in (("high", "high"), ("big", 7.5), ("nan", float("nan"))):
        _write_model(folder / f"ce-{name}.json.gz", {**constant, "base_rate": rate})
    return folder


MODEL_CASES = [
    ("bc-split", "booster_text: tree 0: a split on feature 999999, the model reads 38 columns"),  # was: segmentation fault
    ("bc-garbage", "booster_text: it does not start with the line 'tree'"),  # was: LightGBMError traceback
    ("bc-empty", "booster_text: empty"),
    ("bc-four", "booster_text: 4 features, the model reads 38 columns"),
    ("bc-cal1", "calibration must be two numbers (Platt's a and b), got [1.0]"),  # was: ValueError traceback
    ("bc-calab", "calibration must be two numbers (Platt's a and b), got 'ab'"),
    ("bc-colnull", "columns must be a list of names, got None"),  # was: TypeError traceback
    ("bc-col5", "booster_text: 38 features, the model reads 5 columns"),  # was: LightGBMError traceback
    ("bc-certnull", "certain_from must be a list of names, got None"),
    ("bc-cal-nan", "calibration must be a number from -1000 to 1000, got nan"),  # was: "nan% winnable"
    ("bc-cal-flat", "calibration's b is 0.0: a higher score must give a higher probability"),
    ("bc-loop", "booster_text: tree 0: node 1's child 0 is reached twice"),
    ("ce-high", "base_rate must be a number from 0 to 1, got 'high'"),  # was: DTypePromotionError traceback
    ("ce-big", "base_rate must be a number from 0 to 1, got 7.5"),  # was: "100% winnable"
    ("ce-nan", "base_rate must be a number from 0 to 1, got nan"),
]


@pytest.mark.parametrize("name,message", MODEL_CASES, ids=[c[0] for c in MODEL_CASES])
def test_a_damaged_model_file_is_one_line_naming_it(place, models, name, message):
    game = "bc" if name.startswith("bc") else "castles-end"
    before = _files(place)
    p = subprocess.run(CASTLE + ["explain", game, "3", "--model", f"models/{name}.json.gz"], cwd=place, capture_output=True,
                       text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert lines == [f"castle: models/{name}.json.gz: {message}"] or (len(lines) == 1 and message in lines[0]), p.stderr
    assert _files(place) == before


ZERO_CASES = [
    (["explain", "bc", "3", "--model", "/dev/zero"], None, "/dev/zero: larger than a model file may be (4 MiB)"),
    (["explain", "bc", "3", "--rating-model", "/dev/zero"], None, "/dev/zero: larger than a model file may be (4 MiB)"),
    (["solve", "bc", "--board", "/dev/zero"], None, "/dev/zero: larger than a board file may be (64 KiB)"),
    (["show", "bc", "--board", "/dev/zero"], None, "/dev/zero: larger than a board file may be (64 KiB)"),
    (["explain", "bc", "--board", "/dev/zero"], None, "/dev/zero: larger than a board file may be (64 KiB)"),
    (["play", "bc", "3", "--moves", "/dev/zero"], None, "/dev/zero: larger than a move list may be (1 MiB)"),
    (["replay", "bc", "3", "--moves", "/dev/zero"], None, "/dev/zero: larger than a move list may be (1 MiB)"),
    (["run", "/dev/zero", "--out", "data/new"], None, "cannot read '/dev/zero': larger than an experiment file may be (1 MiB)"),
    (["solve", "bc", "--board", "-"], "/dev/zero", "standard input: larger than a list of boards may be (4 MiB)"),
    (["play", "bc", "3", "--moves", "-"], "/dev/zero", "standard input: larger than a move list may be (1 MiB)"),
    (["replay", "bc", "3", "--moves", "-"], "/dev/zero", "standard input: larger than a move list may be (1 MiB)"),
]


@pytest.mark.parametrize("args,stdin,message", ZERO_CASES, ids=[" ".join(c[0]) for c in ZERO_CASES])
def test_a_file_without_end_is_one_line_and_takes_no_memory(place, args, stdin, message):
    """``/dev/zero`` (its size is 0, it never ends) as every kind of file castle reads whole, under a cap on memory."""
    before = _files(place)
    with open(stdin or "/dev/null", "rb") as source:
        p = subprocess.run(CASTLE + args, cwd=place, capture_output=True, text=True, timeout=120, stdin=source,
                           preexec_fn=_capped)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert p.stderr.strip().splitlines() == [f"castle: {message}"], p.stderr
    assert _files(place) == before


def test_a_model_that_expands_past_its_limit_is_one_line(place, tmp_path):
    """A small gzip file (16 KiB) that expands to 17 MiB: bounded as it expands, not after."""
    import gzip

    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b" " * (17 << 20)))
    assert bomb.stat().st_size < 64 << 10
    p = subprocess.run(CASTLE + ["explain", "bc", "3", "--model", str(bomb)], capture_output=True, text=True, timeout=120,
                       preexec_fn=_capped)
    assert p.returncode == 2 and p.stderr.strip() == f"castle: {bomb}: expands to more than a model file may hold (16 MiB)", p.stderr


def test_a_utf8_move_list_is_read_as_utf8_whatever_the_locale(place, tmp_path):
    """``LC_ALL=C`` called a move list with an accented comment "not UTF-8"; a list is UTF-8 text, whatever the locale."""
    import os

    moves = tmp_path / "moves.txt"
    moves.write_text("# café – the first move\n1-7\n", encoding="utf-8")
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    p = subprocess.run(CASTLE + ["play", "bc", "3", "--moves", str(moves)], capture_output=True, env=env, timeout=120)
    assert p.returncode == 0 and p.stdout.decode().splitlines()[-1].startswith("gave_up after 1 moves"), p.stderr


#: the modules that read a file whole without the bounded reader (sim/core/files.py), and why each is safe
UNBOUNDED_READS_ALLOWED = {
    ("sim/kernels/__init__.py", "read_bytes"): "the package's own kernel sources, hashed to guard numba's cache",
    ("sim/kernels/__init__.py", "read_text"): "the cache stamp the package wrote itself (a digest)",
    ("sim/explain/features.py", "read_text"): "the package's own kernel source, hashed into the features' digest",
    ("sim/study/dataset.py", "open"): "os.open of the run's lock file: held, never read",
    ("analysis/readme.py", "read_text"): "the checkout's own README.md (make figures), not a user's file",
    ("sim/cli/__init__.py", "open"): "/dev/null opened on a closed standard stream and wrapped as sys.stdin (read through "
                                     "the bounded reader like any standard input)",
}
#: calls that read a file (or a stream) whole, or open one to read it
READERS = {"read_text", "read_bytes", "open", "load", "decompress", "readlines"}


def _unbounded_reads() -> set[tuple[str, str]]:
    """``(module, call)`` of every call in sim/ and analysis/ that reads a file whole, other than the bounded reader's."""
    import ast

    root = Path(__file__).resolve().parents[1]
    found = set()
    for path in sorted(root.glob("sim/**/*.py")) + sorted(root.glob("analysis/**/*.py")):
        name = str(path.relative_to(root))
        if name == "sim/core/files.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            call = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
            if owner == "files":  # the bounded reader itself (sim.core.files)
                continue
            if call in READERS and not (call == "load" and owner not in ("json", "tomllib", "pickle", "np", "numpy")):
                found.add((name, call))
            elif call == "read" and not node.args:  # stream.read(): to the end, however far
                found.add((name, "read"))
    return found


def test_every_file_castle_reads_whole_goes_through_the_bounded_reader():
    """No module reads a file whole past sim/core/files.py, except those listed with why each is safe."""
    found = _unbounded_reads()
    assert found - set(UNBOUNDED_READS_ALLOWED) == set(), "read through sim.core.files (with a limit) instead"
    assert set(UNBOUNDED_READS_ALLOWED) - found == set(), "an allowed exception no longer exists: take it off the list"


def test_every_model_is_validated_whole(tmp_path):
    """Each field of a booster model and of a constant model, and each line of a booster's text, mutated several ways:
    every mutation is refused with one line (a ModelError naming the file), or the model still gives probabilities in
    [0, 1] and finite pushes; never another exception, never a crash (run in a process of its own: a segmentation
    fault fails the test rather than ending the session)."""
    script = (Path(__file__).parent / "model_fuzz.py").resolve()
    p = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, (p.returncode, p.stdout[-2000:], p.stderr[-4000:])
    refused, served = map(int, p.stdout.split())
    assert refused >= 300 and served >= 20, p.stdout


def test_explain_never_gives_a_probability_outside_0_to_1():
    """Whatever reaches a model past the checks of its file (one made in Python), a probability outside [0, 1] or not
    finite is refused with one line, never shown as "100%" or "nan%"."""
    from sim.explain import model as explain_model
    from sim.explain.reasons import explain
    from sim.game import Game

    g = Game("castles-end")
    for rate in (7.5, float("nan"), -0.1):
        model = explain_model.read(explain_model.model_path("castles-end"))
        model.base_rate = rate
        model.certain_from = []  # no probe's win hides the model's probability
        with pytest.raises(explain_model.ModelError, match=r"sim/explain/models/castles-end.json.gz: gives a probability of .*, outside \[0, 1\]"):
            explain(g, [g.deal(3)], model)


# issue 50, part B: values a file holds (rows, manifests, designs, catalogues) never trusted, runs to a half-width checked
# before the pilot, closed standard streams, long error lines, options without the option they go with

import json  # noqa: E402

HW = ["run", "--game", "bc", "--deal-range", "100:1000", "--pilot", "100", "--settle", "none"]  #: the run hw/ was planned for


@pytest.fixture(scope="module")
def place_b(place) -> Path:
    """``place`` with datasets whose values, manifests or designs are damaged, catalogues with impossible values, a part
    that is a FIFO, a folder planned to ±30 points, and a board holding a token of 60,000 characters (under a board
    file's bound)."""
    import os
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    from synthetic import write_dataset

    data, small = place / "data", place / "data" / "small"

    def doctored(name: str, column: str, value, rows=slice(None), part: str = "part-0-2.parquet") -> Path:
        shutil.copytree(small, data / name)
        path = data / name / PART / part
        table = pq.read_table(path)
        values = table.column(column).to_pylist()
        values[rows] = [value] * len(values[rows])
        table = table.set_column(table.schema.get_field_index(column), column, pa.array(values, table.schema.field(column).type))
        pq.write_table(table, path)
        return data / name

    doctored("banana", "result", "banana", slice(1, 2))
    doctored("nulls", "result", None)
    doctored("negative-cpu", "cpu_us", -20_000_000_000_000)
    doctored("deal-beyond", "deal", 1_000_000, slice(2, 3))
    for name, change in (("deep-manifest", None), ("text-range", ("deal_range", "0:60")), ("runs-oops", ("runs", "oops"))):
        shutil.copytree(small, data / name)
        manifest = json.loads((small / "_manifest.json").read_text())
        if change is None:
            text = '{"experiment": ' + "[" * 100_000 + "]" * 100_000 + "}"
        else:
            (manifest["experiment"] if change[0] == "deal_range" else manifest)[change[0]] = change[1]
            text = json.dumps(manifest)
        (data / name / "_manifest.json").write_text(text)
    shutil.copytree(small, data / "fifo")
    os.mkfifo(data / "fifo" / PART / "part-6-8.parquet")
    shutil.copytree(small, data / "no-rows")
    for part in (data / "no-rows").rglob("part-*.parquet"):
        pq.write_table(pq.read_table(part).slice(0, 0), part)
    # catalogues of the deals' difficulty whose values no corridor writes
    for name, column, value in (("cat-inf", "difficulty", float("inf")), ("cat-negative", "difficulty", -50.0),
                                ("cat-null", "decisions", None)):
        root = write_dataset(place / name, deals=12, games=("streets-and-alleys",), players=(), solver=False, judged=True)
        part = next(root.glob("game=*/player=corridor/*.parquet"))
        table = pq.read_table(part)
        won = table.column("result").to_pylist().index("won")
        values = table.column(column).to_pylist()
        values[won] = value
        table = table.set_column(table.schema.get_field_index(column), column, pa.array(values, table.schema.field(column).type))
        pq.write_table(table, part)
    design = {"game": "beleaguered-castle", "halfwidth": 30.0, "rate": 1.0, "rate2": 1.0, "deals": 14, "first": 200,
              "per_deal_variance": 0.24, "cpu_per_deal": 0.05, "predicted_cpu_hours": 0.0002, "settle": "", "solved_again": 0.0,
              "unknown": 0.07}
    for name, text in (("hw", json.dumps({"experiment": "adhoc", "cpu_hours": None, "designs": [design]})),
                       ("hw-bad", json.dumps({"experiment": "adhoc", "cpu_hours": None, "designs": [{**design, "first": "200"}]})),
                       ("hw-deep", '{"designs": ' + "[" * 100_000 + "]" * 100_000 + "}")):
        (place / name).mkdir()
        (place / name / "_design.json").write_text(text)
    good = (place / "boards" / "good.txt").read_text().splitlines()
    (place / "boards" / "huge-token.txt").write_text("\n".join([good[0], good[1] + " " + "Z" * 60_000] + good[2:]) + "\n")
    (place / "huge-move.txt").write_text("Z" * 60_000 + " 3-7\n")
    (place / "huge-key.toml").write_text('name = "x"\ngames = ["bc"]\n' + "k" * 60_000 + " = 1\n")
    (place / "foreign").mkdir()
    (place / "foreign" / "notes.txt").write_text("mine")
    return place


CASES_B = [
    # values no column can hold, rows the manifest did not play: summary and report said 17.5% for 29.2%, or -5,555,555.56 CPU-hours
    (["summary", "data/banana"], 'part-0-2.parquet: column result holds "banana" in row 2 (allowed: won, lost or unknown'),
    (["report", "data/banana", "--out", "reports/banana"], 'column result holds "banana"'),
    (["summary", "data/nulls"], "column result holds null in row 1"),
    (["summary", "data/negative-cpu", "--json"], "column cpu_us holds -20000000000000 in row 1 (allowed: a whole number from 0"),
    (["summary", "data/deal-beyond"], "column deal holds 1000000 in row 3 (allowed: 0 to 5, the manifest's deal range)"),
    (["deals", "sa", "--data", "cat-inf", "--json"], "column difficulty holds Infinity"),
    (["deals", "sa", "--data", "cat-negative"], "column difficulty holds -50.0"),
    (["deals", "sa", "--data", "cat-null"], "column decisions holds null"),  # was: a traceback
    (["summary", "data/no-rows"], "part-0-2.parquet holds no rows: castle never writes an empty part"),  # was: "none of its runs is a design"
    (["summary", "data/fifo"], "part-6-8.parquet is named as a Parquet part but is not a file (a FIFO)"),  # was: waited for ever
    # manifests damaged by hand: RecursionError, "too many values to unpack", AttributeError
    (["summary", "data/deep-manifest"], "data/deep-manifest/_manifest.json is not a readable manifest (nested too deep)"),
    (["report", "data/deep-manifest", "--out", "reports/deep"], "is not a readable manifest (nested too deep)"),
    (["run", *SMALL, "--out", "data/deep-manifest"], "data/deep-manifest/_manifest.json is unreadable (nested too deep)"),
    (["deals", "bc", "--data", "data/deep-manifest"], "is not a readable manifest (nested too deep)"),
    (["report", "data/text-range", "--out", "reports/text"], "is not a readable manifest (its experiment's deal_range is \"0:60\")"),
    (["run", *SMALL, "--out", "data/text-range"], "is unreadable (its experiment's deal_range is \"0:60\")"),
    (["summary", "data/runs-oops"], "is not a readable manifest (its runs is \"oops\")"),
    (["run", *SMALL, "--out", "data/runs-oops"], "is unreadable (its runs is \"oops\")"),
    # a run to a half-width: checked whole before its pilot, held to its design on a rerun
    ([*HW, "--halfwidth", "28", "--out", "hw"], "hw was planned for ±30 points (its _design.json), not ±28: ask --halfwidth 30 "
                                                "to resume it, or choose another --out for a new plan"),
    ([*HW, "--game", "sa", "--halfwidth", "30", "--out", "hw"], "hw's design plans beleaguered-castle; streets-and-alleys is not in it"),
    ([*HW[:-4], "--pilot", "200", "--settle", "none", "--halfwidth", "30", "--out", "hw"], "planned after a pilot ending at deal 199"),
    ([*HW[:-2], "--settle", "settle", "--halfwidth", "30", "--out", "hw"], "planned to solve its unknowns again with none"),
    ([*HW, "--halfwidth", "5", "--out", "data/small"], "data/small holds a dataset (its _manifest.json): a run to a half-width writes a folder of its own"),
    ([*HW, "--halfwidth", "1e-300", "--out", "data/new"], "--halfwidth must be from 0.01 to 50 points"),  # was: OverflowError after the pilot
    ([*HW, "--halfwidth", "nan", "--out", "data/new"], "--halfwidth must be from 0.01 to 50 points"),
    (["run", "--game", "bc", "--halfwidth", "5", "--pilot", "99999999999999999999", "--out", "data/new"],
     "--pilot must be 100 to 1,000,000 deals, got 99999999999999999999"),  # was: played until killed
    (["run", "--game", "bc", "--halfwidth", "5", "--deal-range", "9223372036854775000:9223372036854775807", "--out", "data/new"],
     "run past the last deal number (2**63-1): start --deal-range lower"),
    ([*HW, "--halfwidth", "30", "--out", "hw-bad"], "hw-bad/_design.json is not a readable design (design 1: its first is \"200\")"),
    ([*HW, "--halfwidth", "30", "--out", "hw-deep"], "hw-deep/_design.json is not a readable design (nested too deep)"),
    (["run", "--game", "bc", "--unknowns-of", "data/small", "--out", "data/new"],
     "--unknowns-of: 'data/small' holds no exact run (solver, settle, phased) of beleaguered-castle"),  # was: "0 games played", exit 0
    # small things
    (["explain", "sa", "1", "--budget-seconds", "-1"], "--budget-seconds bounds the solver's CPU a deal: it goes with --solve"),
    (["explain", "sa", "1", "--solve", "--budget-seconds", "-1"], "--budget-seconds must be more than 0"),
    (["solve", "bc", "--board", "boards/huge-token.txt"], "characters more)"),  # was: the token echoed whole
    (["play", "bc", "1", "--moves", "huge-move.txt"], "characters more)"),
    (["run", "huge-key.toml", "--out", "data/new"], "characters more)"),
    # every reader refuses a FIFO named as a part, not only summary's
    (["report", "data/fifo", "--out", "reports/fifo"], "part-6-8.parquet is named as a Parquet part but is not a file (a FIFO)"),
    (["deals", "bc", "--data", "data/fifo"], "part-6-8.parquet is named as a Parquet part but is not a file (a FIFO)"),
    # deals by tier: a tier that is not one, two measures at once, PySol's numbers where none is rated
    (["deals", "sa", "--tier", "impossible", "--data", "data/small"], "no tier 'impossible': give one of very-easy, easy, medium, hard, very-hard"),
    (["deals", "sa", "--tier", "hard", "--difficulty", "hard"], "--tier and --difficulty pick by different measures"),
    (["deals", "sa", "--tier", "hard", "--pysol", "--data", "data/small"], "no PySol number of Streets and Alleys in the catalogue is won and Hard"),
    # the PySol catalogue's export
    (["deals", "fortress", "--export", "pysol"], "PySol deals no game numbers for fortress"),
    (["deals", "sa", "--export", "csv"], "--export csv: the one form is pysol"),
    (["deals", "sa", "--export", "pysol", "--winnable"], "give it without --winnable, --difficulty and --tier"),
    (["deals", "sa", "--export", "pysol", "--data", "data/none"], "--data data/none: no such folder"),
    (["deals", "sa", "--export", "pysol", "--data", "data/small", "--out", "foreign/notes.txt"], "--out foreign/notes.txt: not a folder"),
    (["deals", "sa", "--tier", "hard", "--data", "data/small"], "holds no ladder of Streets and Alleys"),
    (["rate", "greedy", "--game", "sa", "--deals", "40", "--data", "data/small"], "holds no ladder of Streets and Alleys"),
    # a folder castle did not write is never written into: a run to a half-width refuses it
    ([*HW, "--halfwidth", "30", "--out", "foreign"], "is not empty and holds no run to a half-width (notes.txt is not one's)"),
]


@pytest.mark.parametrize("args,message", CASES_B, ids=[" ".join(_args(c))[:60] for c in CASES_B])
def test_bad_input_b_is_one_line_exit_2_and_writes_nothing(place_b, args, message):
    before = _files(place_b)
    p = subprocess.run(CASTLE + args, cwd=place_b, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and len(lines[0]) < 1100, p.stderr[:2000]
    assert "Traceback" not in p.stderr
    assert _files(place_b) == before


def _closed(fd: int):
    """A ``preexec_fn`` that closes standard stream ``fd`` in the child, as ``>&-`` (1), ``2>&-`` or ``<&-`` do."""
    import os

    return lambda: os.close(fd)


@pytest.mark.parametrize("args", [["deals", "sa", "--count", "1"], ["explain", "sa", "1"], ["play", "bc", "1"],
                                  ["solve", "bc", "1", "--budget-nodes", "1000"], ["show", "bc", "1"], ["summary", "data/small"],
                                  ["--version"]], ids=lambda a: a[0])
def test_a_command_that_prints_refuses_a_closed_standard_output_before_working(place, args):
    """``>&-``: an AttributeError ('NoneType' object has no attribute 'flush') and exit 1 before; now one line, exit 2."""
    before = _files(place)
    p = subprocess.run(CASTLE + args, cwd=place, stderr=subprocess.PIPE, text=True, timeout=120, preexec_fn=_closed(1))
    assert p.returncode == 2 and p.stderr.strip() == ("castle: standard output is closed: nothing to print to (give the "
                                                      "command an output: > FILE, or > /dev/null to discard it)"), p.stderr
    assert _files(place) == before


def test_commands_that_write_files_do_their_work_with_standard_output_closed(place, tmp_path):
    """``run``, ``report``, ``replay`` and ``show --out`` write their files (what they would print is discarded)."""
    from tests.synthetic import write_dataset

    reference = write_dataset(tmp_path / "reference", deals=20, games=("beleaguered-castle",), players=(), solver=True)
    for args, made in ((["run", *SMALL[:4], "--deals", "4", "--no-progress", "--out", str(tmp_path / "d")], tmp_path / "d" / "_manifest.json"),
                       (["report", str(tmp_path / "d"), "--out", str(tmp_path / "r"), "--no-replays", "--reference", str(reference)],
                        tmp_path / "r" / "index.html"),  # (a small reference: not the shipped study's 1.4M rows)
                       (["show", "bc", "1", "--out", str(tmp_path / "b.svg")], tmp_path / "b.svg"),
                       (["replay", "bc", "1", "--player", "greedy", "--out", str(tmp_path / "g.html")], tmp_path / "g.html")):
        p = subprocess.run(CASTLE + args, cwd=place, stderr=subprocess.PIPE, text=True, timeout=300, preexec_fn=_closed(1))
        assert p.returncode == 0 and made.is_file(), p.stderr


def test_with_standard_error_closed_a_run_plays_and_bad_input_still_exits_2(place, tmp_path):
    """``2>&-``: ``run`` played nothing but left a _manifest.json and a _lock, ``solve`` printed nothing (exit 1)."""
    out = tmp_path / "d"
    p = subprocess.run(CASTLE + ["run", *SMALL, "--out", str(out)], cwd=place, capture_output=True, text=True, timeout=300,
                       preexec_fn=_closed(2))
    assert p.returncode == 0 and len(list(out.rglob("part-*.parquet"))) == 2, p.stdout
    p = subprocess.run(CASTLE + ["solve", "bc", "1", "--budget-nodes", "1000", "--json"], cwd=place, stdout=subprocess.PIPE,
                       text=True, timeout=120, preexec_fn=_closed(2))
    assert p.returncode == 0 and json.loads(p.stdout)["result"] == "lost", p.stdout  # (proved within 1,000 positions)
    bad = subprocess.run(CASTLE + ["solve", "bc", "1", "--budget-nodes", "0"], cwd=place, stdout=subprocess.PIPE, timeout=120,
                         preexec_fn=_closed(2))
    assert bad.returncode == 2 and bad.stdout == b""


@pytest.mark.parametrize("args", [["solve", "bc", "--board", "-"], ["play", "bc", "1", "--moves", "-"]], ids=lambda a: a[0])
def test_a_closed_standard_input_read_as_dash_is_one_line(place, args):
    p = subprocess.run(CASTLE + args, cwd=place, capture_output=True, text=True, timeout=120, preexec_fn=_closed(0))
    assert p.returncode == 2 and p.stderr.strip() == ("castle: standard input is closed: nothing to read '-' from (pipe the "
                                                      "board or the moves in, or give a file)"), p.stderr


def test_a_bad_duckdb_memory_setting_is_one_line(place):
    import os

    for value in ("lots", "100", "10KB"):
        p = subprocess.run(CASTLE + ["summary", "data/small"], cwd=place, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "CASTLE_DUCKDB_MEMORY": value})
        assert p.returncode == 2 and p.stderr.startswith(f"castle: CASTLE_DUCKDB_MEMORY={value!r} is not a memory size"), p.stderr
        assert len(p.stderr.strip().splitlines()) == 1
    ok = subprocess.run(CASTLE + ["summary", "data/small"], cwd=place, capture_output=True, text=True, timeout=120,
                        env={**os.environ, "CASTLE_DUCKDB_MEMORY": "64MB"})
    assert ok.returncode == 0, ok.stderr


def test_every_json_line_castle_prints_is_strict(place):
    """``--json`` printed NaN and Infinity, which are not JSON: a number that is not finite is null."""
    from analysis.designs import Estimate
    from sim.core.jsontext import dumps

    def strict(text: str):
        return json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in {text}"))

    assert strict(dumps({"a": float("nan"), "b": [float("inf"), -float("inf")], "c": 1.5})) == {"a": None, "b": [None, None], "c": 1.5}
    fields = {f: 0 for f in Estimate.__dataclass_fields__} | {"game": "g", "player": "p", "design": "plain",
                                                              "estimate": float("nan"), "lo": float("nan"), "hi": float("inf")}
    assert strict(Estimate(**fields).to_json())["estimate"] is None
    for args in (["summary", "data/small", "--json"], ["play", "bc", "1", "2", "--json"], ["deal", "bc", "1", "--format", "json"]):
        p = subprocess.run(CASTLE + args, cwd=place, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and all(strict(line) for line in p.stdout.splitlines()), p.stderr


def test_the_run_a_folder_was_planned_for_passes_its_checks(place_b):
    """The checks refuse only what differs from the design: the rerun asking what hw/ was planned for (its settle player
    given or not) passes them, and would resume."""
    from sim.precision.folder import check_request
    from sim.study.experiment import build

    exp = build({}, games=["bc"], players=["phased"], deal_range="100:1000")
    for settle, given in (("none", True), ("settle", False)):
        check_request(exp, place_b / "hw", 30.0, None, 100, settle, given)


def test_a_rerun_that_finds_every_unknown_solved_says_there_is_nothing_to_play(place, tmp_path):
    """``--unknowns-of`` a folder whose exact runs left no deal unknown: exit 0, one line, nothing written (it said
    "0 games played" and left a manifest)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from synthetic import write_dataset

    solved = write_dataset(tmp_path / "solved", deals=12, games=("beleaguered-castle",), players=())
    for part in solved.rglob("part-*.parquet"):
        table = pq.read_table(part)
        result = [r if r != "unknown" else "lost" for r in table.column("result").to_pylist()]
        pq.write_table(table.set_column(table.schema.get_field_index("result"), "result", pa.array(result)), part)
    p = subprocess.run(CASTLE + ["run", "--game", "bc", "--unknowns-of", str(solved), "--out", str(tmp_path / "new")], cwd=place,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stderr.startswith("castle run: nothing to play: the exact runs of"), p.stderr
    assert not (tmp_path / "new").exists() and p.stdout == ""


def test_a_plugin_player_named_in_capitals_is_listed_and_chosen_by_one_name(tmp_path):
    """A plug-in registered as ``MixedCase`` was listed by ``castle players`` and unknown to ``--player MixedCase``."""
    import os

    (tmp_path / "castle_mixed.py").write_text("class Mixed:\n    \"\"\"The first legal move.\"\"\"\n    def __init__(self, seed=0, deal=0):\n"
                                              "        pass\n    def choose(self, state):\n        moves = list(state.legal_moves)\n"
                                              "        return moves[0] if moves else None\n")
    dist = tmp_path / "castle_mixed-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: castle-mixed\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[castle.players]\nMixedCase = castle_mixed:Mixed\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    listing = subprocess.run(CASTLE + ["players"], capture_output=True, text=True, env=env, timeout=120).stdout
    assert "mixedcase" in listing.split() and "MixedCase" not in listing
    for name in ("MixedCase", "mixedcase"):
        p = subprocess.run(CASTLE + ["play", "bc", "1", "--player", name, "--json"], capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode == 0 and json.loads(p.stdout)["player"] == "mixedcase", p.stderr
