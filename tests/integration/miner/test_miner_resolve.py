"""Identity resolution across papers on the embedded graph + FAISS index: exact, alias,
near-duplicate auto-merge, the LLM band both ways (and cached), no-LLM band, homonyms kept apart."""

from __future__ import annotations

import json

import pytest

from motivgraph.graph.runtime import Runtime
from motivgraph.miner.schemas import ExtractedTriple, ExtractionResult, NodeText
from motivgraph.miner.sink import MinerSink
from tests.miner_support import make_paper, scripted_client

NMT = ("Low-resource neural machine translation",
       "Translating text between languages for which only small parallel corpora exist.")
NMT_VARIANT = ("Low-resource neural machine translation systems",
               "Translating text between languages for which only small parallel corpora exist.")
NMT_PARAPHRASE = ("Machine translation for languages with scarce data",
                  "Building translation systems for languages that lack large bilingual corpora.")


def triple(problem: tuple[str, str], i: int = 0) -> ExtractedTriple:
    return ExtractedTriple(
        problem=NodeText(name=problem[0], description=problem[1]),
        challenge=NodeText(name=f"Distinct challenge number {i} in this domain",
                           description=f"A difficulty specific to case {i} of the problem at hand."),
        solution=NodeText(name=f"Distinct solution number {i} built on general principles",
                          description=f"A technique addressing difficulty {i} with general components."),
        section="introduction",
    )


def resolver_reply(same: bool):  # type: ignore[no-untyped-def]
    return json.dumps({"same": same, "reason": "scripted verdict"})


@pytest.fixture
def make_sink(settings, store, embedder):  # type: ignore[no-untyped-def]
    sinks: list[MinerSink] = []

    def build(replies=(), *, auto=0.95, band=0.7, homonym=0.35, llm=True):  # type: ignore[no-untyped-def]
        settings.miner.merge_auto_threshold = auto
        settings.miner.merge_llm_threshold = band
        settings.miner.homonym_min_desc_similarity = homonym
        rt = Runtime(settings)
        client = scripted_client(settings, replies)[0] if llm else None
        sink = MinerSink(rt, client=client, mode="llm" if llm else "heuristic")
        sinks.append(sink)
        return sink

    yield build
    for s in sinks:
        s.close()
        s.runtime.close()


async def store_triples(sink: MinerSink, pid: str, *triples: ExtractedTriple) -> dict[str, int]:
    res = ExtractionResult(paper_id=pid, extractor="llm", triples=list(triples))
    async with sink._lock:
        return await sink._store(make_paper(pid), res)


def problems(store) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    return {n.key: n.aliases for n in store.iter_nodes(types=["problem"])}


async def test_exact_name_merges_across_papers(make_sink, store) -> None:  # type: ignore[no-untyped-def]
    sink = make_sink()
    await store_triples(sink, "a", triple(NMT, 0))
    counts = await store_triples(sink, "b", triple(NMT, 1))
    assert counts["merges"] == 1
    assert list(problems(store)) == ["problem:low resource neural machine translation"]
    rows = sink.decisions.merges(paper_id="b", decision="exact")
    assert rows and rows[0]["final_key"] == "problem:low resource neural machine translation"
    assert rows[0]["desc_score"] > 0.9


async def test_near_duplicate_auto_merges_then_alias_matches(make_sink, store) -> None:  # type: ignore[no-untyped-def]
    sink = make_sink()
    await store_triples(sink, "a", triple(NMT, 0))
    await store_triples(sink, "b", triple(NMT_VARIANT, 1))
    assert problems(store) == {"problem:low resource neural machine translation": [NMT_VARIANT[0]]}
    auto = sink.decisions.merges(paper_id="b", decision="auto_merge")
    assert auto and auto[0]["score"] >= 0.95
    sink.resolver.forget_recent()
    sink._flush_index()
    await store_triples(sink, "c", triple(NMT_VARIANT, 2))
    assert sink.decisions.merges(paper_id="c", decision="alias")[0]["final_key"] == (
        "problem:low resource neural machine translation")


async def test_llm_band_merge_yes(make_sink, store) -> None:  # type: ignore[no-untyped-def]
    sink = make_sink([resolver_reply(True)])
    await store_triples(sink, "a", triple(NMT, 0))
    await store_triples(sink, "b", triple(NMT_PARAPHRASE, 1))
    assert list(problems(store)) == ["problem:low resource neural machine translation"]
    row = sink.decisions.merges(paper_id="b", decision="llm_merge")[0]
    assert 0.7 <= row["score"] < 0.95 and row["reason"] == "scripted verdict"


async def test_llm_band_keep_apart_and_verdict_is_cached(make_sink, store) -> None:  # type: ignore[no-untyped-def]
    sink = make_sink([resolver_reply(False)])
    await store_triples(sink, "a", triple(NMT, 0))
    await store_triples(sink, "b", triple(NMT_PARAPHRASE, 1))
    assert len(problems(store)) == 2
    assert sink.decisions.merges(paper_id="b", decision="llm_apart")
    # the same question again (a re-run) is answered from the decision log: no scripted reply is left
    verdict = await sink.resolver._ask("problem", next(iter(store.find_nodes(NMT[0], ["problem"]))),
                                       NodeText(name=NMT_PARAPHRASE[0], description=NMT_PARAPHRASE[1]))
    assert verdict is not None and verdict.same is False


async def test_band_without_llm_keeps_apart(make_sink, store) -> None:  # type: ignore[no-untyped-def]
    sink = make_sink(llm=False)
    await store_triples(sink, "a", triple(NMT, 0))
    await store_triples(sink, "b", triple(NMT_PARAPHRASE, 1))
    assert len(problems(store)) == 2
    assert sink.decisions.merges(paper_id="b", decision="band_no_llm")


async def test_homonyms_with_disagreeing_descriptions_stay_apart(make_sink, store) -> None:  # type: ignore[no-untyped-def]
    sink = make_sink()
    power = ("Transformer design", "Electrical power transformers in distribution grids that step voltage down.")
    neural = ("Transformer design", "Neural network architectures built from self-attention for sequence modelling.")
    await store_triples(sink, "a", triple(power, 0))
    await store_triples(sink, "b", triple(neural, 1))
    keys = sorted(problems(store))
    assert len(keys) == 2 and "problem:transformer design" in keys
    other = next(k for k in keys if k != "problem:transformer design")
    assert other.startswith("problem:transformer design ")
    row = sink.decisions.merges(paper_id="b", decision="homonym")[0]
    assert row["desc_score"] < 0.35 and row["final_key"] == other
    # a third paper about neural transformers joins the disambiguated node, not the power one
    await store_triples(sink, "c", triple(("Transformer design", neural[1] + " Used in language models."), 2))
    assert len(problems(store)) == 2
    assert sink.decisions.merges(paper_id="c")[0]["final_key"] == other
