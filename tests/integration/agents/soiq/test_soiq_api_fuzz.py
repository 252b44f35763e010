"""Schemathesis over the /ideation operations: no generated request may get a 5xx (other than the
documented 503 'no LLM configured' for a well-formed start), and every error is JSON with a message.
Valid session starts are excluded from positive generation: they would launch background sessions."""

from __future__ import annotations

import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig

from motivgraph.agents.core.rundir import RunDir
from motivgraph.service import create_service_app as create_app
from motivgraph.settings import Settings
from tests.schemathesis_support import MODES, check_no_server_errors

MAX_EXAMPLES = 25


@pytest.fixture(scope="module")
def schema(tmp_path_factory):
    s = Settings(data_dir=tmp_path_factory.mktemp("fuzz"), _env_file=None)  # type: ignore[call-arg]
    run = RunDir.create(s.runs_dir, "soiq", "graphs", {"topic": "graphs", "ideas": 1})
    run.update_status(status="completed")
    config = SchemathesisConfig.from_dict({"generation": {"max-examples": MAX_EXAMPLES}})
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(s), config=config,
                                           headers={"Host": "localhost"})


LABELS = ["GET /ideation/methods", "GET /ideation/sessions", "GET /ideation/sessions/{run_id}",
          "POST /ideation/sessions/{run_id}/resume", "POST /ideation/sessions",
          "GET /ideation/sessions/{run_id}/events"]


def _no_llm_503(case, response) -> bool:
    # a well-formed start/resume with no LLM configured is a documented 503
    assert response.json()["error"] == "config_error", f"{case.method} {case.formatted_path}"
    return True


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("label", LABELS)
def test_no_server_errors(schema, label, mode):
    check_no_server_errors(schema, label, mode, MAX_EXAMPLES, _no_llm_503)
