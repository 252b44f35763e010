"""Shared helpers for the re-processing tests (re-extract, papers delete, merges undo): a small
synthetic corpus as a paper-JSON file, a scripted extractor LLM whose triples overlap across
papers (exact and embedding merges), ingest helpers and the canonical export to compare graphs."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.llm.tokens import content_text
from motivgraph.miner.sink import MinerSink
from motivgraph.settings import GraphSettings, Settings
from tests.miner_support import INTRO, METHOD, scripted_client
from tests.reliability.harness import canonical_lines

MED_INTRO = (
    "Medical image segmentation delineates organs and lesions in computed tomography and magnetic "
    "resonance scans, and it supports diagnosis, radiotherapy planning and the follow-up of patients.\n\n"
    "However, annotated scans are scarce because expert labelling is slow and costly, and segmentation "
    "networks trained on a few hundred labelled scans fail on scans from other hospitals and scanners.\n\n"
    "Self-training with pseudo labels has been tried, but wrong pseudo labels accumulate and degrade the "
    "boundaries of small structures such as lesions and vessels.\n\n"
    "In this paper we propose BarSeg, a semi-supervised method that uses unlabelled scans through "
    "consistency training across strong and weak augmentations. Experiments on three public datasets "
    "show consistent gains over supervised and self-training baselines."
)
BAZ_INTRO = INTRO.replace("FooNet", "BazMT").replace(
    "transfers knowledge from related high-resource languages through shared subword vocabularies and "
    "parameter sharing in a multilingual encoder",
    "augments the small parallel corpus with synthetic sentence pairs built from bilingual dictionaries "
    "and monolingual text",
)
QUX_INTRO = INTRO.replace("FooNet", "QuxMT").replace("Machine translation converts", "Speech translation converts")

# (record id, title, introduction, doi)
PAPERS: list[tuple[str, str, str, str | None]] = [
    ("p0", "FooNet: Transfer Learning for Low-Resource Translation", INTRO, None),
    ("p1", "BarSeg: Semi-Supervised Segmentation of Medical Scans", MED_INTRO, None),
    ("p2", "BazMT: Dictionary Augmentation for Low-Resource Translation", BAZ_INTRO, None),
    ("p3", "QuxMT: Multilingual Pretraining for Low-Resource Translation", QUX_INTRO, "10.1234/Qux.5"),
]
LRMT = "Translating text between languages for which only small parallel corpora exist."
OVERFIT = ("Overfitting to scarce parallel data in translation",
           "With only thousands of sentence pairs, neural translation models overfit and generalise poorly.")


def write_jsonl(path: Path, exclude: tuple[str, ...] = ()) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        for pid, title, intro, doi in PAPERS:
            if pid in exclude:
                continue
            rec: dict[str, Any] = {"paper_id": pid, "title": title, "abstract": intro.split("\n\n")[0],
                                   "sections": [{"heading": "Introduction", "text": intro},
                                                {"heading": "Method", "text": METHOD}]}
            if doi:
                rec["doi"] = doi
            fh.write(json.dumps(rec) + "\n")
    return path


def _node(name: str, description: str) -> dict[str, str]:
    return {"name": name, "description": description}


def extractor_reply(messages: Any) -> str:
    """Triples per paper title. BazMT's problem is spelt differently from FooNet's with the same
    description (an embedding auto-merge); FooNet, BazMT and QuxMT share a challenge by name."""
    text = "\n".join(content_text(m.content) for m in messages)
    m = re.search(r"TITLE: (.+)", text)
    title = m.group(1) if m else ""
    if "BarSeg" in title:
        triples = [{
            "problem": _node("Medical image segmentation", "Delineating organs and lesions in CT and MRI scans."),
            "challenge": _node("Scarcity of annotated medical scans",
                               "Expert labels are slow and costly, so labelled training sets stay small."),
            "solution": _node("Consistency training on unlabelled scans",
                              "Semi-supervised training that enforces consistent predictions across augmentations."),
            "section": "introduction"}]
    else:
        problem = _node("Low-resource neural machine translations" if "BazMT" in title
                        else "Low-resource neural machine translation", LRMT)
        solution = {
            "FooNet": _node("Cross-lingual transfer through shared subword vocabulary",
                            "One multilingual encoder shares subwords and parameters across related languages."),
            "BazMT": _node("Synthetic parallel data from bilingual dictionaries",
                           "Dictionary lookups and monolingual text are turned into extra sentence pairs."),
            "QuxMT": _node("Multilingual pretraining on unlabelled text",
                           "A model pretrained on many languages is fine-tuned on the small parallel corpus."),
        }[title.split(":")[0]]
        triples = [{"problem": problem, "challenge": _node(*OVERFIT), "solution": solution,
                    "section": "introduction"}]
    # quotes copied from the paper the prompt carries, as a faithful model gives them (#39: checked by the gate)
    body = text.split("INTRODUCTION:", 1)[-1]
    sents = [x for x in re.split(r"(?<=[.!?])\s+", " ".join(body.split())) if len(x.split()) >= 6]
    for t in triples:
        for k, role in enumerate(("problem", "challenge", "solution")):
            t[role] = {**t[role], "quotes": sents[k:k + 1]}  # type: ignore[dict-item]
    return json.dumps({"triples": triples, "no_triples_reason": None})


def old_extractor_reply(messages: Any) -> str:
    """An earlier model's reading of the same papers: other names and descriptions for every node."""
    data = json.loads(extractor_reply(messages))
    for t in data["triples"]:
        for role in ("problem", "challenge", "solution"):
            t[role] = {**_node("Early " + t[role]["name"], "Earlier reading: " + t[role]["description"]),
                       "quotes": t[role].get("quotes", [])}
    return json.dumps(data)


def other_settings(base: Path, like: Settings) -> Settings:
    """Settings for a second graph on the same FalkorDB server as `like` (its own data dir)."""
    s = Settings(data_dir=base / f"data-{uuid.uuid4().hex[:6]}", graph=GraphSettings(), _env_file=None)  # type: ignore[call-arg]
    s.graph.falkordb_url = like.graph.falkordb_url
    s.graph.name = f"t_{uuid.uuid4().hex[:12]}"
    return s


async def ingest(settings: Settings, src: Path | list[Path], *, llm: bool, reply: Any = extractor_reply) -> None:
    """Ingest `src` with the scripted LLM extractor or the offline one, one document at a time."""
    if llm:
        client = scripted_llm(settings, reply)
        sink = MinerSink(Runtime(settings), client=client, mode="llm")
    else:
        sink = MinerSink(Runtime(settings), client=None, mode="heuristic")
    try:
        s = await ingest_async(src if isinstance(src, list) else [src], settings, sink=sink, concurrency=1)
    finally:
        sink.close()
    assert s.failed == 0, [o.error for o in s.outcomes]


def scripted_llm(settings: Settings, reply: Any = extractor_reply) -> Any:
    """A scripted extractor client; another reply script is another model name (the LLM reply cache
    is keyed by model, so an 'earlier model' and the current one never share replies)."""
    name = "scripted" if reply is extractor_reply else f"scripted-{getattr(reply, '__name__', 'other')}"
    client, _ = scripted_client(settings, default=reply, model_name=name)
    return client


def canon(settings: Settings) -> list[str]:
    """The canonical export (harness rules), without the input file paths of each paper (its `source_path`, and
    its `provenance`, whose values name the documents its fields came from)."""
    from motivgraph.graph import open_store
    from motivgraph.graph.interchange import export_lines

    store = open_store(settings)
    try:
        lines = []
        for line in export_lines(store):
            obj = json.loads(line)
            obj.pop("source_path", None)
            obj.pop("provenance", None)
            lines.append(json.dumps(obj))
        return canonical_lines(lines)
    finally:
        store.close()


def drop_graph(settings: Settings) -> None:
    from motivgraph.graph import open_store

    store = open_store(settings)
    try:
        store.drop_graph()  # type: ignore[attr-defined]
    finally:
        store.close()


llm = scripted_llm  # the tests' short name


def any_role_reply(messages: Any) -> str:
    """For a scripted model behind every role (CLI tests): extraction prompts get `extractor_reply`,
    any other question (the resolver's) a 'different concepts' verdict."""
    text = "\n".join(content_text(m.content) for m in messages)
    if "TITLE: " in text:
        return extractor_reply(messages)
    return json.dumps({"same": False, "reason": "scripted: kept apart"})


def script_file(path: Path) -> Path:
    """A `scripted:PATH` model file whose replies come from `any_role_reply`."""
    path.write_text(json.dumps({"default": {"call": "tests.reprocess_support:any_role_reply"},
                                "model_name": "scripted-cli"}), encoding="utf-8")
    return path
