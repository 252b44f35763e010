"""The reproducibility record of a run: what would be needed to run it again and compare.

Model id, provider and endpoint per LLM role; sha256 of every prompt template the method declares;
the settings snapshot with every secret masked; seeds; code version (package version, git commit
and whether the tree had local changes); Python and platform. Written to `repro.json` and rendered
at the end of `summary.md`.
"""

from __future__ import annotations

import hashlib
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from motivgraph import __version__
from motivgraph.errors import MotivGraphError

MASK = "***"
_SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "credential")


def mask_secrets(obj: Any) -> Any:
    """A copy with every value under a secret-looking key masked (SecretStr already dumps masked)."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            secret = any(w in str(k).lower() for w in _SECRET_WORDS) and not isinstance(v, dict | list | bool)
            out[k] = (MASK if v not in (None, "") else v) if secret else mask_secrets(v)
        return out
    if isinstance(obj, list):
        return [mask_secrets(v) for v in obj]
    return obj


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def code_version() -> dict[str, Any]:
    out: dict[str, Any] = {"package": __version__, "git_commit": None, "git_dirty": None}
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
        if commit.returncode == 0:
            out["git_commit"] = commit.stdout.strip()
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                   capture_output=True, text=True, timeout=5)
            out["git_dirty"] = bool(dirty.stdout.strip()) if dirty.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        pass
    return out


def model_record(llm: Any, roles: list[str]) -> dict[str, dict[str, Any]]:
    """Per role: model id, provider, endpoint — or the reason there is none (no call is made)."""
    from motivgraph.agents.core.llm import account_role  # local: light CLI path (`runs list` loads no LangChain)

    out: dict[str, dict[str, Any]] = {}
    for role in roles:
        try:
            spec = llm.spec(account_role(llm, role))
            out[role] = {"model_id": spec.model_id, "provider": spec.provider, "base_url": spec.base_url,
                         "temperature": spec.temperature, "max_tokens": spec.max_tokens}
        except MotivGraphError as e:
            out[role] = {"model_id": None, "error": str(e)}
    return out


def build_record(*, settings: Any, llm: Any, method: Any, roles: list[str], seed: int,
                 argv: list[str] | None = None) -> dict[str, Any]:
    prompts = method.prompt_templates()
    return {
        "method": type(method).name,
        "models": model_record(llm, roles),
        "prompt_templates": {name: sha256(text) for name, text in sorted(prompts.items())},
        "settings": mask_secrets(settings.model_dump(mode="json")),
        "seeds": {"run": seed, "llm_temperature": settings.llm.temperature},
        "code": code_version(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "argv": list(argv) if argv is not None else None,
    }


def render_markdown(rec: dict[str, Any]) -> str:
    lines = ["## Reproducibility", ""]
    for role, m in rec.get("models", {}).items():
        where = f" at {m['base_url']}" if m.get("base_url") else ""
        lines.append(f"- {role}: {m.get('model_id') or 'no model'}{where}")
    code = rec.get("code", {})
    lines.append(f"- code: motivgraph {code.get('package')} commit {code.get('git_commit') or 'unknown'}"
                 + (" (with local changes)" if code.get("git_dirty") else ""))
    lines.append(f"- seeds: {rec.get('seeds')}")
    for name, h in rec.get("prompt_templates", {}).items():
        lines.append(f"- prompt {name}: sha256 {h[:16]}…")
    lines.append("- settings snapshot (secrets masked): repro.json")
    return "\n".join(lines) + "\n"
