"""Papers from JSON: record shapes, identity, topics files, bad lines, changed records, resume after kill -9."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from motivgraph.errors import ParseError
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.models import Paper
from motivgraph.ingest.paper_json import ABSTRACT_ONLY_NOTE, record_key, record_to_paper, stable_id
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.ingest.sinks import SinkResult
from motivgraph.settings import GraphSettings, Settings

INTRO = "Irrigation wastes water in dry gardens. " * 20

S2ORC = {
    "paper_id": "77490025",
    "title": "Water Budgets for Dry Gardens",
    "abstract": "We study irrigation.",
    "authors": [{"first": "Mara", "last": "Quinn"}, "Tomas Vale"],
    "year": 2019,
    "body_text": [
        {"section": "Introduction", "text": INTRO, "sec_num": "1"},
        {"section": "Introduction", "text": "A second paragraph.", "sec_num": "1"},
        {"section": "Method", "text": "Probes at three depths.", "sec_num": "2"},
    ],
}
ARXIV = {
    "paper_id": "2402.03300v2",
    "title": "A Paper With \\textbf{Bold} Words",
    "abstract": "Short abstract.",
    "introduction": "\\vspace{-0.2cm} Models reason \\citep{MATH} well. " + INTRO,
    "conclusion": "We conclude.",
}
S2_GRAPH = {
    "paperId": "649def34f8be52c8b66281af98ae884c09aef38b",
    "externalIds": {"DOI": "10.1145/3292500.3330701", "CorpusId": 123},
    "title": "Graph Record",
    "abstract": "Only an abstract here. " * 10,
    "year": 2019,
    "venue": "KDD",
    "authors": [{"authorId": "1", "name": "Ada Lovelace"}],
}


class Collect:
    def __init__(self) -> None:
        self.papers: list[Paper] = []

    async def process(self, paper: Paper) -> SinkResult:
        self.papers.append(paper)
        return SinkResult(status="stored", counts={"papers": 1})


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", graph=GraphSettings(), _env_file=None)  # type: ignore[call-arg]


def _jsonl(path: Path, lines: list[object | str]) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_s2orc_record_sections_from_body_text() -> None:
    p = record_to_paper(S2ORC)
    assert p.paper_id == "id:77490025" and p.parser == "json" and p.year == 2019
    assert p.authors == ["Mara Quinn", "Tomas Vale"]
    assert [(s.heading, s.number, s.role) for s in p.sections] == [("Introduction", "1", "introduction"),
                                                                   ("Method", "2", "method")]
    assert p.section("introduction").endswith("A second paragraph.")
    assert p.notes == []


def test_arxiv_record_id_latex_cleanup_and_introduction_field() -> None:
    p = record_to_paper(ARXIV)
    assert p.paper_id == "arxiv:2402.03300" and p.arxiv_id == "2402.03300"  # the PDF parser's id form
    assert p.title == "A Paper With Bold Words"
    intro = p.section("introduction")
    assert intro.startswith("Models reason well.") and "\\" not in intro
    assert [s.role for s in p.sections] == ["introduction", "conclusion"]


def test_semantic_scholar_graph_record_is_abstract_only_and_says_so() -> None:
    p = record_to_paper(S2_GRAPH)
    assert p.paper_id == "doi:10.1145/3292500.3330701" and p.doi == "10.1145/3292500.3330701"
    assert p.venue == "KDD" and p.authors == ["Ada Lovelace"] and p.sections == []
    assert p.notes == [ABSTRACT_ONLY_NOTE]
    no_doi = dict(S2_GRAPH, externalIds={"CorpusId": 123})
    assert stable_id(no_doi) == f"s2:{S2_GRAPH['paperId']}"


def test_identity_without_ids_is_a_content_hash_and_the_key_carries_the_version() -> None:
    rec = {"title": "Untitled Thoughts", "abstract": "x"}
    assert stable_id(rec).startswith("sha:") and stable_id(rec) == stable_id(dict(rec))
    changed = dict(S2ORC, abstract="We study irrigation again.")
    assert stable_id(changed) == stable_id(S2ORC)  # same paper
    assert record_key(changed) != record_key(S2ORC)  # a new version to ingest


@pytest.mark.parametrize("bad", [[1, 2], "just text", {"foo": 1}, {"title": "", "abstract": ""}])
def test_records_that_are_not_papers_are_refused_with_a_reason(bad: object) -> None:
    with pytest.raises(ParseError, match="not a paper record"):
        record_to_paper(bad, "line 3")


def test_astral_characters_in_json_text_are_kept_and_surrogates_repaired() -> None:
    p = record_to_paper({"title": "Mixing \U0001d707 and \ud835", "abstract": "a"})
    assert "\U0001d707" in p.title and "\ud835" not in p.title
    p.model_dump_json()


def test_jsonl_bad_lines_are_recorded_by_line_and_the_rest_goes_on(tmp_path: Path, settings: Settings) -> None:
    f = _jsonl(tmp_path / "papers.jsonl", [S2ORC, "{not json", ARXIV, '"a string"', S2_GRAPH, ""])
    sink = Collect()
    s = asyncio.run(ingest_async([f], settings, sink=sink))
    assert s.ok == 3 and s.failed == 2
    assert s.notes == {ABSTRACT_ONLY_NOTE: 1}  # the report says which papers are mined from the abstract
    failed = sorted((o.error or "") for o in s.outcomes if o.state == "failed")
    assert failed[0].startswith("line 2: not valid JSON") and failed[1].startswith("line 4: not a paper record")
    assert {p.paper_id for p in sink.papers} == {"id:77490025", "arxiv:2402.03300", "doi:10.1145/3292500.3330701"}
    # the same command again: nothing to do; a changed record is ingested again under the same paper id
    again = Collect()
    assert asyncio.run(ingest_async([f], settings, sink=again)).processed == 0
    _jsonl(f, [dict(S2ORC, abstract="We study irrigation, revised."), "{not json", ARXIV, '"a string"', S2_GRAPH])
    s3 = asyncio.run(ingest_async([f], settings, sink=again))
    assert [p.paper_id for p in again.papers] == ["id:77490025"] and again.papers[0].abstract.endswith("revised.")
    assert s3.ok == 1


def test_topics_file_ingests_background_papers_only(tmp_path: Path, settings: Settings) -> None:
    topic = {"topic_id": "t1", "background_papers": [ARXIV, S2ORC], "target_papers": [S2_GRAPH]}
    f = _jsonl(tmp_path / "topics.jsonl", [topic])
    sink = Collect()
    asyncio.run(ingest_async([f], settings, sink=sink))
    assert sorted(p.paper_id for p in sink.papers) == ["arxiv:2402.03300", "id:77490025"]


def test_folder_of_json_files_single_records_and_lists(tmp_path: Path, settings: Settings) -> None:
    d = tmp_path / "corpus"
    d.mkdir()
    (d / "a.json").write_text(json.dumps(S2ORC))
    (d / "b.json").write_text(json.dumps([ARXIV, S2_GRAPH]))
    (d / "broken.json").write_text("{")
    sink = Collect()
    s = asyncio.run(ingest_async([d], settings, sink=sink))
    assert len(sink.papers) == 3 and s.failed == 1
    assert next(o.error for o in s.outcomes if o.state == "failed").startswith("file: not valid JSON")


_SLOW_RUN = """
import asyncio, sys
from pathlib import Path
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.ingest.sinks import SinkResult
from motivgraph.settings import GraphSettings, Settings

class Slow:
    async def process(self, paper):
        await asyncio.sleep(0.3)
        with open(sys.argv[3], "a") as f:
            f.write(paper.paper_id + "\\n")
        return SinkResult(status="stored", counts={"papers": 1})

s = Settings(data_dir=Path(sys.argv[2]), graph=GraphSettings(), _env_file=None)
asyncio.run(ingest_async([sys.argv[1]], s, sink=Slow(), concurrency=1))
"""


def test_resume_after_kill_9(tmp_path: Path) -> None:
    recs = [dict(S2ORC, paper_id=f"p{i}", title=f"Paper {i}") for i in range(30)]
    f = _jsonl(tmp_path / "many.jsonl", recs)
    data, seen = tmp_path / "data", tmp_path / "seen.txt"
    script = tmp_path / "run.py"
    script.write_text(_SLOW_RUN)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    proc = subprocess.Popen([sys.executable, str(script), str(f), str(data), str(seen)], env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not seen.exists() or len(seen.read_text().split()) < 3):
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    first = seen.read_text().split()
    assert 3 <= len(first) < 30, "the run should have been killed part-way"
    done = set(first)
    subprocess.run([sys.executable, str(script), str(f), str(data), str(seen)], env=env, check=True, timeout=300)
    second = seen.read_text().split()[len(first):]
    assert set(first) | set(second) == {f"id:p{i}" for i in range(30)}
    # stored papers are not processed again (at most the one in flight at the kill is redone)
    assert len(done & set(second)) <= 1
    ledger = Ledger(data / "ingest" / "ledger.sqlite")
    try:
        assert ledger.counts().get("stored") == 30
    finally:
        ledger.close()
