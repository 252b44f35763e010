"""POST /tools/literature_search: Semantic Scholar answering (its real JSON shape through an
httpx.MockTransport), rate limiting (429 + Retry-After), circuit breaker, S2 down, and the local
corpus answering instead."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from tests.integration.api.conftest import asgi_client

pytestmark = pytest.mark.asyncio

S2_BODY = {
    "total": 2,
    "offset": 0,
    "next": 2,
    "data": [
        {
            "paperId": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
            "externalIds": {"DOI": "10.1000/LLMQ", "CorpusId": 123456},
            "url": "https://www.semanticscholar.org/paper/a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
            "title": "Low-bit quantization of large language models",
            "abstract": "We compress large language models to 4-bit weights.",
            "venue": "International Conference on Learning Representations",
            "year": 2024,
            "citationCount": 12,
            "authors": [{"authorId": "1", "name": "Ada Lovelace"}, {"authorId": "2", "name": "Alan Turing"}],
        },
        {
            "paperId": "ffff0000ffff0000ffff0000ffff0000ffff0000",
            "externalIds": {"ArXiv": "2310.99999", "CorpusId": 99},
            "url": "https://www.semanticscholar.org/paper/ffff0000ffff0000ffff0000ffff0000ffff0000",
            "title": "Pruning transformers",
            "abstract": None,
            "venue": "",
            "year": 2023,
            "citationCount": 0,
            "authors": [],
        },
    ],
}


class FakeS2:
    """Answers like api.semanticscholar.org/graph/v1/paper/search, scripted per request."""

    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, Exception):
            raise step
        status, body, headers = step
        return httpx.Response(status, json=body, headers=headers)


def make_service(api_settings: Any, tmp_path: Any, fake: FakeS2, sleeps: list[float] | None = None,
                 **s2: Any) -> Any:
    from motivgraph.api.services import ToolService
    from motivgraph.sources.semantic_scholar import SemanticScholarClient

    settings = api_settings.model_copy(deep=True)  # same graph and indexes, S2 switched on
    settings.s2.enabled = True
    settings.s2.requests_per_second = 1000
    settings.s2.max_retries = 2
    for k, v in s2.items():
        setattr(settings.s2, k, v)

    async def fake_sleep(s: float) -> None:
        if sleeps is not None:
            sleeps.append(s)

    client = SemanticScholarClient(settings.s2, cache_dir=tmp_path / "cache", transport=httpx.MockTransport(fake),
                                   sleep=fake_sleep)
    return ToolService(settings, source_clients={"semantic_scholar": client})


async def _search(svc: Any, **body: Any) -> httpx.Response:
    from motivgraph.api.app import create_app

    async with asgi_client(create_app(svc)) as c:
        return await c.post("/tools/literature_search", json=body)


async def test_semantic_scholar_answers(api_settings, tmp_path):
    fake = FakeS2([(200, S2_BODY, {})])
    svc = make_service(api_settings, tmp_path, fake, api_key=SecretStr("s2-secret-key"))
    r = await _search(svc, query="LLM compression", limit=5, year_from=2020, year_to=2024)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["source"] == "semantic_scholar" and body["fallback_reason"] is None
    first, second = body["papers"]
    assert first["title"] == "Low-bit quantization of large language models"
    assert first["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert first["doi"] == "10.1000/llmq" and first["year"] == 2024
    assert first["url"].startswith("https://www.semanticscholar.org/paper/")
    assert first["in_graph"] is True  # doi:10.1000/llmq is in the test graph
    assert second["arxiv_id"] == "2310.99999" and second["abstract"] == "" and second["in_graph"] is False
    req = fake.requests[0]
    assert req.url.path.endswith("/paper/search")
    assert req.url.params["query"] == "LLM compression" and req.url.params["limit"] == "5"
    assert req.url.params["year"] == "2020-2024"
    assert req.headers["x-api-key"] == "s2-secret-key"
    # a repeated query is served from the S2 client's disk cache
    await _search(svc, query="LLM compression", limit=5, year_from=2020, year_to=2024)
    assert len(fake.requests) == 1


async def test_rate_limited_then_answers_honouring_retry_after(api_settings, tmp_path):
    sleeps: list[float] = []
    fake = FakeS2([(429, {"message": "Too Many Requests"}, {"Retry-After": "7"}), (200, S2_BODY, {})])
    svc = make_service(api_settings, tmp_path, fake, sleeps)
    body = (await _search(svc, query="quantization")).json()
    assert body["source"] == "semantic_scholar"
    assert len(fake.requests) == 2
    assert 7.0 in sleeps  # waited what Retry-After asked


async def test_repeated_429_opens_breaker_and_falls_back(api_settings, tmp_path):
    fake = FakeS2([(429, {"message": "Too Many Requests"}, {"Retry-After": "1"})])
    svc = make_service(api_settings, tmp_path, fake, [], breaker_threshold=2, max_retries=5)
    body = (await _search(svc, query="model quantization for LLMs", limit=3)).json()
    assert body["source"] == "local"
    assert "429" in body["fallback_reason"]
    assert body["papers"][0]["paper_id"] == "doi:10.1000/llmq"
    assert body["papers"][0]["in_graph"] is True and body["papers"][0]["score"] > 0.3
    n = len(fake.requests)
    assert n == 2  # the breaker opened after two 429s
    body = (await _search(svc, query="sensor network routing", limit=3)).json()
    assert body["source"] == "local" and "circuit breaker" in body["fallback_reason"]
    assert len(fake.requests) == n  # breaker open: S2 not called at all
    assert body["papers"][0]["paper_id"] == "doi:10.1000/wsn"


async def test_s2_down_falls_back_to_local(api_settings, tmp_path):
    fake = FakeS2([httpx.ConnectError("connection refused")])
    svc = make_service(api_settings, tmp_path, fake, [])
    body = (await _search(svc, query="ant colony optimization", limit=2)).json()
    assert body["source"] == "local"
    assert "connection refused" in body["fallback_reason"]
    assert body["papers"][0]["title"] == "Ant colony optimization for vehicle routing"
    assert len(body["papers"]) == 2


async def test_s2_server_errors_fall_back(api_settings, tmp_path):
    fake = FakeS2([(503, {"message": "unavailable"}, {})])
    svc = make_service(api_settings, tmp_path, fake, [])
    body = (await _search(svc, query="protein folding")).json()
    assert body["source"] == "local" and "HTTP 503" in body["fallback_reason"]
    assert len(fake.requests) == 3  # 1 + max_retries


async def test_s2_only_reports_503_when_down(api_settings, tmp_path):
    fake = FakeS2([httpx.ConnectError("connection refused")])
    svc = make_service(api_settings, tmp_path, fake, [])
    r = await _search(svc, query="anything", source="semantic_scholar")
    assert r.status_code == 503
    err = r.json()
    assert err["error"] == "external_service" and "Semantic Scholar" in err["message"]
    assert "Traceback" not in r.text


async def test_s2_empty_answer_falls_back(api_settings, tmp_path):
    fake = FakeS2([(200, {"total": 0, "offset": 0, "data": []}, {})])
    svc = make_service(api_settings, tmp_path, fake, [])
    body = (await _search(svc, query="federated learning with personalised layers")).json()
    assert body["source"] == "local" and "nothing" in body["fallback_reason"]
    assert body["papers"][0]["paper_id"] == "doi:10.1000/fed"


async def test_local_only_with_year_range(client):
    r = await client.post("/tools/literature_search",
                          json={"query": "routing", "limit": 10, "year_from": 2016, "year_to": 2020})
    body = r.json()
    assert body["source"] == "local"
    assert "disabled" in body["fallback_reason"]
    assert body["papers"] and all(2016 <= p["year"] <= 2020 for p in body["papers"])
    assert "doi:10.1000/aco" not in {p["paper_id"] for p in body["papers"]}  # 2015


@pytest.mark.parametrize("body", [{"query": "x", "limit": 0}, {"query": "x", "limit": 101},
                                  {"query": "x", "year_from": 2020, "year_to": 2010}, {"query": "x", "source": "web"}])
async def test_literature_limits(client, body):
    r = await client.post("/tools/literature_search", json=body)
    assert r.status_code == 422, r.text
