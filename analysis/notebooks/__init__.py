"""Execute the notebooks (their jupytext scripts) on a dataset: ``make figures`` and the tests.

A notebook may be opened from anywhere (Jupyter starts its kernel in the
notebook's own folder, ``analysis/notebooks/``): :func:`open_study` finds the
shipped data and the figures folder from the checkout the package lives in,
never relative to an arbitrary current folder (see :func:`find_data` and
:func:`figures_folder`).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
NOTEBOOKS = sorted(HERE.glob("[0-9][0-9]-*.py"))
#: The checkout the package lives in: its data/published is the data a notebook falls back to, its reports/figures
#: where figures go (the tests point it elsewhere).
CHECKOUT = Path(__file__).resolve().parents[2]
#: The resolution figures are saved at (on screen they show at the notebook's own).
DPI = 200


def _holds_results(path: Path) -> bool:
    from ..parts import parquet_parts

    return bool(parquet_parts(path))


def find_data(data: str | Path | None = None) -> Path:
    """The dataset a notebook reads: ``data`` if given, else ``$CASTLE_DATA`` if set, else ``data/published``
    in the current folder if it holds results, else the ``data/published`` of the checkout (:data:`CHECKOUT`).

    A folder named by ``data`` or ``$CASTLE_DATA`` is taken as it is (:func:`open_study` reports it if it holds
    no results); otherwise a :class:`~analysis.load.ResultsError` names every folder tried when none holds results.
    """
    from ..load import ResultsError

    if data:
        return Path(data)
    if os.environ.get("CASTLE_DATA"):
        return Path(os.environ["CASTLE_DATA"])
    tried = []
    for candidate in (Path.cwd() / "data" / "published", CHECKOUT / "data" / "published"):
        if candidate in tried:
            continue
        if _holds_results(candidate):
            return candidate
        tried.append(candidate)
    raise ResultsError("no results found; tried " + " and ".join(str(t) for t in tried)
                       + " (set CASTLE_DATA, or the notebook's DATA, to a dataset or a folder of them)")


def figures_folder() -> Path:
    """Where a notebook saves its figures: ``$CASTLE_FIGURES`` if set, else the checkout's ``reports/figures``."""
    return Path(os.environ.get("CASTLE_FIGURES") or CHECKOUT / "reports" / "figures")


def open_study(data: str | Path | None = None):
    """A notebook's start: its dataset (:func:`find_data`), loaded.

    Returns ``(df, manifests, figures)``: every row, the experiments'
    manifests, and the folder the notebook saves its figures to
    (:func:`figures_folder`), created.
    """
    from ..load import ResultsError, load_study

    path = find_data(data)
    source = "DATA" if data else "CASTLE_DATA" if os.environ.get("CASTLE_DATA") else None
    if source and not _holds_results(path):
        raise ResultsError(f"no results in {path} (named by {source}; expected a dataset or a folder of them)")
    df, manifests = load_study(path)
    figures = figures_folder()
    figures.mkdir(parents=True, exist_ok=True)
    return df, manifests, figures


def show(fig, path: str | Path) -> Path:
    """Save ``fig`` to ``path`` at :data:`DPI` and show it once in the notebook.

    The figure is closed first, so the inline backend does not show it a
    second time at the end of the cell; outside a notebook nothing is shown.
    """
    import matplotlib.pyplot as plt

    path = Path(path)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # a script run without IPython: the file is the figure
        return path
    if get_ipython() is not None:
        display(fig)
    return path


def study_players(df) -> list[str]:
    """The heuristic players that played two games of the study or more (the ladder's rungs, not the variants
    of one game's experiments, such as the advice's), weakest first: the report's rule
    (:func:`analysis.compare.headline_players`)."""
    from ..compare import headline_players
    from ..stats import players_by_strength

    return headline_players(df, players_by_strength(df))


def _missing(x) -> bool:
    import pandas as pd

    return x is None or bool(pd.isna(x))


def pct(x: float, digits: int = 1) -> str:
    """A share as a percentage for a table (empty when missing)."""
    return "" if _missing(x) else f"{100 * x:.{digits}f}%"


def interval(lo: float, hi: float, digits: int = 1) -> str:
    """A 95% interval of shares, in percent, for a table (empty when missing)."""
    return "" if _missing(lo) or _missing(hi) else f"{100 * lo:.{digits}f} to {100 * hi:.{digits}f}"


def points(x: float, digits: int = 2) -> str:
    """A difference of shares in signed percentage points (empty when missing)."""
    return "" if _missing(x) else f"{100 * x:+.{digits}f}"


def execute(script: Path, data: Path | None, figures: Path | None, out: Path | None = None, timeout: int = 600,
            cwd: Path | None = None) -> Path:
    """Run one notebook script top to bottom with ``data`` and ``figures``; write the executed .ipynb.

    ``data`` and ``figures`` become ``$CASTLE_DATA`` and ``$CASTLE_FIGURES``;
    None leaves the variable unset, so the notebook finds its data and its
    figures folder as it does when opened by hand (:func:`find_data`,
    :func:`figures_folder`). ``cwd``: the kernel's working folder (default
    the checkout). The committed .ipynb beside each script stays
    output-free; executed copies go to ``out`` (``reports/notebooks/`` for
    ``make figures``).
    """
    import jupytext
    from nbclient import NotebookClient

    nb = jupytext.read(script)
    env = {"CASTLE_DATA": str(Path(data).resolve()) if data is not None else None,
           "CASTLE_FIGURES": str(Path(figures).resolve()) if figures is not None else None}
    old = {k: os.environ.get(k) for k in env}
    _set(env)
    try:
        path = str(Path(cwd or CHECKOUT).resolve())
        with tempfile.TemporaryDirectory(prefix="castle-kernel-") as sockets:
            km = kernel(Path(sockets))
            try:
                NotebookClient(nb, km=km, timeout=timeout, resources={"metadata": {"path": path}}).execute()
            finally:  # a kernel handed to the client is ours to stop, before its sockets' folder goes
                if km.has_kernel:
                    km.shutdown_kernel(now=True)
    finally:
        _set(old)
    out = out or script.with_suffix(".ipynb")
    jupytext.write(nb, out, fmt="ipynb")
    return out


def kernel(sockets: Path):
    """A Python kernel that talks over Unix sockets in ``sockets`` (a private folder), not TCP: nothing listens on a
    port, and ipykernel has no reason to warn that its traffic is unencrypted."""
    from jupyter_client import KernelManager

    return KernelManager(kernel_name="python3", transport="ipc", connection_file=str(sockets / "kernel.json"))


def _set(env: dict[str, str | None]) -> None:
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def main(argv: list[str] | None = None) -> int:
    """``python -m analysis.notebooks [DATA]``: every notebook executed on DATA into ``reports/notebooks/``."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m analysis.notebooks",
                                 description="Execute every notebook on DATA into reports/notebooks/ (make figures).")
    ap.add_argument("data", nargs="?", type=Path, default=CHECKOUT / "data" / "published", help="the study's results folder")
    args = ap.parse_args(argv)
    if not _holds_results(args.data):
        print(f"analysis.notebooks: no results in {args.data} (expected a dataset or a folder of them)", file=sys.stderr)
        return 2
    from nbclient.exceptions import CellExecutionError

    figures = figures_folder()
    executed = CHECKOUT / "reports" / "notebooks"
    executed.mkdir(parents=True, exist_ok=True)
    for script in NOTEBOOKS:
        try:
            print(execute(script, args.data, figures, out=executed / f"{script.stem}.ipynb"))
        except CellExecutionError as e:  # the cell's own error, last line: the whole trace is the notebook's to show
            last = next((line for line in reversed(str(e).strip().splitlines()) if line.strip()), "failed")
            print(f"analysis.notebooks: {script.name}: {last}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
