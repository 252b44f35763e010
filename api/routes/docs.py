"""`/docs` (Swagger UI) and `/redoc` served from local assets, so the API docs work offline.

The assets come from the pinned `fastapi-offline` package (Swagger UI and ReDoc bundles, MIT); FastAPI's
default pages load them from a CDN, which leaves /docs blank on an air-gapped machine. The bundles themselves are
served with every source they would fetch from another host by themselves (an image `src`, a CSS `url()`) made
empty: ReDoc's side menu shows its vendor's logo from a CDN, which now fails to load locally and is hidden, so
opening /redoc sends nothing off the machine."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import fastapi_offline
from fastapi import APIRouter, HTTPException, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, Response

router = APIRouter(include_in_schema=False)

ASSETS_PREFIX = "/docs-assets"
# Only these files are served (never a path from the request); name -> media type
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}


# a source a script or stylesheet fetches by itself from another host; links the reader may click (href) are not
_REMOTE_SRC = re.compile(r"""(\b(?:src|srcset|poster)\s*[:=]\s*)(["'`])(?:https?:)?//[^"'`]*\2""", re.I)
_REMOTE_URL = re.compile(r"""url\(\s*(["']?)(?:https?:)?//[^)"']*\1\s*\)""", re.I)
_NOWHERE = "data:,"  # an empty resource: an image there fails to load (ReDoc then drops its logo)
_CACHE = {"Cache-Control": "public, max-age=86400"}


def assets_dir() -> Path:
    return Path(fastapi_offline.__file__).resolve().parent / "static"


def _openapi_url(request: Request) -> str:
    return request.scope.get("root_path", "") + (request.app.openapi_url or "/openapi.json")


@router.get("/docs", response_class=HTMLResponse)
def swagger_ui(request: Request) -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url=_openapi_url(request), title=f"{request.app.title} — API docs",
        swagger_js_url=f"{ASSETS_PREFIX}/swagger-ui-bundle.js", swagger_css_url=f"{ASSETS_PREFIX}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS_PREFIX}/favicon.png",
        swagger_ui_parameters={"validatorUrl": None},  # no badge fetched from validator.swagger.io
    )


@router.get("/redoc", response_class=HTMLResponse)
def redoc(request: Request) -> HTMLResponse:
    return get_redoc_html(
        openapi_url=_openapi_url(request), title=f"{request.app.title} — API reference",
        redoc_js_url=f"{ASSETS_PREFIX}/redoc.standalone.js", redoc_favicon_url=f"{ASSETS_PREFIX}/favicon.png",
        with_google_fonts=False,
    )


@lru_cache(maxsize=len(ASSETS))
def local_only(name: str) -> bytes:
    """The text asset `name` with every remote source it would fetch by itself pointed nowhere."""
    text = (assets_dir() / name).read_text(encoding="utf-8")
    text = _REMOTE_SRC.sub(lambda m: f"{m[1]}{m[2]}{_NOWHERE}{m[2]}", text)
    return _REMOTE_URL.sub(f'url("{_NOWHERE}")', text).encode("utf-8")


@router.get(ASSETS_PREFIX + "/{name}")
def asset(name: str) -> Response:
    media = ASSETS.get(name)
    if media is None:
        raise HTTPException(404, f"No docs asset {name!r}")
    if media.startswith("text/"):
        return Response(local_only(name), media_type=media, headers=_CACHE)
    return FileResponse(assets_dir() / name, media_type=media, headers=_CACHE)
