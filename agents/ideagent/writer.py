"""The ideator as it runs on the platform: tools (native calls, the `<CALL>` text protocol or JSON actions)
through the run's Toolbox, then the idea as JSON; and the idea's mapping onto the shared record.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import AIMessage

from motivgraph.agents.core.context import RunContext
from motivgraph.agents.core.llm import tool_mode_for
from motivgraph.agents.core.loop import ChatAgent
from motivgraph.agents.core.toolbox import Toolbox
from motivgraph.agents.ideagent.judges import IdeaText
from motivgraph.choices import ToolMode, ToolModeChoice
from motivgraph.errors import ReplyProblem, StructuredOutputError
from motivgraph.llm import structured as so
from motivgraph.llm.tokens import truncate_to_tokens

log = logging.getLogger(__name__)

TEXT_TOOLS_NOTE = (
    "TOOLS: to call one, write name(arg=\"value\") followed by <CALL> on its own and stop; the result comes back "
    "in the next message. Available:\n{tools}"
)
JSON_NOTE = ("When you have what you need, answer with the idea as a single JSON object with the keys title, "
             "problem, motivation, method, novelty, experiment_plan, expected_effect, risks — and nothing else.")


def background_text(ctx: RunContext, tokens: int) -> str:
    bg = ctx.background
    if not (bg.papers or bg.triples or bg.nodes):
        return ""
    return truncate_to_tokens(bg.as_text(max_papers=8, chars_per_paper=900), tokens)


# The IDEAgent family's ideator writes its idea after its tool calls, so it has no JSON-action schema to
# constrain: "constrained" (asked for, or chosen by auto for a constraining server) runs the text protocol.
IDEATOR_TOOL_MODE = (
    "Ideator tools: native tool calls, the text <CALL> protocol, or auto; 'constrained' runs the text protocol."
)


def tool_mode(ctx: RunContext, role: str, wanted: ToolModeChoice) -> ToolMode:
    return tool_mode_for(ctx.llm(role), wanted, ctx.settings.agents.tool_mode)


class ToolWriter:
    """One fresh conversation per draft: the ideator may call up to `max_calls` tools, then writes
    the idea as JSON (one corrective re-ask when the JSON is unusable)."""

    def __init__(self, ctx: RunContext, role: str, toolbox: Toolbox | None, mode: ToolMode, max_calls: int) -> None:
        self.ctx, self.role, self.toolbox, self.mode, self.max_calls = ctx, role, toolbox, mode, max_calls

    def tools_note(self) -> str:
        if self.toolbox is None or self.max_calls <= 0:
            return ""
        if self.mode == "text":
            return TEXT_TOOLS_NOTE.format(tools=self.toolbox.text_tool_list())
        return "TOOLS: you may call the knowledge-graph and literature tools offered to you."

    async def write(self, system: str, user: str, label: str) -> dict[str, Any]:
        llm = self.ctx.llm(self.role)
        agent = ChatAgent(self.role.rsplit(".", 1)[-1], llm.invoke, toolbox=self.toolbox,
                          tool_mode=self.mode, context_budget=self.ctx.settings.agents.context_token_budget,
                          emit=self.ctx.emit, decide=llm.decide)
        agent.system(system)
        # Under constrained decoding the idea is the turn's structured answer step.
        turn = await agent.turn(f"{user}\n\n{JSON_NOTE}", max_calls=self.max_calls if self.toolbox else 0,
                                answer_schema=IdeaText)
        try:
            return so.parse_reply(AIMessage(content=turn.text), IdeaText).model_dump()
        except ReplyProblem as p:
            # The re-ask is the LLM layer's structured call (constrained, repair, one more re-ask).
            try:
                idea = await agent.structured_turn(str(so.correction(str(p), IdeaText).content), IdeaText)
            except StructuredOutputError as e:
                raise StructuredOutputError(f"ideator gave no usable idea for {label}: {e}") from e
            return idea.model_dump()


def record_fields(idea: dict[str, Any]) -> dict[str, str]:
    """The ideator's fields onto the shared idea record's core fields."""
    def g(k: str) -> str:
        return str(idea.get(k, "") or "").strip()

    motivation = "\n\n".join(x for x in (g("problem"), g("motivation")) if x)
    method = "\n\n".join(x for x in (g("method"), f"What is new: {g('novelty')}" if g("novelty") else "") if x)
    return {"title": g("title") or "(untitled)", "motivation": motivation, "method": method,
            "experiments": g("experiment_plan"), "expected_outcome": g("expected_effect"), "risks": g("risks"),
            "abstract": g("problem")}
