"""Evaluation topics: a JSONL file in the shape of eval/topics.jsonl (topic_id, topic_name,
background_papers, target_papers) or plain topic strings (background from the user's graph)."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from motivgraph.errors import TopicsError
from motivgraph.ingest.paper_json import stable_id


class TopicPaper(BaseModel):
    # extra fields (doi, externalIds, arxiv_id, sections, ...) are kept: the per-topic graph ingests the
    # record as given, and the leak check compares every identifier a record carries
    model_config = ConfigDict(extra="allow")

    paper_id: str | None = None
    title: str = Field(min_length=1)
    abstract: str = ""
    introduction: str = ""
    conclusion: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None

    def text(self, chars: int = 4000) -> str:
        body = "\n\n".join(x for x in (self.abstract, self.introduction, self.conclusion) if x)
        return f"{self.title}\n{body[:chars]}"


class EvalTopic(BaseModel):
    topic_id: str
    topic: str
    domain: str | None = None
    background: list[TopicPaper] = Field(default_factory=list)
    targets: list[TopicPaper] = Field(default_factory=list)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:40] or "topic"


def load_topics_file(path: Path) -> list[EvalTopic]:
    path = Path(path)
    if not path.is_file():
        raise TopicsError(f"topics file {path} does not exist")
    out: list[EvalTopic] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row: Any = json.loads(line)
            except json.JSONDecodeError as e:
                raise TopicsError(f"{path}:{n}: not JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise TopicsError(f"{path}:{n}: expected one JSON object per line")
            name = str(row.get("topic_name") or row.get("topic") or "").strip()
            if not name:
                raise TopicsError(f"{path}:{n}: no topic_name")
            tid = str(row.get("topic_id") or _slug(name))
            if tid in seen:
                raise TopicsError(f"{path}:{n}: duplicate topic_id {tid!r}")
            seen.add(tid)
            try:
                bg = [TopicPaper.model_validate(p) for p in row.get("background_papers") or []]
                tg = [TopicPaper.model_validate(p) for p in row.get("target_papers") or []]
            except ValidationError as e:
                err = e.errors()[0]
                raise TopicsError(f"{path}:{n}: bad paper ({'.'.join(map(str, err['loc']))}: {err['msg']})") from None
            out.append(EvalTopic(topic_id=tid, topic=name, domain=row.get("domain_id"), background=bg, targets=tg))
    if not out:
        raise TopicsError(f"topics file {path} holds no topics")
    return out


def topics_from_strings(topics: list[str]) -> list[EvalTopic]:
    out = []
    for i, t in enumerate(topics, 1):
        t = " ".join(t.split())
        if len(t) < 3:
            raise TopicsError(f"topic {i} is too short: {t!r}")
        out.append(EvalTopic(topic_id=f"t{i:02d}-{_slug(t)}", topic=t))
    return out


def _norm_title(t: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", t.lower()).strip()


_ID_PREFIX = re.compile(r"^(?:doi:|arxiv:|s2:|id:|https?://(?:dx\.)?doi\.org/|https?://arxiv\.org/(?:abs|pdf)/)", re.I)
_ARXIV_VERSION = re.compile(r"^(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?(?:\.pdf)?$")


def norm_id(raw: str | None) -> str:
    """One spelling per identifier: `arxiv:2402.03300v2`, `2402.03300` and `https://arxiv.org/abs/2402.03300`
    are one; `doi:10.1/X` and `https://doi.org/10.1/x` are one."""
    s = (raw or "").strip().lower()
    while True:
        t = _ID_PREFIX.sub("", s)
        if t == s:
            break
        s = t
    m = _ARXIV_VERSION.match(s)
    return m.group(1) if m else s


def identities(paper: Any) -> set[str]:
    """Every identifier a paper record (topics-file paper, S2 record, graph paper) carries, normalised:
    its own id, DOI, arXiv id, Semantic Scholar id, and the stable id the ingest gives it."""

    rec = paper.model_dump(mode="json") if isinstance(paper, BaseModel) else dict(paper)
    ext = rec.get("externalIds") or rec.get("external_ids") or {}
    raw = [rec.get(k) for k in ("paper_id", "paperId", "id", "doi", "DOI", "arxiv_id", "arxivId")]
    if isinstance(ext, dict):
        raw += [ext.get(k) for k in ("DOI", "doi", "ArXiv", "arxiv")]
    out = {norm_id(str(x)) for x in raw if isinstance(x, str | int) and str(x).strip()}
    with contextlib.suppress(Exception):  # a record too odd for the ingest still has its plain ids
        out.add(norm_id(stable_id(rec)))
    return {x for x in out if x and not x.startswith("sha:")}


def leaked_targets(topic: EvalTopic, visible: list[Any]) -> list[str]:
    """Target papers a method could see: a visible paper (background record or graph paper) sharing an
    identifier (id / DOI / arXiv id / S2 id, normalised) or the normalised title. Each as
    `'title' (why)`."""
    ids: dict[str, str] = {}
    titles: dict[str, str] = {}
    for v in visible:
        title = str(getattr(v, "title", None) if isinstance(v, BaseModel) else dict(v).get("title") or "")
        for i in identities(v):
            ids.setdefault(i, title)
        if _norm_title(title):
            titles.setdefault(_norm_title(title), title)
    out = []
    for p in topic.targets:
        hit = sorted(identities(p) & ids.keys())
        if hit:
            out.append(f"{p.title!r} (id {hit[0]})")
        elif _norm_title(p.title) in titles:
            out.append(f"{p.title!r} (same title)")
    return out
