"""The one run report every method gets: `summary.md` and the HTML page of a run (GET /runs/{id}).

Both are rendered from what a run directory holds (status.json, ideas.json, transcript.jsonl,
repro.json), so a report can be rebuilt for any run, finished or not, by any method:

- every idea field (title, motivation, method, experiments, expected outcome, risks, abstract,
  related work), with `[text](kg:type:name)` links made readable ("text [challenge: Name]") and
  (Author et al., year) citations followed by the title of the paper they matched;
- the grounding: each graph link (resolved or why not, close nodes, the quotes of the papers that state its
  node with paper and page) and each citation (matched paper);
- the dialogue: every agent message, tool call and decision in order (tool results stay in
  transcript.jsonl: they are long and add nothing a reader of the report needs);
- the cost per LLM role and in total, and the reproducibility record.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from motivgraph.agents.core.idea import IdeaRecord
from motivgraph.agents.core.repro import render_markdown as render_repro
from motivgraph.agents.core.rundir import RunDir, live_status
from motivgraph.api.contract.models import QuoteOut

IDEA_FIELDS = (("motivation", "Motivation"), ("method", "Method"), ("experiments", "Experiments"),
               ("expected_outcome", "Expected outcome"), ("risks", "Risks and limitations"),
               ("abstract", "Abstract"), ("related_work", "Related work"))
_MD_KG = re.compile(r"\[([^\]\n]*)\]\(\s*<?kg:([A-Za-z]+):((?:[^()\n]|\([^()\n]*\))+?)>?\s*\)")
_HREF_KG = re.compile(r"""<a\s+href\s*=\s*["']kg:([A-Za-z]+):([^"'\n]+)["']\s*>(.*?)</a>""", re.I | re.S)
_BARE_KG = re.compile(r"""(?<![\w("'/:\[])kg:([A-Za-z]+):([^\s,;()\[\]"'<>]+)""")
_DIALOGUE_TYPES = ("message", "tool_call", "decision", "question", "grounding", "idea_invalid", "phase")


@dataclass
class RunView:
    """What a report shows, read from a run directory (or handed over by the runner)."""

    status: dict[str, Any]
    ideas: list[IdeaRecord] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    repro: dict[str, Any] | None = None
    method_section: str = ""

    @property
    def run_id(self) -> str:
        return str(self.status.get("id", ""))

    @property
    def usage(self) -> dict[str, Any]:
        return dict(self.status.get("usage") or {})


def _ideas(raw: list[dict[str, Any]]) -> list[IdeaRecord]:
    out = []
    for d in raw:
        try:
            out.append(IdeaRecord.model_validate(d))
        except ValueError:  # an idea written by an older version: shown by its title only
            out.append(IdeaRecord.model_construct(title=str(d.get("title") or "(unreadable idea)"), **{
                k: v for k, v in d.items() if k in IdeaRecord.model_fields and k != "title"}))
    return out


def load_view(run: RunDir) -> RunView:
    """A run as it is now: a run whose process is gone reads `interrupted` with the command to resume it."""
    return RunView(status=live_status(run.status(), run.id), ideas=_ideas(run.ideas()), events=list(run.events()),
                   repro=run.read_json("repro.json"))


def run_row(run: RunDir) -> dict[str, Any]:
    """One line of a run listing (CLI `runs list`, GET /runs)."""
    st = live_status(run.status(), run.id)
    spec = st.get("spec") or {}
    total = (st.get("usage") or {}).get("total") or {}
    return {"id": run.id, "method": st.get("method"), "topic": st.get("topic") or spec.get("topic"),
            "resume": st.get("resume"), "orphaned": bool(st.get("orphaned")),
            "status": st.get("status"), "created_at": st.get("created_at"), "updated_at": st.get("updated_at"),
            "ideas_accepted": st.get("ideas_accepted", 0), "ideas_rejected": st.get("ideas_rejected", 0),
            "llm_calls": total.get("calls", 0), "cost_usd": total.get("cost_usd", 0.0),
            "error": st.get("error"), "reason": st.get("reason"), "path": str(run.path)}


def list_rows(runs_dir: Any, method: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
    """Run listing rows (CLI `runs list`, GET /runs), newest first; unreadable run directories are skipped."""
    rows = []
    for run in RunDir.list(runs_dir):
        try:
            row = run_row(run)
        except (OSError, json.JSONDecodeError):
            continue
        if (method is None or row["method"] == method) and (status is None or row["status"] == status):
            rows.append(row)
    rows.sort(key=lambda r: str(r.get("created_at") or ""), reverse=True)
    return rows


# ----------------------------------------------------------------------------- readable references
def readable_links(text: str) -> str:
    """`[oversmoothing](kg:challenge:Oversmoothing in GNNs)` -> `oversmoothing [challenge: Oversmoothing in GNNs]`."""

    def md(m: re.Match[str]) -> str:
        label, typ, name = m.group(1).strip(), m.group(2).lower(), m.group(3).strip()
        return f"{label} [{typ}: {name}]" if label and label.lower() != name.lower() else f"{name} [{typ}]"

    def href(m: re.Match[str]) -> str:
        typ, name, label = m.group(1).lower(), m.group(2).strip(), re.sub(r"<[^>]+>", "", m.group(3)).strip()
        return f"{label} [{typ}: {name}]" if label and label.lower() != name.lower() else f"{name} [{typ}]"

    text = _MD_KG.sub(md, text)
    text = _HREF_KG.sub(href, text)
    return _BARE_KG.sub(lambda m: f"{m.group(2).replace('_', ' ')} [{m.group(1).lower()}]", text)


def readable_citations(text: str, idea: IdeaRecord) -> str:
    """Each matched (Author et al., year) citation followed by the title of the paper it matched."""
    for c in idea.grounding.citations:
        if c.paper is None or not c.raw:
            continue
        text = text.replace(c.raw, f"{c.raw} [“{c.paper.title}”]", 1)
    return text


def readable(text: str, idea: IdeaRecord) -> str:
    return readable_citations(readable_links(text or ""), idea)


# ----------------------------------------------------------------------------- markdown
def _cost_lines(usage: dict[str, Any]) -> list[str]:
    if not usage:
        return ["No LLM usage recorded."]
    lines = ["| role | calls | cache hits | tokens in | tokens out | cost USD |", "|---|---:|---:|---:|---:|---:|"]
    for role, u in sorted(usage.items(), key=lambda kv: (kv[0] == "total", kv[0])):
        if not isinstance(u, dict):
            continue
        name = "**total**" if role == "total" else role
        lines.append(f"| {name} | {u.get('calls', 0)} | {u.get('cache_hits', 0)} | {u.get('input_tokens', 0)} | "
                     f"{u.get('output_tokens', 0)} | {float(u.get('cost_usd', 0.0)):.4f} |")
    return lines


def quote_line(q: QuoteOut) -> str:
    """A supporting quote of a kg: link with where it stands: “text” — title (paper id, year), p. N, section."""
    where = [f"p. {q.page}" if q.page else "", q.section or ""]
    src = f"{q.title or q.paper_id} ({q.paper_id}{', ' + str(q.year) if q.year else ''})"
    line = f"“{q.text}” — {', '.join([src, *(w for w in where if w)])}"
    return line if q.verified else f"{line} [unverified: {q.reason or 'not located in the paper'}]"


def _grounding_lines(idea: IdeaRecord) -> list[str]:
    g = idea.grounding
    if not g.checked and not g.links and not g.citations:
        return ["- not checked (no graph or literature to check against)"]
    lines = [f"- graph links resolved: {g.links_resolved}/{len(g.links)}; citations matched: "
             f"{g.citations_resolved}/{len(g.citations)}" + ("; **flagged**" if g.flagged else "")]
    for ln in g.links:
        if ln.resolved:
            lines.append(f"- ✓ {ln.type} “{ln.name}” (node {ln.key})")
        else:
            hint = f"; close nodes: {', '.join(ln.suggestions)}" if ln.suggestions else ""
            lines.append(f"- ✗ {ln.type} “{ln.name}” — {ln.reason or 'not in the graph'}{hint}")
        lines += [f"    - {quote_line(q)}" for q in ln.quotes]
    for c in g.citations:
        if c.paper is not None:
            p = c.paper
            who = ", ".join(p.authors[:3]) + (" et al." if len(p.authors) > 3 else "")
            ids = ", ".join(x for x in (f"doi:{p.doi}" if p.doi else "", p.paper_id or "") if x)
            lines.append(f"- ✓ {c.raw} → “{p.title}” ({who}{', ' if who else ''}{p.year or 'n.d.'})"
                         + (f" [{ids}]" if ids else ""))
        else:
            lines.append(f"- ✗ {c.raw} — {c.reason or 'matches no retrieved paper'}")
    return lines


def _where(ev: dict[str, Any]) -> str:
    bits = [f"idea {ev['idea']}" if "idea" in ev else "", f"round {ev['round']}" if "round" in ev else ""]
    return ", ".join(b for b in bits if b)


def dialogue_entries(events: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(kind, heading, text) per dialogue event, in order: assistant messages, questions, tool calls,
    decisions, grounding checks, phase changes."""
    out: list[tuple[str, str, str]] = []
    for ev in events:
        kind = ev.get("type")
        if kind not in _DIALOGUE_TYPES:
            continue
        where = _where(ev)
        if kind == "message":
            if ev.get("role") != "assistant" or not str(ev.get("content") or "").strip():
                continue
            out.append(("message", f"{ev.get('agent', '?')}" + (f" ({where})" if where else ""),
                        str(ev.get("content")).strip()))
        elif kind == "tool_call":
            args = json.dumps(ev.get("args") or {}, ensure_ascii=False)
            out.append(("tool", f"{ev.get('agent', '?')} calls {ev.get('name') or '(unreadable call)'}", args))
        elif kind == "decision":
            forced = " (round limit)" if ev.get("forced") else ""
            out.append(("decision", f"decision: {ev.get('decision')}{forced}",
                        f"by {ev.get('by', '?')} after {ev.get('rounds', '?')} round(s)"))
        elif kind == "grounding":
            out.append(("grounding", f"grounding check {ev.get('attempt', '')}".strip(),
                        f"links {ev.get('links_resolved')}/{ev.get('links_total')}, citations "
                        f"{ev.get('citations_resolved')}/{ev.get('citations_total')}"))
        elif kind == "phase":
            out.append(("phase", f"— {ev.get('phase')}" + (f" ({where})" if where else "") + " —", ""))
        elif kind == "idea_invalid":
            out.append(("error", "no valid idea", str(ev.get("error") or "")))
    # a question is the mentor's message already shown; keep the dialogue free of duplicates
    return out


def render_summary(view: RunView) -> str:
    st = view.status
    spec = st.get("spec") or {}
    topic = st.get("topic") or spec.get("topic") or ""
    topic_id = spec.get("topic_id")
    accepted = sum(1 for i in view.ideas if i.status == "accepted")
    rejected = sum(1 for i in view.ideas if i.status == "rejected")
    total = view.usage.get("total") or {}
    lines = [f"# {st.get('method', '?')} run {view.run_id}", "",
             f"- Topic: {topic}" + (f" ({topic_id})" if topic_id else ""),
             f"- Status: {st.get('status')}" + (f" — {st['error']}" if st.get("error") else "")
             + f"; ideas: {accepted} accepted, {rejected} rejected",
             *([f"- Reason: {st['reason']}"] if st.get("reason") else []),
             *([f"- Resume with: `{st['resume']}`"] if st.get("resume") else []),
             f"- Started {st.get('created_at', '?')}, last update {st.get('updated_at', '?')}",
             f"- LLM calls: {total.get('calls', 0)}, tokens in/out: {total.get('input_tokens', 0)}/"
             f"{total.get('output_tokens', 0)}, cost ${float(total.get('cost_usd', 0.0)):.4f}",
             f"- Config: {json.dumps(spec.get('config', st.get('config') or {}), ensure_ascii=False)}", ""]
    if view.method_section:
        lines += [view.method_section.rstrip(), ""]
    for n, idea in enumerate(view.ideas, 1):
        lines += [f"## Idea {n}. {idea.title} — {idea.status}", ""]
        if idea.rejection:
            lines += [f"Rejected: {idea.rejection}", ""]
        if idea.name:
            lines += [f"*{idea.name}*", ""]
        for attr, label in IDEA_FIELDS:
            value = getattr(idea, attr, "") or ""
            if value.strip():
                lines += [f"### {label}", "", readable(value, idea).strip(), ""]
        lines += ["### Grounding", "", *_grounding_lines(idea), ""]
        prov = getattr(idea, "provenance", None)
        if prov is not None:
            lines += [f"*Idea cost: {prov.llm_calls} LLM calls, {prov.input_tokens}/{prov.output_tokens} tokens, "
                      f"${prov.cost_usd:.4f}*", ""]
    lines += ["## Cost", "", *_cost_lines(view.usage), ""]
    entries = dialogue_entries(view.events)
    lines += ["## Dialogue", ""]
    if not entries:
        lines += ["(no messages recorded)", ""]
    for kind, head, text in entries:
        if kind == "phase":
            lines += [f"*{head}*", ""]
        elif kind == "tool":
            lines += [f"- ⚙ **{head}** `{text[:300]}`", ""]
        elif kind in ("decision", "grounding", "error"):
            lines += [f"- **{head}** {text}", ""]
        else:
            quoted = "\n".join("> " + ln if ln.strip() else ">" for ln in text.splitlines())
            lines += [f"**{head}:**", "", quoted, ""]
    lines += ["Full transcript (with tool results): transcript.jsonl", ""]
    if view.repro:
        lines.append(render_repro(view.repro))
    return "\n".join(lines).rstrip() + "\n"


# ----------------------------------------------------------------------------- HTML
_CSS = """body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
.kg{background:#eef5ff;border-radius:3px;padding:0 .25em}.kg.bad{background:#ffecec}
.ok{color:#176b1b}.bad{color:#a01}.msg{border-left:3px solid #bbb;padding:.2em .8em;margin:.6em 0;white-space:pre-wrap}
.agent{font-weight:600}.dim{color:#777}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2em .6em}
code{background:#f4f4f4;padding:0 .2em}"""


def _html_text(text: str, idea: IdeaRecord) -> str:
    """Escaped text with kg links as labelled spans (title: the node) and citations with their paper."""
    resolved = {(ln.type.lower(), ln.name.strip().lower()): ln for ln in idea.grounding.links}
    parts: list[str] = []
    pos = 0
    for m in _MD_KG.finditer(text):
        parts.append(html.escape(text[pos:m.start()]))
        label, typ, name = m.group(1).strip() or m.group(3).strip(), m.group(2).lower(), m.group(3).strip()
        ln = resolved.get((typ, name.lower()))
        cls = "kg" if ln is None or ln.resolved else "kg bad"
        parts.append(f'<span class="{cls}" title="{html.escape(typ)}: {html.escape(name)}">{html.escape(label)}'
                     f' <small class="dim">[{html.escape(typ)}: {html.escape(name)}]</small></span>')
        pos = m.end()
    parts.append(html.escape(text[pos:]))
    out = "".join(parts)
    for c in idea.grounding.citations:
        if c.paper is not None and c.raw:
            raw = html.escape(c.raw)
            out = out.replace(raw, f'{raw} <small class="dim">[“{html.escape(c.paper.title)}”]</small>', 1)
    return out


def render_html(view: RunView, base: str = "/runs") -> str:
    st = view.status
    spec = st.get("spec") or {}
    e = html.escape
    total = view.usage.get("total") or {}
    body = [f"<h1>{e(str(st.get('method', '?')))} run <code>{e(view.run_id)}</code></h1>",
            f"<p><b>Topic:</b> {e(str(st.get('topic') or spec.get('topic') or ''))}<br>"
            f"<b>Status:</b> {e(str(st.get('status')))}"
            + (f" — {e(str(st['error']))}" if st.get("error") else "")
            + (f"<br><b>Resume with:</b> <code>{e(str(st['resume']))}</code>" if st.get("resume") else "")
            + f"<br><b>LLM:</b> {total.get('calls', 0)} calls, {total.get('input_tokens', 0)}/"
            f"{total.get('output_tokens', 0)} tokens, ${float(total.get('cost_usd', 0.0)):.4f}</p>",
            f'<p><a href="{e(base)}">all runs</a> · <a href="{e(base)}/{e(view.run_id)}?format=markdown">'
            'summary.md</a> · <a href="' f'{e(base)}/{e(view.run_id)}?format=json">JSON</a></p>']
    for n, idea in enumerate(view.ideas, 1):
        body.append(f"<h2>Idea {n}. {e(idea.title)} <small class=\"dim\">({e(idea.status)})</small></h2>")
        for attr, label in IDEA_FIELDS:
            value = getattr(idea, attr, "") or ""
            if value.strip():
                body.append(f"<h3>{e(label)}</h3><p>{_html_text(value, idea)}</p>")
        body.append("<h3>Grounding</h3><ul>" + "".join(
            f"<li class=\"quote dim\" style=\"margin-left:1.5em\">{e(ln.strip()[2:])}</li>" if ln.startswith("    - ")
            else f"<li class=\"{'ok' if ln.startswith('- ✓') else 'bad' if ln.startswith('- ✗') else ''}\">"
            f"{e(ln[2:])}</li>" for ln in _grounding_lines(idea)) + "</ul>")
    rows = [r for r in _cost_lines(view.usage) if r.startswith("| ") and not r.startswith("| role")]
    body.append("<h2>Cost</h2><table><tr><th>role</th><th>calls</th><th>cache hits</th><th>tokens in</th>"
                "<th>tokens out</th><th>cost USD</th></tr>" + "".join(
                    "<tr>" + "".join(f"<td>{e(c.strip().strip('*'))}</td>" for c in r.strip('|').split('|')) + "</tr>"
                    for r in rows) + "</table>")
    body.append("<h2>Dialogue</h2>")
    for kind, head, text in dialogue_entries(view.events):
        if kind == "phase":
            body.append(f'<p class="dim">{e(head)}</p>')
        elif kind == "message":
            body.append(f'<div class="msg"><span class="agent">{e(head)}</span>\n{e(text)}</div>')
        else:
            body.append(f"<p><b>{e(head)}</b> <code>{e(text[:500])}</code></p>")
    if view.repro:
        body.append("<h2>Reproducibility</h2><pre>" + e(render_repro(view.repro)) + "</pre>")
    return (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>{e(view.run_id)}</title>"
            f"<style>{_CSS}</style></head><body>" + "\n".join(body) + "</body></html>")


def render_index_html(rows: list[dict[str, Any]], base: str = "/runs") -> str:
    e = html.escape
    trs = "".join(
        f"<tr><td><a href=\"{e(base)}/{e(r['id'])}\">{e(r['id'])}</a></td><td>{e(str(r['method']))}</td>"
        f"<td>{e(str(r['topic'] or ''))}</td><td>{e(str(r['status']))}</td><td>{r['ideas_accepted']}</td>"
        f"<td>{float(r['cost_usd'] or 0):.4f}</td><td>{e(str(r['created_at'] or ''))}</td></tr>" for r in rows)
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>runs</title>"
            f"<style>{_CSS}</style></head><body><h1>Runs</h1><table><tr><th>id</th><th>method</th><th>topic</th>"
            f"<th>status</th><th>accepted</th><th>cost USD</th><th>started</th></tr>{trs}</table></body></html>")
