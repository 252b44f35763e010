"""No leak of the future, unit level: one derivation of a paper's date, a topic's cutoff, what a graph hides,
and the filtering tool client over a fake inner client (every tool result shape it filters)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from motivgraph.agents.core.background import TopicBackground
from motivgraph.agents.evaluation.corpus_graph import corpus_records
from motivgraph.agents.evaluation.cutoff import GraphDates, after, paper_span, parse_cutoff, topic_cutoff, topic_filters
from motivgraph.agents.evaluation.topics import EvalTopic, TopicPaper
from motivgraph.agents.tools.base import ToolClient
from motivgraph.api.contract.models import (
    LiteraturePaper,
    LiteratureSearchResult,
    NodeBrief,
    NodeRelation,
    NodeRelationResult,
    NodeSearchResult,
    PaperBrief,
    RandomNode,
    RandomNodesResult,
    ScoredNode,
    TripleOut,
    Unresolved,
)
from motivgraph.errors import CutoffError, NodeNotFound


def test_paper_dates_come_from_one_derivation_the_tightest_wins() -> None:
    assert paper_span({"paper_id": "2402.03300"}) == (date(2024, 2, 1), date(2024, 2, 29))
    assert paper_span({"paper_id": "arxiv:2402.03300v2"})[1] == date(2024, 2, 29)  # graph id spelling
    assert paper_span({"paper_id": "cs/0112017"}) == (date(2001, 12, 1), date(2001, 12, 31))
    assert paper_span({"year": 2020}) == (date(2020, 1, 1), date(2020, 12, 31))
    # an arXiv preprint later published at a venue: public since the preprint's month
    assert paper_span({"arxiv_id": "2303.00001", "year": 2024})[1] == date(2023, 3, 31)
    assert paper_span({"publicationDate": "2024-02-10", "paper_id": "2402.1"}) == (date(2024, 2, 10),) * 2
    assert paper_span({"externalIds": {"ArXiv": "2501.00001"}})[1] == date(2025, 1, 31)
    assert paper_span({"title": "no date at all", "paper_id": "s2-abc"}) is None


def test_cutoff_is_the_end_of_the_latest_background_date_or_the_flag() -> None:
    bg = [TopicPaper(title="a", paper_id="2301.00001"), TopicPaper(title="b", paper_id="2403.00001"),
          TopicPaper(title="c")]
    assert topic_cutoff(bg) == (date(2024, 3, 31), "latest of 2 dated background paper(s); 2 dated by their "
                                                   "arXiv id's YYMM alone")
    assert topic_cutoff(bg, "2023-06")[0] == date(2023, 6, 30)
    assert topic_cutoff(bg, "2023-06-05")[0] == date(2023, 6, 5)
    assert topic_cutoff([TopicPaper(title="undated")])[0] is None
    for bad in ("2024/06", "2024", "2024-13", "June 2024"):
        with pytest.raises(CutoffError, match="YYYY-MM or YYYY-MM-DD"):
            parse_cutoff(bad)
    # a paper is held back when it MAY be later: a year-only paper in the cutoff's year is
    assert after(paper_span({"year": 2024}), date(2024, 3, 31))
    assert not after(paper_span({"paper_id": "2403.00009"}), date(2024, 3, 31))
    assert after(paper_span({"paper_id": "2404.00009"}), date(2024, 3, 31))
    assert not after(None, date(2024, 3, 31))  # undated: a graph paper stays (the client drops undated results)


def test_nodes_hide_when_all_their_papers_are_later_parents_when_all_children_are() -> None:
    gd = GraphDates(node_papers={"problem:old": {"p1"}, "problem:new": {"p2"}, "challenge:both": {"p1", "p2"},
                                 "problem:parent-new": set(), "problem:parent-mixed": set()},
                    children={"problem:parent-new": {"problem:new"},
                              "problem:parent-mixed": {"problem:new", "problem:old"}},
                    paper_spans={"p1": paper_span({"paper_id": "2301.00001"}),
                                 "p2": paper_span({"paper_id": "2406.00001"}), "p3": None})
    later = gd.later_papers(date(2024, 1, 31))
    assert later == {"p2"} and gd.undated_papers() == 1
    assert gd.hidden_nodes(later) == {"problem:new", "problem:parent-new"}


def test_corpus_dedupes_by_paper_id_and_leaves_every_target_out() -> None:
    t1 = EvalTopic(topic_id="A", topic="a", background=[TopicPaper(title="Shared", paper_id="2301.00001"),
                                                         TopicPaper(title="Own A", paper_id="2301.00002")],
                   targets=[TopicPaper(title="B's later work", paper_id="2405.00009")])
    t2 = EvalTopic(topic_id="B", topic="b", background=[TopicPaper(title="Shared again", paper_id="arxiv:2301.00001v2"),
                                                         TopicPaper(title="Target of A", paper_id="2405.00009"),
                                                         TopicPaper(title="Own B", paper_id="2302.00001")])
    papers, left_out = corpus_records([t1, t2])
    assert [p.title for p in papers] == ["Shared", "Own A", "Own B"]
    assert len(left_out) == 1 and "Target of A" in left_out[0] and "background of B" in left_out[0]


class FakeTools(ToolClient):
    """Answers every tool with fixed results holding an old and a new (after the cutoff) item."""

    def __init__(self) -> None:
        self.asked: list[Any] = []

    async def _invoke(self, spec: Any, req: Any) -> Any:
        self.asked.append(req)
        old, new = (NodeBrief(key=f"solution:{n}", type="solution", name=n) for n in ("old", "new"))
        if spec.name == "node_search":
            return NodeSearchResult(query=req.query, hits=[ScoredNode(**new.model_dump(), score=0.9),
                                                           ScoredNode(**old.model_dump(), score=0.5)])
        if spec.name == "random_nodes":
            return RandomNodesResult(mode="nodes", seed=1, nodes=[RandomNode(**new.model_dump()),
                                                                  RandomNode(**old.model_dump())])
        if spec.name == "node_relation" and req.names == ["nothing"]:
            raise NodeNotFound("nothing", ["new", "old"], [Unresolved(query="nothing", suggestions=["new", "old"])])
        if spec.name == "node_relation":
            p = NodeBrief(key="problem:p", type="problem", name="p")
            c = NodeBrief(key="challenge:c", type="challenge", name="c")
            rel = NodeRelation(query="old", node=old, solutions=[new, old],
                               triples=[TripleOut(problem=p, challenge=c, solution=new, papers=["arxiv:2406.00001"]),
                                        TripleOut(problem=p, challenge=c, solution=old, papers=["arxiv:2301.00001"])],
                               papers=[PaperBrief(paper_id="arxiv:2406.00001", title="New"),
                                       PaperBrief(paper_id="arxiv:2301.00001", title="Old")])
            hidden = NodeRelation(query="new", node=new)
            return NodeRelationResult(nodes=[rel, hidden], unresolved=[Unresolved(query="x", suggestions=["New"])])
        return LiteratureSearchResult(query=req.query, source="semantic_scholar", papers=[
            LiteraturePaper(title="Old paper", year=2022),
            LiteraturePaper(title="Later paper", arxiv_id="2406.00002"),
            LiteraturePaper(title="Undated paper"),
            LiteraturePaper(title="The Held-Out Target!", year=2020),  # a target by title, whatever its date
            LiteraturePaper(title="Graph paper, undated", in_graph=True, paper_id="local-1"),
        ])


async def test_the_client_hides_everything_after_the_cutoff_and_counts_it() -> None:
    topic = EvalTopic(topic_id="A", topic="a", background=[TopicPaper(title="bg", paper_id="2301.00001")],
                      targets=[TopicPaper(title="The held-out target", paper_id="2407.00001")])
    gd = GraphDates(node_papers={"solution:old": {"arxiv:2301.00001"}, "solution:new": {"arxiv:2406.00001"}},
                    paper_spans={"arxiv:2301.00001": paper_span({"paper_id": "arxiv:2301.00001"}),
                                 "arxiv:2406.00001": paper_span({"paper_id": "arxiv:2406.00001"})})
    f = topic_filters([topic], None, {"A": (gd, 2)})["A"]
    inner = FakeTools()
    c = f.client(inner)
    hits = (await c.call("node_search", query="x", k=1)).hits
    assert [h.key for h in hits] == ["solution:old"] and inner.asked[-1].k == 3  # asked for more, gave k
    drawn = await c.call("random_nodes", n=1)
    assert [n.key for n in drawn.nodes] == ["solution:old"]
    rel = await c.call("node_relation", names=["old", "new"])
    (r,) = rel.nodes
    assert [n.key for n in r.solutions] == ["solution:old"] and len(r.triples) == 1
    assert [p.title for p in r.papers] == ["Old"] and [u.query for u in rel.unresolved] == ["x", "new"]
    assert all(not u.suggestions for u in rel.unresolved)  # "did you mean" never names a hidden node
    with pytest.raises(NodeNotFound) as e:
        await c.call("node_relation", names=["nothing"])
    assert e.value.suggestions == ["old"] and e.value.unresolved[0].suggestions == ["old"]
    lit = await c.call("literature_search", query="x")
    assert [p.title for p in lit.papers] == ["Old paper", "Graph paper, undated"]
    s = f.summary()
    assert s["cutoff"] == "2023-01-31" and s["graph_papers_held_back"] == 1 and s["graph_nodes_hidden"] == 1
    assert (s["literature_held_back"], s["literature_undated_dropped"], s["target_papers_dropped"]) == (1, 1, 1)
    assert "held back 1 of 2 graph paper(s)" in f.note("A")


def test_a_graph_background_that_finds_nothing_says_why_and_what_to_do() -> None:
    empty = TopicBackground(topic="t", source="graph", searched=True)
    w = empty.empty_warning()
    assert w and "empty" in w and "motivgraph ingest" in w and "--background" in w
    assert "no index" in (TopicBackground(topic="t", searched=True, note="no index").empty_warning() or "")
    assert TopicBackground(topic="t", source="graph", searched=True, nodes=[{"key": "k"}]).empty_warning() is None
    assert TopicBackground(topic="t").empty_warning() is None  # no graph search made: nothing to say


def test_the_dry_run_states_each_topics_cutoff_and_its_source() -> None:
    """The protocol table of `eval --dry-run` names every compared topic's cutoff and where it came from; a topic
    whose records carry only arXiv ids gets the date their YYMM gives, one with nothing datable says why not."""
    from motivgraph.agents.evaluation.protocol import cutoff_rows, source_of

    arxiv_only = EvalTopic(topic_id="A", topic="t", background=[TopicPaper(title="a", paper_id="2402.03300"),
                                                                 TopicPaper(title="b", paper_id="2311.00001")])
    dated = EvalTopic(topic_id="B", topic="t", background=[TopicPaper(title="c", year=2022, paper_id="2402.1x")])
    undated = EvalTopic(topic_id="C", topic="t", background=[TopicPaper(title="d", paper_id="s2-abc")])
    rows = dict(cutoff_rows([arxiv_only, dated, undated], None))
    assert rows["cutoff A"] == ("2024-02-29 (latest of 2 dated background paper(s); 2 dated by their arXiv id's "
                                "YYMM alone)")
    assert rows["cutoff B"] == "2022-12-31 (latest of 1 dated background paper(s))"
    assert rows["cutoff C"].startswith("no cutoff applies, because none of its 1 background paper(s) carries a date")
    assert dict(cutoff_rows([undated], "2023-05"))["cutoff C"] == "2023-05-31 (--cutoff)"
    assert source_of("cutoff A").startswith("ours")
