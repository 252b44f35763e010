"""Each closed set of values and each exception class is declared once (#44).

A value set declared twice drifts: the node type sat in three modules, the literature source in two with
different members, and two `IndexKind`s meant different things. A named `Literal` alias is the one
declaration of its members; an inline `Literal[...]` spelling out the same members is a second one. Every
public exception class lives in `motivgraph/errors.py`, where the API maps it to its HTTP status; a private
(`_`) class used for control flow inside one module may stay there.
"""

from __future__ import annotations

import ast
import builtins
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1].parent
FOLDERS = ("motivgraph", "graph", "ingest", "miner", "api", "agents")  # the kernel and setup.py's layer folders
ERRORS = REPO / "motivgraph" / "errors.py"
# Moved by the ingest stream of #44 (H1), which appends it to motivgraph/errors.py; the lead deletes this entry
# when merging that branch.
PENDING: set[str] = set()  # exceptions waiting for a move (none)


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for top in FOLDERS for p in sorted((REPO / top).rglob("*.py"))
            if "__pycache__" not in p.parts]


def _is_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Literal", "typing.Literal")


def _members(node: ast.Subscript) -> frozenset[str]:
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return frozenset(repr(e.value) if isinstance(e, ast.Constant) else ast.unparse(e) for e in elts)


def test_each_literal_value_set_is_declared_once() -> None:
    named: dict[frozenset[str], list[str]] = defaultdict(list)
    names: dict[str, list[str]] = defaultdict(list)
    inline: dict[frozenset[str], list[str]] = defaultdict(list)
    for path, tree in _modules():
        where = str(path.relative_to(REPO))
        aliases = set()
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and _is_literal(stmt.value) and isinstance(stmt.targets[0], ast.Name):
                named[_members(stmt.value)].append(f"{where}:{stmt.lineno}")
                names[stmt.targets[0].id].append(where)
                aliases.add(id(stmt.value))
        for node in ast.walk(tree):
            if _is_literal(node) and id(node) not in aliases:
                inline[_members(node)].append(f"{where}:{node.lineno}")
    twice = {"|".join(sorted(m)): locs for m, locs in named.items() if len(locs) > 1}
    assert not twice, f"one set of values under two names: {twice}"
    same_name = {n: w for n, w in names.items() if len(w) > 1}
    assert not same_name, f"one name for two sets of values: {same_name}"
    spelt_out = {"|".join(sorted(m)): (named[m], locs) for m, locs in inline.items() if m in named}
    assert not spelt_out, f"inline Literals that repeat a named one (use the name): {spelt_out}"


def _exception_classes(tree: ast.Module, known: set[str]) -> set[str]:
    """Classes of `tree` that derive from an exception: a built-in one, one of motivgraph/errors.py, any base
    named *Error or *Exception, or another class of `tree` found so."""
    found: set[str] = set()
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    changed = True
    while changed:
        changed = False
        for c in classes:
            bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in c.bases}
            if c.name not in found and any(b in known or b in found or b.endswith(("Error", "Exception"))
                                           for b in bases):
                found.add(c.name)
                changed = True
    return found


def test_public_exception_classes_live_in_motivgraph_errors() -> None:
    root = ast.parse(ERRORS.read_text(encoding="utf-8"))
    known = {n.name for n in root.body if isinstance(n, ast.ClassDef)}
    known |= {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}
    elsewhere = sorted(f"{path.relative_to(REPO)}: {name}" for path, tree in _modules() if path != ERRORS
                       for name in _exception_classes(tree, known) if not name.startswith("_"))
    elsewhere = [e for e in elsewhere if e not in PENDING]
    assert not elsewhere, f"public exception classes outside motivgraph/errors.py: {elsewhere}"
