"""The catalogue of PySol FC's game numbers (analysis/catalogue.py, `castle deals --export pysol`): each number's
verdict as the solver's rows say, its rating on the ladder's scale from the rungs' games or predicted before search,
and the plain text file that carries them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import catalogue
from analysis import ratings as ratings_analysis
from sim.explain import rating as RM

LADDER = ("random", "greedy", "lookahead", ratings_analysis.REFERENCE)
PUBLISHED = Path(__file__).resolve().parents[1] / "data" / "published"
GAMES = ("streets-and-alleys", "beleaguered-castle", "citadel", "selective-castle")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A study: the ladder on seed 0's deals of two games (a rung is a player of two games or more), and on PySol's
    numbers of Streets and Alleys and of Citadel."""
    from tests.synthetic import write_dataset

    root = tmp_path_factory.mktemp("catalogue") / "study"
    write_dataset(root / "ladder", deals=300, games=("streets-and-alleys", "beleaguered-castle"), players=LADDER)
    write_dataset(root / "pysol", deals=200, games=("streets-and-alleys", "citadel"), players=LADDER, seed=-1)
    return root


def _rows(root: Path, game: str) -> pd.DataFrame:
    from analysis.load import load_results

    return load_results(root, games=[game])


def test_verdicts_are_the_solvers_and_numbers_not_searched_say_so(study):
    c = catalogue.build(study, "streets-and-alleys", last=230, predict=False)
    d = c.deals.set_index("deal")
    assert list(d.index) == list(range(1, 231))
    solver = _rows(study / "pysol", "streets-and-alleys").query("player == 'solver'").set_index("deal").result.astype(str)
    np.testing.assert_array_equal(d.verdict.loc[1:200].to_numpy(), solver.reindex(range(1, 201)).to_numpy())
    assert (d.verdict.loc[201:] == "unsolved").all()
    assert (d.basis[d.verdict != "won"] == "").all() and d.rating[d.verdict != "won"].isna().all()
    assert (d.basis[d.verdict == "won"] == "played").all() and c.sources == ["pysol"]


def test_a_pysol_deal_rated_from_the_rungs_games_is_rated_as_a_study_deal_the_rungs_did_the_same_on(study):
    """The rungs are held at the ratings the seed-0 ladder gives them, so a deal's rating depends only on which rungs
    won it: a PySol deal and a seed-0 deal the same rungs won are rated alike (the same scale)."""
    from analysis import rated

    scale = rated.scale_of(study, "streets-and-alleys")
    c = catalogue.build(study, "streets-and-alleys", last=200, predict=False)
    pysol = _rows(study / "pysol", "streets-and-alleys").query("player != 'solver'")
    pattern = pysol.assign(won=pysol.result.astype(str).eq("won")).pivot(index="deal", columns="player", values="won")
    study_rating = scale.deals.assign(key=scale.deals[list(scale.rungs)].apply(tuple, axis=1)).groupby("key").rating.first()
    played = c.deals[c.deals.basis == "played"].set_index("deal")
    assert len(played) > 50
    matched = 0
    for deal, rating in played.rating.items():
        key = tuple(bool(pattern.loc[deal, p]) for p in scale.rungs)
        if key in study_rating.index:
            assert rating == pytest.approx(study_rating[key], abs=1e-6)
            matched += 1
    assert matched == len(played)
    assert set(c.deals.tier[c.deals.basis == "played"]) <= set(ratings_analysis.TIERS)
    assert "the study's ladder on seed 0's deals" in c.scale


def test_a_game_the_study_ladder_did_not_play_gets_a_scale_of_its_own(study):
    c = catalogue.build(study, "citadel", last=200, predict=False)
    played = c.deals[c.deals.basis == "played"]
    assert len(played) == (c.deals.verdict == "won").sum() > 100
    assert "its own" in c.scale and played.rating.notna().all()


def test_numbers_no_rung_played_are_rated_before_search_as_castle_explain_rates_them(study):
    """Won or unsolved numbers without the rungs' games get castle explain's rating (the same number it prints); lost
    and unknown ones get none."""
    import json

    c = catalogue.build(study, "streets-and-alleys", last=204, predict=True)
    new = c.deals[c.deals.deal > 200]
    assert (new.verdict == "unsolved").all() and (new.basis == "predicted").all()
    out = subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", "explain", "streets-and-alleys",
                          *[f"pysol:{d}" for d in new.deal], "--json"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    said = [json.loads(line)["rating"] for line in out.stdout.splitlines()]
    np.testing.assert_allclose(new.rating.to_numpy(), said, atol=0.5)  # (explain rounds to a point)
    assert list(new.tier) == list(ratings_analysis.tier_of(new.rating))
    assert "held-out error" in c.predicted_by


def test_the_file_says_what_each_field_means_and_reads_back_as_written(study, tmp_path):
    from sim.core.rules import find_game

    c = catalogue.build(study, "streets-and-alleys", last=210, predict=False)
    path = tmp_path / "sa.txt"
    path.write_text(catalogue.text(c, find_game("streets-and-alleys")))
    lines = path.read_text().splitlines()
    assert lines[0] == "# castle-pysol-catalogue 1" and "# fields: number verdict tier rating basis" in lines
    head = [x for x in lines if x.startswith("#")]
    assert any(x.startswith("# counts: won ") for x in head)
    body = [x for x in lines if not x.startswith("#")]
    assert len(body) == 210 and all(len(x.split(" ")) == 5 for x in body)
    back = catalogue.read(path)
    pd.testing.assert_series_equal(back.verdict, c.deals.verdict.reset_index(drop=True))
    np.testing.assert_allclose(back.rating, c.deals.rating.round(), equal_nan=True)
    assert list(back.tier) == list(c.deals.tier) and list(back.basis) == list(c.deals.basis)
    path.write_text(path.read_text().replace(" played\n", " guessed\n", 1))
    with pytest.raises(ValueError, match="not 'number verdict tier rating basis'"):
        catalogue.read(path)


def test_castle_deals_exports_the_file_and_picks_pysol_numbers_by_tier_from_it(study, tmp_path):
    def castle(*args):
        return subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", *args], capture_output=True,
                              text=True, cwd=tmp_path, timeout=600)

    out = castle("deals", "sa", "--export", "pysol", "--last", "200", "--data", str(study), "--out", "cat")
    assert out.returncode == 0, out.stderr
    path = tmp_path / "cat" / "streets-and-alleys.pysol.txt"
    assert out.stdout.strip() == str(Path("cat") / "streets-and-alleys.pysol.txt") and path.exists()
    assert "PySol's numbers 1-200 of Streets and Alleys: won " in out.stderr
    first = path.read_bytes()
    assert castle("deals", "sa", "--export", "pysol", "--last", "200", "--data", str(study), "--out", "cat").returncode == 0
    assert path.read_bytes() == first  # the same rows make the same file
    rows = catalogue.read(path)
    tier = rows[rows.verdict == "won"].tier.value_counts().index[0]
    picked = castle("deals", "sa", "--pysol", "--tier", tier.lower().replace(" ", "-"), "--count", "3", "--data", str(study))
    assert picked.returncode == 0, picked.stderr
    want = rows[(rows.verdict == "won") & (rows.tier == tier)].deal.head(3)
    assert [line.split()[0] for line in picked.stdout.splitlines()] == [f"pysol:{d}" for d in want]


@pytest.mark.skipif(not (PUBLISHED / catalogue.FOLDER).is_dir(), reason="no catalogue shipped")
@pytest.mark.parametrize("game", GAMES)
def test_the_shipped_catalogue_holds_every_number_with_the_solvers_verdict(game):
    """Each shipped file: PySol's numbers 1-10,000, the verdict of every number the study's exact rows hold (the
    same as the rows say), and a rating and a tier for every number won, played or predicted (every game here has a
    rating model: Citadel's trained on the numbers its ladder played)."""
    from sim.core.rules import find_game

    rows = catalogue.read(PUBLISHED / catalogue.FOLDER / catalogue.file_name(find_game(game)))
    assert list(rows.deal) == list(range(1, catalogue.LAST + 1))
    held, _ = catalogue.pysol_rows(PUBLISHED, game)
    from analysis import ladder
    from analysis.stats import player_mask

    v = ladder.one_verdict(held[~player_mask(held.player)], ["deal"]).set_index("deal").verdict
    assert len(v) >= 2000
    np.testing.assert_array_equal(rows.set_index("deal").verdict.reindex(v.index).to_numpy(), v.to_numpy())
    assert (rows.verdict[~rows.deal.isin(v.index)] == "unsolved").all()
    won = rows[rows.verdict == "won"]
    assert RM.rating_path(game).exists()
    assert won.rating.notna().all() and (won.tier != "").all() and (won.basis != "").all()
    assert (won.basis == "played").sum() >= 1000 and (won.basis == "predicted").sum() >= 3000
    text = (PUBLISHED / catalogue.FOLDER / catalogue.file_name(find_game(game))).read_text()
    assert "won numbers the ladder did not play" not in text and "held-out error" in text


def test_the_before_search_rating_is_checked_against_the_played_one_on_the_same_numbers(study):
    r = catalogue.predicted_against_played(study, "streets-and-alleys")
    c = catalogue.build(study, "streets-and-alleys", last=200, predict=False)
    assert r["deals"] == int((c.deals.basis == "played").sum()) > 50
    assert r["rmse"] > 0 and -1 <= r["spearman"] <= 1 and 0 <= r["same_tier"] <= 1
    assert r["rmse_constant"] == pytest.approx(float(c.deals.rating[c.deals.basis == "played"].std(ddof=0)))
    assert catalogue.predicted_against_played(study, "citadel") is None  # (its model held out none of numbers 1-200)


def test_a_model_trained_on_pysol_numbers_is_judged_on_those_it_held_out(study, monkeypatch):
    """Citadel's rating model is trained on the PySol numbers its ladder played: checked against the played ratings,
    only the numbers it held out count (here 101-200, as if it had held those out)."""
    import dataclasses

    from sim.explain import rating as RMod

    real = RMod.rating_for("citadel")
    assert real.training["seed"] == -1
    held = dataclasses.replace(real, holdout={**real.holdout, "deal_ranges": [[101, 200]]})
    monkeypatch.setattr(RMod, "rating_for", lambda game: held if game == "citadel" else None)
    r = catalogue.predicted_against_played(study, "citadel")
    c = catalogue.build(study, "citadel", last=200, predict=False)
    played = c.deals[c.deals.basis == "played"]
    assert r["deals"] == int(played.deal.between(101, 200).sum()) < len(played)
    assert r["model_rmse"] == real.rmse


def test_castle_rate_and_deals_by_tier_use_pysol_numbers_where_the_studys_ladder_did_not_play(study, tmp_path):
    """Citadel has a ladder only on PySol's numbers: castle rate plays those numbers and rates the player on that
    game's own scale (what the catalogue rates them on), and castle deals --tier lists them as pysol:N."""
    import json

    def castle(*args):
        return subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", *args], capture_output=True,
                              text=True, cwd=tmp_path, timeout=600)

    own = catalogue.own_scale(study, "citadel")
    out = castle("rate", "greedy", "--game", "citadel", "--deals", "40", "--data", str(study), "--json")
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["deals"] == 40 and np.isfinite(r["rating"])
    assert {p["player"] for p in r["ladder"]} == set(own.players().player)
    text = castle("rate", "greedy", "--game", "citadel", "--deals", "40", "--data", str(study))
    assert text.returncode == 0 and "PySol's numbers: the study's ladder did not play this game" in text.stdout
    tier = own.deals.tier.value_counts().index[0]
    picked = castle("deals", "citadel", "--tier", tier.lower().replace(" ", "-"), "--count", "3", "--data", str(study))
    assert picked.returncode == 0, picked.stderr
    want = own.deals[own.deals.tier == tier].sort_values("deal").deal.head(3)
    assert [line.split()[0] for line in picked.stdout.splitlines()] == [f"pysol:{d}" for d in want]
    assert "PySol's numbers, a scale of its own" in picked.stderr


def test_a_game_the_studys_ladder_did_not_play_gets_its_rating_model_from_pysol_numbers(study, tmp_path):
    """Citadel on PySol's numbers only: its model is trained on those numbers' ratings on its own scale (the catalogue's
    played ratings), its file says seed -1 and reads back whole, and castle explain's note says which scale."""
    from analysis import explain_ratings as ER
    from sim.explain import rating as RMod

    table = ER.build_ratings(study, out=tmp_path, cache=tmp_path / "features", jobs=1, games=["citadel", "selective-castle"])
    assert list(table.game) == ["citadel"] and list(table["deals of"]) == ["PySol's numbers"]  # (SC: no rows at all)
    m = RMod.read(tmp_path / "citadel.rating.json.gz")
    own = catalogue.own_scale(study, "citadel")
    measured = own.deals[own.deals.censored.astype(str) == ""]
    assert m.training["seed"] == -1 and set(own.deals.seed) == {-1}
    assert m.training["deals_count"] + m.holdout["deals"] == len(measured)
    c = catalogue.build(study, "citadel", last=200, predict=False)
    np.testing.assert_allclose(c.deals.set_index("deal").rating.loc[own.deals.deal], own.deals.rating)
    assert "a scale of this game's own" in RMod.note(m) and "the study's scale" in RMod.note(RMod.rating_for("beleaguered-castle"))


def test_the_studys_readers_leave_a_pysol_datasets_players_out_and_count_their_games(study):
    """The rungs on PySol's numbers rate PySol's deals; pooled with the study's deals they would move the win rates
    the study states (the README's ladder table moved by up to 1.2 points): the study's readers leave those rows out,
    keep only the dataset's judges that are not exact, and still count its games and CPU."""
    from analysis import scan
    from analysis.load import catalogue_beside, load_results, load_study

    assert catalogue_beside(study / "pysol", study) and not catalogue_beside(study / "ladder", study)
    assert not catalogue_beside(study / "pysol", study / "pysol")  # (read on its own, a PySol dataset is read whole)
    df, _ = load_study(study)
    assert not (df.dataset == "pysol").any()  # (its players' rows and its verdicts, the solver's, are the catalogue's)
    whole = load_results(study / "pysol")
    assert df.attrs["games_held"]["pysol"] == len(whole)
    assert df.attrs["cpu_us_held"]["pysol"] == int(whole.cpu_us.sum())
    assert "pysol" not in set(scan.of(study).held.dataset) or int(scan.of(study).held.set_index("dataset").games.get("pysol", 0)) == 0


def test_the_reports_ratings_section_shows_the_catalogue_shipped_beside_the_data(study, tmp_path):
    from analysis.report import build_report
    from sim.core.rules import find_game

    folder = study / catalogue.FOLDER
    folder.mkdir(exist_ok=True)
    for game in ("streets-and-alleys", "citadel"):
        c = catalogue.build(study, game, last=220, predict=game == "streets-and-alleys")
        (folder / catalogue.file_name(find_game(game))).write_text(catalogue.text(c, find_game(game)))
    try:
        html = build_report(study, tmp_path / "report", reference=None).read_text()
    finally:
        import shutil

        shutil.rmtree(folder)
    assert "PySol FC&#39;s game numbers by tier" in html or "PySol FC's game numbers by tier" in html
    table = pd.read_csv(tmp_path / "report" / "tables" / "ratings_pysol.csv")
    assert list(table.game) == ["streets-and-alleys", "citadel"] and list(table.unsolved) == [20, 20]
    # Citadel, which the study's ladder did not play: its rungs and tiers on its own scale, from PySol's numbers
    own = catalogue.own_scale(study, "citadel")
    players = pd.read_csv(tmp_path / "report" / "tables" / "ratings_players.csv")
    np.testing.assert_allclose(players[players.game == "citadel"].set_index("player").rating.sort_index(),
                               own.players().set_index("player").rating.sort_index())
    tiers = pd.read_csv(tmp_path / "report" / "tables" / "ratings_tiers.csv")
    assert tiers[tiers.game == "citadel"].deals.sum() == len(own.deals)
    import html as markup

    words = markup.unescape(re.sub(r"<[^>]+>", "", html))
    assert "Citadel (PySol's numbers, a scale of its own)" in words  # (its column, its tiers' rows)
    assert f"Citadel ({len(own.deals):,} rated numbers of PySol's 1-200): the study's ladder did not play it" in words


def test_a_pysol_catalogue_beside_the_study_moves_no_winnability_the_study_states(tmp_path):
    """PySol's numbers were not drawn for the study's estimates: beside the study, a catalogue's verdicts (its solver
    and phased rows, seed -1) are the catalogue's alone (analysis.catalogue reads them), so each game's winnability, the
    paired comparison and castle summary's perfect play are those of the seeded deals, as without the catalogue; its
    judges' indexes still reach the study's difficulty tables."""
    from analysis import designs, scan, summary, winnability
    from analysis.load import count_cheap_rows, load_results, load_study
    from tests.synthetic import write_dataset

    games = ("streets-and-alleys", "selective-castle")
    write_dataset(tmp_path / "study" / "seeded", deals=300, games=games, judged=True)
    write_dataset(tmp_path / "study" / "pysol", deals=250, games=games, judged=True, seed=-1)
    df, held = load_study(tmp_path / "study", judged_only=True)
    alone = load_results(tmp_path / "study" / "seeded", judged_only=True)
    pysol = df[df.seed == -1]
    assert len(pysol) and not designs.exact_mask(pysol.player).any() and "corridor" in set(pysol.player.astype(str))
    assert designs.perfect_play_by_game(df) == designs.perfect_play_by_game(alone)
    solver = df[designs.exact_mask(df.player)]
    pair = winnability.perfect_play_pair(solver, "selective-castle", "streets-and-alleys")
    assert pair.deals == winnability.perfect_play_pair(alone[designs.exact_mask(alone.player)], "selective-castle", "streets-and-alleys").deals
    cheap = scan.of(tmp_path / "study")
    count_cheap_rows(df, cheap)
    perfect = [line for line in summary.lines(df, cheap, held) if line.role == "perfect play"]
    assert len(perfect) == 2 and {line.seeds for line in perfect} == {"0"}
    corridor = [line for line in summary.lines(df, cheap, held) if line.player == "corridor"]
    assert {(line.seeds, line.deal_span) for line in corridor} == {  # (its judges' lines say the deals of each seed)
        ("-1 (PySol's deals), 0", "deals 1-250 of seed -1 (PySol's deals); deals 0-299 of seed 0")}
    assert df.attrs["games_held"]["pysol"] == len(load_results(tmp_path / "study" / "pysol"))  # (played: counted)


def test_the_header_counts_won_numbers_left_without_a_tier(study):
    """A won number the ladder did not play, in a game with no rating model to predict it (Citadel's 2,001-10,000),
    has no tier: the header says so and how many, where it would otherwise say that only a lost or unknown number
    has none."""
    from sim.core.rules import find_game

    c = catalogue.build(study, "citadel", last=200, predict=False)
    assert "won numbers the ladder did not play" not in catalogue.text(c, find_game("citadel"))
    won = c.deals.index[c.deals.verdict == "won"][:3]
    c.deals.loc[won, ["tier", "rating", "basis"]] = ["", np.nan, ""]
    assert "and 3 won numbers the ladder did not play" in catalogue.text(c, find_game("citadel"))
