"""Debian's Chromium driven by Playwright, for the browser tests: the module (and so the test importing it) is
skipped when either is missing (``apt-get install chromium``; Playwright comes with the dev extra and never
downloads a browser here). Screenshots go to reports/screenshots/ (kept out of git) for a person to look at."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[1] / "reports" / "screenshots"

if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install playwright)")


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a test module."""
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu"])
        yield b
        b.close()


def shot(page, name: str, full_page: bool = True) -> None:
    """The page as a person would see it, to reports/screenshots/<name>.png."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)
