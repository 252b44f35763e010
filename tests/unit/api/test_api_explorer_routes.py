"""Explorer routes: every deep link returns the page, its assets (with the vendored Cytoscape.js) are served
locally, nothing on the page comes from another host, and the page shell stays open on a keyed server."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from motivgraph.settings import Settings

EXTERNAL = re.compile(r"""(?:src|href)=["'](?:https?:)?//""", re.I)


def _app(tmp_path: Path, key: str | None = None):  # type: ignore[no-untyped-def]
    from motivgraph.api.app import create_app

    s = Settings(data_dir=tmp_path / "data", _env_file=None)  # type: ignore[call-arg]
    if key:
        s.api.api_key = SecretStr(key)
    return create_app(s)


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=_app(tmp_path)), base_url="http://localhost") as c:
        yield c


@pytest.mark.parametrize("path", ["/explorer", "/explorer?q=routing", "/explorer/node/challenge%3Arouting%20in%20x",
                                  "/explorer/node/a%2Fb", "/explorer/paper/doi%3A10.1000%2Fwsn",
                                  "/explorer/paper/sha256:abc"])
async def test_deep_links_load_the_page(client: httpx.AsyncClient, path: str) -> None:
    r = await client.get(path)
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert 'id="graph"' in r.text and not EXTERNAL.search(r.text)


async def test_assets_are_local_and_whitelisted(client: httpx.AsyncClient) -> None:
    page = (await client.get("/explorer")).text
    refs = re.findall(r"""(?:src|href)=["'](/explorer-assets/[^"']+)["']""", page)
    assert {f"/explorer-assets/{n}" for n in ("cytoscape.min.js", "explorer.js", "explorer.css")} <= set(refs)
    for ref in refs:
        r = await client.get(ref)
        assert r.status_code == 200 and len(r.content) > 500, ref
    cy = (await client.get("/explorer-assets/cytoscape.min.js")).text
    assert "cytoscape" in cy[:2000].lower()
    assert "Permission is hereby granted" in (await client.get("/explorer-assets/cytoscape-LICENSE.txt")).text
    assert (await client.get("/explorer-assets/explorer.html")).status_code == 404
    assert (await client.get("/explorer-assets/..%2Fapp.py")).status_code == 404


async def test_keyed_server_opens_the_page_shell_but_not_the_api(tmp_path: Path) -> None:
    app = _app(tmp_path, key="k" * 24)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as c:
        assert (await c.get("/explorer/node/challenge%3Ax")).status_code == 200
        assert (await c.get("/explorer-assets/explorer.js")).status_code == 200
        assert (await c.get("/nodes/challenge%3Ax")).status_code == 401
        assert (await c.get("/stats")).status_code == 401
        assert (await c.get("/explorerx")).status_code == 401
