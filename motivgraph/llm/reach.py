"""Is a model's endpoint reachable? One TCP connect per endpoint, before a command spends anything.

A run against a server that is down used to make every child run, retry every call and fail late (exit 1).
`require_reachable` connects once to each distinct endpoint of the roles a command will call and raises
`LLMUnreachable` (exit 4) naming the endpoint. A connect proves the server listens without sending a prompt,
a key or a token. Endpoints the project starts itself (local: models, started on demand) and in-process
models (scripted, injected) have nothing to connect to and are skipped; so is a hosted provider whose SDK
picks the URL (we do not guess it).
"""

from __future__ import annotations

import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from motivgraph.errors import LLMUnreachable

CONNECT_TIMEOUT_S = 5.0  # a listening server accepts at once; a dropped SYN costs the whole wait


def endpoint_of(spec: Any, model: Any = None) -> str | None:
    """The URL a role's calls go to, when it is a network endpoint we can name (None: nothing to check)."""
    if getattr(spec, "provider", None) in ("local", "scripted") or getattr(spec, "local", None) is not None:
        return None
    url = getattr(spec, "base_url", None) or getattr(model, "openai_api_base", None)
    return str(url) if url else None


def connect(url: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Open and close one TCP connection to `url`'s host and port; LLMUnreachable naming it when that fails."""
    parts = urlsplit(url)
    host = parts.hostname
    if not host:
        raise LLMUnreachable(f"the LLM endpoint {url!r} names no host: fix MOTIVGRAPH_LLM_BASE_URL")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as e:
        raise LLMUnreachable(f"the LLM endpoint {url!r} has a bad port ({e}): fix MOTIVGRAPH_LLM_BASE_URL") from e
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as e:
        why = f"no answer within {timeout_s:.0f}s" if isinstance(e, TimeoutError) else (
            e.strerror or type(e).__name__)
        raise LLMUnreachable(f"the LLM endpoint {url} is unreachable ({why}): start the model server, or point "
                             "MOTIVGRAPH_LLM_BASE_URL (or the role's base_url) at one that runs") from e


def require_reachable(endpoints: Iterable[tuple[str, str | None]], timeout_s: float = CONNECT_TIMEOUT_S) -> list[str]:
    """Connect once to each distinct endpoint of (`label`, url) pairs -- label: the role and model, said in the
    error. Returns the URLs checked."""
    done: list[str] = []
    for label, url in endpoints:
        if not url or url in done:
            continue
        try:
            connect(url, timeout_s)
        except LLMUnreachable as e:
            raise LLMUnreachable(f"{label}: {e}") from e.__cause__
        done.append(url)
    return done

