"""The `setlevel` method: sets of K idea cards (problem gap, core claim, method, inspiration naming the
source papers), each set written in ONE call, most promising first, each card conditioned on the cards
before it in the same answer. K is `set_size` (the seed's K = 3); `ideas` above K draws ceil(ideas / K)
sets in turn, each told the titles already written so it does not repeat them. Grounded like the other
methods: the run's background (graph triples and papers, or a background file) is shown as numbered
documents, the cards' Document references become citations of those papers, and `ctx.ground` checks kg:
links and citations.

Scorer and selector: every set goes through the schema gate (schema.py: exactly K valid cards, each field
real text, taxonomy labels on the gap and method; an invalid set earns 0 with the reason named), and
with `--sets N` N candidates are drawn independently for each set, each scored by R_set (reward.py) and
the best kept; the others are recorded with their scores (sets.json and the summary). With more than one
set (or --score) every set is scored. The cards of an invalid set are rejected with the gate's reason;
when no set is valid the headline reason says so.

Resumable: every set is checkpointed as soon as its call returns, and again once scored.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, field_validator

from motivgraph.agents.core import CostPlan, IdeaRecord, Method, MethodConfig, RunContext
from motivgraph.agents.core.background import BackgroundPaper, TopicBackground
from motivgraph.agents.setlevel import prompts
from motivgraph.agents.setlevel.reward import SetScore, score_set
from motivgraph.agents.setlevel.schema import (
    METHOD_PARADIGMS,
    OPPORTUNITY_PATTERNS,
    SetGate,
    gate_set,
    split_label,
)
from motivgraph.llm.structured import schema_instruction, with_instruction
from motivgraph.llm.tokens import count_message_tokens

# A later set's prompt lists the earlier sets' titles; before the run they are priced at this length.
_TYPICAL_TITLE = "Disagreement-paced curricula for sparse-reward exploration agents"


class SetlevelConfig(MethodConfig):
    ideas: int = Field(3, ge=1, le=50, description="Idea cards to deliver: ceil(ideas / set_size) sets of "
                       "set_size cards, one call each (the evaluation sets it to --ideas).")
    set_size: int = Field(3, ge=1, le=10, description="K, the cards written together in one call (the set-level "
                          "seed's K = 3). A set without exactly K valid cards is schema-invalid (reward 0).")
    sets: int = Field(1, ge=1, le=10, description="Candidate draws per set; each is scored by R_set "
                      "(impact and distance judges) and the best is kept, the others recorded with their scores.")
    score: bool = Field(False, description="Judge and record R_set also for a single set (always on with "
                        "--sets above 1, where it picks the set, and when more than one set is written).")
    gold_idea: str | None = Field(None, min_length=20, description="The idea R_set's impact judge compares "
                                  "each card with; default: the first source document.")
    min_field_words: int = Field(4, ge=1, le=50, description="Content words every card field needs (field-label "
                                 "words do not count), so placeholders and label echoes are rejected.")
    valid_bonus: float = Field(0.05, ge=0, le=1, description="R_set's bonus for a schema-valid set (the seed's "
                               "epsilon).")
    max_documents: int = Field(8, ge=1, le=30, description="Background papers shown as source documents.")
    chars_per_document: int = Field(1200, ge=200, le=6000, description="Characters of each document's text.")


class IdeaCard(BaseModel):
    # No length limits here: a thin field is the schema gate's to reject with a reason, not a parse error
    # that would lose the whole set.
    title: str = Field("", max_length=300)
    problem_gap: str = ""
    core_claim: str = ""
    method: str = ""
    inspiration: str = ""
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


class CandidateSet(BaseModel):
    cards: list[IdeaCard]
    slot: int = 1  # which of the run's ceil(ideas / K) sets this draw is a candidate for
    score: SetScore | None = None  # None until judged (or when R_set is not asked for)


class SetlevelState(BaseModel):
    cards: list[IdeaCard] = Field(default_factory=list)  # checkpoints written before --sets: one set
    sets: list[CandidateSet] = Field(default_factory=list)


class SetlevelExtra(BaseModel):
    rank: int
    problem_gap: str
    core_claim: str
    inspiration: str
    sources: list[dict[str, str | int | None]] = Field(default_factory=list)
    opportunity_pattern: str | None = None
    method_paradigm: str | None = None
    set_index: int = 1  # the kept draw among the set's candidates
    set_number: int = 1  # which of the run's sets (ideas above K write several)
    r_set: float | None = None
    rejection: str | None = None


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


def card_fields(card: IdeaCard) -> dict[str, str]:
    return {"title": card.title, "problem_gap": card.problem_gap, "core_claim": card.core_claim,
            "method": card.method, "inspiration": card.inspiration}


def anchor_text(bg: TopicBackground, cfg: SetlevelConfig) -> tuple[str, str]:
    """(what the impact judge compares cards with, where it came from)."""
    if cfg.gold_idea:
        return cfg.gold_idea, "gold_idea (config)"
    if bg.papers:
        p = bg.papers[0]
        body = (p.abstract or p.introduction or p.conclusion or "").strip()[: cfg.chars_per_document]
        return f"{p.title}\n{body}", f"Document 1: {p.title} (no gold idea configured)"
    raise ValueError("R_set needs an idea to judge impact against: give gold_idea in the setlevel config "
                     "or a background with at least one paper")


def best_set(sets: list[CandidateSet], gates: list[SetGate]) -> int:
    """Index of the set to keep: the highest R_set among valid sets (ties: the earlier draw); without
    scores the first valid set; with no valid set the first."""
    valid = [n for n, g in enumerate(gates) if g.valid]
    if not valid:
        return 0

    def r(n: int) -> float:
        sc = sets[n].score
        return sc.r_set if sc is not None else 0.0

    return max(valid, key=lambda n: (r(n), -n))


class SetlevelMethod(Method[SetlevelConfig, SetlevelState]):
    name = "setlevel"
    summary = ("One call writes a set of K = 3 idea cards (gap, claim, method, inspiration), most promising first; "
               "schema-gated and scored by R_set, with --sets N the best of N draws; more ideas, more sets.")
    config_model = SetlevelConfig
    state_model = SetlevelState
    roles = ("writer", "judge")  # judge: R_set's impact and distance judgments
    extra_model = SetlevelExtra

    def prompt_templates(self) -> dict[str, str]:
        return {"system": prompts.SYSTEM, "user": prompts.USER}

    def n_slots(self) -> int:
        return -(-self.config.ideas // self.config.set_size)

    def messages(self, bg: TopicBackground, topic: str, draw: int = 1, slot: int = 1,
                 written: list[str] | None = None) -> list[tuple[str, str]]:
        triples = ""
        if bg.triples:
            triples = "\nKnowledge-graph triples (problem → challenge → solution):\n" + "\n".join(
                f"- {t.problem} → {t.challenge} → {t.solution}" for t in bg.triples[:20]) + "\n"
        # Independent draws must differ in their request, or the LLM cache would replay the first one.
        draw_line = f"\n(Independent draw {draw} of {self.config.sets}.)" if self.config.sets > 1 else ""
        if self.n_slots() > 1:
            draw_line = f"\n(Set {slot} of {self.n_slots()}.)" + draw_line
        if written:  # later sets see the earlier sets' titles, as each card sees the cards before it
            draw_line += ("\nIdeas already proposed in earlier sets (write different ones):\n"
                          + "\n".join(f"- {t}" for t in written))
        system = prompts.SYSTEM.format(opportunities=", ".join(OPPORTUNITY_PATTERNS),
                                       paradigms=", ".join(METHOD_PARADIGMS))
        return [("system", system),
                ("human", prompts.USER.format(topic=topic, documents=documents_text(bg, self.config),
                                              triples=triples, k=self.config.set_size) + draw_line)]

    def writer_request(self, bg: TopicBackground, topic: str, draw: int = 1, slot: int = 1,
                       written: list[str] | None = None) -> list[BaseMessage]:
        """The writer's messages for one set draw, exactly as `run` sends them (the estimate prices these)."""
        msgs = self.messages(bg, topic, draw, slot, written)
        return [SystemMessage(content=msgs[0][1]), HumanMessage(content=msgs[1][1])]

    def writer_prompt_tokens(self, bg: TopicBackground, topic: str) -> int:
        """Input tokens of every writer call of a run on `bg`: each (set, draw) prompt rendered as `run` renders
        it, with the schema instruction the structured call adds, counted by the token counter every dry-run
        estimate uses. A later set also lists the titles of the sets before it, unknown before the run: they
        are priced as K titles of `_TYPICAL_TITLE`'s length per earlier set."""
        k, total = self.config.set_size, 0
        schema = schema_instruction(IdeaCards)
        for slot in range(1, self.n_slots() + 1):
            written = [_TYPICAL_TITLE] * (k * (slot - 1))
            for draw in range(1, self.config.sets + 1):
                total += count_message_tokens(with_instruction(
                    self.writer_request(bg, topic, draw, slot, written), schema))
        return total

    def _gate(self, cs: CandidateSet) -> SetGate:
        return gate_set([card_fields(c) for c in cs.cards], k=self.config.set_size,
                        min_words=self.config.min_field_words)

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        cfg = self.config
        k, slots = cfg.set_size, self.n_slots()
        state = ctx.load_checkpoint() or SetlevelState()
        if state.cards and not state.sets:  # a checkpoint of the one-set method
            state.sets, state.cards = [CandidateSet(cards=state.cards)], []
        scoring = cfg.sets > 1 or cfg.score or slots > 1
        anchor, anchor_source = anchor_text(ctx.background, cfg) if scoring else ("", "")
        judge = ctx.llm("judge")
        kinds = {"system": SystemMessage, "human": HumanMessage, "ai": AIMessage}

        async def ask(msgs: list[tuple[str, str]], schema: type[Any]) -> Any:
            return await judge.structured([kinds[r](content=c) for r, c in msgs], schema)

        def draws(slot: int) -> list[CandidateSet]:
            return [cs for cs in state.sets if cs.slot == slot]

        chosen: dict[int, int] = {}  # slot -> index into state.sets of the kept draw
        written: list[str] = []
        for slot in range(1, slots + 1):
            for draw in range(1, cfg.sets + 1):
                if len(draws(slot)) < draw:
                    ctx.emit({"type": "phase", "phase": f"writing {k} idea cards (set {slot} of {slots}, "
                                                         f"draw {draw} of {cfg.sets})"})
                    ctx.scope = {"set": slot, "draw": draw} if slots > 1 else {"set": draw}
                    reply = await ctx.llm("writer").structured(
                        self.writer_request(ctx.background, ctx.topic, draw, slot, written), IdeaCards)
                    state.sets.append(CandidateSet(cards=reply.cards, slot=slot))
                    ctx.save_checkpoint(state)
                    ctx.emit({"type": "message", "agent": "writer", "role": "assistant", "content": "\n\n".join(
                        f"{i}. {c.title}\n{c.core_claim}" for i, c in enumerate(reply.cards, 1))})
                cs = draws(slot)[draw - 1]
                gate = self._gate(cs)
                if scoring and cs.score is None:
                    ctx.scope = {"set": slot, "draw": draw} if slots > 1 else {"set": draw}
                    cs.score = await score_set(ask, ctx.topic, [card_fields(c) for c in cs.cards[:k]],
                                               anchor, valid=gate.valid, reason=gate.reason, bonus=cfg.valid_bonus)
                    ctx.save_checkpoint(state)
                ctx.emit({"type": "set", "set": slot, "draw": draw, "valid": gate.valid, "reason": gate.reason,
                          "r_set": cs.score.r_set if cs.score else None})
            mine = draws(slot)[: cfg.sets]
            best = best_set(mine, [self._gate(cs) for cs in mine])
            chosen[slot] = next(i for i, cs in enumerate(state.sets) if cs is mine[best])
            written += [c.title for c in mine[best].cards[:k] if c.title.strip()]
        ctx.scope = {}
        gates = [self._gate(cs) for cs in state.sets]
        kept = set(chosen.values())
        self._record = {"chosen": [chosen[s] + 1 for s in sorted(chosen)], "set_size": k,
                        "anchor": anchor_source or None, "sets": [
            {"set": n + 1, "slot": cs.slot, "kept": n in kept, "valid": g.valid, "reason": g.reason,
             **(cs.score.model_dump(mode="json") if cs.score else {"r_set": None}),
             "labels": [[c.opportunity, c.paradigm] for c in g.cards]}
            for n, (cs, g) in enumerate(zip(state.sets, gates, strict=True))]}
        ctx.run.write_json("sets.json", self._record)
        self._no_valid = None if any(gates[i].valid for i in kept) else (
            f"no schema-valid set of {k} cards in {len(state.sets)} draw(s): " + "; ".join(
                f"set {n}: {g.reason}" for n, g in enumerate(gates, 1)))

        papers = ctx.background.papers[: cfg.max_documents]
        ideas: list[IdeaRecord] = []
        rank = 0
        for slot in range(1, slots + 1):
            cs, gate = state.sets[chosen[slot]], gates[chosen[slot]]
            score = cs.score.r_set if cs.score else (0.0 if not gate.valid else None)
            for card, check in zip(cs.cards[:k], gate.cards, strict=False):
                if rank >= cfg.ideas:
                    break
                rank += 1
                ctx.scope = {"idea": rank}
                srcs = card_sources(card, papers)
                # Document N -> the paper's citation, so grounding can match it against the background papers.
                inspiration = _DOC_RE.sub(lambda m: cite(papers[int(m.group(1)) - 1])
                                          if 1 <= int(m.group(1)) <= len(papers) else m.group(0), card.inspiration)
                rejection = None
                if not gate.valid:  # the set is the unit: an invalid set delivers no accepted card
                    rejection = "; ".join(check.reasons) or f"its set is schema-invalid ({gate.reason})"
                # The taxonomy labels are recorded in their own fields; the idea's prose goes without them.
                gap, method = split_label(card.problem_gap)[1], split_label(card.method)[1]
                extra = SetlevelExtra(rank=rank, problem_gap=gap, core_claim=card.core_claim,
                                      inspiration=inspiration,
                                      sources=[{"document": n, "title": papers[n - 1].title,
                                                "paper_id": papers[n - 1].paper_id} for n in srcs],
                                      opportunity_pattern=check.opportunity, method_paradigm=check.paradigm,
                                      set_index=next(i for i, d in enumerate(draws(slot), 1) if d is cs),
                                      set_number=slot, r_set=score,
                                      rejection=rejection)
                idea = ctx.new_idea(title=card.title or f"Card {rank}", motivation=gap, method=method,
                                    abstract=card.core_claim, related_work=inspiration, extra=extra,
                                    status="rejected" if rejection else "accepted")
                ideas.append(await ctx.ground(idea))
        ctx.scope = {}
        ctx.write_ideas(ideas)
        return ideas

    def no_idea_detail(self) -> str:
        return getattr(self, "_no_valid", None) or "no card was written"

    def summary_section(self, ideas: list[IdeaRecord]) -> str:
        rec = getattr(self, "_record", None)
        if not rec:
            return ""
        kept = ", ".join(f"set {n}" for n in rec["chosen"])
        lines = [f"- Sets drawn: {len(rec['sets'])} (K = {rec['set_size']} cards each); kept: {kept}"
                 + (f"; impact anchor: {rec['anchor']}" if rec["anchor"] else "")]
        for s in rec["sets"]:
            r = "not scored" if s["r_set"] is None else f"R_set {s['r_set']:.3f}"
            lines.append(f"- Set {s['set']}: {r}" + ("" if s["valid"] else f" -- {s['reason']}"))
        return "\n".join(lines)

    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        k, slots = self.config.set_size, self.n_slots()
        n = self.config.sets * slots  # writer calls: every candidate draw of every set
        bg = plan.background
        if isinstance(bg, TopicBackground):  # known before the run (a background file): price what run() sends
            writer_in = self.writer_prompt_tokens(bg, topic)
        else:  # built from the graph at run time: the prompt without documents, plus the documents' share
            doc_tokens = min(background_tokens, self.config.max_documents * self.config.chars_per_document // 4)
            writer_in = self.writer_prompt_tokens(TopicBackground(topic=topic), topic) + n * doc_tokens
            plan.notes.append("setlevel: the background comes from the graph at run time; the writer prompt is "
                              "priced without its source documents plus ~chars/4 tokens for them")
        plan.add("writer", calls=n, input_tokens=writer_in, output_tokens=n * 440 * k)
        if n > 1 or self.config.score:  # per draw: 2 impact calls per card, 1 similarity call per pair
            calls = n * (2 * k + k * (k - 1) // 2)
            plan.add("judge", calls=calls, input_tokens=calls * 700, output_tokens=calls * 120)
