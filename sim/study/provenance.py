"""Where a dataset came from: the package version, the git commit of the code that ran, the time.

Plain Python, no third-party import: ``castle --version`` reads it too.
"""

from __future__ import annotations

import datetime as _dt
import subprocess
from pathlib import Path


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def package_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("castle-sim")
    except PackageNotFoundError:
        return None


def git_commit() -> str | None:
    """The commit of the code that runs (``-dirty`` if it has changes), or None outside a checkout."""
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=here, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if rev.returncode != 0:
        return None
    return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
