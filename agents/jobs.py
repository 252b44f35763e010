"""Background ideation sessions for the API: start, status, event stream, resume.

A session runs as an asyncio task on the server's event loop, owned by the `JobManager`, not by the
request that started it — so a client that disconnects (from the POST or the event stream) does not
stop it. Everything a client can see is persisted in the run directory under `settings.runs_dir`
(status.json, transcript.jsonl, ideas.json), so status and events survive a server restart too. When
a manager starts it marks every run left 'running'/'queued' by a process that is gone as
'interrupted'; such a run can be continued with `resume` (API) or `motivgraph ideate --resume`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from motivgraph.agents.runs import COMPLETED, FAILED, INTERRUPTED, RunDir, RunStateError, mark_interrupted
from motivgraph.settings import Settings

log = logging.getLogger(__name__)

TERMINAL = {COMPLETED, FAILED, INTERRUPTED}
POLL_S = 0.1  # how often an event stream looks for new transcript lines


class JobManager:
    """Runs SoIQ sessions in the background. `tool_client_factory()` returns a ToolClient and
    `llm_factory(run_id)` an LLMClient for one session."""

    def __init__(
        self,
        settings: Settings,
        *,
        tool_client_factory: Callable[[], Any],
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
            log.warning("marked %d unfinished ideation session(s) interrupted: %s",
                        len(self.interrupted_at_start), ", ".join(self.interrupted_at_start))

    def _semaphore(self) -> asyncio.Semaphore:
        if self._sem is None:
            self._sem = asyncio.Semaphore(self.settings.agents.max_concurrent_sessions)
        return self._sem

    # ------------------------------------------------------------------ control
    def start(self, config: Any, *, run_id: str | None = None) -> RunDir:
        """Create the run directory and schedule the session; returns at once (status 'queued')."""
        from motivgraph.agents.soiq.session import METHOD

        run = RunDir.create(self.runs_dir, METHOD, config.topic, config.model_dump(), run_id=run_id)
        self._spawn(run, config)
        return run

    def resume(self, run_id: str) -> RunDir:
        from motivgraph.agents.soiq.session import SessionConfig

        run = RunDir.open(self.runs_dir, run_id)
        st = run.status()
        if run_id in self._tasks and not self._tasks[run_id].done():
            raise RunStateError(f"session {run_id} is already running")
        if st.get("status") == COMPLETED:
            raise RunStateError(f"session {run_id} is already completed")
        if st.get("status") not in (INTERRUPTED, FAILED):
            raise RunStateError(f"session {run_id} is {st.get('status')}; only interrupted or failed sessions resume")
        run.update_status(status="queued")
        self._spawn(run, SessionConfig.model_validate(st["config"]))
        return run

    def _spawn(self, run: RunDir, config: Any) -> None:
        task = asyncio.get_running_loop().create_task(self._run(run, config), name=f"soiq:{run.id}")
        self._tasks[run.id] = task
        task.add_done_callback(lambda t, rid=run.id: self._tasks.pop(rid, None) if self._tasks.get(rid) is t else None)

    async def _run(self, run: RunDir, config: Any) -> None:
        from motivgraph.agents.soiq.session import SoiqSession

        async with self._semaphore():
            client = llm = None
            try:
                client = self._tool_client_factory()
                llm = self._llm_factory(run.id)
                session = SoiqSession(self.settings, config, run, tool_client=client, llm=llm)
                await session.run()
            except asyncio.CancelledError:
                run.update_status(status=INTERRUPTED, error="the server stopped before the session finished")
                raise
            except Exception as e:  # recorded in the run; a failed session must not take the server down
                log.warning("ideation session %s failed: %s", run.id, e)
                st = run.status()
                if st.get("status") not in TERMINAL:
                    run.update_status(status=FAILED, error=f"{type(e).__name__}: {e}")
                    run.append({"type": "status", "status": FAILED, "error": str(e)})
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
        """Cancel running sessions (they are marked interrupted and can be resumed)."""
        tasks = [t for t in self._tasks.values() if not t.done()]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    # ------------------------------------------------------------------ reading
    def get(self, run_id: str) -> dict[str, Any]:
        run = RunDir.open(self.runs_dir, run_id)
        st = run.status()
        st["ideas"] = run.ideas()
        st["running_here"] = self.is_running(run_id)
        return st

    def list(self, limit: int = 50) -> list[dict[str, Any]]:
        out = []
        for run in RunDir.list(self.runs_dir)[-limit:]:
            try:
                st = run.status()
            except (OSError, ValueError):
                continue
            if st.get("method") == "soiq":
                out.append({k: st.get(k) for k in ("id", "topic", "status", "created_at", "updated_at",
                                                     "ideas_accepted", "ideas_rejected")})
        return out

    async def events(self, run_id: str, after: int = 0) -> AsyncIterator[dict[str, Any]]:
        """Transcript events with seq > after, then new ones as they are written, until the session
        reaches a terminal state (completed, failed, interrupted) and every event has been sent."""
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
