"""Paths and defaults, defined once (cookiecutter-data-science style)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "data"
REPORTS_DIR = ROOT / "reports"
EXPERIMENTS_DIR = ROOT / "experiments"
DEFAULT_EXPERIMENT = EXPERIMENTS_DIR / "default.toml"
DEFAULT_DATA = DATA_DIR / "default"
DEFAULT_REPORT = REPORTS_DIR / "default"
