"""Every exception class of the project, under one root; each layer raises a specific subclass.

Every error carries a message a user can act on: where a setting is the fix, the message names it. Each class
says the HTTP answer it becomes when it reaches the API (`status`, `code`; as datasette's errors do): the API's
handler reads them (api/error_responses.py), a subclass inherits its parent's. The classes are grouped by the
layer that raises them; a private (`_`) class that only steers control flow inside one module stays there.
"""

from __future__ import annotations

from typing import Any, ClassVar


class MotivGraphError(Exception):
    """Root of every error MotivGraph raises on purpose."""

    status: ClassVar[int] = 500  # the HTTP status of the API's answer
    code: ClassVar[str] = "internal"  # the answer's machine-readable code


# -- kernel: settings, the data directory, outside text, extensions --------------------------------------------


class ConfigError(MotivGraphError):
    """A setting is missing or invalid; the message names the setting (env var) to fix."""

    status, code = 503, "config_error"


class DataFormatError(ConfigError):
    """The data dir's format version cannot be used by this MotivGraph as it stands."""


class UnknownPart(ConfigError):
    """No part of that kind and name; the message lists the names there are."""


class TextHygieneError(MotivGraphError, ValueError):
    """Outside text a caller must fix. A ValueError too, so pydantic validators turn it into a 422."""

    def __init__(self, problem: str, position: int, *, field: str | None = None, unit: str = "character") -> None:
        self.problem = problem
        self.position = position
        self.field = field
        where = f"{field}: " if field else ""
        super().__init__(f"{where}{problem} at {unit} {position}")


# -- outbound calls (motivgraph/outbound.py): signals of the retry loop, never shown to a user -----------------


class RetryableStatus(Exception):
    """Raised inside an attempt for an HTTP answer that should be retried (503, 429, ...); carries the
    response so the classifier sees its status and Retry-After."""

    def __init__(self, response: Any, message: str = "") -> None:
        self.response = response
        self.status_code = int(getattr(response, "status_code", 0) or 0)
        super().__init__(message or f"HTTP {self.status_code}")


class RetriesExhausted(Exception):
    """Carries the last error and the attempt count out of `call_with_retries`; `message` describes the last
    error (outbound.describe)."""

    def __init__(self, last: BaseException, attempts: int, message: str) -> None:
        super().__init__(message)
        self.last, self.attempts = last, attempts


# -- graph and its indexes ---------------------------------------------------------------------------------------


class BackendUnavailable(MotivGraphError):
    """The graph backend (embedded FalkorDB, external FalkorDB, Neo4j) cannot be reached."""

    status, code = 503, "backend_unavailable"


class GraphError(MotivGraphError):
    """A graph query failed for a reason other than connectivity."""

    status, code = 503, "graph_error"


class NodeNotFound(GraphError):
    """A node key or name does not exist; `suggestions` holds close matches. `unresolved`: when a lookup
    of several names found none, one entry per name (the tool result's `unresolved` items, or their dicts
    when the error came back over HTTP)."""

    status, code = 404, "node_not_found"

    def __init__(self, ref: str, suggestions: list[str] | None = None, unresolved: list[Any] | None = None) -> None:
        self.ref = ref
        self.suggestions = suggestions or []
        self.unresolved: list[Any] = list(unresolved or [])
        hint = f" Did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"No node matches {ref!r}.{hint}")


class IndexError_(MotivGraphError):
    """The vector index is missing, stale or unreadable. (Trailing _ avoids shadowing the builtin.)"""

    status, code = 503, "index_unavailable"


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


# -- embeddings ----------------------------------------------------------------------------------------------------


class EmbeddingError(MotivGraphError):
    """The embedding model could not be loaded or failed to embed."""

    status, code = 503, "embedding_unavailable"


class OnnxMismatch(EmbeddingError):
    """The ONNX model does not reproduce the torch backend's vectors (or could not be loaded)."""


class ImportFormatError(MotivGraphError):
    """An interchange (JSONL) file has invalid lines; `errors` lists (line number, reason)."""

    def __init__(self, message: str, errors: list[tuple[int, str]] | None = None) -> None:
        self.errors = errors or []
        super().__init__(message)


# -- ingest --------------------------------------------------------------------------------------------------------


class IngestError(MotivGraphError):
    """A document could not be ingested; recorded per document, the batch goes on."""


class ParseError(IngestError):
    """A PDF or TEI document could not be parsed into a Paper."""


# -- LLM -----------------------------------------------------------------------------------------------------------


class LLMError(MotivGraphError):
    """An LLM call failed after retries, or no LLM is configured."""

    status, code = 503, "llm_unavailable"


class RunStopped(MotivGraphError):
    """A run stopped cleanly before its end and is resumable: re-running the same command continues it. Every
    layer that stops on it (the ingest pipeline, the re-processing jobs, the Ray engine) stops the same way,
    whatever the cause; the CLI tells the causes apart by their subclass."""


class BudgetExceeded(LLMError, RunStopped):
    """The configured cost budget is spent; the run stops cleanly and can be resumed."""


class ExtractionGateStop(RunStopped):
    """The extraction gate stopped an ingest: too few of the extractor's quotes were found in the papers
    (miner/gate.py). The papers not yet mined stay resumable; the CLI exits 6."""

    # the extractor's model is not fit for the job: over HTTP the answer of an unusable LLM, as before #44 gave the
    # stop its own base (it subclassed BudgetExceeded, an LLMError, until then)
    status, code = 503, "llm_unavailable"

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


class ReplyProblem(ValueError):
    """Why a reply could not become the schema object; the text is what the re-ask quotes."""


class LLMTimeout(LLMError):
    """An LLM call did not finish within its time limit, even after the retries with a longer limit."""


class ContextOverflow(LLMError):
    """A prompt does not fit the model's context window (with room for the reply); nothing was sent."""


class LLMUnreachable(LLMError, BackendUnavailable):
    """The model's endpoint cannot be reached (refused, no route, name not found, no answer to a connect): the
    message names the endpoint. A BackendUnavailable, so a command exits 4 like any unreachable service."""

    code = BackendUnavailable.code  # an unreachable service first, whichever base names it first


class ScriptExhausted(LLMError):
    """The scripted model was called more often than its script allows (a test bug)."""


class ScriptedAPIError(Exception):
    """A provider-style HTTP error: `status_code` and `headers` like openai.APIStatusError. No MotivGraphError:
    the scripted model raises it where a provider's SDK raises its own, for the retry logic to classify."""

    def __init__(self, status_code: int, message: str = "", headers: dict[str, str] | None = None) -> None:
        super().__init__(message or f"scripted HTTP {status_code}")
        self.status_code = status_code
        self.headers = headers or {}


# -- the tool API ---------------------------------------------------------------------------------------------------


class ToolArgumentError(MotivGraphError, ValueError):
    """Tool arguments that break a limit or have the wrong type; the message names each problem. The server and
    every client raise it the same way."""

    status, code = 422, "invalid_request"

    def __init__(self, tool: str, problems: list[str]) -> None:
        self.tool = tool
        self.problems = problems
        super().__init__(f"Invalid arguments for {tool}: " + "; ".join(problems))


class InvalidCursor(GraphError):
    """A /triples cursor that this server did not hand out (or from an older graph)."""

    status, code = 422, "invalid_cursor"


class PaperNotFound(GraphError):
    """No Paper node has this id."""

    status, code = 404, "paper_not_found"


class ApiError(Exception):
    """An answer a route gives on purpose: `status`, `code`, `message` and the `field` at fault, as the envelope.
    No MotivGraphError: its status is the instance's, and no `except MotivGraphError` in a service may catch it."""

    def __init__(self, status: int, code: str, message: str, *, field: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.field, self.headers = status, code, message, field, headers


# -- agents: methods, runs, evaluation ----------------------------------------------------------------------------


class UnknownMethod(ConfigError):
    """No method of that name is registered; the message lists those that are."""


class UnknownReference(MotivGraphError):
    """A method config names a stored object by an id nothing has (HTTP 422 `unknown_reference` naming the field)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


class RunNotFound(MotivGraphError):
    """No run directory with that id exists under the runs directory."""


class RunStateError(MotivGraphError):
    """A run cannot be resumed or written in its current state (e.g. already completed)."""


class CheckpointVersionError(MotivGraphError):
    """A checkpoint this code cannot resume (other method, newer or unmigratable older version)."""


class BackgroundError(ConfigError):
    """A background file that cannot be used; the message says which line and why."""


class IdeaParseError(StructuredOutputError):
    """The researcher's reply holds no usable idea JSON; `problems` lists what is wrong."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        self.problems = problems or []
        super().__init__(message)


class JudgeFailure(StructuredOutputError):
    """A judge's replies stayed unusable (e.g. a score outside its scale) after JUDGE_ATTEMPTS fresh samples:
    named by the judge, so the draft it was judging is recorded as unscored, not as an idea never written."""


class ArchiveInvariantError(MotivGraphError, AssertionError):
    """An archive operation left the stores inconsistent (a bug in the search, never bad input)."""


class FlowFailed(LLMError):
    """Every step of a flow failed: there is no idea to return."""


class TopicsError(ConfigError):
    """The topics input cannot be used; the message names the line and field."""


class TopicGraphError(MotivGraphError):
    """A topic's graph could not be built (the message names the topic and what failed)."""


class CutoffError(ConfigError):
    """A cutoff that cannot be read (the message names the accepted forms)."""


class TargetLeak(ConfigError):
    """A target paper is visible to the methods (it would be judged against itself)."""


class IdeasFileError(ConfigError):
    """The ideas file cannot be used at all (missing, or no usable line); the message names why."""


# -- external services ---------------------------------------------------------------------------------------------


class ExternalServiceError(MotivGraphError):
    """An external HTTP service (GROBID, Semantic Scholar) failed or is unreachable."""

    status, code = 503, "external_service"


class RateLimited(ExternalServiceError):
    """The external service answered 429; `retry_after` is its advice in seconds, if any."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class IngestInterrupted(MotivGraphError):
    """The batch stopped after repeated transient failures; nothing was marked failed: re-run to resume."""
