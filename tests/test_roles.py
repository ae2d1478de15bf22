"""A player's role is its spec's, recorded in its run's manifest, and read back by role, never by a list of names."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analysis import designs, load, roles, stats
from sim.players.builtin import BUILTIN_PLAYERS
from sim.players.registry import names_of, role_of
from sim.players.spec import EXACT, HEURISTIC, JUDGE, ROLES, PlayerSpec, spec_from_class
from sim.study.experiment import build
from sim.study.resume import prepare
from sim.study.unknowns import _is_exact


@pytest.fixture(autouse=True)
def forget(monkeypatch):
    """Each test starts with no manifest's roles learned (they are remembered for the process)."""
    monkeypatch.setattr(roles, "_RECORDED", {})


def test_every_builtin_player_has_its_role():
    got = {p.name: p.role for p in BUILTIN_PLAYERS}
    assert {n for n, r in got.items() if r == EXACT} == {"solver", "settle", "phased"}
    assert {n for n, r in got.items() if r == JUDGE} == {"corridor", "mistakes"}
    assert set(got.values()) <= set(ROLES) and got["greedy"] == got["hidden"] == HEURISTIC
    assert names_of(EXACT) == ["solver", "settle", "phased"]  # (the registry's order)


def test_a_plug_in_is_heuristic_unless_its_spec_says_and_a_role_is_one_of_the_roles():
    class Mine:
        def __init__(self, seed=0, deal=0):
            pass

        def choose(self, state):
            return None

    assert spec_from_class("mine", Mine).role == HEURISTIC
    assert PlayerSpec("oracle", "", role=EXACT).role == EXACT
    with pytest.raises(ValueError, match="role must be one of heuristic, exact, judge"):
        PlayerSpec("oracle", "", role="wizard")


def test_the_manifest_records_each_players_role(tmp_path):
    exp = build(name="x", games=["beleaguered-castle"], players=["greedy", "phased:rate=0.1", "corridor"], deal_range="0:10")
    manifest = prepare(exp, tmp_path / "out")
    assert manifest["experiment"]["player_roles"] == {"greedy": HEURISTIC, "phased:rate=0.1": EXACT, "corridor": JUDGE}
    assert json.loads((tmp_path / "out" / "_manifest.json").read_text())["experiment"]["player_roles"]["corridor"] == JUDGE
    more = build(name="x", games=["beleaguered-castle"], players=["solver"], deal_range="0:10")
    assert prepare(more, tmp_path / "out")["experiment"]["player_roles"]["solver"] == EXACT  # (an extension adds its own)


def test_analysis_reads_the_registry_first_then_the_manifest_then_heuristic(tmp_path):
    # a manifest from before roles: its players are the registry's
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "_manifest.json").write_text(json.dumps({"experiment": {"name": "old", "players": {"solver": {}}}}))
    load.load_manifest(tmp_path / "old")
    assert roles.role("solver:bases=1") == EXACT and roles.role("oracle") == HEURISTIC
    # a plug-in the registry does not know here: its manifest's role; a registered name keeps its spec's
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "_manifest.json").write_text(json.dumps({"experiment": {
        "name": "new", "player_roles": {"oracle:depth=2": EXACT, "critic": JUDGE, "greedy": EXACT, "odd": "wizard"}}}))
    load.load_manifest(tmp_path / "new")
    assert role_of("oracle") is None and roles.role("oracle") == EXACT and roles.role("critic") == JUDGE
    assert roles.role("greedy") == HEURISTIC and roles.role("odd") == HEURISTIC
    assert roles.names(EXACT) == ["solver", "settle", "phased", "oracle"]
    assert designs.is_exact("oracle:depth=3") and stats.is_judge("critic") and not designs.is_exact("critic")
    players = pd.Series(["greedy", "oracle:depth=2", "critic", "solver", "beam"])
    assert stats.player_mask(players).tolist() == [True, False, False, False, True]
    assert designs.exact_mask(players).tolist() == [False, True, False, True, False]


def test_unknowns_of_reads_the_exact_runs_by_role():
    assert _is_exact("solver", {}) and _is_exact("settle", {}) and not _is_exact("corridor", {})
    assert _is_exact("oracle", {"oracle": EXACT}) and not _is_exact("oracle", {})
    assert not _is_exact("greedy", {"greedy": EXACT})  # (the registry's spec comes first)
