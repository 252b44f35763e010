"""The README says what leaves the machine for every configured service and every LLM role, names only
settings that exist, and gives a fully local setup."""

from __future__ import annotations

import re
from pathlib import Path

from motivgraph.settings import LLM_ROLES, Settings

README = Path(__file__).resolve().parents[3] / "README.md"


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    assert "## What leaves your machine" in text
    return text.split("## What leaves your machine", 1)[1].split("\n## ", 1)[0]


def test_every_outbound_service_and_llm_role_is_covered() -> None:
    sec = _section()
    for setting in ("MOTIVGRAPH_LLM_MODEL", "MOTIVGRAPH_LLM_ROLES", "MOTIVGRAPH_S2_ENABLED",
                    "MOTIVGRAPH_INGEST_GROBID_URL", "graph push", "MOTIVGRAPH_API_API_KEY"):
        assert setting in sec, setting
    for role in LLM_ROLES:
        assert f"`{role}`" in sec, f"role {role} not in the egress table"
    for what in ("title, abstract, introduction", "literature_search", "every PDF"):
        assert what in sec, what


def test_the_fully_local_setup() -> None:
    sec = _section()
    local = sec.split("Fully local setup", 1)[1]
    assert "local:smollm2" in local and "ollama:" in local and "127.0.0.1" in local
    assert "unset MOTIVGRAPH_S2_ENABLED" in local and "motivgraph llm roles" in local


def test_settings_named_in_the_section_exist() -> None:
    fields = Settings.model_fields
    for name in set(re.findall(r"MOTIVGRAPH_([A-Z0-9_]+)", _section())):
        section, _, field = name.lower().partition("_")
        if section in fields and field:
            sub = fields[section].annotation
            assert field in sub.model_fields, f"MOTIVGRAPH_{name} is not a setting"  # type: ignore[union-attr]
        else:
            assert name.lower() in fields, f"MOTIVGRAPH_{name} is not a setting"
