"""The run's DocumentParser, chosen once at the edge (the command's composition root, or `ingest_async`) and handed
to the pipeline built: nothing downstream sees a parser's name or decides which parser to make."""

from __future__ import annotations

from typing import TYPE_CHECKING

from motivgraph.ingest.cache import ParsedCache
from motivgraph.ingest.parsers import accepted_tags, make_parser
from motivgraph.ingest.plan import input_kinds

if TYPE_CHECKING:
    from pathlib import Path

    from motivgraph.choices import ParserName
    from motivgraph.ingest.models import Paper
    from motivgraph.ingest.parsers import DocumentParser
    from motivgraph.ingest.plan import IngestPlan


class NoParser:
    """The parser of a run with nothing to parse (every parsable document is in the parsed cache, or there is none):
    never asked, so a resume reaches neither GROBID nor a worker process."""

    description = "none needed"

    def __init__(self, name: ParserName) -> None:
        self.name = name

    async def parse(self, path: Path, sha256: str) -> Paper:
        raise AssertionError(f"{path}: no parser was made for this run (parse_needed said every parse is cached)")

    async def aclose(self) -> None:
        return None


def parse_needed(plan: IngestPlan) -> bool:
    """Whether any document of the plan needs the parser: one of a parsed kind whose parse the cache lacks."""
    kinds = {k.name: k for k in input_kinds().values()}
    cache = ParsedCache.for_data_dir(plan.settings.data_dir)
    tags = accepted_tags(plan.settings.ingest, plan.parser)
    return any(kinds[i.kind].needs_parser and not cache.has(i.key, tags) for i in plan.todo)


async def resolve_parser(plan: IngestPlan, *, workers: int | None = None) -> DocumentParser:
    """The one parser choice: the parser the plan asks for (GROBID checked once), or none when nothing needs it.
    The caller owns the parser and closes it (`aclose`)."""
    if not parse_needed(plan):
        return NoParser(plan.parser)
    return await make_parser(plan.settings.ingest, plan.parser, workers=workers or plan.settings.ingest.concurrency)
