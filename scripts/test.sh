#!/usr/bin/env bash
# The test command: lint, layer contract, types, then the whole suite (e2e tests skip themselves when
# Neo4j/GROBID are absent). Extra arguments go to pytest (e.g. `-m real_llm`, `tests/unit`).
#   --static-only   run ruff, the layer contract, mypy and the docs build, no tests
#   --skip-static   run only pytest (the static checks already ran, e.g. in .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
static=1 tests=1
case "${1:-}" in
  --static-only) tests=0; shift ;;
  --skip-static) static=0; shift ;;
esac
if [ "$static" = 1 ]; then
  .venv/bin/ruff check .
  # import-linter and mypy read packages from disk: give them the installed `motivgraph.<layer>` shape.
  NS="$(.venv/bin/python scripts/namespace_tree.py)"
  (cd "$NS" && ../../.venv/bin/lint-imports --config ../../.importlinter --no-cache)
  # mypy over every layer ([tool.mypy] in pyproject.toml); its cache under build/ keeps a re-run to seconds
  (cd "$NS" && ../../.venv/bin/mypy --config-file ../../pyproject.toml --cache-dir ../mypy_cache -p motivgraph)
  # the docs site (mkdocs.yml) into build/site: a broken link or anchor, a page missing from the nav or a
  # reference page that fails to generate from the code (scripts/docs_reference.py) fails here
  .venv/bin/mkdocs build --strict --quiet
fi
if [ "$tests" = 1 ]; then
  exec .venv/bin/python -m pytest -q "$@"
fi
