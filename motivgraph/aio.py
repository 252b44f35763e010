"""asyncio helpers every layer shares."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any


async def gather_all(*aws: Awaitable[Any]) -> list[Any]:  # Any: callers gather results of different types
    """asyncio.gather that cancels the others when one fails (a clean stop, Ctrl-C, a budget spent), so nothing keeps
    running after the caller has stopped; the first error propagates unchanged once the others have ended."""
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
