"""POST /tools/<name>: the researcher tools; GET /tools: their function-calling definitions."""

from __future__ import annotations

from fastapi import APIRouter

from motivgraph.api.contract.models import (
    LiteratureSearchRequest,
    LiteratureSearchResult,
    NodeRelationRequest,
    NodeRelationResult,
    NodeSearchRequest,
    NodeSearchResult,
    RandomNodesRequest,
    RandomNodesResult,
    TransferRequest,
    TransferResult,
)
from motivgraph.api.contract.tools import BY_NAME, openai_tools
from motivgraph.api.deps import Service
from motivgraph.api.errors import ErrorResponse
from motivgraph.api.models import ToolsList

router = APIRouter(prefix="/tools", tags=["tools"])

_ERR = {422: {"model": ErrorResponse, "description": "An argument breaks a limit."},
        503: {"model": ErrorResponse, "description": "Graph, index or external service unavailable."}}


def _doc(name: str) -> dict:
    return {"summary": name, "description": BY_NAME[name].description}


@router.get("", response_model=ToolsList, summary="Tool definitions (OpenAI function-calling JSON schemas)")
def list_tools() -> ToolsList:
    return ToolsList(tools=openai_tools())


@router.post("/node_search", response_model=NodeSearchResult, responses=_ERR, **_doc("node_search"))
def node_search(req: NodeSearchRequest, svc: Service) -> NodeSearchResult:
    return svc.node_search(req)


@router.post("/node_relation", response_model=NodeRelationResult, **_doc("node_relation"),
             responses={**_ERR, 404: {"model": ErrorResponse, "description": "No name resolved; suggestions given."}})
def node_relation(req: NodeRelationRequest, svc: Service) -> NodeRelationResult:
    return svc.node_relation(req)


@router.post("/random_nodes", response_model=RandomNodesResult, responses=_ERR, **_doc("random_nodes"))
def random_nodes(req: RandomNodesRequest, svc: Service) -> RandomNodesResult:
    return svc.random_nodes(req)


@router.post("/literature_search", response_model=LiteratureSearchResult, responses=_ERR,
             **_doc("literature_search"))
async def literature_search(req: LiteratureSearchRequest, svc: Service) -> LiteratureSearchResult:
    return await svc.literature_search(req)


@router.post("/transfer_candidates", response_model=TransferResult, responses=_ERR, **_doc("transfer_candidates"))
def transfer_candidates(req: TransferRequest, svc: Service) -> TransferResult:
    return svc.transfer_candidates(req)
