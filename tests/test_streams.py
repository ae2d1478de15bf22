"""A player on another random stream (``stream=k``): named in its label, keyed into its random numbers, played by
``streams = N`` in an experiment, and counted by the ratings as more games of the same rung, never as a new rung."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from analysis import labels, rated, ratings_check
from sim.players.registry import parse_player
from sim.players.spec import UnknownPlayerError


def test_stream_0_is_the_player_itself_and_another_stream_says_so():
    own, other = parse_player("nmcs:budget=200000"), parse_player("nmcs:budget=200000,stream=2")
    assert parse_player("nmcs:budget=200000,stream=0") == own and own.stream == 0
    assert own.label == "nmcs:budget=200000" and "stream" not in json.loads(own.params_json)  # rows already written
    assert other.label == "nmcs:budget=200000,stream=2" and json.loads(other.params_json)["stream"] == 2
    assert other.params == own.params and other.salt == own.salt + (2 << 16) and own.salt == own.spec.salt
    assert parse_player(other.label) == other  # a label read back is the same choice
    assert parse_player("beam:spread=4,stream=1,width=8").label == "beam:spread=4,stream=1,width=8"


@pytest.mark.parametrize("text, said", [
    ("greedy:stream=-1", "stream must be a whole number"), ("greedy:stream=x", "stream must be a whole number"),
    ("greedy:stream=1.5", "stream must be a whole number"), (f"greedy:stream={1 << 41}", "stream must be a whole number"),
    ("solver:stream=1", "draws no random stream"),
])
def test_a_stream_a_player_cannot_take_is_refused_in_one_line(text, said):
    with pytest.raises(UnknownPlayerError, match=said):
        parse_player(text)


def test_an_experiment_plays_a_player_on_several_streams(tmp_path):
    from sim.study.experiment import ExperimentError, build, read_toml

    def load(entry: str):
        p = tmp_path / "e.toml"
        p.write_text(f'name = "e"\ndeal_range = "0:10"\ngames = ["streets-and-alleys"]\n[[players]]\nname = "nmcs"\n{entry}\n')
        return build(read_toml(p), from_file=True)

    assert [c.label for c in load("budget = 1000\nstreams = 3").players] == [
        "nmcs:budget=1000", "nmcs:budget=1000,stream=1", "nmcs:budget=1000,stream=2"]
    assert [c.label for c in load("stream = 4").players] == ["nmcs:stream=4"]
    for bad, said in (("streams = 0", "streams must be a whole number"), ("streams = true", "streams must be"),
                      ("streams = 2\nstream = 1", "not both")):
        with pytest.raises(ExperimentError, match=said):
            load(bad)


def test_another_stream_draws_other_numbers_where_the_player_draws_any():
    """nmcs draws random numbers: stream 1 plays other games than stream 0 (on some deals); greedy breaks its ties
    by order: every stream plays the same game, move for move."""
    from sim.core.rules import find_game
    from sim.study.rows import play_rows

    rules = find_game("streets-and-alleys")
    played = {}
    for text in ("nmcs:budget=20000", "nmcs:budget=20000,stream=1", "greedy", "greedy:stream=1"):
        t = play_rows(rules, parse_player(text), 0, 1, 30).to_pandas()
        played[text] = list(zip(t.result, t.positions))
        assert set(t.player) == {text}
    assert played["greedy"] == played["greedy:stream=1"]
    assert played["nmcs:budget=20000"] != played["nmcs:budget=20000,stream=1"]


def _frame(streams: dict[str, list[str]], deals: int = 200, seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows of rungs on one game (``streams``: a rung's label -> its streams' labels, the rung's own first); a rung
    with "same" in its name plays every stream alike."""
    rng = np.random.default_rng(seed)
    ease = rng.random(deals)
    out = []
    for rung, names in streams.items():
        p = {"weak": 0.2, "beam": 0.5, "strong": 0.8}[rung.split(":")[0].split("-")[0]]
        first = None
        for label in names:
            won = ease < p * (0.7 + 0.6 * rng.random(deals)) if first is None or "same" not in rung else first
            first = won if first is None else first
            moves = np.where(won, 100, 50) if "same" in rung else rng.integers(1, 1000, deals)
            out.append(pd.DataFrame({"game": "streets-and-alleys", "player": label, "seed": 0, "deal": np.arange(deals),
                                     "result": np.where(won, "won", "stuck"), "moves": moves, "cards_home": np.where(won, 52, 10),
                                     "cpu_us": 1,
                                     "dataset": "d"}))
    solved = pd.DataFrame({"game": "streets-and-alleys", "seed": 0, "deal": np.arange(deals), "verdict": "won"})
    return pd.concat(out, ignore_index=True), solved


MID = "beam:budget=1000000"  # (the scale's reference rung)


def test_the_ratings_count_a_rungs_streams_as_its_games_and_a_drawless_rungs_once():
    from analysis.stats import player_mask

    df, solved = _frame({"weak": ["weak"], MID: [MID, MID + ",stream=1", MID + ",stream=2"],
                         "strong-same": ["strong-same", "strong-same:stream=1"]})
    assert set(df.player[player_mask(df.player)]) == {"weak", MID, "strong-same"}  # no stream is a rung
    o = rated.outcomes(df, solved, "streets-and-alleys", ["weak", MID, "strong-same"])
    assert o.groupby("player").size().to_dict() == {"weak": 200, MID: 600, "strong-same": 200}
    assert sorted(o[o.player == MID].stream.unique()) == [0, 1, 2]
    mine = df[df.player.map(labels.without_stream) == MID]
    assert o[o.player == MID].won.sum() == (mine.result == "won").sum()
    s = rated.rate_game(df, solved, "streets-and-alleys", ["weak", MID, "strong-same"])
    assert s is not None and s.fit.players.set_index("player").deals[MID] == 600
    share = mine.assign(won=mine.result == "won").groupby("deal").won.mean()
    assert s.deals.set_index("deal")[MID].to_numpy() == pytest.approx(share.reindex(s.deals.deal).to_numpy())


def test_a_pairs_streams_are_held_out_together():
    df, solved = _frame({"weak": ["weak"], MID: [MID, MID + ",stream=1", MID + ",stream=2"], "strong": ["strong"]}, deals=150)
    o = rated.outcomes(df, solved, "streets-and-alleys", ["weak", MID, "strong"])
    pred = ratings_check.held_out_pairs(o, folds=3)
    assert len(pred) == len(o) and (pred.groupby(["player", "deal"]).rating.nunique() == 1).all()


def test_labels_name_their_stream():
    assert labels.stream_of("nmcs:budget=200000,stream=12") == 12 and labels.stream_of("greedy") == 0
    assert labels.without_stream("nmcs:stream=3") == "nmcs" and labels.without_stream("greedy") == "greedy"
    assert labels.without_stream("beam:spread=4,stream=1,width=8") == "beam:spread=4,width=8"


def test_a_run_of_several_streams_writes_each_and_resumes(tmp_path):
    from analysis.load import load_results
    from sim.study.experiment import build, read_toml
    from sim.study.runner import run

    exp_file = tmp_path / "exp.toml"
    exp_file.write_text('name = "s"\ndeals = 6\nchunk_size = 3\ngames = ["streets-and-alleys"]\n'
                        '[[players]]\nname = "nmcs"\nbudget = 2000\nstreams = 2\n')
    out = tmp_path / "out"
    assert run(build(read_toml(exp_file), from_file=True), out, progress=False).deals_played == 12
    df = load_results(out)
    assert sorted(df.player.astype(str).unique()) == ["nmcs:budget=2000", "nmcs:budget=2000,stream=1"]
    assert {json.loads(t).get("stream", 0) for t in df.player_params} == {0, 1}
    again = run(build(read_toml(exp_file), from_file=True), out, progress=False)
    assert again.deals_played == 0 and again.deals_already == 12


CASTLE = [sys.executable, "-c", "from sim.cli import main; main()"]


@pytest.mark.parametrize("args, said", [
    (["run", "--game", "sa", "--player", "greedy:stream=x", "--deals", "3", "--out", "out"], "stream must be a whole number"),
    (["run", "--game", "sa", "--player", "solver:stream=1", "--deals", "3", "--out", "out"], "draws no random stream"),
    (["run", "zero.toml", "--out", "out"], "streams must be a whole number 1 to 1000, got 0"),
    (["run", "both.toml", "--out", "out"], "give streams or stream, not both"),
    (["play", "sa", "1", "--player", "mine.py:Plain:stream=1"], "draws no random stream"),
])
def test_a_bad_stream_on_the_command_line_is_one_line_exit_2_and_writes_nothing(tmp_path, args, said):
    (tmp_path / "zero.toml").write_text('deals = 3\ngames = ["sa"]\n[[players]]\nname = "nmcs"\nstreams = 0\n')
    (tmp_path / "both.toml").write_text('deals = 3\ngames = ["sa"]\n[[players]]\nname = "nmcs"\nstreams = 2\nstream = 1\n')
    (tmp_path / "mine.py").write_text("class Plain:\n    def __init__(self, seed=0, deal=0):\n        pass\n\n"
                                      "    def choose(self, state):\n        return None\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    p = subprocess.run(CASTLE + args, cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and said in p.stderr, p.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_python_player_that_takes_a_stream_gets_it(tmp_path, monkeypatch):
    (tmp_path / "mine.py").write_text(
        "import random\n\nclass Drawn:\n    def __init__(self, seed=0, deal=0, stream=0):\n"
        "        self.r = random.Random(seed * 1_000_003 + deal * 7 + stream)\n\n"
        "    def choose(self, state):\n        a = state.actions()\n        return int(a[self.r.randrange(len(a))]) if len(a) else None\n")
    monkeypatch.chdir(tmp_path)
    own, other = parse_player("mine.py:Drawn"), parse_player("mine.py:Drawn:stream=3")
    assert other.label == own.label + ":stream=3" and other.make(0, 5).r.random() != own.make(0, 5).r.random()
