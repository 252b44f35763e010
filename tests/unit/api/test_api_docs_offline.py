"""/docs and /redoc work offline: their pages reference only local assets, which the app serves; every
request model carries a valid example for the docs' "Try it out"."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from motivgraph.api.contract.tools import all_tools
from motivgraph.settings import Settings

EXTERNAL = re.compile(r"""(?:https?:)?//[\w.-]+\.[a-z]{2,}""", re.I)
ASSET_REF = re.compile(r"""(?:src|href)=["']([^"']+)["']|url:\s*["']([^"']+)["']""")


@pytest.fixture
async def client(tmp_path: Path) -> httpx.AsyncClient:
    from motivgraph.api.app import create_app

    app = create_app(Settings(data_dir=tmp_path / "data", _env_file=None))  # type: ignore[call-arg]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as c:
        yield c


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
async def test_docs_pages_reference_only_local_assets(client: httpx.AsyncClient, page: str) -> None:
    r = await client.get(page)
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert not EXTERNAL.findall(r.text), f"{page} references an external URL: {EXTERNAL.findall(r.text)}"
    refs = [a or b for a, b in ASSET_REF.findall(r.text)]
    assert any(ref.endswith(".js") for ref in refs), refs
    for ref in refs:
        assert ref.startswith("/"), ref
        asset = await client.get(ref)
        assert asset.status_code == 200, ref
        assert len(asset.content) > 100, ref


async def test_docs_asset_route_serves_only_its_files(client: httpx.AsyncClient) -> None:
    js = await client.get("/docs-assets/swagger-ui-bundle.js")
    assert js.status_code == 200 and "javascript" in js.headers["content-type"]
    assert (await client.get("/docs-assets/core.py")).status_code == 404
    assert (await client.get("/docs-assets/..%2f__init__.py")).status_code == 404


def test_every_request_model_has_a_valid_example() -> None:
    for spec in all_tools():
        examples = spec.request.model_json_schema().get("examples")
        assert examples, f"{spec.request.__name__} has no example"
        for ex in examples:
            spec.request.model_validate(ex)  # an example that the API would reject is worse than none


async def test_openapi_request_bodies_show_the_examples(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    schemas = spec["components"]["schemas"]
    for tool in all_tools():
        assert schemas[tool.request.__name__].get("examples"), tool.request.__name__


# what a browser fetches by itself from a script or a stylesheet: an image/frame/script source or a CSS url()
# (a link the reader may click, href, is not a fetch)
SELF_FETCH = re.compile(r"""\b(?:src|srcset|poster)\s*[:=]\s*["'`]((?:https?:)?//[^"'`]+)"""
                        r"""|url\(\s*["']?((?:https?:)?//[^)"']+)""", re.I)


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
async def test_docs_assets_fetch_nothing_from_another_host(client: httpx.AsyncClient, page: str) -> None:
    """Not only the page: the bundles it loads must not load anything from another host either (ReDoc's bundle
    shows a logo from its vendor's CDN in the side menu)."""
    html = (await client.get(page)).text
    refs = [a or b for a, b in ASSET_REF.findall(html)]
    for ref in refs:
        body = (await client.get(ref)).text
        found = [a or b for a, b in SELF_FETCH.findall(body)]
        assert not found, f"{ref} (loaded by {page}) fetches from another host: {found[:5]}"
