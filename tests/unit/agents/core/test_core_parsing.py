"""Unit tests of the SoIQ text pieces: tool-call protocol, idea JSON, links and citations,
mentor decisions and aspects."""

from __future__ import annotations

import json

import pytest

from motivgraph.agents.core.grounding import GroundingReport, extract_citations, extract_links, match_citation
from motivgraph.agents.core.protocol import CallError, ParsedCall, parse_text_calls, strip_after_last_marker
from motivgraph.agents.soiq.idea import parse_idea
from motivgraph.agents.soiq.mentor import parse_aspect, parse_decision
from motivgraph.agents.soiq.method import parse_ablations
from motivgraph.errors import IdeaParseError

IDEA = {
    "Name": "x", "Title": "A title here", "Motivation": "m" * 30, "Related Work": "r" * 30,
    "Abstract": "a" * 30, "Method": "me" * 15, "Experiments plan": "e" * 30, "Risk Factors and Limitations": "risk" * 5,
}


# ------------------------------------------------------------------ protocol
def test_protocol_seed_style_and_multiple_calls():
    calls = parse_text_calls(
        'conducting node_search(search_query="LLM Compression")\nSpecial token: <CALL>\n'
        'then node_relation(entity_name_list=["A (x)", "B"]) <call> and get_random_nodes(number=10)<CALL>'
    )
    assert [c.name for c in calls] == ["node_search", "node_relation", "get_random_nodes"]
    assert calls[1].args == {"entity_name_list": ["A (x)", "B"]}
    assert calls[2].args == {"number": 10}


def test_protocol_no_marker_no_call():
    assert parse_text_calls('node_search(query="x") without the marker') == []


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('node_search(query="abc" <CALL>', "unbalanced"),
        ("<CALL>", "no function call"),
        ("node_search(**{'a': 1}) <CALL>", "kwargs"),
        ("os.system('x') <CALL>", "no function call"),
    ],
)
def test_protocol_malformed_calls_are_errors(text, fragment):
    (c,) = parse_text_calls(text)
    assert isinstance(c, CallError) and fragment in c.message


def test_protocol_lenient_unquoted_and_bare_literals():
    (c,) = parse_text_calls("node_search(query=LLM compression, k=5) <CALL>")
    assert isinstance(c, ParsedCall) and c.args == {"query": "LLM compression", "k": 5}
    (c,) = parse_text_calls('get_random_nodes(3, mode="triples", x=true, y=null) <CALL>')
    assert c.positional == [3] and c.args == {"mode": "triples", "x": True, "y": None}


def test_strip_after_last_marker():
    assert strip_after_last_marker('a(x=1) <CALL> made-up results') == "a(x=1) <CALL>"
    assert strip_after_last_marker("plain") == "plain"


# ------------------------------------------------------------------ idea
def test_idea_from_fenced_block_and_key_variants():
    d = {**IDEA, "Experiment Plan": IDEA["Experiments plan"], "Risks and limitations": "risky " * 3}
    del d["Experiments plan"], d["Risk Factors and Limitations"]
    idea, repaired = parse_idea("thinking...\nIDEA JSON:\n```json\n" + json.dumps(d) + "\n```\nthanks")
    assert not repaired and idea.experiments_plan == IDEA["Experiments plan"]
    assert idea.to_json()["Risk Factors and Limitations"].startswith("risky")


def test_idea_repair_of_broken_json():
    broken = json.dumps(IDEA)[:-1] + ', }'  # trailing comma
    idea, repaired = parse_idea(broken)
    assert repaired and idea.title == "A title here"
    truncated = json.dumps(IDEA)[:-40]  # cut inside the last field
    with pytest.raises(IdeaParseError) as e:
        parse_idea(truncated)
    assert "Risk Factors and Limitations" in str(e.value)


def test_idea_missing_fields_named():
    with pytest.raises(IdeaParseError) as e:
        parse_idea(json.dumps({"Title": "Only a title"}))
    assert "Motivation" in str(e.value) and "Method" in str(e.value)
    with pytest.raises(IdeaParseError, match="no idea JSON"):
        parse_idea("just prose")


def test_idea_wrapped_and_list_fields():
    d = {"idea": {**IDEA, "Method": ["step one is long enough", "step two"]}}
    idea, _ = parse_idea(json.dumps(d))
    assert idea.method == "step one is long enough\nstep two"


# ------------------------------------------------------------------ links and citations
def test_links_three_spellings_and_method_alias():
    text = ('see [x](kg:challenge:Noisy labels (in crowdsourcing)) and <a href="kg:method:Label smoothing">y</a> '
            "and kg:problem:image_classification, also [x](kg:challenge:Noisy labels (in crowdsourcing))")
    links = extract_links(text)
    assert [(ln.type, ln.name) for ln in links] == [
        ("challenge", "Noisy labels (in crowdsourcing)"), ("solution", "Label smoothing"),
        ("problem", "image classification"),
    ]
    assert links[0].key == "challenge:noisy labels in crowdsourcing"


def test_citations_forms_and_matching():
    text = ("Prior work (Kipf et al., 2017; Veličković and Bengio, 2018) and (Li, 2019a). Not this (see the 2020 "
            "results of many other experiments) nor [a](kg:challenge:Old (2015))")
    cites = extract_citations(text)
    assert [(c.author, c.year) for c in cites] == [("Kipf", 2017), ("Veličković", 2018), ("Li", 2019)]
    papers = [{"title": "GCN", "authors": ["Thomas N. Kipf", "Max Welling"], "year": 2017},
              {"title": "GAT", "authors": ["Petar Velickovic"], "year": 2018}]
    assert match_citation(cites[0], papers)
    assert match_citation(cites[1], papers)  # accents folded
    assert not match_citation(cites[2], papers)
    assert not match_citation(type(cites[0])("Kipf", 2016, "Kipf et al., 2016"), papers)  # wrong year


def test_grounding_report_flag_and_text():
    r = GroundingReport(links_total=2, links_resolved=1,
                        unresolved_links=[{"type": "solution", "name": "X", "reason": "no such node",
                                           "suggestions": ["Y"]}])
    assert r.flagged and r.to_dict()["flagged"] is True
    assert "kg:solution:X" in r.problems_text() and "Y" in r.problems_text()
    assert not GroundingReport().flagged


# ------------------------------------------------------------------ mentor and switches
def test_decision_and_aspect():
    assert parse_decision("I considered <ACCEPT> but... final: <REJECT>") == "REJECT"
    assert parse_decision("we could accept this later") is None
    # the instruction echoed back is no verdict (it was read as REJECT: "the mentor rejected it")
    assert parse_decision("Give a short justification followed by <ACCEPT> or <REJECT>.") is None
    assert parse_decision("Markers: <ACCEPT>/<REJECT>") is None
    assert parse_decision("You asked for <ACCEPT> or <REJECT>. The idea is sound. <ACCEPT>") == "ACCEPT"
    assert parse_aspect("Aspect: **Feasibility**\nHow do you get labels?") == "Feasibility"
    assert parse_aspect("I question the novelty here.") == "Innovativeness"
    assert parse_aspect("Why?") == "unspecified"


def test_ablation_switches():
    assert parse_ablations("no_mentor, no-graph") == {"no_mentor", "no_graph"}
    assert parse_ablations(None) == set()
    with pytest.raises(ValueError, match="no_lit_details"):
        parse_ablations("no_brain")


def test_the_tool_protocol_example_searches_the_sessions_topic() -> None:
    """A fixed example query (it was about GNN oversmoothing) was copied verbatim by small models on every topic."""
    from motivgraph.agents.soiq import prompts

    topic = "How can we make protein folding models cheaper to train?"
    text = prompts.TEXT_PROTOCOL.format(marker="<CALL>", tool_list="-", example=prompts.example_query(topic))
    assert 'node_search(query="protein folding models cheaper") <CALL>' in text
    constrained = prompts.CONSTRAINED_PROTOCOL.format(example=prompts.example_query('Say "hi" to Büchi automata'))
    line = next(ln for ln in constrained.splitlines() if "node_search" in ln)
    assert json.loads(line.strip()) == {"action": {"tool": "node_search",
                                                   "arguments": {"query": "Say hi Büchi automata"}}}
    assert prompts.example_query("") == '"your topic\'s key problem"'
