"""Paper identity: the one place that says which paper a document is, for every input kind (PDF, GROBID
TEI, JSON records).

Identifier syntax (checked, never guessed):
- a DOI is `10.<registrant>/<suffix>`: a registrant of 4-9 digits (optionally `.sub`), a suffix with at
  least one digit that ends in a letter or digit. `10.1371/journal` (a journal prefix, or a DOI cut at a
  line break) and `10.1016/j.` are not DOIs; nor is `10.1002/(ISSN)1098-1136` (a journal's DOI). DOIs are
  case-insensitive and kept lower-case. arXiv's own DOIs (`10.48550/arXiv.2101.01234`) are arXiv ids.
- an arXiv id is new-style `YYMM.NNNN` (2007-2014) or `YYMM.NNNNN` (2015 on) with a real month, or
  old-style `archive(.XX)/YYMMNNN` (1991-2007) with one of arXiv's archive names; a version suffix
  (`v2`) is accepted and dropped: versions of a paper are one paper.

The paper id (`stable_paper_id`) is `doi:<doi>` when the paper has one, else `arxiv:<id>`, else the
file's `sha256:`. Input kinds that know other ids (a Semantic Scholar id, a record id) add their own
forms in the same spirit (`ingest.paper_json.stable_id`).

Cross-kind identity: a paper is known by its keys — its DOI, its arXiv id, its own paper id and a
*title key* (normalised title + first author's surname). `decide` (with the ledger's key table,
`Ledger.resolve_paper`) maps a document to the paper already stored under any of its keys, so the same
paper met as a JSON record and as a PDF is one graph paper; a document whose title key matches a paper
with a conflicting id of the same kind (two different DOIs, two different arXiv ids), or whose ids name
two different stored papers, is a probable duplicate: reported, never merged.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import unquote

from motivgraph.errors import GraphError
from motivgraph.graph.identity import normalize_name

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore

# -- DOIs ------------------------------------------------------------------------------------------------------------

# A DOI in running text: not glued to a number before it ("ISBN 0-10.1234/" is not one); the suffix runs
# to the next whitespace or quote and is trimmed afterwards.
_DOI_IN_TEXT = re.compile(r"(?<![\d.\-])10\.\d{4,9}(?:\.\d+)*/[^\s\"'“”‘’«»]+")
_DOI_FULL = re.compile(r"10\.\d{4,9}(?:\.\d+)*/(?P<suffix>\S+)")
# labels that say "this is a DOI" just before it (doi:, DOI, https://doi.org/, Digital Object Identifier)
_DOI_LABEL = re.compile(
    r"(?:\bdoi\s*[:.]?\s*|\bdoi\.org/|\bdx\.doi\.org/|\bdigital object identifier\s*:?\s*|\bdoi\s*=\s*)$", re.I
)
# what pdfium and friends put for a hyphen at a line end, and invisible joiners
_SOFT = str.maketrans({"\ufffe": "-", "\x02": "-", "\u00ad": "-", "\u2010": "-", "\u2011": "-", "\u200b": None,
                       "\ufeff": None})
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_TRAIL = ".,;:!?*'\"”’"
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)
# a line-end fragment ending like this was cut mid-token (a period may end a sentence instead)
_HARD_CUT = re.compile(r"[/\-_:;(]$")
_CONTINUES = re.compile(r"^[./\-_:;)]")


def _wrapped(raw: str, nxt: str) -> bool:
    """Whether a DOI fragment `raw` at a line end goes on in `nxt`, the next line's first word: the fragment
    is no DOI by itself, or ends in a separator ('/', '-', '_'), or ends in a period followed by a word in
    lower case or a number (a sentence would go on in capitals), or the next line starts with a separator."""
    if not is_doi(_trim_doi(raw).lower()) or _HARD_CUT.search(raw) or _CONTINUES.match(nxt):
        return True
    return raw.endswith(".") and (nxt[:1].islower() or nxt[:1].isdigit())


def _trim_doi(raw: str) -> str:
    """A DOI as found in text without what follows it: trailing punctuation, a closing bracket it does not
    open, and '<...' unless it is a SICI DOI (whose suffix has '<' and '>')."""
    s = unquote(raw) if "%" in raw else raw
    s = s.translate(_SOFT)
    if "<" in s and "(sici)" not in s.lower():
        s = s.split("<", 1)[0]
    while s:
        last = s[-1]
        if last in _TRAIL or (last in _CLOSERS and s.count(last) > s.count(_CLOSERS[last])):
            s = s[:-1]
        else:
            break
    return s


def is_doi(value: str) -> bool:
    """Whether `value` (lower-case, trimmed) is a complete DOI by the syntax above."""
    m = _DOI_FULL.fullmatch(value)
    if not m:
        return False
    suffix = m.group("suffix")
    return (
        any(ch.isdigit() for ch in suffix)
        and suffix[-1].isalnum()
        and not suffix.startswith("(issn)")
        and "doi.org/" not in suffix
    )


def normalize_doi(value: str | None) -> str | None:
    """The DOI in a value that is one (`10.…`, `doi:10.…`, `https://doi.org/10.…`), lower-case; None when
    the value holds no complete DOI. The first DOI in the value is the one taken."""
    if not value:
        return None
    if "%2f" in value.lower():
        value = unquote(value)  # a URL-encoded DOI (https://doi.org/10.1234%2Fabc)
    m = _DOI_IN_TEXT.search(value.translate(_SOFT))
    if not m:
        return None
    doi = _trim_doi(m.group(0)).lower()
    return doi if is_doi(doi) else None


def clean_doi(value: str | None) -> str | None:
    """The DOI in a field's value, or None (kept for callers of the old name: see `normalize_doi`)."""
    return normalize_doi(value)


@dataclass
class DoiMatch:
    """A DOI found in a text: the DOI, where it starts and ends, whether a label ("doi:", "https://doi.org/")
    announces it, and whether it was completed from the next line (a DOI wrapped across lines)."""

    doi: str
    start: int
    end: int
    labeled: bool
    joined: bool = False


def find_dois(text: str) -> list[DoiMatch]:
    """Every complete DOI in a text of lines. A DOI cut at a line end (its fragment ends in '.', '/', '-'
    or is not a DOI by itself, or the next line starts with '.', '/' or '-') is joined with the first
    word of the next line; a fragment that is still no DOI is dropped. Where one DOI is a prefix of
    another found in the same text, the longer one stands (`longest_dois`)."""
    text = text.translate(_SOFT)
    out: list[DoiMatch] = []
    for m in _DOI_IN_TEXT.finditer(text):
        raw, start, end = m.group(0), m.start(), m.end()
        labeled = bool(_DOI_LABEL.search(text[max(0, start - 30) : start]))
        nl = re.match(r"[ \t]*\r?\n[ \t]*(\S+)", text[end:])
        if nl and _wrapped(raw, nl.group(1)):
            joined = _trim_doi(raw + nl.group(1)).lower()
            if is_doi(joined):
                out.append(DoiMatch(joined, start, end + nl.end(), labeled, joined=True))
                continue
            if _HARD_CUT.search(raw):
                continue  # cut mid-token and the next line does not make it whole: not an id
        doi = _trim_doi(raw).lower()
        if is_doi(doi):
            out.append(DoiMatch(doi, start, end, labeled))
    return out


def longest_dois(dois: Iterable[str]) -> set[str]:
    """The DOIs that are not a proper prefix of another one (a DOI cut short somewhere and whole elsewhere)."""
    found = set(dois)
    return {d for d in found if not any(o != d and o.startswith(d) for o in found)}


# -- arXiv ids -------------------------------------------------------------------------------------------------------

_OLD_ARCHIVES = (
    "acc-phys|adap-org|alg-geom|ao-sci|astro-ph|atom-ph|bayes-an|chao-dyn|chem-ph|cmp-lg|comp-gas|cond-mat|cs|"
    "dg-ga|funct-an|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|math|mtrl-th|nlin|nucl-ex|nucl-th|patt-sol|"
    "physics|plasm-ph|q-alg|q-bio|q-fin|quant-ph|solv-int|stat|supr-con"
)
_ARXIV_ID = (
    r"(?:(?P<new>(?P<nyymm>\d{4})\.(?P<nnum>\d{4,5}))"
    rf"|(?P<old>(?P<arch>(?:{_OLD_ARCHIVES}))(?P<subj>\.[A-Za-z]{{2}})?/(?P<oyymm>\d{{4}})\d{{3}}))"
    r"(?P<ver>v\d{1,3})?"
)
_ARXIV_ID_RE = re.compile(rf"(?<![\w.-]){_ARXIV_ID}(?![\w])", re.I)
_ARXIV_EXACT = re.compile(rf"{_ARXIV_ID}", re.I)
# "arXiv:2101.01234", "arXiv 2101.01234", "arxiv.org/abs/2101.01234", "arXiv.2101.01234" (its DOI form)
_ARXIV_LABEL = re.compile(r"\barxiv(?:\s*:\s*|\s+|\.org/(?:abs|pdf)/|\.)$", re.I)
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
# arXiv's margin stamp: "arXiv:2101.01234v2 [cs.CL] 5 Jan 2021" (old papers: "hep-ph/9412269 09 Dec 94")
_STAMP = re.compile(
    rf"^\s*(?:arxiv\s*:\s*)?(?P<id>\S+?)\s+(?:\[[A-Za-z.\-]+\]\s+)?\d{{1,2}}\s+(?:{_MONTHS})[a-z]*\.?\s+\d{{2,4}}\s*$",
    re.I,
)


_STAMP_COMPACT = re.compile(
    rf"arxiv:{_ARXIV_ID}\[[A-Za-z.\-]+\]\d{{1,2}}(?:{_MONTHS})[a-z]*\.?\d{{2,4}}", re.I
)


def _valid_arxiv(m: re.Match[str]) -> str | None:
    """The id without its version when the match is a real arXiv id (month 01-12, numbering of its era)."""
    if m.group("new"):
        yymm, num = m.group("nyymm"), m.group("nnum")
        if not 1 <= int(yymm[2:]) <= 12 or int(yymm) < 704:
            return None
        if (len(num) == 4) != (int(yymm) <= 1412):
            return None
        return m.group("new")
    yymm = m.group("oyymm")
    yy, mm = int(yymm[:2]), int(yymm[2:])
    if not 1 <= mm <= 12 or not (yy >= 91 or int(yymm) <= 703):
        return None
    subj = m.group("subj") or ""
    return f"{m.group('arch').lower()}{subj.upper() if subj else ''}/{m.group('old').rsplit('/', 1)[1]}"


def normalize_arxiv(value: str | None) -> str | None:
    """The arXiv id a value is (`2101.01234v2`, `arXiv:cs/0112017`, `https://arxiv.org/abs/…`, arXiv's DOI),
    without its version; None when it is not one."""
    if not value:
        return None
    v = value.strip()
    doi = _ARXIV_DOI.match(v.removeprefix("https://doi.org/").removeprefix("doi:"))
    if doi:
        v = doi.group(1)
    v = re.sub(r"^(?:https?://)?(?:www\.)?(?:export\.)?arxiv\.org/(?:abs|pdf)/", "", v, flags=re.I)
    v = re.sub(r"^arxiv\s*:\s*", "", v, flags=re.I).removesuffix(".pdf")
    m = _ARXIV_EXACT.fullmatch(v)
    return _valid_arxiv(m) if m else None


@dataclass
class ArxivMatch:
    arxiv_id: str
    start: int
    end: int
    labeled: bool  # "arXiv:" (or arxiv.org/abs/) right before it
    stamp: bool  # the whole line is arXiv's stamp: id, [category], date


def find_arxiv_ids(text: str) -> list[ArxivMatch]:
    """arXiv ids in a text of lines that are labelled as such ("arXiv:…", arxiv.org/abs/…), or that make up a
    line of arXiv's stamp form ("<id> [cat] 5 Jan 2021", the label optional). A bare number is no arXiv id."""
    out: list[ArxivMatch] = []
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
    for m in _ARXIV_ID_RE.finditer(text):
        aid = _valid_arxiv(m)
        if aid is None:
            continue
        labeled = bool(_ARXIV_LABEL.search(text[max(0, m.start() - 20) : m.start()]))
        ls = max(s for s in line_starts if s <= m.start())
        le = text.find("\n", m.end())
        line = text[ls : le if le >= 0 else len(text)]
        st = _STAMP.match(line)
        stamp = st is not None and st.group("id") == m.group(0)
        if labeled or stamp:
            out.append(ArxivMatch(aid, m.start(), m.end(), labeled, stamp))
    # a stamp whose characters were placed one by one comes out of a PDF with stray spaces
    # ("ar Xi v: 2101. 01234v2 [ cs. CL] 5 J an 2021"): read such a line with its spaces taken out
    stamped = {a.start for a in out if a.stamp}
    for ls in line_starts:
        le = text.find("\n", ls)
        le = le if le >= 0 else len(text)
        if any(ls <= st < le for st in stamped) or "[" not in text[ls:le]:
            continue
        cm = _STAMP_COMPACT.fullmatch(re.sub(r"\s+", "", text[ls:le]))
        aid = _valid_arxiv(cm) if cm else None
        if aid:
            out.append(ArxivMatch(aid, ls, le, True, True))
    return out


def find_arxiv_id(text: str) -> str | None:
    """The first labelled arXiv id in a text (kept for callers of the old name: see `find_arxiv_ids`)."""
    found = find_arxiv_ids(text)
    return found[0].arxiv_id if found else None


def doi_or_arxiv(doi: str | None, arxiv_id: str | None) -> tuple[str | None, str | None]:
    """(DOI, arXiv id) checked and normalised; arXiv's own DOI becomes the arXiv id."""
    d = normalize_doi(doi)
    a = normalize_arxiv(arxiv_id)
    if d and _ARXIV_DOI.match(d):
        a = a or normalize_arxiv(d)
        d = None
    return d, a


def stable_paper_id(doi: str | None, arxiv_id: str | None, sha256: str | None) -> str:
    """DOI when known, else arXiv id, else the file hash: the same PDF always gets the same id. The ids are
    checked (`normalize_doi`, `normalize_arxiv`): a cut or bare-prefix DOI is not used."""
    d, a = doi_or_arxiv(doi, arxiv_id)
    if d:
        return f"doi:{d}"
    if a:
        return f"arxiv:{a}"
    if sha256:
        return f"sha256:{sha256}"
    raise ValueError("a paper needs a DOI, an arXiv id or a sha256")


def resolve_paper_id(store: GraphStore, ident: str) -> str:
    """The graph's paper id for what a user typed (CLI and API alike): the id itself (doi:…, arxiv:…,
    sha256:…), a bare DOI, arXiv id or file sha256, or an unambiguous sha256 prefix (8+ characters).
    GraphError, naming the way out, otherwise."""
    text = ident.strip()
    if not text:
        raise GraphError("an empty paper id was given")
    low = text.lower()
    doi, arxiv = normalize_doi(text), normalize_arxiv(text)
    cands = [text, f"doi:{doi}" if doi else "", f"arxiv:{arxiv}" if arxiv else "",
             f"doi:{low}", f"arxiv:{text}", f"sha256:{low.removeprefix('sha256:')}"]
    for cand in dict.fromkeys(c for c in cands if c):
        if store.get_paper(cand) is not None:
            return cand
    prefix = low.removeprefix("sha256:")
    if len(prefix) >= 8:
        hits = sorted({p.paper_id for p in store.iter_papers() if (p.sha256 or "").lower().startswith(prefix)
                       or p.paper_id.lower().startswith(f"sha256:{prefix}")})
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise GraphError(f"{ident!r} matches {len(hits)} papers ({', '.join(hits[:5])}); give more of the id")
    raise GraphError(f"no paper {ident!r} in the graph; `motivgraph papers list` shows the paper ids")


# -- cross-kind identity ---------------------------------------------------------------------------------------------

MIN_TITLE_WORDS = 3
MIN_TITLE_CHARS = 15
_NAME_MARKS = re.compile(r"[\d*†‡§¶⋆∗☯✉#]+")


def _surname(author: str) -> str | None:
    a = _NAME_MARKS.sub(" ", unicodedata.normalize("NFKC", author)).strip(" ,.;")
    if not a:
        return None
    family = a.split(",", 1)[0] if "," in a else a
    try:
        words = normalize_name(family).split()
    except ValueError:
        return None
    if "," not in a:
        words = words[-1:]
    s = words[0] if words else ""
    return s if sum(ch.isalpha() for ch in s) >= 2 else None


def title_key(title: str, authors: Sequence[str]) -> str | None:
    """`title+author:<normalised title>|<first author's surname>`, or None when the title is too short to tell
    papers apart (under 3 words or 15 characters) or there is no first author."""
    if not title or not authors:
        return None
    try:
        t = normalize_name(title)
    except ValueError:
        return None
    if len(t.split()) < MIN_TITLE_WORDS or len(t) < MIN_TITLE_CHARS:
        return None
    s = _surname(authors[0])
    return f"title+author:{t}|{s}" if s else None


@dataclass
class PaperKeys:
    """What a document says it is: its paper id, its strong ids (`doi:…`, `arxiv:…`) and its title key."""

    paper_id: str
    strong: list[str] = field(default_factory=list)
    title: str | None = None

    @classmethod
    def of(cls, paper_id: str, doi: str | None, arxiv_id: str | None, title: str, authors: Sequence[str]
           ) -> PaperKeys:
        d, a = doi_or_arxiv(doi, arxiv_id)
        strong = [k for k in (f"doi:{d}" if d else None, f"arxiv:{a}" if a else None) if k]
        return cls(paper_id, strong, title_key(title, authors))


@dataclass
class Resolution:
    """Which paper a document is: `paper_id` (its own id, or the stored paper it joins: `merged_into`, found
    by the key `via`), and the probable duplicates it was kept apart from, each described."""

    paper_id: str
    merged_into: str | None = None
    via: str | None = None
    conflicts: list[tuple[str, str]] = field(default_factory=list)  # (other paper id, why)


def _kind(key: str) -> str:
    return key.split(":", 1)[0]


def _contradicts(ours: Sequence[str], theirs: Iterable[str]) -> list[str]:
    """Our strong keys that disagree with theirs of the same kind (a different DOI, a different arXiv id)."""
    theirs_by_kind: dict[str, set[str]] = {}
    for k in theirs:
        theirs_by_kind.setdefault(_kind(k), set()).add(k)
    return [k for k in ours if _kind(k) in theirs_by_kind and k not in theirs_by_kind[_kind(k)]]


def decide(keys: PaperKeys, lookup: Callable[[str], str | None], strong_of: Callable[[str], list[str]]
           ) -> Resolution:
    """The paper a document is, given the key table (`lookup(key)` → the paper id stored under that key;
    `strong_of(paper_id)` → that paper's strong keys).

    - its own id or a strong id (DOI, then arXiv id) already names a stored paper: that paper — unless the
      stored paper has another id of the same kind (then the document keeps its own id and the pair is
      reported; when that own id is the stored paper's, they are one paper by id, and reported);
      ids naming two different stored papers are reported too (they are not merged after the fact);
    - else its title key (title + first author) names a stored paper with no conflicting id: that paper;
      with a conflicting id the two are reported as probable duplicates and kept apart;
    - else its own id."""
    res = Resolution(keys.paper_id)
    hits: list[tuple[str, str]] = []  # (key, paper id)
    for k in [keys.paper_id, *keys.strong]:
        pid = lookup(k)
        if pid is not None and all(pid != h for _, h in hits):
            hits.append((k, pid))
    if hits:
        via, target = hits[0]
        for k, other in hits[1:]:
            res.conflicts.append((other, f"its {k} names {other}, its {via} names {target}: the two stored papers "
                                         "are likely one paper (not merged)"))
        bad = _contradicts(keys.strong, strong_of(target))
        if bad and target != keys.paper_id:
            res.conflicts.append((target, f"its {via} names {target}, whose ids differ from its {', '.join(bad)}: "
                                          "kept apart"))
            return res
        if bad:
            res.conflicts.append((target, f"stored under the same id, but its {', '.join(bad)} differs from the "
                                          "stored paper's"))
        if target != keys.paper_id:
            res.paper_id, res.merged_into, res.via = target, target, via
        return res
    if keys.title:
        target_or_none = lookup(keys.title)
        if target_or_none is not None and target_or_none != keys.paper_id:
            target = target_or_none
            bad = _contradicts(keys.strong, strong_of(target))
            if bad:
                res.conflicts.append((target, f"same title and first author as {target}, but its "
                                              f"{', '.join(bad)} differs from {target}'s: kept apart"))
                return res
            res.paper_id, res.merged_into, res.via = target, target, "title and first author"
    return res


__all__ = [
    "ArxivMatch", "DoiMatch", "PaperKeys", "Resolution", "clean_doi", "decide", "doi_or_arxiv", "find_arxiv_id",
    "find_arxiv_ids", "find_dois", "is_doi", "longest_dois", "normalize_arxiv", "normalize_doi", "stable_paper_id",
    "title_key",
]
