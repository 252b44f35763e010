"""Tables of the evaluation results: one formatting rule shared by the CSV files and report.html, so
every number a person reads in the report is the exact string in the CSV next to it."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def fmt(v: Any, digits: int = 4) -> str:
    """Cell text: floats to `digits` decimals (4 unless a table says otherwise), NaN/None empty, everything else
    str()."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "" if math.isnan(v) or math.isinf(v) else f"{v:.{digits}f}"
    if isinstance(v, (list, dict)):
        return json.dumps(v, ensure_ascii=False)
    return str(v)


def report_digits(metric: str) -> int:
    """Decimals the report (report.html, summary.md, tables/*.csv) shows for `metric`: 2 -- judge scores, win
    rates, MOScores, gates, Yield, shares and kappa are means over a handful of judged items, where a third
    decimal is noise -- except where the quantity needs another:
    - diversity and novelty (1 - cosine): 3, because methods' embedding distances differ in the third decimal
      (0.412 against 0.418), which 2 decimals would show as equal;
    - costs in USD: 4, because a hosted model's cost per idea or per judge call is a fraction of a cent, which
      2 decimals would print as 0.00;
    - ELO ratings and their intervals: 0, because one match moves a rating by up to K = 32 points, so a
      fraction of a point is not a difference (elo_matches, a count averaged over topics: 1)."""
    if metric.startswith("cost_usd"):
        return 4
    if metric.startswith(("diversity", "novelty")):
        return 3
    if metric == "elo_matches":
        return 1
    if metric.startswith("elo_"):
        return 0
    return 2


@dataclass
class Table:
    name: str
    columns: list[str]
    rows: list[dict[str, Any]]
    # Why the table is empty or its numbers carry no signal, said where the numbers would be (report.html, and
    # `eval --check` lists it); empty: nothing to say.
    note: str = ""
    digits: dict[str, int] = field(default_factory=dict)  # decimals per column where 4 would be false precision
    # A table a person reads in the report: every float at `report_digits` of its column, a long table's
    # value/lo/hi at those of its row's metric. False: 4 decimals (the data files: ideas.csv, methods.csv).
    report: bool = False

    def _digits(self, column: str, row: dict[str, Any]) -> int:
        if column in self.digits:
            return self.digits[column]
        if not self.report:
            return 4
        if column in ("value", "lo", "hi") and row.get("metric"):
            return report_digits(str(row["metric"]))
        return report_digits(column)

    def cells(self) -> list[list[str]]:
        return [[fmt(r.get(c), self._digits(c, r)) for c in self.columns] for r in self.rows]

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        w.writerows(self.cells())
        return buf.getvalue()

    def write_csv(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_csv(), encoding="utf-8")


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, default=_json_default) + "\n")


def _json_default(o: Any) -> Any:
    if hasattr(o, "as_dict"):
        return o.as_dict()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def read_csv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.reader(f))
