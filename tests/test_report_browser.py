"""The report in a real browser (Debian's Chromium, headless, driven by Playwright), at 1280×800.

Screenshots go to reports/screenshots/ (kept out of git) for a person to look at.
"""

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
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu"])
        yield b
        b.close()


def shot(page, name: str, full: bool = True) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def test_the_report_reads_in_a_1280_pixel_window(browser, tmp_path):
    """The report at 1280 pixels: nothing wider than the window, every figure drawn, the contents linked; a screenshot kept."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from synthetic import write_dataset

    from analysis.report import build_report

    index = build_report(write_dataset(tmp_path / "data", deals=300), tmp_path / "report", reference=None, replays=False)
    pg = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        pg.goto(index.as_uri())
        assert pg.evaluate("document.documentElement.scrollWidth") <= 1280
        widths = pg.evaluate("[...document.querySelectorAll('figure img')].map(i => [i.naturalWidth, i.getBoundingClientRect().right])")
        assert widths and all(w > 0 and right <= 1280 for w, right in widths)
        tables = pg.evaluate("[...document.querySelectorAll('.tablebox')].map(b => b.getBoundingClientRect().right)")
        assert tables and max(tables) <= 1280
        links = pg.evaluate("[...document.querySelectorAll('nav.toc a')].map(a => document.querySelector(a.getAttribute('href')) !== null)")
        assert len(links) >= 8 and all(links)
        shot(pg, "report")
    finally:
        pg.close()
