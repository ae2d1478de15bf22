"""Default paths, defined once, relative to the folder the command runs in (like every command-line tool).

Results go to ``data/<experiment name>``, reports to ``reports/<dataset
name>``, wherever the package is installed.
"""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path("data")
REPORTS_DIR = Path("reports")
DEFAULT_DATA = DATA_DIR / "default"
