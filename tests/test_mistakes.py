"""Where players go wrong: the rungs' first mistakes on a deal, and their kinds."""

from __future__ import annotations

import json

from sim.game import Game
from sim.players.loop import play_choice
from sim.players.registry import parse_player
from sim.solver.mistakes import KINDS, RUNGS, kind


def test_every_rung_that_loses_a_winnable_deal_has_its_first_mistake_reviewed():
    game = Game("streets-and-alleys")
    rec = play_choice(parse_player("mistakes"), game.deal(4), 0, 4)
    assert rec.result == "won"
    rows = json.loads(rec.extra["review"])
    assert [r["rung"] for r in rows] == list(RUNGS)
    lost = [r for r in rows if not r["won"]]
    assert lost and all(r["kind"] in KINDS and 1 <= r["first_mistake"] <= r["moves"] and r["keeping"] >= 1 for r in lost)
    greedy = rows[0]
    assert greedy["first_mistake"] == 6  # the review's doctest: greedy's sixth move, 5-4, loses deal 4


def test_a_lost_deal_has_no_mistakes_to_find():
    rec = play_choice(parse_player("mistakes"), Game("streets-and-alleys").deal(2), 0, 2)
    assert rec.result == "lost" and all("first_mistake" not in r for r in json.loads(rec.extra["review"]))


def test_the_kinds_of_a_first_mistake_describe_the_move():
    from sim.kernels import layout
    from sim.solver.review import review

    game = Game("streets-and-alleys")
    for deal, expected in ((9, "empty pile"), (7, "covered a card due home")):
        state = game.deal(deal)
        rec = play_choice(parse_player("greedy"), state.copy(), 0, deal)
        r = review(game, state.copy(), rec.moves)
        before = state.copy()
        for m in rec.moves[: r.first_mistake]:
            before.push(m)
        move = rec.moves[r.first_mistake]
        assert kind(before, move, r.alternatives) == expected
        if expected == "empty pile":
            assert int(before.array[layout.S_HEIGHT + move.target]) == 0
