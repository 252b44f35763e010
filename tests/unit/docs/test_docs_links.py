"""Links and pointers in README.md and docs/ resolve: every relative link names an existing file and, with a
#fragment, an existing heading there; every `path/to/file.py` (or `file.py:LINE`) pointer names a file of the
repository (and a line within it); every `motivgraph.x.y` name imports; every code-map row names existing
folders, files and definitions. A page that moves or a module that is renamed fails here, not in a reader's
hands."""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import unicodedata
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
DOCS = REPO / "docs"


def pages() -> list[Path]:
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


@cache
def top_level() -> frozenset[str]:
    """Top-level names of the repository's tracked files (a pointer to `build/` or `.venv/` is to a local
    artefact, not to the repository)."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
        names = {line.split("/", 1)[0] for line in out.splitlines() if line}
    except (OSError, subprocess.CalledProcessError):
        names = {p.name for p in REPO.iterdir()}
    return frozenset(names - {"build", ".venv"})


_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
_CODE_SPAN = re.compile(r"`[^`\n]+`")


def prose(text: str) -> str:
    """The text without fenced blocks and code spans (where a `[x](y)` is not a link), same line count."""
    text = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)


# ---- headings and their anchors


def slug_docs(title: str) -> str:
    """The anchor Python-Markdown's toc extension (the docs site) gives a heading."""
    from markdown.extensions.toc import slugify

    return str(slugify(title, "-"))


def slug_github(title: str) -> str:
    """The anchor GitHub gives a heading in README.md."""
    title = unicodedata.normalize("NFKC", title).lower()
    title = re.sub(r"[^\w\- ]", "", title)
    return title.replace(" ", "-")


def heading_text(line: str) -> str:
    text = line.lstrip("#").strip()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading: its text
    return text.replace("`", "").replace("*", "")


def anchors(path: Path) -> set[str]:
    slug = slug_github if path.parent == REPO else slug_docs
    out = set()
    for line in prose(path.read_text(encoding="utf-8")).splitlines():
        if re.match(r"^#{1,6} ", line):
            out.add(slug(heading_text(line)))
    return out


def test_anchor_rules() -> None:
    assert slug_github("Tool API (`motivgraph serve`)") == "tool-api-motivgraph-serve"
    assert slug_github("IDEAgent and its baselines (quality–diversity search)") == (
        "ideagent-and-its-baselines-qualitydiversity-search"
    )
    assert slug_docs("`graph`: Graph store.") == "graph-graph-store"


# ---- relative links

_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def links(path: Path) -> list[tuple[int, str]]:
    out = []
    for i, line in enumerate(prose(path.read_text(encoding="utf-8")).splitlines(), 1):
        out += [(i, m.group(1)) for m in _LINK.finditer(line)]
    return out


def broken_links(path: Path) -> list[str]:
    bad = []
    for line, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:, kg:
            continue
        file_part, _, fragment = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(REPO)}:{line} -> {target}"
        if not dest.exists():
            bad.append(f"{where}: no such file")
            continue
        if path.is_relative_to(DOCS) and not dest.is_relative_to(DOCS):
            bad.append(f"{where}: the site cannot link outside docs/; name it as a `path` pointer instead")
            continue
        if fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            bad.append(f"{where}: no heading with anchor #{fragment}")
    return bad


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(page: Path) -> None:
    assert not broken_links(page)


def test_the_link_check_finds_broken_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{__name__}.DOCS", tmp_path)
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    (tmp_path / "a.md").write_text("# A page\n\n## Two words\n", encoding="utf-8")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#two-words) [gone](c.md) [anchor](a.md#three) `[code](x.md)`\n"
        "```\n[block](y.md)\n```\n[web](https://example.org/x)\n",
        encoding="utf-8",
    )
    bad = broken_links(page)
    assert len(bad) == 2 and "c.md: no such file" in bad[0] and "#three" in bad[1]


# ---- path, line and module pointers

_PATH = re.compile(r"(?<![\w/.~$<{@:-])(?:\./)?([A-Za-z_.][\w.-]*(?:/[\w.-]+)*/?)(?::(\d+)(?:-(\d+))?)?")
_MODULE = re.compile(r"(?<![\w./])(motivgraph(?:\.[A-Za-z_]\w*)+)")
_RUN_MODULE = re.compile(r"python -m ((?:bench|scripts)(?:\.\w+)+)")


def path_pointers(text: str) -> list[tuple[int, str, int | None, int | None]]:
    """(line, path, first line, last line) of each pointer to a repository path."""
    out = []
    tops = top_level()
    for i, line in enumerate(text.splitlines(), 1):
        for m in _PATH.finditer(line):
            path, first, last = m.group(1).rstrip("."), m.group(2), m.group(3)
            head = path.split("/", 1)[0]
            if head not in tops or ("/" not in path and first is None):
                continue
            out.append((i, path, int(first) if first else None, int(last) if last else None))
    return out


def bad_pointers(path: Path) -> list[str]:
    bad = []
    text = path.read_text(encoding="utf-8")
    for line, target, first, last in path_pointers(text):
        dest = REPO / target
        where = f"{path.relative_to(REPO)}:{line}: {target}"
        if not dest.exists():
            bad.append(f"{where}: no such file or folder")
        elif first is not None:
            n = len(dest.read_text(encoding="utf-8", errors="replace").splitlines())
            if not 1 <= first <= (last or first) <= n:
                bad.append(f"{where}:{first}{f'-{last}' if last else ''}: the file has {n} lines")
    for i, line in enumerate(text.splitlines(), 1):
        bad += [
            f"{path.relative_to(REPO)}:{i}: {m.group(1)} does not import"
            for m in _MODULE.finditer(line)
            if not resolves(m.group(1))
        ]
        bad += [
            f"{path.relative_to(REPO)}:{i}: python -m {m.group(1)}: no such file"
            for m in _RUN_MODULE.finditer(line)
            if not (REPO / (m.group(1).replace(".", "/") + ".py")).is_file()
        ]
    return bad


@cache
def code_strings() -> frozenset[str]:
    """Dotted names the code spells as string literals: entry-point groups, logger names."""
    found: set[str] = set()
    for folder in ("motivgraph", "graph", "ingest", "miner", "api", "agents"):
        for py in (REPO / folder).rglob("*.py"):
            found.update(re.findall(r"[\"'](motivgraph(?:\.\w+)+)[\"']", py.read_text(encoding="utf-8")))
    return frozenset(found)


@cache
def resolves(dotted: str) -> bool:
    """`motivgraph.a.b.c` names a module, an attribute of the longest module prefix that imports, an entry-point
    group (`motivgraph.methods`: one per kind of motivgraph/hookspecs.py) or a name the code itself uses as a
    string (a logger name)."""
    from motivgraph import plugins
    from motivgraph.hookspecs import SPECS

    if dotted in code_strings() or dotted in {plugins.group(kind) for kind in SPECS}:
        return True
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        try:
            if importlib.util.find_spec(name) is None:
                continue
        except ModuleNotFoundError:
            continue
        obj: object = importlib.import_module(name)
        for attr in parts[n:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@pytest.mark.parametrize("page", [*pages(), *sorted(DOCS.rglob("*.py"))], ids=lambda p: str(p.relative_to(REPO)))
def test_pointers_name_existing_files_lines_and_modules(page: Path) -> None:
    """The pages, and the example files shown on them."""
    assert not bad_pointers(page)


def test_the_pointer_check_finds_stale_pointers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = REPO / "docs" / "_pointer_probe.md"  # a page in place, so relative names resolve as in the real ones
    monkeypatch.setattr(f"{__name__}.pages", lambda: [page])
    text = (
        "`pyproject.toml:2` `pyproject.toml:99999` `motivgraph/embeddings/no_such_module.py:3` "
        "`graph/queries.py` ~/papers/x.pdf `motivgraph.graph.open_store` `motivgraph.graph.no_such_name` "
        "python -m bench.no_such_bench\n"
    )
    page.write_text(text, encoding="utf-8")
    try:
        bad = bad_pointers(page)
    finally:
        page.unlink()
    assert len(bad) == 4, bad
    assert "pyproject.toml:99999" in bad[0] and "no_such_module.py" in bad[1]
    assert "no_such_name" in bad[2] and "no_such_bench" in bad[3]
