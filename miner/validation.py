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
  given, their texts are at least `challenge_problem_min_similarity` similar;
- for names cut from the text by rule (the offline extractor), every name is a whole noun phrase
  (`name_form_violations`, given the paper's title and text): it does not
  end in a function word or in a word the paper uses as a verb, is not cut out of a longer phrase of the
  title (nor is a challenge's context), and a problem is not the paper's own method.

What an LLM must judge (generality, neutrality, faithfulness) is left to the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from motivgraph.choices import NODE_TYPES
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
# A compound that says what something is built on ("SMT-based", "HMM-like") names a kind, not a system.
_KIND_SUFFIX = re.compile(r"-(based|like|style|driven|aware|guided|specific|free|level|wise|type|only)$", re.I)
# Who is speaking: the authors about their own paper.
_OWN_SUBJECT = r"(?:\bwe|\bthis (?:paper|work|article|study|note|report)|\bthe (?:present )?paper)"
# The verbs that put the authors' own contribution in their object ("we propose X", "this paper introduces X"),
# also as the bare verb that opens a contributions-list item ("• Introduce X").
_CONTRIB_VERB = (
    r"(?:propose[sd]?|introduce[sd]?|present(?:s|ed)?|develop(?:s|ed)?|design(?:s|ed)?|devise[sd]?"
    r"|describe[sd]?|build(?:s)?|built|implement(?:s|ed)?|release[sd]?|contribute[sd]?)"
)
_OWN_CONTRIB = re.compile(
    rf"(?:{_OWN_SUBJECT}\s+(?:(?:\w+ly|also|first|further|then|here|now|instead|therefore|thus)\s+)?"
    rf"|(?:[•▪◦·*:;]|\(\w{{1,4}}\))\s*){_CONTRIB_VERB}\b",
    re.I,
)
# Where the object of a contribution verb ends: a clause, a purpose, a comparison or what it is built on.
# What follows ("... using CRFs", "... than WOE", "... on the CoNLL data") is someone else's.
_OBJECT_END = re.compile(
    r"[,;:—–]| - |\b(?:that|which|where|who|whose|to|for|on|in|of|from|with|using|via|by|based|than|over"
    r"|against|such|like|including|as|and (?:show|demonstrate|evaluate|compare|apply|discuss)\w*)\b",
    re.I,
)
# Where a naming phrase stops being about the authors' own contribution ("we propose X, which beats a
# baseline called Y").
_NAMING_END = re.compile(
    r";|\b(?:which|that|than|over|against|compar\w*|outperform\w*|such as|unlike|whereas|while|baselines?|prior"
    r"|previous|existing|earlier)\b",
    re.I,
)
_SELF_NAMING = re.compile(r"\b(?:which we (?:call|name|term|dub)|we (?:call|name|term|dub))\b((?:\s+\S+){1,5})", re.I)
_NAMING_VERB = re.compile(
    r"\b(?:called|named|dubbed|termed|coined|referred to as|abbreviated as|denoted as)\s+[\"“']?([A-Za-z][\w\-+]*)",
    re.I,
)
# "X, our system" / "our system, X" / "our X system": an appositive that gives the authors' own thing a name.
_OWN_HEAD = r"(?:system|model|method|approach|framework|algorithm|tool|implementation|architecture|library|technique"
_OWN_HEAD += r"|parser|extractor|software|package|language|network|solution|prototype)"
_OWN_APPOSITIVE = re.compile(
    rf"\b([A-Za-z][\w\-+]*),\s+our\b|\bour\s+(?:\w+\s+){{0,2}}?{_OWN_HEAD}s?,?\s+(?:called\s+|named\s+)?"
    rf"([A-Za-z][\w\-+]*)|\bour\s+([A-Za-z][\w\-+]*)\s+{_OWN_HEAD}\b",
    re.I,
)
_APPOSED_NAME = re.compile(r"\s*,\s*([A-Za-z][\w\-+]*)\s*(?:,|\(|\bthat\b|\bwhich\b|$)")
_PAREN_ACRONYM = re.compile(r"\(([A-Z][A-Za-z0-9\-]{1,15})\)")
_OWN_MENTION = re.compile(rf"{_OWN_SUBJECT}\b|\bour\b|\bproposed\b", re.I)
_TITLE_TAIL = re.compile(r"\b(?:with|via|using|through|by)\s+([A-Za-z][\w\-+]*)\s*$", re.I)

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


def _looks_coined(tok: str) -> bool:
    """A code-name-like token: internal or repeated capitals (FooNet, REALM) or letters with digits (T5);
    not a widely known abbreviation and not a "<kind>-based" compound."""
    tok = tok.strip("-+")
    return (
        len(tok) >= 2
        and _CODENAME.fullmatch(tok) is not None
        and not _KIND_SUFFIX.search(tok)
        and tok.casefold() not in COMMON_ACRONYMS
        and tok.rstrip("s").casefold() not in COMMON_ACRONYMS
    )


def _cited(term: str, text: str) -> bool:
    """The text cites the term as prior work: "X [12]", "X (Smith, 2007)", "X (X) [3]", "X of Smith et al."."""
    t = re.escape(term)
    cite = r"(?:\[\s*\d[^\]]{0,30}\]|\((?:[^()]{0,60}?(?:19|20)\d\d[a-z]?)\)|(?:of|by|from)\s+[A-Z][\w\-]+ et al)"
    return re.search(rf"(?<![\w-]){t}(?![\w-])\)?\s*{cite}", text, re.I) is not None


def coined_terms(title: str, text: str) -> set[str]:
    """Terms the paper coins for its OWN method (casefolded), decided by evidence in the paper, so other
    systems' names (cited baselines, datasets, prior models) are never taken for the paper's own:

    - the title names it: a short prefix before a colon ("FooNet: ...") or a code name that ends the
      title after "with/via/using" ("Combating Spam with FooRank");
    - the authors name it: "which we call X", "we call it X", or "called/named/dubbed X" after they speak
      of their own work ("we propose a method named X", "our approach is implemented in a system called X");
    - it is in the object of the authors' contribution verb, before the clause ends ("we propose FooNet,
      ...", "we introduce a Foo Bar (FB) approach to ..."; not "... using CRFs", "... than WOE"), or in
      apposition to that object ("we introduce a semantic parser, FooParse, that ...");
    - an appositive gives their own thing a name ("X, our system", "our system, X", "our X model").

    A term the text cites as prior work ("X [3]", "X (Smith, 2007)"), or an abbreviation it defines in
    a sentence that speaks of no work of the authors ("Information Extraction (IE) has ..."), is not the
    paper's own, unless the title names it."""
    found: set[str] = set()
    from_title: set[str] = set()
    head, sep, _ = title.partition(":")
    if sep and 1 <= len(head.split()) <= 3 and any(c.isupper() for c in head):
        for tok in head.split():
            if _CODENAME.fullmatch(tok) or len(head.split()) == 1:
                from_title.add(tok.strip(" -").casefold())
    tail = _TITLE_TAIL.search(title.strip().rstrip(".∗*"))
    if tail and _looks_coined(tail.group(1)):
        from_title.add(tail.group(1).strip("-+").casefold())
    general: set[str] = set()  # abbreviations the text defines where the authors speak of no work of theirs
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if not _OWN_MENTION.search(sentence):
            general.update(m.group(1).casefold() for m in _PAREN_ACRONYM.finditer(sentence))
        for m in _SELF_NAMING.finditer(sentence):
            words = [w.strip("\"“”'(),.;:") for w in m.group(1).split()]
            tok = next((w for w in words if _looks_coined(w)), "")
            if tok:
                found.add(tok.casefold())
        for m in _OWN_APPOSITIVE.finditer(sentence):
            tok = next((g for g in m.groups() if g), "")
            if _looks_coined(tok):
                found.add(tok.strip("-+").casefold())
        mention = _OWN_MENTION.search(sentence)
        if mention is not None:  # "we propose a method named X", "our approach is implemented in a system called X"
            for m in _NAMING_VERB.finditer(_NAMING_END.split(sentence[mention.end() :], maxsplit=1)[0]):
                if _looks_coined(m.group(1)):
                    found.add(m.group(1).strip("-+").casefold())
        own = _OWN_CONTRIB.search(sentence)
        if own is None:
            continue
        after = sentence[own.end() :]
        obj = _OBJECT_END.split(after.lstrip(" ,"), maxsplit=1)[0] if after.strip() else ""
        # "we introduce a semantic parser, X, that ...": the name in apposition to the object
        named = _APPOSED_NAME.match(after.lstrip(" ,")[len(obj) :])
        if named and _looks_coined(named.group(1)):
            found.add(named.group(1).strip("-+").casefold())
        for m in _PAREN_ACRONYM.finditer(obj):
            if _looks_coined(m.group(1)) or m.group(1).isupper():
                found.add(m.group(1).casefold())
        words = obj.split()
        for w in words:
            tok = w.strip("\"“”'(),.;:")
            if _looks_coined(tok):
                found.add(tok.strip("-+").casefold())
        if len(words) == 1 and words[0][:1].isupper() and words[0].strip(".").isalpha():
            found.add(words[0].strip(".").casefold())  # "we present Pregel, a ...": a bare name is a name
    found = {t for t in found if not _cited(t, text) and t not in general}
    return {t for t in found | from_title if t and t not in COMMON_ACRONYMS and len(t) >= 2}


def _contains_term(name: str, term: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", name.casefold()) is not None


# -- the form of a name: a whole noun phrase, not a fragment ----------------------------------------------------------
# B.3: "The naming follows the structure '[General Task/Field of Study]'" (problem), "'[Specific Difficulty/
# Limitation] in [Aspect of Problem/Domain Context]'" (challenge), and a solution name "captures the essential
# technical approach, category, or fundamental principle" -- each a noun phrase. A name cut out of a longer phrase
# ("... Literature Graph in Semantic" of "... in Semantic Scholar"), one that ends in a function word or a verb
# ("... based on capabilities and extend"), or a problem that is the paper's own method is not one.
FUNCTION_WORDS = frozenset(
    """a an the and or nor but of in on for to with by from at as via into onto over under than that which who whose
    whom where when while whereas if is are was were be been being has have had do does did can could will would
    shall should may might must not no its their our his her this these those such based using toward towards
    between among within without across through per versus vs""".split()  # noqa: SIM905
)
# a verb the text itself uses as one: after a subject or modal (or "to"), followed by its object's determiner
# ("and" and "that" are left out: "queries and functions that ..." has a noun between them)
_VERB_USE = re.compile(
    r"\b(?i:we|they|it|can|could|will|would|may|might|must|should|cannot|to)\s+([a-z]{3,})\s+"
    r"(?:the|a|an|its|their|our|these|this|those|them|it|each|every|any|both|all|such|new|more)\b"
)
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD_RE.findall(text)]


def verbs_in(text: str) -> set[str]:
    """Words the text uses as verbs ("... to extend the ...", "we train a ..."): a name ending in one ends
    mid-clause. Lower-case words only, and never a word the text also uses after an article (a noun too)."""
    verbs = {m.group(1) for m in _VERB_USE.finditer(text)}
    nouns = set(re.findall(r"\b(?:the|a|an|its|their|our|this|these)\s+([a-z]{3,})\b", text))
    return verbs - nouns


def cut_from(name: str, source: str) -> bool:
    """Whether `name` is a piece cut out of a longer noun phrase of `source` (the title): the name occurs in
    the source and the source's next word, in the same stretch of text (no ':', ',' or bracket between),
    is a content word that goes on with the phrase."""
    nw = _words(name)
    if not nw or not source:
        return False
    for seg in re.split(r"[:;,()\[\]\u2013\u2014?!]|\s-\s|\.\s", source):
        sw = _words(seg)
        for i in range(len(sw) - len(nw)):
            if sw[i : i + len(nw)] == nw and sw[i + len(nw)] not in FUNCTION_WORDS:
                return True
    return False


def own_method_phrases(text: str) -> list[list[str]]:
    """The objects of the authors' contribution verbs ("we propose graph attention networks, ..."), as words,
    articles and evaluative adjectives dropped: what the paper contributes, not the task it addresses."""
    out: list[list[str]] = []
    for m in _OWN_CONTRIB.finditer(text):
        obj = _OBJECT_END.split(text[m.end() :].lstrip(" ,"), maxsplit=1)[0]
        words = [w for w in _words(obj) if w not in _OBJECT_FILLER]
        if words:
            out.append(words)
    return out


_OBJECT_FILLER = frozenset("a an the new novel simple general our this first two several efficient effective".split())  # noqa: SIM905


def name_form_violations(kind: str, name: str, *, title: str = "", text: str = "",
                         verbs: set[str] | None = None, own: list[list[str]] | None = None,
                         problem: str = "") -> list[str]:
    """What makes `name` (of a node of `kind`) no well-formed noun phrase of its type ([] when it is one)."""
    out: list[str] = []
    words = _words(name)
    if not words:
        return out
    last = words[-1]
    if last in FUNCTION_WORDS:
        out.append(f"{kind} name {name!r} ends in {last!r}: a fragment, not a noun phrase")
    elif last in (verbs if verbs is not None else verbs_in(text)):
        out.append(f"{kind} name {name!r} ends in the verb {last!r}: a fragment, not a noun phrase")
    if title and cut_from(name, title):
        out.append(f"{kind} name {name!r} is cut from a longer phrase of the title; name the whole task")
    if kind == "challenge" and (title or problem):
        # "[difficulty] in [context]": the context is a whole phrase, not a piece of the title or of the problem
        ctx = re.split(r"\b(?:in|of|for|under|within|across|during|when)\b", name, flags=re.I)[-1].strip()
        if ctx and ctx != name and any(cut_from(ctx, src) for src in (title, problem) if src):
            out.append(f"challenge name {name!r} ends in a piece of a longer phrase ({ctx!r}); give the whole context")
    if kind == "problem":
        for obj in (own if own is not None else own_method_phrases(text)):
            if obj[: len(words)] == words or (words[: len(obj)] == obj and len(obj) >= 2):
                out.append(f"problem name {name!r} is the paper's own method; name the task it addresses")
                break
    return out


def check_triple(
    triple: ExtractedTriple,
    cfg: MinerSettings,
    coined: set[str] | frozenset[str] = frozenset(),
    relatedness: float | None = None,
    *,
    title: str = "",
    text: str = "",
) -> list[str]:
    """Violations of the checkable rules for one triple ([] when it passes). `relatedness` is the
    cosine similarity of challenge and problem texts, when known; with the paper's `title` and `text` the
    names' form is checked too (`name_form_violations`)."""
    out: list[str] = []
    if title or text:
        verbs, own = verbs_in(text), own_method_phrases(text)
        for kind in NODE_TYPES:
            out += name_form_violations(kind, getattr(triple, kind).name, title=title, text=text, verbs=verbs,
                                        own=own, problem=triple.problem.name)
    tol = cfg.name_word_tolerance
    for kind in NODE_TYPES:
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
    for kind in NODE_TYPES:
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
    check_form: bool = False,
) -> list[list[str]]:
    """Violations per triple, aligned with `triples`. `check_form`: also the names' form against the title and
    text (`name_form_violations`) -- the offline extractor's names are cut from the text by rule, so they are
    checked; an LLM writes its names in its own words."""
    coined = coined_terms(title, text)
    rel = challenge_relatedness(triples, embedder)
    form = {"title": title, "text": text} if check_form else {}
    return [check_triple(t, cfg, coined, r, **form) for t, r in zip(triples, rel, strict=True)]


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
