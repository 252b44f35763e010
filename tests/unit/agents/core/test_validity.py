"""The shared idea validity gate (#42 item 1): what a method's 'accepted' idea must be to count."""

from __future__ import annotations

import pytest

from motivgraph.agents.core.idea import IdeaRecord, Provenance
from motivgraph.agents.core.validity import GateConfig, check_idea, gate

TOPIC = "Efficient Large Language Model Serving Systems"
GOOD = dict(
    title="Speculative batching for KV-cache-bound LLM serving",
    motivation="Serving systems waste GPU memory on padded key-value caches when requests of very different "
               "lengths share a batch, which caps throughput at moderate load.",
    method="Group requests by predicted output length and page the KV cache per group, admitting new requests "
           "into [PagedAttention](kg:solution:PagedAttention) blocks freed by finished ones.",
)


def idea(**fields: str) -> IdeaRecord:
    return IdeaRecord(provenance=Provenance(method="t", run_id="r", topic=TOPIC), **{**GOOD, **fields})


def test_a_real_idea_passes():
    assert check_idea(idea(), topic=TOPIC) == []


@pytest.mark.parametrize(("fields", "needle"), [
    # the four echoes the issue saw accepted
    ({"title": "IdeaText", "motivation": "Title of the idea."}, "title only echoes field labels ('IdeaText')"),
    ({"title": "A new research idea"}, "title only echoes field labels"),
    ({"title": "Problem"}, "title only echoes field labels ('Problem')"),
    ({"motivation": "Title of the idea."}, "motivation only echoes field labels"),
    # placeholders and template slots
    ({"title": "Reduce plastic waste in [topic]"}, "title is a placeholder or template slot"),
    ({"method": "TBD"}, "method is a placeholder or template slot"),
    ({"method": "<describe the method here>"}, "method is a placeholder or template slot"),
    # empty and copied fields
    ({"title": "(untitled)"}, "title is empty"),  # what the methods write for a missing title
    ({"title": "   "}, "title is empty"),
    ({"motivation": "", "method": ""}, "motivation, method and abstract are all empty"),
    ({"method": GOOD["motivation"]}, "method repeats motivation word for word"),
    ({"motivation": "Too short here.", "method": "Two stages."}, "no field holds the idea in prose"),
    ({"motivation": TOPIC + "."}, "motivation only repeats the topic"),
])
def test_invalid_ideas_are_named(fields, needle):
    reasons = check_idea(idea(**fields), topic=TOPIC)
    assert any(needle in r for r in reasons), reasons


def test_a_terse_field_beside_a_real_one_is_fine():
    assert check_idea(idea(method="A two-stage method."), topic=TOPIC) == []


def test_kg_links_and_citations_are_not_placeholders():
    i = idea(method=GOOD["method"] + " As shown by (Kwon et al., 2023), [the scheduler](kg:solution:vLLM) helps.")
    assert check_idea(i, topic=TOPIC) == []


def test_off_topic_by_the_stated_measure():
    cfg = GateConfig(offtopic_threshold=0.2)
    seen = []

    def sim(a: str, b: str) -> float:
        seen.append((a, b))
        return 0.05 if "plastic" in b else 0.6

    off = idea(title="Cutting plastic waste with deposit schemes",
               motivation="Household plastic waste keeps growing because recycling is inconvenient and unpaid.",
               method="A deposit-return scheme with smart bins that pay out per bottle returned to the shop.")
    assert check_idea(off, topic=TOPIC, cfg=cfg, similarity=sim) == [
        "off-topic: similarity to the topic 0.05 < 0.20"]
    assert check_idea(idea(), topic=TOPIC, cfg=cfg, similarity=sim) == []
    assert seen[0][0] == TOPIC and "plastic" in seen[0][1]
    # threshold 0 switches the measure off
    assert check_idea(off, topic=TOPIC, cfg=GateConfig(offtopic_threshold=0), similarity=sim) == []


def test_gate_rejects_with_the_reason_and_leaves_others_alone():
    echo = idea(title="IdeaText", motivation="Title of the idea.")
    already = idea().model_copy(update={"status": "rejected", "rejection": "mentor rejected it"})
    out = gate([idea(), echo, already], topic=TOPIC)
    assert [i.status for i in out] == ["accepted", "rejected", "rejected"]
    assert out[1].rejection is not None and out[1].rejection.startswith("invalid_idea: title only echoes")
    assert "motivation only echoes field labels" in out[1].rejection
    assert out[2].rejection == "mentor rejected it"


@pytest.mark.parametrize("title", [
    "Research Idea 1", "Idea 2", "Proposed Method A", "Proposed Method B", "Research Idea No. 3", "Idea #4",
    "1. Idea", "Option iii", "The first idea", "Approach 2nd",
])
def test_numbered_placeholder_titles_are_rejected_with_the_reason(title):
    # a digit or letter numbering a template slot is not a content word (#42 item 1, gap)
    reasons = check_idea(idea(title=title), topic=TOPIC)
    assert reasons == [f"title is a numbered placeholder ({title!r}): a template slot name, not the idea's own "
                       f"words"], reasons


@pytest.mark.parametrize("title", [
    "Idea 1: Speculative batching for KV-cache-bound serving", "Llama 2 quantization for serving",
    "GPT-4 as a serving-cost judge", "Type I error control in serving benchmarks",
])
def test_a_real_title_with_a_number_or_letter_passes(title):
    assert check_idea(idea(title=title), topic=TOPIC) == []


def test_a_numbered_placeholder_body_is_named_too():
    reasons = check_idea(idea(method="Method 2"), topic=TOPIC)
    assert "method is a numbered placeholder ('Method 2'): a template slot name, not the idea's own words" in reasons
