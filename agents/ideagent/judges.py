"""The LLM roles of IDEAgent: what each is asked (schemas) and how its answers are read.

Every call goes through the LLM layer (`StructuredLLM` is the part of motivgraph.llm.LLMClient used
here: cache, retries, usage and the run's budget stop come with it). Role names are settings
(`Roles`), so any role can point at another model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol, TypeVar

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, field_validator

from motivgraph.agents.ideagent import prompts as P
from motivgraph.agents.ideagent.archive import Archive, Draft
from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.routing import Duplicates
from motivgraph.agents.ideagent.scores import Scores, aggregate_soundness
from motivgraph.agents.ideagent.signature import Signature
from motivgraph.aio import gather_all
from motivgraph.errors import JudgeFailure, StructuredOutputError

M = TypeVar("M", bound=BaseModel)


JUDGE_ATTEMPTS = 3  # asks per judge sample before its reply counts as a judge failure (new sample each time)


class StructuredLLM(Protocol):
    """The slice of LLMClient the search needs (tests pass an LLMClient on a scripted model)."""

    async def structured(self, role: str, messages: Any, schema: type[M], **kwargs: Any) -> M: ...


class Roles(BaseModel):
    """The LLM role each IDEAgent agent is accounted under (and configured by)."""

    ideator: str = "ideagent.ideator"
    stenographer: str = "ideagent.stenographer"
    quality: str = "ideagent.quality"
    soundness: str = "ideagent.soundness"
    diversity: str = "ideagent.diversity"
    critic: str = "ideagent.critic"


# -- schemas (what each role answers) --------------------------------------------------------


class IdeaText(BaseModel):
    """The ideator's idea."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    title: str = Field(min_length=3, max_length=300)
    problem: str = Field(min_length=10)
    motivation: str = Field(min_length=10)
    method: str = Field(min_length=10)
    novelty: str = Field(min_length=5)
    experiment_plan: str = Field(min_length=10)
    expected_effect: str = Field(min_length=5)
    risks: str = Field("", description="Risks and limitations.")


class IdeaList(BaseModel):
    ideas: list[IdeaText] = Field(min_length=1)


def _clamp100(v: Any) -> Any:
    return max(0, min(100, v)) if isinstance(v, int | float) else v


class QualityVerdict(BaseModel):
    non_obviousness: float = Field(ge=0, le=100)
    clarity: float = Field(ge=0, le=100)
    feasibility: float = Field(ge=0, le=100)
    rationale: str = ""

    _c = field_validator("non_obviousness", "clarity", "feasibility", mode="before")(lambda cls, v: _clamp100(v))


class SoundnessJudgment(BaseModel):
    score: int = Field(ge=0, le=9)
    rationale: str = ""


class DiversityVerdict(BaseModel):
    diversity: float = Field(ge=0, le=100)
    active_duplicates: list[str] = Field(default_factory=list)
    history_duplicates: list[str] = Field(default_factory=list)
    family_matches: list[str] = Field(default_factory=list)
    rationale: str = ""

    _c = field_validator("diversity", mode="before")(lambda cls, v: _clamp100(v))


class FamilyVerdict(BaseModel):
    family: str | None = None
    pattern: str = Field(min_length=3)


class CriticDirective(BaseModel):
    bottleneck: str = ""
    directive: str = Field(min_length=5)


class PairwiseVerdict(BaseModel):
    winner: Literal["A", "B"]
    rationale: str = ""

    @field_validator("winner", mode="before")
    @classmethod
    def _norm(cls, v: Any) -> Any:
        return v.strip().upper()[:1] if isinstance(v, str) and v.strip() else v


class Selection(BaseModel):
    ids: list[str] = Field(min_length=1)


# -- calls -----------------------------------------------------------------------------------


def msgs(system: str, user: str) -> list[BaseMessage]:
    return [SystemMessage(content=system), HumanMessage(content=user)]


class Judges:
    """The five evaluating roles (stenographer, quality, soundness panel, diversity, critic)."""

    def __init__(self, llm: StructuredLLM, cfg: IdeagentConfig, background: str, roles: Roles | None = None, *,
                 sample_seed: int = 0) -> None:
        """`sample_seed`: the run's seed; the soundness samples of a run with another seed are new draws."""
        self.llm, self.cfg, self.background, self.roles = llm, cfg, background, roles or Roles()
        self.sample_seed = sample_seed

    def panel_seeds(self) -> list[int]:
        """One request seed per soundness sample: M consecutive integers, disjoint between run seeds.
        The seed is part of the LLM cache key, so the M identical requests stay M samples (the cache
        would otherwise answer all of them with the first reply) and a resumed run replays each one."""
        m = self.cfg.panel_size
        return [self.sample_seed * m + j for j in range(m)]

    async def signature(self, idea: dict[str, Any]) -> Signature:
        return await self.llm.structured(self.roles.stenographer, msgs(P.STENOGRAPHER, P.render_idea(idea)), Signature)

    async def quality(self, idea: dict[str, Any]) -> QualityVerdict:
        return await self.llm.structured(self.roles.quality, msgs(P.QUALITY, P.idea_message(idea, self.background)),
                                         QualityVerdict)

    async def panel(self, idea: dict[str, Any]) -> list[SoundnessJudgment]:
        """M independent samples of one soundness prompt, each with its own seed. A sample whose reply is
        unusable (a score outside 0..9 where the server does not constrain it, broken JSON) is drawn again
        with a new seed, up to JUDGE_ATTEMPTS times; then JudgeFailure names the judge and the last problem."""
        user = P.idea_message(idea, self.background)
        m = self.cfg.panel_size

        async def sample(j: int, seed: int) -> SoundnessJudgment:
            last: StructuredOutputError | None = None
            for attempt in range(JUDGE_ATTEMPTS):
                # retries draw seeds past every run's first-attempt block, so no two requests share a cache key
                s = seed if attempt == 0 else (1 << 30) + (seed * JUDGE_ATTEMPTS + attempt) * m + j
                try:
                    return await self.llm.structured(self.roles.soundness, msgs(P.SOUNDNESS, user),
                                                     SoundnessJudgment, seed=s)
                except StructuredOutputError as e:
                    last = e
            raise JudgeFailure(f"soundness judge (sample {j + 1} of {m}) gave no usable 0-9 score in "
                               f"{JUDGE_ATTEMPTS} attempts: {last}") from last

        return await gather_all(*(sample(j, seed) for j, seed in enumerate(self.panel_seeds())))

    async def diversity(self, sig: Signature, archive: Archive, exclude_lineage: str | None) -> tuple[
            DiversityVerdict, Duplicates]:
        """D and the near-duplicates, restricted to ids that exist (an invented id is no duplicate).
        With nothing to compare against the judge is not asked: D = 100."""
        active = {lin for lin in archive.active if lin != exclude_lineage}
        history = {d.id for d in archive.history if d.lineage != exclude_lineage}
        families = {f.id for f in archive.families}
        queued = [d for d in archive.repair_queue if d.lineage != exclude_lineage]
        if not (active or history or families or queued):
            return DiversityVerdict(diversity=100, rationale="nothing to compare against yet"), Duplicates()
        v = await self.llm.structured(
            self.roles.diversity,
            msgs(P.DIVERSITY, P.diversity_message(sig, archive, self.cfg.signature_chars, exclude_lineage)),
            DiversityVerdict)
        dups = Duplicates(active=_known(v.active_duplicates, active), history=_known(v.history_duplicates, history),
                          families=_known(v.family_matches, families))
        return v, dups

    async def evaluate(self, d: Draft, archive: Archive, exclude_lineage: str | None) -> tuple[
            Scores, Duplicates, DiversityVerdict]:
        q, panel, (dv, dups) = await gather_all(
            self.quality(d.idea), self.panel(d.idea), self.diversity(d.signature, archive, exclude_lineage))
        sp = aggregate_soundness([j.score for j in panel], self.cfg, [j.rationale for j in panel])
        s = Scores(non_obviousness=q.non_obviousness, clarity=q.clarity, feasibility=q.feasibility, soundness=sp,
                   diversity=dv.diversity, quality_rationale=q.rationale, diversity_rationale=dv.rationale)
        return s, dups, dv

    async def family(self, d: Draft, reason: str, archive: Archive) -> FamilyVerdict:
        return await self.llm.structured(
            self.roles.diversity,
            msgs(P.FAMILY, P.family_message(d, reason, archive.families, self.cfg.signature_chars)), FamilyVerdict)

    async def critic(self, d: Draft, mode: str, problems: list[str]) -> CriticDirective:
        return await self.llm.structured(
            self.roles.critic, msgs(P.CRITIC, P.critic_message(d, mode, problems, self.background)), CriticDirective)

    async def child_wins(self, parent: Draft, child: Draft) -> list[bool]:
        """The blind non-obviousness comparison, parent-first then child-first."""
        first = await self.llm.structured(self.roles.quality, msgs(P.PAIRWISE, P.pairwise_message(
            parent.idea, child.idea)), PairwiseVerdict)
        second = await self.llm.structured(self.roles.quality, msgs(P.PAIRWISE, P.pairwise_message(
            child.idea, parent.idea)), PairwiseVerdict)
        return [first.winner == "B", second.winner == "A"]


def _known(ids: Sequence[str], valid: set[str]) -> tuple[str, ...]:
    out: list[str] = []
    for raw in ids:
        i = str(raw).strip().strip("[]")
        if i in valid and i not in out:
            out.append(i)
    return tuple(out)
