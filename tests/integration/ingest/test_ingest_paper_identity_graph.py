"""One paper met twice is one graph paper, through the real ingest into the embedded FalkorDB: a PDF of a
preprint (its arXiv id only in the stamp up the margin) and a JSON record of the published paper (DOI and
arXiv id), in either order; a PDF with no ids and a record tied to it by title and first author; and two
papers with the same title and first author but different DOIs — kept apart and reported
(`ingest report`). PDFs are built byte by byte (tests/fixtures/ingest/rawpdf.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.graph.base import GraphStore
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.ingest.summary import IngestSummary
from motivgraph.settings import IngestSettings, Settings
from tests.fixtures.ingest.rawpdf import RawPdf
from tests.unit.ingest.test_ingest_pdf_layouts import INTRO, METHOD, PROSE, Writer

TITLE = "Water Budgets for Dry Gardens"
DOI = "10.5555/jdl.2021.0042"
ARXIV = "2101.01234"


def _pdf(path: Path, stamp: str = "", footer: str = "") -> Path:
    w = Writer(doc=RawPdf())
    w.front(title=TITLE)
    page = w.doc.pages[0]
    if stamp:
        page.text("Times-Roman", 20, 30, 220, stamp, turn=90)
    if footer:
        page.text("Times-Roman", 8, 72, 30, footer)
    w.heading("1 Introduction")
    w.para(INTRO)
    w.heading("2 Method")
    w.para(METHOD + PROSE * 3)
    w.heading("References")
    w.para("[1] A. Author. A book about water. Dry Press, 2001.")
    return w.doc.save(path)


def _record(path: Path, **ids: object) -> Path:
    rec = {"title": TITLE, "authors": [{"name": "Mara Quinn"}, {"name": "Tomas Vale"}], "year": 2021,
           "abstract": "We study irrigation in dry gardens.", "introduction": INTRO, **ids}
    path.write_text(json.dumps(rec) + "\n")
    return path


async def _ingest(path: Path, settings: Settings, store: GraphStore) -> IngestSummary:
    summary = await ingest_async([path], settings, store=store, concurrency=1)
    assert summary.failed == 0, [o.error for o in summary.outcomes]
    return summary


def _ledger_ids(settings: Settings) -> list[str | None]:
    led = Ledger.for_data_dir(settings.data_dir)
    try:
        return [r.paper_id for r in led.rows("stored")]
    finally:
        led.close()


@pytest.fixture
def pdf_settings(settings: Settings) -> Settings:
    settings.ingest = IngestSettings(parser="pdf")
    return settings


@pytest.mark.parametrize("pdf_first", [False, True], ids=["record-then-pdf", "pdf-then-record"])
async def test_the_same_paper_as_a_pdf_and_a_json_record_is_one_paper(
        tmp_path: Path, pdf_settings: Settings, store: GraphStore, pdf_first: bool) -> None:
    pdf = _pdf(tmp_path / "preprint.pdf", stamp=f"arXiv:{ARXIV}v2 [cs.CL] 5 Jan 2021")
    rec = _record(tmp_path / "papers.jsonl", externalIds={"DOI": DOI, "ArXiv": ARXIV})
    first, second = (pdf, rec) if pdf_first else (rec, pdf)
    await _ingest(first, pdf_settings, store)
    s2 = await _ingest(second, pdf_settings, store)
    papers = list(store.iter_papers())
    assert len(papers) == 1, [p.paper_id for p in papers]
    expected = f"arxiv:{ARXIV}" if pdf_first else f"doi:{DOI}"  # the first one met names the paper
    assert papers[0].paper_id == expected and papers[0].title == TITLE
    assert papers[0].year == 2021  # the record's year, whichever came last
    assert s2.same_paper == 1 and s2.probable_duplicates == []
    assert _ledger_ids(pdf_settings) == [expected, expected]


async def test_a_pdf_without_ids_and_a_record_are_tied_by_title_and_first_author(
        tmp_path: Path, pdf_settings: Settings, store: GraphStore) -> None:
    await _ingest(_pdf(tmp_path / "noid.pdf"), pdf_settings, store)
    await _ingest(_record(tmp_path / "papers.jsonl", doi=DOI), pdf_settings, store)
    [paper] = list(store.iter_papers())
    assert paper.paper_id.startswith("sha256:") and paper.year == 2021


async def test_conflicting_dois_are_reported_not_merged(
        tmp_path: Path, pdf_settings: Settings, store: GraphStore) -> None:
    await _ingest(_pdf(tmp_path / "conference.pdf", footer="Proc. Dry Land 2020, doi:10.5555/conf.2020.0007"),
                  pdf_settings, store)
    s2 = await _ingest(_record(tmp_path / "journal.jsonl", doi=DOI), pdf_settings, store)
    assert sorted(p.paper_id for p in store.iter_papers()) == ["doi:10.5555/conf.2020.0007", f"doi:{DOI}"]
    [(path, pid, other, why)] = s2.probable_duplicates
    assert path.endswith("journal.jsonl") and "title" in why
    assert (pid, other) == (f"doi:{DOI}", "doi:10.5555/conf.2020.0007")
    env = {"MOTIVGRAPH_DATA_DIR": str(pdf_settings.data_dir), "COLUMNS": "250"}
    r = CliRunner().invoke(app, ["ingest", "report", "--json"], env=env)
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.stdout)["probable duplicates (not merged)"]
    assert row["paper_id"] == f"doi:{DOI}" and row["other_paper_id"] == "doi:10.5555/conf.2020.0007"


@pytest.mark.parametrize("pdf_first", [False, True], ids=["record-then-pdf", "pdf-then-record"])
async def test_a_merge_keeps_the_best_value_of_each_field_and_says_where_it_came_from(
        tmp_path: Path, pdf_settings: Settings, store: GraphStore, pdf_first: bool) -> None:
    # the record names the paper in the project's own id form (as `graph export` writes it) and has no
    # year and no authors: it must neither become a second paper nor wipe what the PDF knows
    pdf = _pdf(tmp_path / "paper.pdf", footer=f"doi:{DOI}")
    rec = tmp_path / "papers.jsonl"
    rec.write_text(json.dumps({"paper_id": f"doi:{DOI}", "title": TITLE, "venue": "Journal of Dry Land",
                               "abstract": "We study irrigation in dry gardens."}) + "\n")
    for path in ((pdf, rec) if pdf_first else (rec, pdf)):
        await _ingest(path, pdf_settings, store)
    [paper] = list(store.iter_papers())
    assert paper.paper_id == f"doi:{DOI}"
    assert paper.authors == ["Mara Quinn", "Tomas Vale"] and paper.source_path == str(pdf)
    assert paper.venue == "Journal of Dry Land" and paper.sha256
    assert paper.provenance.get("authors") == f"pdf:{pdf}", paper.provenance
    assert paper.provenance["venue"] == f"json:{rec}:1"
    assert paper.provenance["source_path"] == f"pdf:{pdf}"
    env = {"MOTIVGRAPH_DATA_DIR": str(pdf_settings.data_dir), "MOTIVGRAPH_GRAPH_FALKORDB_URL":
           pdf_settings.graph.falkordb_url or "", "MOTIVGRAPH_GRAPH_NAME": pdf_settings.graph.name, "COLUMNS": "250"}
    r = CliRunner().invoke(app, ["papers", "show", f"doi:{DOI}", "--json"], env=env)
    assert r.exit_code == 0, r.output
    shown = json.loads(r.stdout)
    assert shown["provenance"]["venue"] == f"json:{rec}:1" and shown["authors"] == ["Mara Quinn", "Tomas Vale"]
