"""The chaos harness: real `motivgraph ingest` processes, real kills, one canonical export to compare.

A trial runs the ingest command as a child process on a small seeded corpus (offline PDF parser,
concurrency 1), injects one fault at a seeded random point, then runs the same command again until it
exits 0 (at most `max_reruns` times), all under a per-trial time cap. The result is *identical* when
the canonical export of the graph (every line of `graph export`, timestamps such as created_at
removed, keys and lines sorted) equals that of an uninterrupted run over the same corpus.

Fault kinds:
- kill_ingest    kill -9 of the ingest process at a random point (its parser workers must die too);
- kill_db        kill -9 of the embedded FalkorDB at a random point;
- kill_both      kill -9 of both at the same random point;
- db_mid_ingest  the DB killed once the first document is stored: the same run must restart it and
                 finish (exit 0) without a re-run;
- llm_down_up    the LLM extractor's endpoint (a scripted model behind a fake OpenAI-compatible server
                 on loopback) is down when the ingest starts; it comes up a seeded random time after the
                 ingest met the outage (its first transient pause);
- json_kill      kill -9 of the ingest and the DB at a random point of a paper-JSON ingest
                 (`motivgraph ingest papers.jsonl`, one record per corpus PDF, written by the offline parser);
- neo4j_kill     the ingest on Neo4j (MOTIVGRAPH_GRAPH_BACKEND=neo4j): kill -9 of the Neo4j server's JVM at a
                 seeded point of the ingest's progress (after a seeded number of stored documents plus a seeded
                 delay), then at once a restart on the same home; the same run rides out the outage (driver
                 retries, then transient pauses and reconnects) or exits with a clear error, and a re-run finishes.

The Neo4j kinds run on a private Neo4j 5.26 this harness starts on first use (graph/neo4j_server.py: home in the
workdir, free loopback ports, 512 MB heap) and stops in `close()`; its MotivGraph nodes are wiped (the store's
clear) before every run. They are compared with the embedded offline run, not with an uninterrupted Neo4j run:
the uninterrupted Neo4j ingest (baseline 'neo4j', also run once) gives the same canonical export and ledger, which
`neo4j_matches_embedded()` says and tests/reliability/test_neo4j_faults.py checks. A trial counts the Python
tracebacks in the ingest log (a crash, where a clear error is due).
Used by tests/reliability/test_chaos.py (CI: 3 trials per kind), test_neo4j_faults.py (the Neo4j kinds, and the
API while Neo4j is down) and bench/chaos.py (the full table).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CORPUS_PDF = REPO.parent / "shared" / "corpus" / "pdf"
NEO4J_FAULTS: tuple[str, ...] = ("neo4j_kill",)  # need a local Neo4j (Java 17/21 and Maven)
FAULTS: tuple[str, ...] = ("kill_ingest", "kill_db", "kill_both", "db_mid_ingest", "llm_down_up", "json_kill",
                           *NEO4J_FAULTS)
# which uninterrupted run a fault is timed by; every kind is compared with the run of its input ('llm', 'json',
# else the embedded 'offline' run: the Neo4j ingest must give the same export and ledger)
_MODE = {"llm_down_up": "llm", "json_kill": "json", "neo4j_kill": "neo4j"}
_COMPARED_WITH = {"neo4j": "offline"}
NEO4J_PASSWORD = "chaos-neo4j-pw"
_TIMESTAMP_KEY = re.compile(r"(_at|_time|timestamp)$")


@dataclass
class Baseline:
    export: list[str]
    ledger: list[tuple[Any, ...]]
    seconds: float


@dataclass
class Trial:
    fault: str
    seed: int
    identical: bool = False
    ledger_same: bool = False
    first_rc: int | None = None
    reruns: int = 0
    orphans: int = 0  # parser workers alive after their ingest was killed
    tracebacks: int = 0  # Python tracebacks in the ingest log (a crash, not a clear error)
    pauses: int = 0  # transient-failure pauses the ingest logged (reconnects within a run)
    killed_at_s: float = 0.0
    outage_s: float = 0.0  # neo4j_kill: from the kill until the restarted server answered
    seconds: float = 0.0
    note: str = ""
    diff: list[str] = field(default_factory=list)


def canonical_lines(lines: list[str]) -> list[str]:
    """Export lines with timestamp fields removed, keys sorted, lines sorted."""

    def strip(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if not _TIMESTAMP_KEY.search(k)}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    return sorted(json.dumps(strip(json.loads(line)), sort_keys=True, ensure_ascii=False) for line in lines)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def _children(pid: int) -> list[int]:
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Chaos:
    def __init__(self, workdir: Path, *, n_docs: int = 6, corpus_seed: int = 12, trial_cap_s: float = 600.0,
                 max_reruns: int = 3, source: Path = CORPUS_PDF) -> None:
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.trial_cap_s = trial_cap_s
        self.max_reruns = max_reruns
        self.corpus = self.workdir / "corpus"
        if not self.corpus.is_dir():
            pdfs = sorted(p for p in source.glob("*.pdf"))
            if len(pdfs) < n_docs:
                raise FileNotFoundError(f"need {n_docs} PDFs in {source}, found {len(pdfs)}")
            self.corpus.mkdir()
            for p in random.Random(corpus_seed).sample(pdfs, n_docs):
                shutil.copy(p, self.corpus / p.name)
        self.baselines: dict[str, Baseline] = {}
        self._neo4j: Any = None  # the private Neo4jServer of the neo4j kinds, started on first use

    # -- the private Neo4j (neo4j kinds) -------------------------------------------------------------------------
    def neo4j(self) -> Any:
        """This instance's own Neo4j server (home in the workdir, free loopback ports), started on first use
        and stopped by `close()`."""
        from motivgraph.graph.neo4j_server import Neo4jServer

        if self._neo4j is None:
            self._neo4j = Neo4jServer(self.workdir / "neo4j-home", password=NEO4J_PASSWORD, bolt_port=_free_port(),
                                      http_port=_free_port(), heap="512m", pagecache="128m")
        if self._neo4j.pid() is None:
            self._neo4j.start()
        return self._neo4j

    def close(self) -> None:
        """Stop the private Neo4j, if one was started."""
        if self._neo4j is not None:
            self._neo4j.stop()

    def neo4j_env(self) -> dict[str, str]:
        server = self.neo4j()
        return {"MOTIVGRAPH_GRAPH_BACKEND": "neo4j", "MOTIVGRAPH_NEO4J_URI": server.bolt_uri,
                "MOTIVGRAPH_NEO4J_USER": server.user, "MOTIVGRAPH_NEO4J_PASSWORD": server.password,
                "MOTIVGRAPH_NEO4J_DATABASE": "neo4j"}

    def _settings(self, data_dir: Path, on_neo4j: bool) -> Any:
        from motivgraph.settings import GraphSettings, Settings

        if not on_neo4j:
            return Settings(data_dir=data_dir, graph=GraphSettings(), _env_file=None)  # type: ignore[call-arg]
        from tests.neo4j_support import settings_for

        return settings_for(self.neo4j(), data_dir)

    def neo4j_matches_embedded(self) -> bool:
        """The uninterrupted ingest on Neo4j gives the embedded offline run's canonical export and ledger."""
        on_neo4j, embedded = self.baseline("neo4j"), self.baseline("offline")
        return on_neo4j.export == embedded.export and on_neo4j.ledger == embedded.ledger

    def wipe_neo4j(self) -> None:
        """Delete every MotivGraph node of the private Neo4j (the store's clear), so each run starts empty."""
        from motivgraph.graph import open_store

        store = open_store(self._settings(self.workdir / "wipe", on_neo4j=True))
        try:
            store.clear()
        finally:
            store.close()

    # -- processes -----------------------------------------------------------------------------------------------
    def env(self, data_dir: Path, llm_port: int | None = None, on_neo4j: bool = False) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}
        env.update({
            "PYTHONPATH": str(REPO),
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "MOTIVGRAPH_DATA_DIR": str(data_dir),
            "MOTIVGRAPH_INGEST_PARSER": "pdf",
            "MOTIVGRAPH_INGEST_CONCURRENCY": "1",
            "MOTIVGRAPH_INGEST_TRANSIENT_BACKOFF_S": "0.5",
            "MOTIVGRAPH_INGEST_TRANSIENT_MAX_CONSECUTIVE": "12",
            "MOTIVGRAPH_LLM_MODEL": "",
        })
        if llm_port is not None:
            env.update({
                "MOTIVGRAPH_LLM_MODEL": "openai:fake-extractor",
                "MOTIVGRAPH_LLM_BASE_URL": f"http://127.0.0.1:{llm_port}/v1",
                "MOTIVGRAPH_LLM_API_KEY": "sk-chaos-test",
                "MOTIVGRAPH_LLM_MAX_RETRIES": "1",
                "MOTIVGRAPH_LLM_TIMEOUT_S": "30",
            })
        if on_neo4j:
            env.update(self.neo4j_env())
        return env

    def papers_jsonl(self) -> Path:
        """The corpus as paper JSON (title, authors, year, abstract, sections per PDF), written once."""
        out = self.workdir / "papers.jsonl"
        if not out.exists():
            from motivgraph.ingest.pdf import parse_pdf

            lines = []
            for pdf in sorted(self.corpus.glob("*.pdf")):
                p = parse_pdf(pdf)
                lines.append(json.dumps({
                    "doi": p.doi, "arxiv_id": p.arxiv_id, "paper_id": pdf.stem, "title": p.title,
                    "authors": p.authors, "year": p.year, "abstract": p.abstract,
                    "sections": [{"heading": sec.heading, "text": sec.text} for sec in p.sections],
                }, ensure_ascii=False))
            tmp = out.with_suffix(".tmp")
            tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
            tmp.rename(out)
        return out

    def start_ingest(self, env: dict[str, str], mode: str = "offline") -> subprocess.Popen[bytes]:
        log = open(Path(env["MOTIVGRAPH_DATA_DIR"]).parent / "ingest.log", "ab")  # noqa: SIM115 - owned by the child
        source = self.papers_jsonl() if mode == "json" else self.corpus  # 'offline', 'llm', 'neo4j': the PDFs
        return subprocess.Popen(
            [sys.executable, "-m", "motivgraph", "ingest", str(source), "--concurrency", "1"],
            cwd=self.workdir, env=env, stdout=log, stderr=subprocess.STDOUT,
        )

    def start_llm(self, port: int) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("fake_llm.py")), str(port)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdout is not None
        proc.stdout.readline()  # "ready"
        return proc

    @staticmethod
    def db_pid(data_dir: Path) -> int | None:
        try:
            pid = int((data_dir / "falkordb" / "falkordb.pid").read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if _alive(pid) else None

    def _wait_for_db(self, data: Path, proc: subprocess.Popen[bytes], deadline: float) -> None:
        """A DB fault needs a running DB: on a loaded machine the ingest can take longer than an early kill
        point to start it, so the kill point waits (bounded by the trial cap) until the DB is up."""
        while self.db_pid(data) is None and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)

    @staticmethod
    def stored(data_dir: Path) -> int:
        path = data_dir / "ingest" / "ledger.sqlite"
        if not path.exists():
            return 0
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
            try:
                return int(con.execute("SELECT COUNT(*) FROM documents WHERE state='stored'").fetchone()[0])
            finally:
                con.close()
        except sqlite3.Error:
            return 0

    def wait(self, proc: subprocess.Popen[bytes], deadline: float) -> int:
        try:
            return proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise TimeoutError("trial time cap reached") from None

    # -- results -------------------------------------------------------------------------------------------------
    def snapshot(self, data_dir: Path, on_neo4j: bool = False) -> tuple[list[str], list[tuple[Any, ...]]]:
        from motivgraph.graph import open_store
        from motivgraph.graph.embedded import EmbeddedFalkorDB
        from motivgraph.graph.interchange import export_lines
        from motivgraph.ingest.ledger import Ledger

        store = open_store(self._settings(data_dir, on_neo4j), ensure_schema=False)
        try:
            lines = list(export_lines(store))
        finally:
            store.close()
            EmbeddedFalkorDB(data_dir).stop(timeout_s=30)
        led = Ledger.for_data_dir(data_dir)
        try:
            ledger = led.snapshot()
        finally:
            led.close()
        return canonical_lines(lines), ledger

    def _cleanup(self, data_dir: Path) -> None:
        from motivgraph.graph.embedded import EmbeddedFalkorDB

        with contextlib.suppress(Exception):
            EmbeddedFalkorDB(data_dir).stop(timeout_s=30)
        shutil.rmtree(data_dir.parent, ignore_errors=True)

    def baseline(self, mode: str) -> Baseline:
        """The uninterrupted run ('offline', 'llm', 'json', or 'neo4j': the offline run on the private Neo4j),
        computed once."""
        if mode in self.baselines:
            return self.baselines[mode]
        data = self.workdir / f"baseline-{mode}" / "data"
        shutil.rmtree(data.parent, ignore_errors=True)
        data.parent.mkdir(parents=True)
        llm = None
        port = _free_port() if mode == "llm" else None
        on_neo4j = mode == "neo4j"
        try:
            if port is not None:
                llm = self.start_llm(port)
            if on_neo4j:
                self.wipe_neo4j()
            t0 = time.monotonic()
            rc = self.wait(self.start_ingest(self.env(data, port, on_neo4j), mode), time.monotonic() + self.trial_cap_s)
            secs = time.monotonic() - t0
            if rc != 0:
                log = (data.parent / "ingest.log").read_text(errors="replace")[-3000:]
                raise RuntimeError(f"baseline ingest ({mode}) exited {rc}:\n{log}")
            export, ledger = self.snapshot(data, on_neo4j)
            if mode == "llm" and not any('"extractor": "llm"' in line for line in export):
                raise RuntimeError("the LLM baseline stored no LLM-extracted triple: the fake endpoint was not used")
            if mode != "llm" and not any('"evidence": ' in line for line in export):
                # the offline extractor quotes every triple (#39): an export without quotes would compare no evidence
                raise RuntimeError(f"the {mode} baseline stored no quote: 'identical graph' would not cover evidence")
        finally:
            if llm is not None:
                llm.kill()
                llm.wait()
            self._cleanup(data)
        self.baselines[mode] = Baseline(export, ledger, secs)
        return self.baselines[mode]

    # -- one trial -----------------------------------------------------------------------------------------------
    def trial(self, fault: str, seed: int) -> Trial:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; one of {', '.join(FAULTS)}")
        mode = _MODE.get(fault, "offline")
        timing = self.baseline(mode)  # the uninterrupted run of the same kind: how long an ingest takes
        base = self.baseline(_COMPARED_WITH.get(mode, mode))  # what the resumed graph must equal
        on_neo4j = mode == "neo4j"
        rng = random.Random(f"{fault}:{seed}")
        res = Trial(fault, seed)
        data = self.workdir / f"trial-{fault}-{seed}" / "data"
        shutil.rmtree(data.parent, ignore_errors=True)
        data.parent.mkdir(parents=True)
        t0 = time.monotonic()
        deadline = t0 + self.trial_cap_s
        port = _free_port() if mode == "llm" else None
        env = self.env(data, port, on_neo4j)
        llm: subprocess.Popen[bytes] | None = None
        proc: subprocess.Popen[bytes] | None = None
        try:
            if on_neo4j:
                self.wipe_neo4j()
            proc = self.start_ingest(env, mode)
            if fault in ("kill_ingest", "kill_db", "kill_both", "json_kill"):
                frac, est, started = rng.uniform(0.05, 0.95), timing.seconds, t0
                for attempt in range(3):
                    if attempt:
                        # The ingest finished before the kill point (the machine is faster now than when the
                        # baseline was timed): a trial without a fault proves nothing, so start afresh with the
                        # time just seen.
                        est = time.monotonic() - started
                        self._cleanup(data)
                        data.parent.mkdir(parents=True)
                        started = time.monotonic()
                        proc = self.start_ingest(env, mode)
                    if fault in ("kill_db", "kill_both", "json_kill"):
                        self._wait_for_db(data, proc, deadline)
                    while time.monotonic() - started < frac * est and proc.poll() is None:
                        time.sleep(0.02)
                    if proc.poll() is None:
                        break
                res.killed_at_s = time.monotonic() - started
                if proc.poll() is not None:
                    res.note = "ingest finished before every kill point"
                if fault in ("kill_ingest", "kill_both", "json_kill") and proc.poll() is None:
                    kids = _children(proc.pid)
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait()
                    end = time.monotonic() + 5  # the kernel delivers the parent-death signal at once; bounded wait
                    while any(_alive(k) for k in kids) and time.monotonic() < end:
                        time.sleep(0.05)
                    res.orphans = sum(_alive(k) for k in kids)
                if fault in ("kill_db", "kill_both", "json_kill"):
                    pid = self.db_pid(data)
                    if pid is not None:
                        os.kill(pid, signal.SIGKILL)
                    else:
                        res.note = "DB not running at the kill point"
            elif fault == "neo4j_kill":
                # The kill point is seeded in the ingest's progress rather than in wall time (a Neo4j ingest's
                # duration varies several-fold with the machine's load): once `after` documents are stored (0: while
                # it starts and opens the store), plus a seeded delay. Then kill -9 of the server's JVM (its pid
                # from the Neo4jServer) and at once a restart on the same home, which recovers from its transaction
                # log: the ingest meets an outage as long as the restart takes.
                server = self.neo4j()
                after, delay = rng.randrange(len(list(self.corpus.glob("*.pdf")))), rng.uniform(0.0, 2.0)
                while self.stored(data) < after and proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                end = time.monotonic() + delay
                while time.monotonic() < end and proc.poll() is None:
                    time.sleep(0.02)
                res.killed_at_s = time.monotonic() - t0
                if proc.poll() is not None:
                    res.note = "ingest finished before the kill"
                elif server.pid() is None:
                    res.note = "Neo4j not running at the kill point"
                server.kill()
                killed = time.monotonic()
                server.start()
                res.outage_s = time.monotonic() - killed
            elif fault == "db_mid_ingest":
                while self.stored(data) < 1 and proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                pid = self.db_pid(data)
                res.killed_at_s = time.monotonic() - t0
                if pid is not None and proc.poll() is None:
                    os.kill(pid, signal.SIGKILL)
                else:
                    res.note = "ingest finished before the kill"
            elif fault == "llm_down_up":
                # the endpoint stays down until the ingest has met the outage (a logged transient pause),
                # then comes up after a further seeded random delay
                log_path = data.parent / "ingest.log"
                while proc.poll() is None and time.monotonic() < deadline:
                    if "transient failure" in log_path.read_text(errors="replace"):
                        break
                    time.sleep(0.1)
                up = time.monotonic() + rng.uniform(0.0, 8.0)
                while time.monotonic() < up and proc.poll() is None:
                    time.sleep(0.05)
                res.killed_at_s = time.monotonic() - t0  # here: when the endpoint came up
                assert port is not None
                llm = self.start_llm(port)
            res.first_rc = self.wait(proc, deadline)
            rc = res.first_rc
            while rc != 0 and res.reruns < self.max_reruns:
                if llm is None and port is not None:
                    llm = self.start_llm(port)
                res.reruns += 1
                rc = self.wait(self.start_ingest(env, mode), deadline)
            if rc != 0:
                res.note = (res.note + f"; still exit {rc} after {res.reruns} re-runs").strip("; ")
            log = (data.parent / "ingest.log").read_text(errors="replace")
            res.pauses = log.count("transient failure")
            res.tracebacks = log.count("Traceback (most recent call last)")
            export, ledger = self.snapshot(data, on_neo4j)
            res.identical = export == base.export
            res.ledger_same = ledger == base.ledger
            if not res.identical:
                a, b = set(base.export), set(export)
                res.diff = [f"- {x[:200]}" for x in sorted(a - b)[:5]] + [f"+ {x[:200]}" for x in sorted(b - a)[:5]]
        except TimeoutError as e:
            res.note = str(e)
        finally:
            if llm is not None:
                llm.kill()
                llm.wait()
            if proc is not None and proc.poll() is None:  # the harness failed mid-trial (e.g. Neo4j did not restart)
                proc.kill()
                proc.wait()
            res.seconds = time.monotonic() - t0
            if res.identical and res.orphans == 0:
                self._cleanup(data)
            else:
                with contextlib.suppress(Exception):
                    from motivgraph.graph.embedded import EmbeddedFalkorDB

                    EmbeddedFalkorDB(data).stop(timeout_s=30)
        return res


def table(trials: list[Trial]) -> str:
    """The summary table: identical graphs per fault kind, plus re-runs, in-run recoveries and orphans."""
    rows = ["| fault | trials | identical graphs | ledger identical | first run exit 0 | re-runs (max) "
            "| in-run pauses | orphan workers |", "|---|---|---|---|---|---|---|---|"]
    for fault in dict.fromkeys([*FAULTS, *(t.fault for t in trials)]):  # kinds of other harnesses (Ray) after ours
        ts = [t for t in trials if t.fault == fault]
        if not ts:
            continue
        n = len(ts)
        identical, same = sum(t.identical for t in ts), sum(t.ledger_same for t in ts)
        first_ok, reruns = sum(t.first_rc == 0 for t in ts), sum(t.reruns for t in ts)
        rows.append(f"| {fault} | {n} | {identical}/{n} | {same}/{n} | {first_ok}/{n} | {reruns} "
                    f"({max(t.reruns for t in ts)}) | {sum(t.pauses for t in ts)} | {sum(t.orphans for t in ts)} |")
    return "\n".join(rows)
