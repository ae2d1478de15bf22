"""``castle summary``: its numbers are the report's (same functions, checked equal on a dataset made here), its judges
apart, its formats strict, its table fitted to the terminal, an unfinished run said, and ``--paired`` the report's pairs."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import subprocess
import sys

import pytest

from analysis import scan, stats, winnability
from analysis.designs import perfect_play_by_game
from analysis.ladder import verdicts
from analysis.load import count_cheap_rows, load_study, study_parts
from analysis.summary import lines
from analysis.summary_paired import paired
from sim.study.dataset import MANIFEST

from .synthetic import write_dataset

GAMES = ("selective-castle", "streets-and-alleys")


def castle(*args: str, columns: int = 100) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run([sys.executable, "-c", "from sim.cli import main; main()", *args], capture_output=True,
                          text=True, timeout=300, env=env)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    return write_dataset(tmp_path_factory.mktemp("plain"), deals=300, games=GAMES)


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    return write_dataset(tmp_path_factory.mktemp("judged"), deals=200, games=GAMES, judged=True)


def _summary(path):
    df, held = load_study(path, judged_only=True)
    cheap = scan.CheapRows(study_parts(path))
    count_cheap_rows(df, cheap)
    try:
        return lines(df, cheap, held)
    finally:
        cheap.close()


def test_the_summary_says_what_the_report_says(plain):
    """Counts, estimates and intervals equal the report's tables (winnability, and each player's win rate)."""
    got = {(ln.game, ln.player): ln for ln in _summary(plain)}
    df, _ = load_study(plain)
    w = winnability.winnability(df[stats.solver_mask(df.player)]).set_index("game")
    for game in GAMES:
        ln = got[(game, winnability.PERFECT)]
        r = w.loc[game]
        assert (ln.deals, ln.won, ln.lost, ln.unknown, ln.not_followed) == (r.deals, r.won, r.lost, r.unknown, 0)
        assert (ln.estimate, ln.lo, ln.hi) == pytest.approx((r.rate, r.ci_low, r.ci_high), abs=1e-12)
        assert ln.seeds == "0" and ln.deal_span == "deals 0-299" and ln.role == "perfect play" and not ln.running
    rates = stats.win_rates(df[stats.player_mask(df.player)])
    assert len(rates) == 4
    for r in rates.itertuples():
        ln = got[(r.game, r.player)]
        assert (ln.deals, ln.won, ln.lost, ln.unknown) == (r.deals, r.won, r.deals - r.won, 0)
        assert (ln.estimate, ln.lo, ln.hi) == pytest.approx((r.rate, r.ci_low, r.ci_high), abs=1e-12)
    order = [ln.player for ln in _summary(plain) if ln.game == GAMES[0]]
    assert order == [winnability.PERFECT, "greedy", "random"]  # perfect play first, then the strongest


def test_perfect_play_joins_every_exact_run_as_the_report_does_and_judges_stand_apart(judged):
    got = _summary(judged)
    df, _ = load_study(judged)
    report = perfect_play_by_game(df)
    for game in GAMES:
        ln = next(x for x in got if x.game == game and x.role == "perfect play")
        e = report[game]
        assert (ln.estimate, ln.lo, ln.hi, ln.deals) == (e.estimate, e.lo, e.hi, e.deals)
        assert ln.won + ln.lost + ln.unknown + ln.not_followed == ln.deals and ln.not_followed > 0
        assert "three-phase" in ln.design and ln.deal_span == "deals 0-399"
        judges = [x for x in got if x.game == game and x.role == "judge"]
        assert {x.player for x in judges} == {"corridor", "mistakes"} and all(x.estimate is None for x in judges)
        players = {x.player for x in got if x.game == game and x.role == "player"}
        assert players == {"random", "greedy"}  # no solver run, phased run, settle run or judge among the players


def test_the_formats_are_strict_and_the_table_fits_the_terminal(plain):
    j = castle("summary", str(plain), "--format", "json")
    assert j.returncode == 0, j.stderr
    rows = [json.loads(x, parse_constant=lambda c: pytest.fail(f"{c} in strict JSON")) for x in j.stdout.splitlines()]
    assert [r["role"] for r in rows[:3]] == ["perfect play", "player", "player"]
    assert rows[0]["won"] + rows[0]["lost"] + rows[0]["unknown"] == rows[0]["deals"] == 300
    assert j.stdout == castle("summary", str(plain), "--json").stdout
    c = list(csv.DictReader(io.StringIO(castle("summary", str(plain), "--format", "csv").stdout)))
    assert [(r["game"], r["player"]) for r in c] == [(r["game"], r["player"]) for r in rows]
    assert float(c[0]["estimate"]) == pytest.approx(rows[0]["estimate"])
    md = castle("summary", str(plain), "--format", "markdown").stdout.splitlines()
    assert md[0].startswith("| game / player |") and f"| **{GAMES[0]}** |" in md[2]
    for width in (80, 120):
        out = castle("summary", str(plain), columns=width)
        assert out.returncode == 0, out.stderr
        assert max(len(x) for x in out.stdout.splitlines()) <= width
        assert "perfect play" in out.stdout and "deals 0-299" in out.stdout


def test_an_unfinished_run_is_said(tmp_path):
    root = write_dataset(tmp_path / "going", deals=50, games=GAMES[:1])
    (root / MANIFEST).write_text(json.dumps({"experiment": {"name": "going", "games": {GAMES[0]: 1}, "deal_range": [0, 100],
                                                            "players": {"random": {}, "greedy": {}, "solver": {}}}}))
    got = _summary(root)
    assert all(ln.running == "going, 150 of 300 games" for ln in got)
    out = castle("summary", str(root))
    assert "still running" in out.stdout and "150 of 300 games" in out.stdout


def test_paired_players_games_and_perfect_play_are_the_reports_pairs(plain):
    df, _ = load_study(plain)
    cheap = scan.CheapRows(study_parts(plain))
    try:
        two = paired(df, cheap, "greedy", "random")
        for r in two.itertuples():
            p = stats.paired(df, (r.game, "greedy"), (r.game, "random"))
            assert (r.deals, r.diff, r.lo, r.hi, r.p) == (p.deals, p.diff, p.diff_low, p.diff_high, p.p_value)
        games = paired(df, cheap, *GAMES).set_index("player")
        pp = winnability.perfect_play_pair(df[stats.solver_mask(df.player)], *GAMES)
        assert (games.loc[winnability.PERFECT, ["deals", "diff", "lo", "hi"]].tolist() ==
                [pp.deals, pp.diff, pp.diff_low, pp.diff_high])
        assert math.isnan(games.loc[winnability.PERFECT, "p"]) and set(games.index) == {winnability.PERFECT, "greedy", "random"}
        vs = paired(df, cheap, "perfect play", "greedy")
        for r in vs.itertuples():
            v = verdicts(df[df.game == r.game]).set_index(["seed", "deal"]).verdict
            g = df[(df.game == r.game) & (df.player == "greedy")].set_index(["seed", "deal"]).result.reindex(v.index)
            assert (r.diff, r.lo, r.hi) == stats.paired_both_ways(v.to_numpy(), g.to_numpy())
    finally:
        cheap.close()
    out = castle("summary", str(plain), "--paired", "greedy", "random", "--format", "json")
    assert out.returncode == 0 and len(out.stdout.splitlines()) == 2, out.stderr
    for args, message in ((["--paired", "greedy"], "requires 2 arguments"), (["--paired", "nobody", "random"], "no deal both"),
                          (["--paired", GAMES[0], "greedy"], "not one of each")):
        bad = castle("summary", str(plain), *args)
        assert bad.returncode == 2 and message in bad.stderr and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
