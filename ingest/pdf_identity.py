"""A PDF's own identifiers: the DOI and arXiv id of the paper, from the whole of page 1 (its running text,
header and footer, and text set in another direction such as arXiv's margin stamp) and from the file's
metadata (XMP `prism:doi`/`pdfx:doi`/`dc:identifier`, the Info dictionary's DOI keys and its Subject),
told apart from the ids of works that page 1 cites.

Each id found gets points for what speaks for it being the paper's own:
- in the metadata: a DOI-named field (+6), `dc:identifier`/`prism:url` (+5) of the document's XMP (one that
  describes a PDF; 5 fewer from an embedded image's), a DOI-named Info key (+6), Info Subject/Keywords (+4),
  one more when several sources agree;
- on page 1 (+1), announced by a label (`doi:`, `https://doi.org/`, `DOI`, +1), in the header or footer band
  or above the abstract (+2), beside publication details (©, received, published, ISSN, cite as..., +1),
  repeated in the header/footer band of the following pages (+3), found both on the page and in the
  metadata (+2);
- arXiv's stamp ("arXiv:2101.01234v2 [cs.CL] 5 Jan 2021", in any direction, +6);
and loses points for citation context (a reference entry, "et al.", "preprint", "In Proceedings", or a link to
data, code or a supplement on the same line, -3) or
a place under the page's References heading, in its column (-4). The best id with at least 3 points is the paper's;
among DOIs that are a prefix of one another the longest stands (a DOI cut at a line end is not an id).
"""

from __future__ import annotations

import html
import logging
import mmap
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motivgraph.ingest.identity import doi_or_arxiv, find_arxiv_ids, find_dois, longest_dois, normalize_arxiv

if TYPE_CHECKING:
    from motivgraph.ingest.pdf_layout import Line

log = logging.getLogger(__name__)

MIN_POINTS = 3
TOP_BAND = 0.2  # share of the page height at the top that counts as header
BOTTOM_BAND = 0.2  # ... and at the bottom as footer
_MAX_META_STREAMS = 40
_MAX_META_BYTES = 2 << 20

_REF_HEAD = re.compile(r"^\s*(?:\d{1,2}\.?\s+|[IVX]{1,4}\.?\s+)?(references|bibliography|literature cited|works cited)"
                       r"\s*$", re.I)
_BODY_START = re.compile(r"^\s*(abstract\b|summary\b|(1\.?|I\.)\s+introduction\b|introduction\s*$)", re.I)
_CITATION = re.compile(
    r"^\s*(\[\d{1,3}\]|\d{1,3}\.\s+[A-Z][a-z]+,?\s+[A-Z])|\bet al\b|\bpreprint\b|\bcorr\b|\bin:?\s+proc|"
    r"\bproceedings of\b|\bpp\.\s*\d|\bretrieved from\b|\bavailable (at|from)\b|"
    # a dataset's, code's or supplement's DOI
    r"\b(data ?sets?|data|code|software|supplementary|supporting information|repository)\b",
    re.I,
)
_OWN_CITATION = re.compile(r"\b(citation|cite this|to cite|please cite|cite as|how to cite)\b", re.I)
_PUBLICATION = re.compile(
    r"©|\bcopyright\b|\breceived\b|\baccepted\b|\bpublished\b|\bissn\b|\bisbn\b|\bopen access\b|"
    r"\blicen[cs]e\b|\bcorrespond|\bvol(ume)?\.?\s*\d|\bjournal\b|\barticle\b|\beditor\b|\bcitation\b",
    re.I,
)
_INFO_DOI_KEY = re.compile(rb"/([A-Za-z0-9_.#\-]{0,40}[Dd][Oo][Ii][A-Za-z0-9_.#\-]{0,40})\s*[(<]")
_NOT_OWN_KEY = re.compile(r"journal|issn|isbn|series|book|parent|related|ref", re.I)
_XMP_PACKET = re.compile(rb"<x:xmpmeta\b.*?</x:xmpmeta\s*>", re.S)
_META_DICT = re.compile(rb"/Type\s*/Metadata\b")
_XMP_DOI_FIELD = re.compile(r"<(\w+:doi)\b[^>]*>(.*?)</\1\s*>|\b(\w+:doi)\s*=\s*\"([^\"]*)\"", re.I | re.S)
_XMP_ID_FIELD = re.compile(r"<(dc:identifier|prism:url)\b[^>]*>(.*?)</\1\s*>|\b(dc:identifier|prism:url)\s*=\s*"
                           r"\"([^\"]*)\"", re.I | re.S)
_TAGS = re.compile(r"<[^>]+>")
_PDF_PACKET = re.compile(r"application/pdf|\bpdf:Producer\b|\bpdfx:", re.I)


@dataclass
class MetaValue:
    """One metadata value that may hold an id: where it came from and how much that says (points)."""

    source: str
    value: str
    points: int


@dataclass
class Candidate:
    kind: str  # "doi" or "arxiv"
    value: str
    points: int = 0
    why: list[str] = field(default_factory=list)

    def add(self, points: int, why: str) -> None:
        self.points += points
        self.why.append(f"{why} {points:+d}")


@dataclass
class PdfIds:
    """The paper's own DOI and arXiv id (None when none is trusted), and every candidate with its points."""

    doi: str | None = None
    arxiv_id: str | None = None
    candidates: list[Candidate] = field(default_factory=list)


# -- metadata -------------------------------------------------------------------------------------------------------


def _xmp_packets(data: Any) -> Iterable[str]:
    """XMP packets of the file: plain ones, and metadata streams compressed with Flate."""
    n = 0
    for m in _XMP_PACKET.finditer(data):
        n += 1
        if n > _MAX_META_STREAMS:
            return
        yield m.group(0)[:_MAX_META_BYTES].decode("utf-8", "replace")
    for m in _META_DICT.finditer(data):
        n += 1
        if n > 2 * _MAX_META_STREAMS:
            return
        head_start = data.rfind(b"obj", max(0, m.start() - 600), m.start())
        s = data.find(b"stream", m.end(), m.end() + 600)
        if s < 0 or head_start < 0:
            continue
        head = bytes(data[head_start:s])
        if b"FlateDecode" not in head:
            continue  # a plain packet is found above
        start = s + len(b"stream")
        start += 2 if data[start : start + 2] == b"\r\n" else 1
        end = data.find(b"endstream", start, start + _MAX_META_BYTES)
        if end < 0:
            continue
        try:
            raw = zlib.decompressobj().decompress(bytes(data[start:end]), _MAX_META_BYTES)
        except zlib.error:
            continue
        for p in _XMP_PACKET.finditer(raw):
            yield p.group(0).decode("utf-8", "replace")


def _field_values(pattern: re.Pattern[str], xmp: str) -> Iterable[tuple[str, str]]:
    for m in pattern.finditer(xmp):
        name = m.group(1) or m.group(3)
        value = m.group(2) if m.group(1) else m.group(4)
        for part in _TAGS.sub(" ", value or "").split():
            yield name.lower(), html.unescape(part)


def read_metadata(doc: Any, path: str | Path) -> list[MetaValue]:
    """Values of the PDF's metadata that may carry its ids: XMP DOI fields and identifiers, Info dictionary
    keys named for a DOI (not a journal's or a series'), and the Info Subject and Keywords. Never raises."""
    out: list[MetaValue] = []
    info_keys = {"doi", "DOI"}
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            for xmp in _xmp_packets(data):
                # a packet that describes a PDF (its format, its producer) is the document's; others belong
                # to an embedded image or page and may name the source of a reused figure
                own = 0 if _PDF_PACKET.search(xmp) else 5
                for name, value in _field_values(_XMP_DOI_FIELD, xmp):
                    out.append(MetaValue(f"XMP {name}", value, 6 - own))
                for name, value in _field_values(_XMP_ID_FIELD, xmp):
                    out.append(MetaValue(f"XMP {name}", value, 5 - own))
            for m in _INFO_DOI_KEY.finditer(data):
                info_keys.add(m.group(1).decode("latin-1"))
                if len(info_keys) > 20:
                    break
    except (OSError, ValueError) as e:  # an empty file cannot be mapped; an unreadable one has no metadata
        log.debug("no metadata scan of %s: %s", path, e)
    for key in sorted(info_keys):
        if _NOT_OWN_KEY.search(key):
            continue
        v = _info_value(doc, key)
        if v:
            out.append(MetaValue(f"Info {key}", v, 6))
    for key in ("Subject", "Keywords"):
        v = _info_value(doc, key)
        if v:
            out.append(MetaValue(f"Info {key}", v, 4))
    return out


def _info_value(doc: Any, key: str) -> str:
    try:
        return str(doc.get_metadata_value(key) or "").strip()
    except Exception:  # pdfium refuses a key or a damaged Info dictionary: no value
        return ""


# -- page 1 ---------------------------------------------------------------------------------------------------------


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos)


def _lines_with(value: str, lines0: Sequence[Line]) -> list[Line]:
    """Page 1's layout lines that hold the id's first characters (none for text set in another direction)."""
    probe = value[: min(len(value), 16)].lower()
    return [ln for ln in lines0 if probe in ln.text.lower().replace(" ", "")]


def _depth(ln: Line) -> float:
    """Where a line sits on its page: 0 at the top, 1 at the bottom."""
    return 1.0 - (ln.y0 + ln.y1) / 2 / (ln.page_height or 792.0)


def _below(ln: Line, head: Line) -> bool:
    """A line under a heading in the heading's column (the entries of a References list)."""
    w = head.page_width or 612.0
    return ln.y1 <= head.y0 + 1 and abs(ln.x0 - head.x0) < 0.25 * w


def find_ids(page_text: str, lines0: Sequence[Line], other_bands: str, meta: Sequence[MetaValue]) -> PdfIds:
    """The paper's own DOI and arXiv id from page 1's text (pdfium's text of the whole page, every direction),
    its layout lines (positions), the header/footer text of the next pages and the metadata values."""
    text = page_text.replace("\r\n", "\n").replace("\r", "\n")
    rows = text.split("\n")
    body_at = next((i for i, r in enumerate(rows) if _BODY_START.match(r)), len(rows))
    ref_head = next((ln for ln in lines0 if _REF_HEAD.match(ln.text)), None)
    bands = other_bands.lower().replace(" ", "")
    cands: dict[tuple[str, str], Candidate] = {}

    def cand(kind: str, value: str) -> Candidate:
        return cands.setdefault((kind, value), Candidate(kind, value))

    # metadata: the strongest source of an id counts, +1 when another source agrees
    meta_src: dict[tuple[str, str], list[MetaValue]] = {}
    for mv in meta:
        found: set[tuple[str, str]] = set()
        for dm in find_dois(mv.value):
            doi, arx = doi_or_arxiv(dm.doi, None)
            found.add(("doi", doi) if doi else ("arxiv", arx or ""))
        a = normalize_arxiv(mv.value) if mv.points >= 5 else None
        a = a or next((x.arxiv_id for x in find_arxiv_ids(mv.value)), None)
        if a:
            found.add(("arxiv", a))
        for key in found:
            if key[1]:
                meta_src.setdefault(key, []).append(mv)
    for key, srcs in meta_src.items():
        top = max(srcs, key=lambda mv: mv.points)
        cand(*key).add(top.points + (1 if len({mv.source for mv in srcs}) > 1 else 0),
                       "metadata " + ", ".join(sorted({mv.source for mv in srcs})))
    meta_ids = set(meta_src)

    # page 1: DOIs (arXiv's DOI form counts as its arXiv id)
    occurrences: dict[tuple[str, str], list[tuple[int, bool]]] = {}
    for dm in find_dois(text):
        doi, arx = doi_or_arxiv(dm.doi, None)
        key = ("doi", doi) if doi else ("arxiv", arx or "")
        if key[1]:
            occurrences.setdefault(key, []).append((_line_of(text, dm.start), dm.labeled))
    for am in find_arxiv_ids(text):
        key = ("arxiv", am.arxiv_id)
        occurrences.setdefault(key, []).append((_line_of(text, am.start), am.labeled))
        if am.stamp and not any(w.startswith("arXiv stamp") for w in cand(*key).why):
            cand(*key).add(6, "arXiv stamp")
    for key, occ in occurrences.items():
        c = cand(*key)
        c.add(1, "on page 1")
        if any(lab for _, lab in occ):
            c.add(1, "labelled")
        held = _lines_with(key[1], lines0)
        in_band = any(_depth(ln) < TOP_BAND or _depth(ln) > 1 - BOTTOM_BAND for ln in held)
        if in_band or any(i < body_at for i, _ in occ):
            c.add(2, "header/footer or front matter")
        near = ["\n".join(rows[max(0, i - 3) : i + 2]) for i, _ in occ]
        if any(_PUBLICATION.search(t) for t in near):
            c.add(1, "publication details")
        if key[1].lower().replace(" ", "") in bands:
            c.add(3, "running header/footer")
        if key in meta_ids:
            c.add(2, "page agrees with metadata")
        cited = [bool(_CITATION.search(rows[i]) and not _OWN_CITATION.search("\n".join(rows[max(0, i - 3) : i + 1])))
                 for i, _ in occ]
        if all(cited):
            c.add(-3, "citation context")
        if ref_head is not None and held and not in_band and all(_below(ln, ref_head) for ln in held):
            c.add(-4, "after References")

    # the longest of DOIs that prefix one another stands; a shorter one gives it its points
    dois = {v for k, v in cands if k == "doi"}
    keep = longest_dois(dois)
    for d in dois - keep:
        longer = max((o for o in keep if o.startswith(d)), key=len)
        short = cands.pop(("doi", d))
        if short.points > cands[("doi", longer)].points:
            cands[("doi", longer)].add(short.points - cands[("doi", longer)].points, f"also cut short as {d}")
    ranked = sorted(cands.values(), key=lambda c: -c.points)
    out = PdfIds(candidates=ranked)
    best_doi = next((c for c in ranked if c.kind == "doi"), None)
    best_arxiv = next((c for c in ranked if c.kind == "arxiv"), None)
    if best_doi and best_doi.points >= MIN_POINTS:
        out.doi = best_doi.value
    if best_arxiv and best_arxiv.points >= MIN_POINTS:
        out.arxiv_id = best_arxiv.value
    return out


__all__ = ["Candidate", "MetaValue", "PdfIds", "find_ids", "read_metadata"]
