"""The scripted chat model of the Ray engine tests: a pure function of the prompt, so the workers' model
objects (one per Ray worker process, each built from `scripted:PATH`) answer exactly as the local
engine's one does, whatever worker gets which paper."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from motivgraph.llm.tokens import content_text
from tests.reliability.fake_llm import extraction


def reply(messages: Any) -> str:
    """Extraction prompts: the chaos suite's rule-following triples chosen by a hash of the prompt; any
    other question (the resolver's, asked on the driver): 'different concepts'."""
    text = "\n".join(content_text(m.content) for m in messages)
    if "TITLE: " in text:
        return json.dumps(extraction(content_text(messages[-1].content)))
    return json.dumps({"same": False, "reason": "scripted: kept apart"})


def script_file(path: Path) -> Path:
    path.write_text(json.dumps({"default": {"call": "tests.integration.miner.ray_scripted:reply"},
                                "model_name": "scripted-ray"}), encoding="utf-8")
    return path


def die() -> None:
    """A task whose worker process dies (as when the kernel kills it for memory)."""
    import os

    os._exit(1)
