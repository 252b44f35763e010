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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from motivgraph.graph.queries import NODE_LABELS
from motivgraph.graph.vector_index import node_text

if TYPE_CHECKING:
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.models import NodeRecord

EMBEDDING_PROPERTY = "embedding"
VECTOR_INDEXES: dict[str, str] = {label: f"motivgraph_{label.lower()}_embedding" for label in NODE_LABELS}
FULLTEXT_INDEX = "motivgraph_node_text"
_LABEL_OF_TYPE = {label.lower(): label for label in NODE_LABELS}


def index_ddl(dim: int) -> list[str]:
    """CREATE … IF NOT EXISTS statements for the three vector indexes and the full-text index."""
    if not isinstance(dim, int) or not 1 <= dim <= 4096:
        raise ValueError(f"embedding dimension must be an int in 1..4096, got {dim!r}")
    out = [
        f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.{EMBEDDING_PROPERTY}) "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {dim}, `vector.similarity_function`: 'cosine'}}}}"
        for label, name in VECTOR_INDEXES.items()
    ]
    out.append(f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS FOR (n:{'|'.join(NODE_LABELS)}) "
               "ON EACH [n.name, n.description]")
    return out


def embedding_statement(label: str) -> str:
    if label not in NODE_LABELS:
        raise ValueError(f"not a node label: {label!r}")
    return (f"UNWIND $rows AS r MATCH (n:{label} {{key: r.key}}) "
            f"CALL db.create.setNodeVectorProperty(n, '{EMBEDDING_PROPERTY}', r.embedding) RETURN count(n) AS n")


@dataclass
class EmbeddingPush:
    nodes: int = 0
    indexes: tuple[str, ...] = ()


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
    """Embed `nodes` and write the vectors to the Neo4j `store` (a Neo4jStore), then create the indexes.

    One write transaction per batch and label; the DDL runs in auto-commit sessions (Neo4j requires it)."""
    report = EmbeddingPush()
    for batch in _batches(nodes, batch_size):
        vectors = embedder.embed([node_text(n.name, n.description) for n in batch])
        by_label: dict[str, list[dict[str, Any]]] = {}
        for n, v in zip(batch, vectors, strict=True):
            by_label.setdefault(_LABEL_OF_TYPE[n.type], []).append({"key": n.key, "embedding": [float(x) for x in v]})
        store._write_tx([(embedding_statement(label), {"rows": rows}) for label, rows in by_label.items()])
        report.nodes += len(batch)
        if progress is not None:
            progress(report.nodes)  # nodes embedded so far
    ddl = index_ddl(int(embedder.dim))

    def run() -> None:
        with store.driver.session(database=store.database) as session:
            for statement in ddl:
                session.run(statement).consume()

    store._guard(run)
    report.indexes = (*VECTOR_INDEXES.values(), FULLTEXT_INDEX)
    return report
