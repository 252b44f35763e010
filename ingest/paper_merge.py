"""Merging the documents of one paper field by field: a PDF and a JSON record of the same paper (same DOI,
arXiv id, or title and first author: `ingest.identity`) are one graph paper, and that paper keeps the
best-known value of each field, with where it came from (`provenance`, stored with the paper).

The rule, per field:
- a value beats no value: a document that lacks a field (a record without authors) never wipes it;
- otherwise the source ranked higher for that field wins (`RANKS`): a metadata record (JSON: a
  publisher's, Semantic Scholar's or the user's own curated record) outranks a structured parse
  (GROBID/TEI), which outranks the offline PDF parse, for the bibliographic fields; for the fields
  that name a file (`source_path`, `sha256`) a parsed file outranks a record, because a record has no file
  the user can open;
- the same document seen again (re-parsed, or a changed record) replaces its own values;
- between two different documents of the same rank, the source that sorts first wins, so the result
  does not depend on which document finished first.

`merge_fields` is pure; the ledger (`Ledger.merge_paper_fields`) keeps the current best values with their
source and rank per paper, in one transaction per document, so concurrent documents and resumed runs
reach the same end state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from motivgraph.ingest.models import Paper

# The Paper fields a merge decides; notes, sections and references stay the document's own.
FIELDS: tuple[str, ...] = ("title", "authors", "abstract", "year", "venue", "doi", "arxiv_id", "source_path",
                           "sha256")
_FILE_FIELDS = frozenset({"source_path", "sha256"})
# parser name -> rank for bibliographic fields (higher wins); an unknown parser ranks with the offline parse
RANKS: dict[str, int] = {"json": 3, "grobid": 2, "tei": 2, "pdf": 1}
_FILE_RANKS: dict[str, int] = {"json": 1}  # any parsed file: 2


def rank(field: str, parser: str) -> int:
    """How trusted `parser`'s value of `field` is (higher wins; see the module docstring)."""
    if field in _FILE_FIELDS:
        return _FILE_RANKS.get(parser, 2)
    return RANKS.get(parser, 1)


def source_label(parser: str, display: str) -> str:
    """Where a value came from, as `papers show` prints it: `<parser>:<document>` (e.g. `json:papers.jsonl#3`)."""
    return f"{parser or 'unknown'}:{display}"


def is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, str | list | tuple | dict) and len(value) == 0) or (
        isinstance(value, str) and not value.strip())


@dataclass(frozen=True)
class Held:
    """A field's current best value, the document it came from and that document's rank for the field."""

    value: Any
    source: str
    rank: int


def merge_field(held: Held | None, new: Held) -> Held:
    """The better of the stored value and a document's value for one field (the rule above)."""
    if is_empty(new.value):
        return held if held is not None else new
    if held is None or is_empty(held.value) or held.source == new.source:
        return new
    if new.rank != held.rank:
        return new if new.rank > held.rank else held
    return new if new.source < held.source else held


def merge_fields(held: Mapping[str, Held], values: Mapping[str, Any], parser: str, source: str
                 ) -> dict[str, Held]:
    """Every field of `FIELDS` after a document (`values`, from `parser`, named `source`) joins the paper."""
    out: dict[str, Held] = {}
    for f in FIELDS:
        out[f] = merge_field(held.get(f), Held(values.get(f), source, rank(f, parser)))
    return out


def field_values(paper: Paper) -> dict[str, Any]:
    return {f: getattr(paper, f) for f in FIELDS}


def apply(paper: Paper, merged: Mapping[str, Held]) -> None:
    """Give `paper` the merged values and the provenance map (field -> source) of the non-empty ones."""
    for f, h in merged.items():
        value = h.value
        if f == "authors":
            value = list(value or [])
        elif f in ("title", "abstract"):
            value = value or ""
        setattr(paper, f, value)
    paper.provenance = {f: h.source for f, h in sorted(merged.items()) if not is_empty(h.value)}


__all__ = ["FIELDS", "RANKS", "Held", "apply", "field_values", "is_empty", "merge_field", "merge_fields", "rank",
           "source_label"]
