"""Which extractor an ingest (or `extract`, or a re-extraction) uses: the one decision, made from the settings.

The LLM miner when an extractor model is configured (MOTIVGRAPH_LLM_MODEL, or a role override), else the offline
heuristic; `OFFLINE_NOTICE` says so plainly when it falls back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from motivgraph.llm.factory import is_configured

if TYPE_CHECKING:
    from motivgraph.llm import LLMClient
    from motivgraph.miner.schemas import ExtractorName
    from motivgraph.settings import Settings

OFFLINE_NOTICE = (
    "No LLM configured: using the OFFLINE heuristic extractor (rough triples, extractor=heuristic). "
    "For full SciMotivMiner quality set MOTIVGRAPH_LLM_MODEL (e.g. 'openai:gpt-4o-mini' with "
    "OPENAI_API_KEY, 'deepseek:deepseek-chat' with DEEPSEEK_API_KEY, or 'vllm:<model>' with "
    "MOTIVGRAPH_LLM_BASE_URL) and re-run."
)


def extractor_mode(settings: Settings, client: LLMClient | None) -> ExtractorName:
    """'llm' or 'heuristic' from settings.miner.extractor and whether an extractor model is set."""
    mode = settings.miner.extractor
    if mode == "auto":
        return "llm" if client is not None and client.is_configured("extractor") else "heuristic"
    return mode


def decide_extractor(
    settings: Settings, *, budget_usd: float | None = None, offline: bool = False
) -> tuple[ExtractorName, LLMClient | None]:
    """The one extractor decision (ingest, dry run, `extract`): ('llm', client) when an extractor model
    is configured (or the LLM extractor is forced by settings, then a missing model is a ConfigError
    naming the setting), else ('heuristic', None). The caller owns and closes the client."""
    if offline or settings.miner.extractor == "heuristic":
        return "heuristic", None

    if not is_configured(settings.llm, "extractor") and settings.miner.extractor != "llm":
        return "heuristic", None  # decided from the settings alone: the offline path never loads the LLM stack
    from motivgraph.llm import LLMClient  # local: offline ingest loads no LangChain

    candidate = LLMClient(settings, budget_usd=budget_usd)
    if candidate.is_configured("extractor"):
        return "llm", candidate
    try:
        if settings.miner.extractor == "llm":
            candidate.require("extractor")  # raises ConfigError naming the setting
    finally:
        candidate.close()
    return "heuristic", None
