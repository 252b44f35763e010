"""Evaluation topics: a JSONL file in the shape of eval/topics.jsonl (topic_id, topic_name,
background_papers, target_papers) or plain topic strings (background from the user's graph)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from motivgraph.errors import ConfigError


class TopicsError(ConfigError):
    """The topics input cannot be used; the message names the line and field."""


class Paper(BaseModel):
    model_config = ConfigDict(extra="ignore")

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
    background: list[Paper] = Field(default_factory=list)
    targets: list[Paper] = Field(default_factory=list)


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
                bg = [Paper.model_validate(p) for p in row.get("background_papers") or []]
                tg = [Paper.model_validate(p) for p in row.get("target_papers") or []]
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


def leaked_targets(topic: EvalTopic, visible_ids: set[str], visible_titles: set[str]) -> list[str]:
    """Target papers that a method could see (same id or same normalised title as a visible paper)."""
    titles = {_norm_title(t) for t in visible_titles}
    ids = {i.strip().lower() for i in visible_ids if i}
    return [p.title for p in topic.targets
            if (p.paper_id and p.paper_id.strip().lower() in ids) or _norm_title(p.title) in titles]
