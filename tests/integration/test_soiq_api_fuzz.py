"""Schemathesis over the /ideation operations: no generated request may get a 5xx (other than the
documented 503 'no LLM configured' for a well-formed start), and every error is JSON with a message.
Valid session starts are excluded from positive generation: they would launch background sessions."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.config import SchemathesisConfig
from schemathesis.generation import GenerationMode

from agents.runs import RunDir
from api.app import create_app
from motivgraph.settings import Settings

MAX_EXAMPLES = 25


@pytest.fixture(scope="module")
def schema(tmp_path_factory):
    s = Settings(data_dir=tmp_path_factory.mktemp("fuzz"), _env_file=None)  # type: ignore[call-arg]
    run = RunDir.create(s.runs_dir, "soiq", "graphs", {"topic": "graphs", "ideas": 1})
    run.update_status(status="completed")
    config = SchemathesisConfig.from_dict({"generation": {"max-examples": MAX_EXAMPLES}})
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(s), config=config)


LABELS = ["GET /ideation/sessions", "GET /ideation/sessions/{run_id}", "POST /ideation/sessions/{run_id}/resume",
          "POST /ideation/sessions", "GET /ideation/sessions/{run_id}/events"]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=lambda m: m.value)
@pytest.mark.parametrize("label", LABELS)
def test_no_server_errors(schema, label, mode):
    op = schema.find_operation_by_label(label)
    assert op is not None, label

    @given(case=op.as_strategy(generation_mode=mode))
    @settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case):
        response = case.call()
        where = f"{case.method} {case.formatted_path} body={case.body!r} query={case.query!r}"
        if response.status_code == 503:  # a well-formed start/resume with no LLM configured
            assert response.json()["error"] == "config_error", where
            return
        assert response.status_code < 500, f"{where} -> {response.status_code}: {response.text}"
        if response.status_code >= 400:
            body = response.json()
            assert body["error"] and body["message"], where
            assert "Traceback" not in response.text

    try:
        run()
    except Unsatisfiable:
        pytest.skip(f"{label} has no {mode.value} inputs to generate")
