"""The built-in graph explorer: one page whose views all have URLs (`/explorer?q=…`,
`/explorer/node/<key>`, `/explorer/paper/<id>`), so every deep link loads directly; its script, style
and the vendored Cytoscape.js come from `/explorer-assets/` (no CDN)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse

router = APIRouter(tags=["explorer"], include_in_schema=False)

STATIC = Path(__file__).resolve().parents[1] / "static"
ASSETS_PREFIX = "/explorer-assets"
CYTOSCAPE_VERSION = "3.35.0"  # vendored from npm (`npm pack cytoscape@3.35.0`, dist/cytoscape.min.js), MIT
# Only these files are served (never a path taken from the request): URL name -> (file, media type)
ASSETS: dict[str, tuple[str, str]] = {
    "explorer.js": ("explorer.js", "text/javascript"),
    "explorer.css": ("explorer.css", "text/css"),
    "cytoscape.min.js": (f"vendor/cytoscape-{CYTOSCAPE_VERSION}.min.js", "text/javascript"),
    "cytoscape-LICENSE.txt": ("vendor/cytoscape-LICENSE.txt", "text/plain"),
}


@cache
def _page() -> str:
    return (STATIC / "explorer.html").read_text(encoding="utf-8")


def _html() -> HTMLResponse:
    return HTMLResponse(_page(), headers={"Cache-Control": "no-cache"})


@router.get("/", response_class=RedirectResponse)
def root() -> RedirectResponse:
    return RedirectResponse("/explorer")


@router.get("/explorer", response_class=HTMLResponse)
def explorer() -> HTMLResponse:
    return _html()


@router.get("/explorer/node/{key:path}", response_class=HTMLResponse)
def explorer_node(key: str) -> HTMLResponse:
    return _html()  # the page reads the key from its URL and asks /nodes/<key>


@router.get("/explorer/paper/{paper_id:path}", response_class=HTMLResponse)
def explorer_paper(paper_id: str) -> HTMLResponse:
    return _html()  # the page reads the id from its URL and asks /papers/<id>


@router.get(ASSETS_PREFIX + "/{name}")
def explorer_asset(name: str) -> FileResponse:
    entry = ASSETS.get(name)
    if entry is None:
        raise HTTPException(404, f"No explorer asset {name!r}")
    file, media = entry
    return FileResponse(STATIC / file, media_type=media, headers={"Cache-Control": "no-cache"})
