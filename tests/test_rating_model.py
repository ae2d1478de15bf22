"""A deal's rating before any search (sim/explain/rating.py, analysis/explain_ratings.py): the shipped models, their
files checked whole, ``castle explain``'s rating and tier, and a training that must beat a constant."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import explain_ratings as ER
from analysis import ratings as ratings_analysis
from sim.explain import model as explain_model
from sim.explain import rating as RM
from sim.game import Game

STUDY = ("beleaguered-castle", "streets-and-alleys", "selective-castle")
CONSTANT = "constant's RMSE"


def castle(*args: str, input: str | None = None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", *args], capture_output=True,
                          text=True, timeout=300, input=input, cwd=cwd)


def test_every_study_game_ships_a_rating_model_on_the_studys_scale_better_than_a_constant():
    assert set(STUDY) <= set(RM.shipped()) and not any(".rating" in g for g in explain_model.shipped())  # winnability's apart
    total = 0
    for game in RM.shipped():
        m = RM.load(RM.rating_path(game))
        total += RM.rating_path(game).stat().st_size
        assert m.scale == {"reference": ratings_analysis.REFERENCE, "centre": ratings_analysis.CENTRE, "points": pytest.approx(ratings_analysis.SCALE),
                           "cuts": list(ratings_analysis.CUTS), "tiers": list(ratings_analysis.TIERS)}
        h = m.holdout
        assert h["deals"] >= 150 and h["rmse"] < h["rmse_mean"] and h["spearman"] > 0.3
        trained = m.training["deals"]
        assert not any(lo <= d <= hi for lo, hi in h["deal_ranges"] for a, b in trained for d in (a, b))
        assert m.training["censored"] >= 0 and h["censored"] >= 0
        assert m.training["seed"] == (0 if game in STUDY else -1)  # (a game the study's ladder did not play: PySol's numbers)
    assert total < 150_000


def test_explain_prints_a_rating_its_error_and_its_tier():
    m = RM.rating_for("beleaguered-castle")
    out = castle("explain", "beleaguered-castle", "5", "17")
    assert out.returncode == 0, out.stderr
    heads = [line for line in out.stdout.splitlines() if line.startswith("deal ")]
    assert len(heads) == 2
    for line in heads:
        got = re.search(r"predicted rating (−?-?[0-9,]+) ± ([0-9,]+) \(([A-Za-z ]+)\)", line)
        assert got, line
        assert int(got.group(2).replace(",", "")) == round(m.rmse) and got.group(3) in ratings_analysis.TIERS
    assert any(line.startswith("rating: ") and "root-mean-square error" in line and "never trained on" in line
               for line in out.stdout.splitlines())


def test_explain_json_and_boards_have_the_rating_fields(tmp_path):
    g = Game("streets-and-alleys")
    m = RM.rating_for("streets-and-alleys")
    out = castle("explain", "sa", "3", "17", "--json")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    for r in rows:
        assert isinstance(r["rating"], int) and r["rating_rmse"] == round(m.rmse) and r["tier"] in ratings_analysis.TIERS
        assert r["tier"] == RM.tier_of([r["rating"]], ratings_analysis.CUTS, ratings_analysis.TIERS)[0]
    board = castle("explain", "sa", "--board", "-", "--json", input=g.deal(17).board_text())
    assert board.returncode == 0, board.stderr
    assert json.loads(board.stdout)["rating"] == rows[1]["rating"]  # the same deal as a board
    none = castle("explain", "castles-end", "3", "--json")  # a game without a rating model: null, never a failure
    assert none.returncode == 0 and {json.loads(none.stdout)[k] for k in ("rating", "rating_rmse", "tier")} == {None}
    text = castle("explain", "castles-end", "3")
    assert text.returncode == 0 and "rating" not in text.stdout


def _fields(game: str = "beleaguered-castle") -> dict:
    return json.loads(gzip.decompress(RM.rating_path(game).read_bytes()))


MUTATIONS = [
    ("objective", lambda d: d.update(booster_text=d["booster_text"].replace("objective=regression", "objective=binary sigmoid:1")),
     "booster_text: objective 'binary sigmoid:1', not regression"),
    ("split", lambda d: d.update(booster_text=re.sub(r"split_feature=\d+", "split_feature=999999", d["booster_text"], count=1)),
     "booster_text: tree 0: a split on feature 999999"),
    ("points", lambda d: d["scale"].update(points=0.0), "scale.points is 0.0"),
    ("cuts", lambda d: d["scale"].update(cuts=[500.0, 0.0, 1000.0, 1500.0]), "scale.cuts must rise"),
    ("tiers", lambda d: d["scale"].update(tiers=["Easy", "Hard"]), "scale: 2 tiers for 4 cuts"),
    ("rmse", lambda d: d["holdout"].pop("rmse"), "holdout.rmse must be given"),
    ("rmse-nan", lambda d: d["holdout"].update(rmse=float("nan")), "holdout.rmse must be a number from 0"),
    ("centre", lambda d: d["scale"].update(centre="1500"), "scale.centre must be a number"),
    ("extra", lambda d: d.update(calibration=[0, 1]), "unknown field calibration"),
    ("columns", lambda d: d.update(columns=d["columns"][:3]), "booster_text: "),
    ("format", lambda d: d.update(format="castle-explain-model"), "not a castle explain rating model"),
    ("seed", lambda d: d["training"].update(seed=-2), "training.seed must be a whole number from -1"),
]


@pytest.mark.parametrize("name,change,message", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_mutated_rating_model_is_one_line_naming_the_file(tmp_path, name, change, message):
    d = _fields()
    change(d)
    path = tmp_path / f"{name}.rating.json.gz"
    path.write_bytes(gzip.compress(json.dumps(d).encode()))
    with pytest.raises(explain_model.ModelError) as e:
        RM.read(path)
    assert str(e.value).startswith(f"{path}: ") and message in str(e.value) and "\n" not in str(e.value)


def test_every_field_of_a_rating_model_set_to_odd_values_is_refused_or_serves(tmp_path):
    """Each field and each key of its scale and holdout, set to values of every odd kind: a one-line ModelError or
    a model that predicts finite ratings, never another exception."""
    base = _fields("selective-castle")
    odd = [None, True, -1, 0, 7.5, 1e308, float("nan"), float("inf"), "ab", "", [], [1.0], {}, {"a": 1}, "x" * 300]
    cases = [(k, None, v) for k in base if k not in ("format", "format_version") for v in odd]
    cases += [(k, sub, v) for k in ("scale", "holdout", "training") for sub in base[k] for v in odd]
    served = refused = 0
    g = Game("selective-castle")
    from sim.explain.features import features

    X = features(g, [g.deal(1)])
    for k, (field, sub, value) in enumerate(cases):
        d = json.loads(json.dumps(base))
        if sub is None:
            d[field] = value
        else:
            d[field][sub] = value
        path = tmp_path / f"m{k}.json.gz"
        path.write_bytes(gzip.compress(json.dumps(d).encode()))
        try:
            m = RM.read(path)
        except explain_model.ModelError as e:
            assert "\n" not in str(e) and str(e).startswith(str(path))
            refused += 1
            continue
        assert np.isfinite(m.predict(X)).all()
        served += 1
    assert refused > 100 and served > 0


def test_a_damaged_rating_model_on_the_command_line_is_one_line_and_writes_nothing(tmp_path):
    d = _fields()
    d["scale"]["cuts"] = [1.0]
    bad = tmp_path / "bad.rating.json.gz"
    bad.write_bytes(gzip.compress(json.dumps(d).encode()))
    before = sorted(tmp_path.iterdir())
    for args, words in ((["--rating-model", str(bad)], "scale: 5 tiers for 1 cuts"),
                        (["--rating-model", str(RM.rating_path("streets-and-alleys"))], "a model of streets-and-alleys"),
                        (["--rating-model", str(explain_model.model_path("beleaguered-castle"))], "not a castle explain rating model")):
        out = castle("explain", "bc", "3", *args, cwd=tmp_path)
        assert out.returncode == 2 and not out.stdout, (args, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and words in out.stderr, (args, out.stderr)
    assert sorted(tmp_path.iterdir()) == before


def test_training_on_a_small_sample_beats_a_constant_and_leaves_censored_deals_out(tmp_path):
    """400 deals whose rating follows two features plus noise: the held-out error (the last fifth by number) is well
    below a constant's, the censored deals are left out and counted, and the file it writes reads back whole."""
    from sim.explain.features import NAMES

    rng = np.random.default_rng(5)
    n = 400
    X = pd.DataFrame(rng.integers(0, 20, (n, len(NAMES))).astype(float), columns=list(NAMES),
                     index=pd.Index(np.arange(1, n + 1), name="deal"))
    a, b = NAMES[0], NAMES[5]
    rating = 700 + 40 * X[a].to_numpy() - 25 * X[b].to_numpy() + rng.normal(0, 60, n)
    censored = np.where(np.arange(n) % 40 == 0, "above", "")
    deals = pd.DataFrame({"seed": 0, "deal": X.index, "rating": rating, "se": 60.0, "censored": censored})
    m = ER.train_rating("beleaguered-castle", deals, X, variants=False)
    h = m.holdout
    assert h["deals"] == 80 - 2 and h["censored"] == 2 and m.training["censored"] == 8
    assert m.training["deals_count"] == 320 - 8
    assert h["rmse"] < 0.6 * h["rmse_mean"] and h["spearman"] > 0.8
    back = RM.read(m.save(tmp_path / "m.rating.json.gz"))
    np.testing.assert_allclose(back.predict(X.iloc[:5]), m.predict(X.iloc[:5]), atol=0.01)


def test_the_report_states_the_shipped_models_error():
    from analysis.games import name
    from analysis.report.sections.ratings import _before_search

    shown = _before_search(RM.shipped()).set_index("game")
    assert set(shown.index) == {name(g) for g in RM.shipped()} >= {name(g) for g in (*STUDY, "citadel")}
    for game, row in ER.rating_table(RM.shipped()).set_index("game").iterrows():
        assert shown.loc[name(game), "rated deals"].startswith("PySol's" if game == "citadel" else "the study's")
        assert shown.loc[name(game), "error (RMSE, points)"] == f"{row.RMSE:,.0f}"
        assert shown.loc[name(game), "a constant's error"] == f"{row[CONSTANT]:,.0f}"


def test_the_readme_states_the_shipped_models_error():
    """The README's prose gives each game's held-out error and a constant's as the shipped files hold them."""
    text = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    from analysis.games import name

    for game, row in ER.rating_table(RM.shipped()).set_index("game").iterrows():
        said = f"{name(game)} ±{row.RMSE:,.0f} (a constant ±{row[CONSTANT]:,.0f})"
        assert said in text, said
        if game in STUDY:
            assert 140 <= row["ratings' own error"] <= 170, "the README says a fitted rating is uncertain by 140-170 points"
        else:
            own = row["ratings' own error"]
            said = f"{name(game)}'s own about {own:,.0f}"
            assert said in text, said
