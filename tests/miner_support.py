"""Shared helpers for the miner tests: synthetic papers, scripted-LLM clients and reply builders."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from motivgraph.ingest.models import Paper, Section
from motivgraph.llm.tokens import content_text
from motivgraph.miner.parents import Item
from motivgraph.miner.schemas import NodeText
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
# what a faithful model quotes for it from INTRO (#39: the quotes are checked against the paper's text)
GOOD_TRIPLE["problem"]["quotes"] = [INTRO.split("\n\n")[0]]  # type: ignore[index]
GOOD_TRIPLE["challenge"]["quotes"] = [  # type: ignore[index]
    "However, most of the world's languages have only a few thousand parallel sentences, and translation quality "
    "drops sharply in this low-resource setting because the models overfit the small data."]
GOOD_TRIPLE["solution"]["quotes"] = [  # type: ignore[index]
    "In this paper we propose FooNet, a method that transfers knowledge from related high-resource languages "
    "through shared subword vocabularies and parameter sharing in a multilingual encoder."]
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


# -- a hand-built problem set whose right grouping is known (parent addition tests) --
NODES = {
    "translation": [
        ("Low-resource neural machine translation", "Translating between languages with little parallel data."),
        ("Unsupervised machine translation", "Learning to translate between languages from monolingual text only."),
        ("Document-level machine translation", "Translating whole documents while keeping context across sentences."),
        ("Simultaneous speech translation", "Translating spoken language into another language in real time."),
    ],
    "image": [
        ("Fine-grained image classification", "Recognising visually similar subcategories such as bird species."),
        ("Few-shot image classification", "Classifying images of new categories from a handful of labelled examples."),
        ("Medical image classification", "Assigning diagnostic labels to medical images such as chest X-rays."),
    ],
    "other": [
        ("Protein structure prediction", "Predicting the 3D structure of a protein from its amino-acid sequence."),
        ("Traffic flow forecasting", "Predicting future traffic volumes on road networks from past measurements."),
    ],
}
GROUP_OF = {name: g for g, rows in NODES.items() for name, _ in rows}
NEW_TRANSLATION = ("Multilingual machine translation", "Translating among many languages with one shared model.")
GROUP_OF[NEW_TRANSLATION[0]] = "translation"
PARENT_GROUP = {"Machine translation": "translation", "Image classification": "image"}


def items() -> list[Item]:
    return [Item(f"problem:{n.lower()}", NodeText(name=n, description=d)) for rows in NODES.values() for n, d in rows]


def judge_reply(messages) -> str:  # type: ignore[no-untyped-def]
    """A parent judge that knows the right grouping: covers candidates of the focal node's group;
    for join questions, says yes when the new node belongs to the parent's group."""
    text = content_text(messages[-1].content)
    if "Does the parent cover it?" in text:
        parent = re.search(r"Parent:\n(.+?):", text).group(1)  # type: ignore[union-attr]
        new = re.search(r"New problem:\n(.+?):", text).group(1)  # type: ignore[union-attr]
        covers = PARENT_GROUP.get(parent) is not None and PARENT_GROUP.get(parent) == GROUP_OF.get(new)
        return json.dumps({"covers": covers, "reason": "scripted"})
    focal = re.search(r"Focal problem:\n(.+?):", text).group(1)  # type: ignore[union-attr]
    group = GROUP_OF.get(focal)
    cands = re.findall(r"^(\d+)\. (.+?):", text, re.M)
    if "Do all of them together" in text:  # the B.4 question: yes only when the whole group is one family
        if group in (None, "other") or any(GROUP_OF.get(name) != group for _, name in cands):
            return json.dumps({"create": False, "name": "", "description": "", "reason": "mixed"})
        parent = {"translation": "Machine translation", "image": "Image classification"}[group]  # type: ignore[index]
        return json.dumps({"create": True, "name": parent, "description": f"General task of {parent.lower()}.",
                           "reason": "same task family"})
    members = [int(i) for i, name in cands if group not in (None, "other") and GROUP_OF.get(name) == group]
    if not members:
        return json.dumps({"create": False, "members": [], "name": "", "description": "", "reason": "unrelated"})
    parent = {"translation": "Machine translation", "image": "Image classification"}[group]  # type: ignore[index]
    return json.dumps({"create": True, "members": members, "name": parent,
                       "description": f"General task of {parent.lower()}.", "reason": "same task family"})
