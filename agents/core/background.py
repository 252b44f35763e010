"""The topic background every method starts from: papers (and, from the graph, nodes and triples).

Two sources:

- the graph (`from_graph`): node_search on the topic → node_relation on the best hits → their
  problem→challenge→solution triples and the papers stating them, plus a literature_search;
- a file (`from_file`): JSONL paper records (`title` required; `abstract`, `introduction`,
  `conclusion`, `paper_id`, `authors`, `year` optional), or a topics file in the shape of
  `eval/topics.jsonl` (`topic_id`, `topic_name`, `background_papers`, `target_papers`) with a topic
  id. Only `background_papers` are read: `target_papers` are held-out truth and never reach a method.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from motivgraph.api.contract.models import LiteratureSearchRequest, NodeRelationRequest, NodeSearchRequest
from motivgraph.api.contract.tools import LITERATURE_SEARCH, NODE_RELATION, NODE_SEARCH
from motivgraph.errors import BackgroundError, MotivGraphError

HELD_OUT_KEYS = ("target_papers",)


class BackgroundPaper(BaseModel):
    model_config = ConfigDict(extra="ignore")

    title: str = Field(min_length=1)
    paper_id: str | None = None
    abstract: str = ""
    introduction: str = ""
    conclusion: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None

    def citable(self) -> dict[str, Any]:
        """The shape the grounding check matches citations against."""
        return {"title": self.title, "authors": self.authors, "year": self.year, "paper_id": self.paper_id,
                "doi": None}


class BackgroundTriple(BaseModel):
    problem: str
    challenge: str
    solution: str
    papers: list[str] = Field(default_factory=list)


class TopicBackground(BaseModel):
    topic: str
    topic_id: str | None = None
    source: Literal["graph", "file", "none"] = "none"
    papers: list[BackgroundPaper] = Field(default_factory=list)
    nodes: list[dict[str, Any]] = Field(default_factory=list, description="Graph nodes {key, type, name, description}.")
    triples: list[BackgroundTriple] = Field(default_factory=list)
    searched: bool = Field(False, description="True when a graph search was made for this background.")
    note: str | None = Field(None, description="Why the graph search could not answer, when it could not.")

    def empty_warning(self) -> str | None:
        """A graph background that finds nothing says so: the text of the run's warning (None when the search
        found something, or no graph search was made)."""
        if not self.searched or self.nodes or self.papers or self.triples:
            return None
        why = f"the graph could not answer ({self.note})" if self.note else (
            "node_search and literature_search returned no node and no paper for it")
        return (f"the graph background for {self.topic!r} is empty: {why}. The method runs from the topic text "
                "alone, ungrounded. Ingest papers on this topic (motivgraph ingest PAPERS), rebuild the indexes "
                "(motivgraph reindex) if the graph is new, or give a background file (--background FILE).")

    def as_text(self, *, max_papers: int = 10, chars_per_paper: int = 1200) -> str:
        """A prompt-ready block: triples first (compact), then papers (title + abstract/intro)."""
        lines: list[str] = []
        if self.triples:
            lines.append("Problem → challenge → solution triples from the knowledge graph:")
            lines += [f"- {t.problem} → {t.challenge} → {t.solution}" for t in self.triples[:20]]
        for p in self.papers[:max_papers]:
            body = (p.abstract or p.introduction or "").strip()
            if len(body) > chars_per_paper:
                body = body[: chars_per_paper - 1] + "…"
            who = ""
            if p.authors and p.year:
                who = f" ({p.authors[0]}{' et al.' if len(p.authors) > 1 else ''}, {p.year})"
            lines.append(f"### {p.title}{who}\n{body}")
        return "\n".join(lines)

    def citable_papers(self) -> list[dict[str, Any]]:
        return [p.citable() for p in self.papers]

    # ------------------------------------------------------------------ sources
    @classmethod
    def from_file(cls, path: Path, *, topic: str | None = None, topic_id: str | None = None) -> TopicBackground:
        path = Path(path)
        if not path.is_file():
            raise BackgroundError(f"background file {path} does not exist")
        rows: list[tuple[int, dict[str, Any]]] = []
        with path.open(encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise BackgroundError(f"{path}:{n}: not JSON ({e.msg})") from None
                if not isinstance(obj, dict):
                    raise BackgroundError(f"{path}:{n}: expected a JSON object per line")
                rows.append((n, obj))
        if not rows:
            raise BackgroundError(f"background file {path} holds no records")
        if any("background_papers" in r for _, r in rows):
            return cls._from_topics(path, rows, topic, topic_id)
        if topic_id:
            raise BackgroundError(f"--topic-id given but {path} is a paper file, not a topics file "
                                  "(no 'background_papers' field)")
        if not topic:
            raise BackgroundError("a paper background file needs a TOPIC")
        papers = [cls._paper(path, n, r) for n, r in rows]
        return cls(topic=topic, source="file", papers=papers)

    @classmethod
    def _from_topics(cls, path: Path, rows: list[tuple[int, dict[str, Any]]], topic: str | None,
                     topic_id: str | None) -> TopicBackground:
        ids = [str(r.get("topic_id")) for _, r in rows]
        if topic_id is None:
            if len(rows) != 1:
                raise BackgroundError(f"{path} holds {len(rows)} topics: choose one with --topic-id "
                                      f"({', '.join(ids[:8])}{' …' if len(ids) > 8 else ''})")
            topic_id = ids[0]
        match = [(n, r) for n, r in rows if str(r.get("topic_id")) == topic_id]
        if not match:
            raise BackgroundError(f"no topic {topic_id!r} in {path}; topics: {', '.join(ids[:8])}"
                                  f"{' …' if len(ids) > 8 else ''}")
        n, row = match[0]
        raw = row.get("background_papers")
        if not isinstance(raw, list):
            raise BackgroundError(f"{path}:{n}: background_papers must be a list")
        papers = [cls._paper(path, n, p) for p in raw]  # target_papers never read
        name = topic or str(row.get("topic_name") or row.get("topic") or "").strip()
        if not name:
            raise BackgroundError(f"{path}:{n}: topic {topic_id!r} has no topic_name; give a TOPIC")
        return cls(topic=name, topic_id=topic_id, source="file", papers=papers)

    @staticmethod
    def _paper(path: Path, n: int, obj: Any) -> BackgroundPaper:
        if not isinstance(obj, dict):
            raise BackgroundError(f"{path}:{n}: a paper must be a JSON object")
        try:
            return BackgroundPaper.model_validate({k: v for k, v in obj.items() if k not in HELD_OUT_KEYS})
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in e.errors())
            raise BackgroundError(f"{path}:{n}: bad paper record: {problems}") from None

    @classmethod
    async def from_graph(cls, client: Any, topic: str, *, nodes: int = 8, relations: int = 4,
                         papers: int = 8) -> TopicBackground:
        """node_search(topic) → node_relation(top hits) → triples and their papers; literature_search(topic)."""

        bg = cls(topic=topic, source="graph", searched=True)
        hits = (await client.call(NODE_SEARCH, NodeSearchRequest(query=topic, k=nodes))).hits
        bg.nodes = [{"key": h.key, "type": h.type, "name": h.name, "description": h.description} for h in hits]
        names = [h.name for h in hits[:relations]]
        seen_titles: set[str] = set()
        if names:
            try:
                rel = await client.call(NODE_RELATION, NodeRelationRequest(names=names, max_triples=5,
                                                                            max_neighbours=5))
            except MotivGraphError:
                rel = None
            for r in rel.nodes if rel else []:
                for t in r.triples:
                    bg.triples.append(BackgroundTriple(problem=t.problem.name, challenge=t.challenge.name,
                                                       solution=t.solution.name, papers=list(t.papers)))
                for p in r.papers:
                    if p.title and p.title not in seen_titles:
                        seen_titles.add(p.title)
                        bg.papers.append(BackgroundPaper(title=p.title, paper_id=p.paper_id, year=p.year))
        try:
            lit = await client.call(LITERATURE_SEARCH, LiteratureSearchRequest(query=topic, limit=papers))
        except MotivGraphError:
            lit = None
        for lp in lit.papers if lit else []:
            if lp.title not in seen_titles:
                seen_titles.add(lp.title)
                bg.papers.append(BackgroundPaper(title=lp.title, paper_id=lp.paper_id, abstract=lp.abstract,
                                                 authors=lp.authors, year=lp.year))
        return bg
