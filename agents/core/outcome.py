"""Named reasons for a run that ended without an accepted idea, as status.json's `reason`:
`<code>: <detail>`, the code a stable snake_case word a script can branch on.

    no_valid_idea     the run finished, but no idea was accepted (the method says why)
    shortfall         the run finished with fewer accepted ideas than it was asked for
    llm_timeout       an LLM call could not finish in time (after its retries)
    invalid_llm_output the model's replies never became the required structure
    budget_reached    the LLM budget stopped the run (resumable with a higher budget)
    context_overflow  a prompt did not fit the model's context window
    llm_error         any other LLM failure (connection, HTTP error, ...)
    config_error      the configuration is unusable (e.g. no model configured)
    interrupted       Ctrl-C or a cancelled job
    internal_error    anything else (a bug: the message names the exception)
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from motivgraph.agents.core.idea import IdeaRecord
from motivgraph.errors import (
    BudgetExceeded,
    ConfigError,
    ContextOverflow,
    LLMError,
    LLMTimeout,
    StructuredOutputError,
)

NO_VALID_IDEA = "no_valid_idea"
_CODES: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...], str], ...] = (
    (BudgetExceeded, "budget_reached"),
    (LLMTimeout, "llm_timeout"),
    (StructuredOutputError, "invalid_llm_output"),
    (ContextOverflow, "context_overflow"),
    (LLMError, "llm_error"),
    (ConfigError, "config_error"),
    ((KeyboardInterrupt, asyncio.CancelledError), "interrupted"),
)


def failure_code(e: BaseException) -> str:
    for kinds, code in _CODES:
        if isinstance(e, kinds):
            return code
    return "internal_error"


def failure_reason(e: BaseException, message: str) -> str:
    """`<code>: <message>` for what stopped a run."""
    return f"{failure_code(e)}: {message}"


def no_idea_reason(ideas: Sequence[IdeaRecord], detail: str | None = None) -> str | None:
    """`no_valid_idea: ...` when no idea was accepted (None when one was). `detail` is the method's
    own account (e.g. SoIQ: what happened to each attempt); else the count of rejected ideas."""
    if any(i.status == "accepted" for i in ideas):
        return None
    if not detail:
        rejected = sum(1 for i in ideas if i.status == "rejected")
        detail = f"{rejected} idea(s) written, none accepted" if rejected else "no idea was written"
    return f"{NO_VALID_IDEA}: {detail}"


def shortfall_reason(ideas: Sequence[IdeaRecord], asked: int | None) -> str | None:
    """`shortfall: ...` when some, but fewer than the `asked` ideas were accepted (None otherwise: all were,
    none were -- that is no_valid_idea -- or the method has no idea count)."""
    accepted = sum(1 for i in ideas if i.status == "accepted")
    if asked is None or accepted == 0 or accepted >= asked:
        return None
    rejected = sum(1 for i in ideas if i.status == "rejected")
    tail = f" ({rejected} rejected)" if rejected else ""
    return f"shortfall: {accepted} of {asked} requested ideas accepted{tail}"
