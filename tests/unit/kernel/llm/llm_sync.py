"""Blocking calls of an LLMClient for the client tests (the client is async only; these run one call to the end)."""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

from langchain_core.messages import AIMessage
from pydantic import BaseModel

from motivgraph.llm import LLMClient

M = TypeVar("M", bound=BaseModel)


def chat_sync(client: LLMClient, role: str, messages: Any, **kwargs: Any) -> AIMessage:
    return asyncio.run(client.chat(role, messages, **kwargs))


def structured_sync(client: LLMClient, role: str, messages: Any, schema: type[M], **kwargs: Any) -> M:
    return asyncio.run(client.structured(role, messages, schema, **kwargs))
