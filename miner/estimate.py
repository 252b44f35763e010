"""`ingest --dry-run` with the LLM miner: the tokens and cost of extracting the papers a plan would process."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from motivgraph.ingest.cache import ParsedCache
from motivgraph.ingest.parser_choice import resolve_parser
from motivgraph.ingest.parsers import accepted_tags
from motivgraph.ingest.plan import input_kinds
from motivgraph.miner.extract import LLMExtractor

if TYPE_CHECKING:
    from motivgraph.ingest.models import Paper
    from motivgraph.ingest.plan import IngestPlan
    from motivgraph.llm import LLMClient
    from motivgraph.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class IngestEstimate:
    papers: int = 0
    papers_needing_llm: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unparsed: int = 0
    model: str | None = None


def estimate_papers(papers: list[Paper], settings: Settings, client: LLMClient) -> IngestEstimate:
    """Dry run: tokens and cost of extracting these papers (first call each; re-asks and resolver
    calls come on top — typically +10-30 %)."""
    ext = LLMExtractor(client, settings.miner)
    est = IngestEstimate(papers=len(papers), model=client.model_id("extractor"))
    for p in papers:
        e = ext.estimate(p)
        if e is None:
            continue
        if e.cached:
            est.cached_calls += 1
            continue
        est.papers_needing_llm += 1
        est.input_tokens += e.input_tokens
        est.output_tokens += e.output_tokens
        est.cost_usd += e.cost_usd
    return est


async def estimate_plan(plan: IngestPlan, client: LLMClient, *, concurrency: int | None = None) -> IngestEstimate:
    """`ingest --dry-run` with the LLM miner: the papers `plan` would process (parsing what is not in the parsed
    cache, with the run's parser; nothing is written), and the extraction tokens and cost of each."""
    settings = plan.settings
    kinds = {k.name: k for k in input_kinds().values()}
    cache = ParsedCache.for_data_dir(settings.data_dir)
    tags = accepted_tags(settings.ingest, plan.parser)
    papers: list[Paper] = []
    unparsed = 0
    doc_parser = await resolve_parser(plan, workers=concurrency)
    try:
        for item in plan.todo:
            kind = kinds[item.kind]
            paper = cache.get(item.key, tags) if kind.needs_parser else None
            if paper is None:
                try:
                    paper = await kind.load(item, doc_parser, settings)
                except Exception as e:  # the real run records it as a failure; the estimate just counts it
                    log.info("dry run: cannot load %s (%s)", item.display, e)
                    unparsed += 1
                    continue
            papers.append(paper)
    finally:
        await doc_parser.aclose()
    est = estimate_papers(papers, settings, client)
    est.unparsed = unparsed
    return est
