"""Session cost accounting with the default settings (the figures the README quotes).
Run with -s to see them; `python -m motivgraph.agents.soiq.cost` prints the full table."""

from __future__ import annotations

from motivgraph.agents.soiq.cost import measure


async def test_default_session_calls_follow_the_settings():
    r = await measure("full", explore_calls=12, rounds=5, calls_per_round=2, accept_after=None)
    # per idea: 12 tool steps + the idea, 5 rounds x (2 tool steps + answer); mentor: 5 questions + final
    assert r["researcher"]["calls"] == 3 * (12 + 1 + 5 * 3)
    assert r["mentor"]["calls"] == 3 * 6
    assert r["unused_replies"] == 0 and r["accepted"] == 3
    t = r["total"]
    assert t["input_tokens"] > 20 * t["output_tokens"] > 0  # re-sent context dominates the cost
    assert r["largest_prompt"] <= 24_000 + 2_000  # the context budget holds (+ one fresh reply)
    print(f"\nfull default session: {t['calls']} calls, {t['input_tokens']} in / {t['output_tokens']} out tokens")
