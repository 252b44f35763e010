"""Shared helpers for the miner tests: synthetic papers, scripted-LLM clients and reply builders."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ingest.models import Paper, Section
from motivgraph.settings import Settings

INTRO = (
    "Machine translation converts text from one natural language into another and underpins "
    "cross-lingual communication, search and information access for billions of people.\n\n"
    "Neural models reach high quality when millions of parallel sentences are available. However, "
    "most of the world's languages have only a few thousand parallel sentences, and translation "
    "quality drops sharply in this low-resource setting because the models overfit the small data.\n\n"
    "Existing remedies such as back-translation depend on large monolingual corpora and remain "
    "difficult to apply to languages with little written text.\n\n"
    "In this paper we propose FooNet, a method that transfers knowledge from related high-resource "
    "languages through shared subword vocabularies and parameter sharing in a multilingual encoder. "
    "Our contributions are a transfer scheme, an analysis of vocabulary overlap, and experiments on "
    "twelve language pairs showing consistent gains."
)
METHOD = (
    "FooNet trains a single encoder on the union of high-resource and low-resource pairs. Subword units "
    "are learned jointly so that related languages share tokens. The decoder is fine-tuned per pair."
)


def make_paper(pid: str = "p1", *, title: str = "FooNet: Transfer Learning for Low-Resource Translation",
               intro: str = INTRO, abstract: str | None = None, method: str = METHOD) -> Paper:
    abstract = abstract if abstract is not None else (
        "We study translation for languages with little parallel data and propose a transfer approach "
        "that shares vocabularies and parameters with related languages."
    )
    secs = [Section(heading="Introduction", number="1", text=intro, role="introduction")]
    if method:
        secs.append(Section(heading="Method", number="2", text=method, role="method"))
    return Paper(paper_id=pid, title=title, abstract=abstract, sections=secs, parser="test")


def node(name: str, description: str) -> dict[str, str]:
    return {"name": name, "description": description}


GOOD_TRIPLE = {
    "problem": node("Low-resource neural machine translation",
                    "Translating text between languages for which only small parallel corpora exist."),
    "challenge": node("Overfitting to scarce parallel data in translation",
                      "With only thousands of sentence pairs, neural translation models overfit and generalise "
                      "poorly, which lowers translation quality for low-resource languages."),
    "solution": node("Cross-lingual transfer through shared subword vocabulary and parameters",
                     "A single multilingual encoder is trained on related high-resource and low-resource pairs "
                     "with a jointly learned subword vocabulary, so knowledge transfers between languages."),
    "section": "introduction",
}
COINED_TRIPLE = {**GOOD_TRIPLE, "solution": node(
    "FooNet transfer with shared subword vocabulary and parameters",
    "The FooNet encoder shares subword units and parameters across related languages to transfer knowledge.",
)}


def reply(*triples: dict[str, Any], reason: str | None = None) -> str:
    return json.dumps({"triples": list(triples), "no_triples_reason": reason})


def scripted_client(settings: Settings, replies: Sequence[Any] = (), *, budget_usd: float | None = None,
                    model_name: str = "scripted", **kw: Any):
    """(LLMClient, ScriptedChatModel) with a no-op sleep (retries and rate limits take no time)."""
    from motivgraph.llm import LLMClient, ScriptedChatModel

    model = ScriptedChatModel(list(replies), model_name=model_name, **kw)

    async def no_sleep(_s: float) -> None:
        return None

    client = LLMClient(settings, model=model, budget_usd=budget_usd, sleep=no_sleep, seed=1)
    return client, model
