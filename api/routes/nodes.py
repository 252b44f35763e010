from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from motivgraph.api.contract.models import NodeRelation
from motivgraph.api.deps import Context, CursorText, KeyText
from motivgraph.api.error_responses import ErrorResponse
from motivgraph.api.services.browse import NodesPage, get_node, page_nodes
from motivgraph.choices import NodeType

router = APIRouter(tags=["graph"])


@router.get("/nodes", response_model=NodesPage, summary="Page through the nodes (by type, then key)",
            responses={422: {"model": ErrorResponse}, 503: {"model": ErrorResponse}})
def list_nodes(
    ctx: Context,
    type: Annotated[list[NodeType] | None, Query(description="Node types to list (repeat for several); all "
                                                 "when omitted.")] = None,
    cursor: Annotated[CursorText | None, Query(description="next_cursor of the previous page.")] = None,
    limit: Annotated[int, Query(ge=1, le=100, description="Nodes per page (1..100).")] = 50,
) -> NodesPage:
    return page_nodes(ctx, type, cursor, limit)


@router.get("/nodes/{key:path}", response_model=NodeRelation, summary="One node with its neighbours and triples",
            responses={404: {"model": ErrorResponse, "description": "Unknown node; suggestions given."},
                       422: {"model": ErrorResponse}, 503: {"model": ErrorResponse}})
def node(
    ctx: Context, key: Annotated[KeyText, Path(description="Node key ('challenge:...') or name.")]
) -> NodeRelation:
    return get_node(ctx, key)
