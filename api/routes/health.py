from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from motivgraph.api.deps import Context
from motivgraph.api.error_responses import ErrorResponse
from motivgraph.api.services.browse import Health, health

router = APIRouter(tags=["health"])


@router.get("/health", response_model=Health, summary="Liveness and readiness of graph and index",
            responses={503: {"model": Health, "description": "The graph is unreachable."}})
def get_health(ctx: Context) -> JSONResponse:
    h = health(ctx)
    return JSONResponse(h.model_dump(mode="json"), status_code=503 if h.status == "down" else 200)


@router.get("/health/live", summary="Liveness only (the process answers)",
            responses={500: {"model": ErrorResponse}})
def live() -> dict[str, str]:
    return {"status": "ok"}
