"""Offline parser: the real corpus (title / Introduction bars) and generated PDFs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from motivgraph.errors import ParseError
from motivgraph.ingest.pdf import parse_pdf
from tests.fixtures.ingest.pdfgen import write_encrypted, write_image_only, write_paper, write_truncated
from tests.unit.ingest.intro_quality_support import intro_quality

REPO = Path(__file__).resolve().parents[3]
PDF_DIR = REPO.parent / "shared" / "corpus" / "pdf"
PDFS = sorted(PDF_DIR.glob("*.pdf")) if PDF_DIR.is_dir() else []
TRUTH = json.loads((REPO / "tests" / "fixtures" / "ingest" / "corpus_truth.json").read_text())
needs_corpus = pytest.mark.skipif(not PDFS, reason=f"PDF corpus not found at {PDF_DIR}")


def _measure() -> dict[str, object]:
    rows = {}
    for f in PDFS:
        truth = TRUTH.get(f.name, {})
        try:
            p = parse_pdf(f)
        except ParseError as e:
            rows[f.name] = ("error", str(e))
            continue
        rows[f.name] = intro_quality(p, truth.get("title"), truth.get("after_intro"))
    return rows


@pytest.fixture(scope="module")
def corpus_results() -> dict[str, object]:
    return _measure()


@needs_corpus
def test_corpus_title_and_introduction_bars(corpus_results: dict[str, object]) -> None:
    n = len(corpus_results)
    ok = [q for q in corpus_results.values() if not isinstance(q, tuple)]
    title = sum(q.title for q in ok)
    intro = sum(q.intro for q in ok)
    clean = sum(q.clean for q in ok)
    print(f"\noffline parser on {n} PDFs: title {title}/{n}, introduction {intro}/{n}, clean introduction {clean}/{n}")
    for name, q in corpus_results.items():
        if isinstance(q, tuple) or not (q.title and q.intro and q.clean):
            print(f"  {name}: {q}")
    assert title / n >= 0.9, f"title found in {title}/{n}"
    assert intro / n >= 0.9, f"introduction found in {intro}/{n}"
    # "most": the Introduction stops at the right next heading and does not end mid-sentence
    assert clean / n >= 0.8, f"clean introduction in {clean}/{n}"


@needs_corpus
def test_every_corpus_pdf_parses_or_fails_with_a_reason(corpus_results: dict[str, object]) -> None:
    for name, q in corpus_results.items():
        if isinstance(q, tuple):
            # the only text-less file in the corpus is reported, not crashed on
            assert "no text layer" in q[1], (name, q)


@needs_corpus
def test_known_paper_structure() -> None:
    p = parse_pdf(PDF_DIR / "sp_P07-1088.pdf", sha256="b" * 64)
    assert p.title == "Sparse Information Extraction: Unsupervised Language Models to the Rescue"
    assert p.authors == ["Doug Downey", "Stefan Schoenmackers", "Oren Etzioni"]
    assert p.abstract.startswith("Even in a massive corpus such as the Web")
    assert [s.number for s in p.sections[:3]] == ["1", "2", "2.1"]
    intro = p.section("introduction")
    assert intro.startswith("Information Extraction (IE) from text is far from infallible")
    assert intro.rstrip().endswith("directions for future work.")
    assert "IE Assessment" not in intro
    assert any(s.role == "related_work" for s in p.sections)
    assert len(p.references) >= 5 and p.page_count == 8 and p.parser == "pdf"


@needs_corpus
def test_two_column_ieee_roman_headings() -> None:
    p = parse_pdf(PDF_DIR / "sp_2a774230b5328df3f8125da9b84a82d92b46a240.pdf")
    assert p.title == "Disk-Based Storage for Scalable Video"
    assert p.sections[0].number == "I" and p.sections[0].role == "introduction"
    assert p.sections[1].heading == "SYSTEM PARAMETERS"
    assert p.abstract.startswith("In this paper, we consider the placement")


def test_generated_paper(tmp_path: Path) -> None:
    p = parse_pdf(write_paper(tmp_path / "a.pdf"), sha256="c" * 64)
    assert p.title == "Mining Research Motivations from Scientific Papers"
    assert p.authors == ["Ada Lovelace", "Alan Turing"]
    assert [(s.number, s.role) for s in p.sections] == [
        ("1", "introduction"), ("2", "method"), ("3", "experiments"), ("4", "conclusion")
    ]
    assert p.section("introduction").startswith("Knowledge graphs of research motivations")
    assert "2 Method" not in p.section("introduction")
    assert [r.title for r in p.references] == ["Computing machinery and intelligence", "Notes on the analytical engine"]
    assert p.paper_id == "sha256:" + "c" * 64


def test_page_cap(tmp_path: Path) -> None:
    big = write_paper(tmp_path / "big.pdf", filler_pages=250)
    p = parse_pdf(big, max_pages=3)
    assert p.page_count and p.page_count > 250
    assert p.section("introduction")  # the first pages are enough for title and Introduction
    assert p.notes == [f"only the first 3 of {p.page_count} pages were read (setting MOTIVGRAPH_INGEST_MAX_PAGES)"]
    assert parse_pdf(write_paper(tmp_path / "short.pdf"), max_pages=3).notes == []


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda d, src: _write(d / "empty.pdf", b""), "empty file"),
        (lambda d, src: write_truncated(d / "trunc.pdf", src), "truncated or not a PDF"),
        (lambda d, src: write_encrypted(d / "enc.pdf", src), "encrypted PDF"),
        (lambda d, src: _write(d / "text.pdf", b"just some text, not a PDF"), "truncated or not a PDF"),
        (lambda d, src: write_image_only(d / "scan.pdf", src), "no text layer"),
    ],
    ids=["empty", "truncated", "encrypted", "text-named-pdf", "scanned"],
)
def test_bad_input_raises_parse_error_with_reason(tmp_path: Path, make, reason: str) -> None:  # type: ignore[no-untyped-def]
    src = write_paper(tmp_path / "src.pdf", filler_pages=3)
    bad = make(tmp_path, src)
    with pytest.raises(ParseError, match=reason):
        parse_pdf(bad)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (("Ada Lovelace, Alan Turing", "Computer Science", "Data Science and Engineering"),
         ["Ada Lovelace", "Alan Turing"]),
        (("Grace Hopper and Edsger Dijkstra", "Electrical Engineering and Computer Sciences",
          "Applied Mathematics Group", "One Harbour Way"), ["Grace Hopper", "Edsger Dijkstra"]),
        (("Barbara Liskov", "Barbara Liskov"), ["Barbara Liskov"]),
    ],
)
def test_affiliation_lines_are_not_authors(tmp_path: Path, lines: tuple[str, ...], expected: list[str]) -> None:
    """Department, discipline and street lines under the names are capitalised like names but are not people."""
    paper = parse_pdf(write_paper(tmp_path / "p.pdf", author_lines=lines))
    assert paper.authors == expected


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # a US state other than WA/CA/NY after the city: an address, not a person named "Murray Hill"
        (("Ravi Mark", "Bell Research Laboratories", "Murray Hill, NJ"), ["Ravi Mark"]),
        (("Ngozi Adeyemi", "Round Rock, TX"), ["Ngozi Adeyemi"]),
        (("Minh Tran", "Thunder Bay, ON"), ["Minh Tran"]),
        # a person whose surname is a street word is still a person; the street line with its number is not
        (("Jonah Way and Grace Hill", "One Harbour Way", "12 Rue Cuvier"), ["Jonah Way", "Grace Hill"]),
    ],
)
def test_addresses_anywhere_and_people_named_like_streets(
    tmp_path: Path, lines: tuple[str, ...], expected: list[str]
) -> None:
    """General address rules (#40 item 5): every state/province code, street lines by their number."""
    paper = parse_pdf(write_paper(tmp_path / "p.pdf", author_lines=lines))
    assert paper.authors == expected


def test_superscript_affiliation_letters_are_not_part_of_the_names(tmp_path: Path) -> None:
    """elsarticle sets Huber^a, Kaya^b: the text layer reads 'Hubera', 'Kayab'; the affiliation lines open with the
    same letters, so they are the marks."""
    lines = ("Benedikt Hubera, Zeynep Kayab, Sofia Marchettia", "aSchool of Informatics, Northern Fjord University",
             "bResearch Division, Delta Analytics Inc., Raleigh, NC")
    paper = parse_pdf(write_paper(tmp_path / "p.pdf", author_lines=lines))
    assert paper.authors == ["Benedikt Huber", "Zeynep Kaya", "Sofia Marchetti"]
    # a name that ends like a mark, without marks in the block, is left whole
    plain = parse_pdf(write_paper(tmp_path / "q.pdf", author_lines=("Maria Costa and Ana Silva",)))
    assert plain.authors == ["Maria Costa", "Ana Silva"]
