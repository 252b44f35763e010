"""Golden digest of the offline PDF parser's output on the shared corpus.

The fixture (tests/fixtures/ingest/parser_golden.json) holds, per PDF of corpus/pdf and corpus/journals
keyed by the file's SHA-256, a compact digest of what `parse_pdf` made of it: title, section headings,
a hash of each section's text, the abstract's start, the text-hygiene repair counts, the ParseError
reason when there is no usable text — plus a hash of the layout lines (`page_lines`: every line's
page, box, size, weight, font and text), so a change in line grouping shows even when the parser's
heuristics happen to hide it. It is derived output, taken from the parser as it was when written: a
parser change that alters any of it must say why and rewrite the fixture.

    .venv/bin/python -m tests.parser_golden            # compare every corpus PDF, print the differences
    .venv/bin/python -m tests.parser_golden --update   # rewrite the fixture from the current parser
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
FIXTURE = REPO / "tests" / "fixtures" / "ingest" / "parser_golden.json"
FOLDERS = ("journals", "pdf")
MAX_PAGES = 60  # parse_pdf's default page cap


def _h(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def corpus_files(corpus: Path = CORPUS) -> list[Path]:
    return [p for folder in FOLDERS for p in sorted((corpus / folder).glob("*.pdf"))]


def file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def lines_digest(path: Path, max_pages: int = MAX_PAGES) -> dict[str, Any]:
    """Hash of every layout line of the first `max_pages` pages, with the line count and repairs."""
    import pypdfium2 as pdfium

    from motivgraph.ingest.pdf_layout import page_lines
    from motivgraph.text_hygiene import Repairs

    h = hashlib.sha256()
    count = 0
    repairs: list[Repairs] = []
    doc = pdfium.PdfDocument(str(path))
    try:
        for pn in range(min(len(doc), max_pages)):
            page = doc[pn]
            try:
                for ln in page_lines(page, pn, repairs):
                    count += 1
                    row = (ln.page, ln.x0, ln.y0, ln.x1, ln.y1, ln.size, ln.bold, ln.text, ln.font,
                           ln.page_width, ln.page_height, ln.chars)
                    h.update(repr(row).encode("utf-8", "surrogatepass"))
            finally:
                page.close()
    finally:
        doc.close()
    return {"lines": count, "lines_sha": h.hexdigest()[:16], "line_repairs": sum(repairs, Repairs()).as_dict()}


def paper_digest(path: Path) -> dict[str, Any]:
    """What parse_pdf made of one PDF, compactly."""
    from motivgraph.errors import ParseError
    from motivgraph.ingest.pdf import parse_pdf

    try:
        p = parse_pdf(path, max_pages=MAX_PAGES)
    except ParseError as e:
        return {"reason": str(e)}
    return {
        "title": p.title,
        "authors": p.authors,
        "year": p.year,
        "doi": p.doi,
        "arxiv_id": p.arxiv_id,
        "abstract_start": p.abstract[:120],
        "abstract_sha": _h(p.abstract),
        "sections": [[s.number, s.heading, s.role, len(s.text), _h(s.text)] for s in p.sections],
        "references": len(p.references),
        "references_sha": _h(json.dumps([r.model_dump(mode="json") for r in p.references], sort_keys=True)),
        "text_repairs": p.text_repairs,
        "page_count": p.page_count,
    }


def digest(path: Path) -> dict[str, Any]:
    return {"paper": paper_digest(path), **lines_digest(path)}


def load_fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


def differences(expected: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """Human-readable differences between two digests of one file (empty when they agree)."""
    out: list[str] = []
    for key in sorted(set(expected) | set(got)):
        if key == "name":
            continue
        a, b = expected.get(key), got.get(key)
        if key == "paper" and isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                if a.get(k) != b.get(k):
                    out.append(f"paper.{k}: expected {str(a.get(k))[:300]!r}, got {str(b.get(k))[:300]!r}")
        elif a != b:
            out.append(f"{key}: expected {a!r}, got {b!r}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="rewrite the fixture from the current parser")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    files = corpus_files(args.corpus)
    if not files:
        print(f"no PDFs under {args.corpus}/{{{','.join(FOLDERS)}}}", file=sys.stderr)
        return 2
    if args.update:
        out: dict[str, Any] = {}
        for f in files:
            out[file_sha(f)] = {"name": f"{f.parent.name}/{f.name}", **digest(f)}
        # one line per file: a parser change shows as the lines of the files it changed
        rows = [f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in sorted(out.items())]
        FIXTURE.write_text("{\n" + ",\n".join(rows) + "\n}\n")
        print(f"wrote {len(out)} digests to {FIXTURE}")
        return 0
    golden = load_fixture()
    bad = 0
    for f in files:
        sha = file_sha(f)
        if sha not in golden:
            print(f"{f}: not in the fixture (a new corpus file? run --update on the parser it was taken from)")
            bad += 1
            continue
        diff = differences(golden[sha], digest(f))
        if diff:
            bad += 1
            print(f"{f.parent.name}/{f.name}:")
            for d in diff:
                print(f"  {d}")
    print(f"{len(files) - bad}/{len(files)} corpus PDFs match the golden digest")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
