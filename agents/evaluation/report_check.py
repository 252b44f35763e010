"""Checks a written report: every section present, every inlined PNG decodes, draws data and is not blank,
and every HTML table equals its CSV (tables/<name>.csv) cell for cell. Used by tests and `motivgraph eval
--check`."""

from __future__ import annotations

import base64
import io
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
from PIL import Image

from motivgraph.agents.evaluation.report import POINTS_KEY, REPORT_SECTIONS
from motivgraph.agents.evaluation.tables import read_csv


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.images: list[tuple[str, str]] = []  # (file, src)
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self.no_signal: list[tuple[str, str]] = []  # (table, why) of every table that says it has no signal
        self._note: tuple[str, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "p" and a.get("data-no-signal"):
            self._note = (a["data-no-signal"], [])
        if tag == "section" and a.get("id"):
            self.sections.append(a["id"])
        elif tag == "img":
            self.images.append((a.get("data-file", ""), a.get("src", "")))
        elif tag == "table":
            self._table = a.get("data-table", f"table{len(self.tables)}")
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "p" and self._note is not None:
            self.no_signal.append((self._note[0], "".join(self._note[1])))
            self._note = None
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._note is not None:
            self._note[1].append(data)
        if self._cell is not None:
            self._cell.append(data)


def png_problem(data: bytes) -> str | None:
    """None when the PNG decodes, draws data (the point count the report writer stamps in it) and shows more
    than one colour with real variance."""
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except Exception as e:  # any decoder failure is the finding
        return f"does not decode: {e}"
    points = getattr(img, "text", {}).get(POINTS_KEY)
    if points is not None and points.strip() in ("", "0"):
        return "no data plotted (an empty frame)"
    px = np.asarray(img.convert("RGB"), dtype=np.float64).reshape(-1, 3)
    colours = len(np.unique(px, axis=0))
    if colours < 2 or float(px.std()) < 5.0:
        return f"blank: {colours} colour(s), std {px.std():.2f}"
    return None


def check_report(out: Path) -> list[str]:
    """Problems found in the report under `out` (empty list: the report is whole)."""
    problems: list[str] = []
    page = out / "report.html"
    if not page.exists():
        return [f"{page} missing"]
    p = _Parser()
    p.feed(page.read_text(encoding="utf-8"))
    for sid in REPORT_SECTIONS:
        if sid not in p.sections:
            problems.append(f"section {sid!r} missing")
    if not p.images:
        problems.append("no plots in the report")
    for name, src in p.images:
        if not src.startswith("data:image/png;base64,"):
            problems.append(f"image {name}: not an inlined PNG")
            continue
        data = base64.b64decode(src.split(",", 1)[1])
        if (out / name).exists() and (out / name).read_bytes() != data:
            problems.append(f"image {name}: differs from the file on disk")
        why = png_problem(data)
        if why:
            problems.append(f"image {name}: {why}")
    for name, rows in p.tables.items():
        csv_path = out / "tables" / f"{name}.csv"
        if not csv_path.exists():
            problems.append(f"table {name}: no {csv_path.name}")
            continue
        if rows != read_csv(csv_path):
            problems.append(f"table {name}: HTML cells differ from {csv_path.name}")
    return problems


def no_signal_notes(out: Path) -> list[str]:
    """'<table>: <why>' for every table the report says is empty or carries no signal: a whole report can still
    say nothing about some comparisons, and `eval --check` says which."""
    page = out / "report.html"
    if not page.exists():
        return []
    p = _Parser()
    p.feed(page.read_text(encoding="utf-8"))
    return [f"{name}: {why}" for name, why in p.no_signal]


def order_bias_warnings(out: Path) -> list[str]:
    """Judges the report flags as order-biased (tables/order-consistency.csv), one line each."""
    path = out / "tables" / "order-consistency.csv"
    if not path.exists():
        return []
    rows = read_csv(path)
    if not rows:
        return []
    head = rows[0]
    return [f"judge {r[head.index('judge')]} is order-biased on {r[head.index('kind')]} "
            f"{r[head.index('dimension')]} (slot-A share {r[head.index('slot_a_share')]} of "
            f"{r[head.index('decisive')]} decisive verdicts): its comparisons there carry no signal"
            for r in rows[1:] if r[head.index("order_biased")] == "true"]
