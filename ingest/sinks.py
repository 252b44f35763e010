"""Where a parsed Paper goes at the end of the pipeline: the `PaperSink` protocol and the ingest layer's own sinks
(Paper nodes only, or nothing). The miner's extracting sink is `miner/sink.py`."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore
    from motivgraph.ingest.models import Paper


class SinkResult(BaseModel):
    status: Literal["extracted", "stored", "failed"] = "stored"
    counts: dict[str, int] = Field(default_factory=dict)
    error: str | None = None


class PaperSink(Protocol):
    """What happens to a parsed Paper. Must be idempotent: a resumed run may call it again.

    A sink may also define `async def recover(self) -> None`, called after a transient failure
    before the document is retried (e.g. to reopen a connection)."""

    async def process(self, paper: Paper) -> SinkResult: ...


class GraphPaperSink:
    """Default sink: upsert the Paper node into the graph."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    async def process(self, paper: Paper) -> SinkResult:
        # the graph layer's own record: graph/ sits below ingest/ and cannot take a Paper
        await asyncio.to_thread(self.store.upsert_papers, [paper.to_record()])
        # "papers upserted", not "created": a resumed run must record the same counts
        return SinkResult(status="stored", counts={"papers": 1})


class NullSink:
    """Parse only (benchmarks, `--dry-run`-like checks): nothing is written anywhere."""

    async def process(self, paper: Paper) -> SinkResult:
        return SinkResult(status="stored", counts={})
