"""Every table a person reads in the report shows sane precision (#42 item 8): 2 decimals, 3 for embedding
diversity/novelty, 4 for USD costs, whole points for ELO ratings (tables.report_digits says why); the data file
methods.csv keeps 4 decimals."""

from __future__ import annotations

from pathlib import Path

from motivgraph.agents.evaluation.metrics.stats import Estimate
from motivgraph.agents.evaluation.report import EvalResults, build_tables, write_report
from motivgraph.agents.evaluation.report_check import check_report
from motivgraph.agents.evaluation.tables import read_csv


def results() -> EvalResults:
    """Two methods with every kind of figure at full float precision."""
    methods = ["sequential_memory", "setlevel"]
    est = {}
    for i, m in enumerate(methods):
        est[m] = {"wr_significance": Estimate(0.6234567 + i / 10, 0.4123456, 0.8765432, 12),
                  "moscore_pd": Estimate(0.5432109, 0.3123456, 0.7654321, 12),
                  "score_novelty": Estimate(6.3333333, 5.6666667, 7.1111111, 9),
                  "diversity": Estimate(0.41234567, 0.40123456, 0.42345678, 3),
                  "elo_overall": Estimate(1016.4821 - 32 * i, 990.1234, 1040.9876, 6),
                  "elo_matches": Estimate(5.3333333, 5.0, 6.0, 3),
                  "n_ideas": Estimate(9, 9, 9, 3), "cost_usd": Estimate(0.01234567, 0.01234567, 0.01234567, 1)}
    cost = [{"method": m, "scope": "generation", "calls": 9, "input_tokens": 21345, "output_tokens": 4012,
             "cost_usd": 0.00345678, "cost_usd_per_idea": 0.00038409} for m in methods]
    kappa = [{"dimension": "novelty", "judge_a": "a", "judge_b": "b", "n": 12, "kappa": 0.4166667}]
    return EvalResults(meta={"eval_id": "e", "n_topics": 3, "n_ideas": 3, "judges": ["a", "b"]}, methods=methods,
                       estimates=est, cost=cost, kappa=kappa)


def _decimals(cell: str) -> int:
    return len(cell.split(".", 1)[1]) if "." in cell else 0


def test_the_long_reference_table_shows_two_decimals() -> None:
    t = build_tables(results())["reference"]
    for row in t.cells():
        value, lo, hi = row[2:5]
        assert {_decimals(value), _decimals(lo), _decimals(hi)} == {2}, row
    assert t.cells()[0][1:5] == ["wr_significance", "0.62", "0.41", "0.88"]


def test_each_metric_at_its_stated_precision() -> None:
    tables = build_tables(results())
    by = {(r[0], r[1]): r[2:5] for name in ("elo", "diversity", "direct-scores") for r in tables[name].cells()}
    assert by[("setlevel", "elo_overall")] == ["984", "990", "1041"]  # whole rating points
    assert by[("setlevel", "elo_matches")][0] == "5.3"
    assert by[("setlevel", "diversity")] == ["0.412", "0.401", "0.423"]  # differs in the third decimal
    assert by[("setlevel", "score_novelty")] == ["6.33", "5.67", "7.11"]
    head = dict(zip(tables["methods-headline"].columns, tables["methods-headline"].cells()[0], strict=True))
    assert head["cost_usd"] == "0.0123" and head["elo_overall"] == "1016" and head["n_ideas"] == "9"
    detail = dict(zip(tables["methods-detail"].columns, tables["methods-detail"].cells()[0], strict=True))
    assert detail["moscore_pd"] == "0.54" and detail["diversity"] == "0.412"
    cost = dict(zip(tables["cost"].columns, tables["cost"].cells()[0], strict=True))
    assert cost["cost_usd"] == "0.0035" and cost["cost_usd_per_idea"] == "0.0004"  # a fraction of a cent shows
    assert tables["agreement"].cells()[0][-1] == "0.42"


def test_no_table_of_the_report_shows_four_decimals_where_two_say_it(tmp_path: Path) -> None:
    out = tmp_path / "res"
    write_report(results(), out)
    assert check_report(out) == []  # the HTML still equals the CSVs cell for cell
    for csv in (out / "tables").glob("*.csv"):
        if csv.stem == "methods" or csv.stem == "cost":
            continue
        head, *rows = read_csv(csv)
        for row in rows:
            for col, cell in zip(head, row, strict=True):
                if cell.replace(".", "", 1).isdigit() and not col.startswith("cost_usd"):
                    assert _decimals(cell) <= 3, (csv.name, col, cell)
    # the data file keeps full precision for reuse
    assert "6.3333" in (out / "methods.csv").read_text()
