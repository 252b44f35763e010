"""Node embeddings, vector indexes and a full-text index in Neo4j, written by `motivgraph graph push`.

So that Neo4j users (neo4j-graphrag `VectorRetriever` / `HybridRetriever`, LangChain `Neo4jVector`) can
reuse the graph without FAISS, every Problem / Challenge / Solution node gets an `embedding` property
(the project's embedder over `name: description`, the same text and unit vectors as the FAISS index)
and these indexes exist:

- vector indexes `motivgraph_problem_embedding`, `motivgraph_challenge_embedding`,
  `motivgraph_solution_embedding` on `(:<Label>).embedding`, cosine similarity;
- full-text index `motivgraph_node_text` on `name` and `description` of all three labels.

All statements are parameterised except the index DDL, whose names and labels come from fixed tables
here (Cypher cannot take labels or index names as parameters); the dimension is an int checked here.

`Neo4jNodeVectors` answers node search through those vector indexes (`db.index.vector.queryNodes`), with
the same hits, scores (cosine in [-1, 1]) and staleness states as the FAISS `NodeIndex`, for
`MOTIVGRAPH_INDEX_BACKEND=neo4j`. Which embeddings are there is stamped on the Meta node (graph version
read before embedding, model, dimension, counts), so a graph changed after the last embedding is
reported stale exactly as a FAISS index built from an older graph version is.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from motivgraph.choices import NODE_TYPES
from motivgraph.errors import ConfigError, IndexCorrupt, IndexMissing, IndexStale
from motivgraph.graph.backends.neo4j import Neo4jStore
from motivgraph.graph.grouped_index import IndexStatus, stamp_backend
from motivgraph.graph.queries import META_ID, NODE_LABELS
from motivgraph.graph.vector_index import IndexHit, node_text

if TYPE_CHECKING:
    from motivgraph.choices import NodeType
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.models import NodeRecord
    from motivgraph.settings import Settings

EMBEDDING_PROPERTY = "embedding"
VECTOR_INDEXES: dict[str, str] = {label: f"motivgraph_{label.lower()}_embedding" for label in NODE_LABELS}
FULLTEXT_INDEX = "motivgraph_node_text"
log = logging.getLogger(__name__)
_LABEL_OF_TYPE = {label.lower(): label for label in NODE_LABELS}
INDEX_KIND = "neo4j-vector"

# ------------------------------------------------------------------------------------------ statements
# The embedding stamp lives on the Meta node beside node_version; properties, not a map, because Neo4j
# properties cannot hold maps.
STAMP_EMBEDDINGS = """
MERGE (m:Meta {id: $meta_id}) ON CREATE SET m.node_version = 0, m.triples = 0
SET m.embedding_version = $version, m.embedding_model = $model, m.embedding_dim = $dim,
    m.embedding_backend = $backend, m.embedded_at = $at, m.embedded_problem = $problem,
    m.embedded_challenge = $challenge, m.embedded_solution = $solution
RETURN m.embedding_version AS embedding_version
"""

READ_STAMP = """
MATCH (m:Meta {id: $meta_id})
RETURN m.node_version AS node_version, m.embedding_version AS embedding_version, m.embedding_model AS model,
       m.embedding_dim AS dim, m.embedding_backend AS backend, m.embedded_at AS built_at, m.embedded_problem AS problem,
       m.embedded_challenge AS challenge, m.embedded_solution AS solution
"""

INDEX_STATES = """
SHOW INDEXES YIELD name, type, state, populationPercent, options
WHERE name IN $names
RETURN name, type, state, populationPercent, options
"""

# Several query vectors in one round trip per label. Neo4j's cosine vector index scores (1 + cos) / 2;
# `2 * score - 1` turns that back into the cosine the FAISS index and the API report. `CALL (i) {…}` is the
# scoped subquery of Neo4j 5.23+; the older `CALL { WITH i …}` logs a deprecation notice on every search.
# queryNodes(index, $k, v) explores $k candidates (its HNSW search list), so $k is the candidate count --
# index.hnsw_ef_search, FAISS's efSearch -- and the best $limit of them are returned: asked for 10 directly,
# it found 0.938 of the true top 10 at paper scale where FAISS's HNSW finds 0.998 (bench/bench_neo4j.py).
VECTOR_SEARCH = """
UNWIND range(0, size($vectors) - 1) AS i
CALL (i) {
  CALL db.index.vector.queryNodes($index, $k, $vectors[i]) YIELD node, score
  WITH node, score ORDER BY score DESC LIMIT $limit
  RETURN node, score
}
WITH i, node, 2 * score - 1 AS cosine
WHERE cosine >= $min_score
RETURN i, node.key AS key, node.name AS name, coalesce(node.level, 0) AS level, cosine AS score
ORDER BY i, score DESC
"""


def vector_config(dim: int) -> dict[str, Any]:
    """The indexConfig every MotivGraph vector index is created with. Quantization is off because Neo4j
    5.26's vector-2.0 indexes otherwise score with quantized vectors (cosines off FAISS's by up to 7e-3)."""
    if not isinstance(dim, int) or isinstance(dim, bool) or not 1 <= dim <= 4096:
        raise ValueError(f"embedding dimension must be an int in 1..4096, got {dim!r}")
    return {"vector.dimensions": dim, "vector.similarity_function": "cosine", "vector.quantization.enabled": False}


def config_drift(options: Any, dim: int) -> list[str]:
    """How an existing vector index's `options` (a SHOW INDEXES row) differ from `vector_config(dim)`.

    `CREATE … IF NOT EXISTS` keeps an index made earlier with other options (by an older release, another
    model's dimension, or by hand), which would then answer with wrong scores or refuse the new vectors;
    such an index has to be dropped and made again. A key the server does not report (vector-1.0 indexes
    have no quantization) is not drift: that server cannot quantize."""
    config = (options.get("indexConfig") or {}) if isinstance(options, dict) else {}
    drift = []
    for key, want in vector_config(dim).items():
        if key not in config:
            continue
        have = config[key]
        same = str(have).lower() == str(want).lower() if isinstance(want, str) else have == want
        if not same:
            drift.append(f"{key} {have!r} (wanted {want!r})")
    return drift


def _literal(value: bool | int | str) -> str:
    """A Cypher literal of an index option (values from vector_config only)."""
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value) if isinstance(value, str) else str(value)


def index_ddl(dim: int) -> list[str]:
    """CREATE … IF NOT EXISTS statements for the three vector indexes and the full-text index."""
    config = ", ".join(f"`{k}`: {_literal(v)}" for k, v in vector_config(dim).items())
    out = [
        f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.{EMBEDDING_PROPERTY}) "
        f"OPTIONS {{indexConfig: {{{config}}}}}"
        for label, name in VECTOR_INDEXES.items()
    ]
    out.append(f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS FOR (n:{'|'.join(NODE_LABELS)}) "
               "ON EACH [n.name, n.description]")
    return out


def _checked_label(label: str) -> str:
    if label not in NODE_LABELS:
        raise ValueError(f"not a node label: {label!r}")
    return label


def embedding_statement(label: str) -> str:
    label = _checked_label(label)
    return (f"UNWIND $rows AS r MATCH (n:{label} {{key: r.key}}) "
            f"CALL db.create.setNodeVectorProperty(n, '{EMBEDDING_PROPERTY}', r.embedding) RETURN count(n) AS n")


def vectors_statement(labels: Sequence[str]) -> str:
    """Stored embeddings of $keys_<Label> lists, one round trip (labels from the fixed table)."""
    return "\nUNION ALL\n".join(
        f"UNWIND $keys_{lb} AS k MATCH (n:{lb} {{key: k}}) WHERE n.{EMBEDDING_PROPERTY} IS NOT NULL "
        f"RETURN n.key AS key, n.{EMBEDDING_PROPERTY} AS embedding"
        for lb in map(_checked_label, labels)
    )


# ------------------------------------------------------------------------------------------ writing
@dataclass
class EmbeddingPush:
    nodes: int = 0
    indexes: tuple[str, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)


def _batches(nodes: Iterable[NodeRecord], size: int) -> Iterator[list[NodeRecord]]:
    batch: list[NodeRecord] = []
    for n in nodes:
        batch.append(n)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def push_embeddings(store: Any, embedder: Embedder, nodes: Iterable[NodeRecord], *, batch_size: int = 256,
                    progress: Callable[[int], None] | None = None) -> EmbeddingPush:
    """Embed `nodes` and write the vectors to the Neo4j `store` (a Neo4jStore), create the indexes, and
    stamp which graph version, model and dimension the embeddings are from.

    One write transaction per batch and label; the DDL runs in auto-commit sessions (Neo4j requires it).
    The graph version is read before embedding: a node written meanwhile leaves the stamp behind the
    graph, so the embeddings are reported stale rather than silently incomplete."""
    version = int(store.node_version())
    report = EmbeddingPush(counts={t: 0 for t in NODE_TYPES})
    for batch in _batches(nodes, batch_size):
        vectors = embedder.embed([node_text(n.name, n.description) for n in batch])
        by_label: dict[str, list[dict[str, Any]]] = {}
        for n, v in zip(batch, vectors, strict=True):
            by_label.setdefault(_LABEL_OF_TYPE[n.type], []).append({"key": n.key, "embedding": [float(x) for x in v]})
            report.counts[n.type] += 1
        store._write_tx([(embedding_statement(label), {"rows": rows}) for label, rows in by_label.items()])
        report.nodes += len(batch)
        if progress is not None:
            progress(report.nodes)  # nodes embedded so far
    dim = int(embedder.dim)
    ddl = index_ddl(dim)
    names = list(VECTOR_INDEXES.values())
    options = {r["name"]: r.get("options") for r in store._read(INDEX_STATES, {"names": names})}
    drifted = [name for name in names if name in options and config_drift(options[name], dim)]

    def run() -> None:
        with store.driver.session(database=store.database) as session:
            for name in drifted:  # names of the fixed table (Cypher takes no index name as a parameter)
                log.warning("dropping the vector index %s: it was created with other options; making it again", name)
                session.run(f"DROP INDEX {name} IF EXISTS").consume()
            for statement in ddl:
                session.run(statement).consume()

    store._guard(run)
    store._write(STAMP_EMBEDDINGS, {
        "meta_id": META_ID, "version": version, "model": embedder.model_name, "dim": int(embedder.dim),
        "backend": embedder.backend,
        "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), **report.counts,
    })
    report.indexes = (*VECTOR_INDEXES.values(), FULLTEXT_INDEX)
    return report


# ------------------------------------------------------------------------------------------ searching
class Neo4jNodeVectors:
    """Node search through Neo4j's vector indexes; the hits, scores and states of the FAISS NodeIndex (both are
    a `NodeSearchBackend`, graph/search_backends.py)."""

    WHAT = "Neo4j vector index"

    def __init__(self, settings: Settings, store: Any, embedder: Embedder | None) -> None:
        if not isinstance(store, Neo4jStore):
            raise ConfigError("MOTIVGRAPH_INDEX_BACKEND=neo4j searches Neo4j's vector indexes, so it needs "
                              "MOTIVGRAPH_GRAPH_BACKEND=neo4j (the graph store is "
                              f"{getattr(store, 'backend', type(store).__name__)!r})")
        self.settings = settings
        self.store = store
        self._embedder = embedder
        self.path = f"{store.uri} database {store.database}: {', '.join(VECTOR_INDEXES.values())}"

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            raise RuntimeError("opened for status only; pass an embedder to search or build")
        return self._embedder

    # -- status --------------------------------------------------------------------------------------
    def status(self) -> IndexStatus:
        rows = self.store._read(READ_STAMP, {"meta_id": META_ID})
        stamp = rows[0] if rows else {}
        graph_version = int(stamp.get("node_version") or 0)
        states = {r["name"]: r for r in self.store._read(INDEX_STATES, {"names": list(VECTOR_INDEXES.values())})}
        absent = [n for n in VECTOR_INDEXES.values() if n not in states]
        fix = "run `motivgraph reindex` (or `motivgraph graph push`) to write the embeddings and create it"
        if stamp.get("embedding_version") is None or absent:
            what = f"the vector indexes {', '.join(absent)} do not exist" if absent else "no node embeddings"
            return IndexStatus(state="missing", path=self.path, graph_version=graph_version,
                               message=f"No {self.WHAT} in Neo4j ({what}); {fix}")
        failed = [n for n, r in states.items() if str(r.get("state")).upper() == "FAILED"]
        if failed:
            return IndexStatus(state="corrupt", path=self.path, graph_version=graph_version,
                               message=f"Neo4j reports the vector index {', '.join(failed)} FAILED; drop it and "
                               "run `motivgraph reindex`")
        base: dict[str, Any] = dict(
            path=self.path, index_version=int(stamp["embedding_version"]), graph_version=graph_version,
            counts={t: int(stamp.get(t) or 0) for t in NODE_TYPES}, kinds={t: INDEX_KIND for t in NODE_TYPES},
            model=stamp.get("model"), dim=stamp.get("dim"), built_at=stamp.get("built_at"),
            backend=stamp_backend(stamp),
        )
        dim = self._embedder.dim if self._embedder is not None else base["dim"]
        drift: dict[str, list[str]] = {}
        if isinstance(dim, int):
            drift = {n: d for n, r in states.items() if (d := config_drift(r.get("options"), dim))}
        if drift:
            what = "; ".join(f"{n}: {', '.join(d)}" for n, d in drift.items())
            return IndexStatus(state="stale", **base,
                               message=f"The Neo4j vector index was created with other options ({what}); run "
                               "`motivgraph reindex`, which drops and recreates it")
        populating = [n for n, r in states.items() if str(r.get("state")).upper() != "ONLINE"]
        if populating:  # being built by Neo4j right after the DDL: searchable once ONLINE
            return IndexStatus(state="missing", **base,
                               message=f"The {self.WHAT} {', '.join(populating)} is still being populated by "
                               "Neo4j; try again shortly")
        emb = self._embedder
        if emb is not None and (base["model"] != emb.model_name or base["dim"] != emb.dim):
            return IndexStatus(state="stale", **base,
                               message=f"The Neo4j embeddings were written with model {base['model']!r} (dim "
                               f"{base['dim']}), the configured model is {emb.model_name!r} (dim {emb.dim}); "
                               "run `motivgraph reindex`")
        if emb is not None and base["backend"] != emb.backend:
            return IndexStatus(state="stale", **base,
                               message=f"The Neo4j embeddings were written with the {base['backend']!r} embedding "
                               f"backend, the embedder now is {emb.backend!r}; run `motivgraph reindex`")
        if base["index_version"] != graph_version:
            return IndexStatus(state="stale", **base,
                               message=f"The Neo4j embeddings are stale: written at graph version "
                               f"{base['index_version']}, the graph is at version {graph_version}; "
                               "run `motivgraph reindex`")
        total = sum(base["counts"].values())
        return IndexStatus(state="ok", **base, message=f"{self.WHAT} up to date ({total} nodes)")

    def ensure_ready(self) -> None:
        """Raise IndexMissing / IndexStale / IndexCorrupt, or rebuild when index.auto_rebuild is on."""
        st = self.status()
        if st.state == "ok":
            return
        if self.settings.index.auto_rebuild and st.state != "corrupt":
            self.rebuild()
            return
        raise {"missing": IndexMissing, "stale": IndexStale, "corrupt": IndexCorrupt}[st.state](st.message)

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> IndexStatus:
        """Embed every node of the graph into Neo4j (same text and model as the FAISS index) + indexes."""
        counts = self.store.stats().nodes
        total = sum(int(counts.get(lb, 0)) for lb in NODE_LABELS)
        push_embeddings(self.store, self.embedder, self.store.iter_nodes(),
                        progress=None if progress is None else (lambda done: progress(done, total)))
        return self.status()

    # -- search --------------------------------------------------------------------------------------
    def search_vectors(self, vectors: np.ndarray, k: int = 10, types: Sequence[NodeType] | None = None,
                       min_score: float | None = None, *, check: bool = False) -> list[list[IndexHit]]:
        """Top-k nodes per query vector by cosine, merged across the given types, best first. `check=True`
        runs `ensure_ready` first (graph/search_backends.py's protocol); by default the caller has checked."""
        if k < 1:
            raise ValueError("k must be at least 1")
        if check:
            self.ensure_ready()
        queries = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        chosen = list(dict.fromkeys(types)) if types else list(NODE_TYPES)
        for t in chosen:
            if t not in _LABEL_OF_TYPE:
                raise ValueError(f"not a node type: {t!r}")
        out: list[list[IndexHit]] = [[] for _ in range(len(queries))]
        if not len(queries):
            return out
        params = {"vectors": [[float(x) for x in q] for q in queries], "limit": int(k),
                  "k": max(int(k), int(self.settings.index.hnsw_ef_search)),
                  "min_score": -1.0 if min_score is None else float(min_score)}
        for t in chosen:
            rows = self.store._read(VECTOR_SEARCH, {**params, "index": VECTOR_INDEXES[_LABEL_OF_TYPE[t]]})
            for r in rows:
                out[int(r["i"])].append(IndexHit(key=r["key"], type=t, name=r["name"], level=int(r["level"] or 0),
                                                 score=float(r["score"])))
        return [sorted(hits, key=lambda h: (-h.score, h.key))[:k] for hits in out]

    def vectors_for(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored embedding of each node key (keys without one are left out)."""
        by_label: dict[str, list[str]] = {}
        for key in dict.fromkeys(keys):
            label = _LABEL_OF_TYPE.get(key.split(":", 1)[0])
            if label is not None:
                by_label.setdefault(label, []).append(key)
        if not by_label:
            return {}
        labels = tuple(by_label)
        rows = self.store._read(vectors_statement(labels), {f"keys_{lb}": by_label[lb] for lb in labels})
        return {r["key"]: np.asarray(r["embedding"], dtype=np.float32) for r in rows}
