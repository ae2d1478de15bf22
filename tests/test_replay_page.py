"""The replay page's text is safe: its game is strict JSON that nothing can break out of, its names are escaped."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from sim.core.jsontext import script_json

HOSTILE = "</script><script>alert(1)</script><!-- & \u2028"


def _no_constant(name: str):
    raise ValueError(f"not strict JSON: {name}")


def _page_data(html: str) -> dict:
    """The page's embedded game, read as strictly as JavaScript's JSON.parse reads it."""
    blob = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S).group(1)
    return json.loads(blob, parse_constant=_no_constant)


def test_script_json_is_strict_and_cannot_end_a_script():
    value = {"x": float("nan"), "y": [float("inf"), -float("inf"), 1.5], "name": HOSTILE}
    text = script_json(value)
    assert json.loads(text, parse_constant=_no_constant) == {"x": None, "y": [None, None, 1.5], "name": HOSTILE}
    for raw in ("<", ">", "&", "\u2028", "\u2029", "NaN", "Infinity"):
        assert raw not in text
    with pytest.raises(TypeError):
        script_json({"x": object()})  # what JSON cannot spell is refused, not written


@pytest.fixture(scope="module")
def rep():
    from sim.replay import record_replay

    return record_replay("streets-and-alleys", 17, "greedy", 0, max_moves=6)


def test_a_record_with_nan_or_inf_gives_strict_json_and_no_nan_on_the_page(rep, monkeypatch):
    from sim.replay import page, replay_html

    r = dataclasses.replace(rep, extra={"nodes": float("nan")})
    to_json = page.Layout.to_json
    monkeypatch.setattr(page.Layout, "to_json", lambda self: {**to_json(self), "fan": float("inf"), "gap": float("nan")})
    html = replay_html(r)
    data = _page_data(html)
    assert data["layout"]["fan"] is None and data["layout"]["gap"] is None
    assert len(data["steps"]) == len(r.moves) + 1
    assert "nan" not in re.sub(r"<script.*?</script>|<style.*?</style>", "", html, flags=re.S).lower()
    assert "positions searched" not in html
    assert "(1,234 positions searched)" in replay_html(dataclasses.replace(rep, extra={"nodes": 1234}))


def test_hostile_player_and_game_names_are_escaped(rep):
    from sim.replay import replay_html

    r = dataclasses.replace(rep, player=HOSTILE, rules=dataclasses.replace(rep.rules, name=HOSTILE))
    html = replay_html(r, back=HOSTILE)
    assert "alert(1)</script>" not in html and "<script>alert" not in html and "<!--" not in html
    assert html.count("</script>") == 2 and html.count("<script") == 2  # the data's and the page's own
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the title, as text
    data = _page_data(html)
    assert data["name"] == HOSTILE  # read back whole
    assert "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)" in html


def test_the_page_templates_are_package_data_so_an_installed_castle_finds_them():
    import fnmatch
    from pathlib import Path

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    from sim.replay.template import TEMPLATES

    root = Path(__file__).resolve().parents[1]
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["sim.replay"]
    found = sorted(p.relative_to(TEMPLATES.parent).as_posix() for p in TEMPLATES.iterdir())
    assert {"templates/replay.html.j2", "templates/replay.css.j2", "templates/replay.js.j2"} <= set(found)
    assert [f for f in found if not any(fnmatch.fnmatch(f, g) for g in globs)] == []


def test_the_move_list_and_review_note_are_laid_out_by_the_template(rep):
    """Moves, verdicts, badges and the review's note, with a hostile mark and move text escaped by the template."""
    from sim.replay import replay_html

    r = dataclasses.replace(rep, marks=["keeps", "<b>odd</b>", None, "lost", "unknown", "keeps"], first_mistake=1,
                            alternatives=[], critical=[0, 3], review_note="it's a review")
    html = replay_html(r)
    assert '<li data-step="2" class="mark-b-odd-b first-mistake"><a href="#move=2">' in html
    assert '<li class="mark-b-odd-b">&lt;b&gt;odd&lt;/b&gt;</li>' in html  # the legend: an unknown mark as it is
    assert html.count('<span class="badge critical" title="the only move that kept the deal winnable there">critical</span>') == 2
    assert '<div class="instead">would have kept the deal: no other move was proved to keep it</div></li>' in html
    from sim.replay.movelist import move_name

    named = move_name(r.positions[1], r.moves[1])
    assert named.startswith(f"{r.moves[1]} (")  # the move and the card it takes, as the list names it
    assert (f'<a href="#move=2">Move 2, {named}</a>, is the first mistake: the deal was winnable before it and is '
            "lost after it. No other move was proved to keep it. Critical moves (the only move that kept the deal "
            'winnable there): <a href="#move=1">1</a>, <a href="#move=4">4</a>. Moves: 2 keep the deal winnable, '
            "1 played in a game already lost, 1 not settled.</p>") in html
    assert "It&#39;s a review" not in html  # (a first mistake is said instead of the review's own sentence)
    html = replay_html(dataclasses.replace(r, first_mistake=None, critical=[]))
    assert '<p class="note review"><b>Reviewed by the solver.</b> It&#39;s a review. Moves: 2 keep' in html
