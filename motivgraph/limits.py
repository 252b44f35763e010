"""Size limits shared by every way text enters the graph (ingest, miner, triples, `graph import`, the API).

One place, so a node name the miner may write is also one the importer and the API accept, and the other
way round: a 1 MB name can reach the graph by no route.
"""

from __future__ import annotations

MAX_NAME_CHARS = 300
"""A node name, alias or node reference (problem / challenge / solution, parent)."""

MAX_KEY_CHARS = 400
"""A node key: `<type>:<normalised name>` — the name limit plus the longest type prefix, with room to spare."""

MAX_DESCRIPTION_CHARS = 4000
"""A node description."""

MAX_PAPER_ID_CHARS = 300
"""A paper id (`arxiv:…`, `doi:…`, a file-derived id)."""

MAX_QUOTE_CHARS = 1200
"""A quote of evidence for one element of a triple: a sentence or a few; longer is not a quote."""

MAX_QUOTES_PER_ELEMENT = 4
"""Quotes kept per element (problem, challenge, solution) of a triple."""
