"""The miner report's no-triple reasons are cut at a word boundary, never mid-word."""

from __future__ import annotations

from motivgraph.miner.sink import reason_key


def test_reason_cut_at_word_boundary_and_numbers_folded() -> None:
    reason = ("the introduction has no sentence naming a problem and a challenge together; looked at 12 "
              "paragraphs in sections Introduction, Background and Motivation of the paper")
    key = reason_key(reason)
    assert len(key) <= 90 and key.endswith(" …")
    body = key[:-2]
    assert reason.replace("12", "N").startswith(body)
    assert reason.replace("12", "N")[len(body)] == " "  # the cut falls between words
    assert "looked at N" in key
    assert reason_key("no abstract") == "no abstract"
    assert reason_key("3 sections") == reason_key("7 sections")  # equal reasons group
