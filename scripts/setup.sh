#!/usr/bin/env bash
# One-shot setup: creates .venv and installs MotivGraph with every backend and test dependency,
# pinned by requirements.lock. torch is pinned to the CPU build first so nothing pulls a CUDA wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade "pip>=24"
.venv/bin/python -m pip install --quiet "torch==2.13.0"
.venv/bin/python -m pip install --quiet -c requirements.lock -e ".[all,dev]"
echo "MotivGraph installed in .venv — try: .venv/bin/motivgraph --help"
