"""The one extension mechanism (motivgraph/plugins.py): names without imports, one loader, clear failures."""

from __future__ import annotations

import logging
import sys

import pytest

from motivgraph import plugins
from motivgraph.errors import ConfigError, UnknownPart


def test_listing_names_imports_nothing() -> None:
    before = set(sys.modules)
    names = plugins.names("methods")
    assert {"soiq", "mindflow", "ideagent"} <= set(names)
    assert not {m for m in set(sys.modules) - before if m.startswith("motivgraph.agents")}


def test_every_builtin_line_loads_and_is_the_part_it_names() -> None:
    from motivgraph.agents.core.method import Method
    from motivgraph.api.contract.tools import ToolSpec

    for name in plugins.BUILTIN["methods"]:
        cls = plugins.load("methods", name)
        assert issubclass(cls, Method) and cls.name == name
    for name in plugins.BUILTIN["tools"]:
        spec = plugins.load("tools", name)
        assert isinstance(spec, ToolSpec) and spec.name == name
    for name in plugins.BUILTIN["input_kinds"]:
        assert plugins.load("input_kinds", name).name == name
    for name in plugins.BUILTIN["commands"]:
        part = plugins.load("commands", name)
        assert callable(part.cli) and callable(part.router)


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownPart, match="unknown tool 'no_such_tool'; known: node_search"):
        plugins.load("tools", "no_such_tool")


def test_a_registered_part_is_there_for_the_block_only() -> None:
    marker = object()
    with plugins.registered("tools", "toy_marker", marker):
        assert plugins.load("tools", "toy_marker") is marker
        assert plugins.names("tools")[-1] == "toy_marker"
    assert "toy_marker" not in plugins.names("tools")


def test_a_name_is_not_taken_twice_without_replace() -> None:
    with plugins.registered("tools", "toy_once", object()), pytest.raises(ValueError, match="already registered"):
        plugins.register("tools", "toy_once", object())
    with pytest.raises(ValueError, match="already registered"):
        plugins.register("tools", "node_search", object())  # a built-in's name


def test_a_broken_line_is_named_and_left_out_of_listings(caplog: pytest.LogCaptureFixture,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(plugins.BUILTIN["tools"], "toy_broken", "motivgraph.no_such_module:THING")
    monkeypatch.setitem(plugins.BUILTIN["tools"], "toy_wrong", "motivgraph.plugins:group")  # not a ToolSpec
    from motivgraph.api.contract.tools import all_tools

    assert "toy_wrong" not in {t.name for t in all_tools()}
    with pytest.raises(ConfigError, match=r"tool 'toy_broken' \(built-in 'motivgraph.no_such_module:THING'\)"):
        plugins.load("tools", "toy_broken")
    with caplog.at_level(logging.WARNING):
        loaded = plugins.load_all("tools")
    assert "toy_broken" not in loaded and "node_search" in loaded
    assert "toy_broken" in caplog.text


def test_a_check_failure_names_what_the_kind_needs() -> None:
    def must_be_int(name: str, obj: object) -> None:
        if not isinstance(obj, int):
            raise TypeError(f"{name} is not an int")

    with plugins.registered("tools", "toy_int", 3):
        assert plugins.load("tools", "toy_int", must_be_int) == 3
    with plugins.registered("tools", "toy_text", "3"), pytest.raises(ConfigError, match="toy_text is not an int"):
        plugins.load("tools", "toy_text", must_be_int)


async def test_an_llm_provider_part_serves_models_named_after_it(tmp_path: object) -> None:
    from motivgraph.llm import DEFAULT_ROLE, LLMClient, ScriptedChatModel
    from motivgraph.llm.factory import ModelSpec
    from motivgraph.settings import LLMSettings, Settings

    made: list[tuple[str, float]] = []

    def toyecho(spec: ModelSpec, *, timeout_s: float) -> ScriptedChatModel:
        made.append((spec.model, timeout_s))
        return ScriptedChatModel(["from the toy provider"])

    settings = Settings(data_dir=tmp_path, llm=LLMSettings(model="toyecho:tiny-1", cache=False),  # type: ignore[arg-type]
                        _env_file=None)  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match="Unknown LLM provider 'toyecho'"):
        LLMClient(settings).spec(DEFAULT_ROLE)
    with plugins.registered("llm_providers", "toyecho", toyecho):
        client = LLMClient(settings)
        reply = await client.chat(DEFAULT_ROLE, [{"role": "user", "content": "hi"}])
    assert reply.content == "from the toy provider"
    assert made and made[0][0] == "tiny-1" and made[0][1] > 0


def test_every_kind_has_its_group_and_its_built_in_table() -> None:
    from typing import get_args

    kinds = set(get_args(plugins.Kind))
    assert set(plugins.GROUPS) == set(plugins.KINDS) == set(plugins.BUILTIN) == kinds
    assert all(g == f"motivgraph.{k}" for k, g in plugins.GROUPS.items())
