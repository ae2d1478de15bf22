"""Every notebook runs top to bottom on a small dataset made in the test run."""

from __future__ import annotations

import json

import jupytext
import pytest

from analysis.notebooks import NOTEBOOKS, execute
from synthetic import write_dataset


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return write_dataset(tmp_path_factory.mktemp("nb-results"), deals=150)


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
