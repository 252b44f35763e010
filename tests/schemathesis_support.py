"""Shared schemathesis driver: schemathesis check functions over the generated requests to one operation, with a
pinned seed (driven through hypothesis directly: schemathesis' pytest plugin does not support pytest 9)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation import GenerationMode

MODES = [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
# What every run in this process sent and found (scripts/fuzz.sh prints it): cases, failures (after the allow-list),
# and how many failures the allow-list accepted.
STATS = {"cases": 0, "failures": 0, "allowed": 0}
# A key-less app answers loopback Host names only (DNS-rebinding guard); schemathesis' ASGI default is "testserver".
LOCAL_BASE_URL = "http://localhost"


def conformance_failures(
    schema: Any,
    label: str,
    mode: GenerationMode,
    max_examples: int,
    seed: int,
    checks: list[Callable[..., Any]],
    documented: Callable[[Any, Any, str], bool] = lambda case, response, title: False,
) -> list[str]:
    """Run `checks` (schemathesis check functions) on `max_examples` generated requests to one operation, with a
    pinned hypothesis seed; return one line per distinct failure (check name + title + request), [] when clean.
    `documented(case, response, failure_title)` accepts a failure the API documents but a schema cannot state
    (a cross-field rule, a server-issued token); it must look at the response's error code, never accept all."""
    from hypothesis import seed as hyp_seed

    op = schema.find_operation_by_label(label)
    assert op is not None, label
    failures: dict[str, str] = {}

    @hyp_seed(seed)
    @given(case=op.as_strategy(generation_mode=mode))
    @settings(max_examples=max_examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    def run(case: Any) -> None:
        STATS["cases"] += 1
        response = case.call(base_url=LOCAL_BASE_URL)
        try:
            case.validate_response(response, checks=checks, transport_kwargs={"base_url": LOCAL_BASE_URL})
        except (Exception, BaseExceptionGroup) as e:  # FailureGroup is a BaseExceptionGroup: collect, go on
            for f in getattr(e, "exceptions", [e]):
                title = getattr(f, "title", type(f).__name__)
                if documented(case, response, title):
                    STATS["allowed"] += 1
                    continue
                key = f"{getattr(f, 'operation', label)} {title}"
                if key not in failures:
                    where = f"{case.method} {case.formatted_path} body={case.body!r} query={case.query!r}"
                    failures[key] = f"{key}: {where} -> {response.status_code} {response.text[:200]}"

    try:
        run()
    except Unsatisfiable:
        return []
    STATS["failures"] += len(failures)
    return sorted(failures.values())
