from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from motivgraph.api.deps import Context, CursorText, FilterText, NodeKeyText
from motivgraph.api.error_responses import ErrorResponse
from motivgraph.api.services.browse import TriplesPage, page_triples
from motivgraph.graph.models import TripleFilter

router = APIRouter(tags=["graph"])


@router.get("/triples", response_model=TriplesPage, summary="Page through P→C→S triples with filters",
            responses={422: {"model": ErrorResponse}, 503: {"model": ErrorResponse}})
def list_triples(
    ctx: Context,
    problem: Annotated[FilterText | None, Query(description="Problem key, or text contained in its name.")] = None,
    challenge: Annotated[FilterText | None, Query(description="Challenge key, or text in its name.")] = None,
    solution: Annotated[FilterText | None, Query(description="Solution key, or text in its name.")] = None,
    paper: Annotated[FilterText | None, Query(description="Only triples stated by this paper id.")] = None,
    parent: Annotated[NodeKeyText | None, Query(description="Key of a parent node: triples under it.")] = None,
    cursor: Annotated[CursorText | None, Query(description="next_cursor of the previous page.")] = None,
    limit: Annotated[int, Query(ge=1, le=100, description="Triples per page (1..100).")] = 50,
) -> TriplesPage:
    flt = TripleFilter(problem=problem, challenge=challenge, solution=solution, paper_id=paper, parent=parent)
    return page_triples(ctx, flt, cursor, limit)
