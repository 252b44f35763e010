"""Worked example for docs/extending.md, "Add an LLM provider": a model of your own behind the OpenAI chat API.

Every provider but `scripted` reaches its model through the OpenAI chat-completions API, so a model the
project does not know (an in-house model, a research checkpoint behind a small server) needs no code in
MotivGraph: serve `POST /v1/chat/completions` and point the settings at it. `endpoint(reply)` below is such a
server in a few lines (FastAPI, already installed); `settings_for(url)` is the configuration, the same as
`MOTIVGRAPH_LLM_MODEL=openai:house-model MOTIVGRAPH_LLM_BASE_URL=<url> MOTIVGRAPH_LLM_DIALECT=openai_compatible`.
Caching, retries, rate limits, budgets, usage per role and structured output (JSON mode where the server
refuses a schema) come from the LLM layer. tests/integration/docs/test_docs_examples.py serves it on loopback
and calls it through `LLMClient`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from motivgraph.settings import LLMSettings, Settings

MODEL = "house-model"


def endpoint(reply: Callable[[list[dict[str, Any]]], str]) -> FastAPI:
    """An OpenAI-compatible chat endpoint answering every request with `reply(messages)`."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages", [])
        text = reply(messages)
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
        return {
            "id": f"chatcmpl-{time.time_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", MODEL),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": len(text.split()),
                "total_tokens": prompt_tokens + len(text.split()),
            },
        }

    return app


def settings_for(base_url: str, data_dir: Path) -> Settings:
    """The settings that send every LLM role to the endpoint at `base_url` (ending in /v1)."""
    return Settings(
        data_dir=data_dir,
        llm=LLMSettings(model=f"openai:{MODEL}", base_url=base_url, dialect="openai_compatible", max_retries=0),
    )
