"""ToolClient over HTTP (httpx): timeouts, retries with backoff on connection errors and 502/503/504
(the tools only read, so a retry is always safe), and API errors turned back into the exceptions the
in-process client raises."""

from __future__ import annotations

import logging
from typing import Any

import httpx

from motivgraph.agents.tools.base import ToolClient
from motivgraph.api.contract.tools import Q, R, ToolSpec
from motivgraph.errors import (
    BackendUnavailable,
    ConfigError,
    ExternalServiceError,
    IndexError_,
    MotivGraphError,
    NodeNotFound,
    RetriesExhausted,
    RetryableStatus,
    ToolArgumentError,
)
from motivgraph.outbound import Backoff, call_with_retries, describe

log = logging.getLogger(__name__)

RETRY_STATUS = {502, 503, 504}


class HttpToolClient(ToolClient):
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        retries: int = 3,
        backoff_s: float = 0.25,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"X-API-Key": api_key} if api_key else {}
        self.retries = retries
        self.backoff_s = backoff_s
        # the outbound toolkit's loop (motivgraph/outbound.py); the tools only read, so a retry is always safe
        self._backoff = Backoff(retries=retries, base_s=backoff_s, max_s=max(backoff_s, 10.0), jitter=0.25)
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"), headers=headers, transport=transport,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 5.0)),
        )

    @classmethod
    def from_settings(cls, settings: Any, **kw: Any) -> HttpToolClient:
        if not settings.api.url:
            raise ConfigError("No API URL configured; set MOTIVGRAPH_API_URL (e.g. http://127.0.0.1:8000)")
        key = settings.api.api_key.get_secret_value() if settings.api.api_key else None
        return cls(settings.api.url, api_key=key, **kw)

    async def _invoke(self, spec: ToolSpec[Q, R], req: Q) -> R:
        """POST /tools/<name> (every row has that route)."""
        body = req.model_dump(mode="json", exclude_none=True)
        resp = await self._send("POST", f"/tools/{spec.name}", json=body)
        return spec.result.model_validate(resp.json())

    async def _send(self, method: str, path: str, **kw: Any) -> httpx.Response:
        async def attempt() -> httpx.Response:
            resp = await self._http.request(method, path, **kw)
            if resp.status_code >= 400:
                if _retryable(resp):
                    raise RetryableStatus(resp)
                raise _error_from(resp)
            return resp

        def on_retry(n: int, e: BaseException, wait: float) -> None:
            log.debug("retrying %s %s in %.2fs (attempt %d): %s", method, path, wait, n, describe(e))

        try:
            return await call_with_retries(attempt, self._backoff, retry_if=_transport_or_gateway, on_retry=on_retry)
        except RetriesExhausted as e:
            if isinstance(e.last, RetryableStatus):
                raise _error_from(e.last.response) from None
            raise BackendUnavailable(
                f"The MotivGraph API at {self._http.base_url} is unreachable ({type(e.last).__name__}: {e.last}); "
                "check MOTIVGRAPH_API_URL and that `motivgraph serve` is running"
            ) from e.last

    async def tools(self) -> list[dict[str, Any]]:
        """The server's tool definitions (OpenAI function-calling format)."""
        return (await self._send("GET", "/tools")).json()["tools"]

    async def aclose(self) -> None:
        await self._http.aclose()


def _transport_or_gateway(e: BaseException) -> bool:
    """Retry a dropped/refused connection, a timeout, or a gateway answer `_retryable` lets through."""
    if isinstance(e, RetryableStatus):
        return True
    return isinstance(e, httpx.TransportError | httpx.TimeoutException)


def _retryable(resp: httpx.Response) -> bool:
    """Gateway errors and an unreachable backend may pass; a missing index or a config error will not."""
    if resp.status_code not in RETRY_STATUS:
        return False
    try:
        code = resp.json().get("error")
    except (ValueError, AttributeError):
        code = None
    return code in (None, "backend_unavailable", "external_service")


def _error_from(resp: httpx.Response) -> MotivGraphError:
    try:
        body = resp.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    msg = str(body.get("message") or resp.text[:500] or resp.reason_phrase)
    code = body.get("error")
    status = resp.status_code
    if status == 404 and code == "node_not_found":
        return NodeNotFound(str(body.get("ref", "")), list(body.get("suggestions") or []),
                            list(body.get("unresolved") or []))
    if status == 422:
        details = body.get("details") or []
        problems = [f"{d.get('loc', '')}: {d.get('msg', '')}" for d in details if isinstance(d, dict)] or [msg]
        return ToolArgumentError(str(body.get("tool") or resp.request.url.path.rsplit("/", 1)[-1]), problems)
    if status in (401, 403):
        return ConfigError(f"{msg} (set MOTIVGRAPH_API_API_KEY to the server's key)")
    if status == 503 and code == "index_unavailable":
        return IndexError_(msg)
    if status in (502, 503) and code == "external_service":
        return ExternalServiceError(msg)
    if status >= 500:
        return BackendUnavailable(f"MotivGraph API answered {status}: {msg}")
    return MotivGraphError(f"MotivGraph API answered {status}: {msg}")
