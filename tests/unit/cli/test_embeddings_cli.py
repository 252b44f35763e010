"""`motivgraph embeddings export|info` in process, against an ONNX directory of the test's own (the
real export, linked in; nothing is exported unless the setup's export is missing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.embeddings import onnx_export, open_onnx
from motivgraph.errors import EmbeddingError
from motivgraph.settings import EmbeddingSettings

runner = CliRunner()


@pytest.fixture(scope="module")
def export_dir() -> Path:
    try:
        emb = open_onnx(EmbeddingSettings(backend="onnx"), check=False)
    except EmbeddingError as e:
        pytest.skip(f"the ONNX file cannot be built here: {e}")
    return Path(emb.path).parent  # type: ignore[attr-defined]


@pytest.fixture
def env(tmp_path: Path, export_dir: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.delenv("MOTIVGRAPH_EMBEDDING_BACKEND", raising=False)
    mine = tmp_path / "onnx" / export_dir.name
    mine.mkdir(parents=True)
    for name in (onnx_export.FP32_FILE, onnx_export.META_FILE):
        (mine / name).symlink_to(export_dir / name)
    return {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "MOTIVGRAPH_EMBEDDING_ONNX_DIR": str(tmp_path / "onnx")}


def test_export_keeps_a_current_export_and_checks_it_against_torch(env: dict[str, str], tmp_path: Path) -> None:
    res = runner.invoke(app, ["embeddings", "export", "--no-int8", "--json"], env=env)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["exported"] is False and out["min_cosine_vs_torch"]["fp32"] >= 0.9999
    assert out["files"]["fp32"] == str(tmp_path / "onnx" / "all-MiniLM-L6-v2" / onnx_export.FP32_FILE)


def test_info_names_the_backend_that_runs(env: dict[str, str]) -> None:
    res = runner.invoke(app, ["embeddings", "info", "--json"], env=env)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["configured"] == out["backend"] == "onnx" and out["dim"] == 384
    assert out["bulk_precision"] == "auto" and out["index_builds_in"] in ("bf16", "fp32")


def test_info_says_what_index_builds_embed_in(env: dict[str, str]) -> None:
    fp32 = {**env, "MOTIVGRAPH_EMBEDDING_BULK_PRECISION": "fp32"}
    res = runner.invoke(app, ["embeddings", "info", "--json"], env=fp32)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["index_builds_in"] == "fp32"
    res = runner.invoke(app, ["embeddings", "info"], env={**env, "MOTIVGRAPH_EMBEDDING_BULK_PRECISION": "bf16"})
    assert res.exit_code == 0, res.output
    assert "index builds embed in bf16" in res.output


def test_int8_backend_is_refused_with_the_reason(env: dict[str, str]) -> None:
    if onnx_export.INT8_GATE_PASSED:
        pytest.skip("the int8 recipe passed its gate")
    res = runner.invoke(app, ["embeddings", "info"], env={**env, "MOTIVGRAPH_EMBEDDING_BACKEND": "onnx-int8"})
    assert res.exit_code == 3
    assert "onnx-int8" in res.output and "bench_embeddings" in res.output
