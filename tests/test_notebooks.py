"""Every notebook runs top to bottom on small datasets made in the test run.

One dataset comes from the real runner (the three games, two players), the
other is synthetic and carries the solver's columns (``nodes``,
``bases_won``), so every branch of the notebooks executes.
"""

from __future__ import annotations

import json

import jupytext
import pytest

from analysis.notebooks import NOTEBOOKS, execute
from synthetic import write_dataset


@pytest.fixture(scope="module", params=["runner", "synthetic"])
def dataset(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"nb-{request.param}")
    if request.param == "synthetic":
        return write_dataset(root, deals=150)
    from sim.study.experiment import build
    from sim.study.runner import run

    games = ["selective-castle", "streets-and-alleys", "beleaguered-castle"]
    run(build({}, games=games, players=["random:max_moves=300", "greedy"], deals=120, chunk_size=60), root, jobs=1)
    return root


@pytest.mark.parametrize("script", NOTEBOOKS, ids=[s.stem for s in NOTEBOOKS])
def test_notebook_executes_and_writes_its_figures(script, dataset, tmp_path):
    out = execute(script, dataset, tmp_path / "figures", out=tmp_path / f"{script.stem}.ipynb")
    nb = json.loads(out.read_text())
    errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    figures = list((tmp_path / "figures").glob(f"{script.stem[:2]}-*.png"))
    assert figures, "the notebook wrote no figure"


@pytest.mark.parametrize("script", NOTEBOOKS, ids=[s.stem for s in NOTEBOOKS])
def test_committed_notebook_is_paired_with_its_script(script):
    paired = script.with_suffix(".ipynb")
    assert paired.exists(), f"run: jupytext --to ipynb {script}"
    a = [c.source for c in jupytext.read(script).cells]
    b = [c.source for c in jupytext.read(paired).cells]
    assert a == b, f"{paired.name} is out of date: run jupytext --sync {script}"
