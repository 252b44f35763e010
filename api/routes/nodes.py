from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from motivgraph.api.contract.models import NodeRelation
from motivgraph.api.deps import Context, KeyText
from motivgraph.api.errors import ErrorResponse
from motivgraph.api.services.browse import get_node

router = APIRouter(tags=["graph"])


@router.get("/nodes/{key:path}", response_model=NodeRelation, summary="One node with its neighbours and triples",
            responses={404: {"model": ErrorResponse, "description": "Unknown node; suggestions given."},
                       422: {"model": ErrorResponse}, 503: {"model": ErrorResponse}})
def node(
    ctx: Context, key: Annotated[KeyText, Path(description="Node key ('challenge:...') or name.")]
) -> NodeRelation:
    return get_node(ctx, key)
