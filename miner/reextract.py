"""Re-extraction: stored papers through the current extractor again (`motivgraph ingest --re-extract`), replacing
their triples and provenance. A job of the re-processing engine (miner/reprocess.py), resumable like every job."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from motivgraph.errors import ConfigError
from motivgraph.ingest.cache import ParsedCache
from motivgraph.ingest.identity import resolve_paper_id
from motivgraph.miner.extractions import ExtractionStore
from motivgraph.miner.extractor_choice import decide_extractor
from motivgraph.miner.reprocess import (
    EXTRACTORS,
    Job,
    Note,
    ReprocessReport,
    doc_keys,
    extractor_of,
    ledger_files,
    plan_job,
    with_job,
)

if TYPE_CHECKING:
    from motivgraph.graph.runtime import Runtime
    from motivgraph.llm import LLMClient
    from motivgraph.miner.schemas import ExtractorName
    from motivgraph.settings import Settings


async def reextract(
    settings: Settings,
    *,
    only_extractor: str | None = None,
    paper_ids: Sequence[str] | None = None,
    client: LLMClient | None = None,
    mode: ExtractorName | None = None,
    note: Note | None = None,
) -> ReprocessReport:
    """Re-run the miner with the current extractor on stored papers (all, those a given extractor
    produced, or the given ids), replacing their triples and provenance. `client`/`mode` override
    the extractor decision (`decide_extractor`); the client is closed here. Resumable."""
    if only_extractor is not None and only_extractor not in EXTRACTORS:
        raise ConfigError(f"--only-extractor must be one of {', '.join(EXTRACTORS)} (got {only_extractor!r})")
    if mode is None:
        mode, chosen = decide_extractor(settings)
        if client is None:
            client = chosen
        elif chosen is not None:
            chosen.close()
    skipped: list[tuple[str, str]] = []

    def plan(rt: Runtime) -> Job | None:
        skipped.clear()  # planning again after a reconnect
        store = rt.store
        wanted = [resolve_paper_id(store, p) for p in paper_ids] if paper_ids else [p.paper_id for p in
                                                                                      store.iter_papers()]
        extractions = ExtractionStore.for_data_dir(settings.data_dir)
        try:
            chosen = [p for p in wanted if only_extractor is None
                      or extractor_of(store, extractions, p) == only_extractor]
        finally:
            extractions.close()
        keys = doc_keys(settings, store, chosen)
        cache = ParsedCache.for_data_dir(settings.data_dir)
        files = ledger_files(settings)
        targets = []
        for pid in chosen:
            key = keys.get(pid)
            if key is not None and (key in cache or files.get(key, Path("/nonexistent")).exists()):
                targets.append(pid)
            elif key is None:
                skipped.append((pid, "no ingested document (imported?): nothing to extract from"))
            else:
                skipped.append((pid, "no parsed copy and its file is gone: ingest the file again"))
        if not targets:
            return None
        job = plan_job(rt, "reextract", reextract=targets)
        job.only_extractor = only_extractor
        return job

    report = await with_job(settings, "reextract", plan, same=lambda j: j.kind == "reextract", client=client,
                             mode=mode, note=note)
    report.skipped += skipped
    return report
