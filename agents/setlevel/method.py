"""The `setlevel` method: K idea cards (problem gap, core claim, method, inspiration naming the source
papers) written in ONE call, most promising first, each conditioned on the cards before it in the same
answer. Grounded like the other methods: the run's background (graph triples and papers, or a
background file) is shown as numbered documents, the cards' Document references become citations of
those papers, and `ctx.ground` checks kg: links and citations.

Resumable: the cards are checkpointed as soon as the call returns; a resumed run only re-grounds them.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, field_validator

from motivgraph.agents.core import CostPlan, IdeaRecord, Method, MethodConfig, RunContext
from motivgraph.agents.core.background import BackgroundPaper, TopicBackground
from motivgraph.agents.setlevel import prompts


class SetlevelConfig(MethodConfig):
    ideas: int = Field(3, ge=1, le=10, description="Idea cards to write in the one call (K).")
    max_documents: int = Field(8, ge=1, le=30, description="Background papers shown as source documents.")
    chars_per_document: int = Field(1200, ge=200, le=6000, description="Characters of each document's text.")


class IdeaCard(BaseModel):
    title: str = Field(min_length=3, max_length=300)
    problem_gap: str = Field(min_length=10)
    core_claim: str = Field(min_length=10)
    method: str = Field(min_length=10)
    inspiration: str = Field(min_length=10)
    documents: list[int] = Field(default_factory=list, description="Document numbers the card draws on.")

    @field_validator("documents", mode="before")
    @classmethod
    def _ints(cls, v: object) -> object:
        if isinstance(v, list):  # models write "Document 2" or "2" as often as 2
            out = []
            for x in v:
                m = re.search(r"\d+", str(x))
                if m:
                    out.append(int(m.group()))
            return out
        return v


class IdeaCards(BaseModel):
    cards: list[IdeaCard] = Field(min_length=1)


class SetlevelState(BaseModel):
    cards: list[IdeaCard] = Field(default_factory=list)


class SetlevelExtra(BaseModel):
    rank: int
    problem_gap: str
    core_claim: str
    inspiration: str
    sources: list[dict[str, str | int | None]] = Field(default_factory=list)


_DOC_RE = re.compile(r"Document\s+(\d+)", re.I)


def documents_text(bg: TopicBackground, cfg: SetlevelConfig) -> str:
    lines = []
    for n, p in enumerate(bg.papers[: cfg.max_documents], 1):
        body = (p.abstract or p.introduction or p.conclusion or "").strip()
        if len(body) > cfg.chars_per_document:
            body = body[: cfg.chars_per_document - 1] + "…"
        lines.append(f"Document {n}: {p.title}\n{body}")
    return "\n\n".join(lines) if lines else "(no source documents: reason from the topic alone)"


def cite(p: BackgroundPaper) -> str:
    """How a card names a source in prose: (Author et al., year) when known (what ground() matches), else the title."""
    if p.authors and p.year:
        return f"{p.title} ({p.authors[0].split()[-1]}{' et al.' if len(p.authors) > 1 else ''}, {p.year})"
    return f'"{p.title}"'


def card_sources(card: IdeaCard, papers: list[BackgroundPaper]) -> list[int]:
    nums = set(card.documents) | {int(x) for x in _DOC_RE.findall(card.inspiration)}
    return sorted(n for n in nums if 1 <= n <= len(papers))


class SetlevelMethod(Method[SetlevelConfig, SetlevelState]):
    name = "setlevel"
    summary = "One call writes K idea cards (gap, claim, method, inspiration), most promising first."
    config_model = SetlevelConfig
    state_model = SetlevelState
    roles = ("writer",)
    extra_model = SetlevelExtra

    def prompt_templates(self) -> dict[str, str]:
        return {"system": prompts.SYSTEM, "user": prompts.USER}

    def messages(self, bg: TopicBackground, topic: str) -> list[tuple[str, str]]:
        triples = ""
        if bg.triples:
            triples = "\nKnowledge-graph triples (problem → challenge → solution):\n" + "\n".join(
                f"- {t.problem} → {t.challenge} → {t.solution}" for t in bg.triples[:20]) + "\n"
        return [("system", prompts.SYSTEM),
                ("human", prompts.USER.format(topic=topic, documents=documents_text(bg, self.config),
                                              triples=triples, k=self.config.ideas))]

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        from langchain_core.messages import HumanMessage, SystemMessage

        state = ctx.load_checkpoint() or SetlevelState()
        if not state.cards:
            ctx.emit({"type": "phase", "phase": f"writing {self.config.ideas} idea cards"})
            msgs = self.messages(ctx.background, ctx.topic)
            reply = await ctx.llm("writer").structured(
                [SystemMessage(content=msgs[0][1]), HumanMessage(content=msgs[1][1])], IdeaCards)
            state.cards = reply.cards[: self.config.ideas]
            ctx.save_checkpoint(state)
            ctx.emit({"type": "message", "agent": "writer", "role": "assistant",
                      "content": "\n\n".join(f"{i}. {c.title}\n{c.core_claim}" for i, c in enumerate(state.cards, 1))})
        papers = ctx.background.papers[: self.config.max_documents]
        ideas: list[IdeaRecord] = []
        for rank, card in enumerate(state.cards, 1):
            ctx.scope = {"idea": rank}
            srcs = card_sources(card, papers)
            # Document N -> the paper's citation, so grounding can match it against the background papers.
            inspiration = _DOC_RE.sub(lambda m: cite(papers[int(m.group(1)) - 1])
                                      if 1 <= int(m.group(1)) <= len(papers) else m.group(0), card.inspiration)
            extra = SetlevelExtra(rank=rank, problem_gap=card.problem_gap, core_claim=card.core_claim,
                                  inspiration=inspiration,
                                  sources=[{"document": n, "title": papers[n - 1].title,
                                            "paper_id": papers[n - 1].paper_id} for n in srcs])
            idea = ctx.new_idea(title=card.title, motivation=card.problem_gap, method=card.method,
                                abstract=card.core_claim, related_work=inspiration, extra=extra)
            ideas.append(await ctx.ground(idea))
        ctx.scope = {}
        ctx.write_ideas(ideas)
        return ideas

    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        k = self.config.ideas
        doc_tokens = min(background_tokens, self.config.max_documents * self.config.chars_per_document // 4)
        plan.add("writer", calls=1, input_tokens=450 + doc_tokens, output_tokens=420 * k)
