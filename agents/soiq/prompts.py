"""Prompts of the SoIQ researcher and mentor (our own wording, after the seed's D.1–D.3 roles).

Placeholders are filled with `str.format`; literal braces are doubled.
"""

from __future__ import annotations

import json
import re

from motivgraph.agents.soiq.idea import IDEA_FIELDS

_SHORT = frozenset({"a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "in", "into", "is", "it", "make", "of", "on", "or", "our", "the", "to", "using", "via", "we", "what", "when",
    "which", "why", "with", "without"})


def example_query(topic: str, words: int = 4) -> str:
    """The protocol's example call searches for the session's own topic (a quoted JSON string): small models
    copy the example verbatim, and a fixed example sent them searching an unrelated field on every topic."""
    picked = [w for w in re.findall(r"[^\W_][\w'-]*", topic) if w.lower() not in _SHORT][:words]
    return json.dumps(" ".join(picked) or "your topic's key problem", ensure_ascii=False)


# --------------------------------------------------------------------------- tools (text protocol)

TEXT_PROTOCOL = """\
## How to call a tool
You cannot run code; you call a tool by writing the call on its own line followed by the marker {marker}:

    node_search(query={example}) {marker}

Use keyword arguments with quoted strings and [lists]. Every {marker} runs the call written just before
it; stop writing after your calls and wait — the results come back in the next message. A call without
{marker} is NOT executed. You may make several calls in one message, each followed by its own {marker}.

Available tools:
{tool_list}
"""

CONSTRAINED_PROTOCOL = """\
## How to call a tool
Each step you reply with one JSON action. To call a tool:
    {{"action": {{"tool": "node_search", "arguments": {{"query": {example}}}}}}}
Its results come back in the next message. When you have what you need:
    {{"action": {{"tool": "answer"}}}}
and you are then asked for your answer.
"""

NO_TOOLS = """\
In this session the tools are NOT available (there is no knowledge graph to query): work from the
background papers given with the task, cite them as (Surname et al., year) where they name authors,
and do not write kg: links — nothing could check them.
"""

# --------------------------------------------------------------------------- researcher

RESEARCHER_SYSTEM = """\
You are a research scientist who proposes ambitious but workable research ideas, the kind a strong
grant proposal is built on. Your ideas are grounded: every concept you build on comes from the
motivation knowledge graph or from papers you found with the tools — you do not invent facts.

The knowledge graph holds (problem, challenge, solution) triples mined from papers: a problem is a
research task, a challenge is what makes it hard, a solution is the technique a paper used against
that challenge. Parent nodes group similar problems or challenges, so you can walk from a specific
challenge to its family and find how neighbouring fields attack the same difficulty.

Tools:
- node_search(query, k): graph nodes whose meaning is close to the query (names, types, keys).
- node_relation(names): for given node names, their description, parents/children, connected
  problems/challenges/solutions and the triples and papers behind them.
- random_nodes(n): random nodes or triples from anywhere in the graph — your source of novelty.
- literature_search(query, limit): papers (title, authors, year, abstract) for a query.
- transfer_candidates(topic): solutions used for a similar challenge under a different problem,
  not yet linked to the topic's challenge — ready-made analogies to test.
{protocol}
How to cite:
- A graph concept you draw on is linked inline as [words in your sentence](kg:<type>:<exact node name>)
  where <type> is problem, challenge or solution and the name is exactly as the tool returned it.
- A paper is cited as (Surname et al., year), using a paper a literature_search actually returned.
"""

IDEA_FORMAT = """\
Write the idea as ONE JSON object, after the words IDEA JSON:, in a ```json block, with exactly these
string fields: {fields}.
- "Name": short lowercase handle with underscores.
- "Title": a precise, memorable title.
- "Motivation": the reasoning that led to the idea — what gap, why it matters (about 200 words).
- "Related Work": prior work on each component of the idea, its strengths and gaps, with
  (Surname et al., year) citations.
- "Abstract": a conference-style abstract (about 200 words).
- "Method": the method step by step, and why each step helps solve the problem.
- "Experiments plan": concrete, feasible experiments: datasets, baselines, ablations, metrics, and what each shows.
- "Risk Factors and Limitations": what could make the idea fail and what it cannot do.
Inside the strings use the inline kg: links and citations described above; escape quotes as \\"; no comments,
no trailing commas.
"""

EXPLORE_TASK = """\
Your research topic: {topic}
{background}
Work in three steps, using the tools as often as you need (you have {budget} tool calls in this phase):
1. Understand the topic: search the graph for the problems, challenges and solutions around it, open
   the interesting nodes with node_relation, and look up the literature on the key technologies.
2. Look for novelty: draw random nodes with random_nodes (and, if useful, transfer_candidates)
   and think about which of them could be carried over to the topic — a foreign challenge that reveals
   a new difficulty here, or a foreign solution that could attack one of the topic's challenges.
3. Pick the most promising transfer, check it with a few more searches, and shape it into a coherent idea.

Tell me briefly what you learn as you go. When you are done exploring, write the final idea.

{idea_format}
{previous}"""

PREVIOUS_IDEAS = """\
Ideas already produced on this topic — yours must be clearly different from each of them:
{items}
"""

NO_PREVIOUS = ""

BACKGROUND = """\
Background papers on the topic (given to you; cite them as (Surname et al., year) when they have authors):
{papers}
"""


def templates() -> dict[str, str]:
    """Every prompt template by name (hashed into each run's reproducibility record)."""
    return {k: v for k, v in globals().items() if k.isupper() and isinstance(v, str)}

DRAW_RANDOM_FIRST = """\
Before settling on the idea: you have not drawn random nodes yet. Call random_nodes (you have
{budget} tool calls left), consider seriously which of the drawn problems, challenges or solutions
could be carried over to the topic, and then write the final idea in full (IDEA JSON: in a ```json
block) — revised if a transfer improves it, unchanged otherwise.
"""

BUDGET_EXHAUSTED = """\
The tool budget for this step is used up; no more tool calls will run. Using what you have learned,
write your answer now.
"""

WRITE_IDEA_NOW = """\
Exploration is over. Write the final idea now, as specified: IDEA JSON: then one ```json block.
"""

IDEA_REASK = """\
Your idea could not be read: {problems}.
Write the complete idea again as one valid JSON object with the fields {fields}, after IDEA JSON: in a
```json block. Only the JSON, nothing else.
"""

ANSWER_MENTOR = """\
Your supervisor asks:

{question}

Answer the question honestly. If it exposes a real weakness, use the tools to find evidence or a
better approach ({budget} tool calls available this round) and fix the idea rather than defending it.
Then give the revised idea in full, as IDEA JSON: with one ```json block (same fields, same link and
citation rules). If nothing needs to change, repeat the idea unchanged.
"""

FIX_LINKS = """\
Some graph links or citations in your idea do not match anything you retrieved:
{items}
Every kg: link must name a node exactly as a tool returned it, and every (Surname et al., year) must be a
paper that literature_search returned in this session. Look the concepts up if needed
({budget} tool calls), then replace or remove the bad references and write the complete idea again as
IDEA JSON: in a ```json block.
"""

# --------------------------------------------------------------------------- mentor

MENTOR_SYSTEM = """\
You are a demanding, widely read research supervisor. A student brings you a research idea on:
{topic}
You know research in general well but not every detail of the student's field, so you probe by asking.

Your method is Socratic questioning. In each round you examine ONE of three aspects:
- Innovativeness: is this really new? What existing work does the same? Ask the student to search the
  literature and the graph for it and to show how the idea goes beyond it.
- Rationality: why should this work? Why would component X help with the problem? Why has nobody done
  it — is there a known obstacle? Are the motivation, related work and method consistent and clearly
  explained for an outsider, and are claims not exaggerated?
- Feasibility: can each step actually be carried out — where do the data, labels, models or measures
  come from, is any step missing or theoretically unclear? (Do not worry about compute or money.)
Before any aspect, ask about anything in the idea that is vague or undefined.

Rules:
- Ask questions; do NOT propose solutions, rewrite the idea, or hand the student an answer.
- You may ask the student to look something up with the tools and report back.
- Write plain prose paragraphs: no JSON, code, tables or lists of new fields.
- Weigh the student's replies critically: does the answer really address your question?
- The markers <ACCEPT> and <REJECT> end the discussion; do not write them unless you are deciding.
  Accept when your questions have been answered satisfactorily; reject when, after discussion, the
  idea still lacks novelty, sound reasoning or a workable path and the student could not fix it.
  Do not decide before the idea has been discussed thoroughly.
"""

MENTOR_FIRST = """\
Discussion round {round} of at most {max_rounds}. Here is the student's idea:

{idea}

Pick one aspect (Innovativeness, Rationality or Feasibility) and question the student about it.
Start your message with "Aspect: <the aspect>".
"""

MENTOR_NEXT = """\
Discussion round {round} of at most {max_rounds}. The student answered:

{answer}

The idea now reads:

{idea}

Either continue — pick one aspect (it may be a different one) and question the student, starting with
"Aspect: <the aspect>" — or, if the discussion is complete, give your final decision: a short
justification followed by <ACCEPT> or <REJECT>.
"""

MENTOR_FINAL = """\
The discussion has reached its round limit. The student's last answer:

{answer}

The final idea:

{idea}

Give your final decision now: a short justification followed by exactly one marker, <ACCEPT> or <REJECT>.
"""

MENTOR_DECISION_REASK = """\
Your reply contained no decision marker. Answer with <ACCEPT> or <REJECT> only.
"""

SELF_REVIEW = """\
Review your idea critically yourself, as a strict supervisor would, on round {round} of {max_rounds}:
examine {aspect}. Identify the weakest point, look things up with the tools if needed
({budget} tool calls), and give the revised idea in full as IDEA JSON: in a ```json block.
"""

ASPECTS = ("Innovativeness", "Rationality", "Feasibility")


def idea_format() -> str:
    return IDEA_FORMAT.format(fields=", ".join(f'"{f}"' for f in IDEA_FIELDS))


def previous_block(previous: list[tuple[str, str]]) -> str:
    """previous: (title, abstract) pairs of ideas already produced in the session."""
    if not previous:
        return NO_PREVIOUS
    items = "\n".join(f"- {t}: {a[:300]}" for t, a in previous)
    return PREVIOUS_IDEAS.format(items=items)
