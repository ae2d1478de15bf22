"""The report in a real browser (Debian's Chromium, headless, driven by Playwright), at 1280×800.

Screenshots go to reports/screenshots/ (kept out of git) for a person to look at.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser import browser, shot  # noqa: F401  (browser: the fixture; skips this module without Chromium)


#: per table cell: its width, and the width its longest word takes in the cell's own font (a cell narrower than
#: that breaks a word, or letters one per line)
_CELLS = r"""() => {
  const probe = document.createElement('span');
  probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
  document.body.appendChild(probe);
  const out = [];
  for (const td of document.querySelectorAll('td, th')) {
    const cs = getComputedStyle(td);
    if (td.offsetParent === null) continue;  // in a folded table: not laid out
    probe.style.font = cs.font;
    let longest = 0, word = '';
    for (const w of td.textContent.split(/\s+/)) {
      probe.textContent = w;
      if (probe.getBoundingClientRect().width > longest) { longest = probe.getBoundingClientRect().width; word = w; }
    }
    const inner = td.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    out.push([word, Math.round(inner), Math.round(longest)]);
  }
  probe.remove();
  return out;
}"""


def _report(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from synthetic import write_dataset

    from analysis.report import build_report

    return build_report(write_dataset(tmp_path / "data", deals=300), tmp_path / "report", reference=None, replays=None)


def test_the_first_screen_answers_and_the_page_reads_at_1280_by_800(browser, tmp_path):
    """At 1280x800: the three winnability figures and the answer figure in the first screen; nothing wider than the
    window; no table cell narrower than its longest word; no figure shown at less than a third of its pixel width;
    every contents link goes somewhere. Screenshots of the first screen and of the whole page are kept."""
    index = _report(tmp_path)
    pg = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        pg.goto(index.as_uri())
        shot(pg, "report-first-screen", full_page=False)
        cards = pg.evaluate("[...document.querySelectorAll('.card')].map(c => [c.querySelector('.big').textContent, "
                            "c.getBoundingClientRect().bottom])")
        assert len(cards) == 3 and all(text.endswith("%") and bottom <= 800 for text, bottom in cards), cards
        answer = pg.evaluate("(() => { const r = document.querySelector('#figure-answer img').getBoundingClientRect();"
                             " return [r.top, r.bottom, r.width]; })()")
        assert answer[0] >= 0 and answer[1] <= 800 and answer[2] > 300, answer
        for game in ("Selective Castle", "Streets and Alleys", "Beleaguered Castle"):
            assert game in pg.evaluate("[...document.querySelectorAll('.card .game')].map(g => g.textContent).join('|')")

        assert pg.evaluate("document.documentElement.scrollWidth") <= 1280
        narrow = [c for c in pg.evaluate(_CELLS) if c[1] + 1 < c[2]]
        assert not narrow, f"cells narrower than their longest word: {narrow[:5]}"
        pg.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        narrow = [c for c in pg.evaluate(_CELLS) if c[1] + 1 < c[2]]
        assert not narrow, f"cells of folded tables narrower than their longest word: {narrow[:5]}"
        images = pg.evaluate("[...document.querySelectorAll('figure img')].map(i => [i.naturalWidth, "
                             "i.getBoundingClientRect().width, i.getBoundingClientRect().right])")
        assert images and all(shown >= natural / 3 and right <= 1280 for natural, shown, right in images), images
        tables = pg.evaluate("[...document.querySelectorAll('.tablebox')].map(b => b.getBoundingClientRect().right)")
        assert tables and max(tables) <= 1280
        links = pg.evaluate("[...document.querySelectorAll('nav.toc a')].map(a => document.querySelector(a.getAttribute('href')) !== null)")
        assert len(links) >= 8 and all(links)
        shot(pg, "report")
    finally:
        pg.close()


#: per table box: the table's id, the width its columns need, the width the box shows (the page's own scroll box)
_TABLE_FIT = """[...document.querySelectorAll('.tablebox')].filter(b => b.offsetParent !== null)
  .map(b => [b.querySelector('table').id, b.scrollWidth, b.clientWidth])"""


def test_no_table_hides_a_column_and_the_contents_stay_in_reach(browser, tmp_path):
    """At 1280x800 every table (the folded ones opened) fits its box, so no column is cut off behind a scroll; the
    contents stay on screen wherever the reader is; every section but the first folds, and a folded one hides its
    figures and tables."""
    index = _report(tmp_path)
    pg = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        pg.goto(index.as_uri())
        pg.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        boxes = pg.evaluate(_TABLE_FIT)
        assert len(boxes) >= 5, boxes
        clipped = [b for b in boxes if b[1] > b[2] + 1]
        assert not clipped, f"tables wider than their box (id, needs, shows): {clipped}"

        height = pg.evaluate("document.documentElement.scrollHeight")
        assert height > 3 * 800  # the test means something only on a long page
        for y in (height // 2, height):
            pg.evaluate(f"window.scrollTo(0, {y})")
            first, last = pg.evaluate("(() => { const a = [...document.querySelectorAll('nav.toc a')];"
                                      " return [a[0].getBoundingClientRect().top, a[a.length - 1].getBoundingClientRect().bottom]; })()")
            assert 0 <= first and last <= 800, (y, first, last)
        shot(pg, "report-contents-scrolled", full_page=False)

        sections = pg.evaluate("document.querySelectorAll('main > section').length")
        folds = pg.evaluate("document.querySelectorAll('main > section > details.section').length")
        assert folds == sections - 1 and folds >= 8, (sections, folds)
        pg.evaluate("window.scrollTo(0, 0)")
        pg.click("details.section > summary")
        hidden = pg.evaluate("(() => { const d = document.querySelector('details.section');"
                             " return [d.open, [...d.querySelectorAll('img, table')].every(e => !e.checkVisibility())]; })()")
        assert hidden == [False, True], hidden
    finally:
        pg.close()


def test_the_studys_widest_tables_fit_beside_the_contents(browser, tmp_path):
    """The widest tables of the shipped study's report (their headers and cells as `castle report data/published`
    drew them, kept in tests/golden/report_wide_tables.json: the family's 12 columns, the precision designs' 13),
    laid out by the page's own template at 1280x800: each fits its box beside the contents column, no column cut off."""
    import json

    from markupsafe import Markup

    from analysis.report import environment
    from analysis.report.model import Section
    from analysis.report.page import Table

    env = environment()
    show = env.get_template("_macros.html.j2").module.show_table
    sections = []
    for t in json.loads((Path(__file__).parent / "golden" / "report_wide_tables.json").read_text()):
        table = Table(t["name"], t["columns"], t["rows"], kinds=t["kinds"], csv=f"tables/{t['name']}.csv")
        s = Section(t["name"], "", {})
        s.anchor, s.html = t["name"], Markup(show(table))
        sections.append(s)
    page = tmp_path / "index.html"
    page.write_text(env.get_template("page.html.j2").render(title="t", subtitle="", sections=[Section("first", "", {}), *sections]))
    pg = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        pg.goto(page.as_uri())
        boxes = pg.evaluate(_TABLE_FIT)
        assert len(boxes) == len(sections)
        clipped = [b for b in boxes if b[1] > b[2] + 1]
        assert not clipped, f"tables wider than their box (id, needs, shows): {clipped}"
        narrow = [c for c in pg.evaluate(_CELLS) if c[1] + 1 < c[2]]
        assert not narrow, f"cells narrower than their longest word: {narrow[:5]}"
    finally:
        pg.close()
