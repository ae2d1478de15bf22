"""The replay page and the report in a real browser: Debian's Chromium, headless, driven by Playwright.

The page is stepped with its own buttons, keys and slider; at each checked
step the cards' drawn places (read from the page, not from its data) must be
the engine's position. Screenshots and skipping: tests/browser.py.
"""

from __future__ import annotations

import pytest

from sim.core.cards import SUITS
from sim.game import Game
from sim.core.rules import GAMES
from sim.render.svg import FAN, Layout, card_label

from browser import browser, shot  # noqa: F401  (browser: the fixture; skips this module without Chromium)


@pytest.fixture
def page(browser):
    pg = browser.new_page(viewport={"width": 1200, "height": 900})
    yield pg
    pg.close()


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
    from sim.replay import write_replay

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
    from sim.replay import write_replay

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
    from sim.replay import write_replay
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
    from sim.replay import write_replay

    path = tmp_path / "replay.html"
    rep = write_replay(slug, 2, "greedy:max_moves=300", 0, path)
    page.goto(path.as_uri())
    state = Game(slug).deal(2)
    check_step(page, state, 0)
    for m in rep.moves:
        state.push(m)
    page.keyboard.press("End")
    check_step(page, state, len(rep.moves))


# -- links, autoplay, the back link, the accessible label, narrow windows -----------------------

_REPLAYS: dict = {}


def replay_page(tmp_path_factory, slug: str, deal: int, player: str, **kw):
    """A replay page written once per test session: (its path, the Replay)."""
    from sim.replay import write_replay

    key = (slug, deal, player, tuple(sorted(kw.items())))
    if key not in _REPLAYS:
        path = tmp_path_factory.mktemp("replays") / f"{slug}-{deal}.html"
        _REPLAYS[key] = path, write_replay(slug, deal, player, 0, path, **kw)
    return _REPLAYS[key]


def state_after(slug: str, deal: int, moves, k: int):
    state = Game(slug).deal(deal)
    for m in moves[:k]:
        state.push(m)
    return state


def test_a_link_to_a_move_opens_there_and_stepping_rewrites_the_link(browser, page, tmp_path_factory):
    path, rep = replay_page(tmp_path_factory, "selective-castle", 746, "solver:budget_seconds=60")
    n = len(rep.moves)
    assert rep.result == "won" and n > 20
    page.goto(path.as_uri() + "#move=17")
    check_step(page, state_after("selective-castle", 746, rep.moves, 17), 17)
    assert "17." in page.text_content("ol.moves li.current")
    assert page.evaluate("location.hash") == "#move=17"
    history = page.evaluate("history.length")
    page.click("#next")
    check_step(page, state_after("selective-castle", 746, rep.moves, 18), 18)
    assert page.evaluate("location.hash") == "#move=18"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("location.hash") == "#move=16"
    page.click(f'ol.moves li[data-step="{n - 3}"]')
    check_step(page, state_after("selective-castle", 746, rep.moves, n - 3), n - 3)
    assert page.evaluate("location.hash") == f"#move={n - 3}"
    page.click("#first")
    assert page.evaluate("location.hash") == "#move=0"
    assert page.evaluate("history.length") == history  # the link is rewritten, no new history entries
    # every move of the list links to its step
    hrefs = page.eval_on_selector_all("ol.moves li[data-step] a", "els => els.map(a => a.getAttribute('href'))")
    assert hrefs == [f"#move={k}" for k in range(1, n + 1)]
    # the address changed by hand (hashchange), and a step past the end is the end
    page.evaluate("location.hash = '#move=40'")
    page.wait_for_function("document.body.dataset.step === '40'")
    check_step(page, state_after("selective-castle", 746, rep.moves, 40), 40)
    page.evaluate("location.hash = '#move=99999'")
    page.wait_for_function(f"document.body.dataset.step === '{n}'")
    check_step(page, state_after("selective-castle", 746, rep.moves, n), n)
    fresh = browser.new_page()
    fresh.goto(path.as_uri() + "#move=99999")
    check_step(fresh, state_after("selective-castle", 746, rep.moves, n), n)
    fresh.goto("about:blank")
    fresh.goto(path.as_uri() + "#move=nonsense")
    check_step(fresh, state_after("selective-castle", 746, rep.moves, 0), 0)
    fresh.close()


def test_autoplay_steps_on_by_itself_pauses_and_stops_at_the_end(page, tmp_path_factory):
    path, rep = replay_page(tmp_path_factory, "selective-castle", 746, "solver:budget_seconds=60")
    n = len(rep.moves)
    page.goto(path.as_uri() + "#move=5")
    page.click("#play")
    assert page.get_attribute("#play", "aria-pressed") == "true"
    page.wait_for_function("+document.body.dataset.step >= 7", timeout=5000)
    page.click("#play")  # pause
    assert page.get_attribute("body", "data-playing") is None
    paused = int(page.get_attribute("body", "data-step"))
    page.wait_for_timeout(1400)
    assert int(page.get_attribute("body", "data-step")) == paused
    check_step(page, state_after("selective-castle", 746, rep.moves, paused), paused)
    assert page.evaluate("location.hash") == f"#move={paused}"
    # the space bar plays and pauses, also with a button focused (no click of it, no page scroll)
    page.focus("#next")
    page.keyboard.press(" ")
    assert page.get_attribute("body", "data-playing") == "1"
    assert int(page.get_attribute("body", "data-step")) == paused  # the focused ▶ was not pressed
    page.wait_for_function(f"+document.body.dataset.step > {paused}", timeout=5000)
    page.keyboard.press(" ")
    assert page.get_attribute("body", "data-playing") is None
    # from near the end it plays to the end and stops there
    page.evaluate(f"location.hash = '#move={n - 2}'")
    page.wait_for_function(f"document.body.dataset.step === '{n - 2}'")
    page.keyboard.press(" ")
    page.wait_for_function(f"document.body.dataset.step === '{n}' && !document.body.dataset.playing", timeout=5000)
    check_step(page, state_after("selective-castle", 746, rep.moves, n), n)
    assert page.get_attribute("#play", "aria-pressed") == "false"
    # play at the end starts again from the deal
    page.select_option("#speed", "250")
    page.click("#play")
    page.wait_for_function("+document.body.dataset.step >= 1 && +document.body.dataset.step < 10", timeout=5000)
    page.click("#play")


def test_the_back_link_goes_to_the_report_when_given(page, tmp_path_factory):
    from sim.replay import write_replay

    folder = tmp_path_factory.mktemp("report")
    (folder / "replays").mkdir()
    (folder / "index.html").write_text("<!doctype html><title>the report</title><h1>Report</h1>", encoding="utf-8")
    path = folder / "replays" / "sa-17.html"
    rep = write_replay("streets-and-alleys", 17, "greedy", 0, path, back="../index.html")  # the report's call
    assert rep.path == path
    page.goto(path.as_uri() + "#move=3")
    link = page.locator("nav.back a")
    assert link.text_content() == "← back to the report" and link.get_attribute("href") == "../index.html"
    link.click()
    page.wait_for_url("**/index.html")
    assert page.title() == "the report"
    plain, _ = replay_page(tmp_path_factory, "streets-and-alleys", 17, "greedy")
    page.goto(plain.as_uri())
    assert page.locator("nav.back").count() == 0


def test_the_boards_accessible_label_follows_the_step(page, tmp_path_factory):
    path, rep = replay_page(tmp_path_factory, "streets-and-alleys", 17, "greedy")
    n = len(rep.moves)
    page.goto(path.as_uri())

    def label() -> str:
        return page.get_attribute(".board svg", "aria-label")

    assert label() == f"Streets and Alleys: the deal, {n} moves to come, 0/52 cards home"
    for k in (1, n // 2, n):
        page.evaluate(f"location.hash = '#move={k}'")
        page.wait_for_function(f"document.body.dataset.step === '{k}'")
        state = state_after("streets-and-alleys", 17, rep.moves, k)
        assert label().startswith(f"Streets and Alleys: move {k} of {n}, {rep.moves[k - 1]} (")
        assert label().endswith(f", {state.cards_home}/52 cards home")
    assert state.cards_home > 0


def _in_view(page, selector: str) -> dict:
    return page.evaluate("""(sel) => {
      const r = document.querySelector(sel).getBoundingClientRect();
      return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height,
              vw: innerWidth, vh: innerHeight};
    }""", selector)


@pytest.mark.parametrize("slug, deal, stacked", [
    ("beleaguered-castle", 3, False),  # 8 piles: the board shrinks a little and keeps the list beside it
    ("bakers-dozen", 3, True),  # 13 piles: the board stays on top, the list scrolls below it
])
def test_a_narrow_window_keeps_the_board_in_view_while_the_list_is_used(browser, tmp_path_factory, slug, deal, stacked):
    path, rep = replay_page(tmp_path_factory, slug, deal, "solver:budget_seconds=60")
    n = len(rep.moves)
    assert rep.result == "won" and n > 100
    page = browser.new_page(viewport={"width": 760, "height": 900})
    try:
        page.goto(path.as_uri())
        shot(page, f"replay-{slug}-{deal}-760-start", full_page=False)
        assert page.evaluate("document.documentElement.scrollWidth") <= 760  # no sideways scrolling
        for k in (n - 3, n - 40, n - 1):
            page.click(f'ol.moves li[data-step="{k}"]')
            check_step(page, state_after(slug, deal, rep.moves, k), k)
            board = _in_view(page, ".board")
            assert 0 <= board["top"] and board["bottom"] <= board["vh"] and board["right"] <= board["vw"], board
            current = _in_view(page, "ol.moves li.current")  # and the move clicked is on screen, below the board
            assert current["bottom"] <= current["vh"] and (current["top"] >= board["bottom"] or current["left"] >= board["right"])
        assert (page.evaluate("getComputedStyle(document.querySelector('.stage')).position") == "sticky") == stacked
        # the keys step on from there and the list follows without moving the board away
        for _ in range(3):
            page.keyboard.press("ArrowLeft")
        check_step(page, state_after(slug, deal, rep.moves, n - 4), n - 4)
        board = _in_view(page, ".board")
        assert 0 <= board["top"] and board["bottom"] <= board["vh"]
        shot(page, f"replay-{slug}-{deal}-760-end", full_page=False)
        page.set_viewport_size({"width": 1280, "height": 800})
        page.keyboard.press("Home")
        page.evaluate("window.scrollTo(0, 0)")
        page.keyboard.press("End")
        check_step(page, state_after(slug, deal, rep.moves, n), n)
        assert page.evaluate("getComputedStyle(document.querySelector('.stage')).position") != "sticky"
        page.evaluate(f"location.hash = '#move={n // 2}'")
        page.wait_for_function(f"document.body.dataset.step === '{n // 2}'")
        shot(page, f"replay-{slug}-{deal}-1280-middle", full_page=False)
    finally:
        page.close()


def test_verdict_marks_colour_the_moves(page, tmp_path_factory):
    from sim.replay import record_replay, replay_html

    rep = record_replay("streets-and-alleys", 17, "greedy", 0)
    n = len(rep.moves)
    rep.marks = ["keeps"] * (n // 3) + ["unknown"] * (n // 3) + [None] + ["loses"] * (n - 2 * (n // 3) - 1)
    path = tmp_path_factory.mktemp("marks") / "marks.html"
    path.write_text(replay_html(rep), encoding="utf-8")
    page.goto(path.as_uri() + f"#move={n // 3 + 3}")
    assert page.locator("ol.moves li.mark-keeps").count() == n // 3
    assert page.locator("ol.moves li.mark-loses").count() == n - 2 * (n // 3) - 1
    assert page.locator("ul.legend li").all_text_contents()[0] == "keeps the deal winnable"
    shot(page, "replay-marks")


def test_a_reviewed_replay_marks_the_first_mistake_and_what_would_have_kept_the_deal(browser, tmp_path):
    """Greedy loses a winnable deal: the page colours every move, badges the first losing one and lists its alternatives."""
    from sim.replay import write_replay
    from sim.solver.review import review

    path = tmp_path / "reviewed.html"
    rep = write_replay("streets-and-alleys", 17, "greedy", 0, path, review=True)
    game = Game("streets-and-alleys")
    k = review(game, game.deal(17), rep.moves).first_mistake  # the review's own answer (tests/test_review.py checks it)
    n = len(rep.moves)
    assert k is not None and rep.first_mistake == k and rep.alternatives
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(path.as_uri() + f"#move={k + 1}")
        check_step(page, state_after("streets-and-alleys", 17, rep.moves, k + 1), k + 1)
        mistake = page.locator("ol.moves li.first-mistake")
        assert mistake.count() == 1 and mistake.get_attribute("data-step") == str(k + 1)
        assert "mark-loses" in mistake.get_attribute("class") and "current" in mistake.get_attribute("class")
        assert mistake.locator(".badge.mistake").text_content() == "first mistake" and mistake.locator(".badge").is_visible()
        assert str(rep.moves[k]) in mistake.locator(".mv").text_content()
        instead = mistake.locator(".instead").text_content()
        assert instead.startswith("would have kept the deal: ")
        assert [w.split(" (")[0] for w in instead.split(": ", 1)[1].split(", ")] == [str(m) for m in rep.alternatives]
        assert page.locator("ol.moves li.mark-keeps").count() == k
        assert page.locator("ol.moves li.mark-lost").count() == n - k - 1
        assert page.locator("#status").evaluate("e => e.classList.contains('at-mistake')")
        status = page.text_content("#status")
        assert "first mistake" in status and all(str(m) in status for m in rep.alternatives)
        note = page.locator("p.note.review")
        from sim.replay.movelist import move_name

        assert f"Move {k + 1}, {move_name(rep.positions[k], rep.moves[k])}, is the first mistake" in note.text_content()
        assert f"Why: {rep.why}." in note.text_content()
        assert note.locator("a").first.get_attribute("href") == f"#move={k + 1}"
        legend = page.locator("ul.legend").text_content()
        assert "first mistake" in legend and "played in a game already lost" in legend
        shot(page, "replay-review-streets-and-alleys-17-greedy", full_page=False)
        page.keyboard.press("ArrowRight")  # one move on: the status no longer speaks of the mistake
        assert "first mistake" not in page.text_content("#status")
    finally:
        page.close()
