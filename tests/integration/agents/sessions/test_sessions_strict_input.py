"""Issue 12 #7 on the ideation routes: JSON numbers only (`true` for an integer such as `max_repairs`, `false` or
"5" for a number are 422, as on the tool API), the topic's text rule, and every status the routes return is in
the OpenAPI spec (503 no model, 404 unknown run, 409 not resumable, the SSE content type)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from motivgraph.service import create_service_app
from motivgraph.settings import Settings


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    s = Settings(data_dir=tmp_path_factory.mktemp("strict"), _env_file=None)  # type: ignore[call-arg]
    s.llm.model = ""  # no model: a well-formed start is the documented 503, a malformed one a 422 before it
    with TestClient(create_service_app(s), base_url="http://localhost") as c:
        yield c


START = {"method": "ideagent", "topic": "graph neural networks"}


@pytest.mark.parametrize("field, value", [
    ("max_repairs", True), ("max_repairs", "1"), ("ideas", False), ("min_soundness", False),
    ("min_soundness", "50"), ("budget_usd", True), ("seed", True),
])
def test_non_numbers_for_number_fields_are_422(client: TestClient, field: str, value: object) -> None:
    r = client.post("/ideation/sessions", json={**START, field: value})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid_request" and field in r.json()["message"]


def test_json_numbers_pass_validation(client: TestClient) -> None:
    # 1.0 for an integer is a JSON number (JSON Schema allows it); the 503 says validation passed
    r = client.post("/ideation/sessions", json={**START, "max_repairs": 1.0, "min_soundness": 50, "budget_usd": 2})
    assert r.status_code == 503 and r.json()["error"] == "config_error", r.text


@pytest.mark.parametrize("topic", [" a ", "ab", "graph\x07nets", "graph\x00nets"])
def test_topic_rule(client: TestClient, topic: str) -> None:
    assert client.post("/ideation/sessions", json={**START, "topic": topic}).status_code == 422


def test_resume_budget_is_a_json_number(client: TestClient) -> None:
    r = client.post("/ideation/sessions/soiq-20260101-000000-abcdef/resume", json={"budget_usd": True})
    assert r.status_code == 422, r.text
    assert client.post("/ideation/sessions/soiq-20260101-000000-abcdef/resume",
                       json={"budget_usd": 1}).status_code == 404


def test_every_status_is_in_the_spec(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]

    def codes(path: str, method: str) -> set[str]:
        return set(paths[path][method]["responses"])

    assert {"202", "400", "413", "422", "503"} <= codes("/ideation/sessions", "post")
    assert {"202", "404", "409", "422", "503"} <= codes("/ideation/sessions/{run_id}/resume", "post")
    assert {"200", "404"} <= codes("/ideation/sessions/{run_id}", "get")
    assert {"200", "404", "422"} <= codes("/ideation/sessions/{run_id}/events", "get")
    assert "text/event-stream" in paths["/ideation/sessions/{run_id}/events"]["get"]["responses"]["200"]["content"]
    assert {"200", "404", "409"} <= codes("/eval/runs/{eval_id}", "get")
    body = paths["/ideation/sessions"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body  # the union of every method's request
