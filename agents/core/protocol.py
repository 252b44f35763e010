"""The text tool-call protocol for models without native tool calling.

A model writes a Python-style call and then the marker, e.g.

    node_search(query="LLM compression") <CALL>

Every marker executes the call written before it (after the previous marker). Text without a marker
calls nothing. The parser never raises: a call it cannot read comes back as a `CallError` whose
message is sent to the model so it can correct itself.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

CALL_MARKER = "<CALL>"
_MARKER_RE = re.compile(r"<\s*call\s*>", re.IGNORECASE)
_IDENT_RE = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\(")
_BARE = {"true": True, "false": False, "null": None, "none": None}


@dataclass
class ParsedCall:
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    positional: list[Any] = field(default_factory=list)
    raw: str = ""


@dataclass
class CallError:
    raw: str
    message: str


def _balanced_end(text: str, open_idx: int) -> int | None:
    """Index just past the ')' closing the '(' at open_idx, skipping string literals; None if open."""
    depth, i, quote = 0, open_idx, ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _find_call(segment: str) -> tuple[str | None, str | None]:
    """(call text, None) for the last top-level `name(...)` in a segment, or (None, reason)."""
    last: str | None = None
    unclosed: str | None = None
    pos = 0
    while True:
        m = _IDENT_RE.search(segment, pos)
        if not m:
            break
        end = _balanced_end(segment, m.end() - 1)
        if end is None:
            unclosed = segment[m.start() :].strip()
            pos = m.end()
            continue
        last = segment[m.start() : end]
        unclosed = None
        pos = end  # skip what is inside this call: nested names are arguments, not calls
    if unclosed is not None and (last is None or segment.rfind(last) < segment.rfind(unclosed)):
        return None, f"unbalanced parentheses or quotes in {unclosed[:120]!r}"
    if last is None:
        return None, "no function call found before the <CALL> marker"
    return last, None


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id.lower() in _BARE:
        return _BARE[node.id.lower()]
    return ast.literal_eval(node)


def _lenient(call: str) -> ParsedCall | None:
    """`f(key=some words, n=3)` with unquoted text: split top-level commas, keep values as text."""
    m = re.match(r"\s*([A-Za-z_]\w*)\s*\((.*)\)\s*$", call, re.DOTALL)
    if not m:
        return None
    args: dict[str, Any] = {}
    for part in re.split(r",(?=\s*[A-Za-z_]\w*\s*=)", m.group(2)):
        if not part.strip():
            continue
        k, eq, v = part.partition("=")
        if not eq or not re.fullmatch(r"\s*[A-Za-z_]\w*\s*", k):
            return None
        v = v.strip().strip("\"'")
        try:
            args[k.strip()] = ast.literal_eval(v) if re.fullmatch(r"-?\d+(\.\d+)?", v) else v
        except (ValueError, SyntaxError):
            args[k.strip()] = v
    return ParsedCall(name=m.group(1), args=args, raw=call)


def parse_call(call: str) -> ParsedCall | CallError:
    try:
        tree = ast.parse(call.strip(), mode="eval")
    except SyntaxError:
        lenient = _lenient(call)
        if lenient is not None:
            return lenient
        return CallError(call, f"cannot parse {call[:160]!r}: write name(arg=\"value\", ...) with quoted strings")
    node = tree.body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return CallError(call, f"{call[:160]!r} is not a plain function call name(arg=value)")
    try:
        positional = [_value(a) for a in node.args]
        args = {kw.arg: _value(kw.value) for kw in node.keywords if kw.arg}
    except (ValueError, SyntaxError) as e:
        lenient = _lenient(call)
        if lenient is not None:
            return lenient
        return CallError(call, f"argument values must be literals (strings, numbers, lists): {e}")
    if any(kw.arg is None for kw in node.keywords):
        return CallError(call, "**kwargs is not supported; name each argument")
    return ParsedCall(name=node.func.id, args=args, positional=positional, raw=call)


def parse_text_calls(text: str) -> list[ParsedCall | CallError]:
    """Every call a reply makes, in order. Empty when the reply has no <CALL> marker."""
    text = text or ""
    out: list[ParsedCall | CallError] = []
    pos = 0
    for m in _MARKER_RE.finditer(text):
        segment = text[pos : m.start()]
        pos = m.end()
        call, reason = _find_call(segment)
        if call is None:
            out.append(CallError(segment.strip()[-200:], reason or "no call"))
        else:
            out.append(parse_call(call))
    return out


def strip_after_last_marker(text: str) -> str:
    """A reply cut after its last marker: whatever the model wrote past it was written without
    seeing the results (often hallucinated results), so it is not kept in the conversation."""
    last = None
    for m in _MARKER_RE.finditer(text or ""):
        last = m
    return text[: last.end()] if last else text
