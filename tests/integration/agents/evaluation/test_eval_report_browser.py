"""The evaluation report's summary tables fit a 1,300 px window with the cost column visible (#42 item 8),
measured in a real headless browser (Debian chromium + chromedriver via selenium) on a report of all eight
methods with every summary figure filled; a screenshot is saved as a test artefact.

Skipped LOUDLY when chromium, chromedriver or selenium is missing (`scripts/setup.sh --with-browser`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from motivgraph.agents.core.registry import method_names
from motivgraph.agents.evaluation.metrics.stats import Estimate
from motivgraph.agents.evaluation.report import SUMMARY_COLUMNS, EvalResults, write_report
from tests.browser_support import chrome, require_browser

require_browser("the report width test")

from selenium import webdriver  # noqa: E402

ARTIFACTS = Path(os.environ.get("MOTIVGRAPH_TEST_ARTIFACTS", "test-artifacts"))
WIDTH = 1300


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    driver = chrome(tmp_path_factory.mktemp("chromium-profile"), width=WIDTH)
    yield driver
    driver.quit()


def full_results() -> EvalResults:
    """Every method, every summary column filled with a wide but real-looking figure."""
    methods = method_names()
    est: dict[str, dict[str, Estimate]] = {}
    for i, m in enumerate(methods):
        row = {c: Estimate(0.123456789 + i / 100, 0.1, 0.9, 120) for c in SUMMARY_COLUMNS[1:]}
        row |= {c: Estimate(1012.345678 - 7 * i, 950.5, 1080.25, 120) for c in ("elo_method_overall", "elo_overall")}
        row |= {"n_topics": Estimate(12, 12, 12, 12), "n_ideas": Estimate(120, 120, 120, 12),
                "shortfall": Estimate(3, 3, 3, 12), "score_novelty": Estimate(6.4444444, 5.5, 7.5, 120),
                "creative_utility": Estimate(1.23456789, 1.0, 1.5, 12), "cost_usd": Estimate(12.3456789, 12.3, 12.4, 1)}
        est[m] = row
    return EvalResults(meta={"eval_id": "eval-20261207-041500-width", "n_topics": 12, "n_ideas": 10,
                             "judges": ["openai:gpt-4o-mini", "deepseek:deepseek-chat"]},
                       methods=methods, estimates=est, notes=["scripted figures: the width test's report"])


def test_summary_tables_fit_1300_px_with_the_cost_column_visible(browser: webdriver.Chrome,
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "res"
    write_report(full_results(), out)
    browser.get((out / "report.html").as_uri())
    view = browser.execute_script("return window.innerWidth")
    assert view <= WIDTH
    # every summary table (data-table methods*: the headline and the details), measured as laid out
    boxes = browser.execute_script(
        "return [...document.querySelectorAll(\"table[data-table^='methods']\")].map(t => {"
        " const r = t.getBoundingClientRect(); return [t.dataset.table, r.left, r.right, t.rows.length]; });")
    assert boxes, "report.html holds no summary table"
    for name, left, right, rows in boxes:
        assert rows == 1 + len(method_names()), name  # header + one row per method
        assert left >= 0 and right <= view, f"summary table {name} spans {left:.0f}-{right:.0f} px of {view}"
    # the cost header and every cost cell are inside the window, not cut off
    cost = browser.execute_script(
        "for (const t of document.querySelectorAll(\"table[data-table^='methods']\")) {"
        " const i = [...t.rows[0].cells].findIndex(c => c.textContent === 'cost_usd');"
        " if (i < 0) continue;"
        " return [...t.rows].map(r => { const b = r.cells[i].getBoundingClientRect();"
        " return [b.left, b.right, r.cells[i].textContent]; }); }"
        " return [];")
    assert cost and cost[0][2] == "cost_usd" and cost[1][2] == "12.3457"
    assert all(left >= 0 and right <= view for left, right, _ in cost), (cost, view)
    # nothing on the page needs a horizontal scroll bar
    assert browser.execute_script("return document.documentElement.scrollWidth") <= view
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "eval-report-1300px.png"))
