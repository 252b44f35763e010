"""The naming rules (seed appendix B.3) that code can check, applied to every extracted triple.

Checked here:
- name length in words within `name_word_tolerance` of the target ranges (problem 3-7,
  challenge 5-8, solution 7-10);
- every name and description is non-empty (descriptions at least three words);
- no name carries a term the paper coins for itself (its method's name or acronym), found by
  `coined_terms` from the paper's own text;
- a problem description states the task only, without challenge words;
- a challenge name has the "[difficulty] in [context]" shape (a preposition joins the two);
- the challenge belongs to its problem: the two are not the same name and, when an embedder is
  given, their texts are at least `challenge_problem_min_similarity` similar.

What an LLM must judge (generality, neutrality, faithfulness) is left to the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from motivgraph.graph.identity import normalize_name
from motivgraph.miner.schemas import ExtractedTriple

if TYPE_CHECKING:
    from motivgraph.embeddings.base import Embedder
    from motivgraph.settings import MinerSettings

WORD_RANGES: dict[str, tuple[int, int]] = {"problem": (3, 7), "challenge": (5, 8), "solution": (7, 10)}

_PREPOSITIONS = re.compile(
    r"\b(in|of|for|under|across|during|within|when|with|on|from|between|to|at|by|over|without|among|beyond)\b", re.I
)
_PROBLEM_DESC_BANNED = re.compile(
    r"\b(challeng\w*|difficult\w*|limitations?|limited|however|suffers?|bottlenecks?|shortcomings?|drawbacks?"
    r"|fail(s|ing)?|struggles?|lack(s|ing)?)\b",
    re.I,
)
# Tokens that look coined: internal capitals (GraphSAGE), several capitals (BERT, X-Net), or
# letters mixed with digits (T5, GPT4). Generic lower-case words are never coined by this rule.
_CODENAME = re.compile(r"\b([A-Za-z]*[A-Z][a-z]*[A-Z][A-Za-z0-9\-]*|[A-Z][a-z]*\d[\w\-]*|[A-Z]{2,}[\w\-]*)\b")
_NAMING_VERB = re.compile(
    r"\b(called|named|dubbed|termed|coined|which we call|we call|we name|we term|we dub|referred to as"
    r"|abbreviated as|denoted as)\s+[\"“']?([A-Za-z][\w\-+]*)",
    re.I,
)
_INTRO_VERB = re.compile(
    r"\b(we|this paper|this work|our)\b[^.]{0,80}\b(propos|introduc|present|develop|design|call|name|dub|term"
    r"|method|approach|model|framework|system|algorithm)\w*",
    re.I,
)
_PAREN_ACRONYM = re.compile(r"\(([A-Z][A-Za-z0-9\-]{1,15})\)")

# Widely used abbreviations B.3 allows in names (an established general term is not a coined one).
_ACRONYM_TEXT = (
    "AI ML NLP CV RL LLM LLMs LM LMs CNN CNNs RNN RNNs LSTM GRU GAN GANs VAE MLP SVM SVMs CRF HMM "
    "BERT GPT MT NMT SMT ASR TTS QA NER POS SGD EM MCMC PCA SVD KL GNN GNNs API GPU GPUs CPU IR "
    "KG KGs OCR RGB MRI CT DNA RNA PDE ODE ODEs MAP MLE IID OOD SQL HTML XML JSON RAG ViT MDP MDPs "
    "POMDP POMDPs LDA TF IDF CTR AUC ROC MSE DFT UAV IoT ECG EEG FES"
)
COMMON_ACRONYMS = frozenset(s.casefold() for s in _ACRONYM_TEXT.split())


def word_count(name: str) -> int:
    return len(name.split())


def coined_terms(title: str, text: str) -> set[str]:
    """Terms the paper coins for its own method (casefolded): a short title prefix before a colon
    ("FooNet: ..."), words after naming verbs ("we call it Foo"), code-name-like tokens and
    parenthesised acronyms in sentences where the authors introduce their own work."""
    found: set[str] = set()
    head, sep, _ = title.partition(":")
    if sep and 1 <= len(head.split()) <= 3 and any(c.isupper() for c in head):
        for tok in head.split():
            if _CODENAME.fullmatch(tok) or len(head.split()) == 1:
                found.add(tok.strip(" -").casefold())
    for m in _NAMING_VERB.finditer(text):
        tok = m.group(2).strip("-+")
        if len(tok) >= 2 and (any(c.isupper() for c in tok) or any(c.isdigit() for c in tok)):
            found.add(tok.casefold())
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if not _INTRO_VERB.search(sentence):
            continue
        for m in _PAREN_ACRONYM.finditer(sentence):
            found.add(m.group(1).casefold())
        for m in _CODENAME.finditer(sentence):
            tok = m.group(1)
            # Mixed-case code names (GraphSAGE, XLNet) are coined unless widely known.
            if any(c.islower() for c in tok) and sum(c.isupper() for c in tok) >= 2:
                found.add(tok.casefold())
    return {t for t in found if t and t not in COMMON_ACRONYMS and len(t) >= 2}


def _contains_term(name: str, term: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", name.casefold()) is not None


def check_triple(
    triple: ExtractedTriple,
    cfg: MinerSettings,
    coined: set[str] | frozenset[str] = frozenset(),
    relatedness: float | None = None,
) -> list[str]:
    """Violations of the checkable rules for one triple ([] when it passes). `relatedness` is the
    cosine similarity of challenge and problem texts, when known."""
    out: list[str] = []
    tol = cfg.name_word_tolerance
    for kind in ("problem", "challenge", "solution"):
        node = getattr(triple, kind)
        lo, hi = WORD_RANGES[kind]
        if not node.name:
            out.append(f"{kind} name is empty")
            continue
        try:
            normalize_name(node.name)
        except ValueError:
            out.append(f"{kind} name {node.name!r} has no letters or digits")
            continue
        n = word_count(node.name)
        if n < max(1, lo - tol) or n > hi + tol:
            out.append(f"{kind} name {node.name!r} has {n} words; aim for {lo}-{hi}")
        if word_count(node.description) < 3:
            out.append(f"{kind} description is empty or too short")
        for term in sorted(coined):
            if _contains_term(node.name, term):
                out.append(
                    f"{kind} name {node.name!r} uses the paper's own coined term {term!r}; "
                    "use general technical words instead"
                )
    if triple.problem.description and _PROBLEM_DESC_BANNED.search(triple.problem.description):
        word = _PROBLEM_DESC_BANNED.search(triple.problem.description).group(0)  # type: ignore[union-attr]
        out.append(
            f"problem description mentions a difficulty ({word!r}); describe the task neutrally, "
            "difficulties belong in the challenge"
        )
    if triple.challenge.name and not _PREPOSITIONS.search(triple.challenge.name):
        out.append(
            f"challenge name {triple.challenge.name!r} lacks the '[difficulty] in [context]' shape"
        )
    names = {}
    for kind in ("problem", "challenge", "solution"):
        try:
            names[kind] = normalize_name(getattr(triple, kind).name)
        except ValueError:
            names[kind] = ""
    if names["problem"] and names["problem"] == names["challenge"]:
        out.append("challenge repeats the problem name; name the specific difficulty")
    if names["challenge"] and names["challenge"] == names["solution"]:
        out.append("solution repeats the challenge name; name the technical approach")
    if relatedness is not None and relatedness < cfg.challenge_problem_min_similarity:
        out.append(
            f"challenge {triple.challenge.name!r} does not appear to belong to problem {triple.problem.name!r} "
            f"(similarity {relatedness:.2f})"
        )
    return out


def challenge_relatedness(triples: Sequence[ExtractedTriple], embedder: Embedder | None) -> list[float | None]:
    """Cosine similarity of each triple's challenge to its problem (None without an embedder)."""
    if embedder is None or not triples:
        return [None] * len(triples)
    vecs = embedder.embed([t.problem.text() for t in triples] + [t.challenge.text() for t in triples])
    n = len(triples)
    return [float(vecs[i] @ vecs[n + i]) for i in range(n)]


def validate(
    triples: Sequence[ExtractedTriple],
    cfg: MinerSettings,
    *,
    title: str = "",
    text: str = "",
    embedder: Embedder | None = None,
) -> list[list[str]]:
    """Violations per triple, aligned with `triples`."""
    coined = coined_terms(title, text)
    rel = challenge_relatedness(triples, embedder)
    return [check_triple(t, cfg, coined, r) for t, r in zip(triples, rel, strict=True)]


def dedupe(triples: Sequence[ExtractedTriple]) -> list[ExtractedTriple]:
    """Drop triples whose three names normalise to an already-seen triple (first wins)."""
    seen: set[tuple[str, str, str]] = set()
    out: list[ExtractedTriple] = []
    for t in triples:
        try:
            k = (normalize_name(t.problem.name), normalize_name(t.challenge.name), normalize_name(t.solution.name))
        except ValueError:
            out.append(t)  # validation reports it
            continue
        if k not in seen:
            seen.add(k)
            out.append(t)
    return out
