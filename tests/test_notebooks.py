"""Every notebook runs top to bottom on small datasets made in the test run.

One dataset comes from the real runner (the three games, two players), the
other is synthetic and carries the solver's columns (``nodes``,
``bases_won``), so every branch of the notebooks executes. A notebook shows
each figure it draws once, inline, and saves it at 200 dpi; opened from its
own folder (Jupyter's default), it finds the checkout's data and writes
nothing there.
"""

from __future__ import annotations

import json
from pathlib import Path

import jupytext
import nbformat
import pytest
from PIL import Image

import analysis.notebooks as notebooks
from analysis.load import ResultsError
from analysis.notebooks import NOTEBOOKS, execute, figures_folder, find_data, open_study
from synthetic import write_dataset

IGNORED = {"__pycache__", ".ipynb_checkpoints"}  # Python's and Jupyter's own, not the notebook's


@pytest.fixture(scope="module", params=["runner", "synthetic"])
def dataset(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"nb-{request.param}")
    if request.param == "synthetic":
        return write_dataset(root, deals=150, judged=True)
    from sim.study.experiment import build
    from sim.study.runner import run

    games = ["selective-castle", "streets-and-alleys", "beleaguered-castle"]
    run(build({}, games=games, players=["random:max_moves=300", "greedy"], deals=120, chunk_size=60), root, jobs=1)
    return root


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """A stand-in for the checkout the package lives in: a small study in its data/published."""
    root = tmp_path_factory.mktemp("checkout")
    write_dataset(root / "data" / "published" / "synthetic", deals=60)
    return root


def _outputs(nb: dict) -> list[dict]:
    return [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]


def _inline_figures(nb: dict) -> list[dict]:
    return [o for o in _outputs(nb) if o.get("output_type") in ("display_data", "execute_result") and "image/png" in o.get("data", {})]


@pytest.mark.parametrize("script", NOTEBOOKS, ids=[s.stem for s in NOTEBOOKS])
def test_notebook_executes_shows_and_saves_its_figures(script, dataset, tmp_path):
    """Each figure shown once inline (a PNG output) and saved at 200 dpi."""
    out = execute(script, dataset, tmp_path / "figures", out=tmp_path / f"{script.stem}.ipynb")
    nb = json.loads(out.read_text())
    errors = [o for o in _outputs(nb) if o.get("output_type") == "error"]
    assert not errors, errors[0].get("traceback")
    saved = sorted((tmp_path / "figures").glob(f"{script.stem[:2]}-*.png"))
    assert saved, "the notebook wrote no figure"
    for f in saved:
        dpi = Image.open(f).info.get("dpi")
        assert dpi and round(dpi[0]) == 200, f"{f.name} saved at {dpi} dpi, not 200"
    inline = _inline_figures(nb)
    assert inline, "the executed notebook shows no figure inline"
    assert len(inline) == len(saved), f"{len(inline)} figures shown inline for {len(saved)} saved (one shown twice?)"
    texts = ["".join(o["data"]["text/plain"]) for o in _outputs(nb) if "image/png" not in o.get("data", {"image/png": 0})
             and "text/plain" in o["data"]]
    assert not [t for t in texts if t.startswith("<Figure size")], "a figure shown as text, not as an image"


@pytest.mark.parametrize("script", NOTEBOOKS, ids=[s.stem for s in NOTEBOOKS])
def test_notebook_opened_from_its_folder_finds_the_checkouts_data(script, checkout, tmp_path, monkeypatch):
    """As when Jupyter opens the notebook where it lies: the kernel runs in analysis/notebooks/, with no
    CASTLE_DATA nor CASTLE_FIGURES. The package's checkout is pointed at a small study (a first cell sets
    ``CHECKOUT`` in the kernel); the notebook must read it, save its figures in the checkout's reports/figures,
    and create nothing in its own folder."""
    monkeypatch.delenv("CASTLE_DATA", raising=False)
    monkeypatch.delenv("CASTLE_FIGURES", raising=False)
    nb = jupytext.read(script)
    nb.cells.insert(0, nbformat.v4.new_code_cell(
        f"import analysis.notebooks, pathlib\nanalysis.notebooks.CHECKOUT = pathlib.Path({str(checkout)!r})"))
    copy = tmp_path / script.name
    jupytext.write(nb, copy, fmt="py:percent")
    before = {p.name for p in notebooks.HERE.iterdir()} - IGNORED
    try:
        out = execute(copy, None, None, out=tmp_path / f"{script.stem}.ipynb", cwd=notebooks.HERE)
    finally:
        stray = ({p.name for p in notebooks.HERE.iterdir()} - IGNORED) - before
    assert not stray, f"the notebook created {sorted(stray)} in {notebooks.HERE}"
    executed = json.loads(out.read_text())
    errors = [o for o in _outputs(executed) if o.get("output_type") == "error"]
    assert not errors, errors[0].get("traceback")
    assert list((checkout / "reports" / "figures").glob(f"{script.stem[:2]}-*.png")), "no figure in the checkout's reports/figures"
    assert _inline_figures(executed)


def test_find_data_order(tmp_path, monkeypatch):
    """$CASTLE_DATA, else data/published here if it holds results, else the checkout's; an error naming both."""
    here, checkout = tmp_path / "here", tmp_path / "checkout"
    here.mkdir()
    monkeypatch.setattr(notebooks, "CHECKOUT", checkout)
    monkeypatch.chdir(here)
    monkeypatch.delenv("CASTLE_DATA", raising=False)

    with pytest.raises(ResultsError) as e:  # nothing anywhere: both places named
        find_data()
    assert str(here / "data" / "published") in str(e.value) and str(checkout / "data" / "published") in str(e.value)

    write_dataset(checkout / "data" / "published" / "one", deals=10)
    assert find_data() == checkout / "data" / "published"

    (here / "data" / "published").mkdir(parents=True)  # an empty folder here holds no results: still the checkout's
    assert find_data() == checkout / "data" / "published"

    write_dataset(here / "data" / "published" / "two", deals=10)
    assert find_data() == here / "data" / "published"

    monkeypatch.setenv("CASTLE_DATA", str(tmp_path / "elsewhere"))
    assert find_data() == tmp_path / "elsewhere"
    assert find_data(tmp_path / "given") == tmp_path / "given"


def test_open_study_from_another_folder_creates_nothing_there(tmp_path, monkeypatch):
    here, checkout = tmp_path / "analysis" / "notebooks", tmp_path / "checkout"
    here.mkdir(parents=True)
    write_dataset(checkout / "data" / "published" / "one", deals=10)
    monkeypatch.setattr(notebooks, "CHECKOUT", checkout)
    monkeypatch.chdir(here)
    monkeypatch.delenv("CASTLE_DATA", raising=False)
    monkeypatch.delenv("CASTLE_FIGURES", raising=False)

    df, manifests, figures = open_study()
    assert len(df) and list(manifests) == ["one"]
    assert figures == checkout / "reports" / "figures" and figures.is_dir()
    assert list(here.iterdir()) == []

    monkeypatch.setenv("CASTLE_FIGURES", str(tmp_path / "figs"))
    assert figures_folder() == tmp_path / "figs"


def test_open_study_names_a_data_folder_without_results(tmp_path, monkeypatch):
    monkeypatch.setenv("CASTLE_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("CASTLE_FIGURES", str(tmp_path / "figs"))
    with pytest.raises(ResultsError, match="CASTLE_DATA"):
        open_study()
    assert not (tmp_path / "figs").exists()


@pytest.mark.parametrize("script", NOTEBOOKS, ids=[s.stem for s in NOTEBOOKS])
def test_committed_notebook_is_paired_with_its_script(script):
    paired = script.with_suffix(".ipynb")
    assert paired.exists(), f"run: jupytext --to ipynb {script}"
    a = [c.source for c in jupytext.read(script).cells]
    b = [c.source for c in jupytext.read(paired).cells]
    assert a == b, f"{paired.name} is out of date: run jupytext --sync {script}"
    outputs = [c for c in json.loads(paired.read_text())["cells"] if c.get("outputs") or c.get("execution_count")]
    assert not outputs, f"{paired.name} carries outputs: commit it output-free"


def test_a_folder_without_results_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "missing", tmp_path / "empty"):
        assert notebooks.main([str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("analysis.notebooks: no results in") for line in err)


def _markdown(nb: dict) -> str:
    return "\n".join("".join(o["data"]["text/markdown"]) for o in _outputs(nb) if "text/markdown" in o.get("data", {}))


def test_the_notebooks_show_the_readmes_numbers(tmp_path):
    """Every figure the README quotes that a notebook shows too comes from the README's own functions, on the
    notebook's data: the answer, each game's winnability, the deal-by-deal pairs (01), the ladder and the difficulty
    index (03) each appear in the executed notebook exactly as the README's block would say them."""
    from analysis import readme, readme_tables, stats
    from analysis.load import load_study

    data = write_dataset(tmp_path / "data", deals=150, judged=True)
    df, manifests = load_study(data)
    solver = df[stats.solver_mask(df.player)]
    expected = {"01-win-rates": ["\n".join(readme.headline(df)), readme_tables.winnability_table(df, manifests),
                                 readme_tables.perfect_play_table(solver)],
                "03-difficulty": [readme_tables.ladder_table(df), readme_tables.difficulty_table(df)]}
    assert "**The answer:**" in expected["01-win-rates"][0]  # the dataset has what the README's answer needs
    for stem, blocks in expected.items():
        script = next(s for s in NOTEBOOKS if s.stem == stem)
        shown = _markdown(json.loads(execute(script, data, tmp_path / "figures", out=tmp_path / f"{stem}.ipynb").read_text()))
        for block in blocks:
            assert block.startswith(("|", "**")), block[:80]  # a table or the answer, not a "not in the data" note
            assert block in shown, f"{stem} does not show the README's\n{block[:300]}"
