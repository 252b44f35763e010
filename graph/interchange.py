"""Graph interchange: JSONL export / import / push (format documented in docs/interchange.md).

Export is deterministic (fixed line order, fixed key order, no timestamps of its own), so
export → import into an empty graph → export gives the same bytes. Import validates every line
first, reports bad ones by line number and imports the rest; every write is an idempotent MERGE
in batches, so an import killed part-way and run again ends with the same graph as one clean run.

Import text is never repaired: a lone surrogate, NUL, control character or invalid UTF-8 byte makes
its line a bad line (stripping a NUL could merge two keys; replacing a byte changes an identity).
Nothing is written until every batch has been shaped and checked, so bad input cannot stop an
import half-way.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field, ValidationError

from motivgraph.choices import NODE_TYPES
from motivgraph.errors import ImportFormatError, TextHygieneError
from motivgraph.graph.identity import split_key
from motivgraph.graph.models import NodeIn, NodeRecord, PaperRecord, ParentIn, TripleIn
from motivgraph.limits import MAX_DESCRIPTION_CHARS, MAX_KEY_CHARS, MAX_NAME_CHARS
from motivgraph.text_hygiene import find_problem

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore

log = logging.getLogger(__name__)

FORMAT = "motivgraph-graph"
VERSION = 1
KINDS = ("node", "paper", "triple", "parent")
_TYPE_ORDER = {t: i for i, t in enumerate(NODE_TYPES)}

# (phase, done, total) — phase is one of the import phases below, or "export"
Progress = Callable[[str, int, int], None]


def _dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _node_ref(n: NodeIn, key: str) -> dict[str, Any]:
    return {"key": key, "name": n.name, "description": n.description}


# ---------------------------------------------------------------------------------------------
# export
# ---------------------------------------------------------------------------------------------


def export_lines(store: GraphStore, progress: Progress | None = None) -> Iterator[str]:
    """Every line of the export, in order, without trailing newlines."""
    counts = dict.fromkeys(KINDS, 0)
    yield _dumps({"kind": "header", "format": FORMAT, "version": VERSION})

    nodes = sorted(store.iter_nodes(), key=lambda n: (_TYPE_ORDER[n.type], n.key))
    papers = sorted(store.iter_papers(), key=lambda p: p.paper_id)
    parents = sorted(store.iter_parents(), key=lambda p: (p.type, p.level, p.parent.key_for(p.type)))
    total = len(nodes) + 2 * len(papers) + len(parents)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress and (done % 500 == 0 or done == total):
            progress("export", done, total)

    for n in nodes:
        counts["node"] += 1
        tick()
        yield _dumps(
            {
                "kind": "node", "type": n.type, "key": n.key, "name": n.name, "description": n.description,
                "aliases": sorted(set(n.aliases)), "level": n.level, "created_at": n.created_at,
            }
        )
    for p in papers:
        counts["paper"] += 1
        tick()
        yield _dumps({"kind": "paper", **p.model_dump(mode="json")})
    for p in papers:
        tick()
        for t in sorted(store.paper_triples(p.paper_id), key=lambda t: t.index):
            counts["triple"] += 1
            line: dict[str, Any] = {
                "kind": "triple", "paper_id": t.paper_id, "index": t.index, "section": t.section,
                "extractor": t.extractor,
                "problem": _node_ref(t.problem, t.problem.key_for("problem")),
                "challenge": _node_ref(t.challenge, t.challenge.key_for("challenge")),
                "solution": _node_ref(t.solution, t.solution.key_for("solution")),
            }
            if t.evidence.problem or t.evidence.challenge or t.evidence.solution:
                # only when there is some: a graph without evidence exports the same bytes as before
                line["evidence"] = t.evidence.model_dump(mode="json")
            yield _dumps(line)
    for par in parents:
        counts["parent"] += 1
        tick()
        yield _dumps(
            {
                "kind": "parent", "type": par.type, "level": par.level,
                "parent": _node_ref(par.parent, par.parent.key_for(par.type)),
                "children": sorted(set(par.children)),
            }
        )
    yield _dumps({"kind": "end", "counts": counts})


def export_to(store: GraphStore, fh: Any, progress: Progress | None = None) -> dict[str, int]:
    """Write the export to a text file handle; returns the counts per kind."""
    last = ""
    for line in export_lines(store, progress):
        fh.write(line + "\n")
        last = line
    return json.loads(last)["counts"]


# ---------------------------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------------------------


class _NodeLine(BaseModel):
    type: str
    key: str = Field(max_length=MAX_KEY_CHARS)
    name: str = Field(max_length=MAX_NAME_CHARS)
    description: str = Field("", max_length=MAX_DESCRIPTION_CHARS)
    aliases: list[Annotated[str, Field(max_length=MAX_NAME_CHARS)]] = []
    level: int = 0
    created_at: str | None = None


@dataclass
class Parsed:
    nodes: list[tuple[int, NodeRecord]] = field(default_factory=list)
    papers: list[tuple[int, PaperRecord]] = field(default_factory=list)
    triples: list[tuple[int, TripleIn]] = field(default_factory=list)
    parents: list[tuple[int, ParentIn]] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)
    lines: int = 0


def _reason(e: ValidationError) -> str:
    parts = []
    for err in e.errors()[:3]:
        loc = ".".join(str(x) for x in err["loc"]) or "line"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def _text_problem(value: Any, where: str = "") -> str | None:
    """The first string (value or object key) in a parsed line that is not clean text, described with its
    field path; None when every string is clean."""
    if isinstance(value, str):
        problem = find_problem(value)
        if problem is None:
            return None
        return f"{where or 'line'}: {problem[1]} at character {problem[0] + 1}"
    if isinstance(value, dict):
        for k, v in value.items():
            path = f"{where}.{k}" if where else str(k)
            found = _text_problem(k, f"{where or 'line'} field name") or _text_problem(v, path)
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = _text_problem(v, f"{where}[{i}]")
            if found:
                return found
    return None


def _decode(raw: str | bytes) -> str:
    """A line as text: bytes must be valid UTF-8 (never replaced: U+FFFD would change names and keys)."""
    if isinstance(raw, str):
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TextHygieneError(f"invalid UTF-8 byte 0x{raw[e.start]:02X}", e.start + 1, unit="byte") from None


def _check_ref(ref: Any, node_type: str, what: str) -> NodeIn:
    if not isinstance(ref, dict):
        raise ValueError(f"{what} must be an object with key, name, description")
    n = NodeIn.model_validate(ref)
    if n.key is not None:
        t, _ = split_key(n.key)
        if t != node_type:
            raise ValueError(f"{what}.key {n.key!r} is not a {node_type} key")
    return n


def parse_lines(lines: Iterable[str | bytes]) -> Parsed:
    """Validate every line (text, or bytes as read from a file in binary mode). Bad lines go to `errors` as
    (line number, reason); the rest are kept."""
    out = Parsed()
    saw_header = False
    end_counts: dict[str, int] | None = None
    end_line = 0
    for lineno, raw in enumerate(lines, start=1):
        out.lines = lineno
        try:
            line = _decode(raw).strip()
        except TextHygieneError as e:
            out.errors.append((lineno, str(e)))
            continue
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            out.errors.append((lineno, f"not valid JSON ({e.msg} at column {e.colno})"))
            continue
        if not isinstance(obj, dict):
            out.errors.append((lineno, "a line must be a JSON object"))
            continue
        kind = obj.pop("kind", None)
        # JSON escapes (\u0000, \ud835) decode to text no store can hold unchanged: reject, never repair
        problem = _text_problem(obj)
        if problem is not None:
            out.errors.append((lineno, f"invalid {kind if isinstance(kind, str) else 'line'}: {problem}"))
            continue
        try:
            if lineno == 1 or kind == "header":
                if lineno != 1 or kind != "header":
                    raise ValueError("the first line must be the header {'kind': 'header', ...}")
                if obj.get("format") != FORMAT or obj.get("version") != VERSION:
                    raise ValueError(
                        f"unsupported format {obj.get('format')!r} version {obj.get('version')!r}; "
                        f"this version reads {FORMAT!r} version {VERSION}"
                    )
                saw_header = True
            elif kind == "node":
                nl = _NodeLine.model_validate(obj)
                t, _ = split_key(nl.key)
                if t != nl.type:
                    raise ValueError(f"key {nl.key!r} does not match type {nl.type!r}")
                if nl.level < 0:
                    raise ValueError("level must be >= 0")
                rec = NodeRecord(
                    key=nl.key, type=nl.type, name=" ".join(nl.name.split()), description=nl.description,
                    level=nl.level, aliases=nl.aliases, created_at=nl.created_at,
                )
                if not rec.name:
                    raise ValueError("name is empty")
                out.nodes.append((lineno, rec))
            elif kind == "paper":
                out.papers.append((lineno, PaperRecord.model_validate(obj)))
            elif kind == "triple":
                refs = {t: _check_ref(obj.get(t), t, t) for t in NODE_TYPES}
                triple = TripleIn.model_validate({**obj, **refs})
                for t in NODE_TYPES:  # a name with no letters or digits has no key: a bad line, not a crash later
                    getattr(triple, t).key_for(t)
                out.triples.append((lineno, triple))
            elif kind == "parent":
                ptype = obj.get("type")
                if ptype not in ("problem", "challenge"):
                    raise ValueError(f"type must be 'problem' or 'challenge', not {ptype!r}")
                parent = _check_ref(obj.get("parent"), ptype, "parent")
                children = obj.get("children")
                if not isinstance(children, list) or not all(isinstance(c, str) for c in children):
                    raise ValueError("children must be a list of node keys")
                for c in children:
                    if split_key(c)[0] != ptype:
                        raise ValueError(f"child {c!r} is not a {ptype} key")
                out.parents.append((lineno, ParentIn.model_validate({**obj, "parent": parent})))
            elif kind == "end":
                end_counts, end_line = obj.get("counts"), lineno
            else:
                raise ValueError(f"unknown kind {kind!r}; expected one of header, {', '.join(KINDS)}, end")
        except ValidationError as e:
            out.errors.append((lineno, f"invalid {kind}: {_reason(e)}"))
        except (ValueError, TypeError) as e:
            out.errors.append((lineno, f"invalid {kind}: {e}"))
    if out.lines and not saw_header and not any(ln == 1 for ln, _ in out.errors):
        out.errors.append((1, "missing header line"))
    if out.lines == 0:
        out.errors.append((0, "the file is empty"))
    elif end_counts is None:
        out.errors.append((out.lines, "no end line: the file looks truncated"))
    elif end_line != out.lines:
        out.errors.append((end_line, "the end line must be the last line"))
    elif isinstance(end_counts, dict):
        got = {"node": len(out.nodes), "paper": len(out.papers), "triple": len(out.triples), "parent": len(out.parents)}
        bad_lines = len(out.errors)
        if not bad_lines and any(end_counts.get(k) != v for k, v in got.items()):
            out.errors.append((end_line, f"end line counts {end_counts} differ from the lines read {got}"))
    out.errors.sort()
    return out


# ---------------------------------------------------------------------------------------------
# import
# ---------------------------------------------------------------------------------------------


class ImportReport(BaseModel):
    lines: int = 0
    nodes: int = 0
    papers: int = 0
    triples: int = 0
    parents: int = 0
    errors: list[tuple[int, str]] = []

    @property
    def ok(self) -> bool:
        return not self.errors


def _batches(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _known_papers(store: GraphStore, in_file: set[str], wanted: set[str], replace: bool) -> set[str]:
    """Paper ids a triple may name: those in the file, plus (when merging) those already in the graph."""
    known = set(in_file)
    if not replace:
        known.update(pid for pid in sorted(wanted - in_file) if store.get_paper(pid) is not None)
    return known


def _node_sources(store: GraphStore, nodes: list[NodeRecord], triples: list[TripleIn], *,
                  merge: bool) -> dict[str, list[str]]:
    """Per node key, the papers stating it in the order upsert_triples records them: the graph's own first
    when merging (read before anything is written), then those of the triples, in file order."""
    out: dict[str, dict[str, None]] = {}
    if merge:
        for chunk in _batches([n.key for n in nodes], 1000):
            for rec in store.get_nodes(chunk):
                if rec is not None and rec.sources:
                    out[rec.key] = dict.fromkeys(rec.sources)
    for t in triples:
        for role in NODE_TYPES:
            out.setdefault(getattr(t, role).key_for(role), {})[t.paper_id] = None
    return {k: list(v) for k, v in out.items()}


def _check_batches(phases: list[tuple[str, list[Any], Callable[[list[Any]], Any]]], batch_size: int) -> None:
    """Every record of every batch must serialise to UTF-8 before the first write, so no input can stop an
    import half-way (parse_lines already rejects such lines; this guards records built by callers)."""
    for phase, items, _ in phases:
        for chunk in _batches(items, batch_size):
            for item in chunk:
                try:
                    item.model_dump_json().encode("utf-8")
                except (UnicodeEncodeError, ValueError) as e:
                    raise ImportFormatError(f"{phase}: a record cannot be stored ({e}); nothing was written") from e


def import_lines(
    store: GraphStore,
    lines: Iterable[str | bytes],
    *,
    batch_size: int = 500,
    replace: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Import an export into `store`: validate all lines, then write the valid ones in batches.

    Phases: nodes (restored exactly) → papers → triples → parents (by level) → nodes again. The
    last pass makes the node state exactly the file's, whatever the triple and parent MERGEs
    set on the way (e.g. aliases, created_at). Each write is an idempotent MERGE, so re-running
    after a crash converges to the same graph."""
    parsed = parse_lines(lines)
    errors = list(parsed.errors)

    # a triple must name a paper of the file or of the graph: writing it would create an empty Paper
    in_file = {p.paper_id for _, p in parsed.papers}
    known_papers = _known_papers(store, in_file, {t.paper_id for _, t in parsed.triples}, replace)
    triples_ok: list[tuple[int, TripleIn]] = []
    for lineno, t in parsed.triples:
        if t.paper_id in known_papers:
            triples_ok.append((lineno, t))
        else:
            where = "no paper line in the file" + ("" if replace else " and not in the graph")
            errors.append((lineno, f"invalid triple: unknown paper {t.paper_id!r} ({where})"))

    # parent children must exist once everything before the parents is written
    known = {n.key for _, n in parsed.nodes}
    for _, t in triples_ok:
        known.update(
            (t.problem.key_for("problem"), t.challenge.key_for("challenge"), t.solution.key_for("solution"))
        )
    parents: list[ParentIn] = []
    for lineno, par in sorted(parsed.parents, key=lambda x: x[1].level):
        missing = [c for c in par.children if c not in known]
        if missing:
            errors.append((lineno, f"invalid parent: unknown child key(s) {', '.join(missing[:3])}"))
            continue
        parents.append(par)
        known.add(par.parent.key_for(par.type))
    errors.sort()

    papers = [p for _, p in parsed.papers]
    triples = [t for _, t in triples_ok]
    # The node lines carry no `sources`; both node passes write them exactly as given, so give them what the
    # triple lines say (and, when merging, what the graph already has): an empty list here would leave every
    # node stated by no paper, and remove_paper would then delete nodes other papers still state.
    sources = _node_sources(store, [n for _, n in parsed.nodes], triples, merge=not replace)
    nodes = [n.model_copy(update={"sources": sources.get(n.key, [])}) for _, n in parsed.nodes]
    phases: list[tuple[str, list[Any], Callable[[list[Any]], Any]]] = [
        ("nodes", nodes, store.restore_nodes),
        ("papers", papers, store.upsert_papers),
        ("triples", triples, store.upsert_triples),
        ("parents", parents, store.add_parents),
        ("finalise", nodes, store.restore_nodes),
    ]
    _check_batches(phases, batch_size)
    if replace:
        store.clear()
        store.ensure_schema()
    for phase, items, write in phases:
        done = 0
        if progress:
            progress(phase, 0, len(items))
        for chunk in _batches(items, batch_size):
            write(chunk)
            done += len(chunk)
            if progress:
                progress(phase, done, len(items))
        log.debug("import phase %s: %d items", phase, len(items))
    return ImportReport(
        lines=parsed.lines, nodes=len(nodes), papers=len(papers), triples=len(triples), parents=len(parents),
        errors=errors,
    )


def copy_graph(
    src: GraphStore, dst: GraphStore, *, batch_size: int = 500, replace: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Copy one graph into another through the same export → import path (`graph push`)."""
    return import_lines(dst, list(export_lines(src)), batch_size=batch_size, replace=replace, progress=progress)
