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
