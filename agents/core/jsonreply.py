"""JSON objects in a model's free-text reply: where they are and how to read them when broken.

Used by every method that asks for JSON inside prose (SoIQ's "IDEA JSON:" block, idea cards):
`candidate_spans(text, marker)` lists the JSON-looking spans most specific first (fenced blocks after
the marker, any fenced block, the outermost {...}); `loads_lenient(span)` reads one strictly, else
repairs the usual breakage (trailing commas, unescaped quotes, truncation, single quotes).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from json_repair import repair_json

log = logging.getLogger(__name__)

_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def candidate_spans(text: str, marker: str | None = None) -> list[str]:
    """JSON-looking spans of a reply, most specific first."""
    out: list[str] = []
    m = re.search(marker, text, re.IGNORECASE) if marker else None
    tail = text[m.end() :] if m else text
    out.extend(f.group(1) for f in _FENCE_RE.finditer(tail))
    if m:
        out.extend(f.group(1) for f in _FENCE_RE.finditer(text))
    start, end = tail.find("{"), tail.rfind("}")
    if start != -1:
        out.append(tail[start : end + 1] if end > start else tail[start:])
    return [c for c in out if "{" in c]


def loads_lenient(span: str) -> tuple[dict[str, Any] | None, bool]:
    """(object, repaired): strict JSON first, then json_repair."""
    try:
        obj = json.loads(span)
        return (obj, False) if isinstance(obj, dict) else (None, False)
    except json.JSONDecodeError:
        pass

    try:
        obj = repair_json(span, return_objects=True)
    except Exception as e:  # json_repair raises a variety of errors on hopeless input
        log.debug("json_repair failed: %s", e)
        return None, False
    if isinstance(obj, list):
        obj = next((o for o in obj if isinstance(o, dict)), None)
    return (obj, True) if isinstance(obj, dict) and obj else (None, False)
