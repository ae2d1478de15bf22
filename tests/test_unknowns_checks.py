"""``--unknowns-of`` checks the rows it reads as the report does (sim/study/values.py): a value no exact run writes
(a result "banana", a negative deal, a deal outside the manifest's range, a null) is one line and exit 2, and nothing
is written; it never changes which deals are played without a word."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from synthetic import write_dataset

CASTLE = [sys.executable, "-c", "from sim.cli import main; main()"]
DEALS = 12


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    """A solver's rows of 12 deals of Beleaguered Castle, three of the deals it did not win unknown, the rest lost."""
    root = write_dataset(tmp_path_factory.mktemp("unknowns") / "good", deals=DEALS, games=("beleaguered-castle",), players=())
    (part,) = root.rglob("part-*.parquet")
    table = pq.read_table(part)
    deals, old = table.column("deal").to_pylist(), table.column("result").to_pylist()
    unknown = [d for d, r in zip(deals, old) if r != "won"][:3]
    assert len(unknown) == 3
    result = ["unknown" if d in unknown else "lost" if r == "unknown" else r for d, r in zip(deals, old)]
    pq.write_table(table.set_column(table.schema.get_field_index("result"), "result", pa.array(result)), part)
    manifest = json.loads((root / "_manifest.json").read_text())
    manifest["experiment"]["deal_range"] = [0, DEALS]
    (root / "_manifest.json").write_text(json.dumps(manifest))
    (root / "unknown.json").write_text(json.dumps(unknown))  # (beside the dataset, not part of it)
    return root


def _edited(good: Path, where: Path, column: str, values) -> Path:
    """A copy of ``good`` whose part's ``column`` is ``values`` (one per row, or a function of the old list)."""
    folder = where / f"bad-{column}"
    shutil.copytree(good, folder)
    (part,) = folder.rglob("part-*.parquet")
    table = pq.read_table(part)
    i = table.schema.get_field_index(column)
    old = table.column(column).to_pylist()
    new = values(old) if callable(values) else values
    pq.write_table(table.set_column(i, column, pa.array(new, table.schema.field(i).type)), part)
    return folder


def _run(folder: Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(CASTLE + ["run", "--game", "bc", "--unknowns-of", str(folder), "--out", "new", "--no-progress"],
                          cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_good_folder_plays_its_unknowns(good):
    from sim.core.rules import find_game
    from sim.study.unknowns import unknown_deals

    unknown = tuple(json.loads((good / "unknown.json").read_text()))
    assert unknown_deals([str(good)], (find_game("bc"),), 0) == {"beleaguered-castle": unknown}


def _banana(old):
    return [("banana" if k == 0 else r) for k, r in enumerate(old)]


@pytest.mark.parametrize("column, values, said", [
    ("result", _banana, 'column result holds "banana" in row 1'),
    ("deal", lambda old: [(-5 if k == 0 else d) for k, d in enumerate(old)], "column deal holds -5 in row 1"),
    ("deal", lambda old: [(500 if k == 3 else d) for k, d in enumerate(old)],
     "column deal holds 500 in row 4 (allowed: 0 to 11, the manifest's deal range)"),
    ("result", lambda old: [None] * len(old), "column result holds null in row 1"),
    ("seed", lambda old: [(None if k == 2 else s) for k, s in enumerate(old)], "column seed holds null in row 3"),
])
def test_a_bad_value_in_the_rows_read_is_one_line_and_exit_2_and_nothing_is_written(good, tmp_path, column, values, said):
    bad = _edited(good, tmp_path, column, values)
    work = tmp_path / "work"
    work.mkdir()
    p = _run(bad, work)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.startswith("castle: --unknowns-of: ") and said in p.stderr, p.stderr
    assert list(work.iterdir()) == [] and p.stdout == ""


def test_a_part_that_is_not_parquet_is_one_line(good, tmp_path):
    bad = tmp_path / "junk"
    shutil.copytree(good, bad)
    (part,) = bad.rglob("part-*.parquet")
    part.write_bytes(b"not parquet at all")
    work = tmp_path / "work"
    work.mkdir()
    p = _run(bad, work)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr
    assert "--unknowns-of" in p.stderr and list(work.iterdir()) == []
