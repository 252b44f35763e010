"""Prompts of the miner's three LLM roles: extractor, resolver and parent judge.

Each builder returns LangChain messages. The wording is this project's own; the rules restate the
naming conventions of the seed (appendix B.3) in our words. The JSON shape asked for is the pydantic
schema the reply is validated against (miner.schemas), so prompt and validator cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from motivgraph.miner.schemas import NodeText

# LangChain is imported by the builders, when a model is asked: the offline ingest path (heuristic
# extractor, no resolver model) imports this module but never LangChain (~0.5 s at start-up).
if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage, HumanMessage

EXTRACTOR_SYSTEM = """You read the opening of a scientific paper and record its motivation as \
(problem, challenge, solution) triples for a research knowledge graph.

What each part is:
- PROBLEM: the broad research task or field the paper works on, the thing a reader would search for.
  Name it in 3 to 7 words as a general task or field (e.g. "Semi-supervised text classification").
  Its description is one or two neutral sentences defining the task and its purpose, written as a
  standalone definition: it must not mention difficulties, limitations or what this paper focuses on.
  Take the problem from the Introduction.
- CHALLENGE: one specific, atomic difficulty, gap or shortcoming inside that problem which the paper
  sets out to overcome. Name it in 5 to 8 words shaped as "<difficulty> in <context>"
  (e.g. "Scarce labelled data in specialised domains"). Its description, two or three sentences,
  explains the difficulty and how it bears on the problem.
- SOLUTION: the technical approach used against that challenge. Name it in 7 to 10 words of general
  technical vocabulary describing the core mechanism or principle. Never use the authors' own name,
  acronym or code name for their method, nor any term they coined; describe what it does instead.
  A well-known, cited technique may go by its established general name. Its description, two or
  three sentences, says how it works technically (consult the method excerpt when the Introduction
  is vague).

Rules:
- Give 1 to {max_triples} triples. Several triples may share a problem; each challenge gets the
  solution the paper applies to it.
- Names are general and reusable across papers: no author names, no paper-specific abbreviations,
  no dataset names unless the dataset is the task itself.
- "section" tells where the evidence is: "introduction", "abstract" or "method".
- Evidence: for each of problem, challenge and solution, "quotes" holds one or two sentences of
  the paper that state it, copied character for character from the text above: the whole
  sentence, in the paper's language, no rewording, no shortening, no "...", no markup. Every
  quote is checked against the paper; a quote that is not found there marks the triple
  unverified. Never write a sentence yourself to fill this field.
- If the text is not a research paper or says too little to name a problem, a challenge and a
  solution, return an empty "triples" list and say why in "no_triples_reason". Do not invent content.

Reply with one JSON object only, no prose and no code fences:
{{"triples": [{{"problem": {{"name": "...", "description": "...", "quotes": ["..."]}},
               "challenge": {{"name": "...", "description": "...", "quotes": ["..."]}},
               "solution": {{"name": "...", "description": "...", "quotes": ["..."]}},
               "section": "introduction"}}],
  "no_triples_reason": null}}"""

REASK = """Some triples in your reply break the naming rules:
{violations}
Reply again with the complete JSON object (all triples, corrected). Keep triples that had no problems \
unchanged."""


def extraction_messages(paper_text: str, max_triples: int) -> list[BaseMessage]:
    from langchain_core.messages import HumanMessage, SystemMessage  # local: offline ingest loads no LangChain

    return [
        SystemMessage(content=EXTRACTOR_SYSTEM.format(max_triples=max_triples)),
        HumanMessage(content=f"Paper:\n\n{paper_text}\n\nReturn the JSON object now."),
    ]


def reask_message(violations: Sequence[tuple[int, list[str]]]) -> HumanMessage:
    from langchain_core.messages import HumanMessage  # local: offline ingest loads no LangChain

    lines = [f"- triple {i + 1}: {'; '.join(v)}" for i, v in violations]
    return HumanMessage(content=REASK.format(violations="\n".join(lines)))


RESOLVER_SYSTEM = """You maintain a research knowledge graph and decide whether two {kind} entries \
name the same concept and should become one node. Same concept means a reader would accept either \
name for both descriptions: wording, abbreviation and minor scope differences do not matter, but a \
narrower or broader concept, a different difficulty, or a different technique is a different concept.
Reply with JSON only: {{"same": true or false, "reason": "one sentence"}}"""


def resolver_messages(kind: str, existing: NodeText, new: NodeText) -> list[BaseMessage]:
    from langchain_core.messages import HumanMessage, SystemMessage  # local: offline ingest loads no LangChain

    return [
        SystemMessage(content=RESOLVER_SYSTEM.format(kind=kind)),
        HumanMessage(
            content=f"Entry A (in the graph):\nname: {existing.name}\ndescription: {existing.description}\n\n"
            f"Entry B (new):\nname: {new.name}\ndescription: {new.description}\n\nSame concept?"
        ),
    ]


PARENT_SYSTEM = """You organise {kind} nodes of a research knowledge graph into a hierarchy. You see one \
focal {kind} and a numbered list of similar candidates. Decide whether one coherent, more general \
{kind} concept covers the focal {kind} together with at least one candidate.
- Only group candidates that truly fall under the same broader concept; leave the others out.
- The parent is more general than each member but still specific enough to be useful (not "Machine \
learning" for everything). Name it like its members: {naming}.
- If no candidate fits, set "create" to false.
Reply with JSON only:
{{"create": true or false, "members": [candidate numbers], "name": "parent name", \
"description": "one or two sentences", "reason": "one sentence"}}"""

_NAMING = {
    "problem": "a general task or field in 3 to 7 words",
    "challenge": "'<difficulty> in <context>' in 5 to 8 words",
}


def parent_messages(kind: str, focal: NodeText, candidates: Sequence[NodeText]) -> list[BaseMessage]:
    from langchain_core.messages import HumanMessage, SystemMessage  # local: offline ingest loads no LangChain

    lines = "\n".join(f"{i + 1}. {c.name}: {c.description}" for i, c in enumerate(candidates))
    return [
        SystemMessage(content=PARENT_SYSTEM.format(kind=kind, naming=_NAMING.get(kind, "a short general name"))),
        HumanMessage(
            content=f"Focal {kind}:\n{focal.name}: {focal.description}\n\nCandidates:\n{lines}\n\n"
            "Is there a more general parent?"
        ),
    ]


JOIN_SYSTEM = """You maintain a hierarchy of {kind} nodes in a research knowledge graph. Decide whether \
the existing parent concept correctly generalises the new {kind}, so that the new one can be placed \
under it. Reply with JSON only: {{"covers": true or false, "reason": "one sentence"}}"""


def join_messages(kind: str, parent: NodeText, node: NodeText) -> list[BaseMessage]:
    from langchain_core.messages import HumanMessage, SystemMessage  # local: offline ingest loads no LangChain

    return [
        SystemMessage(content=JOIN_SYSTEM.format(kind=kind)),
        HumanMessage(
            content=f"Parent:\n{parent.name}: {parent.description}\n\nNew {kind}:\n{node.name}: "
            f"{node.description}\n\nDoes the parent cover it?"
        ),
    ]


GROUP_PARENT_SYSTEM = """You organise {kind} nodes of a research knowledge graph into a hierarchy. You see one \
focal {kind} and a numbered list of its most similar {kind}s. Decide whether ALL of them together - the \
focal {kind} and every listed one - form one coherent, more general {kind} concept. If yes, every one of them \
becomes a child of that concept; if any of them does not belong, answer no.
- The parent is more general than each of them but still specific enough to be useful (not "Machine \
learning" for everything). Name it like its children: {naming}.
Reply with JSON only:
{{"create": true or false, "name": "parent name", "description": "one or two sentences", \
"reason": "one sentence"}}"""


def group_parent_messages(kind: str, focal: NodeText, candidates: Sequence[NodeText]) -> list[BaseMessage]:
    """The B.4 question: one yes/no for the focal node with the whole filtered neighbour set."""
    from langchain_core.messages import HumanMessage, SystemMessage  # local: offline ingest loads no LangChain

    lines = "\n".join(f"{i + 1}. {c.name}: {c.description}" for i, c in enumerate(candidates))
    return [
        SystemMessage(content=GROUP_PARENT_SYSTEM.format(kind=kind, naming=_NAMING.get(kind, "a short general name"))),
        HumanMessage(
            content=f"Focal {kind}:\n{focal.name}: {focal.description}\n\nSimilar {kind}s:\n{lines}\n\n"
            "Do all of them together form a more general parent?"
        ),
    ]
