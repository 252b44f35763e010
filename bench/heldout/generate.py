"""Typeset the held-out parser set: papers written for this set (bench/heldout/bank.py) in the real publisher
classes of Debian's TeX Live, each PDF with its truth as JSON beside it.

    .venv/bin/python bench/heldout/generate.py             # typeset the set (cached), print its folder
    .venv/bin/python bench/heldout/generate.py --keep-tex /tmp/heldout-tex   # also keep the .tex sources

Needs `pdflatex` and the classes of texlive-publishers, texlive-science, texlive-latex-extra,
texlive-fonts-extra, texlive-lang-{german,french,spanish}, texlive-pictures (`./scripts/setup.sh --with-tex`).

The set is typeset at test time, not committed (30 PDFs with their embedded fonts are ~6 MB, more than the
whole repository): it is cached in `$MOTIVGRAPH_HELDOUT_DIR`, else `~/.cache/motivgraph/heldout/<digest>/`, where
the digest is that of this script and the text bank (and the pdflatex version), so a change to either typesets
it again and an unchanged source reuses it (~1 minute on 2 cores to build). Without pdflatex the callers skip with
that reason (tests/unit/ingest/test_ingest_heldout.py).

Two splits (the `split` of every document):
- FROZEN (`frozen/`): no parser change is ever tuned on these documents. Do not open them, their text or their
  per-document results while changing the parser; only the aggregate figures of `bench_parse_quality.py` may be
  read. Their topics (bank.TOPICS[0:6] and the Spanish front matter) appear nowhere in the dev split.
- DEV (`dev/`): look at these freely when a figure goes wrong.

Every truth value comes from the source: title, authors, the abstract's first and last words, the first body
heading with its printed number, the first body words, the number of references, and the DOI when one is printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bank import (  # a script run from anywhere: its folder first
    AFFILIATIONS,
    BODY,
    FOREIGN,
    PEOPLE,
    REF_TITLES,
    TOPICS,
    VENUES,
)

HERE = Path(__file__).resolve().parent
SOURCES = (HERE / "bank.py", HERE / "generate.py")


@dataclass(frozen=True)
class Doc:
    name: str
    split: str  # "frozen" or "dev"
    cls: str  # a key of CLASSES
    topic: int | None  # index into bank.TOPICS; None with `lang`
    n_authors: int = 3
    long_title: bool = False
    refs: int = 12
    authoryear: bool = False
    lead: str | None = None  # "blank" (an empty first page) or "cover" (a report cover sheet)
    figure: bool = False  # a plot with very large axis labels in the Introduction on page 1
    doi: str | None = None
    lang: str | None = None  # front matter (title, abstract, first section) in this babel language
    seed: int = 0


DOCS: tuple[Doc, ...] = (
    # ---- FROZEN: never tuned on ----
    Doc("f01_acm_sigconf", "frozen", "acmart", 0, n_authors=3, refs=14, doi="10.1145/3701234.3701299"),
    Doc("f02_ieee_conf", "frozen", "ieeeconf", 1, n_authors=4, refs=18),
    Doc("f03_llncs", "frozen", "llncs", 2, n_authors=3, refs=11),
    Doc("f04_elsarticle_authoryear", "frozen", "elsarticle", 3, n_authors=4, refs=15, authoryear=True,
        doi="10.1016/j.tsf.2024.140312"),
    Doc("f05_revtex_figure", "frozen", "revtex", 3, n_authors=3, refs=20, figure=True),
    Doc("f06_article_blank_first", "frozen", "article", 4, n_authors=2, refs=10, lead="blank"),
    Doc("f07_article_cover_authoryear", "frozen", "article", 5, n_authors=2, refs=9, lead="cover", authoryear=True),
    Doc("f08_ieee_journal_many", "frozen", "ieeejournal", 5, n_authors=8, long_title=True, refs=24),
    Doc("f09_mnras_long", "frozen", "mnras", 0, n_authors=5, long_title=True, refs=13, authoryear=True),
    Doc("f10_spanish_front", "frozen", "article", None, n_authors=3, refs=10, lang="spanish"),
    Doc("f11_acm_authoryear_many", "frozen", "acmart", 4, n_authors=7, refs=16, authoryear=True, seed=3),
    Doc("f12_llncs_long_figure", "frozen", "llncs", 1, n_authors=5, long_title=True, refs=12, figure=True, seed=5),
    Doc("f13_elsarticle_5p", "frozen", "elsarticle5p", 2, n_authors=3, refs=17, seed=7),
    Doc("f14_aastex", "frozen", "aastex", 3, n_authors=4, refs=14, authoryear=True, seed=2),
    Doc("f15_amsart", "frozen", "amsart", 2, n_authors=2, refs=8, seed=4),
    # ---- DEV: may be looked at ----
    Doc("d01_acm_sigconf", "dev", "acmart", 6, n_authors=4, refs=15, doi="10.1145/3708888.3708901", seed=11),
    Doc("d02_ieee_conf_figure", "dev", "ieeeconf", 7, n_authors=3, refs=16, figure=True, seed=12),
    Doc("d03_llncs_many", "dev", "llncs", 8, n_authors=6, refs=13, seed=13),
    Doc("d04_elsarticle_structured", "dev", "elsarticle", 11, n_authors=5, refs=19, authoryear=True, seed=14,
        doi="10.1016/j.jbi.2025.104702"),
    Doc("d05_revtex_figure", "dev", "revtex", 7, n_authors=2, refs=22, figure=True, seed=15),
    Doc("d06_article_blank_first", "dev", "article", 9, n_authors=3, refs=11, lead="blank", seed=16),
    Doc("d07_article_cover", "dev", "article", 10, n_authors=2, refs=10, lead="cover", seed=17),
    Doc("d08_ieee_journal_long", "dev", "ieeejournal", 10, n_authors=7, long_title=True, refs=21, seed=18),
    Doc("d09_german_front", "dev", "article", None, n_authors=2, refs=9, lang="german", seed=19),
    Doc("d10_french_front", "dev", "elsarticle", None, n_authors=3, refs=12, lang="french", seed=20),
    Doc("d11_mnras", "dev", "mnras", 6, n_authors=4, refs=12, authoryear=True, seed=21),
    Doc("d12_aastex_long", "dev", "aastex", 8, n_authors=3, long_title=True, refs=15, authoryear=True, seed=22),
    Doc("d13_amsart_structured", "dev", "amsart", 11, n_authors=3, refs=9, seed=23),
    Doc("d14_acm_authoryear_figure", "dev", "acmart", 9, n_authors=5, refs=14, authoryear=True, figure=True,
        seed=24),
    Doc("d15_elsarticle_5p_many", "dev", "elsarticle5p", 6, n_authors=9, long_title=True, refs=18, seed=25),
    # more dev layouts, one per configuration of the frozen split (dev text): wider dev coverage, nothing read
    # off the frozen documents
    Doc("d16_llncs_long_figure", "dev", "llncs", 10, n_authors=5, long_title=True, refs=12, figure=True, seed=26),
    Doc("d17_article_cover_authoryear", "dev", "article", 7, n_authors=2, refs=9, lead="cover", authoryear=True,
        seed=27),
    Doc("d18_ieee_journal_many", "dev", "ieeejournal", 9, n_authors=8, long_title=True, refs=24, seed=28),
    Doc("d19_aastex_authoryear", "dev", "aastex", 6, n_authors=4, refs=14, authoryear=True, seed=29),
    Doc("d20_amsart", "dev", "amsart", 8, n_authors=2, refs=8, seed=30),
    Doc("d21_revtex_figure", "dev", "revtex", 10, n_authors=3, refs=20, figure=True, seed=31),
    Doc("d22_elsarticle_authoryear", "dev", "elsarticle", 9, n_authors=4, refs=15, authoryear=True, seed=32,
        doi="10.1016/j.simpat.2025.103011"),
    Doc("d23_mnras_long", "dev", "mnras", 7, n_authors=5, long_title=True, refs=13, authoryear=True, seed=33),
    Doc("d24_acm_authoryear_many", "dev", "acmart", 8, n_authors=7, refs=16, authoryear=True, seed=34),
    Doc("d25_elsarticle_5p", "dev", "elsarticle5p", 10, n_authors=3, refs=17, seed=35),
    Doc("d26_article_blank_first", "dev", "article", 6, n_authors=2, refs=10, lead="blank", seed=36),
)

# The number each class prints before the first section ("1", "I", "1."); compared without the dot.
FIRST_NUMBER = {"ieeeconf": "I", "ieeejournal": "I", "revtex": "I"}


def esc(text: str) -> str:
    """LaTeX-safe text (the bank holds no markup)."""
    return text.replace("&", r"\&").replace("%", r"\%").replace("#", r"\#").replace("_", r"\_")


class DrawnPaper:
    """One document's parts, drawn from the bank with the document's seed."""

    def __init__(self, doc: Doc) -> None:
        rng = random.Random(f"{doc.name}:{doc.seed}")
        self.doc = doc
        people = list(PEOPLE)
        rng.shuffle(people)
        self.authors = people[: doc.n_authors]
        affs = list(AFFILIATIONS)
        rng.shuffle(affs)
        n_aff = max(1, min(len(affs), (doc.n_authors + 1) // 2))
        self.affs = affs[:n_aff]
        self.aff_of = [k % n_aff for k in range(doc.n_authors)]
        if doc.lang:
            label, title, abstract, head, para = FOREIGN[doc.lang]
            self.title, self.abstract, self.structured = title, abstract, ()
            self.first_head, self.intro = head, (para, TOPICS[6 + doc.seed % 6].intro[1])
            self.thing, self.data = "proposed method", "the collected data"
            self.abstract_label = label
        else:
            assert doc.topic is not None
            t = TOPICS[doc.topic]
            self.title = t.long_title if doc.long_title else t.title
            self.abstract, self.structured = t.abstract, t.structured
            self.first_head, self.intro = "Introduction", t.intro
            self.thing, self.data = t.thing, t.data
            self.abstract_label = "Abstract"
        self.refs = self._references(rng)

    def _references(self, rng: random.Random) -> list[tuple[str, str, str]]:
        """(key, natbib label, entry text) per reference."""
        out = []
        for k in range(self.doc.refs):
            who = rng.sample(PEOPLE, rng.randint(1, 3))
            year = rng.randint(1998, 2024)
            title = REF_TITLES[(k + self.doc.seed) % len(REF_TITLES)]
            venue = VENUES[rng.randrange(len(VENUES))]
            vol, page = rng.randint(3, 60), rng.randint(1, 900)
            surnames = [w.split()[-1] for w in who]
            if self.doc.authoryear:
                names = ", ".join(f"{w.split()[-1]}, {w.split()[0][0]}." for w in who)
                more = " et~al." if len(who) > 2 else f" and {surnames[1]}" if len(who) == 2 else ""
                label = f"{surnames[0]}{more}({year})"
                text = f"{names}, {year}. {title}. \\emph{{{venue}}} {vol}, {page}--{page + 11}."
            else:
                names = ", ".join(f"{w.split()[0][0]}. {w.split()[-1]}" for w in who)
                label = ""
                text = f"{names}, ``{title},'' in \\emph{{{venue}}}, vol.~{vol}, {year}, pp.~{page}--{page + 11}."
            out.append((f"r{k + 1}", label, esc(text).replace(r"\\emph", r"\emph")))
        return out

    # --- body -----------------------------------------------------------------------------------------------
    def cites(self, a: int, b: int) -> str:
        keys = ",".join(k for k, _, _ in self.refs[a:b])
        return f"~\\cite{{{keys}}}" if keys else ""

    def body(self, roman_sub: bool = False) -> str:
        fill = {"thing": self.thing, "data": self.data}
        n = len(self.refs)
        parts = [f"\\section{{{esc(self.first_head)}}}\\label{{sec:intro}}", esc(self.intro[0]) + self.cites(0, 2)]
        if self.doc.figure:
            parts.append(FIGURE)
        parts += [esc(self.intro[1]) + self.cites(2, 3), "\\section{Related Work}"]
        parts += [esc(BODY["related"][0]) + self.cites(3, n // 2), esc(BODY["related"][1]) + self.cites(n // 2, n)]
        parts.append("\\section{Method}")
        for k, para in enumerate(BODY["method"]):
            if k == 1:
                parts.append("\\subsection{Estimation and Budget}")
            parts.append(esc(para.format(**fill)))
        parts.append("\\section{Experiments}")
        parts += [esc(p.format(**fill)) for p in BODY["experiments"]]
        parts += ["\\section{Conclusion}", esc(BODY["conclusion"][0].format(**fill))]
        return "\n\n".join(parts)

    def bibliography(self) -> str:
        items = "\n".join(
            f"\\bibitem[{label}]{{{key}}} {text}" if label else f"\\bibitem{{{key}}} {text}"
            for key, label, text in self.refs
        )
        return f"\\begin{{thebibliography}}{{99}}\n{items}\n\\end{{thebibliography}}"

    def abstract_tex(self) -> str:
        if self.structured:
            return "\n".join(f"\\textbf{{{label}.}} {esc(text)}" for label, text in self.structured)
        return esc(self.abstract)

    def abstract_plain(self) -> str:
        if self.structured:
            return " ".join(f"{label}. {text}" for label, text in self.structured)
        return self.abstract

    def lead_page(self) -> str:
        if self.doc.lead == "blank":
            return "\\thispagestyle{empty}\\null\\newpage\n"
        if self.doc.lead == "cover":
            inst, addr = self.affs[0]
            return (
                "\\begin{titlepage}\\centering\n{\\Large Technical Report TR-2025-" + str(17 + self.doc.seed)
                + "\\par}\\vspace{3cm}\n{\\Huge\\bfseries " + esc(self.title) + "\\par}\\vspace{2cm}\n{\\Large "
                + esc(" and ".join(self.authors)) + "\\par}\\vspace{1cm}\n{\\large " + esc(inst) + "\\\\ "
                + esc(addr) + "\\par}\\vfill\n{\\large March 2025\\par}\n\\end{titlepage}\n"
            )
        return ""

    def truth(self) -> dict[str, object]:
        words = self.abstract_plain().split()
        intro = self.intro[0].split()
        return {
            "title": self.title,
            "authors": self.authors,
            "abstract_first_words": " ".join(words[:8]),
            "abstract_last_words": " ".join(words[-8:]),
            "abstract_words": len(words),
            "structured_abstract": bool(self.structured),
            "first_heading": self.first_head,
            "first_heading_number": FIRST_NUMBER.get(self.doc.cls, "1"),
            "first_words": " ".join(intro[:8]),
            "references": len(self.refs),
            "reference_style": "author-year" if self.doc.authoryear else "numbered",
            "doi": self.doi,
            "arxiv_id": None,
            "class": self.doc.cls,
            "lang": self.doc.lang or "english",
            "lead_page": self.doc.lead,
            "large_figure_labels": self.doc.figure,
            "split": self.doc.split,
        }

    @property
    def doi(self) -> str | None:
        return self.doc.doi


FIGURE = r"""
\begin{figure}[h!]
\centering
\begin{tikzpicture}
\begin{axis}[width=0.95\columnwidth, height=5cm, xlabel={Budget}, ylabel={Gain},
  label style={font=\Huge}, tick label style={font=\LARGE}, xmin=0, xmax=4, ymin=0, ymax=4]
\addplot[thick, mark=*] coordinates {(0,0.5) (1,1.4) (2,2.2) (3,2.7) (4,2.9)};
\end{axis}
\end{tikzpicture}
\caption{Gain against budget on a held-out period.}
\end{figure}
"""

PREAMBLE_COMMON = r"""\usepackage[T1]{fontenc}
\usepackage{lmodern}
\usepackage[utf8]{inputenc}
\usepackage{pgfplots}
\pgfplotsset{compat=1.17}
\pdfinfoomitdate=1
\pdftrailerid{}
"""


def _babel(p: DrawnPaper) -> str:
    return f"\\usepackage[english,{p.doc.lang}]{{babel}}\n" if p.doc.lang else ""


def _select(p: DrawnPaper) -> str:
    return f"\\selectlanguage{{{p.doc.lang}}}\n" if p.doc.lang else ""


def _natbib(p: DrawnPaper, numbers: bool = True) -> str:
    if p.doc.authoryear:
        return "\\usepackage[authoryear]{natbib}\n"
    return "\\usepackage[numbers]{natbib}\n" if numbers else ""


def tex_article(p: DrawnPaper) -> str:
    auth = " \\and ".join(
        f"{esc(a)}\\\\ {{\\small {esc(p.affs[p.aff_of[k]][0])}, {esc(p.affs[p.aff_of[k]][1])}}}"
        for k, a in enumerate(p.authors)
    )
    doi = f"\\\\[1ex] {{\\small DOI: {p.doi}}}" if p.doi else ""
    abstract_label = f"\\renewcommand{{\\abstractname}}{{{p.abstract_label}}}\n" if p.doc.lang else ""
    return (
        "\\documentclass[11pt]{article}\n" + PREAMBLE_COMMON + _babel(p) + _natbib(p)
        + "\\usepackage[margin=1in]{geometry}\n"
        + f"\\title{{{esc(p.title)}}}\n\\author{{{auth}}}\n\\date{{March 2025{doi}}}\n"
        + "\\begin{document}\n" + _select(p) + abstract_label + p.lead_page() + "\\maketitle\n"
        + f"\\begin{{abstract}}\n{p.abstract_tex()}\n\\end{{abstract}}\n"
        + p.body() + "\n" + p.bibliography() + "\n\\end{document}\n"
    )


def tex_acmart(p: DrawnPaper) -> str:
    authors = "\n".join(
        f"\\author{{{esc(a)}}}\n\\affiliation{{\\institution{{{esc(p.affs[p.aff_of[k]][0])}}}"
        f"\\city{{{esc(p.affs[p.aff_of[k]][1].split(',')[0])}}}"
        f"\\country{{{esc(p.affs[p.aff_of[k]][1].split(',')[-1].strip())}}}}}\n"
        f"\\email{{{a.split()[-1].lower().replace(chr(39), '')}@example.org}}"
        for k, a in enumerate(p.authors)
    )
    doi = f"\\acmDOI{{{p.doi}}}\n" if p.doi else ""
    cite = "\\citestyle{acmauthoryear}\n" if p.doc.authoryear else ""
    return (
        "\\documentclass[sigconf]{acmart}\n\\usepackage{pgfplots}\n\\pgfplotsset{compat=1.17}\n"
        "\\pdfinfoomitdate=1\n\\pdftrailerid{}\n"
        "\\setcopyright{acmlicensed}\\copyrightyear{2025}\\acmYear{2025}\n" + doi
        + "\\acmConference[HX '25]{Held-out Example Conference}{June 2025}{Springfield, IL, USA}\n"
        + cite + "\\begin{document}\n"
        + f"\\title{{{esc(p.title)}}}\n{authors}\n"
        + f"\\begin{{abstract}}\n{p.abstract_tex()}\n\\end{{abstract}}\n"
        + "\\keywords{held-out evaluation, layout, parsing}\n\\maketitle\n"
        + p.body() + "\n" + p.bibliography() + "\n\\end{document}\n"
    )


def _ieee_authors(p: DrawnPaper) -> str:
    blocks = []
    for k, a in enumerate(p.authors):
        inst, addr = p.affs[p.aff_of[k]]
        blocks.append(f"\\IEEEauthorblockN{{{esc(a)}}}\n\\IEEEauthorblockA{{{esc(inst)}\\\\ {esc(addr)}}}")
    return "\n\\and\n".join(blocks)


def tex_ieee(p: DrawnPaper, journal: bool) -> str:
    if journal:
        names = ", ".join(esc(a) for a in p.authors[:-1]) + f", and {esc(p.authors[-1])}"
        thanks = "; ".join(f"{esc(i)}, {esc(a)}" for i, a in p.affs)
        author = f"\\author{{{names}% \n\\thanks{{The authors are with {thanks}.}}}}"
        cls = "\\documentclass[journal]{IEEEtran}\n"
    else:
        author = f"\\author{{{_ieee_authors(p)}}}"
        cls = "\\documentclass[conference]{IEEEtran}\n"
    return (
        cls + PREAMBLE_COMMON + _natbib(p) + "\\begin{document}\n"
        + f"\\title{{{esc(p.title)}}}\n{author}\n\\maketitle\n"
        + f"\\begin{{abstract}}\n{p.abstract_tex()}\n\\end{{abstract}}\n"
        + "\\begin{IEEEkeywords}\nheld-out evaluation, layout analysis\n\\end{IEEEkeywords}\n"
        + p.body() + "\n" + p.bibliography() + "\n\\end{document}\n"
    )


def tex_llncs(p: DrawnPaper) -> str:
    names = " \\and ".join(f"{esc(a)}\\inst{{{p.aff_of[k] + 1}}}" for k, a in enumerate(p.authors))
    inst = " \\and ".join(f"{esc(i)}, {esc(a)}\\\\ \\email{{office{k}@example.org}}"
                          for k, (i, a) in enumerate(p.affs))
    return (
        "\\documentclass{llncs}\n" + PREAMBLE_COMMON + _natbib(p) + "\\begin{document}\n"
        + f"\\title{{{esc(p.title)}}}\n\\author{{{names}}}\n\\institute{{{inst}}}\n\\maketitle\n"
        + f"\\begin{{abstract}}\n{p.abstract_tex()}\n\\keywords{{held-out evaluation \\and layout}}\n"
        + "\\end{abstract}\n" + p.body() + "\n" + p.bibliography() + "\n\\end{document}\n"
    )


def tex_elsarticle(p: DrawnPaper, fivep: bool) -> str:
    opts = "5p,twocolumn" if fivep else "preprint,12pt"
    opts += ",authoryear" if p.doc.authoryear else ",number"
    letters = "abcdefghij"
    authors = "\n".join(f"\\author[{letters[p.aff_of[k]]}]{{{esc(a)}}}" for k, a in enumerate(p.authors))
    affs = "\n".join(f"\\affiliation[{letters[k]}]{{organization={{{esc(i)}}}, addressline={{{esc(a)}}}}}"
                     for k, (i, a) in enumerate(p.affs))
    doi = f"\\\\ DOI: {p.doi}" if p.doi else ""
    label = f"\\renewcommand{{\\abstractname}}{{{p.abstract_label}}}\n" if p.doc.lang else ""
    return (
        f"\\documentclass[{opts}]{{elsarticle}}\n" + PREAMBLE_COMMON + _babel(p)
        + "\\journal{Journal of Held-out Examples" + doi + "}\n\\begin{document}\n" + _select(p) + label
        + "\\begin{frontmatter}\n"
        + f"\\title{{{esc(p.title)}}}\n{authors}\n{affs}\n"
        + f"\\begin{{abstract}}\n{p.abstract_tex()}\n\\end{{abstract}}\n"
        + "\\begin{keyword}\nheld-out evaluation \\sep layout analysis\n\\end{keyword}\n\\end{frontmatter}\n"
        + p.body() + "\n" + p.bibliography() + "\n\\end{document}\n"
    )


def tex_revtex(p: DrawnPaper) -> str:
    authors = "\n".join(f"\\author{{{esc(a)}}}\n\\affiliation{{{esc(p.affs[p.aff_of[k]][0])}, "
                        f"{esc(p.affs[p.aff_of[k]][1])}}}" for k, a in enumerate(p.authors))
    return (
        "\\documentclass[aps,prb,reprint]{revtex4-2}\n\\usepackage{pgfplots}\n\\pgfplotsset{compat=1.17}\n"
        "\\pdfinfoomitdate=1\n\\pdftrailerid{}\n\\begin{document}\n"
        + f"\\title{{{esc(p.title)}}}\n{authors}\n\\date{{\\today}}\n"
        + f"\\begin{{abstract}}\n{p.abstract_tex()}\n\\end{{abstract}}\n\\maketitle\n"
        + p.body() + "\n" + p.bibliography() + "\n\\end{document}\n"
    )


def tex_mnras(p: DrawnPaper) -> str:
    names = ", ".join(f"{esc(a)}$^{{{p.aff_of[k] + 1}}}$" for k, a in enumerate(p.authors))
    affs = "\\\\\n".join(f"$^{{{k + 1}}}${esc(i)}, {esc(a)}" for k, (i, a) in enumerate(p.affs))
    return (
        "\\documentclass[fleqn,usenatbib]{mnras}\n\\usepackage[T1]{fontenc}\n\\usepackage{pgfplots}\n"
        "\\pgfplotsset{compat=1.17}\n\\pdfinfoomitdate=1\n\\pdftrailerid{}\n"
        + f"\\title[Short title]{{{esc(p.title)}}}\n"
        + f"\\author[{esc(p.authors[0].split()[-1])} et al.]{{{names}\n\\\\\n{affs}}}\n"
        + "\\date{Accepted 2025 March 3. Received 2025 January 9}\n\\pubyear{2025}\n\\begin{document}\n"
        + "\\label{firstpage}\n\\pagerange{\\pageref{firstpage}--\\pageref{lastpage}}\n\\maketitle\n"
        + f"\\begin{{abstract}}\n{p.abstract_tex()}\n\\end{{abstract}}\n"
        + "\\begin{keywords}\nmethods: statistical -- techniques: miscellaneous\n\\end{keywords}\n"
        + p.body() + "\n" + p.bibliography().replace("{99}", "{}") + "\n\\label{lastpage}\n\\end{document}\n"
    )


def tex_aastex(p: DrawnPaper) -> str:
    authors = "\n".join(f"\\author{{{esc(a)}}}\n\\affiliation{{{esc(p.affs[p.aff_of[k]][0])}, "
                        f"{esc(p.affs[p.aff_of[k]][1])}}}" for k, a in enumerate(p.authors))
    return (
        "\\documentclass[twocolumn]{aastex631}\n\\usepackage{pgfplots}\n\\pgfplotsset{compat=1.17}\n"
        "\\pdfinfoomitdate=1\n\\pdftrailerid{}\n\\begin{document}\n"
        + f"\\title{{{esc(p.title)}}}\n{authors}\n"
        + f"\\begin{{abstract}}\n{p.abstract_tex()}\n\\end{{abstract}}\n\\keywords{{methods: data analysis}}\n"
        + p.body() + "\n" + p.bibliography() + "\n\\end{document}\n"
    )


def tex_amsart(p: DrawnPaper) -> str:
    authors = "\n".join(f"\\author{{{esc(a)}}}\n\\address{{{esc(p.affs[p.aff_of[k]][0])}, "
                        f"{esc(p.affs[p.aff_of[k]][1])}}}" for k, a in enumerate(p.authors))
    return (
        "\\documentclass{amsart}\n" + PREAMBLE_COMMON + _natbib(p) + "\\begin{document}\n"
        + f"\\title{{{esc(p.title)}}}\n{authors}\n"
        + f"\\begin{{abstract}}\n{p.abstract_tex()}\n\\end{{abstract}}\n\\maketitle\n"
        + p.body() + "\n" + p.bibliography() + "\n\\end{document}\n"
    )


CLASSES = {
    "article": tex_article,
    "acmart": tex_acmart,
    "ieeeconf": lambda p: tex_ieee(p, journal=False),
    "ieeejournal": lambda p: tex_ieee(p, journal=True),
    "llncs": tex_llncs,
    "elsarticle": lambda p: tex_elsarticle(p, fivep=False),
    "elsarticle5p": lambda p: tex_elsarticle(p, fivep=True),
    "revtex": tex_revtex,
    "mnras": tex_mnras,
    "aastex": tex_aastex,
    "amsart": tex_amsart,
}


def sources_digest() -> str:
    """The set's identity: this script, the text bank and the TeX engine that typesets them."""
    h = hashlib.sha256()
    for src in SOURCES:
        h.update(src.name.encode() + b"\0" + src.read_bytes())
    h.update(tex_version().encode())
    return h.hexdigest()


def tex_version() -> str:
    if shutil.which("pdflatex") is None:
        return ""
    done = subprocess.run(["pdflatex", "--version"], capture_output=True, text=True, check=False)
    return done.stdout.splitlines()[0] if done.stdout else ""


def typeset(doc: Doc, work: Path, keep: Path | None) -> tuple[bytes, dict[str, object]]:
    paper = DrawnPaper(doc)
    tex = CLASSES[doc.cls](paper)
    src = work / f"{doc.name}.tex"
    src.write_text(tex, encoding="utf-8")
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, keep / src.name)
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1740000000", "FORCE_SOURCE_DATE": "1"}
    for _ in range(2):  # the second run resolves citations and page references
        done = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", src.name],
            cwd=work, env=env, capture_output=True, text=True, errors="replace", check=False,
        )
        if done.returncode != 0:
            tail = "\n".join(done.stdout.splitlines()[-25:])
            raise RuntimeError(f"pdflatex failed on {doc.name} ({doc.cls}):\n{tail}")
    return (work / f"{doc.name}.pdf").read_bytes(), paper.truth()


class NoTeX(RuntimeError):
    """pdflatex (or a class the set needs) is not installed."""


def cache_root() -> Path:
    env = os.environ.get("MOTIVGRAPH_HELDOUT_DIR")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "motivgraph" / "heldout"


def ensure_set(keep: Path | None = None, only: str | None = None) -> Path:
    """The folder of the typeset set (frozen/ and dev/, a PDF and its truth JSON per document), typeset now when
    the cache has none for these sources. Raises NoTeX when pdflatex is missing."""
    if shutil.which("pdflatex") is None:
        raise NoTeX("pdflatex not found: install TeX Live with ./scripts/setup.sh --with-tex")
    digest = sources_digest()[:16]
    final = cache_root() / digest
    if (final / "MANIFEST.json").exists() and not only and not keep:
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{digest}-", dir=final.parent))
    docs = [d for d in DOCS if not only or only in d.name]
    with tempfile.TemporaryDirectory(prefix="heldout-") as tmp:
        for doc in docs:
            try:
                pdf, truth = typeset(doc, Path(tmp), keep)
            except RuntimeError as e:
                shutil.rmtree(stage, ignore_errors=True)
                raise NoTeX(f"{e}\n(a TeX Live package is missing? ./scripts/setup.sh --with-tex)") from e
            folder = stage / doc.split
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{doc.name}.pdf").write_bytes(pdf)
            (folder / f"{doc.name}.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n")
    if only:
        return stage  # a partial look, never the cache
    (stage / "MANIFEST.json").write_text(json.dumps(
        {"sources_sha256": sources_digest(), "pdflatex": tex_version(),
         "frozen": [d.name for d in DOCS if d.split == "frozen"], "dev": [d.name for d in DOCS if d.split == "dev"]},
        indent=1) + "\n")
    try:
        stage.rename(final)  # atomic: a concurrent builder's finished set wins, ours is dropped
    except OSError:
        shutil.rmtree(stage, ignore_errors=True)
    return final


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep-tex", type=Path, help="also write the .tex sources to this folder (typesets again)")
    ap.add_argument("--only", help="typeset only documents whose name contains this, into a scratch folder")
    args = ap.parse_args()
    try:
        folder = ensure_set(args.keep_tex, args.only)
    except NoTeX as e:
        print(e, file=sys.stderr)
        return 2
    print(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
