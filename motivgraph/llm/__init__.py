"""The LLM layer: model factory, cached/limited/retried client, structured output, scripted model.

    from motivgraph.llm import LLMClient, ScriptedChatModel
    client = LLMClient(settings)                          # models from settings.llm (+ roles)
    msg = await client.chat("mentor", messages, tools=[...])
    obj = await client.structured("extractor", messages, Triples)
    client.usage.to_dict()                                # tokens, calls, cache hits, cost per role
"""

# Names load on first use (PEP 562): importing one submodule (`motivgraph.llm.local` for `llm status`,
# `motivgraph.llm.cache` for `llm usage`) runs this file first, and an eager import of every submodule
# would pull LangChain into commands that never call a model.
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from motivgraph import plugins

if TYPE_CHECKING:
    from motivgraph.llm.cache import cache_path
    from motivgraph.llm.client import DEFAULT_ROLE, CallEstimate, LLMClient, get_client
    from motivgraph.llm.factory import (
        ROLES,
        ModelSpec,
        build_chat_model,
        chat_model_for,
        is_configured,
        reset_scripted_models,
        resolve_spec,
    )
    from motivgraph.llm.scripted import Delay, ScriptedChatModel, echo, rate_limit_error, server_error, tool_reply
    from motivgraph.llm.tokens import count_message_tokens, count_tokens, tokenizer_name, truncate_to_tokens
    from motivgraph.llm.usage import RoleUsage, Usage, cost_usd

_WHERE = {
    "cache_path": "motivgraph.llm.cache",
    "DEFAULT_ROLE": "motivgraph.llm.client",
    "CallEstimate": "motivgraph.llm.client",
    "LLMClient": "motivgraph.llm.client",
    "get_client": "motivgraph.llm.client",
    "ROLES": "motivgraph.llm.factory",
    "ModelSpec": "motivgraph.llm.factory",
    "build_chat_model": "motivgraph.llm.factory",
    "chat_model_for": "motivgraph.llm.factory",
    "is_configured": "motivgraph.llm.factory",
    "reset_scripted_models": "motivgraph.llm.factory",
    "resolve_spec": "motivgraph.llm.factory",
    "Delay": "motivgraph.llm.scripted",
    "ScriptedChatModel": "motivgraph.llm.scripted",
    "echo": "motivgraph.llm.scripted",
    "rate_limit_error": "motivgraph.llm.scripted",
    "server_error": "motivgraph.llm.scripted",
    "tool_reply": "motivgraph.llm.scripted",
    "count_message_tokens": "motivgraph.llm.tokens",
    "count_tokens": "motivgraph.llm.tokens",
    "tokenizer_name": "motivgraph.llm.tokens",
    "truncate_to_tokens": "motivgraph.llm.tokens",
    "RoleUsage": "motivgraph.llm.usage",
    "Usage": "motivgraph.llm.usage",
    "cost_usd": "motivgraph.llm.usage",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = plugins.resolve(f"{_WHERE[name]}:{name}")
    globals()[name] = value  # later lookups skip this hook
    return value


__all__ = [
    "DEFAULT_ROLE",
    "ROLES",
    "CallEstimate",
    "Delay",
    "LLMClient",
    "ModelSpec",
    "RoleUsage",
    "ScriptedChatModel",
    "Usage",
    "build_chat_model",
    "cache_path",
    "chat_model_for",
    "cost_usd",
    "count_message_tokens",
    "count_tokens",
    "echo",
    "get_client",
    "is_configured",
    "rate_limit_error",
    "reset_scripted_models",
    "resolve_spec",
    "server_error",
    "tokenizer_name",
    "tool_reply",
    "truncate_to_tokens",
]
