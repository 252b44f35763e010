"""Papers from JSON: `motivgraph ingest papers.jsonl` (or a folder of .json files) for corpora that are
metadata and text, not PDFs.

Record shapes understood (one record per JSONL line; a .json file holds one record or a list):

- S2ORC / arXiv-style full text: `paper_id` (or `id`, `arxiv_id`, `doi`), `title`, `abstract`, and
  `sections` (a list of {heading|title|section, text}, or a {heading: text} mapping), or S2ORC's
  `body_text` paragraphs ({section, text}), or `introduction` / `conclusion` (/ `method`) strings;
- Semantic Scholar Graph API records: `paperId`, `externalIds` {DOI, ArXiv, ...}, `title`, `abstract`,
  `year`, `venue`, `authors` [{name}]. Usually abstract only: the Paper then has no sections and a
  note saying the miner reads the title and abstract;
- a topics file (the shape of eval/topics.jsonl): a record with `background_papers` is expanded into
  those papers; its `target_papers` are held-out truth and are never ingested.

Identity. The paper id is the record's stable id — `doi:…`, `arxiv:…` (as the PDF parser makes them,
so the same paper as PDF and as JSON is one paper in the graph), else `s2:<paperId>`, `id:<paper_id>`,
else `sha:` + a hash of the canonical record. A `paper_id` already in one of these forms (as `graph export`
writes it: `doi:10.…`, `arxiv:…`, `sha256:…`) is read as that identifier, not wrapped in `id:` again.
The ledger key is `json:<stable id>@<content hash>`: the record's identity plus its version, so an
unchanged record is skipped on the next run and a changed one is ingested again (its paper is updated
in place). A line that is not valid JSON or not a paper record is a failed document keyed by file and
line number: the report names the line and the rest of the file goes on.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motivgraph.errors import ParseError
from motivgraph.fsutil import path_to_text
from motivgraph.ingest.identity import doi_or_arxiv, normalize_arxiv, normalize_doi
from motivgraph.ingest.models import Paper, Section, assign_roles
from motivgraph.ingest.plan import DocKey, WorkItem
from motivgraph.text_hygiene import Repairs, repair_text

if TYPE_CHECKING:
    from motivgraph.ingest.parsers import DocumentParser
    from motivgraph.settings import Settings

ABSTRACT_ONLY_NOTE = "abstract only: the miner reads the title and abstract"
# LaTeX left in text exported from arXiv sources (topics files carry \citep{..}, \vspace{..})
_TEX_DROP = re.compile(r"\\(?:vspace|hspace|label|vskip|hskip)\*?\{[^{}]*\}|\\(?:noindent|newline|centering)\b")
_TEX_CITE = re.compile(r"\s?\\(?:cite[tp]?|citealp|citeauthor|ref|eqref|autoref|cref|Cref)\*?(?:\[[^\]]*\])*\{[^{}]*\}")
# paper ids the project itself writes for papers without a DOI or arXiv id (ingest.identity, this module)
_OWN_ID = re.compile(r"^(?:sha256:[0-9a-f]{64}|sha:[0-9a-f]{32}|s2:\S+|id:\S.*)$", re.I)
_TEX_STYLE = re.compile(r"\\(?:textbf|textit|emph|texttt|textsc|underline|mathrm|mathbf)\{([^{}]*)\}")


@dataclass(frozen=True)
class _Record:
    """One record located in its file: (line number, index within a topics/list record)."""

    line: int
    index: int | None
    data: Any  # the decoded JSON value, or the error text when the line is malformed
    error: str | None = None


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _sha(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8", "surrogatepass")).hexdigest()


def _records_of(path: Path) -> list[_Record]:
    """Every record in a .jsonl or .json file; malformed lines become error records."""
    raw = path.read_bytes()
    text = raw.decode("utf-8", "surrogateescape")
    out: list[_Record] = []
    if path.name.lower().endswith(".jsonl"):
        items: list[tuple[int, str]] = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    else:
        items = [(1, text)] if text.strip() else []
    for n, chunk in items:
        try:
            value = json.loads(chunk)
        except (json.JSONDecodeError, UnicodeError) as e:
            where = f"line {n}" if path.name.lower().endswith(".jsonl") else "file"
            out.append(_Record(n, None, None, f"{where}: not valid JSON ({e.msg} at column {e.colno})"
                               if isinstance(e, json.JSONDecodeError) else f"{where}: {e}"))
            continue
        if isinstance(value, dict) and isinstance(value.get("background_papers"), list):
            # a topics record: its background papers only (target papers are held-out truth)
            for k, bp in enumerate(value["background_papers"]):
                out.append(_Record(n, k, bp))
        elif isinstance(value, list):
            for k, rec in enumerate(value):
                out.append(_Record(n, k, rec))
        else:
            out.append(_Record(n, None, value))
    return out


def _where(rec: _Record) -> str:
    return f"line {rec.line}" + (f", paper {rec.index + 1}" if rec.index is not None else "")


def _s(v: Any) -> str:
    return v.strip() if isinstance(v, str) else ""


def record_ids(rec: dict[str, Any]) -> tuple[str | None, str | None]:
    """(DOI, arXiv id) of a record, checked by ingest.identity: `doi`/`DOI`/externalIds.DOI, and `arxiv_id`,
    `arxivId`, externalIds.ArXiv, or a `paper_id`/`id` that is an arXiv id (arXiv's own DOI counts as one)."""
    ext = rec.get("externalIds") or rec.get("external_ids") or {}
    if not isinstance(ext, dict):
        ext = {}
    doi = next((d for d in (normalize_doi(_s(rec.get(k))) for k in ("doi", "DOI")) if d), None)
    doi = doi or next((d for d in (normalize_doi(_s(ext.get(k))) for k in ("DOI", "doi")) if d), None)
    # a record id in the project's own form (`doi:10.…`, as `graph export` writes paper ids) is that DOI
    doi = doi or next((d for d in (normalize_doi(_s(rec.get(k))[4:]) for k in ("paper_id", "id")
                                   if _s(rec.get(k)).lower().startswith("doi:")) if d), None)
    arxiv = None
    for cand in (rec.get("arxiv_id"), rec.get("arxivId"), ext.get("ArXiv"), ext.get("arxiv"), rec.get("paper_id"),
                 rec.get("id")):
        arxiv = normalize_arxiv(_s(cand)) if not isinstance(cand, int) else None
        if arxiv:
            break
    return doi_or_arxiv(doi, arxiv)


def stable_id(rec: dict[str, Any]) -> str:
    """The record's identity: DOI, arXiv id, Semantic Scholar id, the record's own id, else a content hash."""
    doi, arxiv = record_ids(rec)
    if doi:
        return f"doi:{doi}"
    if arxiv:
        return f"arxiv:{arxiv}"
    if _s(rec.get("paperId")):
        return f"s2:{_s(rec.get('paperId'))}"
    for k in ("paper_id", "id", "corpusid", "corpusId"):
        v = rec.get(k)
        if isinstance(v, int | str) and str(v).strip():
            text = str(v).strip()
            # an id already in the project's own form (a paper id `graph export` wrote) is kept as it is
            if _OWN_ID.match(text):
                kind, rest = text.split(":", 1)
                return f"{kind.lower()}:{rest.lower() if kind.lower().startswith('sha') else rest}"
            return f"id:{text}"
    return "sha:" + _sha(_canonical(rec))[:32]


def record_key(rec: dict[str, Any]) -> str:
    """Ledger key: identity plus version (a changed record is a new key, the same paper id)."""
    return f"json:{stable_id(rec)}@{_sha(_canonical(rec))[:16]}"


def _clean(text: str, repairs: list[Repairs]) -> str:
    text, rep = repair_text(text)
    if rep:
        repairs.append(rep)
    if "\\" in text:
        text = _TEX_DROP.sub("", text)
        text = _TEX_CITE.sub("", text)
        text = _TEX_STYLE.sub(r"\1", text)
    return text.strip()


def _sections(rec: dict[str, Any], repairs: list[Repairs]) -> list[Section]:
    out: list[Section] = []
    secs = rec.get("sections")
    if isinstance(secs, dict):
        secs = [{"heading": k, "text": v} for k, v in secs.items()]
    if isinstance(secs, list):
        for s in secs:
            if isinstance(s, str):
                out.append(Section(heading="", text=_clean(s, repairs)))
            elif isinstance(s, dict):
                head = _s(s.get("heading")) or _s(s.get("title")) or _s(s.get("section")) or _s(s.get("name"))
                body = s.get("text", s.get("content", s.get("paragraphs", "")))
                if isinstance(body, list):
                    body = "\n\n".join(x if isinstance(x, str) else _s((x or {}).get("text")) for x in body)
                num = s.get("number") or s.get("sec_num")
                out.append(Section(heading=_clean(head, repairs), number=str(num) if num else None,
                                   text=_clean(body if isinstance(body, str) else "", repairs)))
    body_text = rec.get("body_text")
    if not out and isinstance(body_text, list):
        # S2ORC: paragraphs tagged with their section name; consecutive ones form a section
        for para in body_text:
            if not isinstance(para, dict):
                continue
            head = _s(para.get("section"))
            t = _clean(_s(para.get("text")), repairs)
            if out and out[-1].heading == head:
                out[-1].text = f"{out[-1].text}\n\n{t}"
            else:
                num = para.get("sec_num")
                out.append(Section(heading=head, number=str(num) if num else None, text=t))
    if not out:
        for field_name, heading in (("introduction", "Introduction"), ("related_work", "Related Work"),
                                    ("method", "Method"), ("methods", "Methods"), ("conclusion", "Conclusion"),
                                    ("conclusions", "Conclusions")):
            value = rec.get(field_name)
            if isinstance(value, str) and value.strip():
                out.append(Section(heading=heading, text=_clean(value, repairs)))
    return [s for s in out if s.text or s.heading]


def _authors(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    names = []
    for a in value:
        name = a if isinstance(a, str) else (_s(a.get("name")) if isinstance(a, dict) else "")
        if not name and isinstance(a, dict):
            name = " ".join(x for x in (_s(a.get("first")), _s(a.get("last"))) if x)
        if name:
            names.append(" ".join(name.split()))
    return names[:100]


def record_to_paper(rec: Any, where: str = "record") -> Paper:
    """One JSON record → Paper. Raises ParseError naming what is wrong with it."""
    if not isinstance(rec, dict):
        raise ParseError(f"{where}: not a paper record (a JSON {type(rec).__name__}, expected an object)")
    repairs: list[Repairs] = []
    title = _clean(_s(rec.get("title")), repairs)
    abstract = _clean(_s(rec.get("abstract")) or _s(rec.get("paperAbstract")), repairs)
    sections = _sections(rec, repairs)
    if not (title or abstract or sections):
        keys = ", ".join(sorted(map(str, rec))[:8]) or "none"
        raise ParseError(f"{where}: not a paper record: no title, abstract or text (keys: {keys})")
    assign_roles(sections)
    pid = stable_id(rec)
    doi, arxiv = record_ids(rec)
    year = rec.get("year")
    try:
        year_i = int(year) if year not in (None, "") else None
    except (TypeError, ValueError):
        year_i = None
    venue = rec.get("venue") or rec.get("journal")
    if isinstance(venue, dict):
        venue = venue.get("name")
    notes = [] if any(s.text.strip() for s in sections) else [ABSTRACT_ONLY_NOTE]
    return Paper(
        paper_id=pid,
        title=title,
        authors=_authors(rec.get("authors")),
        abstract=abstract,
        year=year_i if year_i and 1500 < year_i < 2200 else None,
        venue=_clean(venue, repairs) if isinstance(venue, str) and venue.strip() else None,
        doi=doi,
        arxiv_id=arxiv,
        sections=sections,
        parser="json",
        text_repairs=sum(repairs, Repairs()).as_dict(),
        notes=notes,
    )


class _FileCache:
    """The records of the last few files read: `keys()` reads a file once, `load()` of its records
    does not read and decode it again for every line."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._items: dict[tuple[str, int, int], list[_Record]] = {}
        self._lock = threading.Lock()

    def get(self, path: Path) -> list[_Record]:
        st = path.stat()
        key = (str(path), st.st_mtime_ns, st.st_size)
        with self._lock:
            hit = self._items.get(key)
        if hit is not None:
            return hit
        recs = _records_of(path)
        with self._lock:
            while len(self._items) >= self.size:
                self._items.pop(next(iter(self._items)))
            self._items[key] = recs
        return recs


_CACHE = _FileCache()


class PaperJsonInput:
    name = "paper_json"
    suffixes: tuple[str, ...] = (".jsonl", ".json")
    needs_parser = False

    def keys(self, path: Path) -> list[DocKey]:
        out = []
        for rec in _CACHE.get(path):
            ref = (rec.line, rec.index)
            if rec.error is not None or not isinstance(rec.data, dict):
                # a bad line keeps its place in the ledger by file and line (and content), so the
                # report names it and a fixed line is a new document
                raw = f"{path_to_text(path)}\x00{rec.line}\x00{rec.index}\x00{rec.error}\x00{_canonical(rec.data)}"
                out.append(DocKey(f"jsonbad:{_sha(raw)[:32]}", None, ref))
            else:
                out.append(DocKey(record_key(rec.data), len(_canonical(rec.data)), ref))
        return out

    async def load(self, item: WorkItem, parser: DocumentParser | None, settings: Settings) -> Paper:
        line, index = item.ref if isinstance(item.ref, tuple) else (None, None)
        try:
            recs = await asyncio.to_thread(_CACHE.get, item.path)
        except FileNotFoundError as e:
            raise ParseError(f"file disappeared before it was read: {item.display}") from e
        rec = next((r for r in recs if r.line == line and r.index == index), None)
        if rec is None:
            raise ParseError(f"line {line}: the record changed since the run was planned; run again")
        if rec.error is not None:
            raise ParseError(rec.error)
        return record_to_paper(rec.data, _where(rec))


PAPER_JSON_INPUT = PaperJsonInput()  # the "paper_json" input kind of motivgraph/plugins.py
