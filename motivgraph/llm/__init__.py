"""The LLM layer: model factory, cached/limited/retried client, structured output, scripted model.

    from motivgraph.llm import LLMClient, ScriptedChatModel
    client = LLMClient(settings)                          # models from settings.llm (+ roles)
    msg = await client.chat("mentor", messages, tools=[...])
    obj = await client.structured("extractor", messages, Triples)
    client.usage.to_dict()                                # tokens, calls, cache hits, cost per role
"""

from motivgraph.llm.cache import cache_path
from motivgraph.llm.client import DEFAULT_ROLE, Estimate, LLMClient, get_client
from motivgraph.llm.factory import (
    ROLES,
    ModelSpec,
    build_chat_model,
    chat_model_for,
    is_configured,
    reset_scripted_models,
    resolve_spec,
)
from motivgraph.llm.scripted import (
    Delay,
    ScriptedAPIError,
    ScriptedChatModel,
    ScriptExhausted,
    echo,
    rate_limit_error,
    server_error,
    tool_reply,
)
from motivgraph.llm.tokens import count_message_tokens, count_tokens, tokenizer_name, truncate_to_tokens
from motivgraph.llm.usage import RoleUsage, Usage, cost_usd

__all__ = [
    "DEFAULT_ROLE",
    "ROLES",
    "Delay",
    "Estimate",
    "LLMClient",
    "ModelSpec",
    "RoleUsage",
    "ScriptExhausted",
    "ScriptedAPIError",
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
