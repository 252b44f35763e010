"""The tool loop without services: a fake ToolClient returning typed results, the scripted model
driving the conversation. Caps, errors answered to the model, context trimming."""

from __future__ import annotations

from langchain_core.messages import ToolMessage

from motivgraph.agents.core.loop import ChatAgent, digest
from motivgraph.agents.core.toolbox import Toolbox
from motivgraph.agents.tools.base import ToolClient
from motivgraph.api.contract.models import (
    LiteraturePaper,
    LiteratureSearchResult,
    NodeSearchResult,
    ScoredNode,
)
from motivgraph.llm import ScriptedChatModel, tool_reply


class FakeClient(ToolClient):
    def __init__(self, hits: int = 3, desc_len: int = 100) -> None:
        self.hits, self.desc_len, self.calls = hits, desc_len, []

    async def _invoke(self, spec, req):
        return await getattr(self, spec.name)(req)

    async def node_search(self, req):
        self.calls.append(("node_search", req))
        return NodeSearchResult(query=req.query, hits=[
            ScoredNode(key=f"challenge:c{i}", type="challenge", name=f"Challenge {i}", description="d" * self.desc_len,
                       score=0.9 - i / 100) for i in range(self.hits)])

    async def literature_search(self, req):
        self.calls.append(("literature_search", req))
        return LiteratureSearchResult(query=req.query, source="local", papers=[
            LiteraturePaper(title="A paper", authors=["Ann Lee", "Bo Wu"], year=2020, abstract="abs")])


def agent(model, client=None, *, mode="native", budget=24_000):
    events = []

    async def invoke(role, messages, tools):
        return await model.bind_tools(tools).ainvoke(messages) if tools else await model.ainvoke(messages)

    tb = Toolbox(client or FakeClient(), topic="t")
    a = ChatAgent("researcher", invoke, toolbox=tb, tool_mode=mode, context_budget=budget, emit=events.append)
    a.system("You are a researcher.")
    return a, events, tb


async def test_call_cap_then_answer_without_tools():
    model = ScriptedChatModel([
        tool_reply(("node_search", {"query": "a"})),
        tool_reply(("node_search", {"query": "b"}), ("node_search", {"query": "c"})),  # 2nd over the cap
        "final answer",
    ])
    a, events, tb = agent(model)
    res = await a.turn("explore", max_calls=2)
    assert res.text == "final answer" and res.tool_calls == 2 and res.budget_exhausted
    assert tb.calls == 2
    # the last call was not bound to tools, and was told the budget is used up
    assert model.tools_seen[-1] == [] and "budget" in model.calls[-1][-1].content
    results = [e for e in events if e["type"] == "tool_result"]
    assert [e["ok"] for e in results] == [True, True, False]
    # every native tool call got its ToolMessage answer
    tool_msgs = [m for m in a.messages if isinstance(m, ToolMessage)]
    assert len(tool_msgs) == 3


async def test_unknown_tool_and_bad_args_answered_not_raised():
    model = ScriptedChatModel([
        tool_reply(("delete_graph", {})),
        tool_reply(("node_search", {"k": 500})),
        tool_reply(("literature_search", {"search_query": "x", "n": 2})),
        "done",
    ])
    a, events, _ = agent(model)
    res = await a.turn("go", max_calls=5)
    assert res.text == "done"
    texts = [e["text"] for e in events if e["type"] == "tool_result"]
    assert "unknown tool 'delete_graph'" in texts[0]
    assert "query" in texts[1] and "k" in texts[1]
    assert "Lee et al., 2020" in texts[2]  # seed-style argument names accepted


async def test_model_calling_tools_when_none_allowed_is_final():
    model = ScriptedChatModel([tool_reply(("node_search", {"query": "a"}), content="I would search")])
    a, _events, tb = agent(model)
    res = await a.turn("answer only", max_calls=0)
    assert res.text == "I would search" and tb.calls == 0
    assert not a.messages[-1].tool_calls  # no dangling tool call in the history


async def test_text_mode_results_in_one_user_message():
    model = ScriptedChatModel(['node_search(query="a") <CALL> literature_search(query="b") <CALL>', "ok"])
    a, _, _ = agent(model, mode="text")
    await a.turn("go", max_calls=4)
    last_in = model.calls[-1][-1].content
    assert last_in.startswith("Tool results:") and "[1]" in last_in and "[2]" in last_in


async def test_context_budget_digests_old_tool_results():
    client = FakeClient(hits=25, desc_len=150)
    model = ScriptedChatModel([tool_reply(("node_search", {"query": f"q{i}"})) for i in range(6)] + ["done"])
    a, events, tb = agent(model, client)
    # room for the fixed part (system prompt and the tool schemas) plus about three results
    a.context_budget = a.context_tokens(tb.openai_tools()) + 1000
    await a.turn("explore", max_calls=6)
    trims = [e for e in events if e["type"] == "context_trimmed"]
    assert trims and all(t["tokens_after"] < t["tokens_before"] for t in trims)
    # what the model saw on its last call: the newest result intact, the oldest digested
    seen = model.calls[-1]
    tool_texts = [m.content for m in seen if isinstance(m, ToolMessage)]
    assert "older tool result" in tool_texts[0]
    assert "older tool result" not in tool_texts[-1] and "Challenge 24" in tool_texts[-1]
    assert seen[0].content == "You are a researcher." and seen[1].content == "explore"


def test_digest_rule():
    text = "header\n" + "\n".join(f"- item {i} " + "x" * 200 for i in range(20))
    d = digest(text)
    assert d.startswith("header\n- item 0") and "14 more lines" in d and len(d) < len(text) / 4


async def test_toolbox_validates_through_the_tool_spec() -> None:
    """Toolbox.execute places positional values and aliases, then asks `ToolSpec.build_request`: a bad argument
    comes back as the spec's own problem list, and nothing runs."""
    client = FakeClient()
    tb = Toolbox(client, topic="t")
    ok = await tb.execute("node_search", {"types": ["solution"]}, ["LLM compression", 3])
    assert ok.ok and client.calls[-1][1].types == ["solution"] and client.calls[-1][1].k == 3
    bad = await tb.execute("node_search", {"query": "x", "k": 500})
    assert not bad.ok and len(client.calls) == 1
    assert bad.text.startswith("ERROR: bad arguments for node_search: k: Input should be less than or equal to 100.")
    assert bad.text.endswith(". Use node_search(query, k=10, types=None, min_score=None).")
