"""Property-based run of schemathesis against the OpenAPI spec, in process (ASGI), on the real test
graph: no generated request — valid or invalid — may get a 5xx, and every error is JSON with a
message. (Driven through hypothesis directly: schemathesis' pytest plugin does not support pytest 9.)"""

from __future__ import annotations

import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig

from tests.schemathesis_support import MODES, check_no_server_errors

MAX_EXAMPLES = 30  # per operation and mode: bounded so the suite stays quick on 2 cores


def _operation_labels() -> list[str]:
    # The spec does not depend on the graph: a settings-only app gives the operation list.
    from motivgraph.api.app import create_app
    from motivgraph.settings import Settings

    app = create_app(Settings(data_dir="/nonexistent-motivgraph-spec-only", _env_file=None))  # type: ignore[call-arg]
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, headers={"Host": "localhost"})
    # /ideation/* belongs to the SoIQ area (its own tests; it needs an LLM and starts jobs)
    return [r.ok().label for r in schema.get_all_operations() if "/ideation" not in r.ok().label]


LABELS = _operation_labels()


@pytest.fixture(scope="module")
def api_schema(service):
    from motivgraph.api.app import create_app

    config = SchemathesisConfig.from_dict({"generation": {"max-examples": MAX_EXAMPLES}})
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(service), config=config,
                                           headers={"Host": "localhost"})


def test_every_operation_is_covered():
    assert {"POST /tools/node_search", "POST /tools/node_relation", "POST /tools/random_nodes",
            "POST /tools/literature_search", "POST /tools/transfer_candidates", "GET /triples",
            "GET /nodes/{key}", "GET /papers/{paper_id}", "GET /stats", "GET /health", "GET /tools"} <= set(LABELS)


def _s2_only_503(case, response) -> bool:
    # S2 is off in tests: asking for it alone is a documented 503 with the reason
    s2_only = case.path == "/tools/literature_search" and isinstance(case.body, dict) and \
        case.body.get("source") == "semantic_scholar"
    return s2_only and response.json()["error"] == "external_service"


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("label", LABELS)
def test_no_server_errors(api_schema, label, mode):
    check_no_server_errors(api_schema, label, mode, MAX_EXAMPLES, _s2_only_503)
