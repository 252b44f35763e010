"""docs/neo4j/motivgraph.grass (the Neo4j Browser style): well formed, one style per schema label, captions
naming properties the nodes really have."""

from __future__ import annotations

import re
from pathlib import Path

from motivgraph.graph.queries import NODE_LABELS

GRASS = Path(__file__).resolve().parents[3] / "docs" / "neo4j" / "motivgraph.grass"


def _rules() -> dict[str, dict[str, str]]:
    text = GRASS.read_text(encoding="utf-8")
    assert text.count("{") == text.count("}"), "unbalanced braces"
    rules: dict[str, dict[str, str]] = {}
    for selector, body in re.findall(r"^([\w.]+)\s*\{\n(.*?)^\}", text, re.S | re.M):
        props = dict(re.findall(r"^\s*([\w-]+):\s*(.+?);\s*$", body, re.M))
        assert props, f"empty rule {selector}"
        rules[selector] = props
    return rules


def test_grass_styles_every_label_with_a_real_caption() -> None:
    rules = _rules()
    assert {"node", "relationship"} <= set(rules)
    captions = {"Problem": "{name}", "Challenge": "{name}", "Solution": "{name}", "Paper": "{title}"}
    for label in (*NODE_LABELS, "Paper"):
        rule = rules[f"node.{label}"]
        assert rule["caption"].strip('"') == captions[label]
        assert re.fullmatch(r"#[0-9A-Fa-f]{6}", rule["color"])
    colours = {rules[f"node.{lb}"]["color"] for lb in (*NODE_LABELS, "Paper")}
    assert len(colours) == 4  # each label tells itself apart
