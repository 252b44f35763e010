"""Reference lists: the text after a paper's References heading, split into entries."""

from __future__ import annotations

import re

from motivgraph.ingest.models import Reference


def parse_references(text: str) -> list[Reference]:
    """The entries of a reference list's text: title, authors and year of each."""
    text = text.replace("\n\n", "\n")
    chunks = re.split(r"\s(?=\[\d{1,3}\]\s)", " " + text)
    if len(chunks) < 3:
        # author-year style: a new entry starts after a period with "Surname, X." or "Surname X"
        chunks = re.split(r"(?<=[.])\s+(?=[A-Z][A-Za-z\-'’]+,\s(?:[A-Z]\.|[A-Z][a-z]+))", text)
    refs: list[Reference] = []
    for c in chunks:
        c = " ".join(c.split())
        if len(c) < 20:
            continue
        c = re.sub(r"^\[\d+\]\s*", "", c)
        ym = re.search(r"\b(19[5-9]\d|20[0-4]\d)[a-z]?\b", c)
        year = int(ym.group(1)) if ym else None
        # sentences, not split after an initial ("A. Turing") — authors first, then the title
        parts = [x.strip() for x in re.split(r"(?<!\b[A-Z])\.\s+", c) if x.strip()]
        parts = [x for x in parts if not re.fullmatch(r"\(?(19|20)\d\d[a-z]?\)?", x)]
        head = re.sub(r"\(?\b(19|20)\d\d[a-z]?\b\)?\.?$", "", parts[0]).strip(" ,.") if parts else ""
        authors: list[str] = []
        for a in re.split(r",\s(?:and\s)?|\sand\s|;\s", head):
            a = a.strip(" .")
            if authors and re.fullmatch(r"(?:[A-Z]\.?\s?-?){1,3}", a):
                authors[-1] = f"{authors[-1]}, {a}"  # "Downey, D." is one author
            elif 1 <= len(a.split()) <= 4:
                authors.append(a)
        title = parts[1].strip(' .“”"') if len(parts) > 1 else ""
        refs.append(Reference(title=title[:400], authors=authors[:20], year=year))
    return refs[:500]
