"""The offline extractor: (problem, challenge, solution) triples without an LLM.

It exists so the whole pipeline can be tried with nothing configured; its triples are rougher than
the LLM miner's and carry `extractor="heuristic"` in their provenance. The method, step by step:

1. Sentences of the abstract and Introduction are split by rule (`miner.text.split_sentences`);
   captions and roadmap sentences are dropped (`miner.scaffolding`).
2. **Challenge statements** are sentences with rhetorical cues of difficulty — "however",
   "remains challenging", "suffers from", "does not scale", "lack of", "intractable", "fails to",
   "bottleneck", ... — scored by cue strength; sentences about the authors' own work ("we", "our")
   score lower unless they also contrast ("however", "although").
3. **Contribution statements** are sentences with cues such as "we propose", "we introduce",
   "this paper presents", "our contributions"; the phrase after the verb is the solution's object.
4. **Keyphrases** are candidate noun phrases (maximal runs of content words, optionally joined by
   "of"/"for"/"in"/"on"), ranked KeyBERT-style by MiniLM cosine similarity to the sentence they
   come from (or to title+abstract for the problem), with a small bonus for multi-word phrases and,
   for challenges, for difficulty words (cost, noise, sparsity, scalability, ...).
5. **Problem** = the title segment that names the task (title split at ":" / "with" / "via" /
   "using" / "for" / "by" ...: the part after "for", else before "with/via/using", ranked by
   similarity to the abstract) or a "the task of X" phrase; its description is the first neutral
   defining sentence (no "we", no difficulty cue) of the abstract or Introduction.
6. **Challenge** name = "<difficulty> in <problem context>", where the difficulty is the best
   keyphrase of the challenge sentence, prefixed by the cue's noun ("Poor scalability of",
   "High cost of", "Lack of", ...) when the phrase itself names no difficulty; description = the
   sentence (plus its successor when short).
7. **Solution** name = the contribution's object phrase (cut at "that/which/to/," and stripped of
   coined names such as the method's acronym), or, when that phrase is generic ("an approach"),
   the head noun plus its best keyphrases; description = the contribution sentence with the paper's
   own coined names (decided by evidence: `validation.coined_terms`) replaced by "the proposed method";
   other systems' names (baselines, datasets, prior models) stay.
8. Challenges and contributions are paired greedily by embedding similarity, preferring a
   challenge stated before its contribution; at most `heuristic_max_triples` triples, each run
   through the same validation as LLM triples (failures are recorded, not stored).

A paper without any challenge cue or any contribution cue yields zero triples with that reason.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from motivgraph.miner.evidence import MIN_QUOTE_WORDS
from motivgraph.miner.scaffolding import is_label_only, is_scaffolding, strip_pointers
from motivgraph.miner.schemas import ExtractedNode, ExtractedTriple, ExtractionResult, NodeText, RejectedTriple
from motivgraph.miner.text import CONTRIBUTION_CUES, select_input, split_paragraphs, split_sentences
from motivgraph.miner.validation import (
    _PROBLEM_DESC_BANNED,
    FUNCTION_WORDS,
    coined_terms,
    dedupe,
    name_form_violations,
    own_method_phrases,
    validate,
    verbs_in,
)

if TYPE_CHECKING:
    from motivgraph.embeddings.base import Embedder
    from motivgraph.ingest.models import Paper
    from motivgraph.settings import MinerSettings

log = logging.getLogger(__name__)

STOPWORDS = frozenset(
    """a about above after again against all also although am among an and any are as at be because been
    before being below between both but by can cannot could did do does doing done down during each either
    else etc even ever every few for from further had has have having he her here hers him his how however
    i if in into is it its itself just least less let like made make makes many may me might more most much
    must my neither no nor not now of off often on once one only or other others otherwise our ours out over
    own per rather same several she should since so some such than that the their theirs them then there
    these they this those though through thus to too toward towards under until up upon us very via was we
    were what when where whether which while who whom whose why will with within without would yet you your
    well i.e e.g et al cf fig figure table section eq see shown show shows showed use used uses using
    propose proposed proposes present presents presented introduce introduced introduces describe describes
    described study studies studied paper work article approach approaches method methods new novel first
    second third two three four five simple simpler existing previous prior recent recently current typically
    usually generally particular particularly specific specifically various different important significant
    significantly large small good better best main key able allows allow enable enables provide provides
    given based achieve achieves obtain obtains consider considers called known way ways lot number
    remains remain become becomes include includes including require requires required need needs make
    still already instead whereas across along around beyond behind hence therefore moreover furthermore
    addition additionally finally respectively i.e., e.g., al. demonstrate demonstrates achieve""".split()  # noqa: SIM905
)
# Verbs and participles that end a noun phrase even though they are not stopwords.
_VERBISH = re.compile(
    r"^(\w+(ed|ing)|is|are|was|were|has|have|had|can|will|must|should|may|might|solve[sd]?|avoids?|leads?|"
    r"arises?|suffers?|fails?|lacks?|struggles?|scales?|remains?|seems?|tends?|helps?|takes?|gives?|"
    r"yields?|improves?|outperforms?|combines?|captures?|learns?|performs?|returns?|produces?|reduces?)$"
)
_KEEP_ING_ED = frozenset(
    """learning processing modeling modelling training reasoning understanding parsing mining computing
    clustering ranking tagging labeling labelling matching embedding planning scheduling indexing
    sampling denoising encoding decoding reading answering recognition filtering forecasting
    programming engineering networking rendering tracking hashing pruning pooling routing
    supervised unsupervised semi-supervised self-supervised distributed structured labeled labelled
    annotated weighted generalized randomized automated based""".split()  # noqa: SIM905
)
_JOINERS = frozenset({"of", "for", "in", "on"})
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-']*[A-Za-z0-9]|[A-Za-z]")

DIFFICULTY_WORDS = re.compile(
    r"\b(cost|costs|expense|complexity|scalab\w*|noise|noisy|sparsity|sparse|bias\w*|variance|overfitting|error\w*"
    r"|ambigu\w*|uncertain\w*|inefficien\w*|intractab\w*|difficult\w*|lack|limited|limitation\w*|bottleneck\w*"
    r"|incoheren\w*|uninformative|scarc\w*|imbalance\w*|instabilit\w*|unstable|latency|overhead|redundan\w*"
    r"|inconsisten\w*|vulnerab\w*|degradation|drift|shift|gap|failure\w*|heterogene\w*"
    # harm done to or by a system, in any field (not a field's own topic words: "privacy" alone names no difficulty,
    # "privacy leakage" does)
    r"|risk\w*|threat\w*|attack\w*|leak\w*|violation\w*|abuse|misuse|adversar\w*|malicious\w*|harm\w*|contamina\w*"
    r"|mis(?:classif|labe?l|align|match|use|inform)\w*)\b",
    re.I,
)
# (cue regex, weight, noun prefix used when the keyphrase names no difficulty itself)
CHALLENGE_PATTERNS: list[tuple[re.Pattern[str], float, str]] = [
    (re.compile(r"\b(remains?|is|are|still) (a |an )?(an? )?(open|major|key|significant|fundamental)? ?"
                r"(challeng\w*|difficult\w*|problem|unsolved|unclear)\b", re.I), 3.0, "Difficulty of"),
    (re.compile(r"\bsuffers? from\b", re.I), 3.0, "Problems with"),
    (re.compile(r"\b(does not|do not|cannot|can not|fail(s)? to|unable to) scale\b", re.I), 3.0, "Poor scalability of"),
    (re.compile(r"\bintractab\w*\b", re.I), 3.0, "Intractability of"),
    (re.compile(r"\b(prohibitive\w*|expensive|costly|computational expense|high cost)\b", re.I), 2.5, "High cost of"),
    (re.compile(r"\b(lack(s|ing)? of|lack(s)?|scarc\w*|insufficient)\b", re.I), 2.5, "Lack of"),
    (re.compile(r"\bfail(s|ed)? to\b|\bunable to\b|\bstruggle\w*\b", re.I), 2.5, "Failure of"),
    (re.compile(r"\b(bottleneck\w*|drawbacks?|shortcoming\w*|limitations?|limited by)\b", re.I), 2.5, "Limitations of"),
    (re.compile(r"\b(challeng\w*|difficult\w*|hard to|problematic)\b", re.I), 2.0, "Difficulty of"),
    (re.compile(r"\b(errors?|noisy|noise|ambiguous|ambiguity|inaccura\w*|incoheren\w*)\b", re.I), 1.5, "Errors in"),
    (re.compile(r"\b(complex\w*|issues?|obscure\w*|tedious|error-prone|time-consuming|slow|poor(ly)?|ineffective"
                r"|sparse|sparsity|unreliab\w*|inefficien\w*|overfit\w*|bias(es|ed)?)\b", re.I), 1.0, "Difficulty of"),
    (re.compile(r"\b(however|but|although|despite|unfortunately|yet)\b", re.I), 1.0, "Limitations of"),
]
# A difficulty stated with its object: the captured phrase (cut at the clause end) names it.
_DIFFICULTY_OBJECT: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bsuffers? from (?:the |a |an )?(?P<x>[^,;:.()]+)", re.I), "{x}"),
    (re.compile(r"\b(?:lack|absence|scarcity|shortage) of (?:the |a |an )?(?P<x>[^,;:.()]+)", re.I), "Lack of {x}"),
    (re.compile(r"\b(?:does not|do not|cannot|fails? to) scale (?:well )?(?:to|with) (?:the |a )?(?P<x>[^,;:.()]+)",
                re.I), "Poor scalability to {x}"),
    (re.compile(r"\b(?:difficulty|difficulties|challenge|bottleneck|limitation|drawback|cost|expense)"
                r" (?:of|in|with|associated with) (?:the |a |an )?(?P<x>[^,;:.()]+)", re.I), "{m}"),
    (re.compile(r"(?:^|, )(?:the |a |an )?(?P<x>[a-z][\w\s-]{3,50}?) (?:is|are|remains?|becomes?) "
                r"(?:still |often |very "
                r"|extremely |notoriously |computationally )?(?P<adj>challenging|difficult|hard|expensive|costly"
                r"|intractable|slow|limited|unreliable|ambiguous|noisy|sparse)\b", re.I), "{adj_noun} of {x}"),
]
_ADJ_NOUN = {
    "challenging": "Difficulty", "difficult": "Difficulty", "hard": "Difficulty", "expensive": "High cost",
    "costly": "High cost", "intractable": "Intractability", "slow": "Slowness", "limited": "Limited coverage",
    "unreliable": "Unreliability", "ambiguous": "Ambiguity", "noisy": "Noise", "sparse": "Sparsity",
}
_CLAUSE_END = re.compile(
    r"\s+(?:that|which|where|when|because|since|while|and (?:thus|therefore|hence)|as|so|but|although|whereas"
    r"|due to|in order)\b.*$",
    re.I,
)
_EVALUATION = re.compile(r"\b(experiment\w*|evaluat\w*|results?|empirical\w*|outperform\w*|show that"
                         r"|demonstrate that|we show|we find|we observe|we report)\b", re.I)
_SELF_REFERENCE = re.compile(r"\b(we|our|this paper|this work|in this (paper|work))\b", re.I)
_CONTRAST = re.compile(r"\b(however|although|despite|unfortunately|but)\b", re.I)
_STRONG_CONTRIB = re.compile(
    r"\b(we|this (paper|work|article)) (propose|introduce|present|develop|design|devise|formulate|describe"
    r"|proposes|introduces|presents|develops|describes)\b",
    re.I,
)
_CONTRIB_OBJECT = re.compile(
    r"\b(?:we|this (?:paper|work|article)|in this (?:paper|work),? we)\s+(?:\w+ly\s+)?"
    r"(?:propose|introduce|present|develop|design|devise|formulate|describe|proposes|introduces|presents"
    r"|develops|describes|use|apply|employ|leverage|study|investigate|explore|address)\s+(.*)",
    re.I,
)
_OBJECT_END = re.compile(
    r"\s*(?:,|;|:|\(|—|–| - |\bthat\b|\bwhich\b|\bwhere\b|\bwhose\b|\bwho\b|\bcalled\b|\bnamed\b|\bdubbed\b"
    r"|\bto (?!the\b)\w+|\band (?:show|demonstrate|evaluate|apply|prove|find|report)\w*\b|\bon the (?:task|problem)\b)"
)
_LEADING_FILLER = re.compile(
    r"^(?:(?:a|an|the|two|three|several|some|new|novel|simple|general|simple but effective|principled"
    r"|efficient|effective|unified|first|fully|completely|powerful|surprisingly|more|very|our|its|their)\s+)+",
    re.I,
)
_GENERIC_HEADS = re.compile(
    r"^(approach|method|methods|framework|technique|techniques|model|models|algorithm|algorithms|system|systems"
    r"|solution|solutions|scheme|procedure|strategy|idea|way|architecture|formulation|analysis|study)"
    r"( (to|for|of|in|on)\b.*)?$",
    re.I,
)
_TITLE_SPLIT = re.compile(
    r"\s*:\s*|\s+(?=\b(?:with|via|using|through|by|based on|for|towards?)\b)", re.I
)
_TASK_OF = re.compile(
    r"\b(?:the (?:task|problem|goal|field|area) of|focus(?:es)? on(?: the (?:task|problem) of)?"
    r"|addresses the problem of)"
    r"\s+(.+)",
    re.I,
)
_TASK_SUBJECT = re.compile(r"^(.{3,80}?)\s+(?:\([^)]{1,15}\)\s+)?is (?:the|a|an) (?:task|problem|process)\b", re.I)
# A head noun after a coined name says what it is ("the FooNet system"): kept in the general phrase.
_DECOIN_HEADS = (
    r"system|model|method|approach|framework|algorithm|architecture|network|library|tool|technique|parser"
    r"|extractor|software|package|language|solution|prototype|distance|metric|measure|paradigm"
)
_CITATION = re.compile(r"\[[^\]]{0,40}\]|\([^()]*\d{4}[a-z]?[^()]*\)")


def _clean_sentence(s: str) -> str:
    return " ".join(_CITATION.sub("", s).split())


def _is_content(word: str) -> bool:
    w = word.lower()
    if w in STOPWORDS or len(w) < 2:
        return False
    if w in _KEEP_ING_ED:
        return True
    return not _VERBISH.match(w)


def candidate_phrases(text: str, max_words: int = 6) -> list[str]:
    """Candidate noun phrases: maximal runs of content words, two runs joined by one of/for/in/on."""
    words = [m.group(0) for m in _WORD.finditer(_clean_sentence(text))]
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(words):
        if _is_content(words[i]):
            j = i
            while j + 1 < len(words) and _is_content(words[j + 1]):
                j += 1
            runs.append((i, j))
            i = j + 1
        else:
            i += 1
    out: list[str] = []
    for a, b in runs:
        if b - a + 1 <= max_words:
            out.append(" ".join(words[a : b + 1]))
        else:  # a very long run is a list of words more often than a phrase: keep its tail
            out.append(" ".join(words[b - max_words + 1 : b + 1]))
    for (a1, b1), (a2, b2) in itertools.pairwise(runs):
        if a2 == b1 + 2 and words[b1 + 1].lower() in _JOINERS and (b2 - a1 + 1) <= max_words + 1:
            out.append(" ".join(words[a1 : b2 + 1]))
    seen: set[str] = set()
    uniq: list[str] = []
    for p in out:
        k = p.lower()
        if k not in seen and any(len(w) >= 4 for w in p.split()) and not re.fullmatch(r"[\d\W]+", p):
            seen.add(k)
            uniq.append(p)
    return uniq


def _strip_coined(phrase: str, coined: set[str]) -> str:
    kept = [w for w in phrase.split() if w.strip("()").casefold() not in coined]
    return " ".join(kept)


def _trim_words(phrase: str, max_words: int) -> str:
    words = phrase.split()[:max_words]
    while words and (words[-1].lower() in STOPWORDS or words[-1].lower() in _JOINERS):
        words.pop()
    while words and words[0].lower() in STOPWORDS:
        words.pop(0)
    return " ".join(words)


def _phrase(phrase: str, max_words: int) -> str:
    """`phrase` in at most `max_words` words, cut only where a phrase ends: before a function word ("of",
    "in", "for", "and", ...) that starts the next part, never inside a noun phrase ("Mining a literature graph
    in" + "Semantic Scholar" is not cut to "... in Semantic"). '' when there is no such place: no name is
    better than a fragment (SoIQ B.3 wants a "[General Task/Field of Study]", a whole noun phrase)."""
    # only true function words end a phrase: STOPWORDS also holds content words ("paper", "number", "method")
    # that keyphrase ranking skips, and cutting before or after one of those cuts a noun phrase in two
    words = phrase.split()
    cut = len(words)
    if cut > max_words:
        cut = next((k for k in range(max_words, 0, -1) if words[k].lower().strip(",;:") in FUNCTION_WORDS), 0)
    kept = words[:cut]
    while kept and kept[-1].lower().strip(",;:") in FUNCTION_WORDS:
        kept.pop()
    while kept and kept[0].lower() in FUNCTION_WORDS:
        kept.pop(0)
    return " ".join(kept)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


class _MemoEmbedder:
    """Embeds each distinct text once per paper (sentences are reused as ranking targets and pairs)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.dim = inner.dim
        self.model_name = inner.model_name
        self.memo: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str], **_: object) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self.memo))
        if todo:
            for t, v in zip(todo, self.inner.embed(todo), strict=True):
                self.memo[t] = v
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([self.memo[t] for t in texts])


@dataclass
class _Scored:
    index: int
    text: str
    score: float
    prefix: str = ""


class HeuristicExtractor:
    """Offline triple extractor (see module doc). Thread-safe; the embedder is the only state."""

    name = "heuristic"

    def __init__(self, embedder: Embedder, cfg: MinerSettings) -> None:
        self.embedder = embedder
        self.cfg = cfg

    # -- public ---------------------------------------------------------------------------------
    async def extract(self, paper: Paper) -> ExtractionResult:
        # CPU-bound (embeddings): off the event loop, so other papers' parsing and writes go on.
        return await asyncio.to_thread(self.extract_sync, paper)

    def extract_sync(self, paper: Paper) -> ExtractionResult:
        worker = copy.copy(self)  # per-call state, so threads can extract papers concurrently
        worker.embedder = _MemoEmbedder(self.embedder)  # type: ignore[assignment]
        return worker._extract(paper)

    def _extract(self, paper: Paper) -> ExtractionResult:
        inp = select_input(paper, self.cfg)
        res = ExtractionResult(
            paper_id=paper.paper_id, extractor="heuristic", sections_used=inp.sections_used, trimmed=inp.trimmed
        )
        if inp.unusable_reason:
            res.reason = inp.unusable_reason
            return res
        intro = paper.section("introduction") or inp.introduction
        abstract = inp.abstract
        coined = coined_terms(paper.title, f"{abstract}\n{intro}")
        sentences = self._sentences(abstract, intro)
        if not sentences:
            res.reason = "no sentences found in the abstract or Introduction"
            return res
        challenges = self._challenge_sentences(sentences)
        contributions = self._contribution_sentences(sentences)
        if not challenges or not contributions:
            missing = " and ".join(
                w for w, xs in (("challenge", challenges), ("contribution", contributions)) if not xs
            )
            res.reason = f"offline extractor found no {missing} statement in the abstract or Introduction"
            return res

        problem = self._problem(paper.title, abstract, intro, sentences, coined)
        if not problem.name:  # no whole phrase names the task (only fragments, or the paper's own method)
            res.reason = "offline extractor found no whole phrase that names the paper's task"
            return res
        pairs = self._pair(challenges, contributions, sentences)
        triples: list[ExtractedTriple] = []
        for ch, co in pairs:
            challenge = self._challenge_node(ch, sentences, problem, coined)
            solution = self._solution_node(co, problem, coined)
            if challenge is None or solution is None:
                continue
            section = "abstract" if sentences[co.index][0] == "abstract" else "introduction"
            # the evidence: the sentences each element was read from, as the paper prints them
            ch_quotes = [self._raw[ch.index]]
            if self._takes_next(ch, sentences):
                ch_quotes.append(self._raw[ch.index + 1])  # the description took the next sentence too
            triples.append(ExtractedTriple(
                problem=ExtractedNode.of(problem, self._problem_quotes(paper.title, problem, sentences)),
                challenge=ExtractedNode.of(challenge, ch_quotes),
                solution=ExtractedNode.of(solution, [self._raw[co.index]]),
                section=section,
            ))
        triples = dedupe(triples)
        if not triples:
            res.reason = "offline extractor could not name a challenge or solution from the cue sentences"
            return res
        violations = validate(
            triples, self.cfg, title=paper.title, text=inp.full_text(), embedder=self.embedder, check_form=True
        )
        for t, v in zip(triples, violations, strict=True):
            if v:
                res.rejected.append(RejectedTriple(triple=t, violations=v))
            else:
                res.triples.append(t)
        if not res.triples:
            res.reason = "offline triples failed validation: " + "; ".join(res.rejected[0].violations)
        return res

    # -- steps ------------------------------------------------------------------------------------
    def _problem_quotes(self, title: str, problem: NodeText, sentences: list[tuple[str, str]]) -> list[str]:
        """The problem's evidence: the defining sentence its description was taken from (when it was), and
        the title its name was read from."""
        quotes = [self._raw[i] for i, (_, s) in enumerate(sentences) if s == problem.description][:1]
        # a title too short to locate (evidence.MIN_QUOTE_WORDS) would count as a quote not found
        return [*quotes, title] if len(title.split()) >= MIN_QUOTE_WORDS else quotes

    def _sentences(self, abstract: str, intro: str) -> list[tuple[str, str]]:
        """Candidate sentences: cleaned of citations and pointers, without captions and roadmap
        sentences (they describe the document, not the research; see miner.scaffolding). Each one's
        text as printed (citations and all) is kept in `self._raw`, same index: the evidence quotes."""
        out: list[tuple[str, str]] = []
        self._raw: list[str] = []
        for where, text in (("abstract", abstract), ("introduction", intro)):
            for para in split_paragraphs(text):
                caption_follows = False
                for s in split_sentences(para):
                    if caption_follows or is_label_only(s):
                        caption_follows = is_label_only(s)  # "Table 2." then its caption, cut by the splitter
                        continue
                    if is_scaffolding(s):
                        continue
                    printed = s
                    s = strip_pointers(_clean_sentence(s))
                    if 6 <= len(s.split()) <= 80:
                        out.append((where, s))
                        self._raw.append(printed)
        return out

    def _challenge_sentences(self, sentences: list[tuple[str, str]]) -> list[_Scored]:
        scored: list[_Scored] = []
        for i, (_, s) in enumerate(sentences):
            score, prefix = 0.0, ""
            for pat, w, pre in CHALLENGE_PATTERNS:
                if pat.search(s):
                    if w > score:
                        prefix = pre
                    score += w
            if score == 0:
                continue
            if _SELF_REFERENCE.search(s) and not _CONTRAST.search(s):
                score *= 0.6  # the authors describing their own method, not a difficulty
            if _STRONG_CONTRIB.search(s):
                score *= 0.5
            if _EVALUATION.search(s):
                score *= 0.5  # reported results are not the difficulty
            if score >= 1.0:
                scored.append(_Scored(i, s, score, prefix))
        scored.sort(key=lambda x: (-x.score, x.index))
        return scored[: self.cfg.heuristic_max_triples * 2]

    def _contribution_sentences(self, sentences: list[tuple[str, str]]) -> list[_Scored]:
        scored: list[_Scored] = []
        for i, (_, s) in enumerate(sentences):
            if not CONTRIBUTION_CUES.search(s):
                continue
            score = 3.0 if _STRONG_CONTRIB.search(s) else 1.0
            if _CONTRIB_OBJECT.search(s):
                score += 1.0
            if _EVALUATION.search(s):
                score -= 1.5  # "we show that ..." reports results, not the method
            scored.append(_Scored(i, s, score))
        scored.sort(key=lambda x: (-x.score, x.index))
        return scored[: self.cfg.heuristic_max_triples * 2]

    def _rank(self, phrases: list[str], target: str, bonus: dict[str, float] | None = None) -> list[tuple[str, float]]:
        if not phrases:
            return []
        vecs = self.embedder.embed([target, *phrases])
        sims = vecs[1:] @ vecs[0]
        out = []
        for p, s in zip(phrases, sims, strict=True):
            n = len(p.split())
            out.append((p, float(s) + 0.03 * min(n, 4) + (bonus or {}).get(p, 0.0)))
        out.sort(key=lambda x: -x[1])
        return out

    def _problem(
        self, title: str, abstract: str, intro: str, sentences: list[tuple[str, str]], coined: set[str]
    ) -> NodeText:
        candidates: dict[str, float] = {}
        parts = [p.strip(" .") for p in _TITLE_SPLIT.split(title) if p and p.strip()]
        # Reattach the leading preposition dropped by the split: it says what role the segment plays.
        lowered = title.lower()
        for idx, part in enumerate(parts):
            words = part.split()
            if not words:
                continue
            lead = words[0].lower()
            seg = " ".join(words[1:]) if lead in {"with", "via", "using", "through", "by", "for", "from", "in",
                                                    "towards", "toward", "over", "based"} else part
            seg = re.sub(r"^on\s+", "", seg) if lead == "based" else seg
            seg = _phrase(_strip_coined(seg, coined), 7)
            if len(seg.split()) < 1 or not any(len(w) > 3 for w in seg.split()):
                continue
            b = 0.0
            if lead == "for":
                b += 0.15
            elif lead in {"with", "via", "using", "through", "by", "based"}:
                b -= 0.25  # the method, not the task
            elif idx == 0 and ":" in lowered and len(parts) > 1 and len(words) <= 2:
                b -= 0.3  # a short name before the colon is the system's name
            elif idx == 0:
                b += 0.05
            candidates[seg] = max(candidates.get(seg, -1.0), b)
        for where, s in sentences[:12]:
            m = _TASK_SUBJECT.search(s)
            if m:
                seg = _phrase(_strip_coined(m.group(1), coined), 7)
                if seg:
                    candidates.setdefault(seg, 0.2 if where == "abstract" else 0.1)
            m = _TASK_OF.search(s)
            if m:
                head = re.split(r"[,;:.]| that | which | where | is | are | was | has ", m.group(1))[0]
                seg = _phrase(_strip_coined(head, coined), 7)
                if seg and len(seg.split()) <= 7:
                    candidates.setdefault(seg, 0.1)
        target = " ".join([title, abstract[:600]])
        if title.isupper():  # an all-caps title: compare and print in sentence case
            candidates = {c.capitalize(): b for c, b in candidates.items()}
        if not candidates:
            candidates = {p: 0.0 for p in candidate_phrases(title, 7)}
        ranked = self._rank(list(candidates), target, candidates)
        # the best candidate that is a whole phrase of the title and not the paper's own method (B.3: the
        # problem is "the overall research task, domain, or high-level objective that the paper addresses")
        text = f"{abstract}\n{intro}"
        verbs, own = verbs_in(text), own_method_phrases(text)
        fallback = _phrase(title, 7)
        name = next((_cap(c) for c in [*(r[0] for r in ranked), *([fallback] if fallback else [])]
                     if not name_form_violations("problem", c, title=title, verbs=verbs, own=own)), "")
        return NodeText(name=name, description=self._problem_description(name, sentences))

    def _problem_description(self, name: str, sentences: list[tuple[str, str]]) -> str:
        for _, s in sentences[:15]:
            if _SELF_REFERENCE.search(s) or _PROBLEM_DESC_BANNED.search(s) or _CONTRAST.search(s):
                continue
            if len(s.split()) >= 6:
                return s
        return f"Research on {name.lower()}: methods and systems for this task."

    def _pair(
        self, challenges: list[_Scored], contributions: list[_Scored], sentences: list[tuple[str, str]]
    ) -> list[tuple[_Scored, _Scored]]:
        vc = self.embedder.embed([c.text for c in challenges])
        vs = self.embedder.embed([c.text for c in contributions])
        sim = vc @ vs.T
        # A challenge is usually stated before the contribution that answers it.
        order = np.array([[0.1 if c.index < s.index else 0.0 for s in contributions] for c in challenges])
        score = sim + order
        pairs: list[tuple[_Scored, _Scored]] = []
        used_c: set[int] = set()
        used_s: set[int] = set()
        for flat in np.argsort(-score, axis=None):
            i, j = divmod(int(flat), len(contributions))
            if i in used_c or j in used_s or (challenges[i].index == contributions[j].index and len(challenges) > 1):
                continue
            pairs.append((challenges[i], contributions[j]))
            used_c.add(i)
            used_s.add(j)
            if len(pairs) >= self.cfg.heuristic_max_triples:
                break
        pairs.sort(key=lambda p: p[1].index)
        return pairs

    def _difficulty_from_pattern(self, text: str, coined: set[str]) -> str | None:
        for pat, template in _DIFFICULTY_OBJECT:
            m = pat.search(text)
            if not m:
                continue
            x = _CLAUSE_END.sub("", m.group("x"))
            x = _phrase(_strip_coined(x, coined), 5)
            if not x or len(x.split()) < 1 or not any(len(w) > 3 for w in x.split()):
                continue
            if template == "{m}":
                head = m.group(0).split()[0].lower()
                name = f"{head.capitalize()} of {x}" if head not in ("cost", "expense") else f"High cost of {x}"
            elif "{adj_noun}" in template:
                name = template.format(adj_noun=_ADJ_NOUN[m.group("adj").lower()], x=x)
            else:
                name = template.format(x=x)
            return _cap(name)
        return None

    def _challenge_node(
        self, ch: _Scored, sentences: list[tuple[str, str]], problem: NodeText, coined: set[str]
    ) -> NodeText | None:
        context = _phrase(problem.name, 4).lower()  # the whole problem name, or a whole phrase of it
        direct = self._difficulty_from_pattern(ch.text, coined)
        if direct:
            name = direct if context in direct.lower() else f"{direct} in {context}"
            return NodeText(name=_cap(_phrase(name, 10)), description=self._challenge_desc(ch, sentences, coined))
        phrases = [_strip_coined(p, coined) for p in candidate_phrases(ch.text, 5)]
        phrases = [p for p in phrases if p and p.lower() not in problem.name.lower()]
        if not phrases:
            return None
        bonus = {p: 0.15 for p in phrases if DIFFICULTY_WORDS.search(p)}
        ranked = self._rank(phrases, ch.text, bonus)
        phrase = _trim_words(ranked[0][0], 5)
        if not phrase:
            return None
        head = phrase if DIFFICULTY_WORDS.search(phrase) else f"{ch.prefix or 'Limitations of'} {phrase.lower()}"
        name = head if not context or context in head.lower() else f"{head} in {context}"
        return NodeText(name=_cap(_phrase(name, 10)), description=self._challenge_desc(ch, sentences, coined))

    @staticmethod
    def _takes_next(ch: _Scored, sentences: list[tuple[str, str]]) -> bool:
        """A short challenge sentence is described together with the sentence after it."""
        nxt = ch.index + 1
        return len(ch.text.split()) < 20 and nxt < len(sentences) and sentences[nxt][0] == sentences[ch.index][0]

    def _challenge_desc(self, ch: _Scored, sentences: list[tuple[str, str]], coined: set[str]) -> str:
        desc = ch.text
        if self._takes_next(ch, sentences):
            desc = f"{desc} {sentences[ch.index + 1][1]}"
        return self._decoin(desc, coined)

    def _solution_node(self, co: _Scored, problem: NodeText, coined: set[str]) -> NodeText | None:
        obj = ""
        m = _CONTRIB_OBJECT.search(co.text)
        if m:
            obj = _OBJECT_END.split(m.group(1), maxsplit=1)[0].split(". ")[0].rstrip(" .")
            obj = _LEADING_FILLER.sub("", _strip_coined(obj, coined).strip())
            obj = _phrase(obj, 10)
        keyphrases = [p for p in (_strip_coined(x, coined) for x in candidate_phrases(co.text, 5)) if p]
        ranked = self._rank(keyphrases, co.text) if keyphrases else []
        if not obj or _GENERIC_HEADS.match(obj) or len(obj.split()) < 3:
            first = obj.split()[0].lower() if obj else ""
            head = first if _GENERIC_HEADS.match(first) else "method"
            tops: list[str] = []
            pwords = {w.lower() for w in problem.name.split()}
            verbs = verbs_in(co.text)
            for p, _ in ranked:
                low = p.lower()
                if set(low.split()) <= pwords or any(low in t or t in low for t in tops):
                    continue
                if low.split()[-1] in verbs:  # "... and extend": a verb of the sentence, not a component's name
                    continue
                tops.append(low)
                if len(tops) == 2:
                    break
            if not tops:
                return None
            tail = _phrase(" and ".join(tops), 8)
            return NodeText(name=_cap(f"{head} based on {tail}"), description=self._decoin(co.text, coined))
        if len(obj.split()) < 6:
            context = _phrase(problem.name, 4).lower()
            obj = f"{obj} for {context}" if context else obj
        name = _cap(_phrase(obj, 11))
        if not name:
            return None
        return NodeText(name=name, description=self._decoin(co.text, coined))

    @staticmethod
    def _decoin(text: str, coined: set[str]) -> str:
        """The text with the paper's own coined names (only those: see validation.coined_terms) made
        general: "the FooNet model" -> "the proposed model", "FooNet's" -> "the proposed method's", and an
        acronym after its long form ("... (FN)") dropped. Other systems' names stay as written."""
        for term in sorted(coined, key=len, reverse=True):
            t = re.escape(term)
            text = re.sub(rf"\s*\((?:the\s+)?{t}[^()\w][^()]{{0,3}}\)|\s*\((?:the\s+)?{t}\)", "", text, flags=re.I)
            # "a method (named X)", "a system called X that": the naming phrase goes, the named thing stays
            text = re.sub(rf"\s*\((?:called|named|dubbed|termed)\s+{t}\)", "", text, flags=re.I)
            naming = rf"\s*,?\s+(?:called|named|dubbed|termed)\s+{t}(?![\w-])(?:\s*,(?=\s))?"
            text = re.sub(naming, "", text, flags=re.I)
            # "the FooNet system" -> "the proposed system"; "a fully implemented FooNet system" keeps its adjectives
            text = re.sub(
                rf"\b(the|our|an?|this)\s+{t}(?![\w-])\s+({_DECOIN_HEADS})\b",
                lambda m: f"{'T' if m.group(1)[0].isupper() else 't'}he proposed {m.group(2)}",
                text,
                flags=re.I,
            )
            text = re.sub(
                rf"(?<=[\w,] )(?<![\w-]){t}(?![\w-])(?=\s+(?:{_DECOIN_HEADS})\b)", "proposed", text, flags=re.I
            )
            text = re.sub(rf"^{t}(?![\w-])(?=\s+(?:{_DECOIN_HEADS})\b)", "The proposed", text, flags=re.I)

            def general(m: re.Match[str], text: str = text) -> str:
                before = text[: m.start()].rstrip()
                upper = (m.group(1) or "")[:1].isupper() or (not m.group(1) and (not before or before[-1] in ".!?•"))
                return f"{'T' if upper else 't'}he proposed method"

            text = re.sub(rf"(?:\b(the|our|an?|this)\s+)?(?<![\w-]){t}(?![\w-])", general, text, flags=re.I)
        return text
