"""Execute the notebooks (their jupytext scripts) on a dataset: ``make figures`` and the tests."""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).parent
NOTEBOOKS = sorted(HERE.glob("[0-9][0-9]-*.py"))


def open_study(data: str | Path | None = None):
    """A notebook's start: its dataset (``data``, else ``$CASTLE_DATA``, else data/published), loaded.

    Returns ``(df, manifests, figures)``: every row, the experiments'
    manifests, and the folder the notebook saves its figures to
    (``$CASTLE_FIGURES``, else reports/figures), created.
    """
    from ..load import load_study

    data = Path(data or os.environ.get("CASTLE_DATA", "data/published"))
    figures = Path(os.environ.get("CASTLE_FIGURES", "reports/figures"))
    figures.mkdir(parents=True, exist_ok=True)
    df, manifests = load_study(data)
    return df, manifests, figures


def execute(script: Path, data: Path, figures: Path, out: Path | None = None, timeout: int = 600) -> Path:
    """Run one notebook script top to bottom with ``data`` and ``figures``; write the executed .ipynb.

    The committed .ipynb beside each script stays output-free; executed
    copies go to ``out`` (``reports/notebooks/`` for ``make figures``).
    """
    import jupytext
    from nbclient import NotebookClient

    nb = jupytext.read(script)
    env = {"CASTLE_DATA": str(Path(data).resolve()), "CASTLE_FIGURES": str(Path(figures).resolve())}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(HERE.parents[1])}}).execute()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    out = out or script.with_suffix(".ipynb")
    jupytext.write(nb, out, fmt="ipynb")
    return out


def main() -> None:
    import sys

    root = HERE.parents[1]
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "data" / "published"
    figures = root / "reports" / "figures"
    executed = root / "reports" / "notebooks"
    executed.mkdir(parents=True, exist_ok=True)
    for script in NOTEBOOKS:
        print(execute(script, data, figures, out=executed / f"{script.stem}.ipynb"))


if __name__ == "__main__":
    main()
