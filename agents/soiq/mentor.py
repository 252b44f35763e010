"""The mentor agent: asks one aspect per round, never proposes solutions, ends with a decision."""

from __future__ import annotations

import re
from dataclasses import dataclass

from motivgraph.agents.core.loop import ChatAgent
from motivgraph.agents.soiq import prompts

ACCEPT, REJECT = "ACCEPT", "REJECT"
_DECISION = re.compile(r"<\s*(ACCEPT|REJECT)\s*>", re.IGNORECASE)
_ASPECT_LINE = re.compile(r"aspect\s*[:：]\s*\**\s*(innovat\w*|novel\w*|rational\w*|feasib\w*)", re.IGNORECASE)
_ASPECT_WORD = re.compile(r"\b(innovat\w*|novelty|rationality|feasibility)\b", re.IGNORECASE)


# Both markers offered as alternatives ("<ACCEPT> or <REJECT>", "<ACCEPT>/<REJECT>"): the instruction echoed
# back (small models do), not a decision.
_ECHO = re.compile(r"<\s*(?:ACCEPT|REJECT)\s*>\s*(?:or|/|\||,|and)\s*<\s*(?:ACCEPT|REJECT)\s*>", re.IGNORECASE)


def parse_decision(text: str) -> str | None:
    """The last <ACCEPT>/<REJECT> marker in a reply (a mentor may quote one before deciding); a reply whose
    only markers are the echoed pair of alternatives has no decision (it is asked again, then defaulted)."""
    found = _DECISION.findall(_ECHO.sub(" ", text or ""))
    return found[-1].upper() if found else None


def parse_aspect(text: str) -> str:
    m = _ASPECT_LINE.search(text or "") or _ASPECT_WORD.search(text or "")
    if not m:
        return "unspecified"
    w = m.group(1).lower()
    if w.startswith(("innovat", "novel")):
        return "Innovativeness"
    return "Rationality" if w.startswith("rational") else "Feasibility"


@dataclass
class MentorTurn:
    text: str
    decision: str | None  # ACCEPT / REJECT / None (a question)
    aspect: str | None


class Mentor:
    def __init__(self, agent: ChatAgent, *, topic: str, max_rounds: int) -> None:
        self.agent = agent
        self.topic = topic
        self.max_rounds = max_rounds

    def start(self) -> None:
        self.agent.system(prompts.MENTOR_SYSTEM.format(topic=self.topic))

    async def _turn(self, prompt: str) -> MentorTurn:
        text = (await self.agent.turn(prompt, max_calls=0)).text
        decision = parse_decision(text)
        return MentorTurn(text, decision, None if decision else parse_aspect(text))

    async def ask(self, round_no: int, idea_json: str, answer: str | None) -> MentorTurn:
        if answer is None:
            prompt = prompts.MENTOR_FIRST.format(round=round_no, max_rounds=self.max_rounds, idea=idea_json)
        else:
            prompt = prompts.MENTOR_NEXT.format(round=round_no, max_rounds=self.max_rounds, answer=answer,
                                                idea=idea_json)
        return await self._turn(prompt)

    async def final(self, idea_json: str, answer: str) -> tuple[MentorTurn, bool]:
        """The forced decision after the round limit; (turn, defaulted) — defaulted when the mentor
        gave no marker even when re-asked, in which case the idea is rejected (it was not accepted)."""
        turn = await self._turn(prompts.MENTOR_FINAL.format(answer=answer, idea=idea_json))
        if turn.decision:
            return turn, False
        turn = await self._turn(prompts.MENTOR_DECISION_REASK)
        if turn.decision:
            return turn, False
        return MentorTurn(turn.text, REJECT, None), True
