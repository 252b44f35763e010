"""A responder for the recording fake driver that answers the Neo4j vector-search statements of
graph/neo4j_search.py the way Neo4j 5 documents them: `setNodeVectorProperty` stores the vector,
CREATE … INDEX makes an ONLINE index, `db.index.vector.queryNodes(index, k, v)` returns the k nearest
nodes of the index's label with score (1 + cosine) / 2 (exact here; HNSW in Neo4j), SHOW INDEXES lists
them with their options, DROP INDEX drops one. Statements it does not know raise, so a new query shape
cannot pass unnoticed.

It checks the statement text only for the parts it emulates (e.g. that the score is turned back into a
cosine and filtered in Cypher) and answers from the nodes it was given; it is not a Cypher engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from motivgraph.graph.identity import LABELS
from motivgraph.graph.models import NodeRecord
from motivgraph.graph.neo4j_search import VECTOR_INDEXES

_LABEL_OF_INDEX = {name: label for label, name in VECTOR_INDEXES.items()}


def _literal(text: str) -> Any:
    """A DDL option value as SHOW INDEXES reports it (Neo4j upper-cases the similarity function)."""
    if text.startswith("'"):
        return text.strip("'").upper()
    return {"true": True, "false": False}.get(text, int(text) if text.isdigit() else text)


class VectorGraph:
    def __init__(self, nodes: Iterable[NodeRecord], node_version: int = 7) -> None:
        self.nodes = {n.key: n for n in nodes}
        self.embeddings: dict[str, np.ndarray] = {}
        self.meta: dict[str, Any] = {"node_version": node_version}
        self.indexes: dict[str, str] = {}  # name -> state
        self.options: dict[str, dict[str, Any]] = {}  # name -> SHOW INDEXES options (indexConfig)
        self.searches: list[dict[str, Any]] = []

    def label(self, key: str) -> str:
        return LABELS[self.nodes[key].type]

    def __call__(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        q = " ".join(query.split())
        if q.startswith("MATCH (m:Meta {id: $meta_id})"):
            if "embedding_version" in q:  # the stamp
                keys = ("node_version", "embedding_version", "model", "dim", "backend", "built_at", "problem",
                        "challenge", "solution")
                return [{k: self.meta.get(k) for k in keys}]
            return [{"node_version": self.meta["node_version"]}]
        if "SET m.embedding_version = $version" in q:
            self.meta.update(embedding_version=params["version"], model=params["model"], dim=params["dim"],
                             backend=params["backend"], built_at=params["at"], problem=params["problem"],
                             challenge=params["challenge"], solution=params["solution"])
            return [{"embedding_version": params["version"]}]
        if "db.create.setNodeVectorProperty" in q:
            label = re.search(r"MATCH \(n:(\w+) \{key: r.key\}\)", q).group(1)  # type: ignore[union-attr]
            done = 0
            for row in params["rows"]:
                if row["key"] in self.nodes and self.label(row["key"]) == label:
                    self.embeddings[row["key"]] = np.asarray(row["embedding"], dtype=np.float32)
                    done += 1
            return [{"n": done}]
        if q.startswith(("CREATE VECTOR INDEX", "CREATE FULLTEXT INDEX")):
            name = q.split()[3]
            if name not in self.indexes:  # IF NOT EXISTS: an existing index keeps its options
                self.indexes[name] = "ONLINE"
                config = {k: _literal(v) for k, v in re.findall(r"`([\w.]+)`: ('[^']*'|\w+)", q)}
                self.options[name] = {"indexConfig": config}
            return []
        if q.startswith("DROP INDEX"):
            self.indexes.pop(q.split()[2], None)
            return []
        if q.startswith("SHOW INDEXES"):
            return [{"name": n, "type": "VECTOR", "state": self.indexes[n], "populationPercent": 100.0,
                     "options": self.options.get(n, {})} for n in params["names"] if n in self.indexes]
        if "db.index.vector.queryNodes($index, $k, $vectors[i])" in q:
            assert "2 * score - 1 AS cosine" in q and "WHERE cosine >= $min_score" in q
            self.searches.append(params)
            if self.indexes.get(params["index"]) != "ONLINE":
                raise AssertionError(f"queried index {params['index']!r} does not exist or is not online")
            label = _LABEL_OF_INDEX[params["index"]]
            rows = []
            for i, v in enumerate(params["vectors"]):
                qv = np.asarray(v, dtype=np.float32)
                scored = sorted(((1 + float(np.dot(qv, e))) / 2, key) for key, e in self.embeddings.items()
                                if self.label(key) == label)
                for score, key in sorted(scored, key=lambda t: (-t[0], t[1]))[: params["k"]]:
                    cosine = 2 * score - 1
                    if cosine >= params["min_score"]:
                        n = self.nodes[key]
                        rows.append({"i": i, "key": key, "name": n.name, "level": n.level, "score": cosine})
            return rows
        if "RETURN n.key AS key, n.embedding AS embedding" in q:
            rows = []
            for label in re.findall(r"UNWIND \$keys_(\w+) AS k MATCH \(n:(\w+) ", q):
                assert label[0] == label[1]
                for key in params[f"keys_{label[0]}"]:
                    if key in self.embeddings and self.label(key) == label[0]:
                        rows.append({"key": key, "embedding": [float(x) for x in self.embeddings[key]]})
            return rows
        raise AssertionError(f"the fake does not know this statement:\n{query}")
