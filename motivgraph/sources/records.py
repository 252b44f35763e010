"""What a literature source answers with, whichever API it came from (kernel layer: the tool API maps it
onto its own contract model)."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

# new-style ids (0704.0001 .. 2412.99999, 4 or 5 digits after the dot) and old-style archive ids
# (hep-th/9901001, math.AG/0309136); a trailing version (v2) is not part of the id
_ARXIV_ID = re.compile(r"(\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v(\d+))?", re.I)
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/(?P<id>[^?#\s]+?)(?:\.pdf)?/?$", re.I)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(?P<id>.+)$", re.I)


class SourcePaper(BaseModel):
    """One paper as an outbound source found it; `source` names that source."""

    source: str = Field(description="Which source found it: openalex, arxiv, ...")
    title: str
    abstract: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    paper_id: str | None = Field(None, description="The source's own id (OpenAlex W…, arXiv id with version).")
    doi: str | None = Field(None, description="Lower-case, without the https://doi.org/ prefix.")
    arxiv_id: str | None = Field(None, description="Without its version suffix.")
    url: str | None = None
    citation_count: int | None = None


def split_arxiv_id(value: str) -> tuple[str, int | None] | None:
    """(id, version) of a bare arXiv id such as `2106.09685v2` or `hep-th/9901001`; None if it is not one."""
    m = _ARXIV_ID.fullmatch(value.strip())
    if not m:
        return None
    return m.group(1), int(m.group(2)) if m.group(2) else None


def arxiv_id_from_url(url: str | None) -> tuple[str, int | None] | None:
    """(id, version) from an arxiv.org abs/pdf link, http or https; None for any other link."""
    m = _ARXIV_URL.search((url or "").strip())
    return split_arxiv_id(m.group("id")) if m else None


def normalize_doi(value: str | None) -> str | None:
    """A DOI without its resolver prefix, lower-case (DOIs are case-insensitive); None when empty."""
    v = (value or "").strip()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"):
        if v.lower().startswith(prefix):
            v = v[len(prefix) :]
            break
    return v.lower() or None


def arxiv_id_from_doi(doi: str | None) -> str | None:
    """arXiv's own DOIs (10.48550/arXiv.2106.09685) name an arXiv id."""
    m = _ARXIV_DOI.match(doi or "")
    hit = split_arxiv_id(m.group("id")) if m else None
    return hit[0] if hit else None
