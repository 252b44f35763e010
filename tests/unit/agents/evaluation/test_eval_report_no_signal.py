"""Reports say "no signal" as such (#42 item 8): an ELO nobody won, a slot bias judged on too few verdicts, empty
Creative Utility / grounding / agreement tables say why where the number would be; `--check` lists them; MOScore at
two decimals below the warnings; the headline table is narrow enough to show the cost."""

from __future__ import annotations

from pathlib import Path

from motivgraph.agents.evaluation.metrics.stats import Estimate
from motivgraph.agents.evaluation.report import HEADLINE_COLUMNS, EvalResults, write_report
from motivgraph.agents.evaluation.report_check import check_report, no_signal_notes


def _silent() -> EvalResults:
    methods = ["alpha", "beta"]
    est = {m: {**{f"elo_{d}": Estimate(1000.0, 1000.0, 1000.0, 0) for d in ("novelty", "overall")},
               "moscore_pd": Estimate(0.123456, 0.1, 0.2, 4), "n_ideas": Estimate(2, 2, 2, 1),
               "cost_usd": Estimate(0.5, 0.5, 0.5, 1), "diversity": Estimate(0.3, 0.2, 0.4, 1)} for m in methods}
    order = [{"kind": "pairwise", "dimension": "overall", "judge": "j1", "pairs": 4, "consistent": 0, "flipped": 4,
              "consistency": 0.0, "decisive": 4, "slot_a_share": 1.0, "order_biased": False}]
    cost = [{"method": m, "scope": "generation", "calls": 1, "input_tokens": 1, "output_tokens": 1,
             "cost_usd": 0.5, "cost_usd_per_idea": 0.25} for m in methods]
    return EvalResults(meta={"eval_id": "e", "n_topics": 1, "n_ideas": 2, "judges": ["j1"], "elo_start": 1000.0,
                             "config": {"order_bias_min": 6}},
                       methods=methods, estimates=est, order=order, cost=cost,
                       notes=["scripted judges", "WARNING order bias: judge j1 named the first-shown idea"])


def test_degenerate_figures_say_why(tmp_path: Path) -> None:
    out = tmp_path / "res"
    write_report(_silent(), out)
    html = (out / "report.html").read_text()
    notes = dict(n.split(": ", 1) for n in no_signal_notes(out))
    assert notes["elo"].startswith("no signal: no decisive match")
    assert notes["methods-headline"].startswith("elo_overall: no signal")
    assert "agreement needs two judges" in notes["agreement"]
    assert "Creative Utility needs" in notes["creative-utility"]
    assert "kg: link" in notes["grounding"]
    assert "too few verdicts to tell" in notes["order-consistency"]
    assert "too few verdicts to tell" in (out / "tables" / "order-consistency.csv").read_text()
    assert check_report(out) == []  # whole -- and the check names what carries no signal
    # no "1000.0000" posing as a rating in the headline, and MOScore at two decimals
    head = (out / "tables" / "methods-headline.csv").read_text().splitlines()
    assert head[0].split(",") == HEADLINE_COLUMNS and "cost_usd" in head[0]
    assert all(row.split(",")[HEADLINE_COLUMNS.index("elo_overall")] == "" for row in head[1:])
    assert "0.12," in (out / "tables" / "methods-detail.csv").read_text()
    assert "0.1235" not in (out / "tables" / "methods-detail.csv").read_text()
    # the warning comes before any number
    assert html.index("WARNING order bias") < html.index('data-table="methods-headline"')
    md = (out / "summary.md").read_text()
    assert md.index("WARNING order bias") < md.index("| method |")
    assert "No signal" in md and "too few verdicts to tell" in md
