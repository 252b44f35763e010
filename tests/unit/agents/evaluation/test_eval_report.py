"""The report writer: files, sections, non-blank plots, HTML tables equal to the CSVs."""

import base64
import io
from pathlib import Path

import numpy as np
from PIL import Image

from motivgraph.agents.evaluation.metrics.stats import Estimate
from motivgraph.agents.evaluation.report import EvalResults, write_report
from motivgraph.agents.evaluation.report_check import check_report, png_problem


def _results() -> EvalResults:
    methods = ["alpha", "beta"]
    est = {}
    for i, m in enumerate(methods):
        base = {f"elo_{d}": Estimate(1000 + (30 if i else -30) + j, 980.0 + j, 1040.0 + j, 4)
                for j, d in enumerate(("novelty", "motivation", "experiment", "overall"))}
        base |= {"score_novelty": Estimate(5.0 + i, 4.5, 6.5, 4), "moscore_pd": Estimate(0.25 * (i + 1), 0.1, 0.6, 4),
                 "yield": Estimate(1.0 + i, 1.0, 2.0, 2), "n_ideas": Estimate(4, 4, 4, 2),
                 "n_topics": Estimate(2, 2, 2, 2), "shortfall": Estimate(0, 0, 0, 2),
                 "diversity": Estimate(0.31234567, 0.2, 0.4, 2), "cost_usd": Estimate(0.0123, 0.0123, 0.0123, 1)}
        est[m] = base
    topics = [{"topic_id": f"t{t}", "method": m, "diversity": 0.2 + 0.1 * t + 0.05 * i, "quality": 4 + t + i}
              for t in range(2) for i, m in enumerate(methods)]
    ideas = [{"idea_id": f"{m}-{t}-{k}", "method": m, "topic_id": f"t{t}", "title": f"Idea, \"{k}\" <b>",
              "score_novelty": 5.0} for m in methods for t in range(2) for k in range(2)]
    surf = {m: {"ks": [0, 3, 6], "ls": [0, 3, 6], "grid": [[2, 2, 1], [2, 1, 1], [1, 1, i]], "m": 0, "tau": 6}
            for i, m in enumerate(methods)}
    cost = [{"method": m, "scope": s, "calls": 3, "input_tokens": 100, "output_tokens": 10,
             "cost_usd": 0.01 * (i + 1) * (2 if s == "generation" else 1), "cost_usd_per_idea": 0.001}
            for i, m in enumerate(methods) for s in ("generation", "eval.judge")]
    return EvalResults(meta={"eval_id": "eval-test", "n_topics": 2, "n_ideas": 2, "judges": ["scripted"]},
                       methods=methods, ideas=ideas, topics=topics, estimates=est, surfaces=surf,
                       yield_counts=[{"method": m, "topics": 2, "yield_ge_1": 2, "yield_ge_2": i, "yield_ge_3": 0}
                                     for i, m in enumerate(methods)],
                       cost=cost, kappa=[{"dimension": "novelty", "judge_a": "a", "judge_b": "b", "n": 4,
                                          "kappa": 0.5}],
                       notes=["scripted judges: figures are not real"])


def test_report_is_whole_and_tables_match_csv(tmp_path: Path) -> None:
    out = tmp_path / "res"
    info = write_report(_results(), out)
    for f in ("ideas.jsonl", "ideas.csv", "topics.jsonl", "topics.csv", "methods.csv", "summary.md",
              "report.html", "plots/elo.png", "plots/yield_surface_alpha.png", "plots/cost.png",
              "plots/diversity_vs_quality.png", "tables/elo.csv"):
        assert (out / f).exists(), f
    assert len(info["plots"]) == 5
    assert check_report(out) == []
    assert "0.3123" in (out / "methods.csv").read_text()  # 4-decimal formatting shared with the HTML
    assert "| alpha |" in (out / "summary.md").read_text()


def test_check_finds_a_tampered_table_and_a_missing_section(tmp_path: Path) -> None:
    out = tmp_path / "res"
    write_report(_results(), out)
    csv = out / "tables" / "elo.csv"
    lines = csv.read_text().splitlines()
    lines[1] = lines[1].replace(lines[1].split(",")[2], "123.4567", 1)
    csv.write_text("\n".join(lines) + "\n")
    page = out / "report.html"
    page.write_text(page.read_text().replace("<section id='grounding'>", "<section id='gone'>"))
    problems = check_report(out)
    assert any("table elo" in p for p in problems)
    assert any("'grounding' missing" in p for p in problems)


def test_png_blank_detection() -> None:
    def png(arr: np.ndarray) -> bytes:
        buf = io.BytesIO()
        Image.fromarray(arr.astype(np.uint8)).save(buf, format="PNG")
        return buf.getvalue()

    assert png_problem(png(np.full((20, 20, 3), 255))) is not None
    noisy = np.zeros((20, 20, 3))
    noisy[:10] = 200
    assert png_problem(png(noisy)) is None
    assert "decode" in (png_problem(base64.b64decode("aGVsbG8=")) or "")


def test_a_plot_without_data_is_left_out_with_a_note_and_the_check_fails_on_one(tmp_path: Path) -> None:
    """Free calls (a local model): the cost plot has nothing to draw. It used to be written as an empty frame
    (axes, title, legend: not blank to the pixel test) and `eval --check` called it fine."""
    import matplotlib.pyplot as plt

    from motivgraph.agents.evaluation.report import POINTS_KEY

    res = _results()
    res.cost = [{**r, "cost_usd": 0.0} for r in res.cost]
    out = tmp_path / "res"
    info = write_report(res, out)
    assert not (out / "plots" / "cost.png").exists() and len(info["plots"]) == 4
    html = (out / "report.html").read_text()
    cost = html[html.index("<section id='cost'>"):]
    assert "No plot: there is no data to draw" in cost[: cost.index("</section>")]
    assert check_report(out) == []

    fig, ax = plt.subplots(figsize=(4, 3))  # an empty frame with a title, as the old writer made it
    ax.set_title("Cost per method")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={POINTS_KEY: "0"})
    plt.close(fig)
    assert png_problem(buf.getvalue()) == "no data plotted (an empty frame)"
