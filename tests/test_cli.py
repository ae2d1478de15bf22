"""The ``castle`` command as a user meets it: output, and one-line errors with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sim.core.board import parse_board


def castle(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from sim.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_command_module_registers_its_commands():
    """A command group is a module of ``sim.cli`` named in ``COMMAND_MODULES``: its commands are in the help."""
    import importlib

    from sim.cli import COMMAND_MODULES, COMMANDS

    helptext = castle("--help").stdout
    named = {}
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"sim.cli.{name}")
        import typer

        app = typer.Typer()
        module.register(app)
        for command in app.registered_commands:
            assert command.name in helptext, (name, command.name)
            named[command.name] = name
    assert named == COMMANDS  # (a call loads only its command's module: COMMANDS says which)


def test_a_command_loads_only_its_own_module():
    """``castle solve`` reads neither the report's code nor pandas, DuckDB, PyArrow or rich."""
    probe = ("import sys; from sim.cli import main\n"
             "try:\n    main(['solve', 'beleaguered-castle', '--help'])\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in ('sim.cli.run', 'sim.cli.play', 'pandas', 'duckdb', 'pyarrow', 'rich', 'scipy') "
             "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_help_says_where_default_folders_go():
    """Default folders are relative to the folder castle runs in, and the help of run and report says so."""
    for command in ("run", "report"):
        text = " ".join(castle(command, "--help").stdout.split())
        assert "relative to here" in text, command


def test_version():
    out = castle("--version")
    assert out.returncode == 0 and out.stdout.startswith("castle ")


def test_games_lists_the_slugs():
    out = castle("games")
    assert out.returncode == 0
    slugs = [line.split()[0] for line in out.stdout.splitlines()]
    assert {"selective-castle", "streets-and-alleys", "beleaguered-castle"} <= set(slugs)


def test_deal_prints_board_text_that_round_trips():
    out = castle("deal", "streets-and-alleys", "pysol:1080")
    assert out.returncode == 0
    assert out.stdout.splitlines()[0] == "8D 5C KS KC 2C 7C AS"
    assert len(parse_board(out.stdout, 8, default_base=0).piles) == 8


def test_deal_json():
    out = castle("deal", "bc", "5", "--seed", "9", "--format", "json")
    data = json.loads(out.stdout)
    assert data["game"] == "beleaguered-castle" and len(data["piles"]) == 8
    assert data["foundations"] == {"C": 1, "D": 1, "H": 1, "S": 1}


def test_play_random_prints_moves_and_result():
    out = castle("play", "selective-castle", "3", "--player", "random", "--max-moves", "40", "--show")
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1]
    assert any(last.startswith(r) for r in ("won", "stuck", "gave_up"))


@pytest.mark.parametrize(
    "args, message",
    [
        (["deal", "klondike", "1"], "unknown game"),
        (["deal", "sa", "abc"], "bad deal"),
        (["deal", "sa", "pysol:0"], "PySol game numbers start at 1"),
        (["play", "sa", "1", "--player", "nobody"], "unknown player"),
        (["deal"], "Missing argument"),
        (["frobnicate"], "No such command"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    out = castle(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], out.stderr
    assert "Traceback" not in out.stderr
