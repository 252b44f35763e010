"""Offline parsing in worker processes, with a per-document timeout.

A PDF can make pdfium spin or allocate without bound; running each parse in a child process
means a timeout can kill it (and a memory cap can stop it) without touching the batch. Workers
are long-lived (import once) and replaced when killed or crashed.

Workers die with the process that started them: on Linux each asks the kernel for SIGKILL when its
parent dies (PR_SET_PDEATHSIG), so a `kill -9` of an ingest never leaves a parse running. Only the
workers do this; the shared servers (embedded DB, local LLM) are started in their own sessions and
are meant to outlive a command.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing as mp
import os
import signal
import sys
import traceback
from multiprocessing.connection import Connection
from typing import Any

from motivgraph.errors import ParseError
from motivgraph.fsutil import path_to_text
from motivgraph.ingest.models import Paper
from motivgraph.ingest.pdf import parse_pdf

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; elsewhere a no-op). If the
    parent is already gone (it died before we got here), exit now."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError) as e:  # no libc prctl: the closed pipe still ends an idle worker
            log.debug("PR_SET_PDEATHSIG unavailable: %s", e)
    if os.getppid() != parent_pid:
        os._exit(0)


def _worker_main(conn: Connection, memory_mb: int | None, parent_pid: int | None = None) -> None:
    if parent_pid is not None:
        die_with_parent(parent_pid)
    if memory_mb:
        try:
            import resource  # local: optional (not on every platform)

            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ImportError, ValueError, OSError):  # not on every platform
            pass

    while True:
        try:
            job = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if job is None:
            return
        path, max_pages, sha256, source_path = job
        try:
            paper = parse_pdf(path, max_pages=max_pages, sha256=sha256, source_path=source_path)
            # the Paper itself: the pipe pickles it, so a JSON text inside the pickle was a second reshaping
            conn.send(("ok", paper))
        except ParseError as e:
            conn.send(("parse", str(e)))
        except MemoryError:
            conn.send(("parse", f"parser ran out of memory (cap {memory_mb} MB)"))
        except Exception as e:  # an unexpected parser bug: report it, keep the worker
            conn.send(("bug", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}"))


class _Worker:
    """One parser process. Started from the event-loop thread, never a pool thread: the kernel's
    parent-death signal fires when the *thread* that forked the child exits."""

    def __init__(self, ctx: Any, memory_mb: int | None) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, memory_mb, os.getpid()), daemon=True)
        self.proc.start()
        child.close()

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()


class ProcessParserPool:
    """`await pool.parse(path, ...)` parses in one of `size` worker processes."""

    def __init__(self, size: int, *, memory_mb: int | None = None) -> None:
        self.size = max(1, size)
        self.memory_mb = memory_mb
        self._ctx = mp.get_context("spawn")
        self._idle: asyncio.Queue[_Worker] | None = None
        self._all: list[_Worker] = []

    async def _ensure(self) -> asyncio.Queue[_Worker]:
        if self._idle is None:
            self._idle = asyncio.Queue()
            for _ in range(self.size):
                w = _Worker(self._ctx, self.memory_mb)  # see _Worker: started from this (long-lived) thread
                self._all.append(w)
                self._idle.put_nowait(w)
        return self._idle

    async def parse(
        self, path: str, *, max_pages: int, sha256: str | None, source_path: str | None, timeout: float
    ) -> Paper:
        idle = await self._ensure()
        w = await idle.get()
        replace = False
        try:
            # the path itself travels pickled (undecodable bytes intact); the label goes into JSON
            label = path_to_text(source_path) if source_path is not None else None
            w.conn.send((path, max_pages, sha256, label))
            ready = await asyncio.to_thread(w.conn.poll, timeout)
            if not ready:
                replace = True
                raise ParseError(f"parse timed out after {timeout:g}s (setting MOTIVGRAPH_INGEST_DOC_TIMEOUT_S)")
            try:
                kind, payload = w.conn.recv()
            except (EOFError, OSError) as e:
                replace = True
                raise ParseError(
                    f"parser process died (exit code {w.proc.exitcode}); the PDF may exhaust memory "
                    "(setting MOTIVGRAPH_INGEST_WORKER_MEMORY_MB)"
                ) from e
            if kind == "ok":
                assert isinstance(payload, Paper)
                return payload
            if kind == "bug":
                log.warning("offline parser failed unexpectedly on %s: %s", path, payload)
                raise ParseError(f"offline parser error: {payload.splitlines()[0]}")
            raise ParseError(payload)
        except (BrokenPipeError, EOFError, OSError) as e:
            replace = True
            raise ParseError(f"parser process unavailable: {e}") from e
        finally:
            if replace:
                await asyncio.to_thread(w.kill)
                self._all.remove(w)
                w = _Worker(self._ctx, self.memory_mb)
                self._all.append(w)
            idle.put_nowait(w)

    async def aclose(self) -> None:
        for w in self._all:
            with contextlib.suppress(BrokenPipeError, OSError):
                w.conn.send(None)
        for w in self._all:
            await asyncio.to_thread(w.proc.join, 2)
            w.kill()
        self._all.clear()
        self._idle = None
