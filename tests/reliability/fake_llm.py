"""A scripted extractor behind a fake OpenAI-compatible server on loopback (chaos suite).

Run as a process: `python tests/reliability/fake_llm.py PORT` answers POST /v1/chat/completions.
The reply is a pure function of the request: the structured-output schema it asks for (by the tool or
json_schema name) and the text of the last user message, so two runs over the same papers get the same
answers whatever happened in between (a killed server, retries, a resumed ingest). Extraction replies
are built from a small vocabulary chosen by a hash of the prompt and follow the naming rules.
"""

from __future__ import annotations

import hashlib
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PROBLEMS = [
    ("Information extraction from text documents", "Recovering structured facts such as entities and relations "
     "from unstructured natural language text."),
    ("Statistical parsing of natural language sentences", "Assigning syntactic structure to sentences of a "
     "natural language with learned models."),
    ("Large scale distributed data processing", "Running computations over very large data sets spread "
     "across many machines."),
]
_CHALLENGES = [
    ("Sparse evidence for rare facts in corpora", "Many correct facts appear only a few times, so frequency "
     "alone cannot separate them from errors."),
    ("Ambiguity of structure in long sentences", "Long sentences admit many analyses and the correct one is "
     "hard to choose without context."),
    ("Machine failures during long running jobs", "Long computations on many machines meet hardware and "
     "software faults that interrupt them."),
]
_ADJ = ["probabilistic", "discriminative", "unsupervised", "incremental", "hierarchical", "robust"]


def _h(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:8], 16)


def _quotes(prompt: str, h: int) -> list[list[str]]:
    """Three sentences copied from the paper the prompt carries (as a faithful model quotes, #39), chosen by
    the prompt's hash: one per element."""
    import re

    body = prompt.split("Paper:", 1)[-1]
    body = "\n".join(ln for ln in body.strip().splitlines()[1:]  # the title line
                     if not re.fullmatch(r"(ABSTRACT|INTRODUCTION|METHOD \(excerpt\)):", ln.strip()))
    sents = [s for s in re.split(r"(?<=[.!?])\s+", " ".join(body.split())) if 6 <= len(s.split()) <= 80]
    sents = [s for s in sents if "JSON" not in s]
    if not sents:
        return [[], [], []]
    return [[sents[(h >> (3 * k)) % len(sents)]] for k in range(3)]


def extraction(prompt: str) -> dict[str, Any]:
    h = _h(prompt)
    i = h % len(_PROBLEMS)
    adj = _ADJ[(h >> 4) % len(_ADJ)]
    qp, qc, qs = _quotes(prompt, h)
    return {
        "triples": [{
            "problem": {"name": _PROBLEMS[i][0], "description": _PROBLEMS[i][1], "quotes": qp},
            "challenge": {"name": _CHALLENGES[i][0], "description": _CHALLENGES[i][1], "quotes": qc},
            "solution": {
                "name": f"{adj.capitalize()} model for scoring candidate outputs from text",
                "description": f"A {adj} model assigns each candidate a score from its context and keeps the "
                "best ones.",
                "quotes": qs,
            },
            "section": "introduction",
        }],
        "no_triples_reason": None,
    }


def answer(schema: str, prompt: str) -> dict[str, Any]:
    if schema == "ExtractionReply":
        return extraction(prompt)
    if schema == "SameConceptVerdict":
        return {"same": _h(prompt) % 2 == 0, "reason": "decided by a fixed rule of the test server"}
    if schema == "JoinVerdict":
        return {"covers": False, "reason": "fixed rule"}
    if schema == "ParentVerdict":
        return {"create": False, "members": [], "name": "", "description": "", "reason": "fixed rule"}
    return {}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def reply_for(body: dict[str, Any]) -> dict[str, Any]:
    msgs = body.get("messages") or []
    prompt = next((_text(m.get("content")) for m in reversed(msgs) if m.get("role") == "user"), "")
    tools = body.get("tools") or []
    rf = body.get("response_format") or {}
    message: dict[str, Any]
    if tools:
        fn = tools[0]["function"]["name"]
        args = answer(fn, prompt)
        message = {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call_{_h(prompt):08x}", "type": "function",
            "function": {"name": fn, "arguments": json.dumps(args)},
        }]}
    else:
        name = (rf.get("json_schema") or {}).get("name", "")
        if not name:  # json_object mode: the schema is named in the prompt text
            name = next((n for n in ("ExtractionReply", "SameConceptVerdict", "ParentVerdict", "JoinVerdict")
                         if n in json.dumps(msgs)), "ExtractionReply")
        message = {"role": "assistant", "content": json.dumps(answer(name, prompt))}
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tools else "stop"}],
        "usage": {"prompt_tokens": max(1, len(prompt) // 4), "completion_tokens": 50,
                  "total_tokens": max(1, len(prompt) // 4) + 50},
    }


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        data = json.dumps(reply_for(body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # /v1/models, used by some clients as a health check
        data = json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def main() -> None:
    port = int(sys.argv[1])
    ThreadingHTTPServer.allow_reuse_address = True
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print("ready", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
