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
