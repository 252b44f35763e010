"""node_search for normal clients while hostile clients send worst-case requests (issue 41), on the paper-scale
synthetic graph (bench/synthetic.py, built and reused as bench_api builds it), over HTTP on loopback.

In one run, on one `motivgraph serve` (one worker, the settings' per-client limits unless overridden):

1. cost of one request alone: each worst-case request (node_relation with 20 unknown 300-character names and the
   largest limits, node_search with k=100, random_nodes far from a text, the largest transfer_candidates, the
   largest /triples page; texts as long as the schema allows: 300 characters a name, 1000 a query) timed one at a
   time, beside a normal node_search (k=10, a short phrase): the ratio is what the caps bound ("at most a few
   times a normal one");
2. quiet: NORMAL clients (each its own loopback address, one connection, one request after another) send
   node_search; p50 / p99;
3. hostile: the same normal clients again while HOSTILE clients (other loopback addresses, CONNS connections each)
   send the worst-case requests as fast as the server answers; the normal clients' p50 / p99 beside the quiet
   ones, and what the hostile clients got (2xx, 429).

Target: hostile p99 within 3x of quiet p99. Bounded: each phase stops after `--phase-s` seconds or its request
count. Loopback only. Prints figures; asserts nothing about time.

    .venv/bin/python -m bench.bench_hostile --data /tmp/mg-hostile               # paper scale, synthetic vectors
    .venv/bin/python -m bench.bench_hostile --scale 0.1 --phase-s 10             # quick
    .venv/bin/python -m bench.bench_hostile --client-concurrency 0               # the limits off (a baseline)
    .venv/bin/python -m bench.bench_hostile --baseline --baseline-heap    # also: the gate off; the heap unsettled
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_api import (
    build_or_reuse,
    make_settings,
    say,
    start_server,
    stop_server,
    summary,
    unique_queries,
)
from motivgraph.graph.embedded import EmbeddedFalkorDB

NORMAL_BASE = "127.0.0.1"  # normal client i binds 127.0.0.(10 + i), hostile client j 127.0.0.(100 + j)


def _addr(kind: str, i: int) -> str:
    return f"127.0.0.{(10 if kind == 'normal' else 100) + i}"


def worst_cases(rng: random.Random) -> list[tuple[str, str, dict[str, Any] | None]]:
    """(label, path, body) of the most expensive requests the published limits allow."""
    def long_text(n: int) -> str:
        words = ["quantised", "retrieval", "graph", "sparse", "attention", "federated", "tokeniser", "latent"]
        out = ""
        while len(out) < n:
            out += rng.choice(words) + f"{rng.randrange(10**6)} "
        return out[:n].strip()

    return [
        ("node_relation_unknown20", "/tools/node_relation",
         {"names": [long_text(300) for _ in range(20)], "max_triples": 200, "max_neighbours": 500}),
        ("node_search_k100", "/tools/node_search", {"query": long_text(1000), "k": 100}),
        ("random_nodes_far", "/tools/random_nodes", {"n": 50, "far_from": long_text(1000), "max_similarity": 0.1}),
        ("transfer_candidates", "/tools/transfer_candidates",
         {"topic": long_text(1000), "k": 50, "targets": 10, "min_challenge_similarity": -1}),
        ("triples_page", "/triples?limit=100", None),
    ]


def normal_cases(rng: random.Random) -> dict[str, tuple[str, dict[str, Any] | None]]:
    """Per worst case, the same tool called as an agent usually calls it (its defaults, a short phrase): the cost
    of a worst case is also given as a multiple of this one."""
    phrase = unique_queries(rng, 1)[0]
    return {
        "node_relation_unknown20": ("/tools/node_relation", {"names": [phrase]}),
        "node_search_k100": ("/tools/node_search", {"query": phrase, "k": 10}),
        "random_nodes_far": ("/tools/random_nodes", {"n": 10}),
        "transfer_candidates": ("/tools/transfer_candidates", {"topic": phrase}),
        "triples_page": ("/triples", None),
    }


def _encode(host: str, path: str, body: dict[str, Any] | None) -> bytes:
    if body is None:
        return f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    data = json.dumps(body).encode()
    return (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n").encode() + data


class Conn:
    """One keep-alive connection from a given local address (raw streams: a few % of a core for the client)."""

    def __init__(self, host: str, port: int, local: str) -> None:
        self.host, self.port, self.local = host, port, local
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, raw: bytes) -> tuple[int, float]:
        t = time.perf_counter()
        try:
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port,
                                                                         local_addr=(self.local, 0))
            assert self.reader is not None
            self.writer.write(raw)
            head = await self.reader.readuntil(b"\r\n\r\n")
            code = int(head[9:12])
            length = 0
            close = False
            for line in head.split(b"\r\n"):
                low = line.lower()
                if low.startswith(b"content-length:"):
                    length = int(line[15:])
                if low.startswith(b"connection:") and b"close" in low:
                    close = True
            await self.reader.readexactly(length)
            if close:
                self.close()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            code = 0
            self.close()
        return code, (time.perf_counter() - t) * 1000

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def _normal(host: str, port: int, n_clients: int, queries: list[str], deadline: float,
                  stop: asyncio.Event) -> dict[str, Any]:
    lat: list[float] = []
    status: dict[int, int] = {}
    it = iter(queries)

    async def client(i: int) -> None:
        conn = Conn(host, port, _addr("normal", i))
        try:
            for q in it:
                if time.perf_counter() > deadline or stop.is_set():
                    return
                code, ms = await conn.call(_encode(f"{host}:{port}", "/tools/node_search", {"query": q, "k": 10}))
                status[code] = status.get(code, 0) + 1
                if code == 200:
                    lat.append(ms)
        finally:
            conn.close()

    await asyncio.gather(*(client(i) for i in range(n_clients)))
    return {"requests": sum(status.values()), "status": status, "latency_ms": summary(lat) if lat else {}}


async def _hostile(host: str, port: int, n_clients: int, conns: int, cases: list[tuple[str, str, Any]],
                   stop: asyncio.Event, max_requests: int) -> dict[str, Any]:
    status: dict[int, int] = {}
    sent = 0

    async def conn_loop(i: int, j: int) -> None:
        nonlocal sent
        conn = Conn(host, port, _addr("hostile", i))
        k = j
        try:
            while not stop.is_set() and sent < max_requests:
                _, path, body = cases[k % len(cases)]
                k += 1
                sent += 1
                code, _ = await conn.call(_encode(f"{host}:{port}", path, body))
                status[code] = status.get(code, 0) + 1
                if code == 429:
                    await asyncio.sleep(0.05)  # a hostile client need not wait Retry-After; it only avoids a spin
        finally:
            conn.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(conn_loop(i, j) for i in range(n_clients) for j in range(conns)))
    wall = time.perf_counter() - t0
    return {"requests": sum(status.values()), "status": status, "wall_s": wall}


async def _phase(url: str, args: argparse.Namespace, queries: list[str],
                 cases: list[tuple[str, str, Any]] | None) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    stop = asyncio.Event()
    deadline = time.perf_counter() + args.phase_s
    hostile_task = None
    if cases is not None:
        hostile_task = asyncio.create_task(_hostile(host, int(port), args.hostile, args.conns, cases, stop,
                                                    args.max_hostile))
        await asyncio.sleep(1.0)  # the hostile load is running before the normal clients measure
    normal = await _normal(host, int(port), args.normal, queries, deadline, stop)
    stop.set()
    out: dict[str, Any] = {"normal": normal}
    if hostile_task is not None:
        out["hostile"] = await hostile_task
    return out


async def _alone(url: str, cases: list[tuple[str, str, Any]], queries: list[str], n: int,
                 usual: dict[str, tuple[str, Any]] | None = None) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    conn = Conn(host, int(port), _addr("normal", 0))
    out: dict[str, Any] = {}
    try:
        normal = []
        for q in queries[:n]:
            code, ms = await conn.call(_encode(f"{host}:{port}", "/tools/node_search", {"query": q, "k": 10}))
            normal.append(ms)
        out["node_search_normal"] = summary(normal)
        for label, path, body in cases:
            ms_list, codes = [], set()
            for _ in range(n):
                code, ms = await conn.call(_encode(f"{host}:{port}", path, body))
                ms_list.append(ms)
                codes.add(code)
            row = {**summary(ms_list), "status": sorted(codes),
                   "x_normal_p50": summary(ms_list)["p50_ms"] / max(out["node_search_normal"]["p50_ms"], 1e-6)}
            if usual and label in usual:
                upath, ubody = usual[label]
                ums = [(await conn.call(_encode(f"{host}:{port}", upath, ubody)))[1] for _ in range(n)]
                row["usual_p50_ms"] = summary(ums)["p50_ms"]
                row["x_usual_p50"] = row["p50_ms"] / max(row["usual_p50_ms"], 1e-6)
            out[label] = row
    finally:
        conn.close()
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="Fraction of the paper-scale graph (default 1.0).")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--data", type=Path, default=None, help="Data dir to build the graph in once and reuse.")
    ap.add_argument("--vectors", choices=("embed", "synthetic"), default="synthetic",
                    help="Node index from bench_scale's word-model vectors (default: fast to build; latency "
                    "representative) or from real embeddings.")
    ap.add_argument("--normal", type=int, default=2, help="Normal clients (one connection each).")
    ap.add_argument("--hostile", type=int, default=4, help="Hostile clients.")
    ap.add_argument("--conns", type=int, default=8, help="Connections per hostile client.")
    ap.add_argument("--phase-s", type=float, default=20.0, help="Longest each phase runs.")
    ap.add_argument("--max-normal", type=int, default=4000, help="Most normal requests per phase.")
    ap.add_argument("--max-hostile", type=int, default=20000, help="Most hostile requests per phase.")
    ap.add_argument("--alone-n", type=int, default=10, help="Calls per worst case timed alone.")
    ap.add_argument("--client-concurrency", type=int, default=None,
                    help="MOTIVGRAPH_API_CLIENT_CONCURRENCY of the server (default: the setting's default).")
    ap.add_argument("--heavy-concurrency", type=int, default=None,
                    help="MOTIVGRAPH_API_HEAVY_CONCURRENCY of the server (default: the setting's default).")
    ap.add_argument("--baseline", action="store_true",
                    help="Then serve again with the graph-walking gate off (heavy_concurrency 0) and repeat the quiet "
                    "and hostile phases: before/after in one run.")
    ap.add_argument("--baseline-heap", action="store_true",
                    help="Then serve again without settling the long-lived heap (api.settle_heap off: Python's full "
                    "garbage collections walk the node cache) and repeat the quiet and hostile phases.")
    ap.add_argument("--json", type=Path, default=None, help="Also write the figures to this JSON file.")
    args = ap.parse_args(argv)

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    keep = args.data is not None
    data_dir = args.data or Path(tempfile.mkdtemp(prefix="mg-bench-hostile-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    fig: dict[str, Any] = {"scale": args.scale, "cpus": os.cpu_count(), "load1_at_start": os.getloadavg()[0],
                           "normal_clients": args.normal, "hostile_clients": args.hostile,
                           "conns_per_hostile": args.conns, "phase_s": args.phase_s}
    say(f"# hostile-load benchmark  scale={args.scale}  data={data_dir}  load1={fig['load1_at_start']:.2f}")
    server = EmbeddedFalkorDB(data_dir)
    server.start()
    proc = None
    try:
        fig["graph"] = build_or_reuse(data_dir, args.scale, args.seed, server.url, args.vectors)
        settings = make_settings(data_dir, server.url)
        env = {}
        if args.client_concurrency is not None:
            env["MOTIVGRAPH_API_CLIENT_CONCURRENCY"] = str(args.client_concurrency)
        if args.heavy_concurrency is not None:
            env["MOTIVGRAPH_API_HEAVY_CONCURRENCY"] = str(args.heavy_concurrency)
        fig["heavy_concurrency"] = (args.heavy_concurrency if args.heavy_concurrency is not None
                                    else settings.api.heavy_concurrency)
        fig["client_concurrency"] = (args.client_concurrency if args.client_concurrency is not None
                                     else settings.api.client_concurrency)
        proc, url = start_server(settings, 1, env_extra=env)
        rng = random.Random(args.seed)
        cases = worst_cases(rng)
        warm = unique_queries(rng, 20)
        asyncio.run(_alone(url, cases[:1], warm, 2))  # warm the worker (embedder, caches of the store)
        alone = asyncio.run(_alone(url, cases, unique_queries(rng, args.alone_n), args.alone_n, normal_cases(rng)))
        fig["alone"] = alone
        say("one request alone (ms; p50 as a multiple of a normal node_search and of the same tool's usual call):")
        for label, row in alone.items():
            say(f"  {label:26s} p50 {row['p50_ms']:8.1f}  p99 {row['p99_ms']:8.1f}"
                + (f"  x{row['x_normal_p50']:.1f} node_search  x{row.get('x_usual_p50', 0):.1f} the tool's usual "
                   f"call  status {row['status']}" if "x_normal_p50" in row else ""))
        quiet = asyncio.run(_phase(url, args, unique_queries(rng, args.max_normal), None))
        hostile = asyncio.run(_phase(url, args, unique_queries(rng, args.max_normal), cases))
        fig["quiet"], fig["under_hostile"] = quiet, hostile
        q, h = quiet["normal"]["latency_ms"], hostile["normal"]["latency_ms"]
        fig["p99_ratio"] = h["p99_ms"] / q["p99_ms"] if q and h else None
        fig["load1_at_end"] = os.getloadavg()[0]
        say(f"node_search, normal clients — quiet:   p50 {q['p50_ms']:.1f} ms  p99 {q['p99_ms']:.1f} ms  "
            f"({quiet['normal']['requests']} requests, status {quiet['normal']['status']})")
        say(f"node_search, normal clients — hostile: p50 {h['p50_ms']:.1f} ms  p99 {h['p99_ms']:.1f} ms  "
            f"({hostile['normal']['requests']} requests, status {hostile['normal']['status']})")
        say(f"hostile clients got: {hostile['hostile']['status']} in {hostile['hostile']['wall_s']:.1f} s")
        say(f"p99 under hostile load / quiet p99: {fig['p99_ratio']:.2f}x (target <= 3x); "
            f"load1 {fig['load1_at_start']:.2f} -> {fig['load1_at_end']:.2f}")
        baselines = ([("gate off", "baseline_ungated", {"MOTIVGRAPH_API_HEAVY_CONCURRENCY": "0"})] if args.baseline
                     else []) + ([("heap not settled", "baseline_heap_unsettled", {"MOTIVGRAPH_API_SETTLE_HEAP": "0"})]
                                 if args.baseline_heap else [])
        for label, key, overrides in baselines:
            stop_server(proc)
            proc, url = start_server(settings, 1, env_extra={**env, **overrides})
            asyncio.run(_alone(url, cases[:1], warm, 2))
            bq = asyncio.run(_phase(url, args, unique_queries(rng, args.max_normal), None))
            bh = asyncio.run(_phase(url, args, unique_queries(rng, args.max_normal), cases))
            q2, h2 = bq["normal"]["latency_ms"], bh["normal"]["latency_ms"]
            fig[key] = {"quiet": bq, "under_hostile": bh, "p99_ratio": h2["p99_ms"] / q2["p99_ms"],
                        "load1_at_end": os.getloadavg()[0]}
            say(f"baseline, {label} — quiet:   p50 {q2['p50_ms']:.1f} ms  p99 {q2['p99_ms']:.1f} ms")
            say(f"baseline, {label} — hostile: p50 {h2['p50_ms']:.1f} ms  p99 {h2['p99_ms']:.1f} ms  "
                f"(hostile clients got {bh['hostile']['status']})")
            say(f"baseline, {label}: p99 ratio {fig[key]['p99_ratio']:.2f}x; load1 now {os.getloadavg()[0]:.2f}")
    finally:
        if proc is not None:
            stop_server(proc)
        server.stop()
        if not keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(fig, indent=2))
    return fig


if __name__ == "__main__":
    main()
