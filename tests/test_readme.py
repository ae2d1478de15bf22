"""The README's results are the shipped data's: every number in its tables is recomputed from data/published."""

from __future__ import annotations

from pathlib import Path

from analysis import readme

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_results_are_recomputed_from_the_shipped_data():
    text = (ROOT / "README.md").read_text()
    assert readme.START in text and readme.END in text
    block = text.split(readme.START, 1)[1].split(readme.END, 1)[0]
    fresh = readme.results(ROOT / "data" / "published").split(readme.START, 1)[1].split(readme.END, 1)[0]
    assert block == fresh, "README.md's results differ from data/published: run `make figures`"


def test_the_readme_shows_its_figures_and_they_are_in_git():
    text = (ROOT / "README.md").read_text()
    shown = [stem for stem, _ in readme.FIGURES if f"reports/readme/{stem}.png" in text]
    assert shown[:2] == ["answer", "ladder"], "the README shows the answer and the ladder first"
    for stem in shown:
        assert (ROOT / "reports" / "readme" / f"{stem}.png").stat().st_size > 10_000
    kept = {p.stem for p in (ROOT / "reports" / "readme").glob("*.png")}
    assert kept == set(shown), "every figure kept in reports/readme is one the README shows"


def test_a_study_still_running_says_so_above_its_figures(tmp_path):
    import json

    from synthetic import write_dataset

    done = write_dataset(tmp_path / "study" / "done", deals=50, players=("greedy",))
    running = write_dataset(tmp_path / "study" / "running", deals=50, players=("greedy",))
    manifest = json.loads((running / "_manifest.json").read_text())
    manifest["experiment"].update(deal_range=[0, 200], players={"greedy": {}, "solver": {}})
    manifest["finished"] = None
    (running / "_manifest.json").write_text(json.dumps(manifest))
    block = readme.results(tmp_path / "study")
    said = next(p for p in block.split("\n\n") if "still running" in p)
    assert "`running` 300 of 1,200 games" in said  # 50 deals x 3 games x 2 players of 200 x 3 x 2
    assert "`done`" not in said
    assert block.index(said) < block.index("Winnability under perfect play")


def test_the_answer_comes_first_and_follows_the_paired_interval(tmp_path):
    from synthetic import write_dataset

    block = readme.results(write_dataset(tmp_path / "study", deals=300, players=("greedy",)))
    first = block.split("\n\n")[1]
    assert first.startswith("**The answer:**") and "Selective Castle is **easier**" in first  # 75% against 50% by construction
    assert "no deal won in Streets and Alleys is lost in Selective Castle" in first


def test_the_effort_table_reads_only_runs_that_played_every_one_of_its_deals():
    """A run on all of deals 1-2,000 gets its row (unknown share by budget, at its cap, mean CPU); a run still
    part-way gets none; Solvitaire's figures stand beside each game."""
    import pandas as pd

    deals = range(1, 2001)
    full = pd.DataFrame({"game": "streets-and-alleys", "player": "solver:dead_end=1", "seed": 0, "deal": deals,
                         "result": ["unknown" if d <= 4 else "won" if d % 2 else "lost" for d in deals],
                         "cpu_us": [100e6 if d <= 4 else 20e6 if d <= 24 else 1e5 for d in deals]})
    part = full.assign(player="solver:budget_nodes=1000").iloc[:1500]
    table = readme.effort_table(pd.concat([full, part], ignore_index=True)).splitlines()
    ours = next(line for line in table if "solver:dead_end=1" in line).split("|")
    # 4 unknown and 20 deals of 20 s: unsettled within 10 s 1.20%, within 30 s 0.20%, at the cap 0.20% (4)
    assert [c.strip() for c in ours[4:9]] == ["1.20%", "1.20%", "0.20%", "0.20%", "0.20% (4)"]
    assert not any("budget_nodes=1000" in line for line in table)
    assert sum("Solvitaire" in line for line in table) == 2 and "0.232%" in "\n".join(table)


def test_bad_folders_are_one_line_and_exit_2_and_nothing_is_touched(tmp_path, capsys):
    figures = {p.name: p.stat().st_mtime_ns for p in (ROOT / "reports" / "readme").glob("*.png")}
    before = (ROOT / "README.md").read_bytes()
    assert readme.main([str(tmp_path / "no-such-results")]) == 2
    assert readme.main([str(ROOT / "data" / "published"), str(tmp_path / "no-such-report")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "no results in" in err[0] and "is not a report" in err[1]
    assert "Traceback" not in "\n".join(err)
    assert (ROOT / "README.md").read_bytes() == before
    assert {p.name: p.stat().st_mtime_ns for p in (ROOT / "reports" / "readme").glob("*.png")} == figures


def test_the_conventions_are_said_once_in_the_readme_and_the_same_in_the_report():
    """The README states the conventions above its results, outside the generated block, and the report's closing
    section renders the very same text (:data:`analysis.conventions.TEXT`)."""
    from markupsafe import escape

    from analysis import conventions
    from analysis.report import environment

    text = (ROOT / "README.md").read_text()
    said = "**Conventions.** " + conventions.TEXT
    assert text.count(said) == 1 and text.index(said) < text.index(readme.START)
    page = environment().get_template("experiments.html.j2").render(conventions=conventions.TEXT, rule="", pairing="",
                                                                      table=None, manifests="")
    assert str(escape(conventions.TEXT)) in page


def test_a_change_of_a_runs_deals_is_said_from_its_manifest():
    """A manifest's ``range_changes`` (as data/published/precision-beleaguered's records its growth) becomes a sentence
    of the results: the ranges, when, how many deals in, and why."""
    held = {"precision-x": {"range_changes": [{"from": [10, 410], "to": [10, 510], "at": "2026-12-04T12:38:31+00:00",
                                                "deals_played": 158, "reason": "the variance said so",
                                                "recorded": "added afterwards"}]}}
    said = readme.range_changes(held)[0]
    assert "`precision-x`'s deals grew from 10-409 to 10-509" in said and "2026-12-04 12:38 UTC, 158 deals in" in said
    assert "the variance said so (added afterwards)" in said
    assert readme.range_changes({"precision-y": {}}) == []
    # a run's first range (what castle run records when it makes a folder) is where it started, not a change
    first = {"from": None, "to": [1, 2001], "at": "2026-12-07T00:33:03+00:00", "reason": "the experiment asked for deals 1 to 2000"}
    assert readme.range_changes({"ladder-x": {"range_changes": [first]}}) == []  # (was: TypeError, unpacking None)
    assert "`ladder-x`'s deals grew from 10-409" in readme.range_changes(
        {"ladder-x": {"range_changes": [first, held["precision-x"]["range_changes"][0]]}})[0]
    import json

    shipped = json.loads((ROOT / "data" / "published" / "precision-beleaguered" / "_manifest.json").read_text())
    change = shipped["range_changes"][0]
    assert change["from"] == [10000, 410000] and change["to"] == shipped["experiment"]["deal_range"]
    first = next(r for r in shipped["runs"] if r["deal_range"] == change["to"])  # the first run with the new range
    assert change["at"] == first["started"] and change["deals_played"] == 500_000 - first["deals_to_play"]
