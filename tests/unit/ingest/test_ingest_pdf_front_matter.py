"""Abstract boundaries and first headings on front matter the shared corpus does not show (#40 item 4): an abstract
set smaller than the body, numbered affiliation lines, a title set in the body size under a small bold banner, a
bold abstract whose last line is a section name, an e-mail line level with the abstract's label."""

from __future__ import annotations

from pathlib import Path

from motivgraph.ingest.pdf import parse_pdf
from tests.fixtures.ingest.pdfgen import _wrap, write_pages

ABSTRACT = (
    "Objectives. Hospitals record laboratory values at irregular times chosen by clinicians. Methods. We model "
    "each measurement time as a variable and test conditional independence with a kernel statistic. Results. On "
    "simulated cohorts the method recovers most true edges. Conclusions. Measurement times are informative."
)
BODY = (
    "Electronic health records contain years of measurements for many patients, and clinicians hope to learn "
    "from them how treatments affect physiology. Randomised trials are slow and cannot cover every case. "
)
REFS = [("Helvetica-Bold", 12.0, "References"),
        ("Helvetica", 10.0, "[1] J. Way. Sampling in intensive care. Critical Care, 2012."),
        ("Helvetica", 10.0, "[2] R. Mark. Kernel tests. Annals of Statistics, 2008.")]


def _body(first: str = "1 Introduction") -> list[tuple[str, float, str]]:
    lines = [("Helvetica", 10.0, ln) for ln in _wrap(BODY * 4)]
    return [("Helvetica-Bold", 12.0, first), *lines, ("Helvetica-Bold", 12.0, "2 Methods"), *lines, *REFS]


def test_an_abstract_set_smaller_than_the_body_keeps_every_line(tmp_path: Path) -> None:
    """A structured abstract in 8 pt under 10 pt text: before, only its first line was kept."""
    abstract = _wrap("Abstract. " + ABSTRACT, 110)
    page = [("Helvetica-Bold", 18.0, "Causal Discovery from Clinical Records"), ("Helvetica", 11.0, "Mei Chou"),
            *[("Helvetica", 8.0, ln) for ln in abstract], *_body()]
    paper = parse_pdf(write_pages(tmp_path / "small.pdf", [page]))
    assert paper.abstract.startswith("Objectives. Hospitals record")
    assert paper.abstract.endswith("Measurement times are informative.")


def test_numbered_affiliations_above_the_abstract_do_not_hide_the_first_heading(tmp_path: Path) -> None:
    page = [("Helvetica-Bold", 18.0, "Verifying Upgrade Patterns in Contract Proxies"),
            ("Helvetica", 10.0, "Sofia Marchetti1, Zeynep Kaya2 and Arjun Nair3"),
            ("Helvetica-Bold", 9.0, "2 Mountain West Research Institute, Boulder, CO, USA"),
            ("Helvetica-Bold", 9.0, "3 School of Computing, Great Lakes Institute of Technology, Ann Arbor, MI"),
            *[("Helvetica", 9.0, ln) for ln in _wrap("Abstract. " + ABSTRACT, 100)], *_body()]
    paper = parse_pdf(write_pages(tmp_path / "affil.pdf", [page], at={
        "2 Mountain West Research Institute, Boulder, CO, USA": (150.0, None),
        "3 School of Computing, Great Lakes Institute of Technology, Ann Arbor, MI": (120.0, None)}))
    first = paper.sections[0]
    assert (first.number, first.heading) == ("1", "Introduction")
    assert first.text.startswith("Electronic health records")


def test_a_title_in_the_body_size_under_a_small_bold_banner(tmp_path: Path) -> None:
    page = [("Helvetica-Bold", 8.0, "Typeset with the journal style"),
            ("Helvetica-Bold", 10.0, "Verifying Upgrade Patterns in Smart Contract Proxies: Storage"),
            ("Helvetica-Bold", 10.0, "Layout Compatibility and Access Control"),
            ("Helvetica", 9.0, "Marisol Quintero and Minh Tran"),
            ("Helvetica", 10.0, "ABSTRACT"), *[("Helvetica", 10.0, ln) for ln in _wrap(ABSTRACT)], *_body()]
    paper = parse_pdf(write_pages(tmp_path / "banner.pdf", [page]))
    assert paper.title == ("Verifying Upgrade Patterns in Smart Contract Proxies: Storage Layout Compatibility and "
                           "Access Control")


def test_a_section_name_ending_a_bold_abstract_is_no_heading(tmp_path: Path) -> None:
    """IEEE sets the abstract in bold: its last line, 'experiments.', is a known section name in a heading font."""
    text = "Abstract—We simulate folded chains and compare translocation times with the scaling seen in recent"
    page = [("Helvetica-Bold", 20.0, "Lattice Simulations of Polymer Folding"), ("Helvetica", 11.0, "Clara Weiss"),
            ("Helvetica-Bold", 9.0, text), ("Helvetica-Bold", 9.0, "experiments."), *_body("I. Introduction")]
    paper = parse_pdf(write_pages(tmp_path / "ieee.pdf", [page]))
    assert paper.abstract.endswith("recent experiments.")
    assert paper.sections[0].heading == "Introduction"


def test_an_email_level_with_the_abstract_label_is_not_in_the_abstract(tmp_path: Path) -> None:
    page = [("Helvetica-Bold", 20.0, "Graph-Based Recommendation for Libraries"), ("Helvetica", 11.0, "Pedro Alves"),
            ("Helvetica", 9.0, "alves@example.org"), ("Helvetica-Bold", 11.0, "ABSTRACT"),
            *[("Helvetica", 10.0, ln) for ln in _wrap(ABSTRACT)], *_body()]
    # the e-mail sits right of the label and just above it, as acmart sets its author grid's last row
    label_y = 792.0 - 90 - (20 * 1.5 + 8) - (11 * 1.5 + 8) - (9 * 1.5) - (11 * 1.5 + 8)
    paper = parse_pdf(write_pages(tmp_path / "acm.pdf", [page], at={"alves@example.org": (300.0, label_y + 6)}))
    assert paper.abstract.startswith("Objectives. Hospitals")
    assert "@" not in paper.abstract


def test_a_reference_list_without_a_heading_is_not_the_last_sections_text(tmp_path: Path) -> None:
    """A list printed after the last section with no 'References' line (REVTeX, some journals): its entries are
    references, not part of the Conclusion (before, they were read into it, and from there into what is mined)."""
    lines = [("Helvetica", 10.0, ln) for ln in _wrap(BODY * 4)]
    entries = [("Helvetica", 10.0, f"[{k}] J. Way and R. Mark. Sampling study number {k}. Critical Care, {2000 + k}.")
               for k in range(1, 7)]
    pages = [[("Helvetica-Bold", 20.0, "Causal Discovery from Clinical Records"), ("Helvetica", 11.0, "Mei Chou"),
              ("Helvetica-Bold", 11.0, "Abstract"), *[("Helvetica", 10.0, ln) for ln in _wrap(ABSTRACT)],
              ("Helvetica-Bold", 12.0, "1 Introduction"), *lines],
             [("Helvetica-Bold", 12.0, "2 Conclusion"), *lines, *entries]]
    paper = parse_pdf(write_pages(tmp_path / "nohead.pdf", pages))
    assert len(paper.references) == 6
    conclusion = paper.sections[-1]
    assert conclusion.heading == "Conclusion"
    assert "Sampling study" not in conclusion.text and conclusion.text.endswith("every case.")


def test_every_author_of_a_grid_whose_names_stand_above_their_affiliations(tmp_path: Path) -> None:
    """ACM/IEEE author grids: each name over its institution, city and e-mail, so the third name is the ninth line
    under the title (before, only the first five lines were read for names). Lines set in another size than the
    names, and lines set unlike them further down, are no names."""
    people = [("Pedro Alves", "Departamento de Ingeniería", "Valparaíso, Chile"),
              ("Sofia Marchetti", "Bell Research Laboratories", "Murray Hill, NJ"),
              ("Marisol Quintero", "Mountain West Research Institute", "Boulder, CO")]
    block: list[tuple[str, float, str]] = []
    for name, inst, city in people:
        block += [("Helvetica", 12.0, name), ("Helvetica", 10.0, inst), ("Helvetica", 10.0, city),
                  ("Helvetica", 10.0, f"{name.split()[-1].lower()}@example.org")]
    page = [("Helvetica-Bold", 18.0, "Graph-Based Recommendation for Libraries"), *block,
            ("Helvetica-Bold", 11.0, "ABSTRACT"), *[("Helvetica", 10.0, ln) for ln in _wrap(ABSTRACT)], *_body()]
    paper = parse_pdf(write_pages(tmp_path / "grid.pdf", [page]))
    assert paper.authors == ["Pedro Alves", "Sofia Marchetti", "Marisol Quintero"]
