"""Winnable in Streets and Alleys implies winnable in Selective Castle, deal by deal: check it on two studies.

Selective Castle deals Streets and Alleys' layout and only adds options (any
base, wrapping), so every deal won in the first must be won in the second,
and every deal lost in the second must be lost in the first. Reads two CSVs
written by ``scripts/solvability.py`` and prints the paired table of verdicts
and every violation (exit status 1 if there is one).

    python scripts/monotonicity.py data/solvability/sa.csv data/solvability/sc.csv
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter


def fail(message: str) -> None:
    """Bad input: one line on stderr, exit status 2, nothing written."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _verdicts(path: str) -> tuple[str, dict[tuple[int, int], str]]:
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    if not rows or "result" not in rows[0]:
        fail(f"{path} is not a solvability CSV")
    return rows[0]["game"], {(int(r["seed"]), int(r["deal"])): r["result"] for r in rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weaker", help="CSV of the game with fewer options (Streets and Alleys)")
    ap.add_argument("stronger", help="CSV of the game with more options on the same layout (Selective Castle)")
    args = ap.parse_args(argv)
    g1, a = _verdicts(args.weaker)
    g2, b = _verdicts(args.stronger)
    common = sorted(set(a) & set(b))
    if not common:
        fail(f"{args.weaker} and {args.stronger} share no deal")
    table = Counter((a[k], b[k]) for k in common)
    bad = [k for k in common if (a[k] == "won" and b[k] == "lost")]
    print(f"{len(common)} deals in both ({g1} rows, {g2} columns)")
    kinds = ("won", "lost", "unknown")
    print(f"{'':>10}" + "".join(f"{v:>10}" for v in kinds))
    for v in kinds:
        print(f"{v:>10}" + "".join(f"{table[(v, w)]:>10}" for w in kinds))
    checked = sum(1 for k in common if a[k] == "won" and b[k] != "unknown")
    print(f"{g1} won -> {g2} won: {checked} deals where both are settled, {len(bad)} violation{'' if len(bad) == 1 else 's'}"
          + (f": deals {[d for _, d in bad][:20]}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
