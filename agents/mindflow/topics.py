"""Training / ideation topics: a topic text, its background papers and (once) its embedding.

JSONL input: one object per line with the topic under `topic_name`, `topic`, `text` or `name`, an id
under `topic_id` or `id` (else one is made from the text) and background papers under
`background_papers` or `papers` (objects with `title` and `abstract`). A line that is not JSON, or
holds no topic text, is reported by line number; nothing is silently skipped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from motivgraph.errors import ConfigError

_TEXT_KEYS = ("topic_name", "topic", "text", "name")
_PAPER_KEYS = ("background_papers", "papers", "background")


@dataclass
class Topic:
    id: str
    text: str
    papers: list[dict[str, Any]] = field(default_factory=list)  # {title, abstract, year?, authors?}
    embedding: np.ndarray | None = None

    def background(self, n: int, abstract_chars: int) -> str:
        """The first `n` background papers as prompt text."""
        lines = []
        for p in self.papers[:n]:
            title = str(p.get("title") or "").strip()
            if not title:
                continue
            abstract = " ".join(str(p.get("abstract") or "").split())[:abstract_chars]
            year = f" ({p['year']})" if p.get("year") else ""
            lines.append(f"- {title}{year}: {abstract}" if abstract else f"- {title}{year}")
        return "\n".join(lines)


def topic_id(text: str) -> str:
    return "t-" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def topic_from_obj(obj: Any, where: str) -> Topic:
    if not isinstance(obj, dict):
        raise ConfigError(f"{where}: expected a JSON object with a topic, got {type(obj).__name__}")
    text = next((str(obj[k]).strip() for k in _TEXT_KEYS if isinstance(obj.get(k), str) and obj[k].strip()), "")
    if not text:
        raise ConfigError(f"{where}: no topic text (one of {', '.join(_TEXT_KEYS)})")
    papers_raw: list[Any] = next((obj[k] for k in _PAPER_KEYS if isinstance(obj.get(k), list)), [])
    papers = [p for p in papers_raw if isinstance(p, dict)]
    tid = str(obj.get("topic_id") or obj.get("id") or topic_id(text))
    return Topic(tid, text, papers)


def load_topics(path: str | Path) -> list[Topic]:
    p = Path(path).expanduser()
    try:
        raw = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read topics file {p}: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise ConfigError(f"topics file {p} is not UTF-8 text: {e}") from e
    topics: list[Topic] = []
    for n, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ConfigError(f"{p}:{n}: not valid JSON ({e.msg})") from e
        topics.append(topic_from_obj(obj, f"{p}:{n}"))
    if not topics:
        raise ConfigError(f"topics file {p} holds no topics")
    ids = [t.id for t in topics]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ConfigError(f"topics file {p}: duplicate topic ids {', '.join(dupes)}")
    return topics


def embed_topics(topics: Sequence[Topic], embedder: Any) -> None:
    """Fill each topic's embedding with one batched call (the graph's own embedding model)."""
    todo = [t for t in topics if t.embedding is None]
    if todo:
        vecs = np.asarray(embedder.embed([t.text for t in todo]), dtype=np.float64)
        for t, v in zip(todo, vecs, strict=True):
            t.embedding = v


def split_topics(topics: Sequence[Topic], val_fraction: float, seed: int) -> tuple[list[Topic], list[Topic]]:
    """Seeded train/validation split (by sorted id, so file order does not matter). At least one
    training topic; with a single topic, validation reuses it (reported by the caller)."""
    ordered = sorted(topics, key=lambda t: t.id)
    perm = np.random.default_rng(seed).permutation(len(ordered))
    shuffled = [ordered[i] for i in perm]
    n_val = round(len(shuffled) * val_fraction)
    n_val = min(n_val, len(shuffled) - 1)
    return shuffled[n_val:], shuffled[:n_val]
