from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from motivgraph.api.deps import Context, CursorText, KeyText
from motivgraph.api.error_responses import ErrorResponse
from motivgraph.api.services.browse import PapersPage, PaperView, get_paper, page_papers

router = APIRouter(tags=["graph"])


@router.get("/papers", response_model=PapersPage, summary="Page through the papers in the graph (by id)",
            responses={422: {"model": ErrorResponse}, 503: {"model": ErrorResponse}})
def list_papers(
    ctx: Context,
    cursor: Annotated[CursorText | None, Query(description="next_cursor of the previous page.")] = None,
    limit: Annotated[int, Query(ge=1, le=100, description="Papers per page (1..100).")] = 50,
) -> PapersPage:
    return page_papers(ctx, cursor, limit)


@router.get("/papers/{paper_id:path}", response_model=PaperView, summary="One paper and the triples it states",
            responses={404: {"model": ErrorResponse}, 422: {"model": ErrorResponse}, 503: {"model": ErrorResponse}})
def paper(ctx: Context, paper_id: Annotated[KeyText, Path(
        description="Paper id (doi:..., arxiv:..., sha256:...), a bare DOI or arXiv id, or a sha256 prefix (8+).")]
          ) -> PaperView:
    return get_paper(ctx, paper_id)
