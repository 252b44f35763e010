"""The evaluation report: a results directory a person can open.

    <out>/ideas.jsonl, ideas.csv        one row per delivered idea (every per-idea metric)
    <out>/topics.jsonl, topics.csv      one row per (topic, method) (set-level metrics)
    <out>/methods.csv                   one wide row per method (the headline numbers)
    <out>/tables/<section>.csv          the long tables shown in report.html (method, metric, value, lo, hi, n)
    <out>/plots/*.png                   ELO bars, Yield surfaces, diversity vs quality, cost
    <out>/report.html                   every table and plot (plots inlined, so the file stands alone)
    <out>/summary.md                    the headline table and where everything is

All numbers are formatted once (tables.fmt), so the HTML cells equal the CSV cells.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt

from motivgraph.agents.evaluation.metrics.reference import DIMENSIONS
from motivgraph.agents.evaluation.metrics.stats import Estimate
from motivgraph.agents.evaluation.tables import Table, fmt, write_jsonl
from motivgraph.fsutil import atomic_write

ELO_DIMS = ("novelty", "motivation", "experiment", "overall")

# (section id, title, what it measures, metric names shown in its long table)
SECTIONS: list[tuple[str, str, str, list[str]]] = [
    ("direct-scores", "Direct LLM scores", "Judge scores 1-10 per idea (SoIQ seed), mean per method.",
     ["score_novelty", "score_experiment", "score_motivation"]),
    ("elo", "Swiss tournament ELO", "Per-topic Swiss tournaments among all methods' ideas, both presentation "
     "orders. Two ratings per method, each with a 95% bootstrap interval over the matches: elo_method_* is "
     "SoIQ's (the methods are the players: every cross-method match updates the two methods' ratings, all "
     "topics in order; n = cross-method matches); elo_* is ours, the mean rating of the method's ideas.",
     [f"elo_method_{d}" for d in ELO_DIMS] + [f"elo_{d}" for d in ELO_DIMS] + ["elo_matches"]),
    ("reference", "Reference-based pairwise vs target papers",
     "Win rate against the topic's target papers on six dimensions, every judge in both orders, and "
     "MOScore_PD / MOScore_PS with the configured weights (MindFlow seed).",
     [f"wr_{d}" for d in DIMENSIONS] + ["moscore_pd", "moscore_ps"]),
    ("diversity", "Embedding diversity and computable novelty",
     "1 - mean pairwise cosine among a topic's ideas (all text, motivation, method) and 1 - similarity to "
     "the nearest background paper (SoIQ and MindFlow seeds).",
     ["diversity", "diversity_motivation", "diversity_method", "novelty", "novelty_motivation",
      "novelty_method"]),
    ("yield", "Quality gates, pairwise diversity and Yield",
     "Gates 0-9 (non-obviousness, soundness, clarity), eight-axis pairwise diversity 0-9 and Yield = "
     "largest set of gate-passing, pairwise-diverse ideas per topic (IDEAgent seed; gates in the Protocol "
     "section; yield_nb_alt: the same with the second non-obviousness gate).",
     ["gate_non_obviousness", "gate_soundness", "gate_clarity", "gate_pass_rate", "pair_diversity", "yield",
      "yield_nb_alt"]),
    ("creative-utility", "Creative Utility",
     "CU with gamma 0.9 in greedy order (set-level seed). With the default terms, quality = length-controlled "
     "strict win of an impact judgment against each target idea in both orders and distance = mean (5 - s) / 4 "
     "over per-field 1-5 similarities; the config's cu_quality / cu_distance name the terms used.",
     ["creative_utility", "cu_quality", "cu_distance"]),
    ("grounding", "Grounding fidelity",
     "Share of kg: links resolving to nodes of the topic graph and of citations matching a background paper.",
     ["grounding_links", "grounding_citations"]),
]
SUMMARY_COLUMNS = ["method", "n_topics", "n_ideas", "shortfall", "elo_method_overall", "elo_overall", "score_novelty",
                   "moscore_pd",
                   "moscore_ps", "yield", "creative_utility", "diversity", "novelty", "grounding_links",
                   "cost_usd"]


@dataclass
class EvalResults:
    """Everything the report shows; built by the harness (or by tests, by hand)."""

    meta: dict[str, Any]
    methods: list[str]
    ideas: list[dict[str, Any]] = field(default_factory=list)
    topics: list[dict[str, Any]] = field(default_factory=list)
    estimates: dict[str, dict[str, Estimate]] = field(default_factory=dict)  # method -> metric -> estimate
    surfaces: dict[str, dict[str, Any]] = field(default_factory=dict)  # method -> {ks, ls, grid, m, tau}
    yield_counts: list[dict[str, Any]] = field(default_factory=list)
    cost: list[dict[str, Any]] = field(default_factory=list)
    kappa: list[dict[str, Any]] = field(default_factory=list)
    shortfalls: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    order: list[dict[str, Any]] = field(default_factory=list)  # order consistency per kind, dimension, judge
    replies: list[dict[str, Any]] = field(default_factory=list)  # asked / usable / unusable per kind and judge
    protocol: list[dict[str, Any]] = field(default_factory=list)  # every choice: {item, value, source}
    rejections: list[dict[str, Any]] = field(default_factory=list)  # per method: rejected ideas and why


def _long_table(name: str, res: EvalResults, metrics: Sequence[str]) -> Table:
    rows = []
    for m in res.methods:
        for metric in metrics:
            e = res.estimates.get(m, {}).get(metric)
            if e is None:
                continue
            rows.append({"method": m, "metric": metric, "value": e.value, "lo": e.lo, "hi": e.hi, "n": e.n})
    return Table(name, ["method", "metric", "value", "lo", "hi", "n"], rows)


# The summary as two tables that fit a page: the headline (cost visible) and the quality details. methods.csv
# keeps every column in one row per method.
HEADLINE_COLUMNS = ["method", "n_topics", "n_ideas", "shortfall", "elo_overall", "yield", "cost_usd"]
DETAIL_COLUMNS = ["method"] + [c for c in SUMMARY_COLUMNS if c not in HEADLINE_COLUMNS]
# MOScores are means of win rates over a handful of judged pairs: two decimals, not four
DIGITS = {"moscore_pd": 2, "moscore_ps": 2}
NO_ELO_SIGNAL = ("no signal: no decisive match was played, so every ELO is the start rating with a zero-width "
                 "interval -- these numbers do not rank the methods")
TOO_FEW = "too few verdicts to tell"


def no_elo_signal(res: EvalResults) -> bool:
    """True when every ELO estimate is the start rating with a zero-width interval (no decisive match)."""
    start = float(res.meta.get("elo_start", 1000.0))
    elos = [e for m in res.methods for k, e in res.estimates.get(m, {}).items()
            if k.startswith("elo_") and k != "elo_matches"]
    return bool(elos) and all(e.value == start and e.lo == e.hi == start for e in elos)


def _empty_reason(res: EvalResults, sid: str) -> str:
    """Why a section's table holds no row, said where its numbers would be."""
    cfg = res.meta.get("config") or {}
    metrics = cfg.get("metrics")
    key = {"creative-utility": "cu", "direct-scores": "score", "elo": "elo", "reference": "reference",
           "diversity": "diversity", "yield": "yield", "grounding": "grounding"}.get(sid)
    if metrics and key and key not in metrics:
        return f"not computed: {key!r} is not among the evaluation's metrics ({', '.join(metrics)})"
    if sid == "agreement":
        judges = res.meta.get("judges") or []
        if len(judges) < 2:
            return (f"no signal: the panel has {len(judges)} judge(s); agreement needs two judges rating the same "
                    "items")
        return "no signal: no dimension where two judges both gave a usable rating of the same items"
    if sid == "creative-utility":
        return ("no value: Creative Utility needs a topic's target papers as references and usable impact and "
                "distance judgments (see the notes and the Judge replies section)")
    if sid == "grounding":
        return "no value: no idea held a kg: link or a citation to check against the topic's graph and papers"
    return "no value: no method produced this metric (see the notes above)"


def _summary_table(res: EvalResults) -> Table:
    rows = []
    for m in res.methods:
        est = res.estimates.get(m, {})
        row: dict[str, Any] = {"method": m}
        for c in SUMMARY_COLUMNS[1:]:
            e = est.get(c)
            row[c] = e.value if e is not None else None
        for c in ("n_topics", "n_ideas", "shortfall"):
            if row.get(c) is not None:
                row[c] = int(row[c])
        rows.append(row)
    return Table("methods", SUMMARY_COLUMNS, rows, digits=DIGITS)


def build_tables(res: EvalResults) -> dict[str, Table]:
    tables = {"methods": _summary_table(res)}
    silent_elo = no_elo_signal(res)
    head_rows = [{c: r.get(c) for c in HEADLINE_COLUMNS} for r in tables["methods"].rows]
    if silent_elo:  # an ELO of 1000 [1000, 1000] would read "equal"; the cell stays empty and says why
        for r in head_rows:
            r["elo_overall"] = None
    tables["methods-headline"] = Table("methods-headline", HEADLINE_COLUMNS, head_rows, digits=DIGITS,
                                       note=f"elo_overall: {NO_ELO_SIGNAL}" if silent_elo else "")
    tables["methods-detail"] = Table("methods-detail", DETAIL_COLUMNS,
                                     [{c: r.get(c) for c in DETAIL_COLUMNS} for r in tables["methods"].rows],
                                     digits=DIGITS)
    for sid, _, _, metrics in SECTIONS:
        tables[sid] = _long_table(sid, res, metrics)
        if not tables[sid].rows:
            tables[sid].note = _empty_reason(res, sid)
        elif sid == "elo" and silent_elo:
            tables[sid].note = NO_ELO_SIGNAL
    tables["yield-counts"] = Table("yield-counts", ["method", "topics", "yield_ge_1", "yield_ge_2", "yield_ge_3"],
                                   res.yield_counts)
    tables["cost"] = Table("cost", ["method", "scope", "calls", "input_tokens", "output_tokens", "cost_usd",
                                    "cost_usd_per_idea"], res.cost)
    tables["agreement"] = Table("agreement", ["dimension", "judge_a", "judge_b", "n", "kappa"], res.kappa,
                                note="" if res.kappa else _empty_reason(res, "agreement"))
    tables["shortfalls"] = Table("shortfalls", ["method", "topic_id", "requested", "delivered", "reason"],
                                 res.shortfalls)
    tables["rejections"] = Table("rejections", ["method", "accepted", "rejected", "reasons"], res.rejections)
    tables["protocol"] = Table("protocol", ["item", "value", "source"], res.protocol)
    # a judge that picked one slot in all of its few decisive verdicts is neither flagged nor cleared: said so
    bias_min = int((res.meta.get("config") or {}).get("order_bias_min") or 6)
    order = [{**r, "order_biased": TOO_FEW} if not r.get("order_biased") and 0 < int(r.get("decisive") or 0) < bias_min
             else r for r in res.order]
    few = [r for r in order if r.get("order_biased") == TOO_FEW]
    tables["order-consistency"] = Table("order-consistency", ORDER_COLUMNS, order, note=(
        f"{len(few)} row(s): {TOO_FEW} -- fewer than {bias_min} decisive verdicts, so a slot bias can be neither "
        "shown nor ruled out there" if few else ""))
    tables["replies"] = Table("replies", ["kind", "judge", "asked", "usable", "unusable"], res.replies)
    for name, t in tables.items():  # what report.html and summary.md show: sane precision (tables.report_digits)
        t.report = name != "methods"  # methods.csv: one row per method at full 4 decimals, for reuse
    return tables


# -- plots ---------------------------------------------------------------------------------------------
POINTS_KEY = "MotivGraph-points"  # PNG text chunk: how many data points a plot draws (report_check reads it)


def _save(fig: Any, path: Path, points: int) -> Path | None:
    """Write the plot with its data-point count in the PNG; a plot with nothing to draw is not written (an
    axes frame, a title and a legend are not blank to the eye, yet show nothing) and the report says so."""
    if points <= 0:
        plt.close(fig)
        path.unlink(missing_ok=True)
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={POINTS_KEY: str(points)})
    plt.close(fig)
    return path


def _finite(x: float | None) -> bool:
    return x is not None and not math.isnan(x)


def plot_elo(res: EvalResults, path: Path) -> Path | None:
    fig, ax = plt.subplots(figsize=(8, 4.5))
    points = 0
    width = 0.8 / max(1, len(ELO_DIMS))
    for di, dim in enumerate(ELO_DIMS):
        xs: list[float] = []
        ys: list[float] = []
        errs: list[list[float]] = [[], []]
        for mi, m in enumerate(res.methods):
            e = res.estimates.get(m, {}).get(f"elo_{dim}")
            if e is None or not _finite(e.value):
                continue
            xs.append(mi + (di - (len(ELO_DIMS) - 1) / 2) * width)
            ys.append(e.value)
            errs[0].append(max(0.0, e.value - e.lo) if _finite(e.lo) else 0.0)
            errs[1].append(max(0.0, e.hi - e.value) if _finite(e.hi) else 0.0)
        ax.bar(xs, ys, width, yerr=errs, capsize=3, label=dim)
        points += len(ys)
    start = float(res.meta.get("elo_start", 1000.0))
    ax.axhline(start, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(res.methods)), res.methods, rotation=20)
    ax.set_ylabel("ELO (95% bootstrap CI)")
    ax.set_title("Swiss tournament ELO per dimension")
    ax.legend(fontsize=8)
    vals = [e.value for m in res.methods for k, e in res.estimates.get(m, {}).items() if k.startswith("elo_")
            and _finite(e.value)]
    if vals:
        ax.set_ylim(min([*vals, start]) - 60, max([*vals, start]) + 60)
    return _save(fig, path, points)


def plot_surface(method: str, surface: dict[str, Any], path: Path) -> Path | None:
    fig, ax = plt.subplots(figsize=(5, 4.2))
    grid = surface["grid"]
    im = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto", vmin=0,
                   vmax=max(1.0, max(max(r) for r in grid) if grid else 1.0))
    ax.set_xticks(range(len(surface["ls"])), [fmt(x) if isinstance(x, float) else str(x) for x in surface["ls"]])
    ax.set_yticks(range(len(surface["ks"])), [fmt(x) if isinstance(x, float) else str(x) for x in surface["ks"]])
    ax.set_xlabel("soundness gate l")
    ax.set_ylabel("non-obviousness gate k")
    ax.set_title(f"{method}: mean Yield (C>={surface.get('m')}, D>={surface.get('tau')})", fontsize=9)
    fig.colorbar(im, ax=ax)
    return _save(fig, path, sum(len(r) for r in grid))


def plot_diversity_quality(res: EvalResults, path: Path) -> Path | None:
    fig, ax = plt.subplots(figsize=(6, 4.5))
    points = 0
    for m in res.methods:
        raw = [(t.get("diversity"), t.get("quality")) for t in res.topics if t.get("method") == m]
        pts = [(float(x), float(y)) for x, y in raw if x is not None and y is not None and _finite(x) and _finite(y)]
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], label=m, s=40, alpha=0.8)
            points += len(pts)
    ax.set_xlabel("embedding diversity (per topic)")
    ax.set_ylabel("quality: mean direct score (per topic)")
    ax.set_title("Diversity vs quality")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    return _save(fig, path, points)


def plot_cost(res: EvalResults, path: Path) -> Path | None:
    fig, ax = plt.subplots(figsize=(7, 4))
    points = 0  # bars above zero: a run of free calls (a local model) has no cost to draw
    scopes = sorted({r["scope"] for r in res.cost})
    bottom = [0.0] * len(res.methods)
    for s in scopes:
        vals = [sum(float(r.get("cost_usd") or 0.0) for r in res.cost if r["method"] == m and r["scope"] == s)
                for m in res.methods]
        ax.bar(res.methods, vals, bottom=bottom, label=s)
        points += sum(1 for v in vals if v > 0)
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    ax.set_ylabel("USD")
    ax.set_title("Cost per method (generation + evaluation)")
    if scopes:
        ax.legend(fontsize=8)
    ax.tick_params(axis="x", rotation=20)
    return _save(fig, path, points)


def make_plots(res: EvalResults, out: Path) -> dict[str, list[Path]]:
    plots = out / "plots"
    drawn: dict[str, list[Path | None]] = {
        "elo": [plot_elo(res, plots / "elo.png")],
        "yield": [plot_surface(m, res.surfaces[m], plots / f"yield_surface_{_slug(m)}.png")
                  for m in res.methods if m in res.surfaces],
        "diversity": [plot_diversity_quality(res, plots / "diversity_vs_quality.png")],
        "cost": [plot_cost(res, plots / "cost.png")],
    }
    return {sid: [p for p in paths if p is not None] for sid, paths in drawn.items()}


def _slug(s: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in s)


# -- html -------------------------------------------------------------------------------------------------
_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:0.6em 0 1.4em}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}img{max-width:100%;margin:4px}
section{margin-bottom:2em}p.note{color:#555;font-size:13px}"""


def _html_table(t: Table) -> str:
    note = (f"<p class='note no-signal' data-no-signal='{html.escape(t.name)}'>{html.escape(t.note)}</p>"
            if t.note else "")
    head = "".join(f"<th>{html.escape(c)}</th>" for c in t.columns)
    body = []
    for cells in t.cells():
        tds = "".join(f'<td class="num">{html.escape(c)}</td>' if _numeric(c) else f"<td>{html.escape(c)}</td>"
                      for c in cells)
        body.append(f"<tr>{tds}</tr>")
    return (f'{note}<table data-table="{html.escape(t.name)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def _numeric(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _img(p: Path, out: Path) -> str:
    data = base64.b64encode(p.read_bytes()).decode("ascii")
    rel = p.relative_to(out).as_posix()
    return f'<img alt="{html.escape(rel)}" data-file="{html.escape(rel)}" src="data:image/png;base64,{data}">'


REPORT_SECTIONS = ["protocol", "summary"] + [s[0] for s in SECTIONS] + ["order-consistency", "replies", "cost",
                                                                         "agreement", "shortfalls"]
ORDER_COLUMNS = ["kind", "dimension", "judge", "pairs", "consistent", "flipped", "consistency", "decisive",
                 "slot_a_share", "order_biased"]


PLOTTED = ("elo", "yield", "diversity", "cost")
NO_PLOT = "<p class='note'>No plot: there is no data to draw for this section.</p>"


def _plots_html(sid: str, plots: dict[str, list[Path]], out: Path) -> list[str]:
    if sid in PLOTTED and not plots.get(sid):
        return [NO_PLOT]
    return [_img(p, out) for p in plots.get(sid, [])]


def render_html(res: EvalResults, tables: dict[str, Table], plots: dict[str, list[Path]], out: Path) -> str:
    meta = res.meta
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>MotivGraph evaluation "
             f"{html.escape(str(meta.get('eval_id', '')))}</title><style>{_CSS}</style></head><body>",
             f"<h1>Evaluation {html.escape(str(meta.get('eval_id', '')))}</h1>",
             "<p class='note'>" + html.escape(
                 f"topics: {meta.get('n_topics')} · methods: {', '.join(res.methods)} · ideas per topic: "
                 f"{meta.get('n_ideas')} · judges: {', '.join(meta.get('judges', []))} · "
                 f"generated {meta.get('finished_at', '')}") + "</p>"]
    for n in _warnings_first(res.notes):  # a warning is read before any number it qualifies
        parts.append(f"<p class='note'>{html.escape(n)}</p>")
    parts.append("<section id='protocol'><h2>Protocol</h2><p class='note'>Every choice this evaluation made: "
                 "judges, presentation orders, thresholds per metric, ideas per topic, ELO rounds and matches, "
                 "grounding, each with its source: a source paper's choice (named), ours (a design choice or a "
                 "number the papers do not give), or a substitute for what we cannot run.</p>"
                 + _html_table(tables["protocol"]) + "</section>")
    parts.append("<section id='summary'><h2>Summary</h2><p class='note'>Headline numbers per method "
                 "(point values; intervals in the sections below), then the quality details; methods.csv holds "
                 "both in one row per method.</p>" + _html_table(tables["methods-headline"])
                 + _html_table(tables["methods-detail"]))
    parts.append("</section>")
    for sid, title, desc, _ in SECTIONS:
        parts.append(f"<section id='{sid}'><h2>{html.escape(title)}</h2><p class='note'>{html.escape(desc)}</p>")
        parts.append(_html_table(tables[sid]))
        if sid == "yield":
            parts.append("<h3>Topics with Yield &ge; 1 / 2 / 3</h3>" + _html_table(tables["yield-counts"]))
        parts.extend(_plots_html(sid, plots, out))
        parts.append("</section>")
    parts.append("<section id='order-consistency'><h2>Order consistency</h2><p class='note'>Every question "
                 "asked in both presentation orders, per judged dimension and judge: the share of pairs whose two "
                 "verdicts agree (the same idea wins, or a tie twice; for diversity, the same relation). A pair "
                 "that flipped (the same slot won both times) counts as a tie: no signal. order_biased: the judge "
                 "named one slot in most of its decisive verdicts.</p>" + _html_table(tables["order-consistency"])
                 + "</section>")
    parts.append("<section id='replies'><h2>Judge replies</h2><p class='note'>Questions asked per kind and "
                 "judge; an unusable reply (unparseable after the re-ask) is counted here and left out of every "
                 "metric, never turned into a verdict.</p>" + _html_table(tables["replies"]) + "</section>")
    parts.append("<section id='cost'><h2>Cost</h2><p class='note'>Calls, tokens and USD per method: generation "
                 "(the method's own run) and each evaluation metric (judge role).</p>" + _html_table(tables["cost"]))
    parts.extend(_plots_html("cost", plots, out))
    parts.append("</section>")
    parts.append("<section id='agreement'><h2>Judge agreement</h2><p class='note'>Cohen's kappa per dimension "
                 "where two panel judges rated the same items (quadratic weights for 0-9/1-10 scales).</p>"
                 + _html_table(tables["agreement"]) + "</section>")
    parts.append("<section id='rejections'><h2>Rejected ideas</h2><p class='note'>Ideas a method wrote that do "
                 "not count: rejected by the method or by the shared validity gate (placeholders, template echoes, "
                 "empty or copied fields, off-topic; agents/core/validity.py), with the most frequent reasons."
                 "</p>" + _html_table(tables["rejections"]) + "</section>")
    parts.append("<section id='shortfalls'><h2>Shortfalls</h2><p class='note'>Topics where a method delivered "
                 "fewer ideas than requested.</p>" + _html_table(tables["shortfalls"]) + "</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def render_summary(res: EvalResults, tables: dict[str, Table]) -> str:
    lines = [f"# Evaluation {res.meta.get('eval_id', '')}", "",
             f"Topics: {res.meta.get('n_topics')}; methods: {', '.join(res.methods)}; "
             f"ideas per topic: {res.meta.get('n_ideas')}; judges: {', '.join(res.meta.get('judges', []))}.", ""]
    lines += [f"- {n}" for n in _warnings_first(res.notes)]
    if res.protocol:
        lines += ["", "Protocol:", ""] + [f"- {r['item']}: {r['value']}" + (f" [{r['source']}]" if r.get("source")
                                                                              else "") for r in res.protocol]
    for t in (tables["methods-headline"], tables["methods-detail"]):
        lines += ["", "| " + " | ".join(t.columns) + " |", "|" + "---|" * len(t.columns)]
        lines += ["| " + " | ".join(c or "–" for c in row) + " |" for row in t.cells()]
        if t.note:
            lines += ["", f"*{t.note}*"]
    silent = [f"- {name}: {t.note}" for name, t in tables.items() if t.note and not name.startswith("methods")]
    if silent:
        lines += ["", "No signal (the report says why where the numbers would be):", "", *silent]
    lines += ["", "Full report: `report.html`; per idea: `ideas.csv`; per topic: `topics.csv`; "
              "tables: `tables/*.csv`; plots: `plots/*.png`.", ""]
    return "\n".join(lines)


def _warnings_first(notes: Sequence[str]) -> list[str]:
    return [n for n in notes if n.startswith("WARNING")] + [n for n in notes if not n.startswith("WARNING")]


def _columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    return cols


def write_report(res: EvalResults, out: Path) -> dict[str, Any]:
    """Write the whole results directory; returns {'html': path, 'plots': [...], 'tables': [...]}."""
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "ideas.jsonl", res.ideas)
    write_jsonl(out / "topics.jsonl", res.topics)
    Table("ideas", _columns(res.ideas), res.ideas).write_csv(out / "ideas.csv")
    Table("topics", _columns(res.topics), res.topics).write_csv(out / "topics.csv")
    tables = build_tables(res)
    tables["methods"].write_csv(out / "methods.csv")
    for name, t in tables.items():
        t.write_csv(out / "tables" / f"{name}.csv")
    plots = make_plots(res, out)
    atomic_write(out / "report.html", render_html(res, tables, plots, out))
    atomic_write(out / "summary.md", render_summary(res, tables))
    return {"html": out / "report.html", "plots": [p for ps in plots.values() for p in ps],
            "tables": sorted(tables)}
