"""A real GROBID server (docker run -p 8070:8070 lfoppiano/grobid:0.8.1), when one is configured.

    MOTIVGRAPH_INGEST_GROBID_URL=http://localhost:8070 .venv/bin/python -m pytest tests/e2e/test_ingest_grobid_live.py
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from motivgraph.ingest.grobid import GrobidClient
from motivgraph.ingest.parsers import GrobidParser
from motivgraph.settings import IngestSettings

pytestmark = pytest.mark.e2e
URL = os.environ.get("MOTIVGRAPH_INGEST_GROBID_URL")
PDF = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "pdf" / "sp_P07-1088.pdf"


def _alive() -> bool:
    if not URL:
        return False

    async def check() -> bool:
        async with GrobidClient(IngestSettings(grobid_url=URL)) as c:
            return await c.is_alive()

    return asyncio.run(check())


@pytest.mark.skipif(not _alive(), reason="no live GROBID: set MOTIVGRAPH_INGEST_GROBID_URL to a running server")
@pytest.mark.skipif(not PDF.exists(), reason=f"corpus PDF not found at {PDF}")
async def test_live_grobid_parses_a_corpus_pdf() -> None:
    settings = IngestSettings(grobid_url=URL)
    parser = GrobidParser(settings, GrobidClient(settings))
    try:
        paper = await parser.parse(PDF, "e" * 64)
    finally:
        await parser.aclose()
    assert "Sparse Information Extraction" in paper.title
    assert paper.section("introduction")
    assert paper.references
