"""Evidence with the real local model (#39): SmolLM2 extracts five corpus papers; the verifier checks its
quotes; the verified-quote rate is measured and the extraction gate's decision must follow from it, with
the reason (`ingest` exits 6 naming the rate and the fix when the rate is under the threshold or no
triple came out, 0 otherwise). Mechanics only: a 135M model's quotes are whatever it writes."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from tests.real_llm.support import real_env, run_cli, settings_for, text_pdfs

pytestmark = pytest.mark.real_llm


def test_local_model_verified_rate_and_the_gate_decision(local_llm: Path, tmp_path: Path) -> None:
    from motivgraph.embeddings import get_embedder
    from motivgraph.ingest.parsers import make_parser
    from motivgraph.ingest.walker import sha256_file
    from motivgraph.llm import LLMClient
    from motivgraph.miner.evidence import PaperText, QuoteTally, triple_evidence
    from motivgraph.miner.extract import LLMExtractor
    from motivgraph.miner.gate import ExtractionGate
    from motivgraph.miner.sink import has_text

    pdf_dir = tmp_path / "pdfs"
    pdf_dir.mkdir()
    for p in text_pdfs(5):
        shutil.copy(p, pdf_dir / p.name)
    data = tmp_path / "data"
    settings = settings_for(data, local_llm)
    client = LLMClient(settings)

    async def go():  # type: ignore[no-untyped-def]
        parser = await make_parser(settings.ingest, "pdf", workers=1)
        try:
            papers = [await parser.parse(p, sha256_file(p)) for p in sorted(pdf_dir.glob("*.pdf"))]
        finally:
            await parser.aclose()
        ext = LLMExtractor(client, settings.miner, get_embedder(settings.embedding))
        return [(paper, await ext.extract(paper)) for paper in papers]

    try:
        extracted = asyncio.run(go())
    finally:
        client.close()
    gate = ExtractionGate(len(extracted), settings.miner.gate_min_verified_rate, accept=False)
    total = QuoteTally()
    for paper, res in extracted:
        tally = QuoteTally()
        pt = PaperText.of(paper)
        for t in res.triples:
            ev = triple_evidence(pt, t)
            tally.add(ev)
            for e in ("problem", "challenge", "solution"):
                for q in ev.of(e):  # type: ignore[arg-type]
                    assert q.verified or q.reason, q  # every unverified quote says why
        if has_text(paper, settings.miner):  # what the ingest's gate counts
            total.given += tally.given
            total.located += tally.located
            gate.record(tally)
    # the figure beside it: the quotes of the triples that broke the naming rules (not stored, not gated)
    rejected = QuoteTally()
    for paper, res in extracted:
        pt = PaperText.of(paper)
        for r in res.rejected:
            rejected.add(triple_evidence(pt, r.triple))
    print(f"local:smollm2 rejected triples' quotes: {rejected.located}/{rejected.given} located")
    decision = gate.decide()
    assert decision is not None and decision.papers >= 1
    assert decision.rate == total.rate
    expected_pass = total.rate is not None and total.rate >= settings.miner.gate_min_verified_rate
    assert decision.passed == expected_pass
    print(f"local:smollm2 on 5 corpus papers ({decision.papers} with text): {total.located}/{total.given} quotes "
          f"located (rate {total.rate}), gate {'passes' if decision.passed else 'stops'}")

    # the same papers through `ingest` (the replies come from the cache): its exit code is the gate's decision
    env = real_env(data, local_llm, MOTIVGRAPH_MINER_GATE_PAPERS="5")
    r = run_cli(["ingest", str(pdf_dir), "--json"], env)
    if decision.passed:
        # every paper here has a text layer and parsed above: a document that fails in ingest is a failed run
        assert r.returncode == 0, r.stdout + r.stderr
    else:
        assert r.returncode == 6, r.stdout + r.stderr
        assert "extraction gate" in r.stderr and ("--accept-unverified" in r.stderr or "stronger" in r.stderr)
        out = json.loads(r.stdout[r.stdout.index("{"):])
        assert out is not None
