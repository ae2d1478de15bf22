"""The study scripts: the solvability study resumes without repeating a deal, refuses another study's file,
and the monotonicity check finds a violation it is shown."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args], capture_output=True, text=True, cwd=ROOT)


def _rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_solvability_study_resumes_and_refuses_another_study(tmp_path):
    out = tmp_path / "bc.csv"
    first = _run("solvability.py", "--game", "bc", "--deals", "4", "--budget-seconds", "5", "--jobs", "1", "--csv", str(out))
    assert first.returncode == 0, first.stderr
    assert [int(r["deal"]) for r in _rows(out)] == [1, 2, 3, 4]
    again = _run("solvability.py", "--game", "bc", "--deals", "7", "--budget-seconds", "5", "--jobs", "1", "--csv", str(out))
    assert again.returncode == 0, again.stderr
    assert "4 deals already solved; 3 to go" in again.stderr
    deals = sorted(int(r["deal"]) for r in _rows(out))
    assert deals == list(range(1, 8))  # no deal twice, one header
    assert "won" in again.stdout and "Wilson" in again.stdout
    before = out.read_bytes()
    other = _run("solvability.py", "--game", "sa", "--deals", "2", "--csv", str(out))
    assert other.returncode == 2 and other.stderr.strip().count("\n") == 0 and "another study" in other.stderr
    assert out.read_bytes() == before  # the refused run wrote nothing
    report = _run("solvability.py", "--report", str(out))
    assert report.returncode == 0 and "beleaguered-castle: 7 deals" in report.stdout


def _write(path: Path, game: str, results: dict[int, str]) -> Path:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["game", "seed", "deal", "result", "nodes", "seconds", "n_moves"])
        w.writeheader()
        for deal, result in results.items():
            w.writerow(dict(game=game, seed=0, deal=deal, result=result, nodes=1, seconds=0.1, n_moves=0))
    return path


def test_monotonicity_check_passes_and_catches_a_violation(tmp_path):
    sa = _write(tmp_path / "sa.csv", "streets-and-alleys", {1: "won", 2: "lost", 3: "unknown", 4: "won"})
    sc = _write(tmp_path / "sc.csv", "selective-castle", {1: "won", 2: "won", 3: "won", 4: "unknown"})
    ok = _run("monotonicity.py", str(sa), str(sc))
    assert ok.returncode == 0 and "0 violations" in ok.stdout
    bad = _write(tmp_path / "sc-bad.csv", "selective-castle", {1: "lost", 2: "won"})
    caught = _run("monotonicity.py", str(sa), str(bad))
    assert caught.returncode == 1 and "1 violation: deals [1]" in caught.stdout
    missing = _run("monotonicity.py", str(tmp_path / "nope.csv"), str(sc))
    assert missing.returncode == 2 and missing.stderr.startswith("error: cannot read")
