"""Background ideation runs for the API, for every registered method: start, status, event stream,
resume.

A run is an asyncio task on the server's event loop, owned by the `JobManager`, not by the request
that started it — so a client that disconnects (from the POST or the event stream) does not stop it.
Everything a client can see is persisted in the run directory under `settings.runs_dir`
(status.json, transcript.jsonl, ideas.json), so status and events survive a server restart too. When
a manager starts it marks every run left 'running'/'queued' by a process that is gone as
'interrupted'; such a run (and a failed or budget-stopped one) can be continued with `resume`.
Whatever ends a run — success, budget, cancellation, any exception, even one raised before the
method starts — leaves a terminal status with the reason in status.json.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from motivgraph.agents.core.context import RunSpec
from motivgraph.agents.core.method import Method
from motivgraph.agents.core.registry import get_method
from motivgraph.agents.core.rundir import COMPLETED, QUEUED, RESUMABLE, TERMINAL, RunDir, mark_interrupted
from motivgraph.agents.core.runner import create_run, ensure_terminal, run_method, spec_of
from motivgraph.errors import RunStateError
from motivgraph.settings import Settings

log = logging.getLogger(__name__)

POLL_S = 0.1  # how often an event stream looks for new transcript lines
RECANCEL_S = 0.2  # at shutdown, how long a cancelled run has to end before it is cancelled again
LIST_FIELDS = ("id", "method", "topic", "status", "error", "created_at", "updated_at", "ideas_accepted",
               "ideas_rejected")


class JobManager:
    """Runs ideation methods in the background. `tool_client_factory()` returns a ToolClient (or
    None: no tools) and `llm_factory(run_id)` an LLMClient (PlatformLLMClient) for one run."""

    def __init__(
        self,
        settings: Settings,
        *,
        tool_client_factory: Callable[[], Any] | None,
        llm_factory: Callable[[str], Any],
    ) -> None:
        self.settings = settings
        self.runs_dir: Path = settings.runs_dir
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        self._tool_client_factory = tool_client_factory
        self._llm_factory = llm_factory
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self._sem: asyncio.Semaphore | None = None
        self.interrupted_at_start = mark_interrupted(self.runs_dir)
        if self.interrupted_at_start:
            log.warning("marked %d unfinished ideation run(s) interrupted: %s",
                        len(self.interrupted_at_start), ", ".join(self.interrupted_at_start))

    def _semaphore(self) -> asyncio.Semaphore:
        if self._sem is None:
            self._sem = asyncio.Semaphore(self.settings.agents.max_concurrent_sessions)
        return self._sem

    # ------------------------------------------------------------------ control
    def start(self, spec: RunSpec, *, run_id: str | None = None, method: Method[Any, Any] | None = None) -> RunDir:
        """Create the run directory and schedule the run; returns at once (status 'queued'). `method`: the spec's
        method as the caller built it from a checked config (the HTTP body), run as it is."""
        run = create_run(self.runs_dir, spec, run_id=run_id, method=method)
        self._spawn(run, None, method)
        return run

    def check_resumable(self, run_id: str) -> RunDir:
        """The run, if it can be resumed now; else RunNotFound / RunStateError saying why."""
        run = RunDir.open(self.runs_dir, run_id)
        st = run.status()
        if self.is_running(run_id):
            raise RunStateError(f"run {run_id} is already running")
        if st.get("status") == COMPLETED:
            raise RunStateError(f"run {run_id} is already completed")
        if st.get("status") not in RESUMABLE:
            raise RunStateError(f"run {run_id} is {st.get('status')}; only "
                                f"{', '.join(sorted(RESUMABLE))} runs resume")
        spec_of(run)  # a run this code cannot read fails here, not in the background
        return run

    def resume(self, run_id: str, *, budget_usd: float | None = None) -> RunDir:
        run = self.check_resumable(run_id)
        run.update_status(status=QUEUED)
        self._spawn(run, budget_usd)
        return run

    def _spawn(self, run: RunDir, budget_usd: float | None, method: Method[Any, Any] | None = None) -> None:
        name = run.status().get("method", "run")
        task = asyncio.get_running_loop().create_task(self._run(run, budget_usd, method), name=f"{name}:{run.id}")
        self._tasks[run.id] = task
        def forget(t: asyncio.Task[Any], rid: str = run.id) -> None:
            if self._tasks.get(rid) is t:
                self._tasks.pop(rid, None)

        task.add_done_callback(forget)

    async def _run(self, run: RunDir, budget_usd: float | None, method: Method[Any, Any] | None = None) -> None:
        async with self._semaphore():
            client = llm = None
            try:
                spec = spec_of(run)
                if get_method(spec.method).uses_tools and self._tool_client_factory is not None:
                    client = self._tool_client_factory()
                llm = self._llm_factory(run.id)
                await run_method(self.settings, run, llm=llm, tool_client=client, budget_usd=budget_usd, method=method)
            except asyncio.CancelledError:
                raise  # run_method recorded it as interrupted
            except Exception as e:  # recorded in the run; a failed run must not take the server down
                log.warning("ideation run %s ended: %s: %s", run.id, type(e).__name__, e)
                ensure_terminal(run, e)  # when it failed before the method started
            finally:
                if llm is not None and hasattr(llm, "close"):
                    llm.close()
                if client is not None and hasattr(client, "aclose"):
                    await client.aclose()

    def is_running(self, run_id: str) -> bool:
        t = self._tasks.get(run_id)
        return t is not None and not t.done()

    async def wait(self, run_id: str) -> None:
        t = self._tasks.get(run_id)
        if t is not None:
            await asyncio.wait({t})

    async def shutdown(self) -> None:
        """Cancel running runs (they are marked interrupted and can be resumed).

        A cancel that arrives while a run waits on a worker thread (a tool call goes through
        anyio.to_thread, whose shielded scope absorbs it) is lost, and the run would go on to its end
        with the server waiting on it; so a run is cancelled again until it has ended."""
        tasks = [t for t in self._tasks.values() if not t.done()]
        pending = tasks
        while pending:
            for t in pending:
                t.cancel()
            await asyncio.wait(pending, timeout=RECANCEL_S)
            pending = [t for t in pending if not t.done()]
        await asyncio.gather(*tasks, return_exceptions=True)  # all ended: collects their outcomes

    # ------------------------------------------------------------------ reading
    def get(self, run_id: str) -> dict[str, Any]:
        run = RunDir.open(self.runs_dir, run_id)
        st = run.status()
        st["ideas"] = run.ideas()
        st["running_here"] = self.is_running(run_id)
        return st

    def list(self, limit: int = 50, method: str | None = None) -> list[dict[str, Any]]:
        out = []
        for run in RunDir.list(self.runs_dir):
            try:
                st = run.status()
            except (OSError, ValueError):
                continue
            if method is None or st.get("method") == method:
                out.append({k: st.get(k) for k in LIST_FIELDS})
        return out[-limit:]

    async def events(self, run_id: str, after: int = 0) -> AsyncIterator[dict[str, Any]]:
        """Transcript events with seq > after, then new ones as they are written, until the run
        reaches a terminal state and every event has been sent."""
        run = RunDir.open(self.runs_dir, run_id)
        last = after
        while True:
            # Read the status before the events: a terminal status seen here means every event
            # written before it is already in the file.
            status = run.status().get("status")
            for ev in run.events(after=last):
                last = int(ev["seq"])
                yield ev
            if status in TERMINAL and not self.is_running(run_id):
                return
            await asyncio.sleep(POLL_S)
