"""One factory for LangChain chat models, from settings, with per-role overrides.

Model strings are `provider:model` (init_chat_model style). A provider is an "llm_providers" part of the one
extension mechanism (motivgraph/plugins.py: the built-in lines name the builders below; a package adds one through
the entry-point group `motivgraph.llm_providers`). The built-in providers:
  openai:    api.openai.com, or any OpenAI-compatible server given base_url; key OPENAI_API_KEY
  deepseek:  https://api.deepseek.com by default; key DEEPSEEK_API_KEY
  vllm:      OpenAI-compatible vLLM server, default http://localhost:8000/v1; key optional
  ollama:    Ollama's OpenAI endpoint, default http://localhost:11434/v1; key optional
  local:     local:smollm2 or local:/path/model.gguf: a llama.cpp server MotivGraph starts itself on
             loopback (see llm/local.py); text-mode tool calls, the model's context window, one slot
  scripted:  scripted:PATH.json -> ScriptedChatModel.from_file (tests, CLI/HTTP end-to-end runs)
  anything else LangChain's init_chat_model knows (anthropic, google_genai, google_vertexai,
             azure_openai, bedrock_converse, mistralai, groq, ...) through an optional extra,
             e.g. pip install 'motivgraph[anthropic]'; the provider reads its own key variables.
A string without a provider is treated as `openai:`. The OpenAI-compatible providers go through
langchain_openai.ChatOpenAI (imported only when needed); every model has its own retries switched
off: LLMClient owns retrying.

Role overrides (`settings.llm.roles[role]`) replace model/base_url/api_key/temperature/max_tokens.
A role whose model names a different provider than the default does not inherit the default's
base_url and api_key (a DeepSeek mentor must not be sent to the local vLLM URL).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import SecretStr

from motivgraph import plugins
from motivgraph.errors import ConfigError
from motivgraph.llm.dialects import dialect_for
from motivgraph.llm.local import LocalServer, resolve_local, state_dir
from motivgraph.settings import LLM_ROLES, LLMSettings, RoleOverride, get_settings, is_role_name, role_override_key

if TYPE_CHECKING:  # resolving a role's model (`llm roles`) needs no LangChain; building one imports it
    from langchain_core.language_models import BaseChatModel

log = logging.getLogger(__name__)

ROLES = LLM_ROLES
LOCAL_TIMEOUT_S = 600.0  # local: models' per-call time limit unless MOTIVGRAPH_LLM_TIMEOUT_S is set
# What each LangChain init_chat_model provider (the "llm_providers" lines built by `langchain_model`) needs
# installed: (module the provider needs, pip extra of motivgraph, pip package).
LANGCHAIN_EXTRAS: dict[str, tuple[str, str, str]] = {
    "anthropic": ("langchain_anthropic", "anthropic", "langchain-anthropic"),
    "azure_openai": ("langchain_openai", "azure", "langchain-openai"),
    "azure_ai": ("langchain_azure_ai", "azure-ai", "langchain-azure-ai"),
    "google_genai": ("langchain_google_genai", "google", "langchain-google-genai"),
    "google_vertexai": ("langchain_google_vertexai", "vertexai", "langchain-google-vertexai"),
    "bedrock": ("langchain_aws", "bedrock", "langchain-aws"),
    "bedrock_converse": ("langchain_aws", "bedrock", "langchain-aws"),
    "mistralai": ("langchain_mistralai", "mistral", "langchain-mistralai"),
    "groq": ("langchain_groq", "groq", "langchain-groq"),
    "fireworks": ("langchain_fireworks", "fireworks", "langchain-fireworks"),
    "together": ("langchain_together", "together", "langchain-together"),
    "cohere": ("langchain_cohere", "cohere", "langchain-cohere"),
    "huggingface": ("langchain_huggingface", "huggingface", "langchain-huggingface"),
    "xai": ("langchain_xai", "xai", "langchain-xai"),
    "nvidia": ("langchain_nvidia_ai_endpoints", "nvidia", "langchain-nvidia-ai-endpoints"),
    "ibm": ("langchain_ibm", "ibm", "langchain-ibm"),
    "perplexity": ("langchain_perplexity", "perplexity", "langchain-perplexity"),
    "openrouter": ("langchain_openrouter", "openrouter", "langchain-openrouter"),
}
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
    "'vllm:Qwen/Qwen2.5-7B-Instruct', 'ollama:llama3.1', 'anthropic:claude-3-5-haiku-latest', or "
    "'local:smollm2' for the offline local model after ./scripts/setup.sh --with-local-llm), plus "
    "MOTIVGRAPH_LLM_BASE_URL for a self-hosted OpenAI-compatible server and MOTIVGRAPH_LLM_API_KEY (or "
    "OPENAI_API_KEY / DEEPSEEK_API_KEY) for a paid API."
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
    dialect: str = "openai_compatible"  # structured-output request body (llm/dialects.py)
    context_window: int | None = None  # prompt + reply tokens the model holds (None: unknown)
    context_tokens: int | None = None  # this role's prompt cap (RoleOverride.context_tokens)
    native_tools: bool = True  # False: agents use the text tool-call protocol
    slots: int | None = None  # calls the server runs at once (None: no limit beyond concurrency)
    local: Any = field(default=None, compare=False)  # llm.local.LocalServer for local: models

    @property
    def model_id(self) -> str:
        return f"{self.provider}:{self.model}"

    @property
    def prompt_budget(self) -> int | None:
        """Most prompt tokens a call of this role may send: the role's cap, and what the context
        window leaves after the reply cap (None: no limit known)."""
        caps = [c for c in (self.context_tokens,) if c]
        if self.context_window:
            caps.append(max(0, self.context_window - self.max_tokens))
        return min(caps) if caps else None

    def __repr__(self) -> str:  # never show the key, even masked, in reprs that end up in logs
        return f"ModelSpec(role={self.role!r}, model={self.model_id!r}, base_url={self.base_url!r})"


def split_model(value: str) -> tuple[str, str]:
    provider, sep, model = value.partition(":")
    if not sep:
        return "openai", value.strip()
    provider = provider.strip().lower()
    # a built-in provider needs no scan of the installed packages' entry points
    if provider not in plugins.BUILTIN["llm_providers"] and provider not in plugins.names("llm_providers"):
        raise ConfigError(
            f"Unknown LLM provider {provider!r} in {value!r} (MOTIVGRAPH_LLM_MODEL): use one of "
            f"{', '.join(plugins.names('llm_providers'))} — any OpenAI-compatible server works as openai: with "
            "MOTIVGRAPH_LLM_BASE_URL"
        )
    if not model.strip():
        raise ConfigError(f"MOTIVGRAPH_LLM_MODEL {value!r} names no model after {provider!r}:")
    return provider, model.strip()


def _override(settings: LLMSettings, role: str | None) -> RoleOverride | None:
    key = role_override_key(settings.roles, role)
    return settings.roles[key] if key is not None else None


def is_configured(settings: LLMSettings, role: str | None = None) -> bool:
    """True when a model is set for `role` (or the default)."""
    override = _override(settings, role)
    return bool((override and override.model) or settings.model)


def resolve_spec(settings: LLMSettings, role: str | None = None, data_dir: Path | None = None) -> ModelSpec:
    """The model spec for `role` (None: the default), or ConfigError naming the settings to set.
    `data_dir` locates local: model files and servers (default: the process settings' data dir)."""
    if role is not None and not is_role_name(role):
        raise ConfigError(f"Unknown LLM role {role!r}; roles are: {', '.join(ROLES)}, or <method>.<role>")
    override = _override(settings, role)
    model_str = (override.model if override else None) or settings.model
    if not model_str:
        raise ConfigError(NO_MODEL_MESSAGE)
    provider, model = split_model(model_str)
    same_provider = settings.model is not None and split_model(settings.model)[0] == provider
    base_url = (override.base_url if override else None) or (settings.base_url if same_provider else None)
    api_key = (override.api_key if override else None) or (settings.api_key if same_provider else None)
    temperature = override.temperature if override and override.temperature is not None else settings.temperature
    max_tokens = override.max_tokens if override and override.max_tokens is not None else settings.max_tokens
    context_tokens = override.context_tokens if override else None
    if provider == "local":
        return _local_spec(settings, role, model, temperature, override, context_tokens, data_dir)
    if _openai_compatible(provider):
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
        temperature=temperature,
        max_tokens=max_tokens,
        timeout_s=settings.timeout_s,
        dialect=dialect_for(provider, base_url, settings.dialect),
        context_window=settings.context_window,
        context_tokens=context_tokens,
    )


def _openai_compatible(provider: str) -> bool:
    """True for the built-in providers `openai_compatible_model` serves (they take the default base URLs and
    keys below); told without importing a package's provider."""
    return provider in plugins.BUILTIN["llm_providers"] and \
        plugins.load("llm_providers", provider) is openai_compatible_model


def _local_spec(settings: LLMSettings, role: str | None, value: str, temperature: float, override: Any,
                context_tokens: int | None, data_dir: Path | None) -> ModelSpec:
    """The spec of a local: model. Reply caps: an explicit setting wins (role, then
    MOTIVGRAPH_LLM_MAX_TOKENS), else the preset's cap for the role."""

    if data_dir is None:
        data_dir = get_settings().data_dir
    lm = resolve_local(value, data_dir, settings.models_dir, settings.context_window)
    if override and override.max_tokens is not None:
        max_tokens = override.max_tokens
    elif "max_tokens" in settings.model_fields_set:
        max_tokens = settings.max_tokens
    else:
        max_tokens = lm.role_max_tokens.get(role or "", lm.max_tokens)
    # The time limit: the setting when set, else at least LOCAL_TIMEOUT_S. Our own server on loopback has
    # no network to hang on; a CPU shared with other work reads a long prompt and writes a long reply in
    # minutes, and a call abandoned at the limit is generated again in full by its retry.
    timeout_s = settings.timeout_s if "timeout_s" in settings.model_fields_set else max(settings.timeout_s,
                                                                                         LOCAL_TIMEOUT_S)
    if context_tokens is None:  # the preset's prompt cap for the role, unless the role override sets one
        context_tokens = lm.role_context_tokens.get(role or "")
    server = LocalServer(lm, state_dir(data_dir, settings.local_dir), port=settings.local_port,
                         threads=settings.local_threads)
    return ModelSpec(
        role=role, provider="local", model=lm.name, base_url=None, api_key=None, temperature=temperature,
        max_tokens=max_tokens, timeout_s=timeout_s, dialect=dialect_for("local", None, settings.dialect),
        context_window=lm.context_window, context_tokens=context_tokens, native_tools=False, slots=1, local=server,
    )


_scripted: dict[str, BaseChatModel] = {}


def reset_scripted_models() -> None:
    """Forget scripted models loaded from files (tests that rewrite a script file call this)."""
    _scripted.clear()


def scripted_model(spec: ModelSpec, *, timeout_s: float) -> BaseChatModel:
    """`scripted:PATH.json`: one instance per script file and process, so all roles share the queue, in call
    order (the time limit does not apply)."""
    key = str(Path(spec.model).expanduser().resolve())
    if key not in _scripted:
        from motivgraph.llm.scripted import ScriptedChatModel  # local: offline ingest loads no LangChain

        _scripted[key] = ScriptedChatModel.from_file(key)
    return _scripted[key]


def _compat_chat_class() -> type:
    from langchain_openai import ChatOpenAI  # local: optional extra

    class OpenAICompatibleChat(ChatOpenAI):
        """ChatOpenAI for servers other than OpenAI's: the reply cap goes out as `max_tokens`.
        (langchain-openai sends `max_completion_tokens`, which llama-cpp-python and older vLLM
        silently ignore: a small local model then writes until its context window is full.)"""

        def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict:
            payload = super()._get_request_payload(input_, stop=stop, **kwargs)
            if "max_completion_tokens" in payload and "max_tokens" not in payload:
                payload["max_tokens"] = payload.pop("max_completion_tokens")
            return payload

    return OpenAICompatibleChat


def http_timeout_s(spec: ModelSpec, timeout_retries: int) -> float:
    """The transport timeout: past the longest limit LLMClient may give a call (it doubles per
    timeout retry), so the client's own deadline is the one that fires."""
    return spec.timeout_s * 2 ** timeout_retries + 30


def build_chat_model(spec: ModelSpec, *, timeout_retries: int = 0) -> BaseChatModel:
    """A LangChain chat model for `spec`, from its provider's part. No network traffic, except that a local:
    model's server is started here (or the running one reused)."""
    make = plugins.load("llm_providers", spec.provider)
    if spec.provider not in plugins.BUILTIN["llm_providers"]:
        log.info("LLM %s -> %s via the %s provider part", spec.role or "default", spec.model_id, spec.provider)
    model: BaseChatModel = make(spec, timeout_s=http_timeout_s(spec, timeout_retries))
    return model


def local_model(spec: ModelSpec, *, timeout_s: float) -> BaseChatModel:
    """`local:NAME`: the llama.cpp server MotivGraph runs itself (started here, or the running one reused),
    reached as an OpenAI-compatible server."""
    cls = _chat_class(spec)  # before the server starts: a missing extra is reported first
    st, reused = spec.local.start()
    log.info("LLM %s -> %s: %s local server at %s", spec.role or "default", spec.model_id,
             "reusing the" if reused else "started a", st.base_url)
    return _openai_chat(cls, spec, st.base_url, SecretStr(st.api_key), timeout_s)


def openai_compatible_model(spec: ModelSpec, *, timeout_s: float) -> BaseChatModel:
    """openai:, deepseek:, vllm:, ollama: -- the OpenAI chat-completions API at the spec's base URL."""
    cls = _chat_class(spec)
    log.info("LLM %s -> %s at %s", spec.role or "default", spec.model_id, spec.base_url or "api.openai.com")
    return _openai_chat(cls, spec, spec.base_url, spec.api_key, timeout_s)


def _chat_class(spec: ModelSpec) -> type:
    try:
        from langchain_openai import ChatOpenAI  # local: optional extra
    except ImportError as e:
        raise ConfigError(
            f"{spec.model_id} needs langchain-openai: pip install 'motivgraph[openai]' (or langchain-openai)"
        ) from e
    return ChatOpenAI if spec.dialect == "openai" else _compat_chat_class()


def _openai_chat(cls: type, spec: ModelSpec, base_url: str | None, api_key: SecretStr | None,
                 timeout_s: float) -> BaseChatModel:
    model: BaseChatModel = cls(
        model=spec.model,
        base_url=base_url,
        api_key=api_key,
        temperature=spec.temperature,
        max_tokens=spec.max_tokens,
        timeout=timeout_s,
        max_retries=0,
        # A model of its own, not langchain-openai's process-wide cached one (keyed by URL and timeout): a pooled
        # connection belongs to the event loop that opened it, so a second asyncio.run in the same process (a
        # test after a test, a Ray worker's next task) reused a dead loop's connection: "Event loop is closed".
        http_async_client=httpx.AsyncClient(timeout=timeout_s),
    )
    return model


def missing_extra_message(provider: str, model: str) -> str:
    _module, extra, package = LANGCHAIN_EXTRAS[provider]
    return (f"{provider}:{model} needs the '{extra}' extra: pip install 'motivgraph[{extra}]' "
            f"(LangChain's init_chat_model with {package})")


_BASE_URL_ARG = {"azure_openai": "azure_endpoint"}  # providers that call MOTIVGRAPH_LLM_BASE_URL otherwise


def langchain_model(spec: ModelSpec, *, timeout_s: float) -> BaseChatModel:
    """A provider LangChain's init_chat_model knows, through the optional extra that installs it."""
    module = LANGCHAIN_EXTRAS[spec.provider][0]
    if find_spec("langchain") is None or find_spec(module) is None:
        raise ConfigError(missing_extra_message(spec.provider, spec.model))
    from langchain.chat_models import init_chat_model  # local: optional extra

    kwargs: dict[str, Any] = {"temperature": spec.temperature, "max_tokens": spec.max_tokens,
                              "timeout": timeout_s, "max_retries": 0}
    if spec.api_key is not None:
        kwargs["api_key"] = spec.api_key
    if spec.base_url:
        kwargs[_BASE_URL_ARG.get(spec.provider, "base_url")] = spec.base_url
    log.info("LLM %s -> %s via init_chat_model", spec.role or "default", spec.model_id)
    try:
        return init_chat_model(spec.model, model_provider=spec.provider, **kwargs)
    except ImportError as e:
        raise ConfigError(missing_extra_message(spec.provider, spec.model)) from e
    except (ValueError, TypeError) as e:  # e.g. the provider's own missing-credentials check
        raise ConfigError(f"{spec.model_id}: {e}") from e


def chat_model_for(settings: LLMSettings, role: str | None = None) -> BaseChatModel:
    """Shortcut: resolve the spec for `role` and build its model."""
    return build_chat_model(resolve_spec(settings, role), timeout_retries=settings.timeout_retries)
