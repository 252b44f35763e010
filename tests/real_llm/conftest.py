"""The real-model tier: tests against SmolLM2-135M served by llama-cpp-python on loopback.

Selected only with `pytest -m real_llm` (`.ci/run` does it after `./scripts/setup.sh --with-local-llm`);
a plain run skips these tests and says why. They check mechanics — schema-valid replies, named
failures, real usage, the cache, the budget stop — never quality: a 135M model writes toy text.

One model server per test session (`local_llm`), in a session state dir every test's data dir
points at (MOTIVGRAPH_LLM_LOCAL_DIR), so CLI subprocesses reuse it. Inputs are kept small (input
token budget, few triples, small tool budgets) so the tier fits in minutes on 2 cores.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path

import pytest

from motivgraph.llm.local import PRESETS, LocalServer, models_dirs, resolve_local

SETUP_HINT = "run ./scripts/setup.sh --with-local-llm"
REQUIRE = os.environ.get("MOTIVGRAPH_REQUIRE_REAL_LLM") == "1"  # .ci/run: a missing model is a failure


def _selected(config: pytest.Config) -> bool:
    return "real_llm" in (config.getoption("markexpr", "") or "") or os.environ.get("MOTIVGRAPH_REAL_LLM") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _selected(config):
        return
    skip = pytest.mark.skip(reason="real-model tier (SmolLM2 via llama.cpp): select it with `pytest -m real_llm` "
                                   "after `./scripts/setup.sh --with-local-llm`")
    for item in items:
        if "real_llm" in item.keywords:
            item.add_marker(skip)


def _missing() -> str | None:
    if find_spec("llama_cpp") is None:
        return f"llama-cpp-python[server] is not installed ({SETUP_HINT})"
    name = PRESETS["smollm2"].filename
    if not any((d / name).is_file() for d in models_dirs(Path("/nonexistent"))):
        return f"the model file {name} is not installed ({SETUP_HINT})"
    return None


@pytest.fixture(scope="session")
def local_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The session's model server, started once; yields its state dir (MOTIVGRAPH_LLM_LOCAL_DIR)."""
    why = _missing()
    if why:
        if REQUIRE:
            pytest.fail(f"real-model tier required (MOTIVGRAPH_REQUIRE_REAL_LLM=1) but {why}")
        pytest.skip(why)
    state = tmp_path_factory.mktemp("llm-server")
    server = LocalServer(resolve_local("smollm2", state), state, port=0)
    server.start()
    try:
        yield state
    finally:
        with contextlib.suppress(Exception):
            server.stop()
