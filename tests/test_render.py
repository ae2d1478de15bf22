"""Pictures of positions: SVG boards, PNG, coloured terminal boards, and the replay page's contents."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from sim.core.board import Position
from sim.core.cards import RANKS, SUITS, card_str, make_card
from sim.game import Game
from sim.core.moves import Move
from sim.core.rules import GAMES, find_game
from sim.render import board_svg
from sim.render.svg import FAN, Layout, card_label

NS = "{http://www.w3.org/2000/svg}"
CASTLE = [sys.executable, "-c", "from sim.cli import main; main()"]


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def glyphs(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(NS + "g") if "cb-card" in g.get("class", "").split()]


def translate(g: ET.Element) -> tuple[float, float]:
    x, y = re.fullmatch(r"translate\(([-\d.]+) ([-\d.]+)\)", g.get("transform")).groups()
    return float(x), float(y)


def shown_piles(root: ET.Element, n_piles: int) -> list[list[str]]:
    """The piles as the picture shows them: each card by its place, bottom (top of the picture) first."""
    piles: list[list[tuple[float, str]]] = [[] for _ in range(n_piles)]
    for g in glyphs(root):
        kind, where = g.get("data-place").split(":")
        if kind == "pile":
            piles[int(where) - 1].append((translate(g)[1], g.get("data-card")))
    return [[c for _, c in sorted(p)] for p in piles]


def labels(root: ET.Element, cls: str) -> dict[str, str]:
    return {t.get("data-suit"): t.text for t in root.iter(NS + "text") if cls in t.get("class", "").split()}


def readable(card: int) -> str:
    return card_label(card)


def test_a_full_deal_is_52_glyphs_in_a_picture_that_parses():
    state = Game("streets-and-alleys").deal(17)
    root = parse(board_svg(state))
    cards = glyphs(root)
    assert len(cards) == 52
    assert sorted(g.get("data-card") for g in cards) == sorted(card_label(c) for c in range(52))
    assert all(g.get("data-place").startswith("pile:") for g in cards)


def test_the_right_cards_on_the_right_piles_bottom_first():
    state = Game("streets-and-alleys").deal(17)
    root = parse(board_svg(state))
    want = [[readable(c) for c in pile] for pile in state.position().piles]
    assert shown_piles(root, 8) == want
    # the fan: each card one step below the one under it, piles in columns left to right
    xs = []
    for p, pile in enumerate(state.position().piles):
        ys = sorted(translate(g)[1] for g in glyphs(root) if g.get("data-place") == f"pile:{p + 1}")
        assert [b - a for a, b in zip(ys, ys[1:])] == [FAN] * (len(pile) - 1)
        xs.append({translate(g)[0] for g in glyphs(root) if g.get("data-place") == f"pile:{p + 1}"})
    assert all(len(x) == 1 for x in xs) and [min(x) for x in xs] == sorted(min(x) for x in xs)


@pytest.mark.parametrize("rules", GAMES, ids=[r.slug for r in GAMES])
def test_every_game_draws_every_card_where_the_state_has_it(rules):
    state = Game(rules).deal(5)
    pos = state.position()
    root = parse(board_svg(state))
    assert len(glyphs(root)) == 52
    assert shown_piles(root, rules.n_piles) == [[readable(c) for c in p] for p in pos.piles]
    for s in range(4):
        on = [g.get("data-card") for g in glyphs(root) if g.get("data-place") == f"foundation:{SUITS[s]}"]
        assert on == [readable(c) for c in pos.foundation_cards(s)]
    assert labels(root, "cb-count") == {SUITS[s]: f"{pos.foundations[s]}/13" for s in range(4)}


def test_reserves_are_drawn_apart_and_labelled():
    state = Game("castles-end").deal(17)
    root = parse(board_svg(state))
    lay = Layout(state.rules, 5, title=False)
    texts = [t.text for t in root.iter(NS + "text")]
    assert texts.count("reserve") == 2
    for p in (10, 11):
        (g,) = [g for g in glyphs(root) if g.get("data-place") == f"pile:{p + 1}"]
        assert translate(g) == lay.pile_xy(p) and translate(g)[1] == lay.foundation_y  # on the top row


@pytest.mark.parametrize("base", range(13))
def test_foundation_labels_are_rank_letters(base):
    rules = find_game("selective-castle")
    tableau = [make_card(r, s) for s in range(4) for r in range(13) if (r - base) % 13 >= 2]
    piles = [tableau[i::8] for i in range(8)]
    pos = Position(piles, [2, 2, 2, 2], [base] * 4)
    root = parse(board_svg(pos, rules))
    letter = "10" if base == 9 else RANKS[base]
    assert labels(root, "cb-base") == {s: f"base {letter}" for s in SUITS}
    assert f"base {base}" not in labels(root, "cb-base").values()  # a rank as a reader names it, never 0-12
    tops = [g.get("data-card") for g in glyphs(root) if g.get("data-place") == "foundation:H"]
    assert tops == [card_label(make_card(base, 2)), card_label(make_card((base + 1) % 13, 2))]


def test_a_base_not_chosen_yet_is_a_question_mark_then_the_letter_on_all_four():
    state = Game("selective-castle").deal(3)
    assert set(labels(parse(board_svg(state)), "cb-base").values()) == {"base ?"}
    state.push(next(m for m in state.legal_moves if m.to_foundation))
    letter = "10" if state.base_rank == 9 else RANKS[state.base_rank]
    assert set(labels(parse(board_svg(state)), "cb-base").values()) == {f"base {letter}"}
    assert set(labels(parse(board_svg(Game("bc").deal(3))), "cb-base").values()) == {"base A"}


def _box(root, kind):
    (r,) = [r for r in root.iter(NS + "rect") if f"cb-hl-{kind}" in r.get("class", "")]
    return r


def test_a_highlighted_move_outlines_source_and_target():
    state = Game("streets-and-alleys").deal(17)
    move = next(iter(state.legal_moves))
    root = parse(board_svg(state, move=move))
    lay = Layout(state.rules, 8, title=False)
    src, dst = _box(root, "src"), _box(root, "dst")
    assert src.get("display") is None and dst.get("display") is None
    assert float(src.get("x")) < lay.pile_xy(move.source)[0] < float(src.get("x")) + float(src.get("width"))
    assert float(dst.get("x")) < lay.pile_xy(move.target)[0] < float(dst.get("x")) + float(dst.get("width"))
    # no move: the outlines are there but hidden
    root = parse(board_svg(state))
    assert _box(root, "src").get("display") == "none" and _box(root, "dst").get("display") == "none"


def test_a_move_to_a_foundation_outlines_that_suits_foundation():
    game = Game("bc")
    state, move = next((s, m) for s in map(game.deal, range(100)) for m in s.legal_moves if m.to_foundation)
    card = state.position().piles[move.source][-1]
    lay = Layout(state.rules, 6, title=False)
    dst = _box(parse(board_svg(state, move=move)), "dst")
    assert float(dst.get("x")) < lay.foundation_xy(card // 13)[0] < float(dst.get("x")) + float(dst.get("width"))


def test_state_shows_itself_as_svg_in_a_notebook_with_the_last_move_outlined():
    state = Game("bc").deal(3)
    assert state._repr_svg_() == board_svg(state)
    state.push(next(iter(state.legal_moves)))
    root = parse(state._repr_svg_())
    assert _box(root, "src").get("display") is None
    moved = [g for g in glyphs(root) if "cb-moved" in g.get("class")]
    assert len(moved) == 1


def test_styles_are_scoped_and_no_element_has_an_id():
    svg = board_svg(Game("sa").deal(1), move=next(iter(Game("sa").deal(1).legal_moves)))
    style = re.search(r"<style>(.*?)</style>", svg, re.S).group(1)
    selectors = [rule.split("{")[0].strip() for rule in style.split("}") if rule.strip()]
    assert selectors and all(sel.startswith("svg.cb-board") for sel in selectors)
    assert " id=" not in svg


def test_png_through_cairosvg():
    pytest.importorskip("cairosvg", exc_type=(ImportError, OSError))
    from sim.render.png import svg_to_png

    data = svg_to_png(board_svg(Game("sa").deal(1)))
    assert data[:8] == b"\x89PNG\r\n\x1a\n"


def test_png_without_cairosvg_says_how_to_install_it(monkeypatch):
    from sim.render.png import PngUnavailable, svg_to_png

    monkeypatch.setitem(sys.modules, "cairosvg", None)
    with pytest.raises(PngUnavailable, match=r"pip install 'castle-sim\[png\]'"):
        svg_to_png("<svg/>")


def test_show_writes_svg_to_stdout_and_png_and_svg_files(tmp_path):
    out = subprocess.run(CASTLE + ["show", "streets-and-alleys", "17"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    root = parse(out.stdout)
    assert len(glyphs(root)) == 52
    start = Game("bc").deal(3)
    board = tmp_path / "b.txt"
    board.write_text(start.board_text())
    move = str(next(iter(start.legal_moves)))
    p = subprocess.run(CASTLE + ["show", "bc", "--board", str(board), "--move", move, "--out", str(tmp_path / "b.svg")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    root = parse((tmp_path / "b.svg").read_text())
    assert shown_piles(root, 8) == [[readable(c) for c in pile] for pile in start.position().piles]
    assert _box(root, "src").get("display") is None and f"next move {move}" in (tmp_path / "b.svg").read_text()
    try:
        import cairosvg  # noqa: F401
    except (ImportError, OSError):
        return
    p = subprocess.run(CASTLE + ["show", "sa", "2", "--out", str(tmp_path / "b.png")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "b.png").read_bytes()[:4] == b"\x89PNG"


# -- the terminal board -------------------------------------------------------------------------

def _play_show(env_extra: dict, tty: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    env.update(TERM="xterm", **env_extra)
    args = CASTLE + ["play", "bc", "3", "--player", "greedy", "--max-moves", "5", "--show"]
    if not tty:
        return subprocess.run(args, capture_output=True, text=True, env=env, timeout=120).stdout
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdout=slave, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    p.wait(timeout=120)
    os.close(master)
    return b"".join(chunks).decode()


def test_play_show_colours_suits_on_a_terminal_only():
    coloured = _play_show({}, tty=True)
    assert "\x1b[31m" in coloured and re.search(r"\x1b\[31m[A2-9TJQK][DH]\x1b\[0m", coloured)
    assert not re.search(r"\x1b\[31m[A2-9TJQK][CS]", coloured)
    assert "\x1b[" not in _play_show({"NO_COLOR": "1"}, tty=True)
    assert "\x1b[" not in _play_show({}, tty=False)


# -- the replay page's contents (the browser test drives it) ------------------------------------

def _page_data(html: str) -> dict:
    blob = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S).group(1)
    return json.loads(blob, parse_constant=lambda name: pytest.fail(f"not strict JSON: {name}"))


def test_replay_page_holds_every_position_of_the_game(tmp_path):
    from sim.players.loop import play_deal
    from sim.replay import write_replay

    game = Game("streets-and-alleys")
    rep = write_replay(game, 17, "greedy", 0, tmp_path / "r.html")
    record = play_deal(game, "greedy", 17, 0)
    assert [str(m) for m in rep.moves] == [str(m) for m in record.moves] and rep.result == str(record.result)
    html = (tmp_path / "r.html").read_text()
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    data = _page_data(html)
    assert len(data["steps"]) == len(rep.moves) + 1
    state = game.deal(17)
    for step, move in zip(data["steps"][1:], rep.moves):
        state.push(move)
        pos = state.position()
        assert step["p"] == pos.piles and step["f"] == pos.foundations and step["m"] == str(move)
    assert html.count('<li data-step="') == len(rep.moves)
    assert len(glyphs(parse(re.search(r"<svg.*?</svg>", html, re.S).group(0)))) == 52


def test_replay_of_a_lost_game_lists_the_legal_moves_where_it_stopped(tmp_path):
    from sim.replay import record_replay, replay_html

    rep = record_replay("sa", 17, "greedy", 0)
    assert rep.result in ("stuck", "gave_up")
    html = replay_html(rep)
    if rep.result == "gave_up":
        assert rep.legal_at_end and all(str(m) in html for m in rep.legal_at_end)
        assert "its legal moves" in html


def test_replay_with_the_solver_shows_a_proved_loss_as_the_deal(tmp_path):
    from sim.core.outcome import Result
    from sim.replay import record_replay, replay_html
    from sim.solver.answer import solve

    game = Game("beleaguered-castle")
    if solve(game, game.deal(1)).result is not Result.LOST:
        pytest.skip("deal 1 is no longer a proved loss")
    rep = record_replay(game, 1, "solver", 0)
    html = replay_html(rep)
    assert rep.result == "lost" and rep.moves == [] and len(_page_data(html)["steps"]) == 1
    assert "proved this deal lost" in html and "proved lost" in html


def test_replay_command_writes_the_page_and_refuses_other_extensions(tmp_path):
    p = subprocess.run(CASTLE + ["replay", "bc", "3", "--player", "greedy", "--out", str(tmp_path / "g.html")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"wrote {tmp_path / 'g.html'}")
    assert (tmp_path / "g.html").read_text().startswith("<!doctype html>")
    bad = subprocess.run(CASTLE + ["replay", "bc", "3", "--player", "greedy", "--out", str(tmp_path / "g.svg")],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "unknown extension" in bad.stderr and not (tmp_path / "g.svg").exists()


def test_card_labels_read_as_a_person_writes_them():
    assert card_label(make_card(9, 1)) == "10D" and card_str(make_card(9, 1)) == "TD"


# -- the solver's win tidied for the replay, the back link, verdict marks ----------------------

@pytest.mark.parametrize("slug, deal", [("selective-castle", 746), ("streets-and-alleys", 17), ("beleaguered-castle", 3)])
def test_a_tidied_solver_win_is_legal_wins_and_is_no_longer(slug, deal):
    import time

    from sim.players.loop import play_deal
    from sim.replay.tidy import tidy_line

    game = Game(slug)
    record = play_deal(game, "solver:budget_seconds=60", deal, 0)
    assert str(record.result) == "won"
    start = game.deal(deal)
    t = time.perf_counter()
    tidied = tidy_line(start, record.moves)
    assert time.perf_counter() - t < 1.0
    assert start.move_stack == [] and (start.array == game.deal(deal).array).all()  # the start is not changed
    state = game.deal(deal)
    for m in tidied:
        state.push(m)  # raises on an illegal move
    assert state.is_won()
    assert len(tidied) <= len(record.moves)
    if deal == 746:
        assert len(tidied) < len(record.moves)


def test_tidy_leaves_a_line_that_does_not_win_as_it_is():
    from sim.replay.tidy import tidy_line

    state = Game("streets-and-alleys").deal(17)
    moves = list(state.legal_moves)[:1]
    assert tidy_line(state, moves) == moves
    assert tidy_line(state, [Move.from_str("1-1")]) == [Move.from_str("1-1")]


def test_the_replay_of_a_solver_win_is_tidied_and_says_so():
    from sim.players.loop import play_deal
    from sim.replay import record_replay, replay_html

    game = Game("selective-castle")
    found = play_deal(game, "solver:budget_seconds=60", 746, 0).moves
    rep = record_replay(game, 746, "solver:budget_seconds=60", 0)
    assert rep.result == "won" and rep.tidied_from == len(found) > len(rep.moves)
    assert rep.positions[-1].cards_home == 52 and len(rep.positions) == len(rep.moves) + 1
    html = replay_html(rep)
    assert f"tidied for reading: {len(rep.moves)} moves (its line had {len(found)}" in html
    assert len(_page_data(html)["steps"]) == len(rep.moves) + 1
    raw = record_replay(game, 746, "solver:budget_seconds=60", 0, tidy=False)
    assert raw.tidied_from is None and [str(m) for m in raw.moves] == [str(m) for m in found]
    assert "tidied" not in replay_html(raw)
    assert record_replay(game, 746, "greedy", 0).tidied_from is None  # only the solver's wins


def test_the_replay_links_back_to_the_report_when_asked(tmp_path):
    from sim.replay import replay_html, write_replay

    rep = write_replay("streets-and-alleys", 17, "greedy", 0, tmp_path / "r.html", back="../index.html")
    html = (tmp_path / "r.html").read_text()
    assert '<nav class="back"><a href="../index.html">← back to the report</a></nav>' in html
    assert 'class="back"' not in replay_html(rep)
    assert 'href="a&amp;b.html?x=&#34;1&#34;"' in replay_html(rep, back='a&b.html?x="1"')


def test_verdict_marks_become_classes_of_the_moves_with_a_legend():
    from sim.replay import record_replay, replay_html

    rep = record_replay("streets-and-alleys", 17, "greedy", 0)
    n = len(rep.moves)
    plain = replay_html(rep)
    assert 'class="mark-' not in plain and 'class="legend"' not in plain
    rep.marks = ["keeps", "loses", None, "unknown"] + ["keeps"] * (n - 4)
    html = replay_html(rep)
    assert '<li data-step="1" class="mark-keeps"><a href="#move=1">' in html
    assert '<li data-step="2" class="mark-loses">' in html and '<li data-step="3"><a href="#move=3">' in html
    assert '<li data-step="4" class="mark-unknown">' in html
    assert html.count('<li data-step="') == n
    legend = re.search(r'<ul class="legend".*?</ul>', html, re.S).group(0)
    assert legend.index("mark-keeps") < legend.index("mark-loses") < legend.index("mark-unknown")
    rep.marks = ["keeps"]
    with pytest.raises(ValueError):
        replay_html(rep)
