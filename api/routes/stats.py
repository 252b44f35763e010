from __future__ import annotations

from fastapi import APIRouter

from motivgraph.api.deps import Context
from motivgraph.api.error_responses import ErrorResponse
from motivgraph.api.services.browse import Stats, stats

router = APIRouter(tags=["graph"])


@router.get("/stats", response_model=Stats, summary="Counts per node and relationship type, index state, corpus size",
            responses={503: {"model": ErrorResponse}})
def get_stats(ctx: Context) -> Stats:
    return stats(ctx)
