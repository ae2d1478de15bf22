"""The review of a played game: the first losing move it names is right (checked by fresh solves), and the commands.

Every claim is checked against :func:`sim.solver.answer.solve` from scratch:
the position before the first mistake is won, the one after it lost, every
alternative's child won; a won game has no mistake and its critical
positions have exactly one move keeping the deal.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from sim.game import Game, State
from sim.core.moves import IllegalMoveError, Move
from sim.core.outcome import Result
from sim.players.loop import play_deal
from sim.solver.answer import solve
from sim.solver.judge import Judge
from sim.solver.kinds import KINDS, WHY, kind
from sim.solver.review import LOST, review


def fresh(game: Game, state: State, moves) -> Result:
    """The solver's verdict, from scratch, on the position after ``moves``."""
    s = state.copy()
    for m in moves:
        s.push(m)
    return solve(game, s, budget_seconds=60, portfolio=False).result


@pytest.mark.parametrize("slug, deal", [("streets-and-alleys", 4), ("streets-and-alleys", 17), ("beleaguered-castle", 3)])
def test_the_first_mistake_is_the_move_from_a_won_position_to_a_lost_one(slug, deal):
    game = Game(slug)
    start = game.deal(deal, 0)
    played = play_deal(game, "greedy", deal, 0).moves
    rev = review(game, start, played)
    k = rev.first_mistake
    assert rev.start is Result.WON and k is not None, rev.note
    assert fresh(game, start, played[:k]) is Result.WON
    assert fresh(game, start, played[: k + 1]) is Result.LOST
    assert rev.marks == ["keeps"] * k + ["loses"] + [LOST] * (len(played) - k - 1)
    assert rev.alternatives and played[k] not in rev.alternatives
    for m in rev.alternatives:
        assert fresh(game, start, [*played[:k], m]) is Result.WON, str(m)
    assert f"move {k + 1} ({played[k]})" in rev.note
    assert start.array is not None and len(start.move_stack) == 0  # the start is left as it was


def test_the_solvers_win_has_no_mistake_and_its_critical_positions_one_way_on():
    game = Game("streets-and-alleys")
    start = game.deal(4)
    line = solve(game, start.copy(), budget_seconds=60).moves
    rev = review(game, start, line)
    assert rev.start is Result.WON and rev.first_mistake is None and rev.marks == ["keeps"] * len(line)
    assert rev.critical and len(rev.steps) == len(line)
    i = rev.critical[0]
    step = rev.steps[i]
    keeping = {j.child for j in step.judged if j.verdict == "keeps" and not j.reversal}
    assert len(keeping) == 1
    for j in step.judged:  # every other sensible move's child is lost, the line's won
        if not j.reversal and j.child not in keeping:
            assert fresh(game, start, [*line[:i], j.move]) is Result.LOST, str(j.move)
    assert fresh(game, start, line[: i + 1]) is Result.WON


def test_a_lost_deal_says_the_deal_itself_is_lost():
    game = Game("streets-and-alleys")
    played = play_deal(game, "greedy", 2, 0).moves
    rev = review(game, game.deal(2), played)
    assert rev.start is Result.LOST and rev.first_mistake is None and not rev.alternatives
    assert rev.marks == [LOST] * len(played)
    assert "the deal itself is lost" in rev.note


def test_a_game_that_stops_on_a_winnable_position_lost_nothing():
    game = Game("streets-and-alleys")
    played = play_deal(game, "greedy", 4, 0).moves
    rev = review(game, game.deal(4), played[:3])
    assert rev.first_mistake is None and rev.end is Result.WON and rev.marks == ["keeps"] * 3
    assert "winnable position" in rev.note


def test_unknown_verdicts_leave_the_interval_unresolved_never_guessed():
    """With a budget too small to settle the positions near the mistake, the review names the interval, not a move."""
    game = Game("streets-and-alleys")
    start = game.deal(17)
    played = play_deal(game, "greedy", 17, 0).moves
    true = review(game, start, played).first_mistake
    judge = Judge(game, budget_nodes=1000)
    judge.learn_line(start.array, solve(game, start.copy()).moves)  # the start is known won, the rest is asked
    rev = review(game, start, played, judge=judge)
    judge.free()
    assert rev.first_mistake is None and rev.unresolved is not None and rev.unknown > 0
    lo, hi = rev.unresolved
    assert lo <= true < hi
    n = len(played)
    assert rev.marks == ["keeps"] * lo + ["unknown"] * (min(hi, n) - lo) + [LOST] * (n - min(hi, n))
    tiny = review(game, start, played, budget_nodes=1)  # nothing settled at all: the deal is unknown
    assert tiny.start is Result.UNKNOWN and tiny.first_mistake is None and set(tiny.marks) == {"unknown"}


def test_an_illegal_move_is_named():
    game = Game("streets-and-alleys")
    with pytest.raises(IllegalMoveError, match=r"move 2 \(9-3\)"):
        review(game, game.deal(4), [Move.from_str("1-F"), "9-3"])


# -- the commands ---------------------------------------------------------------------------------

def castle(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120, input=stdin)


GREEDY_4 = "1-F 7-1 7-F 1-F 1-F 5-4 6-3 2-7 2-1"  # greedy's game of Streets and Alleys deal 4 (seed 0)


def test_play_review_json_has_the_first_mistake():
    out = castle("play", "streets-and-alleys", "4", "--player", "greedy", "--review", "--json")
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert " ".join(row["moves"]) == GREEDY_4
    assert row["first_mistake"] == 6 and row["moves"][row["first_mistake"] - 1] == "5-4"  # (move numbers from 1)
    assert row["keeps_instead"] and "5-4" not in row["keeps_instead"]
    assert row["marks"] == ["keeps"] * 5 + ["loses"] + ["lost"] * 3
    assert row["review"]["start"] == "won"
    assert row["kind"] == "covered a low card" and row["why"] == WHY["covered a low card"]
    named = row["review"]["named"]
    assert named["first_mistake"] == "5-4 (6♦)" and [w.split(" (")[0] for w in named["keeps_instead"]] == row["keeps_instead"]


def test_the_review_json_numbers_moves_from_1_and_says_why():
    """to_dict numbers moves as the text does (the Python fields stay indices from 0), with the kind the report counts."""
    game = Game("streets-and-alleys")
    rev = review(game, game.deal(4), GREEDY_4.split())
    d = rev.to_dict()
    assert rev.first_mistake == 5 and d["first_mistake"] == 6
    before = game.deal(4)
    for m in GREEDY_4.split()[:5]:
        before.push(Move.from_str(m))
    assert d["kind"] == kind(before, Move.from_str("5-4"), rev.alternatives) == rev.kind  # (the mistakes player's kinds)
    assert set(WHY) == set(KINDS)


def test_play_review_text_marks_the_mistake_and_says_what_would_have_kept_the_deal(tmp_path):
    path = tmp_path / "game.txt"
    path.write_text("# greedy's game\n" + GREEDY_4.replace(" 5-4", "\n5-4  # here\n") + "\n")
    out = castle("play", "streets-and-alleys", "4", "--moves", str(path), "--review")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == GREEDY_4.replace("5-4", "5-4?")
    assert "first mistake (marked ?) is move 6, 5-4 (6♦): " in out.stdout
    assert "why: it covered a low card" in out.stdout
    kept = next(line for line in lines if line.startswith("would have kept the deal: "))
    assert kept == "would have kept the deal: 2-7 (4♠), 7-5 (5♣), 7-8 (5♣)"  # (named by card, as the replay page does)
    assert lines[-1].startswith("moves: 5 kept the deal winnable, 1 lost it, 3 came after it was lost")


@pytest.mark.parametrize("moves, message", [
    ("1-F 7-1 9-3", "move 3 (9-3) is not legal"),
    ("1-F 7-1 up", "move 3 (up) is not a move"),
    ("# nothing\n\n", "no moves in it"),
    (GREEDY_4, "move 1 (1-F) is not legal at the start of streets-and-alleys deal 5"),  # a list for another deal
])
def test_a_bad_move_list_is_one_line_and_exit_2(tmp_path, moves, message):
    deal = "5" if message.endswith("deal 5") else "4"
    path = tmp_path / "game.txt"
    path.write_text(moves)
    for source, stdin in ((str(path), None), ("-", moves)):
        out = castle("play", "streets-and-alleys", deal, "--moves", source, "--review", stdin=stdin)
        assert out.returncode == 2 and out.stdout == ""
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0] and "Traceback" not in out.stderr, out.stderr
    page = tmp_path / "page.html"
    out = castle("replay", "streets-and-alleys", deal, "--moves", str(path), "--review", "--out", str(page))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and message in out.stderr
    assert not page.exists()


@pytest.mark.parametrize("args, message", [
    (["play", "sa", "4", "--player", "greedy", "--moves", "-"], "not both"),
    (["play", "sa", "4", "5", "--moves", "-"], "one game"),
    (["replay", "sa", "4"], "Missing option '--player' (or --moves FILE)"),
    (["replay", "sa", "4", "--player", "greedy", "--moves", "-"], "not both"),
])
def test_moves_and_a_player_do_not_mix(args, message):
    out = castle(*args, stdin=GREEDY_4)
    assert out.returncode == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_replay_review_writes_a_page_with_the_first_mistake(tmp_path):
    page = tmp_path / "sa4.html"
    out = castle("replay", "streets-and-alleys", "4", "--moves", "-", "--review", "--out", str(page), stdin=GREEDY_4)
    assert out.returncode == 0, out.stderr
    assert "review: the first mistake is move 6, 5-4 (6♦); why: it covered a low card" in out.stdout
    text = page.read_text()
    assert len(re.findall(r'<li data-step="[1-5]" class="mark-keeps">', text)) == 5
    assert '<li data-step="6" class="mark-loses first-mistake">' in text
    assert "would have kept the deal: 2-7" in text and "played by the moves of standard input" in text


def test_play_several_deals_prints_text_unless_json():
    out = castle("play", "streets-and-alleys", "3", "4", "--player", "greedy", "--review")
    assert out.returncode == 0, out.stderr
    assert not out.stdout.lstrip().startswith("{")
    blocks = out.stdout.strip().split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == ["deal 3:", "deal 4:"]
    assert blocks[1].splitlines()[1] == GREEDY_4.replace("5-4", "5-4?")
    assert "move 6, 5-4 (6♦)" in blocks[1]
    rows = [json.loads(x) for x in castle("play", "streets-and-alleys", "3", "4", "--player", "greedy", "--json").stdout.splitlines()]
    assert [r["deal"] for r in rows] == ["3", "4"]
