"""The FastAPI application: `create_app(settings | runtime | service)`.

Middleware, outermost first: access log (+ last-resort JSON 500), URL length (414), trusted hosts, per-client limits
(429), CORS (when origins are set), API key (when `MOTIVGRAPH_API_API_KEY` is set), body timeout (408), body size
limit (413). Routes are thin; the tool logic is in `api.services` and shared with the in-process ToolClient. Other
areas add their routers with `app.include_router(...)` in `create_app` (one line each).
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import faiss
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from motivgraph import __version__
from motivgraph.api import error_responses
from motivgraph.api.deps import JsonBody
from motivgraph.api.heap import settle_long_lived
from motivgraph.api.middleware import (
    BROWSER_PAGES,
    LOOPBACK_HOSTS,
    AccessLogMiddleware,
    ApiKeyMiddleware,
    BodyLimitMiddleware,
    BodyTimeoutMiddleware,
    ClientLimitMiddleware,
    CostGateMiddleware,
    TrustedHostMiddleware,
    UrlLimitMiddleware,
)
from motivgraph.api.routes import docs, explorer, health, nodes, papers, stats, tools, triples
from motivgraph.api.services import ToolService
from motivgraph.embeddings import set_threads
from motivgraph.graph.runtime import Runtime
from motivgraph.settings import Settings

log = logging.getLogger(__name__)

DESCRIPTION = """The MotivGraph tool API: the researcher tools (`/tools/*`) over a
problem → challenge → solution knowledge graph, plus read-only browsing (`/triples`, `/nodes`,
`/papers`), `/stats`, `/health` and an explorer page at `/explorer`.

Every error is one JSON envelope `{status, code, message, field?, ...}` (`error` repeats `code`): 404 unknown node
(with suggestions), 422 invalid argument, 401 missing/invalid `X-API-Key` (when the server has a key), 408 slow
request, 413 body too large, 414 URL too long, 429 too many requests (with Retry-After), 503 backend down."""


# Routes whose worst case walks much of the graph (transfer_candidates reads ~200 node neighbourhoods, node_relation
# up to 20 nodes with 500 neighbours each, a listing page 100 triples): gated by api.heavy_concurrency. node_search,
# random_nodes (one vector search) and the outbound literature_search (waits on the network, not a core) are not.
HEAVY_ROUTES = ("/tools/transfer_candidates", "/tools/node_relation", "/triples", "/nodes", "/papers")


def _secrets(settings: Settings) -> list[str]:
    out = []
    for secret in (settings.api.api_key, settings.neo4j.password, settings.s2.api_key, settings.llm.api_key,
                   settings.openalex.api_key):
        if secret is not None:
            out.append(secret.get_secret_value())
    return out


def _server_paths(settings: Settings) -> dict[str, str]:
    """Server paths that may appear in error messages, and what a client is shown instead."""

    out = {str(settings.data_dir): "<data dir>", str(Path(settings.data_dir).expanduser().resolve()): "<data dir>",
           sys.prefix: "<install>", tempfile.gettempdir(): "<tmp>"}
    home = str(Path.home())
    if home != "/":
        out[home] = "~"
    return out


def allowed_hosts(settings: Settings) -> list[str]:
    """Host names the API answers: the setting; else any with an API key, loopback names only without one."""
    if settings.api.allowed_hosts is not None:
        return list(settings.api.allowed_hosts)
    keyed = settings.api.api_key is not None and bool(settings.api.api_key.get_secret_value())
    return ["*"] if keyed else list(LOOPBACK_HOSTS)


def create_app(
    source: Settings | Runtime | ToolService | None = None,
    *,
    source_clients: Mapping[str, Any] | None = None,
    version_ttl_s: float | None = None,
) -> FastAPI:
    """Build the app. `source`: settings (default: from env), a Runtime whose services to use, or a
    ready ToolService (tests share one between HTTP and in-process clients); `source_clients`: as ToolService's."""
    if isinstance(source, ToolService):
        service, owned = source, False
    else:
        service, owned = ToolService(source, source_clients=source_clients, version_ttl_s=version_ttl_s), True
    settings = service.settings

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if owned and settings.api.node_cache > 0:
            # a server keeps node briefs in memory (api.node_cache); a test's shared service decides itself. Once
            # filled, the briefs are frozen out of the collector's full passes (api/heap.py: their stalls)
            service.ctx.brief_cache.keep_warm(on_filled=settle_long_lived if settings.api.settle_heap else None)
        yield
        if owned:
            client = service.ctx._s2_client
            aclose = getattr(client, "aclose", None)
            if aclose is not None:
                await aclose()
            await service.ctx.aclose_sources()
            service.ctx.runtime.close()

    # docs_url/redoc_url None: /docs and /redoc come from routes.docs with local assets (no CDN)
    # JsonBody: every route that takes a JSON body (here or added later) answers a body in another media type
    # with a 415 saying to send JSON
    app = FastAPI(title="MotivGraph", version=__version__, description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None, dependencies=[JsonBody])
    app.state.service = service
    app.state.settings = settings

    error_responses.install(app, error_responses.Redactor(_secrets(settings), _server_paths(settings)))
    # the tool routes are made from the tool table as the app is built
    for router in (health.router, stats.router, tools.build_router(), triples.router, nodes.router, papers.router,
                   explorer.router, docs.router):
        app.include_router(router)

    # add_middleware puts each new one outside the previous ones
    app.add_middleware(CostGateMiddleware, slots=settings.api.heavy_concurrency, prefixes=HEAVY_ROUTES)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.api.max_body_bytes)
    app.add_middleware(BodyTimeoutMiddleware, seconds=settings.api.body_timeout_s)
    api_key = settings.api.api_key.get_secret_value() if settings.api.api_key is not None else ""
    keyed = bool(api_key)
    open_paths = ("/health", "/health/live", "/explorer", "/explorer/", "/explorer-assets/", "/")
    if keyed:
        app.add_middleware(ApiKeyMiddleware, api_key=api_key, open_paths=open_paths, login_paths=BROWSER_PAGES)
    if settings.api.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.api.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Content-Type", "X-API-Key"], expose_headers=["X-Request-ID"])
    limited = settings.api.client_concurrency > 0 or settings.api.client_rate > 0
    if limited:
        app.add_middleware(ClientLimitMiddleware, concurrency=settings.api.client_concurrency,
                           rate=settings.api.client_rate, burst=settings.api.client_burst)
    app.add_middleware(TrustedHostMiddleware, allowed=allowed_hosts(settings))
    app.add_middleware(UrlLimitMiddleware, max_bytes=settings.api.max_url_bytes)
    app.add_middleware(AccessLogMiddleware)
    error_responses.document_statuses(app, keyed=keyed, open_paths=open_paths, limited=limited)
    return app


def set_compute_threads(n: int) -> None:
    """Embedding (ONNX Runtime or torch) and FAISS threads of this process (see ApiSettings.compute_threads).
    torch is not imported for it: with the default ONNX backend a worker never loads torch (~1 s, ~300 MB),
    and OMP_NUM_THREADS holds the count for a torch imported later (the torch backend or its fall-back)."""
    set_threads(n)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(n)
    else:
        os.environ["OMP_NUM_THREADS"] = str(n)
    faiss.omp_set_num_threads(n)
