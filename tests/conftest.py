"""The ``engine`` fixture: each rule test runs on the reference and the compiled engine."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `import engines` from any rootdir

from engines import CompiledEngine, ReferenceEngine  # noqa: E402


def _compiled_engine_missing() -> str | None:
    """Why the compiled engine cannot be used, or None.

    Only a missing ``sim.game`` module skips; a module that exists but fails
    to import is an error the tests must show, not hide.
    """
    try:
        importlib.import_module("sim.game")
    except ModuleNotFoundError as exc:
        if exc.name in ("sim.game", "sim"):
            return "no compiled engine (sim.game) yet"
        raise
    return None


@pytest.fixture(scope="session", params=["reference", "compiled"], ids=["reference", "compiled"])
def engine(request):
    if request.param == "reference":
        return ReferenceEngine()
    missing = _compiled_engine_missing()
    if missing:
        pytest.skip(missing)
    return CompiledEngine()
