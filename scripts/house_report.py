"""Print the house figures of issue #44: import cycles, unmarked local imports, dead functions, the largest
modules, extension tables and resolvers, and duplicated declarations.

Run from a checkout: `.venv/bin/python scripts/house_report.py [--repo PATH]`. Every detector works on source
text (a `{relative path: source}` mapping), so the unit test feeds it tiny synthetic files; only the import graph
of the installed `motivgraph` package comes from grimp, over the symlink tree `scripts/namespace_tree.py` builds.

Definitions (all over the repo's code: the package folders, bench/ and scripts/, never tests/):
- import cycle: a strongly connected set of two or more modules in the import graph (function-local imports count,
  an import under `if TYPE_CHECKING:` does not); counted over the whole graph and inside each layer alone.
- unmarked local import: an `import` inside a function body whose lines carry no `# local: <reason>` comment.
- dead function: a module-level function or a method (not a dunder, not registered by a decorator such as a route)
  whose name appears nowhere in the repo's code or packaging files except inside its own definition -- a name-based
  reading, so a method sharing its name with a used one counts as used; tests do not keep a function alive, the
  documentation does: a name in a code block of docs/ or README.md or in docs/examples/*.py is public API a user
  calls, and the `on_<event>` functions of a module mkdocs.yml lists under `hooks:` are called by mkdocs.
- extension table: a module-level dict with two or more string keys whose values are all callables or classes
  (a name defined or imported at the top of the module, or a lambda) or import-path strings ("pkg.mod:attr").
- resolver: a function that turns a string into code: it calls `import_module`, `__import__` or `entry_points`.
- duplicated declaration: a module-level class, or a `Literal[...]` alias, of the same name in two or more modules.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tomllib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# the layer folders setup.py maps, from their one declaration in this checkout (a measured older tree with the CLI
# under motivgraph/cli still maps: module_name keeps motivgraph/ paths as they are)
LAYER_FOLDERS: tuple[str, ...] = tuple(
    tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["motivgraph"]["layer-folders"])
CODE_FOLDERS: tuple[str, ...] = ("motivgraph", *LAYER_FOLDERS, "bench", "scripts")
PACKAGING_FILES: tuple[str, ...] = ("setup.py", "pyproject.toml")
DOC_PAGES: tuple[str, ...] = ("README.md", "docs/**/*.md")
_CODE_BLOCK = re.compile(r"^ *```[^\n]*\n(.*?)^ *```", re.M | re.S)
_HOOK_LINE = re.compile(r"^\s*-\s*(\S+\.py)\s*$", re.M)
LOCAL_MARK = "# local:"
# decorators that only change how a function is called, so a decorated function still needs a caller
_PLAIN_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "property", "cached_property", "cache", "lru_cache", "abstractmethod",
     "override", "wraps", "setter", "contextmanager", "asynccontextmanager"}
)
# bases whose methods nobody calls by convention: a method of their subclass still needs a caller
_PLAIN_BASES = frozenset(
    {"object", "Protocol", "ABC", "Generic", "BaseModel", "BaseSettings", "Exception", "RuntimeError", "ValueError",
     "KeyError", "TypeError", "LookupError", "OSError", "Enum", "StrEnum", "IntEnum", "TypedDict", "NamedTuple",
     "str", "int", "dict", "list", "tuple"}
)
_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*[.:][A-Za-z_]\w*$")
_RESOLVER_CALLS = frozenset({"import_module", "__import__", "entry_points"})


# ---------------------------------------------------------------- reading the repo


def read_sources(repo: Path) -> dict[str, str]:
    """Every code file of the repo as {path relative to the repo: source}."""
    out: dict[str, str] = {}
    for folder in CODE_FOLDERS:
        for path in sorted((repo / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                out[path.relative_to(repo).as_posix()] = path.read_text(encoding="utf-8")
    return out


def module_name(path: str) -> str:
    """The installed dotted name of a repo file: `graph/x.py` is `motivgraph.graph.x`, `bench/y.py` is `bench.y`."""
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if parts[0] in LAYER_FOLDERS:
        parts = ["motivgraph", *parts]
    return ".".join(parts)


def layer_of(module: str) -> str:
    """The layer a dotted module belongs to: a layer folder, `cli`, `kernel`, or the top folder (bench, scripts)."""
    parts = module.split(".")
    if parts[0] != "motivgraph":
        return parts[0]
    if len(parts) > 1 and parts[1] in (*LAYER_FOLDERS, "cli"):
        return parts[1]
    return "kernel"


def _parse(sources: Mapping[str, str]) -> dict[str, ast.Module]:
    return {path: ast.parse(src, filename=path) for path, src in sources.items()}


# ---------------------------------------------------------------- import cycles


def strongly_connected(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The cycles of a directed graph: its strongly connected components of two or more nodes (Tarjan, iterative)."""
    graph = {node: sorted(set(targets)) for node, targets in edges.items()}
    for targets in list(graph.values()):
        for target in targets:
            graph.setdefault(target, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = graph[node]
            if i < len(targets):
                work.append((node, i + 1))
                target = targets[i]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(found)


def cycles_by_layer(edges: Mapping[str, Iterable[str]]) -> dict[str, list[list[str]]]:
    """The cycles of the whole graph (key "whole") and of each layer's own subgraph (keyed by layer)."""
    out: dict[str, list[list[str]]] = {"whole": strongly_connected(edges)}
    per_layer: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for node, targets in edges.items():
        layer = layer_of(node)
        per_layer[layer][node] = [t for t in targets if layer_of(t) == layer]
    for layer, sub in sorted(per_layer.items()):
        out[layer] = strongly_connected(sub)
    return out


def import_edges(sources: Mapping[str, str]) -> dict[str, set[str]]:
    """The import graph of the given files by their dotted names, read with ast (for files grimp cannot reach,
    e.g. bench/, which is not a package). An import under `if TYPE_CHECKING:` is left out, as grimp is told to."""
    modules = {module_name(path): path for path in sources}
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, tree in ((module_name(p), t) for p, t in _parse(sources).items()):
        is_package = modules[name].endswith("__init__.py")
        for node in _walk_skipping_type_checking(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = name.split(".") if is_package else name.split(".")[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges[name].add(target)
    return edges


def _walk_skipping_type_checking(tree: ast.AST) -> Iterable[ast.AST]:
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                todo.extend(child.orelse)
                continue
            todo.append(child)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def package_edges(repo: Path) -> dict[str, set[str]]:
    """The import graph of the installed `motivgraph` package, from grimp over the namespace tree. grimp runs in a
    fresh interpreter: one that has imported `motivgraph` already (a test run) would find the package where the
    import put it, without the layer folders."""
    tree = subprocess.run(
        [sys.executable, str(repo / "scripts" / "namespace_tree.py")], check=True, capture_output=True, text=True,
        cwd=repo,
    ).stdout.strip()
    code = ("import json, grimp\n"
            "g = grimp.build_graph('motivgraph', exclude_type_checking_imports=True, cache_dir=None)\n"
            "print(json.dumps({m: sorted(g.find_modules_directly_imported_by(m)) for m in g.modules}))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=tree,
                         env={**os.environ, "PYTHONPATH": tree}).stdout
    return {module: set(targets) for module, targets in json.loads(out).items()}


# ---------------------------------------------------------------- local imports


def local_imports(sources: Mapping[str, str]) -> list[tuple[str, int, bool]]:
    """Every function-local import as (path, line, carries a `# local:` reason on one of its lines)."""
    found: list[tuple[str, int, bool]] = []
    for path, tree in _parse(sources).items():
        lines = sources[path].splitlines()
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in _own_body(func):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    end = node.end_lineno or node.lineno
                    marked = any(LOCAL_MARK in lines[i - 1] for i in range(node.lineno, end + 1))
                    found.append((path, node.lineno, marked))
    return sorted(found)


def _own_body(func: ast.AST) -> Iterable[ast.AST]:
    """The nodes of a function, not descending into nested functions (they are walked on their own)."""
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


# ---------------------------------------------------------------- dead functions


def dead_functions(sources: Mapping[str, str], extra_text: str = "") -> list[tuple[str, int, str]]:
    """Functions and methods whose name is referenced nowhere but inside their own definition, as (path, line,
    qualified name). `extra_text` is packaging text (entry points) that may name a function."""
    trees = _parse(sources)
    words = set(re.findall(r"[A-Za-z_]\w*", extra_text))
    repo_classes = {n.name for t in trees.values() for n in ast.walk(t) if isinstance(n, ast.ClassDef)}
    defs: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, str]] = []
    for path, tree in trees.items():
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs.append((path, node, node.name))
            elif isinstance(node, ast.ClassDef) and not _framework_subclass(node, repo_classes):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        defs.append((path, item, f"{node.name}.{item.name}"))
    # every reference, with the definition it sits inside, so a self-reference does not keep a function alive
    uses: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for path, tree in trees.items():
        for node in ast.walk(tree):
            for name in _referenced_names(node):
                uses[name].append((path, getattr(node, "lineno", 0)))
    dead: list[tuple[str, int, str]] = []
    for path, func, qualname in defs:
        name = func.name
        if (name.startswith("__") and name.endswith("__")) or name in words or not _plainly_decorated(func):
            continue
        end = func.end_lineno or func.lineno
        outside = [u for u in uses.get(name, []) if not (u[0] == path and func.lineno <= u[1] <= end)]
        if not outside:
            dead.append((path, func.lineno, qualname))
    return sorted(dead)


def documented_names(pages: Iterable[str], examples: Iterable[str], mkdocs_yml: str,
                     sources: Mapping[str, str]) -> str:
    """The text whose names count as uses: the code blocks of the doc pages (markdown), the example scripts
    whole, and the `on_*` functions of the hook modules mkdocs.yml lists (mkdocs calls them by that name)."""
    out = [block for page in pages for block in _CODE_BLOCK.findall(page)]
    out.extend(examples)
    hooks_at = mkdocs_yml.find("hooks:")
    if hooks_at >= 0:
        section = mkdocs_yml[hooks_at:].split("\n", 1)[-1]
        listed = re.split(r"^\S", section, maxsplit=1, flags=re.M)[0]  # up to the next top-level key
        for path in _HOOK_LINE.findall(listed):
            tree = _parse({path: sources[path]}).get(path) if path in sources else None
            out.extend(n.name for n in (tree.body if tree else [])
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("on_"))
    return "\n".join(out)


def read_documented_names(repo: Path, sources: Mapping[str, str]) -> str:
    pages = [p.read_text(encoding="utf-8") for pattern in DOC_PAGES for p in sorted(repo.glob(pattern))]
    examples = [p.read_text(encoding="utf-8") for p in sorted((repo / "docs" / "examples").glob("*.py"))]
    mkdocs = repo / "mkdocs.yml"
    return documented_names(pages, examples, mkdocs.read_text(encoding="utf-8") if mkdocs.exists() else "", sources)


def _framework_subclass(cls: ast.ClassDef, repo_classes: set[str]) -> bool:
    """True when the class extends a library class (an HTML parser, a logging formatter, an asyncio protocol):
    the library calls its methods by name, so they are not dead for lacking a caller in the repo."""
    for base in cls.bases:
        target = base.value if isinstance(base, ast.Subscript) else base
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name and name not in repo_classes and name not in _PLAIN_BASES:
            return True
    return False


def _referenced_names(node: ast.AST) -> Iterable[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, ast.alias):
        yield node.name.rpartition(".")[2]
    elif isinstance(node, ast.keyword) and node.arg:
        yield node.arg
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
        # getattr-by-name, import paths ("pkg.mod:attr"), __all__ entries
        yield from re.findall(r"[A-Za-z_]\w*", node.value)


def _plainly_decorated(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True when every decorator only changes how the function is called (a route or hook registers it instead)."""
    for deco in func.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name not in _PLAIN_DECORATORS:
            return False
    return True


# ---------------------------------------------------------------- module sizes


def largest_modules(sources: Mapping[str, str], top: int = 10) -> list[tuple[int, str]]:
    return sorted(((len(src.splitlines()), path) for path, src in sources.items()), reverse=True)[:top]


# ---------------------------------------------------------------- extension tables and resolvers


def extension_tables(sources: Mapping[str, str]) -> list[tuple[str, int, str]]:
    """Module-level name-keyed tables of callables or import paths, as (path, line, table name)."""
    found: list[tuple[str, int, str]] = []
    for path, tree in _parse(sources).items():
        top_names = _top_level_callables(tree)
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                target, value = node.target, node.value
            else:
                continue
            if not isinstance(target, ast.Name):
                continue
            if (isinstance(node, ast.AnnAssign) and _is_registry(node)) or _is_table(value, top_names):
                found.append((path, node.lineno, target.id))
    return sorted(found)


def _is_table(value: ast.expr, top_names: set[str], least: int = 2) -> bool:
    """A dict of `least` or more string keys to code references (or to tuples led by one, or to tables of them)."""
    if not (isinstance(value, ast.Dict) and len(value.keys) >= least):
        return False
    # a `**spread` (key None) merges lines built elsewhere; the written lines decide what the table holds
    pairs = [(k, v) for k, v in zip(value.keys, value.values, strict=True) if k is not None]
    if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k, _ in pairs):
        return False
    return all(
        _is_code_ref(v, top_names)
        or (isinstance(v, ast.Tuple) and bool(v.elts) and _is_code_ref(v.elts[0], top_names))
        or _is_table(v, top_names, least=0)
        or _builds_lines(v, top_names)
        for _, v in pairs
    )


def _builds_lines(value: ast.expr, top_names: set[str]) -> bool:
    """A call that builds a table's lines from records naming code (`_commands(Contribution(..., register="m:f"))`)."""
    return isinstance(value, ast.Call) and any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and ":" in n.value and _is_code_ref(n, top_names)
        for n in ast.walk(value))


def _is_registry(node: ast.AnnAssign) -> bool:
    """An empty module-level `dict[str, type[...] | Callable[...]]` that a decorator or a function fills."""
    ann, value = node.annotation, node.value
    if not (isinstance(value, ast.Dict) and not value.keys and isinstance(ann, ast.Subscript)):
        return False
    if not (isinstance(ann.value, ast.Name) and ann.value.id == "dict" and isinstance(ann.slice, ast.Tuple)):
        return False
    key, item = ann.slice.elts[0], ast.unparse(ann.slice.elts[-1])
    return isinstance(key, ast.Name) and key.id == "str" and (item.startswith("type[") or "Callable" in item)


def _top_level_callables(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).partition(".")[0] for a in node.names)
    return names


def _is_code_ref(value: ast.expr, top_names: set[str]) -> bool:
    if isinstance(value, ast.Lambda):
        return True
    if isinstance(value, ast.Name):
        return value.id in top_names and not value.id.isupper()
    if isinstance(value, ast.Attribute):
        return not value.attr.isupper() and isinstance(value.value, ast.Name) and value.value.id in top_names
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        # "pkg.mod:attr", or a module of this package by its dotted name (not a file name such as "a.json")
        return bool(_IMPORT_PATH.match(value.value)) and (":" in value.value or value.value.startswith("motivgraph."))
    return False


def resolvers(sources: Mapping[str, str]) -> list[tuple[str, int, str]]:
    """Functions that resolve code from a string, as (path, line, function name)."""
    found: list[tuple[str, int, str]] = []
    for path, tree in _parse(sources).items():
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in _own_body(func):
                if isinstance(node, ast.Call):
                    callee = node.func
                    name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
                    if name in _RESOLVER_CALLS:
                        found.append((path, func.lineno, func.name))
                        break
    return sorted(found)


# ---------------------------------------------------------------- duplicated declarations


def duplicated_declarations(sources: Mapping[str, str]) -> dict[str, list[str]]:
    """Names declared as a module-level class or `Literal[...]` alias in two or more modules: {name: paths}."""
    where: dict[str, set[str]] = defaultdict(set)
    for path, tree in _parse(sources).items():
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                where[node.name].add(path)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                if isinstance(target, ast.Name) and node.value is not None and _is_literal(node.value):
                    where[target.id].add(path)
    return {name: sorted(paths) for name, paths in sorted(where.items()) if len(paths) > 1}


def _is_literal(value: ast.expr) -> bool:
    if isinstance(value, ast.Subscript):
        base = value.value
        return (isinstance(base, ast.Name) and base.id == "Literal") or (
            isinstance(base, ast.Attribute) and base.attr == "Literal"
        )
    return False


# ---------------------------------------------------------------- the report


def report(repo: Path) -> str:
    sources = read_sources(repo)
    package = {p: s for p, s in sources.items() if module_name(p).startswith("motivgraph")}
    others = {p: s for p, s in sources.items() if p not in package}
    edges = package_edges(repo)
    edges.update(import_edges(others))
    out: list[str] = [f"# house report of {repo} ({len(sources)} code files, tests excluded)"]

    cycles = cycles_by_layer(edges)
    inside = {layer: found for layer, found in cycles.items() if layer != "whole"}
    out.append(f"\n## import cycles: {len(cycles['whole'])} in the whole graph, "
               f"{sum(map(len, inside.values()))} inside a layer")
    for layer, found in cycles.items():
        out.append(f"  {layer}: {len(found)}")
        out.extend(f"    - ({len(c)}) {' '.join(c)}" for c in found)

    locals_ = local_imports(sources)
    unmarked = [(p, n) for p, n, marked in locals_ if not marked]
    in_package = [p for p, _ in unmarked if p in package]
    package_total = sum(1 for p, _, _ in locals_ if p in package)
    out.append(f"\n## function-local imports without `{LOCAL_MARK}`: {len(in_package)} of {package_total} in the "
               f"package; {len(unmarked) - len(in_package)} of {len(locals_) - package_total} in bench/ and scripts/")
    per_folder: dict[str, int] = defaultdict(int)
    for path, _ in unmarked:
        per_folder["motivgraph/cli" if path.startswith("motivgraph/cli/") else path.split("/")[0]] += 1
    out.extend(f"  {folder}: {count}" for folder, count in sorted(per_folder.items()))
    out.extend(f"    {p}:{n}" for p, n in unmarked)

    packaging = "\n".join((repo / f).read_text(encoding="utf-8") for f in PACKAGING_FILES if (repo / f).exists())
    dead = dead_functions(sources, packaging + "\n" + read_documented_names(repo, sources))
    out.append(f"\n## dead functions: {len(dead)}")
    out.extend(f"  {p}:{n} {q}" for p, n, q in dead)

    out.append("\n## ten largest modules (lines)")
    out.extend(f"  {lines:5d} {path}" for lines, path in largest_modules(sources))

    tables, found_resolvers = extension_tables(sources), resolvers(sources)
    out.append(f"\n## extension tables and resolvers: {len(tables) + len(found_resolvers)} "
               f"({len(tables)} tables, {len(found_resolvers)} resolvers)")
    out.extend(f"  table    {p}:{n} {name}" for p, n, name in tables)
    out.extend(f"  resolver {p}:{n} {name}()" for p, n, name in found_resolvers)

    dups = duplicated_declarations(sources)
    out.append(f"\n## duplicated declarations: {len(dups)}")
    out.extend(f"  {name}: {', '.join(paths)}" for name, paths in dups.items())
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=REPO, help="checkout to measure (default: this one)")
    print(report(parser.parse_args(argv).repo.resolve()))


if __name__ == "__main__":
    main()
