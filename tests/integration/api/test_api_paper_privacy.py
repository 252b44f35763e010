"""A paper read over the API (GET /papers/{id}) or MCP (motivgraph://paper/{id}) never shows where the server keeps
its file: the store holds `source_path` (the CLI shows it to the machine's owner), clients do not get it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from motivgraph.graph.models import NodeIn, PaperRecord, TripleIn
from tests.integration.api.conftest import asgi_client, graph_service, make_settings

pytestmark = pytest.mark.asyncio

PAPER_ID = "arxiv:2502.04417"
FILE = "/srv/corpus/private-drafts/kestrel_tracking_v3.pdf"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, falkordb_server: Any, embedder: Any) -> Iterator[Any]:
    settings = make_settings(Path(tmp_path_factory.mktemp("paper_privacy")), falkordb_server.url)
    papers = [PaperRecord(paper_id=PAPER_ID, title="Tracking raptors with solar tags",
                          abstract="Light tags follow kestrels for a season.", year=2025, authors=["R. Falco"],
                          source_path=FILE, sha256="ab" * 32)]
    triples = [TripleIn(paper_id=PAPER_ID, index=0, problem=NodeIn(name="Studying bird migration"),
                        challenge=NodeIn(name="Tags too heavy for small raptors"),
                        solution=NodeIn(name="Solar-powered micro tags"))]
    with graph_service(settings, embedder, papers, triples) as svc:
        assert svc.ctx.store.get_paper(PAPER_ID).source_path == FILE  # the store keeps it
        yield svc


@pytest_asyncio.fixture
async def client(service: Any) -> AsyncIterator[Any]:
    from motivgraph.api.app import create_app

    async with asgi_client(create_app(service)) as c:
        yield c


async def test_http_paper_has_no_server_path(client: Any) -> None:
    r = await client.get(f"/papers/{PAPER_ID}")
    assert r.status_code == 200, r.text
    paper = r.json()["paper"]
    assert paper["title"] == "Tracking raptors with solar tags" and paper["authors"] == ["R. Falco"]
    assert paper["year"] == 2025 and paper["abstract"]
    assert "source_path" not in paper
    assert "kestrel_tracking" not in r.text and "/srv/" not in r.text


async def test_openapi_paper_model_has_no_server_path(client: Any) -> None:
    spec = (await client.get("/openapi.json")).json()
    ok = spec["paths"]["/papers/{paper_id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    view = spec["components"]["schemas"][ok["$ref"].rsplit("/", 1)[-1]]
    paper = spec["components"]["schemas"][view["properties"]["paper"]["$ref"].rsplit("/", 1)[-1]]
    assert {"paper_id", "title", "abstract", "year", "venue", "authors"} <= set(paper["properties"])
    assert "source_path" not in json.dumps(spec)


async def test_mcp_paper_resource_has_no_server_path(service: Any) -> None:
    from urllib.parse import quote

    from motivgraph.api.mcp import PAPER_URI, read_resource

    res = await read_resource(service, PAPER_URI.format(paper_id=quote(PAPER_ID, safe=":")))
    text = res.contents[0].text  # type: ignore[union-attr]
    body = json.loads(text)
    assert body["paper"]["title"] == "Tracking raptors with solar tags" and body["triples"]
    assert "source_path" not in body["paper"] and "kestrel_tracking" not in text
