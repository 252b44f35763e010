"""The planted set for the evidence verifier (#39), built from parsed papers at run time (nothing is keyed
to a corpus file): true quotes damaged the way PDFs damage text, which the verifier must locate, and
paraphrases, invented sentences and other papers' sentences, which it must reject.

Positives (a sentence of the paper, then one damage each):
- hyphen: a long word broken at a line end ("recog- nition", "recog-\\nnition");
- ligature: fi/fl/ff/ffi/ffl as the single ligature characters PDFs use;
- page: the sentence runs across a page break — the *paper* gets a running head and a page number
  between its halves (the quote is the clean sentence);
- typography: curly quotes, en/em dashes, line breaks and doubled spaces;
- citations dropped: the quote leaves out a bracketed or parenthesised citation the paper prints.
Negatives:
- paraphrase: academic synonyms swapped in and the clauses around a comma (or a "because/since/while"
  subordinate clause) reordered; kept only when at least 30 % of the words changed;
- invented: a claim written from the paper's own content words (what a model that invents does: it reuses
  the paper's vocabulary in a sentence the paper does not contain);
- other paper: a sentence of another paper of the set.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from motivgraph.ingest.models import Paper
from motivgraph.miner.text import split_paragraphs, split_sentences

SYNONYMS = {
    "method": "technique", "methods": "techniques", "approach": "strategy", "approaches": "strategies",
    "use": "employ", "uses": "employs", "used": "employed", "using": "employing", "show": "demonstrate",
    "shows": "demonstrates", "shown": "demonstrated", "improve": "enhance", "improves": "enhances",
    "improved": "enhanced", "large": "big", "small": "little", "important": "crucial", "however": "nevertheless",
    "problem": "issue", "problems": "issues", "difficult": "hard", "challenging": "demanding", "many": "numerous",
    "different": "distinct", "various": "diverse", "often": "frequently", "significant": "substantial",
    "significantly": "substantially", "propose": "put forward", "proposed": "put forward", "new": "novel",
    "novel": "new", "result": "outcome", "results": "outcomes", "performance": "effectiveness",
    "accuracy": "correctness", "data": "information", "model": "system", "models": "systems", "task": "job",
    "tasks": "jobs", "study": "examine", "studies": "examinations", "paper": "article", "work": "research",
    "achieve": "attain", "achieves": "attains", "obtain": "get", "require": "need", "requires": "needs",
    "provide": "offer", "provides": "offers", "allow": "permit", "allows": "permits", "based": "founded",
    "because": "since", "therefore": "thus", "thus": "hence", "also": "additionally", "such": "these",
    "existing": "current", "previous": "earlier", "recent": "latest", "first": "initial", "main": "primary",
    "key": "central", "help": "aid", "helps": "aids", "increase": "raise", "reduce": "lower", "reduces": "lowers",
    "large-scale": "extensive", "effective": "efficient", "efficient": "effective", "limited": "restricted",
    "information": "knowledge", "knowledge": "information", "learn": "acquire", "learning": "training",
    "explore": "investigate", "investigate": "explore", "identify": "recognise", "build": "construct",
    "develop": "create", "developed": "created", "design": "devise", "designed": "devised", "this": "the present",
    "these": "such", "in": "within", "on": "upon", "for": "towards", "can": "is able to", "is": "remains",
    "are": "remain", "of": "regarding", "we": "the authors",
}
_SUBORDINATE = re.compile(r"^(.*?),?\s+\b(because|since|while|although|whereas|as)\b\s+(.*)$", re.I)
_LIGATURES = [("ffi", "\ufb03"), ("ffl", "\ufb04"), ("ff", "\ufb00"), ("fi", "\ufb01"), ("fl", "\ufb02")]
_CITE = re.compile(r"\s*(\[[^\]]{1,40}\]|\([A-Z][^()]{0,60}\d{4}[a-z]?\))")
RUNNING_HEAD = "\n\n{n}\n\nProceedings of the Workshop on Example Systems, pages {n}-{m}\n\n"


@dataclass
class Planted:
    kind: str
    paper: Paper  # the paper to verify against (a page-break case alters it)
    quote: str
    positive: bool


def sentences_of(paper: Paper, lo: int = 10, hi: int = 60) -> list[tuple[int | None, str]]:
    """(section index or None for the abstract, sentence) of the abstract and the Introduction-like
    sections, each a plain prose sentence of lo..hi words that occurs once in the text."""
    out: list[tuple[int | None, str]] = []
    ft = paper.full_text()
    blocks: list[tuple[int | None, str]] = [(None, paper.abstract)]
    blocks += [(k, s.text) for k, s in enumerate(paper.sections) if s.role in ("introduction", "method")]
    for where, text in blocks:
        for para in split_paragraphs(text):
            for s in split_sentences(para):
                n = len(s.split())
                if lo <= n <= hi and s in ft and ft.count(s) == 1 and sum(c.isalpha() for c in s) > 0.7 * len(s):
                    out.append((where, s))
    return out


def _hyphen(s: str, rng: random.Random) -> str | None:
    words = [m for m in re.finditer(r"[a-z]{9,}", s)]
    if not words:
        return None
    m = rng.choice(words)
    cut = m.start() + rng.randint(3, len(m.group()) - 3)
    return s[:cut] + rng.choice(["- ", "-\n", "-  "]) + s[cut:]


def _ligature(s: str) -> str | None:
    out = s
    for plain, lig in _LIGATURES:
        out = out.replace(plain, lig)
    return out if out != s else None


def _typography(s: str, rng: random.Random) -> str:
    words = s.split(" ")
    for _ in range(3):
        k = rng.randrange(len(words))
        words[k] = words[k] + rng.choice(["\n", "  ", "\t"])
    out = " ".join(words).replace(" - ", " \u2013 ").replace("'", "\u2019")
    return out.replace('"', "\u201c", 1).replace('"', "\u201d", 1)


def _paraphrase(s: str, rng: random.Random) -> str | None:
    words = s.rstrip(".").split()
    changed = 0
    out = []
    for w in words:
        core = w.strip(",;:()").lower()
        if core in SYNONYMS and rng.random() < 0.9:
            rep = SYNONYMS[core]
            if w[:1].isupper():
                rep = rep[:1].upper() + rep[1:]
            out.append(w.lower().replace(core, rep) if w.lower() != core else rep)
            changed += 1
        else:
            out.append(w)
    text = " ".join(out)
    m = _SUBORDINATE.match(text)
    if m and len(m.group(1).split()) >= 3 and len(m.group(3).split()) >= 3:
        text = f"{m.group(2).capitalize()} {m.group(3)}, {m.group(1)[:1].lower()}{m.group(1)[1:]}"
        changed += 2
    elif "," in text:
        a, b = text.split(",", 1)
        if len(a.split()) >= 3 and len(b.split()) >= 3:
            text = f"{b.strip()[:1].upper()}{b.strip()[1:]}, {a[:1].lower()}{a[1:]}"
            changed += 2
    if changed < 0.3 * len(words):
        return None  # too close to the original to be a paraphrase
    return text + "."


_TEMPLATES = [
    "We show that {a} consistently outperforms {b} on every benchmark we consider.",
    "Our analysis proves that {a} is unnecessary once {b} is available.",
    "To our knowledge this is the first work to combine {a} with {b} at scale.",
    "The main limitation of {a} is that it ignores {b} entirely.",
    "In contrast to prior studies, {a} reduces the cost of {b} by an order of magnitude.",
]


def _invented(paper: Paper, rng: random.Random) -> str | None:
    words = re.findall(r"\b[a-z]{6,}\b", f"{paper.abstract} {paper.section('introduction')}".lower())
    common = sorted(set(words))
    if len(common) < 6:
        return None
    a = " ".join(rng.sample(common, 2))
    b = " ".join(rng.sample(common, 2))
    return rng.choice(_TEMPLATES).format(a=a, b=b)


def _across_page_break(paper: Paper, where: int | None, s: str, rng: random.Random) -> Paper | None:
    """A copy of the paper whose text has a running head and a page number inside the sentence."""
    words = s.split(" ")
    if len(words) < 8:
        return None
    k = rng.randint(3, len(words) - 3)
    head = RUNNING_HEAD.format(n=rng.randint(2, 30), m=rng.randint(31, 60))
    broken = " ".join(words[:k]) + head + " ".join(words[k:])
    p = paper.model_copy(deep=True)
    if where is None:
        if s not in p.abstract:
            return None
        p.abstract = p.abstract.replace(s, broken, 1)
    else:
        if s not in p.sections[where].text:
            return None
        p.sections[where].text = p.sections[where].text.replace(s, broken, 1)
    return p


def planted_set(papers: list[Paper], per_paper: int = 6, seed: int = 39) -> list[Planted]:
    rng = random.Random(seed)
    pool = {p.paper_id: sentences_of(p) for p in papers}
    out: list[Planted] = []
    for i, paper in enumerate(papers):
        sents = pool[paper.paper_id]
        if len(sents) < 4:
            continue
        picks = rng.sample(sents, min(per_paper, len(sents)))
        for where, s in picks:
            if (h := _hyphen(s, rng)) is not None:
                out.append(Planted("hyphen", paper, h, True))
            if (lg := _ligature(s)) is not None:
                out.append(Planted("ligature", paper, lg, True))
            out.append(Planted("typography", paper, _typography(s, rng), True))
            if (pb := _across_page_break(paper, where, s, rng)) is not None:
                out.append(Planted("page", pb, s, True))
            if _CITE.search(s):
                out.append(Planted("citation dropped", paper, _CITE.sub("", s), True))
            if (para := _paraphrase(s, rng)) is not None:
                out.append(Planted("paraphrase", paper, para, False))
        for _ in range(2):
            if (inv := _invented(paper, rng)) is not None:
                out.append(Planted("invented", paper, inv, False))
        others = [q for pid, ss in pool.items() if pid != paper.paper_id for _, q in ss]
        for q in rng.sample(others, min(3, len(others))):
            out.append(Planted("other paper", paper, q, False))
        del i
    return out
