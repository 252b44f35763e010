"""The closed sets of values a setting, a CLI option and a request field share, declared once.

The settings tree (motivgraph/settings.py) types its fields with these; CLI options use the same names (typer
turns a Literal into a choice whose error names the valid values), as do request models and signatures. They
live apart from settings.py because a command's `--help` must not import pydantic (tests/unit/cli/
test_lazy_imports.py), while typer needs an option's type when it builds the command.
"""

from __future__ import annotations

from typing import Literal, get_args

# How a PDF becomes a Paper: GROBID when configured and alive (auto), GROBID only, or the offline parser.
ParserName = Literal["auto", "grobid", "pdf"]
GraphBackend = Literal["falkordb", "neo4j"]
EmbeddingBackend = Literal["torch", "onnx", "onnx-int8"]
IndexBackend = Literal["faiss", "neo4j"]
# The FAISS structure of an index part; the setting and `reindex --kind` may also say "auto": by the node count
# (graph/faiss_groups.py `choose_kind`), which a built part never records.
IndexKind = Literal["exact", "hnsw"]
IndexKindChoice = Literal["auto", IndexKind]
# The three node types of a (problem, challenge, solution) triple: a node's type and a triple's element alike.
NodeType = Literal["problem", "challenge", "solution"]
NODE_TYPES: tuple[NodeType, ...] = get_args(NodeType)  # in this order wherever the three are listed
# The node types `motivgraph parents build` adds parent nodes over (solutions get none).
ParentKind = Literal["problem", "challenge"]
# How an agent calls tools: the model's native tool calls, the text <CALL> protocol, or JSON actions under
# schema-constrained decoding. A run's config or the settings may also say "auto": by the model (agents.core.llm).
ToolMode = Literal["native", "text", "constrained"]
ToolModeChoice = Literal["auto", ToolMode]
# How a structured LLM call asks for its schema (motivgraph/llm/dialects.py builds each); "auto" in the setting:
# by the model (motivgraph/llm/client.py `structured_method`).
StructuredMethod = Literal["constrained", "tool", "json_mode", "text"]
StructuredMethodChoice = Literal["auto", StructuredMethod]
# The outbound literature sources `literature_search` can try (MOTIVGRAPH_LITERATURE_SOURCES orders them); the
# local corpus is no outbound source: the tool contract adds it (api/contract/models.py `PaperSource`).
LiteratureSource = Literal["semantic_scholar", "openalex", "arxiv"]
# Where `ingest` and `reindex` run their per-document work: this process, or Ray tasks (motivgraph.ray_cluster).
Engine = Literal["local", "ray"]

__all__ = [
    "NODE_TYPES",
    "EmbeddingBackend",
    "Engine",
    "GraphBackend",
    "IndexBackend",
    "IndexKind",
    "IndexKindChoice",
    "LiteratureSource",
    "NodeType",
    "ParentKind",
    "ParserName",
    "StructuredMethod",
    "StructuredMethodChoice",
    "ToolMode",
    "ToolModeChoice",
]
