"""Tool-API benchmark on the paper-scale synthetic graph: latency of node_search, node_relation and
random_nodes in process and over HTTP (uvicorn on 127.0.0.1), then throughput under a mixed
concurrent load sent from a second process on loopback (bounded in count and time). Also times the
raw store queries the tools are made of, so a slow layer can be told apart. Prints figures; asserts
nothing about time.

    .venv/bin/python -m bench.bench_api                       # full scale: builds the graph (slow)
    .venv/bin/python -m bench.bench_api --scale 0.05          # quick run
    .venv/bin/python -m bench.bench_api --data /tmp/mg-api    # build once there, reuse on later runs
    .venv/bin/python -m bench.bench_api --workers 2 --backends torch,onnx --vectors synthetic

Beside each figure, its floor or baseline from the same run: node_search over HTTP beside query
embed + FAISS alone + a trivial FastAPI round trip (GET /health/live); the mixed load beside the
same load of GET /health/live on the same server. `--backends` serves with each embedding backend
in turn (before/after in one run); `--vectors synthetic` fills the node index from bench_scale's
word-model vectors instead of embedding every node (the latency figures hold, the hits do not).

Targets (2-core machine, over HTTP): node_search p50 < 25 ms, node_relation and random_nodes
p50 < 15 ms, mixed load >= 200 requests/s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.synthetic import METHOD_NOUN, PHENOMENA, PLACES, TASKS, SyntheticGraph
from motivgraph.api.contract.tools import NODE_RELATION, NODE_SEARCH, RANDOM_NODES
from motivgraph.graph import open_store
from motivgraph.graph.embedded import EmbeddedFalkorDB

GRAPH_NAME = "bench_api"
TARGETS_MS = {"node_search": 25.0, "node_relation": 15.0, "random_nodes": 15.0}
MIX = (("node_search", 0.4), ("node_relation", 0.3), ("random_nodes", 0.3))
TRIVIAL = "_live"  # the load baseline: GET /health/live, the same HTTP stack with no tool work


def say(msg: str) -> None:
    print(msg, flush=True)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


def summary(ms: list[float]) -> dict[str, float]:
    return {"n": len(ms), "p50_ms": pct(ms, 50), "p99_ms": pct(ms, 99), "mean_ms": statistics.fmean(ms)}


# ------------------------------------------------------------------------------------ workload


def queries(rng: random.Random, n: int) -> list[str]:
    """Search phrases in the graph's vocabulary, in the shapes an agent types."""
    shapes = [
        lambda: f"{rng.choice(PHENOMENA)} {rng.choice(PLACES)}",
        lambda: f"{rng.choice(METHOD_NOUN)} for {rng.choice(TASKS)}",
        lambda: rng.choice(TASKS),
        lambda: f"how to reduce {rng.choice(PHENOMENA)}",
    ]
    return [rng.choice(shapes)() for _ in range(n)]


def unique_queries(rng: random.Random, n: int) -> list[str]:
    out: dict[str, None] = {}
    while len(out) < n:
        q = queries(rng, 1)[0]
        if q in out:
            q = f"{q} {rng.choice(PLACES)}"
        out[q] = None
    return list(out)


def request_bodies(rng: random.Random, names: list[str], n: int) -> dict[str, list[dict[str, Any]]]:
    return {
        "node_search": [{"query": q, "k": 10} for q in unique_queries(rng, n)],
        "node_relation": [{"names": [rng.choice(names)]} for _ in range(n)],
        "random_nodes": [{"n": 10, "seed": rng.randrange(2**31)} for _ in range(n)],
    }


# ------------------------------------------------------------------------------------ graph


def build_or_reuse(data_dir: Path, scale: float, seed: int, server_url: str, vectors: str = "embed") -> dict[str, Any]:
    from motivgraph.embeddings import get_embedder  # local: onnxruntime, off the bench's --help path
    from motivgraph.graph.paper_index import PaperIndex  # local: faiss, off the bench's --help path
    from motivgraph.graph.vector_index import NodeIndex  # local: faiss, off the bench's --help path
    from motivgraph.settings import EmbeddingSettings  # local: the settings tree, off the bench's --help path

    settings = make_settings(data_dir, server_url)
    store = open_store(settings)
    emb = get_embedder(EmbeddingSettings())
    marker = data_dir / "bench_api.json"
    try:
        info = json.loads(marker.read_text()) if marker.exists() else None
        same = (info and info.get("scale") == scale and info.get("seed") == seed
                and info.get("vectors", "embed") == vectors)
        if same and store.stats().triples > 0:
            store.close()
            restamp_for(settings, None)  # an earlier --backends run may have left it stamped for another
            store = open_store(settings)
            idx = NodeIndex.open(settings, store, emb)
            if info is not None and idx.status().state == "ok":
                say(f"reusing the graph in {data_dir} ({info['graph']})")
                return dict(info)
        say(f"building the synthetic graph (scale {scale}) in {data_dir} — once; later runs reuse it")
        t0 = time.perf_counter()
        g = SyntheticGraph(scale=scale, seed=seed)
        store.clear()
        store.ensure_schema()
        store.upsert_papers(g.papers)
        for i, batch in enumerate(g.triple_batches(500)):
            store.upsert_triples(batch)
            if i % 20 == 19:
                say(f"  triples {(i + 1) * 500}/{len(g.triples)}  {time.perf_counter() - t0:.0f}s")
        for i in range(0, len(g.parents), 500):
            store.add_parents(g.parents[i : i + 500])
        t_up = time.perf_counter() - t0
        t1 = time.perf_counter()
        if vectors == "synthetic":
            say(f"  upserted in {t_up:.0f}s; node index from SYNTHETIC word-model vectors…")
            synthetic_node_index(settings, store, emb, seed)
        else:
            say(f"  upserted in {t_up:.0f}s; embedding the nodes…")
            NodeIndex.open(settings, store, emb).rebuild()
            PaperIndex.open(settings, store, emb).rebuild()
        info = {"scale": scale, "seed": seed, "graph": g.summary(), "upsert_s": t_up, "vectors": vectors,
                "index_s": time.perf_counter() - t1}
        marker.write_text(json.dumps(info))
        say(f"  indexed in {info['index_s']:.0f}s")
        return info
    finally:
        store.close()


def synthetic_node_index(settings: Any, store: Any, emb: Any, seed: int) -> None:
    """The node index with word-model vectors instead of embeddings (minutes instead of an hour on a
    loaded 2-core machine): same sizes, same FAISS kinds and parameters, so search and API latency are
    representative; which nodes a query finds is not. Query embedding at request time stays real."""
    import numpy as np  # local: numpy, off the bench's --help path

    from bench.synthetic_vectors import WordVectors, make_group, vectorise  # local: numpy, off the bench's --help path
    from motivgraph.graph.faiss_groups import (  # local: faiss, off the bench's --help path
        Group,
        build_faiss,
        choose_kind,
    )
    from motivgraph.graph.vector_index import NodeIndex  # local: faiss, off the bench's --help path

    wv = WordVectors(seed)
    rng = np.random.default_rng(seed)
    groups = {}
    for g in NodeIndex.GROUPS:
        nodes = list(store.iter_nodes(types=[g]))
        vecs = vectorise(wv, [n.name for n in nodes], [n.description for n in nodes], rng)
        kind = choose_kind(settings.index, len(nodes))
        groups[g] = make_group(Group, [n.key for n in nodes], [n.name for n in nodes], [n.level for n in nodes],
                               vecs, kind, build_faiss(vecs, kind, settings.index, vecs.shape[1]))
    NodeIndex(settings, store, emb)._commit(groups, store.node_version())


def restamp_for(settings: Any, backend: str | None) -> bool:
    """Make the node index read as built by `backend` (an index refuses another backend's queries),
    by writing its loaded vectors again under that backend's embedder. For the A/B of backends whose
    vectors are the same (ONNX fp32 = torch, the ONNX parity test), or synthetic vectors that are
    neither. Returns whether a generation was written."""
    from motivgraph.embeddings import get_embedder  # local: onnxruntime, off the bench's --help path
    from motivgraph.graph.vector_index import NodeIndex  # local: faiss, off the bench's --help path
    from motivgraph.settings import EmbeddingSettings  # local: the settings tree, off the bench's --help path

    emb = get_embedder(EmbeddingSettings(backend=backend) if backend else EmbeddingSettings())
    store = open_store(settings, ensure_schema=False)
    try:
        idx = NodeIndex.open(settings, store, emb)
        stamp = idx._gens.read_stamp() or {}
        if not stamp or str(stamp.get("backend") or "torch") == str(getattr(emb, "backend", "torch")):
            return False
        idx._sync()
        idx._commit(idx._groups, int(stamp["graph_version"]))
        return True
    finally:
        store.close()


def make_settings(data_dir: Path, server_url: str) -> Any:
    from motivgraph.settings import GraphSettings, Settings  # local: the settings tree, off the bench's --help path

    return Settings(data_dir=data_dir, graph=GraphSettings(falkordb_url=server_url, name=GRAPH_NAME),
                    _env_file=None)  # type: ignore[call-arg]


# ------------------------------------------------------------------------------------ measurements


def time_calls(fn: Callable[[Any], Any], args: Sequence[Any], warm: int = 0) -> list[float]:
    """Milliseconds per call of `fn` on each of `args`, after `warm` untimed calls on the first ones."""
    for a in args[:warm]:
        fn(a)
    out = []
    for a in args:
        t = time.perf_counter()
        fn(a)
        out.append((time.perf_counter() - t) * 1000)
    return out


def bench_store(settings: Any, names: list[str], n: int) -> dict[str, Any]:
    """Raw store queries the tools are built from (one round trip each unless noted)."""
    store = open_store(settings, ensure_schema=False)
    rng = random.Random(5)
    try:
        keys = [store.find_nodes(nm)[0].key for nm in names[:n]]
        res = {
            "find_nodes(name)": summary(time_calls(store.find_nodes, [rng.choice(names) for _ in range(n)])),
            "find_nodes(key)": summary(time_calls(store.find_nodes, [rng.choice(keys) for _ in range(n)])),
            "get_node(key)": summary(time_calls(store.get_node, [rng.choice(keys) for _ in range(n)])),
            "random_nodes(10)": summary(time_calls(lambda s: store.random_nodes(10, seed=s),
                                                   [rng.randrange(2**31) for _ in range(n)])),
            "node_version()": summary(time_calls(lambda _: store.node_version(), list(range(n)))),
        }
    finally:
        store.close()
    return res


def bench_inprocess(settings: Any, bodies: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    from motivgraph.api.services import ToolService  # local: faiss, off the bench's --help path

    svc = ToolService(settings)
    out = {}
    try:
        for spec in (NODE_SEARCH, NODE_RELATION, RANDOM_NODES):
            service_fn = spec.service_function()  # the row's service function, called directly (no thread hop)

            def fn(r: Any, service_fn: Any = service_fn) -> Any:
                return service_fn(svc.ctx, r)

            reqs = [spec.request.model_validate(b) for b in bodies[spec.name]]
            for r in reqs[:5]:  # warm-up: model load, index load, connections
                fn(r)
            out[spec.name] = summary(time_calls(fn, reqs[5:]))
    finally:
        svc.close()
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(settings: Any, workers: int, graph_name: str = GRAPH_NAME,
                 env_extra: dict[str, str] | None = None, tree: Path | None = None,
                 data_dir: Path | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """`motivgraph serve` on a free loopback port, once healthy. `tree`: serve another source tree (an
    older commit, for a before/after) on `data_dir`, whose own embedded store that tree starts itself."""
    port = free_port()
    env = {**os.environ, "MOTIVGRAPH_DATA_DIR": str(data_dir or settings.data_dir), "MOTIVGRAPH_GRAPH_NAME": graph_name,
           "MOTIVGRAPH_LOG_LEVEL": "WARNING", "HF_HUB_OFFLINE": "1", **(env_extra or {})}
    if tree is None:
        env["MOTIVGRAPH_GRAPH_FALKORDB_URL"] = settings.graph.falkordb_url
    else:
        env["PYTHONPATH"] = str(tree)
        env.pop("MOTIVGRAPH_GRAPH_FALKORDB_URL", None)
    root = tree or Path(__file__).resolve().parents[1]
    cmd = [sys.executable, "-m", "motivgraph", "serve", "--no-check", "--host", "127.0.0.1", "--port", str(port),
           "--workers", str(workers)]
    # stderr to a file, not a pipe: nobody reads a pipe while the bench runs, and a server that logs more
    # than the pipe buffer (a torch worker's progress bars, a respawned worker's traceback) would block
    log_path = Path(data_dir or settings.data_dir) / f"server-{port}.log"
    log_file = open(log_path, "wb")  # noqa: SIM115 - the server process holds it for its whole life
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=log_file)
    log_file.close()  # the child has its own descriptor
    url = f"http://127.0.0.1:{port}"
    import httpx  # local: httpx, off the bench's --help path

    deadline = time.monotonic() + 600  # a worker's start-up takes minutes on a machine loaded 10x its cores
    settled = 0  # health answers in a row from workers whose node cache is filled (api.node_cache)
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {log_path.read_text(errors='replace')[-2000:]}")
        try:
            r = httpx.get(f"{url}/health", timeout=10)
            if r.status_code == 200:
                # measuring while workers still fill their node caches would time the fill; an older tree's
                # health says nothing about one
                body = r.json()
                settled = settled + 1 if not body.get("node_cache_filling") else 0
                if "node_cache_filling" not in body or settled >= 4 * workers:
                    return proc, url
                time.sleep(0.05)
                continue
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.terminate()
    raise RuntimeError(f"server did not become healthy within 600s: {log_path.read_text(errors='replace')[-2000:]}")


def bench_http(url: str, bodies: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    import httpx  # local: httpx, off the bench's --help path

    out = {}
    with httpx.Client(base_url=url, timeout=30) as c:
        for tool, reqs in bodies.items():
            for b in reqs[:5]:
                c.post(f"/tools/{tool}", json=b).raise_for_status()
            ms = []
            for b in reqs[5:]:
                t = time.perf_counter()
                r = c.post(f"/tools/{tool}", json=b)
                ms.append((time.perf_counter() - t) * 1000)
                r.raise_for_status()
            out[tool] = summary(ms)
    return out


def bench_floor(settings: Any, url: str, backend: str | None, n: int) -> dict[str, Any]:
    """node_search's floor, measured now: query embedding in this process (same backend, fresh phrases,
    so no cache answers), FAISS alone on those vectors (the node index from disk, no staleness check)
    and a trivial FastAPI round trip (GET /health/live) on the same server."""
    import httpx  # local: httpx, off the bench's --help path

    from motivgraph.embeddings import get_embedder  # local: onnxruntime, off the bench's --help path
    from motivgraph.graph.vector_index import NodeIndex  # local: faiss, off the bench's --help path
    from motivgraph.settings import EmbeddingSettings  # local: the settings tree, off the bench's --help path

    emb = get_embedder(EmbeddingSettings(backend=backend) if backend else EmbeddingSettings())
    qs = unique_queries(random.Random(41), n + 5)
    vecs = [emb.embed([q]) for q in qs[5:]]
    # the query embedding is timed in a fresh process, as the server runs it: in this one another
    # runtime's threads (torch's OpenMP, ONNX Runtime's pool) may be loaded and compete for the 2 cores
    root = Path(__file__).resolve().parents[1]
    cmd = [sys.executable, "-m", "bench.bench_api", "--embed-floor", backend or "", "--n", str(n)]
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=600, check=True)
    embed_ms = json.loads(out.stdout.strip().splitlines()[-1])
    store = open_store(settings, ensure_schema=False)
    try:
        idx = NodeIndex.open(settings, store, emb)
        idx.search_vectors(vecs[0], k=10, check=False)
        faiss_ms = time_calls(lambda v: idx.search_vectors(v, k=10, check=False), vecs)
        # The same work query after query, as a worker does it: embed, then FAISS. Each evicts the other's
        # memory (the model's weights, the index's vectors and links) from the caches, which the two tight
        # loops above never see; the gap between this and their sum is the machine's, not HTTP's.
        search_ms = time_calls(lambda q: idx.search_vectors(emb.embed([q]), k=10, check=False), qs[5:])
    finally:
        store.close()
    with httpx.Client(base_url=url, timeout=30) as c:
        c.get("/health/live").raise_for_status()
        trivial = time_calls(lambda _: c.get("/health/live").raise_for_status(), list(range(n)))
    res: dict[str, Any] = {"embed": summary(embed_ms), "faiss": summary(faiss_ms), "trivial_http": summary(trivial),
                           "backend": getattr(emb, "backend", type(emb).__name__)}
    res["floor_p50_ms"] = res["embed"]["p50_ms"] + res["faiss"]["p50_ms"] + res["trivial_http"]["p50_ms"]
    res["search_in_process"] = summary(search_ms)
    res["search_floor_p50_ms"] = res["search_in_process"]["p50_ms"] + res["trivial_http"]["p50_ms"]
    return res


# ------------------------------------------------------------------------------------ load (2nd process)


def _encode_request(host: str, tool: str, body: dict[str, Any]) -> bytes:
    """One HTTP/1.1 keep-alive request, encoded once before the clock starts."""
    if tool == TRIVIAL:
        return f"GET /health/live HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    data = json.dumps(body).encode()
    head = (f"POST /tools/{tool} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n")
    return head.encode() + data


async def _load(url: str, plan: list[tuple[str, dict[str, Any]]], concurrency: int, max_s: float) -> dict[str, Any]:
    """Send `plan` over `concurrency` keep-alive connections as fast as the server answers. The client
    is raw asyncio streams with pre-encoded requests (status line and Content-Length read, body
    skipped) so that it costs a few percent of a core: an HTTP library's client (httpx took about a
    core for ~500 req/s) would share the 2 cores with the server it measures."""
    u = urlsplit(url)
    host, port = u.hostname or "127.0.0.1", u.port or 80
    reqs = [(tool, _encode_request(f"{host}:{port}", tool, body)) for tool, body in plan]
    lat: dict[str, list[float]] = {}
    status: dict[int, int] = {}
    it = iter(reqs)
    deadline = time.perf_counter() + max_s

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            for tool, raw in it:
                if time.perf_counter() > deadline:
                    return
                t = time.perf_counter()
                try:
                    writer.write(raw)
                    head = await reader.readuntil(b"\r\n\r\n")
                    code = int(head[9:12])
                    length = 0
                    for line in head.split(b"\r\n"):
                        if line[:15].lower() == b"content-length:":
                            length = int(line[15:])
                    await reader.readexactly(length)
                except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
                    code = 0
                    writer.close()
                    reader, writer = await asyncio.open_connection(host, port)
                lat.setdefault(tool, []).append((time.perf_counter() - t) * 1000)
                status[code] = status.get(code, 0) + 1
        finally:
            writer.close()

    t0, cpu0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - t0
    done = sum(status.values())
    cpu = time.process_time() - cpu0
    return {"requests": done, "wall_s": wall, "req_per_s": done / wall, "status": status,
            "client_cpu_s": cpu, "latency": {k: summary(v) for k, v in lat.items()}}


def embed_floor_main(backend: str, n: int) -> None:
    """(internal) Print the single-query embedding times of `backend` in this fresh process, as JSON,
    with the compute threads a server worker sets (api.compute_threads)."""
    from motivgraph.api.app import set_compute_threads  # local: the web stack, off the bench's --help path
    from motivgraph.embeddings import get_embedder  # local: onnxruntime, off the bench's --help path
    from motivgraph.settings import EmbeddingSettings, Settings  # local: the settings tree, off the bench's --help path

    set_compute_threads(Settings().api.compute_threads)

    emb = get_embedder(EmbeddingSettings(backend=backend) if backend else EmbeddingSettings())
    qs = unique_queries(random.Random(41), n + 5)
    emb.embed(qs[:5])
    print(json.dumps(time_calls(lambda q: emb.embed([q]), qs[5:])))


def load_main(args: argparse.Namespace) -> None:
    plan = json.loads(Path(args.plan).read_text())
    res = asyncio.run(_load(args.url, [tuple(p) for p in plan], args.concurrency, args.max_s))  # type: ignore[misc]
    print(json.dumps(res))


def run_load(url: str, bodies: dict[str, list[dict[str, Any]]], count: int, concurrency: int, max_s: float,
             tmp: Path, trivial: bool = False, fresh_seed: int = 23) -> dict[str, Any]:
    rng = random.Random(17)
    tools = [t for t, _ in MIX]
    weights = [w for _, w in MIX]
    # Every node_search in the load is a new phrase, so the server's query-embedding cache cannot
    # flatter the figure; node_relation names and random seeds repeat as they would in sessions.
    fresh = iter(unique_queries(random.Random(fresh_seed), count))
    plan: list[tuple[str, dict[str, Any]]] = (
        [(TRIVIAL, {})] * count if trivial else
        [(t, {"query": next(fresh), "k": 10} if t == "node_search" else rng.choice(bodies[t]))
         for t in rng.choices(tools, weights, k=count)]
    )
    plan_file = tmp / "plan.json"
    plan_file.write_text(json.dumps(plan))
    root = Path(__file__).resolve().parents[1]
    cmd = [sys.executable, "-m", "bench.bench_api", "--load-url", url, "--plan", str(plan_file),
           "--concurrency", str(concurrency), "--max-s", str(max_s)]
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=max_s + 120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_backend(settings: Any, args: argparse.Namespace, bodies: dict[str, list[dict[str, Any]]], data_dir: Path,
                  backend: str | None, nth: int) -> dict[str, Any]:
    """HTTP latency beside its floor and the mixed load beside GET /health/live, on a server embedding with
    `backend` (None: the settings' one)."""
    env = {"MOTIVGRAPH_EMBEDDING_BACKEND": backend} if backend else None
    say(f"\n== embedding backend: {backend or 'current'}  ({args.workers} worker(s); load1 {os.getloadavg()[0]:.1f})")
    if restamp_for(settings, backend):
        say("  (node index re-stamped for this backend: same vectors, written again)")
    proc, url = start_server(settings, args.workers, env_extra=env)
    try:
        fb: dict[str, Any] = {"load1": os.getloadavg()[0]}
        fb["http_ms"] = bench_http(url, bodies)
        fb["floor"] = fl = bench_floor(settings, url, backend, args.n)
        ns = fb["http_ms"]["node_search"]["p50_ms"]
        fb["node_search_ratio_to_floor"] = ns / fl["floor_p50_ms"]
        say("tool latency over HTTP (ms)   p50     p99   target p50")
        for tool in TARGETS_MS:
            v = fb["http_ms"][tool]
            ok = "ok" if v["p50_ms"] < TARGETS_MS[tool] else "MISSED"
            say(f"  {tool:<24}{v['p50_ms']:7.1f} {v['p99_ms']:7.1f}   < {TARGETS_MS[tool]:.0f}  {ok}")
        say(f"node_search p50 {ns:.1f} ms vs floor {fl['floor_p50_ms']:.1f} ms = query embed "
            f"{fl['embed']['p50_ms']:.1f} ({fl['backend']}) + FAISS {fl['faiss']['p50_ms']:.2f} + trivial "
            f"round trip {fl['trivial_http']['p50_ms']:.1f} → {fb['node_search_ratio_to_floor']:.2f}x floor")
        fb["node_search_ratio_to_search_floor"] = ns / fl["search_floor_p50_ms"]
        say(f"  the same embed + FAISS one query after the other in process: "
            f"{fl['search_in_process']['p50_ms']:.1f} ms "
            f"(the tight loops' sum {fl['embed']['p50_ms'] + fl['faiss']['p50_ms']:.1f}); with the trivial round "
            f"trip {fl['search_floor_p50_ms']:.1f} ms → node_search at {fb['node_search_ratio_to_search_floor']:.2f}x "
            "(what HTTP and the tool add)")
        load = (args.load_count, args.concurrency, args.load_max_s, data_dir)
        fb["load_trivial"] = lt = run_load(url, bodies, *load, trivial=True)
        fb["load"] = ld = run_load(url, bodies, *load, fresh_seed=23 + nth)
        fb["load_ratio_to_trivial"] = ld["req_per_s"] / lt["req_per_s"]
        ok = "ok" if ld["req_per_s"] >= 200 else "MISSED"
        say(f"mixed load from a second process: {ld['requests']} requests, concurrency {args.concurrency}, "
            f"{ld['wall_s']:.1f}s → {ld['req_per_s']:.0f} req/s (target >= 200: {ok}); statuses "
            f"{ld['status']}; client CPU {ld['client_cpu_s'] / ld['wall_s']:.2f} cores; baseline GET /health/live "
            f"under the same load {lt['req_per_s']:.0f} req/s → tools at {fb['load_ratio_to_trivial']:.2f}x the "
            "bare HTTP stack")
        for tool, v in ld["latency"].items():
            say(f"  {tool:<22} p50 {v['p50_ms']:7.1f} ms   p99 {v['p99_ms']:7.1f} ms   (n={v['n']})")
    finally:
        stop_server(proc)
    return fb


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def compare_trees(settings: Any, args: argparse.Namespace, bodies: dict[str, list[dict[str, Any]]],
                  data_dir: Path) -> dict[str, Any]:
    """The mixed load on this tree's server and on `--vs-tree`'s (an older commit serving its own copy
    of the graph in `--vs-data`), in alternating rounds with the same plan per round (new node_search
    phrases every round, so neither server's query cache answers): req/s per round and the ratio pair
    by pair, so a drift in machine load hits both alike."""
    other_tree, other_data = args.vs_tree.resolve(), args.vs_data.resolve()
    procs = []
    try:
        this_p, this_url = start_server(settings, args.workers)
        procs.append(this_p)
        other_p, other_url = start_server(settings, args.workers, tree=other_tree, data_dir=other_data)
        procs.append(other_p)
        rounds: list[dict[str, Any]] = []
        for r in range(args.rounds):
            order = [("this", this_url), ("other", other_url)]
            if r % 2:
                order.reverse()
            res = {}
            for label, url in order:
                res[label] = run_load(url, bodies, args.load_count, args.concurrency, args.load_max_s, data_dir,
                                      fresh_seed=101 + r)
            rounds.append(res)
            ratio = res["this"]["req_per_s"] / res["other"]["req_per_s"]
            say(f"  round {r + 1}: this tree {res['this']['req_per_s']:.0f} req/s, {other_tree.name} "
                f"{res['other']['req_per_s']:.0f} req/s → {ratio:.2f}x (statuses {res['this']['status']} / "
                f"{res['other']['status']})")
    finally:
        for p in procs:
            stop_server(p)
    ratios = [x["this"]["req_per_s"] / x["other"]["req_per_s"] for x in rounds]
    out = {"tree": str(other_tree), "data": str(other_data), "rounds": rounds,
           "this_req_per_s": statistics.median(x["this"]["req_per_s"] for x in rounds),
           "other_req_per_s": statistics.median(x["other"]["req_per_s"] for x in rounds),
           "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios)}
    say(f"mixed load, this tree vs {other_tree} (same run, {args.rounds} alternating rounds, {args.workers} "
        f"worker(s) each): {out['this_req_per_s']:.0f} vs {out['other_req_per_s']:.0f} req/s (medians) → "
        f"{out['ratio_median']:.2f}x (pairs {out['ratio_min']:.2f}-{out['ratio_max']:.2f})")
    return out


# ------------------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="Fraction of the paper-scale graph (default 1.0).")
    ap.add_argument("--seed", type=int, default=13, help="Seed of the synthetic graph.")
    ap.add_argument("--data", type=Path, default=None, help="Data dir to build the graph in once and reuse.")
    ap.add_argument("--n", type=int, default=200, help="Calls per tool for the latency figures.")
    ap.add_argument("--load-count", type=int, default=3000, help="Most requests in the mixed load.")
    ap.add_argument("--load-max-s", type=float, default=30.0, help="Longest the mixed load may run.")
    ap.add_argument("--concurrency", type=int, default=16, help="Requests in flight in the mixed load.")
    ap.add_argument("--workers", type=int, default=1, help="uvicorn worker processes.")
    ap.add_argument("--json", type=Path, default=None, help="Also write the figures to this JSON file.")
    ap.add_argument("--backends", default=None,
                    help="Embedding backends to serve with, one after the other in this run (e.g. torch,onnx); "
                    "default: the settings' one.")
    ap.add_argument("--vectors", choices=("embed", "synthetic"), default="embed",
                    help="Node index from real embeddings (default) or bench_scale's synthetic word-model vectors "
                    "(fast build; latency figures representative, search results not).")
    ap.add_argument("--vs-tree", type=Path, default=None,
                    help="Another source tree (e.g. an older commit from `git worktree add`) whose server takes the "
                    "same mixed load in alternating rounds (before/after in one run); needs --vs-data.")
    ap.add_argument("--vs-data", type=Path, default=None,
                    help="The data dir that tree serves (built by its own `bench.bench_api --data DIR`).")
    ap.add_argument("--rounds", type=int, default=3, help="Alternating rounds of the --vs-tree comparison.")
    ap.add_argument("--only-vs", action="store_true", help="Skip the other figures; run only the --vs-tree rounds.")
    # internal: the load-generating second process
    ap.add_argument("--load-url", help=argparse.SUPPRESS)
    ap.add_argument("--plan", help=argparse.SUPPRESS)
    ap.add_argument("--max-s", type=float, default=30.0, help=argparse.SUPPRESS)
    ap.add_argument("--embed-floor", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if (args.vs_tree is None) != (args.vs_data is None):
        ap.error("--vs-tree and --vs-data go together: the other tree serves its own data dir")
    if args.embed_floor is not None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        embed_floor_main(args.embed_floor, args.n)
        return {}
    if args.load_url:
        args.url = args.load_url
        load_main(args)
        return {}

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    keep = args.data is not None
    data_dir = args.data or Path(tempfile.mkdtemp(prefix="mg-bench-api-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    fig: dict[str, Any] = {"scale": args.scale, "cpus": os.cpu_count(), "load1_at_start": os.getloadavg()[0],
                           "workers": args.workers, "concurrency": args.concurrency}
    say(f"# MotivGraph API benchmark  scale={args.scale}  data={data_dir}  load1={fig['load1_at_start']:.2f}")
    server = EmbeddedFalkorDB(data_dir)
    server.start()
    try:
        fig["graph"] = build_or_reuse(data_dir, args.scale, args.seed, server.url, args.vectors)
        settings = make_settings(data_dir, server.url)

        store = open_store(settings, ensure_schema=False)
        names = [r.name for r in store.random_nodes(500, seed=args.seed)]
        store.close()
        bodies = request_bodies(random.Random(args.seed), names, args.n + 5)

        # this process measures in-process figures and the floor with the threads a worker uses
        # (api.compute_threads): FAISS on two OpenMP threads of a loaded 2-core machine is many times slower
        from motivgraph.api.app import set_compute_threads  # local: the web stack, off the bench's --help path

        set_compute_threads(settings.api.compute_threads)
        if not args.only_vs:
            fig["store_ms"] = bench_store(settings, names, args.n)
            say("\nstore queries (ms)              p50     p99")
            for k, v in fig["store_ms"].items():
                say(f"  {k:<28}{v['p50_ms']:7.2f} {v['p99_ms']:7.2f}")

            fig["inprocess_ms"] = bench_inprocess(settings, bodies)
            say("\nin-process p50/p99 (ms): " + ", ".join(
                f"{t} {v['p50_ms']:.1f}/{v['p99_ms']:.1f}" for t, v in fig["inprocess_ms"].items()))
            backends = [b for b in (args.backends or "").split(",") if b] or [None]
            fig["by_backend"] = {}
            for backend in backends:
                fig["by_backend"][backend or "current"] = bench_backend(settings, args, bodies, data_dir, backend,
                                                                        len(fig["by_backend"]))
            first = fig["by_backend"][backends[0] or "current"]
            fig["http_ms"], fig["load"] = first["http_ms"], first["load"]  # the first backend, as before
            if len(backends) > 1:
                a_, b_ = (fig["by_backend"][x or "current"] for x in backends[:2])
                say(f"\n{backends[1]} vs {backends[0]} (same run): node_search HTTP p50 "
                    f"{b_['http_ms']['node_search']['p50_ms'] / a_['http_ms']['node_search']['p50_ms']:.2f}x, "
                    f"mixed load req/s {b_['load']['req_per_s'] / a_['load']['req_per_s']:.2f}x")
        if args.vs_tree is not None:
            say(f"\n== mixed load beside {args.vs_tree} (load1 {os.getloadavg()[0]:.1f})")
            restamp_for(settings, None)
            fig["vs_tree"] = compare_trees(settings, args, bodies, data_dir)
        fig["load1_at_end"] = os.getloadavg()[0]
        say(f"\nload average at end: {fig['load1_at_end']:.2f} (other work on the machine skews figures)")
    finally:
        server.stop()
        if not keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(fig, indent=2, default=str))
    return fig


if __name__ == "__main__":
    main()
