"""Sentences about the paper's scaffolding, not its content: figure/table captions and roadmap sentences.

A caption ("Figure 3: Examples of ...", "Table 2. Results ...") describes an exhibit, and a roadmap
sentence ("The rest of this paper is organised as follows", "In Section 8 we describe ...") describes
the document's layout; neither states a problem, a difficulty or a method, though both often carry the
cue words the offline extractor looks for ("we describe", "challenging"). The rules read the sentence's
structure — an exhibit label with a number at its start or before a colon, a reference to a numbered
section, the words that announce the paper's organisation — never particular papers' wording.

A pointer inside a real sentence ("We propose X (see Section 3), which ...", "However, as discussed in
Section 2, ...") does not make it a roadmap sentence: `strip_pointers` removes it first.
"""

from __future__ import annotations

import re

_EXHIBIT = r"(?:Figure|Figures|Fig\.?|Figs\.?|Table|Tables|Tab\.|Algorithm|Listing|Scheme|Chart|Plate|Exhibit)"
_NUMBER = r"(?:\d+|(?-i:[IVX]{1,4}\b|[A-Z]\d+))(?:\.\d+)*[a-z]?(?:\s*\([a-z]\))?"
# "Figure 3: ...", "Fig. 1 Overview ...", "Table 2. ...", "Figure 1 shows ...": the sentence is about an exhibit.
_CAPTION_START = re.compile(rf"^\W{{0,3}}(?:Supplementary\s+)?{_EXHIBIT}\s*{_NUMBER}\b", re.I)
# A caption the layout glued into running text: "... for each patch compute Figure 1: Diagram of ...".
_CAPTION_INSIDE = re.compile(rf"\b{_EXHIBIT}\s*{_NUMBER}\s*[:|]", re.I)
# A bare exhibit label ("Table 2.") left by the sentence splitter: the next sentence is its caption.
_LABEL_ONLY = re.compile(rf"^\W{{0,3}}{_EXHIBIT}\s*{_NUMBER}\s*[.:|]?$", re.I)

_SECTION = r"(?:Sections?|Sects?\.|Secs?\.|Chapters?|Appendix|Appendices|§§?)"
_SECTION_REF = re.compile(rf"{_SECTION}\s*(?:\d+|(?-i:[A-Z]\b|[IVX]{{1,4}}\b))", re.I)
# "(Section 3)", "(see Sec. 4.2)", "(cf. Figure 2)", "(Appendix A)": a pointer that the sentence survives.
# ", as discussed in Section 2," is an aside in the same way.
_POINTER = re.compile(
    rf"\s*\((?:see\s+|cf\.\s+|in\s+)?(?:{_SECTION}|{_EXHIBIT})\s*[^()]{{0,40}}\)"
    rf"|\s*\bas\s+(?:discussed|shown|described|explained|detailed|noted|defined|introduced|seen|argued)\s+"
    rf"(?:in|above in|later in)\s+(?:{_SECTION}|{_EXHIBIT})\s*(?:\d+(?:\.\d+)*|[A-Z]\b)(?:\s*,(?=\s))?",
    re.I,
)
_ORGANISATION = re.compile(
    r"\b(?:the\s+)?(?:rest|remainder|outline|organi[sz]ation|structure|overview)\s+of\s+(?:this|the|our)\s+"
    r"(?:paper|article|work|chapter|thesis|report|manuscript)\b"
    r"|\b(?:paper|article|chapter|thesis|report|manuscript)\s+is\s+(?:organi[sz]ed|structured|laid\s+out|arranged"
    r"|divided)\b"
    r"|\bis\s+(?:organi[sz]ed|structured)\s+as\s+follows\b"
    r"|\b(?:we|this\s+(?:paper|article))\s+conclude[sd]?\s+(?:the\s+paper|with|in)\b"
    r"|\bconclude[sd]?\s+(?:the|this)\s+(?:paper|article)\b",
    re.I,
)


def strip_pointers(sentence: str) -> str:
    """The sentence without parenthesised section/figure pointers ("(see Section 3)")."""
    return re.sub(r",\s*(?=[.;:!?]|$)", "", " ".join(_POINTER.sub("", sentence).split()))


def is_caption(sentence: str) -> bool:
    """Starts with an exhibit label and number, or carries a caption glued in ("... Figure 1: ...")."""
    return bool(_CAPTION_START.search(sentence) or _CAPTION_INSIDE.search(sentence))


def is_label_only(sentence: str) -> bool:
    """Just an exhibit label ("Table 2."): the sentence splitter cut its caption off after the number."""
    return bool(_LABEL_ONLY.match(sentence.strip()))


def is_roadmap(sentence: str) -> bool:
    """Describes the document's layout: refers to a numbered section (outside a parenthesised pointer)
    or announces the paper's organisation or conclusion."""
    s = strip_pointers(sentence)
    return bool(_SECTION_REF.search(s) or _ORGANISATION.search(s))


def is_scaffolding(sentence: str) -> bool:
    """A caption or a roadmap sentence: never a problem, challenge or solution statement."""
    return is_caption(sentence) or is_roadmap(sentence)
