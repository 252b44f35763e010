"""Parse-quality benchmark of the offline PDF parser against the hand-written ground truth, with
parse throughput beside raw pypdfium2 text extraction on the same files in the same run.

    .venv/bin/python bench/bench_parse_quality.py [--shared ../shared] [--rounds 2] [--json out.json] [-v]
    .venv/bin/python bench/bench_parse_quality.py --speed-only --ingest   # timing only, plus the CLI ingest
    .venv/bin/python bench/bench_parse_quality.py --heldout-only --no-speed   # the held-out set alone

In-sample and held-out side by side (first table printed): in-sample = the shared corpus, whose files the parser
was developed on (hand truth in tests/fixtures/ingest); held-out = papers typeset for this purpose from text
nobody tuned on (bench/heldout/generate.py, needs pdflatex), in two splits — dev (may be looked at) and frozen
(no parser change is ever tuned on it: only its totals are printed, never its documents).

Figures (never pass/fail):
- side by side, in-sample vs held-out (dev, frozen): title, abstract boundary, first body section, reference
  count within ±10 %, real papers judged "not a paper" (held-out targets: title >= 97 %, abstract >= 95 %,
  first section >= 95 %, references >= 90 %, "not a paper" 0);
- per-field accuracy with denominators on the papers of tests/fixtures/ingest/parse_truth.json
  (title, first body heading, first body words, first body section = both, abstract start,
  abstract that does not swallow the body);
- coverage on every PDF of corpus/pdf and corpus/journals: a non-empty title and at least one
  section, or a ParseError reason (no crash), or judged not a research paper (with the reason);
- documents that are not papers: the middle and the last-but-one page of every PDF of five pages or more, each
  sliced out alone (pdfium page import), should be judged not a research paper (no title, no abstract, the
  text kept as body); page 1 of every PDF alone should still be a paper;
- identifiers: the paper's own DOI and arXiv id against tests/fixtures/ingest/identity_truth.json (derived
  without the parser: pypdf's page-1 text in every orientation and pypdf's Info/XMP metadata, each checked by
  hand; `--derive-identity-truth` lists those candidates for your own files) — found / correct of the
  papers that have one, wrong ones, and ids given to papers that have none;
- throughput: parse_pdf (in this process) vs raw pypdfium2 (open, pages, textpage, get_text_range,
  close) over the same files and page cap, timed file by file back to back; per file the best of
  --rounds; the ratio parse/raw, the layout pass alone (open, pages, `page_lines`) as a ratio too, and
  the machine's load average while it ran;
- with --ingest: `motivgraph ingest run <shared>/corpus/pdf --parser pdf` into a temporary data dir
  (the offline extractor: no LLM is configured for it) — its wall time, and beside it the in-process
  parse_pdf time of the same PDFs measured in the same run (the parse share of the ingest).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from motivgraph.errors import ParseError
from motivgraph.graph.embedded import EmbeddedFalkorDB
from motivgraph.ingest.models import Paper
from motivgraph.ingest.pdf import parse_pdf
from motivgraph.ingest.pdf_layout import page_lines
from motivgraph.ingest.quality import FIELDS, truth_scores

REPO = Path(__file__).resolve().parents[1]
TRUTH_PATH = REPO / "tests" / "fixtures" / "ingest" / "parse_truth.json"
IDENTITY_TRUTH_PATH = REPO / "tests" / "fixtures" / "ingest" / "identity_truth.json"
FOLDERS = ("journals", "pdf")


def raw_extract(path: Path, max_pages: int) -> int:
    """What any pypdfium2 user pays to get the text: open, every page's textpage, the text."""
    doc = pdfium.PdfDocument(str(path))
    n = 0
    try:
        for i in range(min(len(doc), max_pages)):
            page = doc[i]
            tp = page.get_textpage()
            n += len(tp.get_text_range())
            tp.close()
            page.close()
    finally:
        doc.close()
    return n


def layout_only(path: Path, max_pages: int) -> int:
    """The parser's layout pass alone: open, every page's lines (no headings, no sections)."""
    doc = pdfium.PdfDocument(str(path))
    n = 0
    try:
        for i in range(min(len(doc), max_pages)):
            page = doc[i]
            n += len(page_lines(page, i))
            page.close()
    finally:
        doc.close()
    return n


def parse_or_reason(path: Path, max_pages: int) -> Paper | str:
    try:
        return parse_pdf(path, max_pages=max_pages)
    except ParseError as e:
        return f"ParseError: {e}"


def quality(shared: Path, verbose: bool) -> dict[str, Any]:
    truth = json.loads(TRUTH_PATH.read_text())
    totals = dict.fromkeys(FIELDS, 0)
    n = 0
    misses: dict[str, list[str]] = {f: [] for f in FIELDS}
    for folder in FOLDERS:
        for name, entry in truth[folder].items():
            path = shared / "corpus" / folder / name
            if not path.exists():
                print(f"  missing {path}: skipped")
                continue
            n += 1
            got = parse_or_reason(path, 60)
            if isinstance(got, str):
                scores = dict.fromkeys(FIELDS, False)
                detail = got
            else:
                scores = truth_scores(got, entry)
                first = got.sections[0] if got.sections else None
                detail = (
                    f"title={got.title[:70]!r} first={(first.number, first.heading[:40]) if first else None} "
                    f"text={(first.text[:50] if first else '')!r} abstract={got.abstract[:40]!r}"
                )
            for f in FIELDS:
                totals[f] += scores[f]
                if not scores[f]:
                    misses[f].append(f"{folder}/{name}")
            if verbose and not all(scores.values()):
                bad = [f for f in FIELDS if not scores[f]]
                print(f"  {folder}/{name}: wrong {bad}\n      {detail}")
    return {"n": n, "correct": totals, "misses": misses}


def coverage(shared: Path) -> dict[str, str]:
    rows: dict[str, str] = {}
    for folder in FOLDERS:
        for path in sorted((shared / "corpus" / folder).glob("*.pdf")):
            try:
                got = parse_or_reason(path, 60)
            except Exception as e:  # a crash is exactly what this counts
                rows[f"{folder}/{path.name}"] = f"CRASH {type(e).__name__}: {e}"
                continue
            if isinstance(got, str):
                rows[f"{folder}/{path.name}"] = f"reason: {got}"
            elif got.not_a_paper:
                rows[f"{folder}/{path.name}"] = f"not a paper: {got.not_a_paper}"
            elif got.title.strip() and got.sections:
                rows[f"{folder}/{path.name}"] = "ok"
            else:
                rows[f"{folder}/{path.name}"] = f"EMPTY title={got.title!r} sections={len(got.sections)}"
    return rows


def single_pages(shared: Path, verbose: bool) -> dict[str, int]:
    """Pages sliced out of the corpus PDFs, each parsed alone: mid-paper pages (the middle one and the
    last-but-one of every PDF of five pages or more) judged not a paper, and first pages judged a paper."""
    out = dict.fromkeys(("inner", "inner_no_paper", "first", "first_paper"), 0)
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as d:
        for folder in FOLDERS:
            for path in sorted((shared / "corpus" / folder).glob("*.pdf")):
                src = pdfium.PdfDocument(str(path))
                try:
                    n = len(src)
                    picks = [(0, "first")] + [(k, "inner") for k in sorted({n // 2, n - 2}) if n >= 5]
                    for k, kind in picks:
                        one = pdfium.PdfDocument.new()
                        one.import_pages(src, [k])
                        page = Path(d) / f"{path.stem}_p{k + 1}.pdf"
                        one.save(str(page))
                        one.close()
                        got = parse_or_reason(page, 1)
                        if isinstance(got, str):
                            continue  # no text layer: a reason, counted by the coverage figure
                        out[kind] += 1
                        right = bool(got.not_a_paper) == (kind == "inner")
                        out["inner_no_paper" if kind == "inner" else "first_paper"] += right
                        if verbose and not right:
                            print(f"  {folder}/{path.name} page {k + 1} alone: title={got.title[:60]!r} "
                                  f"not_a_paper={got.not_a_paper!r}")
                finally:
                    src.close()
    return out


def identifiers(shared: Path, verbose: bool) -> dict[str, dict[str, int]]:
    """The parser's DOI and arXiv id of each PDF against the identity truth: per kind, papers that have one
    (truth), found (the parser gave one), correct, wrong (another id), spurious (an id for a paper with none)."""
    truth = json.loads(IDENTITY_TRUTH_PATH.read_text())
    out = {kind: dict.fromkeys(("truth", "found", "correct", "wrong", "spurious"), 0) for kind in ("doi", "arxiv")}
    for name, want in truth.items():
        path = shared / "corpus" / name
        if name.startswith("_") or not path.exists():
            continue
        got = parse_or_reason(path, 60)
        for kind, attr in (("doi", "doi"), ("arxiv", "arxiv_id")):
            have = None if isinstance(got, str) else getattr(got, attr)
            have = have.lower() if have and kind == "doi" else have
            row = out[kind]
            if want[kind]:
                row["truth"] += 1
                row["found"] += have is not None
                row["correct"] += have == want[kind]
            elif have is not None:
                row["spurious"] += 1
            if have is not None and have != want[kind]:
                row["wrong"] += bool(want[kind])
                if verbose:
                    print(f"  {name}: {kind} {have!r}, truth {want[kind]!r}")
            elif verbose and want[kind] and have is None:
                print(f"  {name}: {kind} not found, truth {want[kind]!r}")
    return out


def derive_identity_truth(shared: Path) -> None:
    """Candidates for the identity truth, read with pypdf (not the parser's pdfium): every DOI-, arXiv- and
    old-style-arXiv-looking string of page 1 in all four orientations (with the next line, for wrapped ones),
    and the Info dictionary / catalog XMP values that mention a DOI or arXiv. Check each by hand."""
    from pypdf import PdfReader  # local: pypdf, off the bench's --help path

    looks = re.compile(r"(?i)(?:doi|10\.\d{4,9}/|arxiv|\b[a-z-]+(?:\.[A-Z]{2})?/\d{7}\b)[^\n]{0,60}(?:\n[^\n]{0,20})?")
    for folder in FOLDERS:
        for path in sorted((shared / "corpus" / folder).glob("*.pdf")):
            r = PdfReader(str(path))
            text = r.pages[0].extract_text(orientations=(0, 90, 180, 270)) or ""
            info = {k: str(v) for k, v in (r.metadata or {}).items() if re.search(r"(?i)doi|arxiv", f"{k} {v}")}
            xmp: dict[str, object] = {}
            try:
                x = r.xmp_metadata
                if x is not None:
                    xmp = {k: v for k, v in {"dc:identifier": x.dc_identifier,
                                             "custom": x.custom_properties}.items() if v}
            except Exception as e:  # a damaged packet
                xmp = {"error": str(e)}
            print(f"{folder}/{path.name}:\n  page 1: {[m.group(0) for m in looks.finditer(text)][:6]}\n"
                  f"  Info: {info}\n  XMP: {xmp}")


def throughput(shared: Path, rounds: int, max_pages: int) -> dict[str, float]:
    """Raw extraction and parse_pdf of each file timed back to back (raw, then parse, file by file), the
    best of `rounds` per file: on a shared machine the load drifts over minutes, and timing the two
    side by side keeps that drift out of the ratio. The 1-minute load average is recorded too."""
    files = [p for folder in FOLDERS for p in sorted((shared / "corpus" / folder).glob("*.pdf"))]
    pages = sum(min(len(pdfium.PdfDocument(str(f))), max_pages) for f in files)
    raw_t = dict.fromkeys(files, float("inf"))
    parse_t = dict.fromkeys(files, float("inf"))
    layout_t = dict.fromkeys(files, float("inf"))
    load_start = os.getloadavg()[0]
    for _ in range(rounds):
        for f in files:
            t0 = time.perf_counter()
            raw_extract(f, max_pages)
            t1 = time.perf_counter()
            parse_or_reason(f, max_pages)
            t2 = time.perf_counter()
            layout_only(f, max_pages)
            t3 = time.perf_counter()
            raw_t[f] = min(raw_t[f], t1 - t0)
            parse_t[f] = min(parse_t[f], t2 - t1)
            layout_t[f] = min(layout_t[f], t3 - t2)
    raw_s, parse_s, layout_s = sum(raw_t.values()), sum(parse_t.values()), sum(layout_t.values())
    return {
        "files": len(files),
        "pages": pages,
        "raw_s": raw_s,
        "parse_s": parse_s,
        "raw_pages_per_s": pages / raw_s,
        "parse_pages_per_s": pages / parse_s,
        "ratio": parse_s / raw_s,
        "layout_s": layout_s,
        "layout_ratio": layout_s / raw_s,
        "load_1min_start": load_start,
        "load_1min_end": os.getloadavg()[0],
        "cpus": os.cpu_count() or 0,
    }


def ingest_run(shared: Path, max_pages: int) -> dict[str, float]:
    """Wall time of `motivgraph ingest run corpus/pdf --parser pdf` into a fresh data dir (its embedded
    graph server stopped after), and the in-process parse_pdf time of the same PDFs right after it."""
    folder = shared / "corpus" / "pdf"
    files = sorted(folder.glob("*.pdf"))
    exe = Path(sys.executable).with_name("motivgraph")
    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as d:
        env = {**os.environ, "MOTIVGRAPH_DATA_DIR": d, "HF_HUB_OFFLINE": "1"}
        env.pop("MOTIVGRAPH_LLM_MODEL", None)  # the offline extractor, whatever the caller's shell sets
        load_start = os.getloadavg()[0]
        t0 = time.perf_counter()
        done = subprocess.run([str(exe), "ingest", "run", str(folder), "--parser", "pdf", "--json"], env=env,
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        try:
            EmbeddedFalkorDB(Path(d)).stop(timeout_s=30)
        except Exception as e:  # a server that never started has nothing to stop
            print(f"  (embedded graph server: {e})")
    if done.returncode not in (0, 1):  # 1: the text-less PDF of the corpus failed, as it should
        raise SystemExit(f"ingest exited {done.returncode}: {done.stderr[-2000:]}")
    summary = json.loads(done.stdout).get("summary", {})
    t1 = time.perf_counter()
    for f in files:
        parse_or_reason(f, max_pages)
    parse_s = time.perf_counter() - t1
    return {
        "files": len(files),
        "ok": summary.get("ok", 0),
        "failed": summary.get("failed", 0),
        "ingest_wall_s": wall,
        "parse_in_process_s": parse_s,
        "parse_share": parse_s / wall,
        "load_1min_start": load_start,
        "load_1min_end": os.getloadavg()[0],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--max-pages", type=int, default=60)
    ap.add_argument("--json", type=Path)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every paper with a wrong field")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--speed-only", action="store_true", help="skip the quality and coverage figures")
    ap.add_argument("--heldout-only", action="store_true", help="only the in-sample / held-out table")
    ap.add_argument("--ingest", action="store_true", help="also time the offline CLI ingest of corpus/pdf")
    ap.add_argument("--derive-identity-truth", action="store_true",
                    help="list the DOI/arXiv candidates pypdf reads on page 1 and in the metadata, then stop")
    args = ap.parse_args()
    if not (args.shared / "corpus").is_dir():
        raise SystemExit(f"shared corpus not found at {args.shared}/corpus")
    if args.derive_identity_truth:
        derive_identity_truth(args.shared)
        return
    result: dict[str, object] = {}
    if not args.speed_only:
        result["side_by_side"] = side_by_side(args.shared, args.verbose)
    if not args.speed_only and not args.heldout_only:
        result.update(quality_and_coverage(args.shared, args.verbose))
    if not args.no_speed:
        t = throughput(args.shared, args.rounds, args.max_pages)
        print(
            f"throughput on {t['files']:.0f} files / {t['pages']:.0f} pages (one process, best of {args.rounds}): "
            f"raw pypdfium2 {t['raw_s']:.2f}s ({t['raw_pages_per_s']:.0f} pages/s), "
            f"parse_pdf {t['parse_s']:.2f}s ({t['parse_pages_per_s']:.0f} pages/s), ratio {t['ratio']:.2f}x "
            f"(layout pass alone {t['layout_s']:.2f}s, {t['layout_ratio']:.2f}x raw); "
            f"load average {t['load_1min_start']:.1f} -> {t['load_1min_end']:.1f} on {t['cpus']:.0f} CPUs"
        )
        result["throughput"] = t
    if args.ingest:
        g = ingest_run(args.shared, args.max_pages)
        print(
            f"offline ingest of corpus/pdf ({g['files']:.0f} PDFs: {g['ok']:.0f} ok, {g['failed']:.0f} failed; "
            f"CLI, fresh data dir, no LLM): {g['ingest_wall_s']:.1f}s wall; parse_pdf of the same PDFs in "
            f"process {g['parse_in_process_s']:.1f}s = {100 * g['parse_share']:.0f}% of it; "
            f"load average {g['load_1min_start']:.1f} -> {g['load_1min_end']:.1f}"
        )
        result["ingest"] = g
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


def quality_and_coverage(shared: Path, verbose: bool) -> dict[str, object]:
    q = quality(shared, verbose)
    n = q["n"]
    print(f"parse quality on {n} hand-checked papers ({TRUTH_PATH.name}):")
    for f in FIELDS:
        print(f"  {f:15s} {q['correct'][f]:3d}/{n}")
    cov = coverage(shared)
    ok = sum(v == "ok" for v in cov.values())
    reasons = {k: v for k, v in cov.items() if v.startswith(("reason", "not a paper"))}
    bad = {k: v for k, v in cov.items() if v != "ok" and k not in reasons}
    print(f"coverage: {ok}/{len(cov)} with a title and >=1 section, {len(reasons)} with a recorded reason "
          f"({sum(v.startswith('not a paper') for v in reasons.values())} judged not a paper), {len(bad)} neither")
    for k, v in {**reasons, **bad}.items():
        print(f"  {k}: {v[:150]}")
    pages = single_pages(shared, verbose)
    print(f"single pages parsed alone: {pages['inner_no_paper']}/{pages['inner']} mid-paper pages judged not a "
          f"paper, {pages['first_paper']}/{pages['first']} first pages still a paper")
    ids = identifiers(shared, verbose)
    print(f"identifiers ({IDENTITY_TRUTH_PATH.name}; found / correct of the papers that have one):")
    for kind, row in ids.items():
        print(f"  {kind:6s} found {row['found']}/{row['truth']}, correct {row['correct']}/{row['truth']}, "
              f"wrong {row['wrong']}, given to papers without one {row['spurious']}")
    refs = reference_recall(shared, verbose)
    print(f"references ({REFERENCE_TRUTH_PATH.name}, counted by hand; first/last = the list's first and last entry "
          "matched by first author and year):")
    for style, row in refs.items():
        print(f"  {style:15s} {row['papers']:2d} papers: found {row['found']}/{row['truth']} entries, count within "
              f"10 % on {row['close']}/{row['papers']}, first/last entries matched {row['ends']}/{row['anchors']}, "
              f"their titles {row['titles']}/{row['titled']}")
    return {"quality": q, "coverage": cov, "identifiers": ids, "references": refs}


REFERENCE_TRUTH_PATH = REPO / "tests" / "fixtures" / "ingest" / "reference_truth.json"


def in_sample(shared: Path) -> dict[str, tuple[int, int]]:
    """The five side-by-side figures on the shared corpus, as (right, of): title, abstract boundary (starts with the
    truth's first words and does not swallow the body's), first section, references within 10 % (the hand-counted
    lists), real papers judged "not a paper" (every PDF of the corpus is a real paper)."""
    q = quality(shared, False)
    n = q["n"]
    c = q["correct"]
    truth = json.loads(TRUTH_PATH.read_text())
    boundary = 0
    for folder in FOLDERS:
        for name, entry in truth[folder].items():
            got = parse_or_reason(shared / "corpus" / folder / name, 60)
            if not isinstance(got, str):
                s = truth_scores(got, entry)
                boundary += s["abstract"] and s["abstract_clean"]
    refs = json.loads(REFERENCE_TRUTH_PATH.read_text())["papers"]
    close = 0
    for name, want in refs.items():
        got = parse_or_reason(shared / "corpus" / name, 60)
        close += not isinstance(got, str) and abs(len(got.references) - want["count"]) <= 0.1 * want["count"]
    cov = coverage(shared)
    judged = sum(v.startswith("not a paper") for v in cov.values())
    return {
        "title": (c["title"], n),
        "abstract": (boundary, n),
        "first_section": (c["first_section"], n),
        "references": (close, len(refs)),
        "not_a_paper": (judged, len(cov)),
    }


def side_by_side(shared: Path, verbose: bool) -> dict[str, object]:
    """In-sample and held-out figures in one table (the held-out set is typeset first when pdflatex is there)."""
    sys.path.insert(0, str(REPO))
    from bench.heldout.generate import NoTeX, ensure_set  # local: run as a script, REPO is on sys.path only now
    from bench.heldout.score import TARGETS, run  # local: run as a script, REPO is on sys.path only now

    inside = in_sample(shared)
    held: dict[str, Any] = {}
    try:
        folder = ensure_set()
    except NoTeX as e:
        print(f"held-out set not available: {e}")
        folder = None
    details: list[str] = []
    if folder is not None:
        held = {"dev": run(folder, "dev", details if verbose else None), "frozen": run(folder, "frozen")}
    print(f"offline parser, in-sample (shared corpus) vs held-out (typeset, {folder or 'not built'}); "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  {'field':30s} {'in-sample':>12s} {'held-out dev':>14s} {'held-out frozen':>16s}  target (held-out)")
    rows = {}
    for f, label in (("title", "title"), ("abstract", "abstract boundary"), ("first_section", "first section"),
                     ("references", "references within 10 %"), ("not_a_paper", 'real papers "not a paper"')):
        a, n = inside[f]
        cells = [f"{a}/{n}"]
        row: dict[str, Any] = {"in_sample": [a, n]}
        for split, r in held.items():
            right = r.right[f] if f != "not_a_paper" else r.n - r.right[f]
            cells.append(f"{right}/{r.n}")
            row[split] = [right, r.n]
        target = "0" if f == "not_a_paper" else f">= {100 * TARGETS[f]:.0f} %"
        dev, frozen = (cells[1:2] or ["-"])[0], (cells[2:3] or ["-"])[0]
        print(f"  {label:30s} {cells[0]:>12s} {dev:>14s} {frozen:>16s}  {target}")
        rows[f] = row
    for line in details:
        print("  dev " + line)
    return rows


def reference_recall(shared: Path, verbose: bool) -> dict[str, dict[str, int]]:
    """The parser's reference lists against the hand-counted truth, per list style: entries in the truth and
    found, papers whose count is within 10 %, the first and last entries matched one by one (the parsed
    list's first/last entry has the truth's first-author surname in its first author, and its year), and their
    titles (the parsed title starts with the truth's first words)."""
    def fold(s: str) -> str:
        s = unicodedata.normalize("NFKD", s)
        return re.sub(r"[^a-z ]", "", "".join(c for c in s if not unicodedata.combining(c)).lower())

    def matches(ref: Any, want: dict[str, Any]) -> bool:
        first = fold(ref.authors[0]) if ref.authors else ""
        return bool(first) and fold(want["surname"]) in first and want["year"] in (None, ref.year)

    truth = json.loads(REFERENCE_TRUTH_PATH.read_text())["papers"]
    rows: dict[str, dict[str, int]] = {}
    for name, want in truth.items():
        path = shared / "corpus" / name
        if not path.exists():
            print(f"  missing {path}: skipped")
            continue
        got = parse_or_reason(path, 60)
        refs = [] if isinstance(got, str) else got.references
        fields = ("papers", "truth", "found", "close", "anchors", "ends", "titled", "titles")
        row = rows.setdefault(want["style"], dict.fromkeys(fields, 0))
        row["papers"] += 1
        row["truth"] += want["count"]
        row["found"] += len(refs)
        row["close"] += abs(len(refs) - want["count"]) <= 0.1 * want["count"]
        ends = [bool(refs) and matches(refs[0], want["first"]), bool(refs) and matches(refs[-1], want["last"])]
        row["anchors"] += 2
        row["ends"] += sum(ends)
        # the title's first words as printed, where the entry prints a title
        for k, end in ((0, want["first"]), (-1, want["last"])):
            if end.get("title"):
                row["titled"] += 1
                row["titles"] += bool(refs) and fold(refs[k].title).replace(" ", "").startswith(
                    fold(end["title"]).replace(" ", "")
                )
        if verbose and (not all(ends) or len(refs) != want["count"]):
            a, b = (refs[0], refs[-1]) if refs else (None, None)
            got_ends = f" ({a.authors[:1]}, {a.year} / {b.authors[:1]}, {b.year})" if a and b else ""
            print(f"  {name}: {len(refs)} of {want['count']}; first {ends[0]} last {ends[1]}{got_ends}")
    return rows


if __name__ == "__main__":
    main()
