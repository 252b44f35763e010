"""Paper JSON records on distinct topics, each with a task sentence, a 'However' challenge and a contribution
sentence that the offline extractor (and a faithful scripted model) can quote: the shared set-up of the miner's
report-count and evidence-gate tests."""

from __future__ import annotations

import json
from pathlib import Path

TOPICS = [
    ("Speech recognition", "transcribed audio", "acoustic encoder"),
    ("Image segmentation", "pixel-level masks", "convolutional decoder"),
    ("Protein structure prediction", "solved structures", "residue graph"),
    ("Legal document retrieval", "relevance judgements", "passage ranker"),
    ("Weather forecasting", "station records", "spatial attention layer"),
    ("Code completion", "annotated programs", "syntax-aware tokenizer"),
]
INTRO = (
    "{task} maps raw inputs to structured outputs and is used across science and industry.\n\n"
    "Neural models reach high accuracy when large amounts of {data} are available. However, most settings "
    "offer only a few thousand examples of {data}, and accuracy drops sharply because the models overfit "
    "the small data.\n\n"
    "Existing remedies depend on large unlabelled corpora and remain difficult to apply in new domains. "
    "Collecting more {data} is slow and expensive, since every example needs careful review by trained "
    "annotators who know the domain well.\n\n"
    "In this paper we propose a transfer scheme for {low} that shares a {part} with related high-resource "
    "settings. Our contributions are the transfer scheme and experiments showing consistent gains."
)


def write_topic_records(path: Path, n: int, *, prefix: str) -> Path:
    """The first `n` topics as paper JSON records (ids `<prefix>-<i>`), one a line."""
    lines = [
        json.dumps({
            "paper_id": f"{prefix}-{i}", "title": f"Transfer Learning for Low-Resource {task}",
            "abstract": f"We study {task.lower()} with little {data} and propose sharing a {part}.",
            "introduction": INTRO.format(task=task, data=data, part=part, low=task.lower()),
        })
        for i, (task, data, part) in enumerate(TOPICS[:n])
    ]
    path.write_text("\n".join(lines) + "\n")
    return path
