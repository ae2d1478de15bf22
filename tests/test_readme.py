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
