"""A small built-in page for browsing nodes and triples without Neo4j Browser."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, RedirectResponse

router = APIRouter(tags=["explorer"], include_in_schema=False)

STATIC = Path(__file__).resolve().parents[1] / "static"


@cache
def _page() -> str:
    return (STATIC / "explorer.html").read_text(encoding="utf-8")


@router.get("/", response_class=RedirectResponse)
def root() -> RedirectResponse:
    return RedirectResponse("/explorer")


@router.get("/explorer", response_class=HTMLResponse)
def explorer() -> HTMLResponse:
    return HTMLResponse(_page(), headers={"Cache-Control": "no-cache"})
