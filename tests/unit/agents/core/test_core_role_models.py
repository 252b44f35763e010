"""A method's namespaced role (`ideagent.critic`) can point to its own model; otherwise it takes the
override of its shared last part (`critic`), then the default model."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from motivgraph.agents.core.llm import PlatformLLMClient
from motivgraph.errors import ConfigError
from motivgraph.llm.factory import resolve_spec
from motivgraph.settings import LLMSettings, Settings


def _llm() -> LLMSettings:
    return LLMSettings(model="openai:base-model", base_url="http://127.0.0.1:9/v1", roles={
        "critic": {"model": "openai:shared-critic"},
        "ideagent.critic": {"model": "openai:ideagent-critic"},
        "ideagent.stenographer": {"model": "openai:steno", "max_tokens": 333},
    })


def test_full_name_wins_then_shared_role_then_default() -> None:
    cfg = _llm()
    assert resolve_spec(cfg, "ideagent.critic").model == "ideagent-critic"
    assert resolve_spec(cfg, "soiq.critic").model == "shared-critic"
    steno = resolve_spec(cfg, "ideagent.stenographer")
    assert steno.model == "steno" and steno.max_tokens == 333
    assert resolve_spec(cfg, "ideagent.diversity_judge").model == "base-model"


def test_role_names_are_checked() -> None:
    with pytest.raises(ValidationError, match="unknown LLM role"):
        LLMSettings(roles={"Not A Role": {"model": "openai:x"}})
    with pytest.raises(ConfigError, match="Unknown LLM role"):
        resolve_spec(_llm(), "no such role")


def test_platform_client_binds_the_namespaced_model(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]
    settings.llm = _llm()
    client = PlatformLLMClient(settings)
    try:
        assert client.model_id("ideagent.stenographer").endswith("steno")
        assert client.model_id("ideagent.critic").endswith("ideagent-critic")
        assert client.model_id("mindflow.critic").endswith("shared-critic")
        assert client.model_id("ideagent.quality_judge").endswith("base-model")
    finally:
        client.close()
