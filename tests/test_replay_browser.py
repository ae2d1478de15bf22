"""The replay page and the report in a real browser: Debian's Chromium, headless, driven by Playwright.

The page is stepped with its own buttons, keys and slider; at each checked
step the cards' drawn places (read from the page, not from its data) must be
the engine's position. Screenshots go to reports/screenshots/ (kept out of
git) for a person to look at. Skips when Chromium or Playwright is missing
(``apt-get install chromium``; Playwright comes with the dev extra and never
downloads a browser here).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.core.cards import SUITS
from sim.core.game import Game
from sim.core.rules import GAMES
from sim.render.svg import FAN, Layout, card_label

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


@pytest.fixture
def page(browser):
    pg = browser.new_page(viewport={"width": 1200, "height": 900})
    yield pg
    pg.close()


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


_DRAWN = """() => {
  const svg = document.querySelector('.board svg');
  const box = svg.getBoundingClientRect();
  const k = box.width / svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll('.cb-card')].map(g => {
    const r = g.getBoundingClientRect();
    return [g.getAttribute('data-card'), Math.round((r.left - box.left) / k), Math.round((r.top - box.top) / k)];
  });
}"""


def drawn_position(page, rules) -> tuple[list[list[str]], list[str | None]]:
    """The piles and foundation tops as the page draws them, worked out from where each glyph is."""
    lay = Layout(rules, 1, title=False)
    piles: list[list[tuple[int, str]]] = [[] for _ in range(rules.n_piles)]
    tops: list[str | None] = [None] * 4
    for card, x, y in page.evaluate(_DRAWN):  # document order: a later glyph is drawn over an earlier one
        spot = next((s for s in range(4) if (x, y) == lay.foundation_xy(s)), None)
        if spot is not None:
            tops[spot] = card
            continue
        (p,) = [p for p in range(rules.n_piles) if x == lay.pile_xy(p)[0] and y >= lay.pile_xy(p)[1]
                and (y - lay.pile_xy(p)[1]) % FAN == 0 and (y == lay.pile_xy(p)[1] or not lay.is_reserve(p))]
        piles[p].append((y, card))
    return [[c for _, c in sorted(p)] for p in piles], tops


def engine_position(state) -> tuple[list[list[str]], list[str | None]]:
    pos = state.position()
    tops = [pos.foundation_top(s) for s in range(4)]
    return [[card_label(c) for c in p] for p in pos.piles], [None if t is None else card_label(t) for t in tops]


def counts_shown(page) -> list[str]:
    return [page.text_content(f'.board svg .cb-count[data-suit="{s}"]') for s in SUITS]


def check_step(page, state, k: int) -> None:
    assert page.get_attribute("body", "data-step") == str(k)
    assert drawn_position(page, state.rules) == engine_position(state)
    assert counts_shown(page) == [f"{n}/13" for n in state.position().foundations]
    assert f"{state.cards_home}/52 cards home" in page.text_content("#status")


@pytest.mark.parametrize("slug, deal, player", [
    ("streets-and-alleys", 17, "greedy"),
    ("castles-end", 4, "greedy"),
    ("beleaguered-castle", 3, "solver:budget_seconds=60"),
])
def test_next_to_the_end_shows_the_engines_final_position(page, tmp_path, slug, deal, player):
    from sim.render.replay import write_replay

    path = tmp_path / "replay.html"
    rep = write_replay(slug, deal, player, 0, path)
    n = len(rep.moves)
    assert n > 0, rep.result
    page.goto(path.as_uri())
    name = f"replay-{slug}-{deal}-{player.split(':')[0]}"
    state = Game(slug).deal(deal)
    check_step(page, state, 0)
    shot(page, f"{name}-start")
    for k, move in enumerate(rep.moves, start=1):
        page.click("#next")
        state.push(move)
        if k in (1, n // 2, n):
            check_step(page, state, k)
            current = page.text_content("ol.moves li.current")
            assert current.split()[0] == f"{k}." and str(move) in current
        if k == n // 2:
            shot(page, f"{name}-middle")
    assert page.is_disabled("#next") and page.is_disabled("#last")
    ending = page.text_content("#ending")
    assert ending.startswith("At the end: " + rep.result.replace("_", " "))
    for m in rep.legal_at_end:
        assert str(m) in ending
    shot(page, f"{name}-end")


def test_keys_slider_and_the_move_list_step_the_same_game(page, tmp_path):
    from sim.render.replay import write_replay

    path = tmp_path / "replay.html"
    rep = write_replay("selective-castle", 5, "greedy", 0, path)
    n = len(rep.moves)
    assert n >= 6
    page.goto(path.as_uri())

    def state_at(k: int):
        state = Game("selective-castle").deal(5)
        for m in rep.moves[:k]:
            state.push(m)
        return state

    page.keyboard.press("End")
    check_step(page, state_at(n), n)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    check_step(page, state_at(n - 2), n - 2)
    page.keyboard.press("Home")
    check_step(page, state_at(0), 0)
    page.keyboard.press("ArrowRight")
    check_step(page, state_at(1), 1)
    page.locator("#slider").fill(str(n // 2))
    check_step(page, state_at(n // 2), n // 2)
    page.click(f'ol.moves li[data-step="{n - 1}"]')
    check_step(page, state_at(n - 1), n - 1)
    page.click("#first")
    check_step(page, state_at(0), 0)
    page.click("#last")
    check_step(page, state_at(n), n)
    base = state_at(n).base_rank
    if base is not None:
        label = "10" if base == 9 else "A23456789TJQK"[base]
        assert page.text_content('.board svg .cb-base[data-suit="H"]') == f"base {label}"


def test_a_proved_loss_shows_the_deal_and_says_so(page, tmp_path):
    from sim.core.outcome import Result
    from sim.render.replay import write_replay
    from sim.solver.answer import solve

    game = Game("beleaguered-castle")
    if solve(game, game.deal(1)).result is not Result.LOST:
        pytest.skip("deal 1 is no longer a proved loss")
    path = tmp_path / "lost.html"
    write_replay(game, 1, "solver", 0, path)
    page.goto(path.as_uri())
    check_step(page, game.deal(1), 0)
    assert page.is_disabled("#next")
    assert "proved this deal lost" in page.text_content("#ending")
    shot(page, "replay-beleaguered-castle-1-solver-lost")


def test_boards_of_several_games_as_pictures(page):
    """Screenshots of `castle show` boards (reserves, a chosen base, a highlighted move) for a person to look at."""
    from sim.render.svg import board_svg

    ce = Game("castles-end").deal(17)
    sc = Game("selective-castle").deal(3)
    sc.push(next(m for m in sc.legal_moves if m.to_foundation))
    sp = Game("castles-in-spain").deal(2)
    boards = [board_svg(ce, title="Castles End, deal 17", move=next(iter(ce.legal_moves))),
              sc._repr_svg_(), board_svg(sp, title="Castles in Spain, deal 2")]
    page.set_content("<body style='margin:8px;background:#fff'>" + "<br>".join(boards) + "</body>")
    assert page.locator("svg.cb-board").count() == 3
    assert page.locator("svg.cb-board .cb-card").count() == 3 * 52
    shot(page, "boards")


@pytest.mark.parametrize("slug", [r.slug for r in GAMES])
def test_every_game_replays_to_the_engines_last_position(page, tmp_path, slug):
    """Each game's layout (reserves, 13 piles, a dealt foundation card, moves back from a foundation) drawn at both ends."""
    from sim.render.replay import write_replay

    path = tmp_path / "replay.html"
    rep = write_replay(slug, 2, "greedy:max_moves=300", 0, path)
    page.goto(path.as_uri())
    state = Game(slug).deal(2)
    check_step(page, state, 0)
    for m in rep.moves:
        state.push(m)
    page.keyboard.press("End")
    check_step(page, state, len(rep.moves))
