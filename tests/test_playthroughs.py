"""The golden playthroughs (tests/golden/playthroughs/): each game's fixed deal and moves, the board after each.

A change in the rules or the engine fails here as a unified diff of the board text; when the change is meant,
regenerate with ``make golden`` and commit the diff. The same moves replayed by the reference engine must give
the same boards, so the files also pin the compiled engine to the rule sheets.
"""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

from sim.core import reference
from sim.core.board import format_board
from sim.core.deals import deal_position
from sim.core.rules import find_game

_SPEC = importlib.util.spec_from_file_location("playthroughs", Path(__file__).parent / "golden" / "playthroughs.py")
golden = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(golden)

REGENERATE = ".venv/bin/python tests/golden/playthroughs.py (or make golden)"


def test_every_game_has_a_deal_and_a_file():
    assert sorted(golden.DEALS) == sorted(golden.slugs())
    shipped = sorted(p.name for p in golden.FOLDER.glob("*.txt"))
    assert shipped == sorted(golden.file_name(s) for s in golden.slugs()), f"regenerate: {REGENERATE}"


@pytest.mark.parametrize("slug", golden.slugs())
def test_the_playthrough_is_as_shipped(slug):
    path = golden.FOLDER / golden.file_name(slug)
    want = path.read_text(encoding="utf-8") if path.exists() else ""
    got = golden.text(slug)
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), str(path), "regenerated"))
        pytest.fail(f"{path.name} differs from what the engine plays now; if the change is meant, regenerate: "
                    f"{REGENERATE}\n{diff}")


@pytest.mark.parametrize("slug", golden.slugs())
def test_the_reference_engine_plays_the_same_boards(slug):
    rules = find_game(slug)
    moves, positions = golden.played(slug)
    assert len(moves) >= 1
    pos = deal_position(rules, str(golden.DEALS[slug]), golden.SEED)
    assert format_board(pos) == format_board(positions[0])
    for i, m in enumerate(moves, 1):
        pos = reference.play(rules, pos, m)
        assert format_board(pos) == format_board(positions[i]), f"{slug}: the engines differ after move {i} ({m})"
        assert pos.key() == positions[i].key(), f"{slug}: the engines differ after move {i} ({m})"


def test_the_script_writes_the_shipped_file(tmp_path):
    slug = "selective-castle"
    (written,) = golden.write(tmp_path, only=[slug])
    assert written.parent == tmp_path
    assert written.read_bytes() == (golden.FOLDER / golden.file_name(slug)).read_bytes()
