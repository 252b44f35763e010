#!/usr/bin/env bash
# The test command: lint, layer contract, then the whole suite (e2e tests skip themselves when
# Neo4j/GROBID are absent). Extra arguments go to pytest (e.g. `-m real_llm`, `tests/unit`).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check .
# import-linter and mypy read packages from disk: give them the installed `motivgraph.<layer>` shape.
NS="$(.venv/bin/python scripts/namespace_tree.py)"
(cd "$NS" && ../../.venv/bin/lint-imports --config ../../.importlinter --no-cache)
exec .venv/bin/python -m pytest -q "$@"
