"""The LLM extractor against the scripted chat model: every branch (happy, repair, re-ask, give-up,
empty, refusal, budget stop, cache hit, 429 storm, provider gone)."""

from __future__ import annotations

import json

import pytest

from motivgraph.errors import BudgetExceeded, LLMError, StructuredOutputError
from motivgraph.llm import rate_limit_error, server_error
from motivgraph.llm.tokens import content_text
from motivgraph.miner.extract import LLMExtractor
from tests.miner_support import COINED_TRIPLE, GOOD_TRIPLE, make_paper, reply, scripted_client


def _extractor(settings, replies, **kw):  # type: ignore[no-untyped-def]
    client, model = scripted_client(settings, replies, **kw)
    return LLMExtractor(client, settings.miner), client, model


async def test_happy_path_one_call(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, model = _extractor(settings, [reply(GOOD_TRIPLE)])
    res = await ext.extract(make_paper())
    assert res.extractor == "llm" and res.llm_calls == 1 and not res.reasked
    assert [t.problem.name for t in res.triples] == ["Low-resource neural machine translation"]
    assert res.sections_used[:2] == ["abstract", "introduction"]
    prompt = content_text(model.calls[0][-1].content)
    assert "FooNet trains a single encoder" in prompt  # thin intro: method excerpt sent
    client.close()


async def test_truncated_json_in_fences_is_repaired(settings) -> None:  # type: ignore[no-untyped-def]
    broken = "Sure! ```json\n" + reply(GOOD_TRIPLE)[:-3]  # cut mid-object, no closing fence
    ext, client, model = _extractor(settings, [broken])
    res = await ext.extract(make_paper())
    assert len(res.triples) == 1 and len(model.calls) == 1
    client.close()


async def test_rule_violation_triggers_one_reask_listing_it(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, model = _extractor(settings, [reply(COINED_TRIPLE), reply(GOOD_TRIPLE)])
    res = await ext.extract(make_paper())
    assert res.reasked and res.llm_calls == 2 and len(model.calls) == 2
    reask = content_text(model.calls[1][-1].content)
    assert "triple 1" in reask and "foonet" in reask.lower()
    assert [t.solution.name for t in res.triples] == [GOOD_TRIPLE["solution"]["name"]]
    assert res.rejected == []
    client.close()


async def test_still_failing_after_reask_is_recorded_not_kept(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, _ = _extractor(settings, [reply(COINED_TRIPLE), reply(COINED_TRIPLE)])
    res = await ext.extract(make_paper())
    assert res.triples == []
    assert len(res.rejected) == 1 and any("coined" in v for v in res.rejected[0].violations)
    assert "broke the naming rules" in (res.reason or "")
    client.close()


async def test_valid_triples_of_first_reply_survive_a_bad_reask(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, _ = _extractor(settings, [reply(GOOD_TRIPLE, COINED_TRIPLE), "not json", "still not json"])
    res = await ext.extract(make_paper())
    assert [t.solution.name for t in res.triples] == [GOOD_TRIPLE["solution"]["name"]]
    assert len(res.rejected) == 1
    client.close()


async def test_wrong_schema_twice_gives_up_with_structured_output_error(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, _ = _extractor(settings, [json.dumps({"items": 3}), json.dumps({"triples": "none"})])
    with pytest.raises(StructuredOutputError):
        await ext.extract(make_paper())
    client.close()


async def test_refusal_then_valid_reply(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, _ = _extractor(settings, ["I'm sorry, I cannot help with that.", reply(GOOD_TRIPLE)])
    res = await ext.extract(make_paper())
    assert len(res.triples) == 1
    client.close()


async def test_empty_list_with_reason_is_accepted_without_reask(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, model = _extractor(settings, [reply(reason="this is a book review, not research")])
    res = await ext.extract(make_paper())
    assert res.triples == [] and res.reason == "this is a book review, not research"
    assert len(model.calls) == 1
    client.close()


async def test_empty_list_without_reason_is_reasked(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, model = _extractor(settings, [reply(), reply(GOOD_TRIPLE)])
    res = await ext.extract(make_paper())
    assert len(res.triples) == 1 and len(model.calls) == 2
    client.close()


async def test_too_short_paper_makes_no_call(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, model = _extractor(settings, [])
    res = await ext.extract(make_paper(intro="Short.", abstract="Tiny.", method=""))
    assert res.triples == [] and "too short" in (res.reason or "") and model.calls == []
    client.close()


async def test_cache_hit_on_rerun_costs_no_call(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, model = _extractor(settings, [reply(GOOD_TRIPLE)])
    first = await ext.extract(make_paper())
    second = await ext.extract(make_paper())
    assert first.triples == second.triples and len(model.calls) == 1
    assert client.usage.total().cache_hits == 1
    client.close()


async def test_budget_stop_raises_before_spending(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, model = _extractor(settings, [reply(GOOD_TRIPLE)] * 3, budget_usd=0.0, model_name="gpt-4o-mini")
    with pytest.raises(BudgetExceeded):
        await ext.extract(make_paper())
    assert model.calls == []
    client.close()


async def test_429_storm_is_retried(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, model = _extractor(settings, [rate_limit_error(2), rate_limit_error(), server_error(503),
                                               reply(GOOD_TRIPLE)])
    res = await ext.extract(make_paper())
    assert len(res.triples) == 1 and len(model.calls) == 4
    assert client.usage.total().retries == 3
    client.close()


async def test_provider_gone_raises_llm_error(settings) -> None:  # type: ignore[no-untyped-def]
    settings.llm.max_retries = 2
    ext, client, _ = _extractor(settings, [ConnectionError("connection refused")] * 5)
    with pytest.raises(LLMError):
        await ext.extract(make_paper())
    client.close()


def test_dry_run_estimate_counts_tokens_without_calling(settings) -> None:  # type: ignore[no-untyped-def]
    ext, client, model = _extractor(settings, [], model_name="gpt-4o-mini")
    est = ext.estimate(make_paper())
    assert est is not None and est.input_tokens > 200 and est.cost_usd > 0 and model.calls == []
    assert ext.estimate(make_paper(intro="x", abstract="y", method="")) is None
    client.close()
