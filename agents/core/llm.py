"""LLM roles namespaced by method (`soiq.researcher`, `ideagent.critic`, `eval.judge`) over the one
LLMClient, with a shared default.

A namespaced role takes its model from the settings' override for its last part when that is a
known role (`soiq.researcher` → MOTIVGRAPH_LLM_ROLES.researcher), else the default model; its calls,
tokens and cost are accounted under the full namespaced name in `LLMClient.usage` — the only
usage count (nothing re-counts tokens).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel

from motivgraph.choices import ToolMode, ToolModeChoice
from motivgraph.llm import LLMClient
from motivgraph.llm.client import DEFAULT_ROLE, CallEstimate
from motivgraph.llm.factory import ModelSpec
from motivgraph.llm.factory import is_configured as _configured
from motivgraph.settings import LLM_ROLES

M = TypeVar("M", bound=BaseModel)


def model_role(role: str) -> str | None:
    """The settings role a (namespaced) role takes its model from; None = the default model."""
    base = role.rsplit(".", 1)[-1]
    return base if base in LLM_ROLES else None


class PlatformLLMClient(LLMClient):
    """LLMClient that accepts namespaced roles: the model is the base role's (shared, bound once),
    the accounting key the full name."""

    accepts_namespaced_roles = True

    def _model(self, role: str | None) -> Any:
        if role is None or role == DEFAULT_ROLE or "." not in role or role in self._injected:
            return super()._model(role)
        if role in self.cfg.roles:  # the method's own role has its own model (MOTIVGRAPH_LLM_ROLES)
            return super()._model(role)
        if role not in self._bound:
            self._bound[role] = super()._model(model_role(role))
        return self._bound[role]

    def is_configured(self, role: str | None = None) -> bool:
        if role is not None and "." in role and role not in self._injected and role not in self.cfg.roles:
            base = model_role(role)
            return bool(self._default_model or base in self._injected or _configured(self.cfg, base))
        return super().is_configured(role)


def account_role(client: Any, role: str) -> str:
    """The role name to pass to `client`: the namespaced one when it understands those."""
    if getattr(client, "accepts_namespaced_roles", False):
        return role
    return model_role(role) or DEFAULT_ROLE


class RoleLLM:
    """One role's view of the run's LLMClient: `await llm.chat(messages, tools=...)`."""

    def __init__(self, client: LLMClient, role: str, *,
                 on_call: Callable[[str, dict[str, Any], bool], None] | None = None) -> None:
        """`on_call(role, usage_delta, cache_hit)` runs after each chat call with what LLMClient
        accounted for it (the run turns it into a `usage` event)."""
        self.client = client
        self.role = role
        self._key = account_role(client, role)
        self._on_call = on_call

    async def chat(self, messages: Sequence[BaseMessage] | str, *, tools: Sequence[Any] | None = None,
                   **kw: Any) -> AIMessage:
        before = asdict(self.client.usage.role(self._key))
        reply = await self.client.chat(self._key, messages, tools=tools, **kw)
        if self._on_call is not None:
            after = asdict(self.client.usage.role(self._key))
            delta = {k: after[k] - before.get(k, 0) for k in after}
            self._on_call(self.role, delta, bool(reply.response_metadata.get("cache_hit")))
        return reply

    async def structured(self, messages: Sequence[BaseMessage] | str, schema: type[M], **kw: Any) -> M:
        """The LLM layer's structured call (constrained decoding, repair, one re-ask), accounted like
        `chat`: `on_call` gets what its replies cost (all of them, re-asks included)."""
        before = asdict(self.client.usage.role(self._key))
        try:
            return await self.client.structured(self._key, messages, schema, **kw)
        finally:
            if self._on_call is not None:
                after = asdict(self.client.usage.role(self._key))
                delta = {k: after[k] - before.get(k, 0) for k in after}
                if any(delta.values()):
                    self._on_call(self.role, delta, delta.get("calls", 0) == 0 and delta.get("cache_hits", 0) > 0)

    async def decide(self, messages: list[BaseMessage], schema: type[BaseModel]) -> BaseModel:
        """The `Decide` signature of `agents.core.loop.ChatAgent` (the constrained tool mode)."""
        return await self.structured(messages, schema)

    def constrained_output(self) -> bool:
        """True when this role's structured calls are constrained by the server itself (a JSON schema
        or grammar), so a JSON action is always well-formed even from a weak model."""
        return self.client.structured_method(self._key) == "constrained" and self.spec().dialect != "scripted"

    def estimate(self, messages: Sequence[BaseMessage] | str, expected_output_tokens: int = 256,
                 **kw: Any) -> CallEstimate:
        return self.client.estimate(self._key, messages, expected_output_tokens, **kw)

    def supports_tools(self) -> bool:
        return self.client.supports_tools(self._key)

    def prompt_budget(self) -> int | None:
        return self.client.prompt_budget(self._key)

    def spec(self) -> ModelSpec:
        return self.client.spec(self._key)

    def require(self) -> ModelSpec:
        return self.client.require(self._key)

    @property
    def model_id(self) -> str:
        return self.client.model_id(self._key)

    async def invoke(self, role: str, messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> AIMessage:
        """The `Invoke` signature of `agents.core.loop.ChatAgent` (the role argument is ignored)."""
        return await self.chat(messages, tools=tools or None)


def tool_mode_for(llm: RoleLLM, wanted: ToolModeChoice = "auto", configured: ToolModeChoice = "auto") -> ToolMode:
    """How a role calls tools: `wanted` (the run's config), else `configured` (settings), else by the
    model: native tool calls when it has them; JSON actions under schema-constrained decoding when
    its server constrains output (e.g. a local llama.cpp model); else the text protocol."""
    for choice in (wanted, configured):
        if choice != "auto":
            return choice
    if llm.supports_tools():
        return "native"
    return "constrained" if llm.constrained_output() else "text"
