"""The local model server's bookkeeping (no model needed): presets, state file, stale pids.
Starting a real server is the real-model tier's job (tests/real_llm)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from motivgraph.llm.local import LocalModel, LocalServer, LocalServerState, _pid_alive, all_servers, stop_all


def _model(tmp_path: Path, name: str = "m.gguf") -> LocalModel:
    p = tmp_path / name
    p.write_bytes(b"GGUF")
    return LocalModel(p.stem, p.resolve(), 2048, 256)


def _state(pid: int, port: int = 1) -> LocalServerState:
    return LocalServerState(pid=pid, port=port, model="m", path="/x/m.gguf", context_window=2048, threads=1,
                            api_key="secret-key", started=0.0)


def test_state_file_is_private_and_public_view_hides_the_key(tmp_path: Path) -> None:
    srv = LocalServer(_model(tmp_path), tmp_path / "llm")
    srv.dir.mkdir()
    srv._write_state(_state(12345, 8089))
    assert stat.S_IMODE(srv.statefile.stat().st_mode) == 0o600
    st = srv.read_state()
    assert st is not None and st.base_url == "http://127.0.0.1:8089/v1"
    assert "api_key" not in st.public() and st.public()["base_url"] == st.base_url


def test_stale_state_of_a_dead_or_foreign_pid_is_cleaned_up(tmp_path: Path) -> None:
    srv = LocalServer(_model(tmp_path), tmp_path / "llm")
    srv.dir.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    srv._write_state(_state(dead.pid))
    assert srv.running() is None
    assert srv.stop() is False and not srv.statefile.exists()
    # A live process that is not a llama_cpp.server (e.g. a reused pid) is never ours to stop.
    srv._write_state(_state(os.getpid()))
    assert not _pid_alive(os.getpid())
    assert stop_all(srv.dir) == [] and not srv.statefile.exists()
    assert os.getpid() > 0  # still here


def test_state_keys_differ_per_model_file(tmp_path: Path) -> None:
    a, b = _model(tmp_path, "a.gguf"), _model(tmp_path, "b.gguf")
    assert a.key != b.key and a.key.startswith("a-")
    (tmp_path / "llm").mkdir()
    (tmp_path / "llm" / "broken.json").write_text("{not json")
    assert all_servers(tmp_path / "llm") == [(tmp_path / "llm" / "broken.json", None)]


def test_start_without_llama_cpp_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from motivgraph.errors import ConfigError
    from motivgraph.llm import local

    monkeypatch.setattr(local, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match=r"motivgraph\[local\].*--with-local-llm"):
        LocalServer(_model(tmp_path), tmp_path / "llm").start()


def test_smollm2_preset_caps_the_extractor_prompt_and_the_extractor_input_follows(tmp_path: Path) -> None:
    from motivgraph.llm.factory import resolve_spec
    from motivgraph.miner.extract import LLMExtractor
    from motivgraph.settings import LLMSettings, MinerSettings, RoleOverride

    models = tmp_path / "models"
    models.mkdir()
    (models / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"GGUF")
    llm = LLMSettings(model="local:smollm2", models_dir=models)
    spec = resolve_spec(llm, "extractor", data_dir=tmp_path)
    assert spec.context_tokens == 2500 and resolve_spec(llm, "researcher", data_dir=tmp_path).context_tokens is None
    llm.roles = {"extractor": RoleOverride(context_tokens=7000)}  # an explicit role cap wins
    assert resolve_spec(llm, "extractor", data_dir=tmp_path).context_tokens == 7000

    class Client:  # the extractor asks only for the role's prompt budget
        def __init__(self, budget: int | None) -> None:
            self.budget = budget

        def prompt_budget(self, role: str) -> int | None:
            return self.budget

    cfg = MinerSettings()  # input budget 6000 tokens
    capped = LLMExtractor(Client(2000), cfg).input_cfg.input_token_budget  # type: ignore[arg-type]
    assert 300 <= capped < 2000 - 500  # the instructions and schema take their share of the cap
    assert LLMExtractor(Client(None), cfg).input_cfg is cfg  # type: ignore[arg-type]
    assert LLMExtractor(Client(50_000), cfg).input_cfg is cfg  # type: ignore[arg-type]


def test_local_models_get_a_longer_time_limit_unless_one_is_set(tmp_path: Path) -> None:
    from motivgraph.llm.factory import LOCAL_TIMEOUT_S, resolve_spec
    from motivgraph.settings import LLMSettings

    models = tmp_path / "models"
    models.mkdir()
    (models / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"GGUF")
    assert resolve_spec(LLMSettings(model="local:smollm2", models_dir=models), "extractor",
                        data_dir=tmp_path).timeout_s == LOCAL_TIMEOUT_S > LLMSettings().timeout_s
    explicit = LLMSettings(model="local:smollm2", models_dir=models, timeout_s=30)
    assert resolve_spec(explicit, "extractor", data_dir=tmp_path).timeout_s == 30


def test_an_api_key_starting_with_a_dash_reaches_the_server_as_one_argument(tmp_path: Path) -> None:
    import argparse

    srv = LocalServer(_model(tmp_path), tmp_path / "llm")
    cmd = srv._command(8089, "-Xq_key")  # token_urlsafe draws "-" first in 1 of 64 keys
    parser = argparse.ArgumentParser()
    for opt in ("--model", "--model_alias", "--host", "--port", "--n_ctx", "--n_threads", "--n_threads_batch",
                "--api_key", "--cache", "--cache_size"):
        parser.add_argument(opt)
    args = parser.parse_args(cmd[3:])  # after python -m <module>
    assert args.api_key == "-Xq_key" and args.port == "8089"
