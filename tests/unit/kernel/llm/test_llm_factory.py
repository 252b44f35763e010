"""Model factory: provider parsing, missing settings, role overrides, secrets never shown."""

from __future__ import annotations

import logging

import pytest
from pydantic import SecretStr

from motivgraph.errors import ConfigError
from motivgraph.llm import LLMClient, ScriptedChatModel, build_chat_model, reset_scripted_models, resolve_spec
from motivgraph.settings import LLMSettings, RoleOverride, Settings

SECRET = "sk-test-very-secret-0123456789"


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "DEEPSEEK_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def test_no_model_names_every_setting_to_set() -> None:
    with pytest.raises(ConfigError) as e:
        resolve_spec(LLMSettings(), "extractor")
    for name in ("MOTIVGRAPH_LLM_MODEL", "MOTIVGRAPH_LLM_BASE_URL", "MOTIVGRAPH_LLM_API_KEY"):
        assert name in str(e.value)


def test_client_require_fails_at_once_without_model(settings: Settings) -> None:
    client = LLMClient(settings)
    assert not client.is_configured("extractor")
    with pytest.raises(ConfigError, match="MOTIVGRAPH_LLM_MODEL"):
        client.require("extractor")
    client.close()


def test_unknown_provider_and_role_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="provider 'anthropc'"):
        resolve_spec(LLMSettings(model="anthropc:claude"))
    with pytest.raises(ConfigError, match="Unknown LLM role 'mentr'"):
        resolve_spec(LLMSettings(model="vllm:x"), "mentr")
    with pytest.raises(ValueError, match="unknown LLM role"):
        LLMSettings(roles={"mentr": RoleOverride()})


def test_paid_provider_without_key_is_config_error() -> None:
    with pytest.raises(ConfigError, match="MOTIVGRAPH_LLM_API_KEY"):
        resolve_spec(LLMSettings(model="deepseek:deepseek-chat"))
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        resolve_spec(LLMSettings(model="openai:gpt-4o-mini"))


def test_provider_defaults_and_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", SECRET)
    spec = resolve_spec(LLMSettings(model="deepseek:deepseek-chat"))
    assert spec.base_url == "https://api.deepseek.com"
    assert spec.api_key is not None and spec.api_key.get_secret_value() == SECRET
    assert SECRET not in repr(spec)
    local = resolve_spec(LLMSettings(model="ollama:llama3.1"))
    assert (local.base_url, local.model) == ("http://localhost:11434/v1", "llama3.1")
    # A bare name with a base_url is an OpenAI-compatible server that needs no key.
    bare = resolve_spec(LLMSettings(model="Qwen2.5-7B", base_url="http://127.0.0.1:8001/v1"))
    assert (bare.provider, bare.base_url) == ("openai", "http://127.0.0.1:8001/v1")


def test_role_overrides() -> None:
    cfg = LLMSettings(
        model="vllm:qwen",
        base_url="http://127.0.0.1:8000/v1",
        api_key=SecretStr("local-key-123"),
        temperature=0.2,
        roles={
            "mentor": RoleOverride(model="deepseek:deepseek-reasoner", api_key=SecretStr(SECRET), temperature=0.7),
            "extractor": RoleOverride(max_tokens=4000),
            "critic": RoleOverride(model="vllm:llama", base_url="http://127.0.0.1:9000/v1"),
        },
    )
    mentor = resolve_spec(cfg, "mentor")
    assert mentor.model_id == "deepseek:deepseek-reasoner"
    assert mentor.base_url == "https://api.deepseek.com"  # not the default's vLLM URL
    assert mentor.api_key.get_secret_value() == SECRET and mentor.temperature == 0.7
    extractor = resolve_spec(cfg, "extractor")
    assert (extractor.model_id, extractor.max_tokens, extractor.temperature) == ("vllm:qwen", 4000, 0.2)
    assert extractor.api_key.get_secret_value() == "local-key-123"
    critic = resolve_spec(cfg, "critic")
    assert (critic.model_id, critic.base_url) == ("vllm:llama", "http://127.0.0.1:9000/v1")
    assert resolve_spec(cfg, "judge").model_id == "vllm:qwen"


def test_roles_from_env_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", "vllm:qwen")
    monkeypatch.setenv("MOTIVGRAPH_LLM_ROLES", '{"resolver": {"model": "ollama:phi3", "temperature": 0}}')
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert resolve_spec(s.llm, "resolver").model_id == "ollama:phi3"
    assert resolve_spec(s.llm, "resolver").temperature == 0


def test_chat_openai_gets_base_url_and_key_without_logging_it(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    cfg = LLMSettings(model="vllm:Qwen/Qwen2.5-7B-Instruct", base_url="http://127.0.0.1:8009/v1",
                      api_key=SecretStr(SECRET), temperature=0.3, max_tokens=321, timeout_s=17)
    model = build_chat_model(resolve_spec(cfg, "extractor"))
    from langchain_openai import ChatOpenAI

    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "Qwen/Qwen2.5-7B-Instruct"
    assert model.openai_api_base == "http://127.0.0.1:8009/v1"
    assert model.openai_api_key.get_secret_value() == SECRET
    assert model.max_retries == 0  # LLMClient owns retries
    assert (model.temperature, model.max_tokens) == (0.3, 321)
    assert model.request_timeout > 17  # the client's own deadline (17 s) fires first
    assert SECRET not in repr(model)
    assert "127.0.0.1:8009" in caplog.text  # the endpoint is logged ...
    assert SECRET not in caplog.text  # ... the key never


def test_each_openai_compatible_model_has_its_own_async_http_client() -> None:
    """langchain-openai caches one async httpx client per (URL, timeout) for the whole process; its pooled
    connections belong to the event loop that opened them, so a second asyncio.run (the next test, a Ray worker's
    next task) failed with 'Event loop is closed'. Each model gets a client of its own."""
    cfg = LLMSettings(model="vllm:Qwen/Qwen2.5-7B-Instruct", base_url="http://127.0.0.1:8009/v1", timeout_s=17)
    a = build_chat_model(resolve_spec(cfg, "extractor"))
    b = build_chat_model(resolve_spec(cfg, "extractor"))
    assert a.root_async_client._client is not b.root_async_client._client


def test_scripted_provider_from_settings(tmp_path, settings: Settings) -> None:
    reset_scripted_models()
    script = tmp_path / "script.json"
    script.write_text('["first", "second"]')
    settings.llm.model = f"scripted:{script}"
    a = build_chat_model(resolve_spec(settings.llm, "extractor"))
    b = build_chat_model(resolve_spec(settings.llm, "resolver"))
    assert isinstance(a, ScriptedChatModel) and a is b  # one queue per script file and process
    assert a.invoke("x").content == "first"
    assert b.invoke("y").content == "second"
    missing = settings.model_copy(deep=True)
    missing.llm.model = f"scripted:{tmp_path / 'nope.json'}"
    with pytest.raises(ConfigError, match="cannot read script"):
        build_chat_model(resolve_spec(missing.llm))
    reset_scripted_models()
