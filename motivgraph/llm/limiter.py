"""Client-side request rate limit (requests per minute) for asyncio code: the outbound toolkit's
limiter (`motivgraph.outbound.RateLimiter`), shared with the Semantic Scholar client."""

from __future__ import annotations

from motivgraph.outbound import RateLimiter

__all__ = ["RateLimiter"]
