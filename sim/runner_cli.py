"""The `castle` commands of the runner (filled in by the runner issue)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
