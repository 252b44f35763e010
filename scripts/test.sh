#!/usr/bin/env bash
# The test command: lint, then the whole suite (e2e tests skip themselves when Neo4j/GROBID are absent).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check .
exec .venv/bin/python -m pytest -q "$@"
