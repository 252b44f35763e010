"""JSON actions for the constrained tool mode, tool-mode choice, and the named reasons of a run
without an accepted idea."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import ValidationError

from motivgraph.agents.core.actions import action_call, action_model, action_prompt, argument_fields
from motivgraph.agents.core.llm import tool_mode_for
from motivgraph.agents.core.outcome import failure_reason, no_idea_reason
from motivgraph.api.contract.tools import resolve_tool
from motivgraph.errors import BudgetExceeded, LLMError, LLMTimeout, StructuredOutputError

ALL = [s for s in (resolve_tool(n) for n in ("node_search", "node_relation", "random_nodes", "literature_search",
                                             "transfer_candidates")) if s is not None]


def test_action_schema_offers_the_tools_and_the_answer() -> None:
    schema = action_model(ALL).model_json_schema()
    consts = {d["properties"]["tool"]["const"] for d in schema["$defs"].values() if "tool" in d.get("properties", {})}
    assert consts == {"node_search", "node_relation", "random_nodes", "literature_search", "transfer_candidates",
                      "answer"}
    required = action_model(ALL, allow_answer=False).model_json_schema()
    assert "answer" not in json.dumps(required)


def test_arguments_are_the_text_fields_a_caller_decides() -> None:
    fields = {s.name: argument_fields(s) for s in ALL}
    assert fields["node_search"] == {"query": "text"}
    assert fields["node_relation"] == {"names": "texts"}
    assert fields["random_nodes"] == {}  # counts and filters keep the tool's defaults
    schema = json.dumps(action_model(ALL).model_json_schema())
    assert '"maxLength": 200' in schema and '"pattern"' not in schema  # bounded plain strings for the grammar


def test_a_valid_action_becomes_a_call_and_a_bad_one_is_refused() -> None:
    m = action_model(ALL)
    call = action_call(m.model_validate({"action": {"tool": "node_relation", "arguments": {"names": ["a b"]}}}))
    assert call == ("node_relation", {"names": ["a b"]})
    assert action_call(m.model_validate({"action": {"tool": "answer"}})) is None
    with pytest.raises(ValidationError):
        m.model_validate({"action": {"tool": "node_search", "arguments": {}}})  # query is required
    with pytest.raises(ValidationError):
        m.model_validate({"action": {"tool": "drop_graph", "arguments": {}}})  # not an offered tool
    with pytest.raises(ValidationError):
        action_model(ALL, allow_answer=False).model_validate({"action": {"tool": "answer"}})
    assert "required" in action_prompt(False) and "answer" in action_prompt(True)


class _LLM:
    def __init__(self, native: bool, constrained: bool) -> None:
        self.native, self.constrained = native, constrained

    def supports_tools(self) -> bool:
        return self.native

    def constrained_output(self) -> bool:
        return self.constrained


@pytest.mark.parametrize(("native", "constrained", "wanted", "configured", "mode"), [
    (True, True, "auto", "auto", "native"),
    (False, True, "auto", "auto", "constrained"),
    (False, False, "auto", "auto", "text"),
    (False, True, "text", "auto", "text"),  # the run's choice wins
    (True, True, "auto", "constrained", "constrained"),  # then the settings'
])
def test_tool_mode_choice(native: bool, constrained: bool, wanted: str, configured: str, mode: str) -> None:
    assert tool_mode_for(_LLM(native, constrained), wanted, configured) == mode  # type: ignore[arg-type]


def test_failure_reasons_are_named() -> None:
    assert failure_reason(LLMTimeout("x"), "LLMTimeout: x") == "llm_timeout: LLMTimeout: x"
    assert failure_reason(StructuredOutputError("y"), "m").startswith("invalid_llm_output: ")
    assert failure_reason(BudgetExceeded("z"), "m").startswith("budget_reached: ")
    assert failure_reason(LLMError("w"), "m").startswith("llm_error: ")
    assert failure_reason(asyncio.CancelledError(), "m").startswith("interrupted: ")
    assert failure_reason(KeyError("k"), "m").startswith("internal_error: ")


def test_no_idea_reason() -> None:
    from motivgraph.agents.core.idea import IdeaRecord, Provenance

    prov = Provenance(method="x", run_id="r", topic="t")
    rejected = IdeaRecord(title="T", status="rejected", provenance=prov)
    accepted = IdeaRecord(title="T", status="accepted", provenance=prov)
    assert no_idea_reason([]) == "no_valid_idea: no idea was written"
    assert no_idea_reason([rejected]) == "no_valid_idea: 1 idea(s) written, none accepted"
    assert no_idea_reason([rejected], "idea 1: the mentor rejected it in round 2") == (
        "no_valid_idea: idea 1: the mentor rejected it in round 2")
    assert no_idea_reason([rejected, accepted]) is None
