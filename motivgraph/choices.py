"""The closed sets of values a setting, a CLI option and a request field share, declared once.

The settings tree (motivgraph/settings.py) types its fields with these; CLI options use the same names (typer
turns a Literal into a choice whose error names the valid values), as do request models and signatures. They
live apart from settings.py because a command's `--help` must not import pydantic (tests/unit/cli/
test_lazy_imports.py), while typer needs an option's type when it builds the command.
"""

from __future__ import annotations

from typing import Literal

# How a PDF becomes a Paper: GROBID when configured and alive (auto), GROBID only, or the offline parser.
ParserName = Literal["auto", "grobid", "pdf"]
GraphBackend = Literal["falkordb", "neo4j"]
EmbeddingBackend = Literal["torch", "onnx", "onnx-int8"]
IndexBackend = Literal["faiss", "neo4j"]
IndexKind = Literal["auto", "exact", "hnsw"]
# The node types `motivgraph parents build` adds parent nodes over (solutions get none).
ParentKind = Literal["problem", "challenge"]
# Where `ingest` and `reindex` run their per-document work: this process, or Ray tasks (motivgraph.ray_cluster).
Engine = Literal["local", "ray"]

__all__ = ["EmbeddingBackend", "Engine", "GraphBackend", "IndexBackend", "IndexKind", "ParentKind", "ParserName"]
