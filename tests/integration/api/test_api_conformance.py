"""Issue 12 #7: schemathesis over EVERY route of the composed service (`motivgraph.service.create_service_app`:
tool API, ideation sessions, evaluation runs) with ALL its response checks — pinned version, check list,
example count and seed — reports 0 failures (status codes, content types and bodies as the spec says, invalid
input rejected, valid input accepted, no 5xx). `/mcp` is a streamable-HTTP MCP endpoint outside the OpenAPI spec
(tests/integration/api/test_mcp.py covers it); pages for people (/explorer, /runs, /docs, /redoc) are not in the
spec either.

Generated path ids never name a real run, so the run-specific answers (a run's status, a completed run's resume
409, its SSE stream, an evaluation's json/html/summary) are checked with explicit cases on runs made here,
through the same checks."""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from schemathesis import checks as st_checks
from schemathesis.config import SchemathesisConfig

from tests.integration.api.fuzz_allowlist import allowance
from tests.schemathesis_support import LOCAL_BASE_URL, MODES, STATS, conformance_failures

SCHEMATHESIS_VERSION = "4.32.5"  # pinned: another version generates other cases
SEED = 20261201
MAX_EXAMPLES = 25  # per operation and mode: bounded for 2 cores
st_checks.load_all_checks()


def error_bodies_are_clean(ctx: Any, response: Any, case: Any) -> None:
    """Every 4xx/5xx is JSON with a non-empty error code and message, and never a stack trace (the schema only
    says they are strings)."""
    if response.status_code < 400:
        return
    if "Traceback (most recent call last)" in response.text:
        raise AssertionError(f"{response.status_code} body carries a traceback")
    body = response.json()
    if not (isinstance(body, dict) and body.get("error") and body.get("message")):
        raise AssertionError(f"{response.status_code} body without error code and message: {response.text[:200]}")


CHECKS = [
    error_bodies_are_clean,
    st_checks.not_a_server_error,
    st_checks.status_code_conformance,
    st_checks.content_type_conformance,
    st_checks.response_headers_conformance,
    st_checks.response_schema_conformance,
    st_checks.negative_data_rejection,
    st_checks.positive_data_acceptance,
    st_checks.missing_required_header,
    st_checks.unsupported_method,
]

# Every operation the composed service documents; test_every_route_is_in_the_run fails when a route is added or
# dropped without this list (and so the run) following.
EXPECTED_LABELS = {
    "GET /health", "GET /health/live", "GET /stats", "GET /tools",
    "POST /tools/node_search", "POST /tools/node_relation", "POST /tools/random_nodes",
    "POST /tools/literature_search", "POST /tools/transfer_candidates",
    "GET /triples", "GET /nodes", "GET /nodes/{key}", "GET /papers", "GET /papers/{paper_id}",
    "GET /ideation/methods", "POST /ideation/sessions", "GET /ideation/sessions", "GET /ideation/sessions/{run_id}",
    "POST /ideation/sessions/{run_id}/resume", "GET /ideation/sessions/{run_id}/events",
    "GET /eval/runs", "GET /eval/runs/{eval_id}",
}


def _spec_only_app() -> Any:
    """An app built only for its spec and routes: it is never started (no lifespan), so it opens no store and
    writes nothing; its data dir is a fresh temporary folder all the same, removed at exit."""
    from motivgraph.service import create_service_app
    from motivgraph.settings import Settings

    data_dir = Path(tempfile.mkdtemp(prefix="motivgraph-spec-only-"))
    atexit.register(shutil.rmtree, data_dir, ignore_errors=True)
    return create_service_app(Settings(data_dir=data_dir / "data", _env_file=None))  # type: ignore[call-arg]


def _labels() -> list[str]:
    # The spec does not depend on the graph: the app's own OpenAPI document gives the operation list. Loading
    # it from_asgi would start the app (its lifespan warms the node cache from the store).
    schema = schemathesis.openapi.from_dict(_spec_only_app().openapi())
    return sorted(r.ok().label for r in schema.get_all_operations())


LABELS = _labels()


def test_schemathesis_version_is_the_pinned_one():
    assert schemathesis.__version__ == SCHEMATHESIS_VERSION


def test_every_route_is_in_the_run():
    """Every API route of the app is an operation of the spec (so in the run below), and the list is the known one."""
    from fastapi.routing import APIRoute

    app = _spec_only_app()
    routes: set[str] = set()
    for route in app.routes:  # included routers are flattened on the app (FastAPI >= 0.16x keeps them nested)
        contexts = getattr(route, "effective_route_contexts", None)
        items = contexts() if callable(contexts) else (contexts or [route])
        for ctx in items:
            original = getattr(ctx, "original_route", ctx)
            if isinstance(original, APIRoute) and getattr(ctx, "include_in_schema", original.include_in_schema):
                path = re.sub(r":\w+}", "}", getattr(ctx, "path", original.path))  # {key:path} is {key}
                routes |= {f"{m} {path}" for m in original.methods}
    assert routes == set(LABELS)
    assert set(LABELS) == EXPECTED_LABELS


@pytest.fixture(scope="module")
def runs(api_settings) -> dict[str, str]:
    """A completed ideation run (status, 409 on resume, a finite SSE stream) and a finished evaluation with its
    reports, in the runs dir of the app under test."""
    from motivgraph.agents.core.rundir import RunDir
    from motivgraph.agents.evaluation.harness import EVAL_METHOD

    done = RunDir.create(api_settings.runs_dir, "soiq", "graphs", {"topic": "graphs", "ideas": 1})
    done.update_status(status="completed")
    ev = RunDir.create(api_settings.runs_dir, EVAL_METHOD, "1 topic(s) × soiq", {"methods": ["soiq"]})
    ev.update_status(status="completed", kind="evaluation")
    (ev.path / "report.html").write_text("<html><body>report</body></html>", encoding="utf-8")
    (ev.path / "summary.md").write_text("# summary\n", encoding="utf-8")
    pending = RunDir.create(api_settings.runs_dir, EVAL_METHOD, "1 topic(s) × soiq", {"methods": ["soiq"]})
    pending.update_status(status="running", kind="evaluation")
    return {"done": done.id, "eval": ev.id, "eval_pending": pending.id}


@pytest.fixture(scope="module")
def service_schema(service, runs):
    from motivgraph.service import create_service_app

    config = SchemathesisConfig.from_dict({"generation": {"max-examples": MAX_EXAMPLES}})
    return schemathesis.openapi.from_asgi("/openapi.json", create_service_app(service), config=config,
                                           headers={"Host": "localhost"})


CASES = [pytest.param(label, mode, id=f"{label}-{mode.value}") for label in LABELS for mode in MODES]


@pytest.fixture(scope="module", autouse=True)
def fuzz_report() -> Any:
    """With MOTIVGRAPH_FUZZ_REPORT=<file> (scripts/fuzz.sh), the run's figures are written there at the end."""
    import json
    import os

    yield
    target = os.environ.get("MOTIVGRAPH_FUZZ_REPORT")
    if target:
        Path(target).write_text(json.dumps({**STATS, "schemathesis": schemathesis.__version__, "seed": SEED,
                                            "max_examples": MAX_EXAMPLES, "keyed_max_examples": KEYED_EXAMPLES}))


def _documented(case, response, title: str) -> bool:
    """The answers a schema cannot express: only those listed, each with its reason, in fuzz_allowlist.py."""
    return allowance(case, response, title) is not None


@pytest.mark.parametrize(("label", "mode"), CASES)
def test_every_check_passes(service_schema, label, mode):
    failures = conformance_failures(service_schema, label, mode, MAX_EXAMPLES, SEED, CHECKS, _documented)
    assert not failures, "\n".join(failures)


def _explicit(schema: Any, label: str, **kw: Any) -> tuple[int, str, str]:
    op = schema.find_operation_by_label(label)
    case = op.Case(**kw)
    response = case.call(base_url=LOCAL_BASE_URL)
    case.validate_response(response, checks=CHECKS, transport_kwargs={"base_url": LOCAL_BASE_URL})
    ctype = response.headers.get("content-type") or [""]  # schemathesis' headers map a name to its values
    return response.status_code, ctype if isinstance(ctype, str) else ctype[0], response.text


def test_run_specific_answers_pass_every_check(service_schema, runs):
    done, ev, pending = runs["done"], runs["eval"], runs["eval_pending"]
    assert _explicit(service_schema, "GET /ideation/sessions/{run_id}", path_parameters={"run_id": done})[0] == 200
    status, _, text = _explicit(service_schema, "POST /ideation/sessions/{run_id}/resume",
                                path_parameters={"run_id": done}, body={"budget_usd": 1.0},
                                media_type="application/json")
    assert status == 409 and "completed" in text
    status, ctype, text = _explicit(service_schema, "GET /ideation/sessions/{run_id}/events",
                                    path_parameters={"run_id": done})
    assert status == 200 and ctype.startswith("text/event-stream") and "event: end" in text
    assert _explicit(service_schema, "GET /eval/runs/{eval_id}", path_parameters={"eval_id": ev})[0] == 200
    status, ctype, _ = _explicit(service_schema, "GET /eval/runs/{eval_id}", path_parameters={"eval_id": ev},
                                 query={"format": "html"})
    assert status == 200 and ctype.startswith("text/html")
    status, ctype, _ = _explicit(service_schema, "GET /eval/runs/{eval_id}", path_parameters={"eval_id": ev},
                                 query={"format": "summary"})
    assert status == 200 and ctype.startswith("text/plain")
    status, _, _ = _explicit(service_schema, "GET /eval/runs/{eval_id}", path_parameters={"eval_id": pending},
                             query={"format": "html"})
    assert status == 409
    assert _explicit(service_schema, "GET /eval/runs/{eval_id}", path_parameters={"eval_id": done})[0] == 404
    assert _explicit(service_schema, "GET /eval/runs")[0] == 200


# ------------------------------------------------------------------ issue 41: the keyed server is fuzzed too
KEY = "fuzz-key-0123456789"
KEYED_EXAMPLES = 8  # per operation and mode: the keyed run repeats the contract with the key; bounded for 2 cores


@pytest.fixture(scope="module")
def keyed_app(api_settings, runs):
    from pydantic import SecretStr

    from motivgraph.api.services import ToolService
    from motivgraph.service import create_service_app

    s = api_settings.model_copy(deep=True)
    s.api.api_key = SecretStr(KEY)
    svc = ToolService(s)
    yield create_service_app(svc)
    svc.close()


def _keyed_schema(app: Any, headers: dict[str, str]) -> Any:
    config = SchemathesisConfig.from_dict({"generation": {"max-examples": KEYED_EXAMPLES}})
    return schemathesis.openapi.from_asgi("/openapi.json", app, config=config,
                                           headers={"Host": "localhost", **headers})


KEYED_CASES = [pytest.param(label, mode, id=f"keyed-{label}-{mode.value}") for label in LABELS for mode in MODES]


@pytest.mark.parametrize(("label", "mode"), KEYED_CASES)
def test_every_check_passes_with_the_key(keyed_app, label, mode):
    schema = _keyed_schema(keyed_app, {"X-API-Key": KEY})
    failures = conformance_failures(schema, label, mode, KEYED_EXAMPLES, SEED, CHECKS, _documented)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("key", [None, "wrong-key"])
def test_without_the_right_key_every_keyed_operation_is_a_documented_401(keyed_app, label, key):
    """No key or a wrong one: every operation but the open ones answers the 401 its spec declares, in the envelope,
    and every check passes on it (the spec declares the security scheme it needs)."""
    schema = _keyed_schema(keyed_app, {"X-API-Key": KEY})  # the spec itself is read with the key
    op = schema.find_operation_by_label(label)
    case = op.Case(**_minimal_case(op))
    response = case.call(base_url=LOCAL_BASE_URL, headers={"Host": "localhost", "X-API-Key": key or ""})
    open_ops = {"GET /health", "GET /health/live"}
    if label in open_ops:
        assert response.status_code != 401
        return
    assert response.status_code == 401, (label, response.text)
    body = response.json()
    assert body["status"] == 401 and body["code"] == "unauthorized" and body["field"] == "X-API-Key"
    assert "401" in op.definition.raw["responses"] and op.definition.raw.get("security"), label
    case.validate_response(response, checks=[error_bodies_are_clean, st_checks.status_code_conformance,
                                             st_checks.content_type_conformance,
                                             st_checks.response_schema_conformance],
                           transport_kwargs={"base_url": LOCAL_BASE_URL})


def _minimal_case(op: Any) -> dict[str, Any]:
    """Path parameters filled with a placeholder id and the example body, if any: enough to reach the key check."""
    raw = op.definition.raw
    kw: dict[str, Any] = {}
    path_params = {p["name"]: "x" for p in raw.get("parameters", []) if p.get("in") == "path"}
    if path_params:
        kw["path_parameters"] = path_params
    if raw.get("requestBody"):
        kw["body"], kw["media_type"] = {}, "application/json"
    return kw


def test_the_keyed_spec_declares_its_security_scheme(keyed_app):
    spec = keyed_app.openapi()
    schemes = spec["components"]["securitySchemes"]
    assert schemes["ApiKeyHeader"] == {**schemes["ApiKeyHeader"], "type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert schemes["ApiKeyCookie"]["in"] == "cookie"
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if path.startswith("/health"):
                assert "security" not in op, path
            else:
                assert op.get("security") and "401" in op["responses"], f"{method} {path}"


# ------------------------------------------------------------------ issue 41: stateful, where the tool supports it
STATEFUL_SCENARIOS = 15  # hypothesis examples of the state machine; each a chain of up to STATEFUL_STEPS calls
STATEFUL_STEPS = 6


def test_stateful_workflows_pass_every_check(service_schema, runs):
    """Schemathesis' state machine over the links it infers from the spec (GET /papers -> GET /papers/{paper_id},
    POST /ideation/sessions -> GET /ideation/sessions/{run_id}, ...): every response of every chain passes every
    check; failures are accepted only as the allow-list accepts them."""
    from hypothesis import HealthCheck
    from hypothesis import settings as hyp_settings

    failures: dict[str, str] = {}
    workflow = service_schema.as_state_machine()
    assert workflow.bundles, "the spec gives schemathesis no link to follow"

    class Checked(workflow):  # type: ignore[misc,valid-type]
        def get_call_kwargs(self, case):
            return {"base_url": LOCAL_BASE_URL}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            STATS["cases"] += 1
            try:
                case.validate_response(response, checks=CHECKS, transport_kwargs={"base_url": LOCAL_BASE_URL})
            except (Exception, BaseExceptionGroup) as e:
                for f in getattr(e, "exceptions", [e]):
                    title = getattr(f, "title", type(f).__name__)
                    if _documented(case, response, title):
                        STATS["allowed"] += 1
                        continue
                    key = f"{case.method} {case.path} {title}"
                    failures.setdefault(key, f"{key}: body={case.body!r} query={case.query!r} -> "
                                             f"{response.status_code} {response.text[:200]}")

    # derandomize: the same scenarios every run (the state machine takes no explicit seed)
    Checked.run(settings=hyp_settings(max_examples=STATEFUL_SCENARIOS, stateful_step_count=STATEFUL_STEPS,
                                      deadline=None, database=None, derandomize=True,
                                      suppress_health_check=list(HealthCheck)))
    STATS["failures"] += len(failures)
    assert not failures, "\n".join(sorted(failures.values()))
