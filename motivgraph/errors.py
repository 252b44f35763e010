"""One exception root for the whole project; each layer raises a specific subclass.

Every error carries a message a user can act on: where a setting is the fix, the message names it.
"""

from __future__ import annotations

from typing import Any


class MotivGraphError(Exception):
    """Root of every error MotivGraph raises on purpose."""


class ConfigError(MotivGraphError):
    """A setting is missing or invalid; the message names the setting (env var) to fix."""


class BackendUnavailable(MotivGraphError):
    """The graph backend (embedded FalkorDB, external FalkorDB, Neo4j) cannot be reached."""


class GraphError(MotivGraphError):
    """A graph query failed for a reason other than connectivity."""


class NodeNotFound(GraphError):
    """A node key or name does not exist; `suggestions` holds close matches. `unresolved`: when a lookup
    of several names found none, one entry per name (the tool result's `unresolved` items, or their dicts
    when the error came back over HTTP)."""

    def __init__(self, ref: str, suggestions: list[str] | None = None, unresolved: list[Any] | None = None) -> None:
        self.ref = ref
        self.suggestions = suggestions or []
        self.unresolved: list[Any] = list(unresolved or [])
        hint = f" Did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"No node matches {ref!r}.{hint}")


class IndexError_(MotivGraphError):
    """The vector index is missing, stale or unreadable. (Trailing _ avoids shadowing the builtin.)"""


class IndexStale(IndexError_):
    """The vector index was built from an older graph version; `motivgraph reindex` rebuilds it."""


class IndexMissing(IndexError_):
    """No vector index exists yet; `motivgraph reindex` builds it."""


# The advice when there is no index because there is nothing to index (CLI and tool API alike):
# `reindex` would build an empty one.
NOTHING_TO_SEARCH = (
    "The graph holds no problem, challenge or solution nodes yet, so there is nothing to search: ingest papers "
    "first, e.g. `motivgraph ingest ~/papers/` (PDFs); if papers were ingested, `motivgraph ingest report` says "
    "why no triple was stored"
)


class IndexCorrupt(IndexError_):
    """The vector index files are unreadable or inconsistent; `motivgraph reindex` rebuilds them."""


class EmbeddingError(MotivGraphError):
    """The embedding model could not be loaded or failed to embed."""


class ImportFormatError(MotivGraphError):
    """An interchange (JSONL) file has invalid lines; `errors` lists (line number, reason)."""

    def __init__(self, message: str, errors: list[tuple[int, str]] | None = None) -> None:
        self.errors = errors or []
        super().__init__(message)


class IngestError(MotivGraphError):
    """A document could not be ingested; recorded per document, the batch goes on."""


class ParseError(IngestError):
    """A PDF or TEI document could not be parsed into a Paper."""


class LLMError(MotivGraphError):
    """An LLM call failed after retries, or no LLM is configured."""


class RunStopped(MotivGraphError):
    """A run stopped cleanly before its end and is resumable: re-running the same command continues it. Every
    layer that stops on it (the ingest pipeline, the re-processing jobs, the Ray engine) stops the same way,
    whatever the cause; the CLI tells the causes apart by their subclass."""


class BudgetExceeded(LLMError, RunStopped):
    """The configured cost budget is spent; the run stops cleanly and can be resumed."""


class ExtractionGateStop(RunStopped):
    """The extraction gate stopped an ingest: too few of the extractor's quotes were found in the papers
    (miner/gate.py). The papers not yet mined stay resumable; the CLI exits 6."""

    def __init__(self, message: str, *, rate: float | None = None, papers: int = 0) -> None:
        super().__init__(message)
        self.rate = rate
        self.papers = papers


class StructuredOutputError(LLMError):
    """The LLM's reply could not be parsed into the expected schema after repair and one re-ask. Whoever
    raises it sets what it knows: `raw` (the replies), `problems` (what was wrong with each), `usage` (what
    the replies cost)."""

    raw: list[str]
    problems: list[str]
    usage: Any


class LLMTimeout(LLMError):
    """An LLM call did not finish within its time limit, even after the retries with a longer limit."""


class ContextOverflow(LLMError):
    """A prompt does not fit the model's context window (with room for the reply); nothing was sent."""


class LLMUnreachable(LLMError, BackendUnavailable):
    """The model's endpoint cannot be reached (refused, no route, name not found, no answer to a connect): the
    message names the endpoint. A BackendUnavailable, so a command exits 4 like any unreachable service."""


class ExternalServiceError(MotivGraphError):
    """An external HTTP service (GROBID, Semantic Scholar) failed or is unreachable."""


class RateLimited(ExternalServiceError):
    """The external service answered 429; `retry_after` is its advice in seconds, if any."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class IngestInterrupted(MotivGraphError):
    """The batch stopped after repeated transient failures; nothing was marked failed: re-run to resume."""
