"""The report's page: headings with a table of contents, paragraphs, tables (also as CSV), figures (also as PNG).

One self-contained HTML file: figures are embedded, the styles inline, no
script and no network. Tables fit a 1280-pixel window: long labels break at
their commas and a wide table scrolls inside its own box.
"""

from __future__ import annotations

import base64
import html
import io
import re
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI','DejaVu Sans',sans-serif;max-width:1180px;margin:1.5em auto;padding:0 1em;color:#222;line-height:1.5}
h1{font-size:1.7em;margin-bottom:.2em} h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em} h3{margin-top:1.4em}
nav.toc{background:#f7f7f7;border:1px solid #e4e4e4;padding:.5em 1em;margin:1em 0;columns:2;font-size:.92em} nav.toc a{display:block}
.tablebox{max-width:100%;overflow-x:auto;margin:.8em 0}
table{border-collapse:collapse;font-size:.86em} th,td{padding:.25em .6em;border-bottom:1px solid #eee;text-align:right;vertical-align:top}
th{background:#f4f4f4;font-weight:600} td.l,th.l{text-align:left;max-width:22em;overflow-wrap:anywhere}
.answer{background:#f1f7f2;border-left:5px solid #1b7837;padding:.8em 1.1em;margin:1em 0} .missing{color:#8a2f2f}
.note{color:#555;font-size:.92em}
figure{margin:1em 0} img{max-width:100%;height:auto} figcaption{color:#555;font-size:.9em}
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:.78em;max-height:30em}
"""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def breakable(text: str) -> str:
    """``text`` escaped for HTML, allowed to break after each comma (player labels with parameters)."""
    return html.escape(str(text)).replace(",", ",<wbr>")


def pct(x: float, digits: int = 2) -> str:
    return "n/a" if pd.isna(x) else f"{100 * x:.{digits}f}%"


def points(x: float, digits: int = 2) -> str:
    return "n/a" if pd.isna(x) else f"{100 * x:+.{digits}f}"


class Page:
    """Collects the report's parts; figures go to ``out/figures`` and tables to ``out/tables`` as well."""

    def __init__(self, out: Path):
        self.out = out
        self.parts: list[str] = []
        self.toc: list[tuple[str, str]] = []
        (out / "figures").mkdir(parents=True, exist_ok=True)
        (out / "tables").mkdir(parents=True, exist_ok=True)

    def h2(self, text: str) -> None:
        anchor = _slug(text)
        while any(a == anchor for a, _ in self.toc):
            anchor += "-x"
        self.toc.append((anchor, text))
        self.parts.append(f'<h2 id="{anchor}">{html.escape(text)}</h2>')

    def h3(self, text: str) -> None:
        self.parts.append(f"<h3>{html.escape(text)}</h3>")

    def p(self, text: str, cls: str = "") -> None:
        """A paragraph of trusted HTML (callers escape what comes from data)."""
        attr = f' class="{cls}"' if cls else ""
        self.parts.append(f"<p{attr}>{text}</p>")

    def raw(self, text: str) -> None:
        self.parts.append(text)

    def figure(self, fig: plt.Figure, name: str, caption: str) -> None:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
        (self.out / "figures" / f"{name}.png").write_bytes(buf.getvalue())
        plt.close(fig)
        data = base64.b64encode(buf.getvalue()).decode()
        self.parts.append(f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
                          f"<figcaption>{html.escape(caption)}</figcaption></figure>")

    def table(self, df: pd.DataFrame, name: str, formats: dict | None = None, left: int = 1) -> None:
        """``df`` as CSV (raw values) and as an HTML table (``formats``: column -> function to text).

        The first ``left`` columns are labels: left-aligned, breaking at commas.
        """
        df.to_csv(self.out / "tables" / f"{name}.csv", index=False)
        formats = formats or {}
        head = "".join(f'<th class="{"l" if i < left else ""}">{html.escape(str(c))}</th>' for i, c in enumerate(df.columns))
        body = []
        for _, row in df.iterrows():
            cells = []
            for i, c in enumerate(df.columns):
                v = row[c]
                text = formats[c](v) if c in formats else ("" if v is None or (isinstance(v, float) and pd.isna(v)) else str(v))
                cells.append(f'<td class="l">{breakable(text)}</td>' if i < left else f"<td>{html.escape(text)}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        self.parts.append(f'<div class="tablebox"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')

    def html(self, title: str, intro: str) -> str:
        toc = "".join(f'<a href="#{a}">{html.escape(t)}</a>' for a, t in self.toc)
        return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>"
                f"<meta name=viewport content='width=device-width, initial-scale=1'><style>{CSS}</style></head>"
                f"<body><h1>{html.escape(title)}</h1>{intro}<nav class=toc>{toc}</nav>" + "\n".join(self.parts) + "</body></html>")
