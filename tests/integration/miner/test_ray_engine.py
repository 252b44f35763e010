"""`ingest --engine ray` and `reindex --engine ray` against the local engine, on a local 2-CPU Ray started
once for this module (the commands join it: motivgraph.ray_cluster.ray_session reuses a running Ray).

The Ray engine writes in the plan's order (miner/ray_engine.PlanOrder), so its graph is compared with a
sequential local run (`--concurrency 1`): the same canonical export (every line of `graph export`,
timestamps removed) and the same ledger, with the offline extractor and with a scripted chat model.
Skipped, loudly, without Ray; with MOTIVGRAPH_REQUIRE_RAY=1 (CI) a skip fails.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.errors import ConfigError
from motivgraph.miner.ingest_job import IngestRequest, IngestRun, run_ingest_command
from motivgraph.settings import GraphSettings, Settings
from tests.conftest import CORPUS_DIR
from tests.fixtures.ingest.pdfgen import write_paper
from tests.integration.miner.ray_scripted import script_file
from tests.reliability.harness import canonical_lines

pytestmark = [pytest.mark.ray, pytest.mark.slow]

CORPUS_PDF = CORPUS_DIR / "pdf"


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    from motivgraph.ray_cluster import import_ray

    try:
        ray = import_ray()
    except ConfigError as e:
        pytest.skip(f"RAY IS NOT INSTALLED, the Ray engine is NOT tested: {e}")
    if not CORPUS_PDF.is_dir():
        pytest.skip(f"the shared corpus is not at {CORPUS_PDF}")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        yield
    finally:
        ray.shutdown()


def _settings(tmp: Path, falkordb_url: str, name: str, model: Path | None = None) -> Settings:
    s = Settings(data_dir=tmp / name, graph=GraphSettings(), _env_file=None)  # type: ignore[call-arg]
    s.graph.falkordb_url, s.graph.name = falkordb_url, f"t_{uuid.uuid4().hex[:12]}"
    if model is not None:
        s.llm.model = f"scripted:{model}"
    return s


def _ingest(settings: Settings, engine: str, limit: int | None = None) -> IngestRun:
    req = IngestRequest(paths=[str(CORPUS_PDF)], parser="pdf", engine=engine, limit=limit,
                        concurrency=1 if engine == "local" else None)
    return asyncio.run(run_ingest_command(req, settings))


def _snapshot(settings: Settings) -> tuple[list[str], list[tuple[Any, ...]]]:
    from motivgraph.graph import open_store
    from motivgraph.graph.interchange import export_lines
    from motivgraph.ingest.ledger import Ledger

    store = open_store(settings, ensure_schema=False)
    try:
        lines = canonical_lines(list(export_lines(store)))
    finally:
        store.close()
    led = Ledger.for_data_dir(settings.data_dir)
    try:
        return lines, led.snapshot()
    finally:
        led.close()


def _same_graph(local: Settings, on_ray: Settings) -> tuple[list[str], IngestRun, IngestRun]:
    run_l = _ingest(local, "local")
    run_r = _ingest(on_ray, "ray")
    assert run_l.stopped is None and run_r.stopped is None
    export_l, ledger_l = _snapshot(local)
    export_r, ledger_r = _snapshot(on_ray)
    assert export_r == export_l, "the Ray ingest's canonical export differs from the local engine's"
    assert ledger_r == ledger_l
    return export_l, run_l, run_r


@pytest.fixture(scope="module")
def offline_pair(ray_cluster: None, falkordb_server: Any, tmp_path_factory: pytest.TempPathFactory,
                 ) -> tuple[Settings, Settings, list[str], IngestRun, IngestRun]:
    """The shared corpus ingested with the offline parser and extractor, locally and on Ray."""
    tmp = tmp_path_factory.mktemp("ray_offline")
    local, on_ray = _settings(tmp, falkordb_server.url, "local"), _settings(tmp, falkordb_server.url, "ray")
    export, run_l, run_r = _same_graph(local, on_ray)
    return local, on_ray, export, run_l, run_r


def test_offline_ray_ingest_equals_the_local_engine(offline_pair: Any) -> None:
    _local, _on_ray, export, run_l, run_r = offline_pair
    assert _node_keys(export), "the corpus gave no nodes: the comparison is empty"
    s_l, s_r = run_l.summary, run_r.summary
    # what the user is shown is the local engine's, apart from where the work ran
    assert (s_r.processed, s_r.ok, s_r.failed, s_r.parsed) == (s_l.processed, s_l.ok, s_l.failed, s_l.parsed)
    assert s_r.ok > 0 and run_l.engine is None
    assert run_r.engine is not None and "Ray" in run_r.engine and "on Ray" in s_r.parser
    assert dict(run_r.miner_rows)["triples stored"] == dict(run_l.miner_rows)["triples stored"] != "0"
    assert [(o.path, o.state, o.reason) for o in s_r.outcomes if o.state == "failed"] == \
        [(o.path, o.state, o.reason) for o in s_l.outcomes if o.state == "failed"]


def test_a_rerun_on_ray_resumes_from_the_ledger_and_does_nothing(offline_pair: Any) -> None:
    _local, on_ray, export, _run_l, _run_r = offline_pair
    again = _ingest(on_ray, "ray")
    assert again.summary.processed == again.summary.ok + again.summary.failed
    assert again.summary.to_process == 0 and again.engine is None  # nothing to do: no cluster work at all
    assert _snapshot(on_ray)[0] == export


def test_scripted_model_ray_ingest_equals_the_local_engine(ray_cluster: None, falkordb_server: Any,
                                                           tmp_path: Path) -> None:
    """The LLM miner: extraction calls on the workers (their usage added up on the driver), the resolver's
    calls on the driver; the same graph as the local engine."""
    model = script_file(tmp_path / "model.json")
    local = _settings(tmp_path, falkordb_server.url, "local", model)
    on_ray = _settings(tmp_path, falkordb_server.url, "ray", model)
    _export, run_l, run_r = _same_graph(local, on_ray)
    assert run_r.extractor == run_l.extractor == "llm"
    rows_l, rows_r = dict(run_l.miner_rows), dict(run_r.miner_rows)
    for row in ("papers extracted", "triples stored", "LLM calls (cache hits)", "tokens in / out"):
        assert rows_r[row] == rows_l[row], row
    assert rows_r["LLM calls (cache hits)"] != "0 (0)"


def _node_keys(export: list[str]) -> list[str]:
    return [d["key"] for d in map(json.loads, export) if d.get("kind") == "node"]


def _index_vectors(settings: Settings, keys: list[str]) -> dict[str, np.ndarray]:
    from motivgraph.graph.runtime import Runtime

    rt = Runtime(settings)
    try:
        return rt.node_index.vectors_of(keys)
    finally:
        rt.close()


def test_reindex_on_ray_gives_the_local_build_vectors(offline_pair: Any) -> None:
    local, on_ray, export, _run_l, _run_r = offline_pair
    runner = CliRunner()

    def reindex(s: Settings, *extra: str) -> None:
        env = {"MOTIVGRAPH_DATA_DIR": str(s.data_dir), "MOTIVGRAPH_GRAPH_FALKORDB_URL": s.graph.falkordb_url or "",
               "MOTIVGRAPH_GRAPH_NAME": s.graph.name}
        r = runner.invoke(app, ["reindex", "--re-embed", "--no-papers", *extra], env=env)
        assert r.exit_code == 0, r.output

    reindex(local)
    reindex(on_ray, "--engine", "ray")
    keys = _node_keys(export)
    vl, vr = _index_vectors(local, keys), _index_vectors(on_ray, keys)
    assert len(vl) == len(keys) and vl.keys() == vr.keys()
    a, b = np.vstack([vl[k] for k in keys]), np.vstack([vr[k] for k in keys])
    assert np.allclose(a, b, atol=1e-5), f"largest difference {np.abs(a - b).max():.2e}"


def test_ray_embedder_splits_a_batch_over_the_workers_in_order(ray_cluster: None, embedder: Any) -> None:
    from motivgraph.embeddings.ray_bulk import RayEmbedder
    from motivgraph.settings import EmbeddingSettings

    texts = [f"node {i}: a description of concept number {i}" for i in range(300)]
    ray_emb = RayEmbedder(EmbeddingSettings(), workers=2, max_batch=2048, retries=1)
    assert (ray_emb.model_name, ray_emb.dim, ray_emb.backend) == (embedder.model_name, embedder.dim, embedder.backend)
    got, _precision = ray_emb.embed_bulk(texts)
    assert got.shape == (300, embedder.dim)
    assert np.allclose(got, embedder.embed(texts), atol=1e-5)  # row i is text i, across the two batches
    assert ray_emb.embed([]).shape == (0, embedder.dim)


def test_a_spent_budget_stops_the_ray_ingest_and_a_rerun_resumes(ray_cluster: None, falkordb_server: Any,
                                                                 tmp_path: Path) -> None:
    """The workers' spend is added up on the driver and each task gets what is left: a spent budget stops
    the run (resumable, nothing marked failed), and the re-run finishes to the local engine's graph."""
    from motivgraph.errors import BudgetExceeded
    from motivgraph.ingest.ledger import Ledger

    model = script_file(tmp_path / "model.json")
    local = _settings(tmp_path, falkordb_server.url, "local", model)
    on_ray = _settings(tmp_path, falkordb_server.url, "ray", model)
    on_ray.llm.prices = {str(model): (1000.0, 1000.0)}  # dollars per million tokens: one extraction ~ $2
    req = IngestRequest(paths=[str(CORPUS_PDF)], parser="pdf", engine="ray", budget_usd=0.5)
    stopped = asyncio.run(run_ingest_command(req, on_ray))
    assert isinstance(stopped.stopped, BudgetExceeded)
    spent = float(dict(stopped.miner_rows)["estimated cost"].lstrip("$"))
    assert spent > 0.5  # the workers' calls reached the driver's account
    led = Ledger.for_data_dir(on_ray.data_dir)
    try:
        failures = [row.error or "" for rows in led.failures_by_reason().values() for row in rows]
        stored = led.counts().get("stored", 0)
    finally:
        led.close()
    assert not any("budget" in e.lower() for e in failures), failures  # a spent budget fails no document
    assert stored < len(list(CORPUS_PDF.glob("*.pdf")))  # it did stop early
    on_ray.llm.prices = {}
    resumed = _ingest(on_ray, "ray")
    assert resumed.stopped is None and resumed.summary.processed > 0
    _ingest(local, "local")
    assert _snapshot(on_ray) == _snapshot(local)


def test_the_cli_runs_the_ray_engine_and_says_so(ray_cluster: None, falkordb_server: Any, tmp_path: Path) -> None:
    s = _settings(tmp_path, falkordb_server.url, "cli")
    # a paper the offline extractor takes triples from: an ingest that stores none from a paper with text ends
    # with the extraction gate's exit 6 (#39), which tests/integration/miner/test_miner_evidence_gate.py pins
    pdf = write_paper(tmp_path / "paper.pdf")
    env = {"MOTIVGRAPH_DATA_DIR": str(s.data_dir), "MOTIVGRAPH_GRAPH_FALKORDB_URL": s.graph.falkordb_url or "",
           "MOTIVGRAPH_GRAPH_NAME": s.graph.name, "MOTIVGRAPH_LLM_MODEL": ""}
    r = CliRunner().invoke(app, ["ingest", str(pdf), "--parser", "pdf", "--engine", "ray", "--json"], env=env)
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout[r.stdout.index("{"):])
    assert out["engine"].startswith("engine: Ray") and out["summary"]["ok"] == 1
    assert "on Ray" in out["summary"]["parser"]


def test_a_worker_that_dies_on_every_try_fails_the_document(ray_cluster: None) -> None:
    """Ray re-runs the task on a new worker `retries` times; then the document is a permanent failure with
    the local engine's reason for a crashed parser, not a hang and not a transient pause."""
    import ray

    from motivgraph.errors import IngestError, ParseError
    from motivgraph.ingest.summary import classify_failure
    from motivgraph.miner.ray_engine import await_task
    from motivgraph.outbound import is_transient
    from tests.integration.miner.ray_scripted import die

    ref = ray.remote(die).options(max_retries=1).remote()
    with pytest.raises(ParseError) as err:
        asyncio.run(await_task(ref, "parsing", 1))
    assert "died while parsing, 2 time(s)" in str(err.value)
    assert classify_failure(err.value) == "parser crashed"
    with pytest.raises(IngestError, match="the Ray worker died while extracting, 1 time") as err2:
        asyncio.run(await_task(ray.remote(die).options(max_retries=0).remote(), "extracting", 0))
    assert classify_failure(err2.value) == "ingest error" and not is_transient(err2.value)
