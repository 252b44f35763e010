"""One factory for LangChain chat models, from settings, with per-role overrides.

Model strings are `provider:model` (init_chat_model style). Providers:
  openai:    api.openai.com, or any OpenAI-compatible server given base_url; key OPENAI_API_KEY
  deepseek:  https://api.deepseek.com by default; key DEEPSEEK_API_KEY
  vllm:      OpenAI-compatible vLLM server, default http://localhost:8000/v1; key optional
  ollama:    Ollama's OpenAI endpoint, default http://localhost:11434/v1; key optional
  scripted:  scripted:PATH.json -> ScriptedChatModel.from_file (tests, CLI/HTTP end-to-end runs)
A string without a provider is treated as `openai:`. All real providers go through
langchain_openai.ChatOpenAI (imported only when needed), with retries switched off there:
LLMClient owns retrying.

Role overrides (`settings.llm.roles[role]`) replace model/base_url/api_key/temperature/max_tokens.
A role whose model names a different provider than the default does not inherit the default's
base_url and api_key (a DeepSeek mentor must not be sent to the local vLLM URL).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from motivgraph.errors import ConfigError
from motivgraph.settings import LLM_ROLES, LLMSettings

log = logging.getLogger(__name__)

ROLES = LLM_ROLES
PROVIDERS = ("openai", "deepseek", "vllm", "ollama", "scripted")
DEFAULT_BASE_URLS = {
    "deepseek": "https://api.deepseek.com",
    "vllm": "http://localhost:8000/v1",
    "ollama": "http://localhost:11434/v1",
}
KEY_ENV = {"openai": "OPENAI_API_KEY", "deepseek": "DEEPSEEK_API_KEY"}
# Local servers accept any key, but the OpenAI SDK insists on one.
PLACEHOLDER_KEY = "not-needed"

NO_MODEL_MESSAGE = (
    "No LLM configured: set MOTIVGRAPH_LLM_MODEL (e.g. 'openai:gpt-4o-mini', 'deepseek:deepseek-chat', "
    "'vllm:Qwen/Qwen2.5-7B-Instruct', 'ollama:llama3.1'), plus MOTIVGRAPH_LLM_BASE_URL for a self-hosted "
    "OpenAI-compatible server and MOTIVGRAPH_LLM_API_KEY (or OPENAI_API_KEY / DEEPSEEK_API_KEY) for a paid API."
)


@dataclass(frozen=True)
class ModelSpec:
    """Everything that decides which model answers a role. `api_key` stays a SecretStr."""

    role: str | None
    provider: str
    model: str
    base_url: str | None
    api_key: SecretStr | None
    temperature: float
    max_tokens: int
    timeout_s: float

    @property
    def model_id(self) -> str:
        return f"{self.provider}:{self.model}"

    def __repr__(self) -> str:  # never show the key, even masked, in reprs that end up in logs
        return f"ModelSpec(role={self.role!r}, model={self.model_id!r}, base_url={self.base_url!r})"


def split_model(value: str) -> tuple[str, str]:
    provider, sep, model = value.partition(":")
    if not sep:
        return "openai", value.strip()
    provider = provider.strip().lower()
    if provider not in PROVIDERS:
        raise ConfigError(
            f"Unknown LLM provider {provider!r} in {value!r} (MOTIVGRAPH_LLM_MODEL): use one of "
            f"{', '.join(PROVIDERS)} — any OpenAI-compatible server works as openai: with MOTIVGRAPH_LLM_BASE_URL"
        )
    if not model.strip():
        raise ConfigError(f"MOTIVGRAPH_LLM_MODEL {value!r} names no model after {provider!r}:")
    return provider, model.strip()


def is_configured(settings: LLMSettings, role: str | None = None) -> bool:
    """True when a model is set for `role` (or the default)."""
    override = settings.roles.get(role) if role else None
    return bool((override and override.model) or settings.model)


def resolve_spec(settings: LLMSettings, role: str | None = None) -> ModelSpec:
    """The model spec for `role` (None: the default), or ConfigError naming the settings to set."""
    if role is not None and role not in ROLES:
        raise ConfigError(f"Unknown LLM role {role!r}; roles are: {', '.join(ROLES)}")
    override = settings.roles.get(role) if role else None
    model_str = (override.model if override else None) or settings.model
    if not model_str:
        raise ConfigError(NO_MODEL_MESSAGE)
    provider, model = split_model(model_str)
    same_provider = settings.model is not None and split_model(settings.model)[0] == provider
    base_url = (override.base_url if override else None) or (settings.base_url if same_provider else None)
    api_key = (override.api_key if override else None) or (settings.api_key if same_provider else None)
    if provider != "scripted":
        base_url = base_url or DEFAULT_BASE_URLS.get(provider)
        if api_key is None and KEY_ENV.get(provider) and os.environ.get(KEY_ENV[provider]):
            api_key = SecretStr(os.environ[KEY_ENV[provider]])
        if api_key is None:
            if provider in ("openai", "deepseek") and (provider == "deepseek" or base_url is None):
                raise ConfigError(
                    f"No API key for {provider}:{model}: set MOTIVGRAPH_LLM_API_KEY (or {KEY_ENV[provider]}), "
                    "or MOTIVGRAPH_LLM_BASE_URL for a local OpenAI-compatible server"
                )
            api_key = SecretStr(PLACEHOLDER_KEY)
    return ModelSpec(
        role=role,
        provider=provider,
        model=model,
        base_url=base_url,
        api_key=api_key,
        temperature=override.temperature if override and override.temperature is not None else settings.temperature,
        max_tokens=override.max_tokens if override and override.max_tokens is not None else settings.max_tokens,
        timeout_s=settings.timeout_s,
    )


_scripted: dict[str, BaseChatModel] = {}


def reset_scripted_models() -> None:
    """Forget scripted models loaded from files (tests that rewrite a script file call this)."""
    _scripted.clear()


def _scripted_model(path: str) -> BaseChatModel:
    # One instance per script file and process: all roles share the queue, in call order.
    key = str(Path(path).expanduser().resolve())
    if key not in _scripted:
        from motivgraph.llm.scripted import ScriptedChatModel

        _scripted[key] = ScriptedChatModel.from_file(key)
    return _scripted[key]


def build_chat_model(spec: ModelSpec) -> BaseChatModel:
    """A LangChain chat model for `spec` (no network traffic happens here)."""
    if spec.provider == "scripted":
        return _scripted_model(spec.model)
    try:
        from langchain_openai import ChatOpenAI
    except ImportError as e:
        raise ConfigError(
            f"{spec.model_id} needs langchain-openai: pip install 'motivgraph[openai]' (or langchain-openai)"
        ) from e
    log.info("LLM %s -> %s at %s", spec.role or "default", spec.model_id, spec.base_url or "api.openai.com")
    return ChatOpenAI(
        model=spec.model,
        base_url=spec.base_url,
        api_key=spec.api_key,
        temperature=spec.temperature,
        max_tokens=spec.max_tokens,
        timeout=spec.timeout_s,
        max_retries=0,
    )


def chat_model_for(settings: LLMSettings, role: str | None = None) -> BaseChatModel:
    """Shortcut: resolve the spec for `role` and build its model."""
    return build_chat_model(resolve_spec(settings, role))
