"""GraphStore conformance: one set of tests every backend must pass.

Here they run on the embedded FalkorDB (`gstore` = the shared `store` fixture);
tests/e2e/test_neo4j_conformance.py runs the same class against Neo4j.
"""

from __future__ import annotations

from typing import Any

import pytest

from motivgraph.errors import GraphError
from motivgraph.graph.base import GraphStore
from motivgraph.graph.identity import node_key, stable_random
from motivgraph.graph.models import (
    Evidence,
    NodeIn,
    NodeRecord,
    PaperRecord,
    ParentIn,
    Quote,
    TripleFilter,
    TripleIn,
)


@pytest.fixture
def gstore(store: GraphStore) -> GraphStore:
    return store


def T(paper: str, index: int, p: str, c: str, s: str, *, pk: str | None = None, desc: bool = True,
      section: str | None = "introduction") -> TripleIn:
    def node(name: str, key: str | None = None) -> NodeIn:
        return NodeIn(name=name, description=f"About {name}." if desc else "", key=key)

    return TripleIn(paper_id=paper, index=index, problem=node(p, pk), challenge=node(c), solution=node(s),
                    section=section)


# P1 -> C1 -> S1 (paper a), P2 -> C1 -> S2 (paper b): the path P1 -> C1 -> S2 exists in the graph but no
# paper states it, so it is not a triple.
CORE = [
    T("paper-a", 0, "Low-resource NER", "Scarce labelled data", "Data augmentation"),
    T("paper-a", 1, "Low-resource NER", "Domain shift", "Adapter tuning"),
    T("paper-b", 0, "Machine translation", "Scarce labelled data", "Back-translation"),
    T("paper-b", 1, "Machine translation", "Domain shift", "Adapter tuning"),
    T("paper-c", 0, "low resource  NER", "Scarce labelled data", "Data augmentation"),
]


def snapshot(st: GraphStore) -> dict[str, Any]:
    return {
        "nodes": [n.model_dump() for n in st.iter_nodes()],
        "papers": [p.model_dump() for p in st.iter_papers()],
        "parents": [p.model_dump() for p in st.iter_parents()],
        "stats": st.stats().model_dump(),
        "triples": [t.model_dump() for t in st.page_triples(limit=1000).items],
    }


def triple_set(st: GraphStore, flt: TripleFilter | None = None) -> set[str]:
    keys = all_triples(st, flt)
    assert len(keys) == len(set(keys)), "a triple was returned twice across pages"
    return set(keys)


def all_triples(st: GraphStore, flt: TripleFilter | None = None, limit: int = 2) -> list[str]:
    keys: list[str] = []
    cursor = None
    while True:
        page = st.page_triples(flt, cursor=cursor, limit=limit)
        keys += [t.key for t in page.items]
        if page.next_cursor is None:
            return keys
        cursor = page.next_cursor


def tkey(p: str, c: str, s: str) -> str:
    return f"{node_key('problem', p)}|{node_key('challenge', c)}|{node_key('solution', s)}"


class TestConformance:
    # ------------------------------------------------------------------ lifecycle
    def test_ping_and_schema_idempotent(self, gstore: GraphStore) -> None:
        gstore.ping()
        gstore.ensure_schema()
        gstore.ensure_schema()
        assert isinstance(gstore, GraphStore)
        assert gstore.backend in ("falkordb", "neo4j")
        st = gstore.stats()
        assert st.triples == 0 and sum(st.nodes.values()) == 0

    def test_schema_enforces_unique_keys(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE[:1])
        write = gstore._write  # type: ignore[attr-defined]
        with pytest.raises(GraphError):
            write("CREATE (:Problem {key: $key})", {"key": "problem:low resource ner"})
        with pytest.raises(GraphError):
            write("CREATE (:Paper {paper_id: $pid})", {"pid": "paper-a"})
        assert gstore.stats().nodes["Problem"] == 1

    # ------------------------------------------------------------------ upserts
    def test_upsert_creates_nodes_edges_provenance(self, gstore: GraphStore) -> None:
        res = gstore.upsert_triples(CORE)
        # P: low resource ner, machine translation; C: scarce labelled data, domain shift;
        # S: data augmentation, adapter tuning, back translation
        assert res.nodes_created == 7
        st = gstore.stats()
        assert st.nodes == {"Problem": 2, "Challenge": 2, "Solution": 3, "Paper": 3}
        assert st.relationships["HAS_CHALLENGE"] == 4
        assert st.relationships["SOLVED_BY"] == 3  # domain shift -> adapter tuning is stated twice
        assert st.relationships["STATES"] == 15  # 5 triples x 3 roles
        assert st.relationships["PARENT_OF"] == 0
        assert st.triples == 4  # paper-c restates paper-a's first triple
        assert res.relationships_created == 4 + 3 + 15
        assert res.aliases_added == 1  # "low resource  NER" is a new spelling of low-resource NER
        node = gstore.get_node("problem:low resource ner")
        assert node is not None
        assert node.node.name == "Low-resource NER"
        assert node.node.aliases == ["low resource NER"]
        assert sorted(node.node.sources) == ["paper-a", "paper-c"]
        assert node.node.created_at
        assert [p.paper_id for p in node.papers] == ["paper-a", "paper-c"]

    def test_reupsert_is_idempotent(self, gstore: GraphStore) -> None:
        gstore.upsert_papers([PaperRecord(paper_id="paper-a", title="A", year=2021, authors=["X"])])
        gstore.upsert_triples(CORE)
        gstore.add_parents([ParentIn(type="problem", parent=NodeIn(name="Data-scarce NLP", description="d"),
                                     level=1, children=["problem:low resource ner", "problem:machine translation"])])
        before = snapshot(gstore)
        version = gstore.node_version()
        res = gstore.upsert_triples(CORE)
        assert (res.nodes_created, res.relationships_created, res.aliases_added) == (0, 0, 0)
        res = gstore.add_parents([ParentIn(type="problem", parent=NodeIn(name="Data-scarce NLP", description="d"),
                                           level=1, children=["problem:low resource ner"])])
        assert (res.nodes_created, res.relationships_created) == (0, 0)
        assert gstore.upsert_papers([PaperRecord(paper_id="paper-a", title="A", year=2021, authors=["X"])]) == 0
        assert gstore.node_version() == version
        assert snapshot(gstore) == before

    def test_batches_smaller_than_input_give_same_graph(self, gstore: GraphStore) -> None:
        gstore.batch_size = 2  # type: ignore[attr-defined]
        gstore.upsert_triples(CORE)
        small = snapshot(gstore)
        gstore.clear()
        gstore.batch_size = 500  # type: ignore[attr-defined]
        gstore.upsert_triples(CORE)
        big = snapshot(gstore)
        for part in (small, big):
            for n in part["nodes"]:
                n.pop("created_at")
            part["stats"].pop("node_version")
        assert small == big

    def test_triple_count_is_kept_and_recovered(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE[:2])
        assert gstore.stats().triples == 2
        # a graph from before the counter existed: counted once, then kept up to date
        gstore._write("MATCH (m:Meta) SET m.triples = NULL", {})  # type: ignore[attr-defined]
        assert gstore.stats().triples == 2
        gstore.upsert_triples(CORE)
        gstore.upsert_triples(CORE)
        assert gstore.stats().triples == 4 == len(all_triples(gstore, limit=100))

    def test_first_nonempty_description_is_kept_and_bumps_version(self, gstore: GraphStore) -> None:
        gstore.upsert_triples([T("p1", 0, "Graph learning", "Oversmoothing", "Residual links", desc=False)])
        v0 = gstore.node_version()
        assert gstore.find_nodes("graph learning")[0].description == ""
        gstore.upsert_triples([T("p2", 0, "Graph learning", "Oversmoothing", "Residual links")])
        assert gstore.find_nodes("graph learning")[0].description == "About Graph learning."
        assert gstore.node_version() > v0
        v1 = gstore.node_version()
        gstore.upsert_triples([TripleIn(
            paper_id="p3", index=0, problem=NodeIn(name="Graph learning", description="New"),
            challenge=NodeIn(name="Oversmoothing"), solution=NodeIn(name="Residual links"),
        )])
        assert gstore.find_nodes("graph learning")[0].description == "About Graph learning."
        assert gstore.node_version() == v1

    def test_node_version(self, gstore: GraphStore) -> None:
        v0 = gstore.node_version()
        gstore.upsert_triples(CORE[:1])
        v1 = gstore.node_version()
        assert v1 > v0
        gstore.upsert_triples(CORE[:1])
        assert gstore.node_version() == v1
        gstore.upsert_papers([PaperRecord(paper_id="paper-z")])
        assert gstore.node_version() == v1
        gstore.upsert_triples(CORE[1:2])  # a new challenge and solution
        v2 = gstore.node_version()
        assert v2 > v1
        gstore.clear()
        assert gstore.node_version() > v2  # never goes back: an old index must look stale

    def test_identity_merges_spellings(self, gstore: GraphStore) -> None:
        gstore.upsert_triples([
            T("p1", 0, "Naïve Bayes spam filtering", "Concept drift", "Online updates"),
            T("p2", 0, "naive-bayes   SPAM filtering.", "concept drift", "Online updates"),
        ])
        recs = gstore.find_nodes("NAIVE BAYES SPAM FILTERING")
        assert [r.key for r in recs] == ["problem:naive bayes spam filtering"]
        assert recs[0].name == "Naïve Bayes spam filtering"
        assert recs[0].aliases == ["naive-bayes SPAM filtering."]
        assert gstore.find_nodes("concept drift")[0].aliases == ["concept drift"]  # case differs
        assert gstore.find_nodes("online updates")[0].aliases == []  # same spelling is no alias

    def test_key_merge_records_alias_and_find_resolves_it(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE[:1])
        # identity resolution decided "NER for low-resource languages" is the existing node
        res = gstore.upsert_triples([T("paper-d", 0, "NER for low-resource languages", "Scarce labelled data",
                                       "Data augmentation", pk="problem:low resource ner")])
        assert res.nodes_created == 0 and res.aliases_added == 1
        node = gstore.get_node("problem:low resource ner")
        assert node is not None
        assert "NER for low-resource languages" in node.node.aliases
        assert "paper-d" in node.node.sources
        found = gstore.find_nodes("ner for low resource languages")
        assert [r.key for r in found] == ["problem:low resource ner"]
        assert gstore.find_nodes("ner for low resource languages", types=["challenge"]) == []
        with pytest.raises(ValueError):
            gstore.upsert_triples([T("p", 0, "x", "y", "z", pk="challenge:y")])  # key of the wrong type

    def test_find_nodes_by_key_name_and_type(self, gstore: GraphStore) -> None:
        gstore.upsert_triples([T("p", 0, "Domain shift", "Domain shift", "Domain adaptation")])
        assert [r.key for r in gstore.find_nodes("domain shift")] == ["problem:domain shift", "challenge:domain shift"]
        assert [r.key for r in gstore.find_nodes("Domain Shift", types=["challenge"])] == ["challenge:domain shift"]
        assert [r.key for r in gstore.find_nodes("challenge:domain shift")] == ["challenge:domain shift"]
        assert gstore.find_nodes("nothing like this") == []
        assert gstore.find_nodes("!!!") == []
        assert gstore.find_nodes("") == []
        with pytest.raises(ValueError):
            gstore.find_nodes("domain shift", types=["paper"])  # type: ignore[list-item]

    def test_get_nodes_batch_keeps_order_and_marks_missing(self, gstore: GraphStore) -> None:
        gstore.upsert_triples([T("p", 0, "Domain shift", "Label noise", "Domain adaptation")])
        keys = ["solution:domain adaptation", "problem:nope", "problem:domain shift", "challenge:label noise"]
        got = gstore.get_nodes(keys)
        assert [r.key if r else None for r in got] == [keys[0], None, keys[2], keys[3]]
        assert got[2] is not None and got[2].name == "Domain shift" and got[2].sources == ["p"]
        assert gstore.get_nodes([]) == []

    def test_untrusted_text_is_data_not_cypher(self, gstore: GraphStore) -> None:
        evil = "x'}) DETACH DELETE n // \"; MATCH (m) RETURN m"
        gstore.upsert_triples([T("p'1\"", 0, evil, "c $param {}", "s\\n\u0000-free")])
        rec = gstore.find_nodes(evil)[0]
        assert rec.name == " ".join(evil.split())
        assert gstore.stats().triples == 1
        assert gstore.get_paper("p'1\"") is not None
        # a NUL would cut FalkorDB's text protocol short; it must neither fail nor truncate the rest
        gstore.upsert_papers([PaperRecord(paper_id="nul", title="a\x00b", abstract="line 1\nline \\2 \"q\"")])
        paper = gstore.get_paper("nul")
        assert paper is not None and paper.title.replace("\x00", "") == "ab"
        assert paper.abstract == "line 1\nline \\2 \"q\""

    def test_rejects_bad_names_before_writing(self, gstore: GraphStore) -> None:
        with pytest.raises(ValueError):
            gstore.upsert_triples([CORE[0], T("p", 0, "...", "c", "s")])
        gstore.batch_size = 1  # type: ignore[attr-defined]
        with pytest.raises(ValueError):  # the bad triple is in a later batch: still nothing written
            gstore.upsert_triples([CORE[0], CORE[1], T("p", 0, "ok", "?!", "s")])
        assert gstore.stats().nodes["Problem"] == 0 and gstore.stats().nodes["Paper"] == 0

    # ------------------------------------------------------------------ triples as stated
    def test_triples_only_as_stated(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE)
        got = triple_set(gstore)
        assert got == {
            tkey("Low-resource NER", "Scarce labelled data", "Data augmentation"),
            tkey("Low-resource NER", "Domain shift", "Adapter tuning"),
            tkey("Machine translation", "Scarce labelled data", "Back-translation"),
            tkey("Machine translation", "Domain shift", "Adapter tuning"),
        }
        assert tkey("Low-resource NER", "Scarce labelled data", "Back-translation") not in got
        ner = gstore.get_node("problem:low resource ner")
        assert ner is not None
        assert [s.key for s in ner.solutions] == ["solution:adapter tuning", "solution:data augmentation"]
        assert {t.key for t in ner.triples} == {
            tkey("Low-resource NER", "Scarce labelled data", "Data augmentation"),
            tkey("Low-resource NER", "Domain shift", "Adapter tuning"),
        }
        aug = next(t for t in ner.triples if t.solution.key == "solution:data augmentation")
        assert aug.papers == ["paper-a", "paper-c"]

    def test_get_node_typed_neighbours(self, gstore: GraphStore) -> None:
        gstore.upsert_papers([PaperRecord(paper_id="paper-b", title="MT paper", year=2019)])
        gstore.upsert_triples(CORE)
        c = gstore.get_node("challenge:scarce labelled data")
        assert c is not None and c.node.type == "challenge"
        assert [p.key for p in c.problems] == ["problem:low resource ner", "problem:machine translation"]
        assert [s.key for s in c.solutions] == ["solution:back translation", "solution:data augmentation"]
        assert c.challenges == [] and c.parents == [] and c.children == []
        assert [p.paper_id for p in c.papers] == ["paper-a", "paper-b", "paper-c"]
        assert [(p.title, p.year) for p in c.papers if p.paper_id == "paper-b"] == [("MT paper", 2019)]
        assert len(c.triples) == 2
        s = gstore.get_node("solution:adapter tuning")
        assert s is not None
        assert [p.key for p in s.problems] == ["problem:low resource ner", "problem:machine translation"]
        assert [x.key for x in s.challenges] == ["challenge:domain shift"]
        assert s.solutions == []
        assert all(n.description for n in s.problems + s.challenges)
        p = gstore.get_node("problem:machine translation")
        assert p is not None
        assert [x.key for x in p.challenges] == ["challenge:domain shift", "challenge:scarce labelled data"]
        assert [x.key for x in p.solutions] == ["solution:adapter tuning", "solution:back translation"]
        assert gstore.get_node("problem:nope") is None
        assert gstore.get_node("not a key") is None

    # ------------------------------------------------------------------ parents
    def test_parents(self, gstore: GraphStore, caplog: pytest.LogCaptureFixture) -> None:
        gstore.upsert_triples(CORE)
        v = gstore.node_version()
        res = gstore.add_parents([
            ParentIn(type="problem", parent=NodeIn(name="Data-scarce NLP", description="NLP with little data"),
                     level=1, children=["problem:low resource ner", "problem:machine translation",
                                        "problem:not there"]),
            ParentIn(type="challenge", parent=NodeIn(name="Data problems", description="d"), level=1,
                     children=["challenge:scarce labelled data", "challenge:domain shift"]),
        ])
        assert res.nodes_created == 2 and res.relationships_created == 4
        assert "do not exist" in caplog.text
        assert gstore.node_version() > v
        res = gstore.add_parents([ParentIn(type="problem", parent=NodeIn(name="NLP", description="all of it"),
                                           level=2, children=["problem:data scarce nlp"])])
        assert res.nodes_created == 1
        top = gstore.get_node("problem:data scarce nlp")
        assert top is not None
        assert top.node.level == 1
        assert [x.key for x in top.children] == ["problem:low resource ner", "problem:machine translation"]
        assert [x.key for x in top.parents] == ["problem:nlp"]
        assert top.triples == []
        ner = gstore.get_node("problem:low resource ner")
        assert ner is not None and [x.key for x in ner.parents] == ["problem:data scarce nlp"]
        parents = {p.parent.key: p for p in gstore.iter_parents()}
        assert set(parents) == {"problem:data scarce nlp", "problem:nlp", "challenge:data problems"}
        assert parents["problem:nlp"].level == 2
        assert parents["challenge:data problems"].children == ["challenge:domain shift",
                                                               "challenge:scarce labelled data"]
        st = gstore.stats()
        assert st.parents == {"Problem": 2, "Challenge": 1}
        assert st.relationships["PARENT_OF"] == 5
        with pytest.raises(ValueError):
            gstore.add_parents([ParentIn(type="problem", parent=NodeIn(name="x"), level=1,
                                         children=["challenge:domain shift"])])
        # a parent whose name is an extracted node merges into it (keeps level 0) and still exports
        gstore.add_parents([ParentIn(type="challenge", parent=NodeIn(name="Domain shift"), level=1,
                                     children=["challenge:scarce labelled data"])])
        merged = {p.parent.key: p for p in gstore.iter_parents()}["challenge:domain shift"]
        assert merged.children == ["challenge:scarce labelled data"] and merged.level == 1
        assert gstore.find_nodes("challenge:domain shift")[0].level == 0

    # ------------------------------------------------------------------ random
    def _many(self, gstore: GraphStore, n: int = 30) -> None:
        gstore.upsert_triples([T(f"p{i}", 0, f"Problem {i}", f"Challenge {i}", f"Solution {i}") for i in range(n)])

    def test_random_nodes_reproducible(self, gstore: GraphStore) -> None:
        self._many(gstore)
        a = [n.key for n in gstore.random_nodes(7, seed=42)]
        assert a == [n.key for n in gstore.random_nodes(7, seed=42)]
        assert len(set(a)) == 7
        longer = [n.key for n in gstore.random_nodes(12, seed=42)]
        assert longer[:7] == a  # a larger n extends the same sequence
        others = {tuple(n.key for n in gstore.random_nodes(7, seed=s)) for s in range(5)}
        assert len(others) > 1
        sols = gstore.random_nodes(5, types=["solution"], seed=3)
        assert len(sols) == 5 and all(n.type == "solution" for n in sols)
        both = gstore.random_nodes(50, types=["problem", "challenge"], seed=3)
        assert len(both) == 50
        assert {n.type for n in both} == {"problem", "challenge"}
        everything = gstore.random_nodes(1000, seed=9)
        assert len(everything) == 90 and len({n.key for n in everything}) == 90
        assert gstore.random_nodes(0, seed=1) == []
        assert len(gstore.random_nodes(3)) == 3  # unseeded

    def test_random_nodes_are_the_first_n_from_the_seeded_start(self, gstore: GraphStore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
        """The nodes drawn are exactly the first n in cyclic `rnd` order from the seeded start, also when the
        count that sized the window is stale (it may be a few seconds old): taken before more nodes were
        added, or before some were removed."""
        import random

        from motivgraph.graph.backends import cypher

        def expected(n: int, seed: int) -> list[str]:
            start = random.Random(seed).random()
            keys = [r.key for r in gstore.iter_nodes()]
            return sorted(keys, key=lambda k: ((stable_random(k) - start) % 1.0, k))[:n]

        def check(count_now: bool = False) -> None:
            # a zero TTL takes the count now; then it is kept however the graph changes
            monkeypatch.setattr(cypher, "COUNT_HINT_TTL_S", 0.0 if count_now else 1e9)
            for seed in range(6):
                for n in (1, 5, 40, 500):
                    keys = gstore.random_node_keys(n, seed=seed)
                    assert keys == expected(n, seed), (n, seed)
                    assert [r.key for r in gstore.random_nodes(n, seed=seed)] == keys
                monkeypatch.setattr(cypher, "COUNT_HINT_TTL_S", 1e9)

        more = [T(f"q{i}", 0, f"Problem q{i}", f"Challenge q{i}", f"Solution q{i}") for i in range(40)]
        self._many(gstore, 4)
        check(count_now=True)  # 12 nodes, counted
        gstore.upsert_triples(more)
        check()  # 132 nodes, the count says 12
        check(count_now=True)  # counted: 132
        for i in range(40):
            gstore.remove_paper(f"q{i}")
        check()  # 12 nodes, the count says 132

    def test_random_nodes_empty_graph(self, gstore: GraphStore) -> None:
        assert gstore.random_nodes(5, seed=1) == []
        assert gstore.random_triples(5, seed=1) == []

    def test_random_triples(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE)
        self._many(gstore, 20)
        stated = set(all_triples(gstore, limit=100))
        a = gstore.random_triples(6, seed=7)
        assert [t.key for t in a] == [t.key for t in gstore.random_triples(6, seed=7)]
        assert len({t.key for t in a}) == 6
        assert {t.key for t in a} <= stated
        assert len({t.challenge.key for t in a}) == 6  # one per challenge while there are enough
        assert all(t.papers for t in a)
        assert {t.key for t in gstore.random_triples(100, seed=1)} == stated

    # ------------------------------------------------------------------ paging
    def test_page_triples_cursor_and_order(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE)
        self._many(gstore, 7)
        full = gstore.page_triples(limit=1000)
        assert full.next_cursor is None and len(full.items) == 11
        # stable order: by the challenge's stable random number, then challenge, solution, problem key
        order = [(stable_random(t.challenge.key), t.challenge.key, t.solution.key, t.problem.key) for t in full.items]
        assert order == sorted(order)
        for limit in (1, 3, 11):
            assert all_triples(gstore, limit=limit) == [t.key for t in full.items]
        first = gstore.page_triples(limit=4)
        assert len(first.items) == 4 and first.next_cursor
        with pytest.raises(ValueError):
            gstore.page_triples(cursor="not-a-cursor!")

    def test_page_papers_and_nodes_keyset(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE)
        self._many(gstore, 7)
        gstore.upsert_papers([PaperRecord(paper_id=f"p{i}", title=f"Paper {i}") for i in range(7)])
        every = [p.paper_id for p in gstore.iter_papers()]
        for limit in (1, 4, 100):
            got, cursor = [], None
            while True:
                page = gstore.page_papers(cursor=cursor, limit=limit)
                got += [p.paper_id for p in page.items]
                if not (cursor := page.next_cursor):
                    break
            assert got == every
        nodes = [n.key for n in gstore.iter_nodes()]
        for types, limit in ((None, 3), (None, 100), (["solution", "problem"], 2)):
            got, cursor = [], None
            while True:
                npage = gstore.page_nodes(types, cursor=cursor, limit=limit)  # type: ignore[arg-type]
                got += [n.key for n in npage.items]
                if not (cursor := npage.next_cursor):
                    break
            assert got == [n.key for n in gstore.iter_nodes(types)]  # type: ignore[arg-type]
        assert len(got) < len(nodes)
        for bad in ("not-a-cursor!", gstore.page_papers(limit=1).next_cursor):  # a paper cursor is not a node one
            with pytest.raises(ValueError):
                gstore.page_nodes(cursor=bad)

    def test_page_triples_filters(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE)
        gstore.add_parents([
            ParentIn(type="problem", parent=NodeIn(name="NER family"), level=1, children=["problem:low resource ner"]),
            ParentIn(type="challenge", parent=NodeIn(name="Shift family"), level=1,
                     children=["challenge:domain shift"]),
        ])
        by_key = triple_set(gstore, TripleFilter(problem="problem:machine translation"))
        assert by_key == {tkey("Machine translation", "Domain shift", "Adapter tuning"),
                          tkey("Machine translation", "Scarce labelled data", "Back-translation")}
        assert triple_set(gstore, TripleFilter(problem="TRANSLAT")) == by_key
        assert triple_set(gstore, TripleFilter(challenge="challenge:domain shift", solution="adapter")) == {
            tkey("Low-resource NER", "Domain shift", "Adapter tuning"),
            tkey("Machine translation", "Domain shift", "Adapter tuning"),
        }
        assert triple_set(gstore, TripleFilter(solution="solution:data augmentation")) == {
            tkey("Low-resource NER", "Scarce labelled data", "Data augmentation")}
        assert triple_set(gstore, TripleFilter(paper_id="paper-b")) == by_key
        assert triple_set(gstore, TripleFilter(paper_id="paper-c")) == {
            tkey("Low-resource NER", "Scarce labelled data", "Data augmentation")}
        assert triple_set(gstore, TripleFilter(paper_id="paper-b", problem="ner")) == set()
        assert triple_set(gstore, TripleFilter(parent="problem:ner family")) == {
            tkey("Low-resource NER", "Domain shift", "Adapter tuning"),
            tkey("Low-resource NER", "Scarce labelled data", "Data augmentation"),
        }
        assert triple_set(gstore, TripleFilter(parent="challenge:shift family", problem="translation")) == {
            tkey("Machine translation", "Domain shift", "Adapter tuning")}
        assert triple_set(gstore, TripleFilter(parent="problem:ner family", paper_id="paper-c")) == {
            tkey("Low-resource NER", "Scarce labelled data", "Data augmentation")}
        assert triple_set(gstore, TripleFilter(paper_id="nobody")) == set()
        assert triple_set(gstore, TripleFilter(challenge="SCARCE")) == {
            tkey("Low-resource NER", "Scarce labelled data", "Data augmentation"),
            tkey("Machine translation", "Scarce labelled data", "Back-translation"),
        }
        assert triple_set(gstore, TripleFilter(solution="tuning", problem="machine")) == {
            tkey("Machine translation", "Domain shift", "Adapter tuning")}
        assert triple_set(gstore, TripleFilter(solution="solution:adapter tuning", challenge="shift")) == {
            tkey("Low-resource NER", "Domain shift", "Adapter tuning"),
            tkey("Machine translation", "Domain shift", "Adapter tuning"),
        }
        assert triple_set(gstore, TripleFilter(problem="problem:no such problem")) == set()
        with pytest.raises(ValueError):
            gstore.page_triples(TripleFilter(parent="not a key"))

    # ------------------------------------------------------------------ papers, iteration, restore
    def test_papers(self, gstore: GraphStore) -> None:
        rec = PaperRecord(paper_id="arXiv:2401.00001", title="T", abstract="A", year=2024, venue="ACL",
                          authors=["Ada", "Bob"], source_path="/x.pdf", sha256="ab" * 32)
        assert gstore.upsert_papers([rec]) == 1
        assert gstore.get_paper("arXiv:2401.00001") == rec
        assert gstore.get_paper("missing") is None
        gstore.upsert_triples([T("bare-paper", 0, "p", "c", "s")])
        bare = gstore.get_paper("bare-paper")
        assert bare is not None and bare.title == "" and bare.authors == []
        updated = rec.model_copy(update={"title": "T2", "venue": None})
        assert gstore.upsert_papers([updated]) == 0
        assert gstore.get_paper("arXiv:2401.00001") == updated
        assert [p.paper_id for p in gstore.iter_papers(batch=1)] == ["arXiv:2401.00001", "bare-paper"]

    def test_paper_triples_round_trip(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE)
        got = gstore.paper_triples("paper-c")
        assert len(got) == 1
        t = got[0]
        assert (t.index, t.section, t.extractor) == (0, "introduction", "llm")
        assert t.problem.name == "low resource NER" and t.problem.key == "problem:low resource ner"
        assert gstore.paper_triples("nobody") == []
        before = snapshot(gstore)
        res = gstore.upsert_triples([x for pid in ("paper-a", "paper-b", "paper-c") for x in gstore.paper_triples(pid)])
        assert (res.nodes_created, res.relationships_created, res.aliases_added) == (0, 0, 0)
        assert snapshot(gstore) == before

    def test_iter_nodes(self, gstore: GraphStore) -> None:
        self._many(gstore, 12)
        nodes = list(gstore.iter_nodes(batch=5))
        assert len(nodes) == 36 and len({n.key for n in nodes}) == 36
        probs = list(gstore.iter_nodes(types=["problem"], batch=5))
        assert [n.key for n in probs] == sorted(n.key for n in probs)
        assert {n.type for n in probs} == {"problem"}

    def test_restore_nodes_exact(self, gstore: GraphStore) -> None:
        rec = NodeRecord(key="challenge:label noise", type="challenge", name="Label noise", description="Noisy",
                         level=0, aliases=["noisy labels", "Label-noise"], sources=["p9"],
                         created_at="2024-01-02T03:04:05+00:00")
        v = gstore.node_version()
        assert gstore.restore_nodes([rec]) == 1
        assert gstore.node_version() > v
        assert gstore.find_nodes("challenge:label noise") == [rec]
        assert [r.key for r in gstore.find_nodes("noisy labels")] == ["challenge:label noise"]
        v = gstore.node_version()
        assert gstore.restore_nodes([rec]) == 0
        assert gstore.node_version() == v
        gstore.restore_nodes([rec.model_copy(update={"description": "Changed"})])
        assert gstore.node_version() > v
        assert gstore.find_nodes("label noise")[0].description == "Changed"

    def test_clear(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE)
        gstore.clear()
        st = gstore.stats()
        assert sum(st.nodes.values()) == 0 and sum(st.relationships.values()) == 0 and st.triples == 0
        gstore.upsert_triples(CORE[:1])  # schema still in place
        assert gstore.stats().triples == 1


# ---------------------------------------------------------------------------------------------- evidence
def Q(text: str, *, page: int | None = 2, start: int | None = 100, section: str | None = "introduction") -> Quote:
    return Quote(text=text, verified=True, section=section, page=page, start=start,
                 end=None if start is None else start + len(text))


UNVERIFIED = Quote(text="A sentence nobody wrote.", verified=False, reason="not found in the paper")


def with_evidence(t: TripleIn, tag: str) -> TripleIn:
    ev = Evidence(problem=[Q(f"{tag} states the problem.")],
                  challenge=[Q(f"{tag} names the challenge.", page=None, start=None, section="abstract"), UNVERIFIED],
                  solution=[UNVERIFIED])
    return t.model_copy(update={"evidence": ev})


class TestEvidenceConformance:
    """Quotes live on the STATES edges: written with a triple, read per node and per triple, carried by
    paper_triples (export, push, compare) and replaced -- never duplicated -- by a re-ingest."""

    def test_paper_triples_carry_every_quote_field(self, gstore: GraphStore) -> None:
        t = with_evidence(CORE[0], "Paper A")
        gstore.upsert_triples([t, CORE[1]])
        back = {x.index: x for x in gstore.paper_triples("paper-a")}
        assert back[0].evidence == t.evidence
        assert back[0].evidence.challenge[0].page is None and back[0].evidence.challenge[0].start is None
        assert back[0].evidence.solution[0].reason == "not found in the paper"
        assert back[1].evidence == Evidence()  # a triple stored without quotes reads back empty

    def test_reingest_replaces_evidence(self, gstore: GraphStore) -> None:
        gstore.upsert_triples([with_evidence(CORE[0], "First")])
        gstore.upsert_triples([with_evidence(CORE[0], "Second")])
        (t,) = gstore.paper_triples("paper-a")
        assert [q.text for q in t.evidence.problem] == ["Second states the problem."]
        assert len(t.evidence.challenge) == 2
        assert gstore.stats().relationships["STATES"] == 3

    def test_node_evidence_batched_verified_first(self, gstore: GraphStore) -> None:
        gstore.upsert_papers([PaperRecord(paper_id="paper-a", title="Paper A", year=2021)])
        gstore.upsert_triples([with_evidence(CORE[0], "A"), CORE[2], with_evidence(CORE[4], "C")])
        ck = node_key("challenge", "Scarce labelled data")
        pk = node_key("problem", "Low-resource NER")
        got = gstore.node_evidence([ck, pk, "solution:nothing here", "not a key"], per_node=5)
        assert set(got) == {ck, pk, "solution:nothing here", "not a key"}
        assert got["solution:nothing here"] == [] and got["not a key"] == []
        # three papers state the challenge; the two with a verified quote come first
        assert [(e.paper_id, e.verified) for e in got[ck]] == [
            ("paper-a", True), ("paper-c", True), ("paper-b", False)]
        first = got[ck][0]
        assert (first.title, first.year, first.element, first.triple_index) == ("Paper A", 2021, "challenge", 0)
        assert first.quotes[0].text == "A names the challenge." and first.quotes[0].section == "abstract"
        assert got[ck][2].quotes == []
        assert [e.paper_id for e in got[pk]] == ["paper-a", "paper-c"]
        assert len(gstore.node_evidence([ck], per_node=1)[ck]) == 1
        assert gstore.node_evidence([ck], per_node=0)[ck] == []

    def test_triple_evidence_per_stating_paper(self, gstore: GraphStore) -> None:
        gstore.upsert_triples([with_evidence(CORE[0], "A"), CORE[2], with_evidence(CORE[4], "C")])
        keys = [
            (node_key("problem", "Low-resource NER"), node_key("challenge", "Scarce labelled data"),
             node_key("solution", "Data augmentation")),
            (node_key("problem", "Machine translation"), node_key("challenge", "Scarce labelled data"),
             node_key("solution", "Back-translation")),
            # a path no paper states as one triple
            (node_key("problem", "Low-resource NER"), node_key("challenge", "Scarce labelled data"),
             node_key("solution", "Back-translation")),
        ]
        got = gstore.triple_evidence(keys)
        assert [e.paper_id for e in got[0]] == ["paper-a", "paper-c"]
        assert got[0][0].evidence.problem[0].text == "A states the problem."
        assert got[0][1].evidence.problem[0].text == "C states the problem."
        assert [e.paper_id for e in got[1]] == ["paper-b"] and got[1][0].evidence == Evidence()
        assert got[2] == []
        assert len(gstore.triple_evidence(keys[:1], per_triple=1)[0]) == 1

    def test_remove_paper_takes_its_evidence(self, gstore: GraphStore) -> None:
        gstore.upsert_triples([with_evidence(CORE[0], "A"), with_evidence(CORE[4], "C")])
        gstore.remove_paper("paper-a")
        ck = node_key("challenge", "Scarce labelled data")
        assert [e.paper_id for e in gstore.node_evidence([ck])[ck]] == ["paper-c"]

    # A paper written again by a document that states less (a revised record, a re-ingest): the graph holds
    # what it would hold had the paper only ever stated the new version -- no mix of the two.
    @pytest.mark.parametrize("v2", [
        pytest.param([CORE[0]], id="fewer-triples"),
        pytest.param([T("paper-a", 0, "Low-resource NER", "Label noise", "Data augmentation")], id="other-node"),
        pytest.param([T("paper-a", 0, "Low-resource NER", "Domain shift", "Adapter tuning")], id="moved-index"),
        pytest.param([T("paper-a", 0, "Low-resource NER", "Scarce labelled data", "Adapter tuning"),
                      T("paper-a", 1, "Low-resource NER", "Domain shift", "Data augmentation")], id="crossed"),
        pytest.param([], id="none"),
    ])
    def test_retain_paper_triples_leaves_only_the_new_version(self, gstore: GraphStore, v2: list[TripleIn]) -> None:
        others = CORE[2:]  # paper-b and paper-c share nodes and edges with paper-a
        v1 = [with_evidence(CORE[0], "First"), with_evidence(CORE[1], "First"),
              with_evidence(T("paper-a", 2, "Low-resource NER", "Tokenisation errors", "Subword regularisation"),
                            "First")]
        new = [with_evidence(t, "Second") for t in v2]
        paper = PaperRecord(paper_id="paper-a", title="Paper A")

        def write(*versions: list[TripleIn]) -> dict[str, Any]:
            gstore.clear()
            gstore.upsert_triples(others)
            gstore.upsert_papers([paper])
            for v in versions:
                if v:
                    gstore.upsert_triples(v)
            if len(versions) == 2:
                r = gstore.retain_paper_triples("paper-a", versions[1])
                assert r.states_removed > 0 and r.paper_id == "paper-a"
                again = gstore.retain_paper_triples("paper-a", versions[1])  # idempotent
                assert again.states_removed == 0 and again.nodes_removed == []
            snap = snapshot(gstore)
            snap["stats"].pop("node_version")
            for n in snap["nodes"]:
                n.pop("created_at", None)
            snap["paper_a"] = [t.model_dump() for t in gstore.paper_triples("paper-a")]
            keys = [n["key"] for n in snap["nodes"]]
            snap["evidence"] = {k: [e.model_dump() for e in ev] for k, ev in gstore.node_evidence(keys).items()}
            return snap

        rewritten = write(v1, new)
        assert rewritten == write(new)
        assert node_key("challenge", "Tokenisation errors") not in {n["key"] for n in rewritten["nodes"]}
        assert "First" not in str(rewritten["evidence"])  # the first version's quotes left with their edges

    def test_retain_paper_triples_keeps_other_papers_and_unchanged_papers(self, gstore: GraphStore) -> None:
        gstore.upsert_triples(CORE)
        before = snapshot(gstore)
        r = gstore.retain_paper_triples("paper-a", [t for t in CORE if t.paper_id == "paper-a"])
        assert r.states_removed == 0 and r.nodes_removed == []
        assert snapshot(gstore) == before
