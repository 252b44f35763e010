"""Evidence as the tools return it: the quotes behind a node or a triple, bounded in number and length.

The store keeps every quote on the STATES edge that records a statement (graph/queries.py); the tools
show at most `api.evidence_quotes` of them per node (per element for a triple), verified quotes first,
each cut to `api.evidence_quote_chars` characters -- a hub node stated by hundreds of papers answers
with a few quotes, not a megabyte.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from motivgraph.api.contract.models import QuoteOut, TripleOut
from motivgraph.choices import NODE_TYPES, NodeType
from motivgraph.graph.models import NodeEvidence, Quote, TripleEvidence

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore



def cut(text: str, chars: int) -> str:
    """`text` on one line, at most `chars` characters; a cut one ends at a word with '…'."""
    text = " ".join(text.split())
    if len(text) <= chars:
        return text
    head = text[: chars - 1]
    space = head.rfind(" ")
    if space >= chars // 2:
        head = head[:space]
    return head.rstrip(" ,;:") + "…"


def quote_out(q: Quote, *, element: NodeType, paper_id: str, title: str, year: int | None,
              chars: int) -> QuoteOut:
    return QuoteOut(text=cut(q.text, chars), verified=q.verified, element=element, paper_id=paper_id,
                    title=title, year=year, section=q.section, page=q.page,
                    reason=None if q.verified else q.reason)


def _best(quotes: list[tuple[int, QuoteOut]], per: int) -> list[QuoteOut]:
    # verified first, then in the order the store gave (paper id, triple index): a stable, bounded choice
    return [q for _, q in sorted(quotes, key=lambda iq: (not iq[1].verified, iq[0]))][:per]


def node_quotes_from(statements: Sequence[NodeEvidence], *, per: int, chars: int) -> list[QuoteOut]:
    flat = [
        quote_out(q, element=st.element, paper_id=st.paper_id, title=st.title, year=st.year, chars=chars)
        for st in statements for q in st.quotes
    ]
    return _best(list(enumerate(flat)), per)


def node_quotes(store: GraphStore, keys: Sequence[str], *, per: int, chars: int) -> dict[str, list[QuoteOut]]:
    """Per node key, at most `per` quotes of the papers that state it (one store read per label)."""
    if per <= 0 or not keys:
        return {k: [] for k in keys}
    found = store.node_evidence(keys, per_node=per)
    return {k: node_quotes_from(found.get(k, []), per=per, chars=chars) for k in keys}


def triple_quotes_from(statements: Sequence[TripleEvidence], *, per: int, chars: int) -> list[QuoteOut]:
    out: list[QuoteOut] = []
    for element in NODE_TYPES:
        flat = [
            quote_out(q, element=element, paper_id=st.paper_id, title=st.title, year=st.year, chars=chars)
            for st in statements for q in st.evidence.of(element)
        ]
        out += _best(list(enumerate(flat)), per)
    return out


def with_triple_evidence(store: GraphStore, triples: Sequence[TripleOut], *, per: int,
                         chars: int) -> list[TripleOut]:
    """The triples with their `evidence` filled (one store read for all of them)."""
    if per <= 0 or not triples:
        return list(triples)
    found = store.triple_evidence([(t.problem.key, t.challenge.key, t.solution.key) for t in triples],
                                  per_triple=per)
    return [t.model_copy(update={"evidence": triple_quotes_from(ev, per=per, chars=chars)})
            for t, ev in zip(triples, found, strict=True)]
