"""A deterministic stand-in for every IDEAgent/baseline role, for tests, demos and dry runs.

`World(plan)` is a reply callable for ScriptedChatModel: it reads the role from the system
message's "ROLE:" header and the idea's tag from the text ("Idea <tag>"), and answers what the
plan says. Replies depend only on the messages, never on call order, so the LLM cache can replay
any prefix of a run (budget stop + resume) and concurrent calls cannot reorder the script.

Plan (all keys optional):
  drafts:   {draft label -> tag}          the ideator writes idea <tag> for draft "s03.d1"
  unwritable: [draft label]               the ideator's reply for it is unusable, except on a second attempt
  scores:   {tag -> {N, C, F, panel: [0-9]*M, D, active: [lineage], history: [draft], families: [id],
                     family: id | None, pattern: str, wins: [bool, bool]}}
Unplanned tags get scores derived from a hash of the tag (a mix of accepted, repaired, refined
and rejected drafts), so a default `World()` exercises every stage of the search.

CLI/HTTP end-to-end runs select it with a script file:
  {"default": {"call": "motivgraph.agents.ideagent.scripted_world:reply"}}
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from motivgraph.llm.tokens import content_text

_ROLE = re.compile(r"ROLE:\s*([^\n.]+)")
_TAG = re.compile(r"Idea ([A-Za-z0-9_.\-]+)")
_TOPIC = re.compile(r"^TOPIC: (.+)$", re.M)
_LABEL = re.compile(r"Draft (s\d+\.d\d+)")
_SAMPLE = re.compile(r"(?:Sample|Idea) (\d+) of (\d+)")
_MANY = re.compile(r"Write (\d+) distinct research ideas")
_PICK = re.compile(r"pick the (\d+)")
_IDS = re.compile(r"^\[([^\]]+)\]", re.M)
_SEED = re.compile(r"seed idea.*?Title: Idea ([A-Za-z0-9_.\-]+)", re.S)


def _h(tag: str, salt: str) -> int:
    return int(hashlib.sha256(f"{salt}:{tag}".encode()).hexdigest()[:8], 16)


def revision_delta(tag: str, salt: str) -> int:
    """How much a revision (tags ending in .d1/.d2) moves one score against its seed draft: drawn per
    tag and score from -10 to +17, so a revision may raise N or C, leave it, or lower it -- a repair or
    refinement succeeds when the draws say so, not by construction (0 for first drafts)."""
    k = int(tag[-1]) if tag[-1:].isdigit() and not tag.endswith(".d0") else 0
    return sum(_h(f"{tag}#{i}", f"rev{salt}") % 28 - 10 for i in range(k))


def default_scores(tag: str) -> dict[str, Any]:
    """Deterministic scores for an unplanned tag: first drafts spread over the gate; a revision's N
    and C are its seed draft's moved by `revision_delta` (up or down)."""
    root = tag[:-1] + "0" if tag[-1:].isdigit() and re.search(r"\.d\d$", tag) else tag
    n = 45 + _h(root, "N") % 45 + revision_delta(tag, "N")
    c = 55 + _h(root, "C") % 35 + revision_delta(tag, "C")
    base = 5 + _h(tag, "S") % 4
    panel = [min(9, base + (i % 2)) for i in range(5)]
    if _h(tag, "disputed") % 7 == 0:
        panel[0] = 3
    return {"N": max(0, min(n, 98)), "C": max(0, min(c, 98)), "F": 40 + _h(tag, "F") % 50, "panel": panel,
            "D": 50 + _h(tag, "D") % 50, "wins": [True, _h(tag, "W") % 3 != 0]}


def _idea(tag: str, topic_hint: str = "", topic: str = "") -> dict[str, str]:
    on = f" for {topic}" if topic else ""  # the run's topic, so the idea is about it (the validity gate checks)
    return {
        "title": f"Idea {tag}: a mechanism for the topic{(' ' + topic_hint) if topic_hint else ''}",
        "problem": f"Problem addressed by idea {tag}, stated concretely.",
        "motivation": f"Why idea {tag} matters{on}: current methods leave a measurable gap.",
        "method": f"Method of idea {tag}{on}: an intervention with explicit steps and inputs.",
        "novelty": f"Idea {tag} adds a mechanism absent from the background papers.",
        "experiment_plan": f"Evaluate idea {tag} on two public benchmarks against strong baselines.",
        "expected_effect": f"Idea {tag} should improve the main metric by a measurable margin.",
        "risks": f"Idea {tag} may not transfer beyond the studied setting.",
    }


class World:
    """Reply callable (see module docstring). It takes the request's params (`takes_params`): the
    soundness panel's M identical requests differ only in their seed, which picks the sample."""

    takes_params = True

    def __init__(self, plan: dict[str, Any] | None = None, panel_size: int = 5, use_tools: bool = True) -> None:
        plan = plan or {}
        self.use_tools = use_tools
        self.drafts: dict[str, str] = dict(plan.get("drafts", {}))
        self.unwritable: set[str] = set(plan.get("unwritable", []))
        self.scores: dict[str, dict[str, Any]] = dict(plan.get("scores", {}))
        self.panel_size = panel_size
        self.roles_seen: list[str] = []
        self._seed: int | None = None  # the current request's seed (answers are computed synchronously)
        self._topic = ""  # the current request's topic (the ideator's system prompt names it)

    def spec(self, tag: str) -> dict[str, Any]:
        return {**default_scores(tag), **self.scores.get(tag, {})}

    def __call__(self, messages: list[BaseMessage], params: dict[str, Any] | None = None) -> str | AIMessage:
        self._seed = (params or {}).get("seed")
        system = next((content_text(m.content) for m in messages if isinstance(m, SystemMessage)), "")
        topic = _TOPIC.search(system)
        self._topic = topic.group(1).strip() if topic else ""
        user = content_text(messages[-1].content) if messages else ""
        m = _ROLE.search(system)
        role = m.group(1).strip().lower() if m else "ideator"
        self.roles_seen.append(role)
        if role.startswith("ideator"):
            first = next((content_text(x.content) for x in messages if isinstance(x, HumanMessage)), user)
            used_tools = any(isinstance(x, ToolMessage) or x.additional_kwargs.get("mg_kind") == "tool_result"
                             for x in messages)
            if "TOOLS:" in system and not used_tools and self.use_tools:
                return self._tool_call(system, first)
            user = first
        return json.dumps(self.answer(role, system, user))

    @staticmethod
    def _tool_call(system: str, prompt: str) -> str | AIMessage:
        """The ideator's first step when tools are offered: one node search (native or text protocol)."""
        query = "research problems and challenges"
        if "<CALL>" in system:
            return f'I will look at the graph first.\nnode_search(query="{query}", k=3) <CALL>'
        return AIMessage(content="", tool_calls=[{"name": "node_search", "args": {"query": query, "k": 3},
                                                  "id": None, "type": "tool_call"}])

    # -- per role ----------------------------------------------------------------------------
    def answer(self, role: str, system: str, user: str) -> Any:
        if role.startswith("ideator"):
            return self._ideator(user)
        if role.startswith("stenographer"):
            tag = self._tag(user)
            return {"problem": f"problem of {tag}", "mechanism": f"mechanism of {tag}",
                    "novelty": f"novelty of {tag}", "assumptions": f"assumptions of {tag}",
                    "effect": f"effect of {tag}"}
        if role.startswith("quality judge (blind"):
            return self._pairwise(user)
        if role.startswith("quality judge"):
            s = self.spec(self._tag(user))
            return {"non_obviousness": s["N"], "clarity": s["C"], "feasibility": s["F"],
                    "rationale": "scripted quality judgment"}
        if role.startswith("soundness panelist"):
            # the panel sends M consecutive seeds: modulo M they are each sample index once, whatever the base
            panel = self.spec(self._tag(user))["panel"]
            j = int(self._seed or 0) % len(panel)
            return {"score": int(panel[j]), "rationale": f"scripted sample {j + 1} (seed {self._seed})"}
        if role.startswith("diversity judge (rejection"):
            tag = self._sig_tag(user.split("\n\n")[0])
            return {"family": self.spec(tag).get("family"),
                    "pattern": self.spec(tag).get("pattern", f"failure pattern of {tag}")}
        if role.startswith("diversity judge"):
            cand = user.split("\n\n")[0]
            s = self.spec(self._sig_tag(cand))
            return {"diversity": s["D"], "active_duplicates": s.get("active", []),
                    "history_duplicates": s.get("history", []), "family_matches": s.get("families", []),
                    "rationale": "scripted diversity judgment"}
        if role.startswith("critic"):
            return {"bottleneck": "scripted bottleneck", "directive": "Tighten the causal chain and state assumptions."}
        if role.startswith("selection judge"):
            k = int(_PICK.search(system).group(1))  # type: ignore[union-attr]
            return {"ids": _IDS.findall(user)[:k]}
        raise ValueError(f"scripted world: unknown role {role!r}")

    def _ideator(self, user: str) -> Any:
        many = _MANY.search(user)
        if many:
            return {"ideas": [_idea(f"os{i}", topic=self._topic) for i in range(1, int(many.group(1)) + 1)]}
        label = _LABEL.search(user)
        if label:
            if label.group(1) in self.unwritable and "second attempt" not in user:
                return {"title": "unusable"}  # fails IdeaText validation: the draft cannot be written
            return _idea(self.drafts.get(label.group(1), label.group(1)), topic=self._topic)
        sample = _SAMPLE.search(user)
        seed = _SEED.search(user)
        if sample:
            prefix = "st" if user.startswith("Sample") else "sm"
            tag = f"{prefix}{sample.group(1)}" + (f"-from-{seed.group(1)}" if seed else "")
            rnd = re.search(r"round (\d+)", user, re.I)
            return _idea(tag + (f"-r{rnd.group(1)}" if rnd else ""), topic=self._topic)
        return _idea("free", topic=self._topic)

    def _pairwise(self, user: str) -> Any:
        a_part, _, b_part = user.partition("IDEA B:")
        a, b = self._tag(a_part), self._tag(b_part)
        # the child is the later draft (higher draft label); the plan says whether it wins
        labels = {t: lab for lab, t in self.drafts.items()}
        child_is_a = labels.get(a, a) > labels.get(b, b)
        child = a if child_is_a else b
        wins = self.spec(child).get("wins", [True, True])
        win = wins[1] if child_is_a else wins[0]
        winner = ("A" if child_is_a else "B") if win else ("B" if child_is_a else "A")
        return {"winner": winner, "rationale": "scripted comparison"}

    @staticmethod
    def _tag(text: str) -> str:
        m = _TAG.search(text)
        return m.group(1).rstrip(":.") if m else "unknown"

    @staticmethod
    def _sig_tag(text: str) -> str:
        m = re.search(r"problem of ([A-Za-z0-9_.\-]+)", text)
        return m.group(1) if m else "unknown"


_DEFAULT = World()


reply = _DEFAULT  # the default world's reply callable (script files: {"call": "...scripted_world:reply"})
