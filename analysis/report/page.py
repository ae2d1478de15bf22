"""What a section hands its template: tables (also written as CSV) and figures (also written as PNG).

The page is one self-contained HTML file: figures are embedded, the styles
inline, no script and no network. Figures are drawn at 200 dpi and shown at
half their pixel width, so they stay sharp on high-resolution screens and
never shrink below half size in a 1280-pixel window. A table longer than
:data:`LONG` rows folds into a ``<details>`` box; every table is also a CSV
file beside the page, with its raw values.
"""

from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import matplotlib.pyplot as plt
import pandas as pd

DPI = 200  #: figures' resolution; shown at 100 CSS pixels an inch
LONG = 14  #: a table with more rows than this is folded (its summary line says what it holds)


def slug(text: str) -> str:
    """An anchor for a heading: lower case, words joined by hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def pct(x: float, digits: int = 2) -> str:
    """A share as a percentage (``n/a`` when missing)."""
    return "n/a" if pd.isna(x) else f"{100 * x:.{digits}f}%"


def points(x: float, digits: int = 2) -> str:
    """A difference of shares in percentage points, signed."""
    return "n/a" if pd.isna(x) else f"{100 * x:+.{digits}f}"


def interval(lo: float, hi: float, digits: int = 2) -> str:
    """A 95% interval of shares, in percent."""
    return "n/a" if pd.isna(lo) else f"{100 * lo:.{digits}f}–{100 * hi:.{digits}f}%"


def diff_interval(d: float, lo: float, hi: float, digits: int = 2) -> str:
    """A paired difference with its interval, in points: ``+48.36 [+47.38, +49.34]``."""
    return "n/a" if pd.isna(d) else f"{points(d, digits)} [{points(lo, digits)}, {points(hi, digits)}]"


def hours(seconds: float) -> str:
    """CPU time in hours with two significant figures (never "0.0" for a few minutes)."""
    h = seconds / 3600
    return "0" if h == 0 else f"{h:,.0f}" if h >= 100 else f"{h:.2g}"


@dataclass
class Table:
    """A table as the template draws it: header, rows of text, how many leading columns are labels."""

    name: str
    columns: list[str]
    rows: list[list[str]]
    left: int = 1
    csv: str = ""  #: the CSV file, relative to the page
    summary: str = ""  #: what a folded table's summary line says
    folded: bool = False
    kinds: list[str] = field(default_factory=list)  #: per column: "l" a label, "t" text (both left, wrapping), "n" a number


#: a cell that reads as a number, a share, an interval or a count: right-aligned, never broken
NUMBER = re.compile(r"^[\s\d.,:;%+\-−–/\[\]()<>e×]*$")


def _kind(cells: list[str]) -> str:
    """A column of numbers (right-aligned, unbroken) or of text (left-aligned, wrapping between words)."""
    words = [c for c in cells if c]
    numeric = all(NUMBER.match(c) and any(ch.isdigit() for ch in c) for c in words if c not in ("n/a", "yes", "no", "NO", "none"))
    return "n" if numeric else "t"


@dataclass
class Figure:
    """A figure as the template draws it: the PNG as a data URI, its file, its size in CSS pixels, a caption."""

    name: str
    uri: str
    file: str
    width: int
    height: int
    caption: str
    alt: str = ""


@dataclass
class Artifacts:
    """Writes a report's tables (CSV) and figures (PNG) into its folder, and makes their :class:`Table`/:class:`Figure`."""

    out: Path
    written: list[str] = field(default_factory=list)

    def __post_init__(self):
        (self.out / "figures").mkdir(parents=True, exist_ok=True)
        (self.out / "tables").mkdir(parents=True, exist_ok=True)

    def table(self, df: pd.DataFrame, name: str, formats: dict[str, Callable] | None = None, left: int = 1,
              raw: pd.DataFrame | None = None, summary: str = "", fold: bool | None = None) -> Table:
        """``df`` shown with ``formats`` (column -> value to text); ``raw`` (default ``df``) written as CSV.

        ``fold``: fold the table into a details box (default: when longer than :data:`LONG` rows).
        """
        (raw if raw is not None else df).to_csv(self.out / "tables" / f"{name}.csv", index=False)
        self.written.append(f"tables/{name}.csv")
        formats = formats or {}
        rows = []
        for values in df.itertuples(index=False, name=None):
            cells = []
            for c, v in zip(df.columns, values):
                if c in formats:
                    cells.append(formats[c](v))
                else:
                    cells.append("" if v is None or (isinstance(v, float) and pd.isna(v)) else
                                 f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v))
            rows.append(cells)
        folded = len(rows) > LONG if fold is None else fold
        kinds = ["l" if i < left else _kind([row[i] for row in rows]) for i in range(len(df.columns))]
        return Table(name, [str(c) for c in df.columns], rows, left, f"tables/{name}.csv",
                     summary or f"The table: {len(rows)} {'row' if len(rows) == 1 else 'rows'}", folded, kinds)

    def figure(self, fig: plt.Figure, name: str, caption: str, alt: str = "") -> Figure:
        """Save ``fig`` as PNG (200 dpi) and close it; the page shows it at half its pixel size."""
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
        plt.close(fig)
        png = buf.getvalue()
        (self.out / "figures" / f"{name}.png").write_bytes(png)
        self.written.append(f"figures/{name}.png")
        width, height = _png_size(png)
        scale = 100 / DPI
        return Figure(name, "data:image/png;base64," + base64.b64encode(png).decode(), f"figures/{name}.png",
                      round(width * scale), round(height * scale), caption, alt or caption)


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height of a PNG, read from its header."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
