"""The researcher agent: explores with the tools, writes the idea, answers the mentor, revises."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from pydantic import BaseModel

from motivgraph.agents.core.loop import ChatAgent
from motivgraph.agents.soiq import prompts
from motivgraph.agents.soiq.idea import IDEA_FIELDS, Idea, parse_idea
from motivgraph.errors import IdeaParseError, StructuredOutputError

log = logging.getLogger(__name__)


@dataclass
class IdeaReply:
    text: str  # the researcher's last reply (answer + idea)
    idea: Idea | None  # None when no valid idea could be obtained
    repaired: bool = False  # JSON needed mechanical repair
    reasks: int = 0  # corrective re-asks used
    tool_calls: int = 0
    error: str | None = None


class Researcher:
    def __init__(
        self, agent: ChatAgent, *, topic: str, idea_reasks: int = 2, require_random_draw: bool = False,
        background: str = "",
    ) -> None:
        self.agent = agent
        self.topic = topic
        self.background = background
        self.idea_reasks = idea_reasks
        self.require_random_draw = require_random_draw

    def start(self) -> None:
        protocol = ""
        if self.agent.tool_mode == "text" and self.agent.toolbox is not None:
            protocol = "\n" + prompts.TEXT_PROTOCOL.format(
                marker="<CALL>", tool_list=self.agent.toolbox.text_tool_list(),
                example=prompts.example_query(self.topic),
            )
        if self.agent.tool_mode == "constrained" and self.agent.toolbox is not None:
            protocol = "\n" + prompts.CONSTRAINED_PROTOCOL.format(example=prompts.example_query(self.topic))
        if self.agent.toolbox is None:  # no graph in this run: the background papers are all there is
            protocol = "\n" + prompts.NO_TOOLS
        self.agent.system(prompts.RESEARCHER_SYSTEM.format(protocol=protocol))

    @property
    def _answer_schema(self) -> type[BaseModel] | None:
        # Under constrained decoding the idea itself is a structured call (the answer step of the turn).
        return Idea if self.agent.tool_mode == "constrained" else None

    async def _turn(self, prompt: str, max_calls: int, min_calls: int = 0) -> tuple[str, int]:
        res = await self.agent.turn(prompt, max_calls=max_calls, min_calls=min_calls,
                                    answer_schema=self._answer_schema)
        return res.text, res.tool_calls

    async def _with_idea(self, text: str, calls: int) -> IdeaReply:
        """Parse the idea in `text`; else re-ask (without tools). When the agent can make structured
        calls, the re-ask is the LLM layer's structured call for the Idea schema — schema-constrained
        decoding where the server has it, repair, and its one corrective re-ask — made once; else
        plain turns, parsed again, up to `idea_reasks` times."""
        reasks = 0
        answer = text
        while True:
            try:
                idea, repaired = parse_idea(text)
                return IdeaReply(answer, idea, repaired, reasks, calls)
            except IdeaParseError as e:
                if reasks >= self.idea_reasks:
                    log.info("researcher gave no valid idea after %d re-asks: %s", reasks, e)
                    return IdeaReply(answer, None, False, reasks, calls, str(e))
                reasks += 1
                prompt = prompts.IDEA_REASK.format(
                    problems=str(e), fields=", ".join(f'"{f}"' for f in IDEA_FIELDS)
                )
                if self.agent.can_structure:
                    return await self._structured_idea(prompt, answer, reasks, calls)
                text = answer = (await self.agent.turn(prompt, max_calls=0)).text

    async def _structured_idea(self, prompt: str, answer: str, reasks: int, calls: int) -> IdeaReply:
        try:
            obj = await self.agent.structured_turn(prompt, Idea)
        except StructuredOutputError as e:
            log.info("researcher gave no valid idea in the structured re-ask: %s", e)
            return IdeaReply(answer, None, False, reasks, calls, str(e))
        assert isinstance(obj, Idea)
        return IdeaReply(answer, obj, False, reasks, calls)

    async def explore(self, previous: list[tuple[str, str]], max_calls: int) -> IdeaReply:
        task = prompts.EXPLORE_TASK.format(
            topic=self.topic, budget=max_calls, idea_format=prompts.idea_format(),
            previous=prompts.previous_block(previous),
            background=prompts.BACKGROUND.format(papers=self.background) if self.background else "",
        )
        tb = self.agent.toolbox
        draws_before = tb.by_tool.get("random_nodes", 0) if tb is not None else 0
        # Exploring the graph comes first (the prompt says so); under constrained decoding the first
        # step's schema offers only tool calls, so the model's first action is one.
        res_text, res_calls = await self._turn(task, max_calls, min_calls=1 if tb is not None else 0)
        left = max_calls - res_calls
        drew = tb is not None and tb.by_tool.get("random_nodes", 0) > draws_before
        if not (self.require_random_draw and tb is not None and not drew and left > 0):
            return await self._with_idea(res_text, res_calls)
        # The seed's novelty step was skipped: ask once for a random draw, keep the first idea
        # if the second reply holds none.
        first_text = res_text
        nudge_text, nudge_calls = await self._turn(prompts.DRAW_RANDOM_FIRST.format(budget=left), left)
        calls = res_calls + nudge_calls
        try:
            idea, repaired = parse_idea(nudge_text)
            return IdeaReply(nudge_text, idea, repaired, 0, calls)
        except IdeaParseError:
            pass
        try:
            idea, repaired = parse_idea(first_text)
            return IdeaReply(first_text, idea, repaired, 0, calls)
        except IdeaParseError:
            return await self._with_idea(nudge_text, calls)

    async def answer(self, question: str, max_calls: int) -> IdeaReply:
        prompt = prompts.ANSWER_MENTOR.format(question=question, budget=max_calls)
        text, calls = await self._turn(prompt, max_calls)
        return await self._with_idea(text, calls)

    async def self_review(self, round_no: int, max_rounds: int, aspect: str, max_calls: int) -> IdeaReply:
        prompt = prompts.SELF_REVIEW.format(round=round_no, max_rounds=max_rounds, aspect=aspect, budget=max_calls)
        text, calls = await self._turn(prompt, max_calls)
        return await self._with_idea(text, calls)

    async def fix_links(self, problems: str, max_calls: int) -> IdeaReply:
        prompt = prompts.FIX_LINKS.format(items=problems, budget=max_calls)
        text, calls = await self._turn(prompt, max_calls)
        return await self._with_idea(text, calls)

