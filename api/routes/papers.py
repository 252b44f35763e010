from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from motivgraph.api.deps import Context, KeyText
from motivgraph.api.errors import ErrorResponse
from motivgraph.api.services.browse import PaperView, get_paper

router = APIRouter(tags=["graph"])


@router.get("/papers/{paper_id:path}", response_model=PaperView, summary="One paper and the triples it states",
            responses={404: {"model": ErrorResponse}, 422: {"model": ErrorResponse}, 503: {"model": ErrorResponse}})
def paper(ctx: Context, paper_id: Annotated[KeyText, Path(description="Paper id (doi:..., arxiv:..., sha256:...).")]
          ) -> PaperView:
    return get_paper(ctx, paper_id)
