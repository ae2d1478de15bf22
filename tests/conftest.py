"""The ``engine`` fixture: each rule test runs on the reference and the compiled engine."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `import engines` from any rootdir

from engines import CompiledEngine, ReferenceEngine  # noqa: E402


@pytest.fixture(scope="session", params=["reference", "compiled"], ids=["reference", "compiled"])
def engine(request):
    return ReferenceEngine() if request.param == "reference" else CompiledEngine()
