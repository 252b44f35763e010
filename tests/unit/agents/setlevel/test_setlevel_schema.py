"""The set-level schema gate: K valid cards with taxonomy labels, else reward 0 and a named reason."""

import pytest

from motivgraph.agents.setlevel.schema import (
    METHOD_PARADIGMS,
    OPPORTUNITY_PATTERNS,
    check_card,
    gate_set,
    split_label,
)


def card(**over: str) -> dict[str, str]:
    c = {"title": "Curriculum from disagreement",
         "problem_gap": "[Bridge Opportunity] Reward shaping work and curriculum work never share their signals.",
         "core_claim": "We claim agents learn sparse tasks faster when ensemble disagreement orders the curriculum.",
         "method": "[Method Combination] Combine disagreement estimates with a curriculum scheduler and compare.",
         "inspiration": "Document 1 shapes rewards without a curriculum and Document 2 orders tasks blindly."}
    return c | over


def test_a_full_card_is_valid_and_carries_its_labels() -> None:
    chk = check_card(card(), min_words=4)
    assert chk.valid and chk.reasons == ()
    assert (chk.opportunity, chk.paradigm) == ("Bridge Opportunity", "Method Combination")
    # label matching ignores case, hyphens and underscores, and returns the canonical label
    chk = check_card(card(problem_gap="[evidence-gap] " + card()["problem_gap"].split("] ")[1]), min_words=4)
    assert chk.opportunity == "Evidence Gap"


@pytest.mark.parametrize(("field", "text", "reason"), [
    ("core_claim", "Core Claim", "core_claim only echoes field labels"),
    ("core_claim", "Problem Gap: the core claim.", "core_claim only echoes field labels"),  # another field's label
    ("inspiration", "Inspiration: Document 1, Document 2", "inspiration is a numbered placeholder"),
    ("core_claim", "", "core_claim is empty"),
    ("core_claim", "<your claim here>", "core_claim is a placeholder"),
    ("core_claim", "TBD once the experiments are designed properly", "core_claim is a placeholder"),
    ("core_claim", "{core_claim}", "core_claim is a placeholder"),
    ("core_claim", "...", "core_claim is a placeholder"),
    ("problem_gap", "[Evidence Gap] Problem gap", "problem_gap only echoes field labels"),
    ("method", "[Empirical Mapping] Method", "method only echoes field labels"),
    ("title", "Title", "title only echoes field labels"),
])
def test_placeholder_and_label_echo_fields_are_invalid_with_a_reason(field: str, text: str, reason: str) -> None:
    chk = check_card(card(**{field: text}), min_words=4)
    assert not chk.valid
    assert any(r.startswith(reason) for r in chk.reasons), chk.reasons


def test_labels_are_required_and_checked_against_the_taxonomy() -> None:
    chk = check_card(card(problem_gap="Reward shaping and curricula never share their signals at all."), min_words=4)
    assert chk.reasons == ("problem_gap does not open with a bracketed opportunity pattern label",)
    chk = check_card(card(method="[Magic Trick] Combine disagreement estimates with a curriculum scheduler."),
                     min_words=4)
    assert not chk.valid and chk.paradigm is None and "unknown method paradigm [Magic Trick]" in chk.reasons[0]
    assert len(OPPORTUNITY_PATTERNS) == len(METHOD_PARADIGMS) == 8 and "Other" in OPPORTUNITY_PATTERNS
    assert split_label("[Other] a gap") == ("Other", "a gap") and split_label("no label") == (None, "no label")


def test_fields_copied_from_each_other_are_invalid() -> None:
    same = "Combine disagreement estimates with a curriculum scheduler and compare."
    chk = check_card(card(core_claim=same, method="[Method Combination] " + same), min_words=4)
    assert "method repeats core_claim word for word" in chk.reasons


def test_set_gate_needs_k_valid_cards_and_names_why() -> None:
    titles = ("Disagreement-paced curricula", "Curricula from ensemble variance")  # real titles, not "Second idea"
    assert gate_set([card(), *(card(title=t) for t in titles)], k=3, min_words=4).valid
    short = gate_set([card(), card()], k=3, min_words=4)
    assert not short.valid and short.reason == "schema_invalid: 2 card(s) written, exactly 3 required"
    echo = gate_set([card(), card(core_claim="Core Claim"), card()], k=3, min_words=4)
    assert not echo.valid and echo.reason is not None
    assert echo.reason.startswith("schema_invalid: 1 of 3 card(s) invalid (card 2: core_claim only echoes")
    assert [c.valid for c in echo.cards] == [True, False, True]
    # more than K cards is not a set of K: rejected even when every card is valid
    over = gate_set([card(), card(), card(), card()], k=3, min_words=4)
    assert not over.valid and over.reason == "schema_invalid: 4 card(s) written, exactly 3 required"
