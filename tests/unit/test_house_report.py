"""scripts/house_report.py: each detector on tiny synthetic sources, so a figure in the issue's closing note
means what the script's docstring says it means."""

from __future__ import annotations

from textwrap import dedent

from tests.house_report_support import house_report

hr = house_report()


def test_cycles_whole_and_per_layer() -> None:
    edges = {
        "motivgraph.embeddings.a": {"motivgraph.embeddings.b"},
        "motivgraph.embeddings.b": {"motivgraph.embeddings.a"},
        "motivgraph.graph.x": {"motivgraph.api.y"},  # a cycle across two layers: whole graph only
        "motivgraph.api.y": {"motivgraph.graph.x"},
        "motivgraph.graph.z": {"motivgraph.embeddings.a"},
    }
    found = hr.cycles_by_layer(edges)
    assert found["whole"] == [["motivgraph.api.y", "motivgraph.graph.x"],
                              ["motivgraph.embeddings.a", "motivgraph.embeddings.b"]]
    assert found["kernel"] == [["motivgraph.embeddings.a", "motivgraph.embeddings.b"]]
    assert found["graph"] == [] and found["api"] == []


def test_import_edges_follow_relative_and_local_imports_but_not_type_checking() -> None:
    sources = {
        "bench/a.py": "from bench.b import f\n",
        "bench/b.py": "def g():\n    from bench import a\n",
        "bench/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bench.a import f\n",
        "graph/__init__.py": "from .store import Store\n",
        "graph/store.py": "",
    }
    edges = hr.import_edges(sources)
    assert edges["bench.a"] == {"bench.b"}
    assert edges["bench.b"] == {"bench.a"}
    assert edges["bench.c"] == set()
    assert edges["motivgraph.graph"] == {"motivgraph.graph.store"}
    assert hr.strongly_connected(edges) == [["bench.a", "bench.b"]]


def test_local_imports_need_the_reason_on_one_of_their_lines() -> None:
    src = dedent("""\
        import os

        def f():
            import json  # local: an optional extra
            from typing import (
                Any,
            )
            def inner():
                import re
            return os, json, Any
        """)
    assert hr.local_imports({"m.py": src}) == [("m.py", 4, True), ("m.py", 5, False), ("m.py", 9, False)]


def test_dead_functions_ignore_self_references_tests_dunders_and_registered_functions() -> None:
    sources = {
        "pkg/a.py": dedent("""\
            from html.parser import HTMLParser

            def used(): ...
            def recursive(n):
                return recursive(n - 1)
            def by_string(): ...
            @app.get("/x")
            def route(): ...
            class C:
                def __init__(self): ...
                def method(self): ...
                @property
                def prop(self): ...
            class P(HTMLParser):
                def handle_data(self, data): ...
            """),
        "pkg/b.py": "from pkg.a import used\nused()\nTABLE = {'x': 'pkg.a:by_string'}\nC().prop\n",
    }
    assert hr.dead_functions(sources) == [("pkg/a.py", 4, "recursive"), ("pkg/a.py", 11, "C.method")]
    # a name in the packaging files (an entry point) keeps a function alive
    assert hr.dead_functions(sources, "x = 'pkg.a:recursive'") == [("pkg/a.py", 11, "C.method")]


def test_documented_names_are_code_blocks_examples_and_mkdocs_hooks() -> None:
    sources = {
        "pkg/a.py": "def shown(): ...\ndef in_prose(): ...\ndef in_example(): ...\n",
        "scripts/hook.py": "def on_page_markdown(markdown): ...\ndef helper(): ...\n",
    }
    page = "Call in_prose() by hand, or:\n\n```python\nfrom pkg.a import shown\nshown()\n```\n"
    mkdocs = "site_name: x\nhooks:\n  - scripts/hook.py\nnav:\n  - index.md\n"
    text = hr.documented_names([page], ["from pkg.a import in_example\n"], mkdocs, sources)
    # prose does not count (only code a user copies), an example script does, and a hook's on_* functions do
    assert [q for _, _, q in hr.dead_functions(sources, text)] == ["in_prose", "helper"]
    assert [q for _, _, q in hr.dead_functions(sources)] == ["shown", "in_prose", "in_example",
                                                              "on_page_markdown", "helper"]


def test_extension_tables_and_resolvers() -> None:
    src = dedent("""\
        import importlib
        from pkg import impl

        def f(): ...
        class Kls: ...
        TABLE = {"f": f, "k": Kls}
        PATHS = {"a": "pkg.mod:A", "b": "pkg.mod:B"}
        NESTED = {"kind": {"x": "pkg.mod:X"}, "empty": {}}
        COMMANDS = {"run": ("motivgraph.cli.run_cmd", "help"), "go": ("motivgraph.cli.go_cmd", "help")}
        REGISTRY: dict[str, type[Kls]] = {}
        LIMITS = {"a": 1, "b": 2}
        FILES = {"a": "status.json", "b": "spec.json"}
        LINES = {"commands": make(Rec("run", register="pkg.run:register"), Rec("go", group="pkg.go:app")),
                 "tools": {"t": "pkg.tools:T", **{n: f"pkg.more:{n}" for n in ("u", "v")}}}
        BUILT = {"a": make(Rec("x", size=3)), "b": make(Rec("y", size=4))}

        def resolve(path):
            return importlib.import_module(path)
        """)
    tables = [name for _, _, name in hr.extension_tables({"m.py": src})]
    assert tables == ["TABLE", "PATHS", "NESTED", "COMMANDS", "REGISTRY", "LINES"]  # BUILT names no code
    assert hr.resolvers({"m.py": src}) == [("m.py", 17, "resolve")]


def test_duplicated_declarations_are_classes_or_literal_aliases_in_two_modules() -> None:
    sources = {
        "a.py": "from typing import Literal\nKind = Literal['x']\nclass Node: ...\nclass Only: ...\n",
        "b.py": "import typing\nKind: typing.TypeAlias = typing.Literal['x', 'y']\nclass Node: ...\nNAME = 'x'\n",
        "c.py": "NAME = 'x'\n",
    }
    assert hr.duplicated_declarations(sources) == {"Kind": ["a.py", "b.py"], "Node": ["a.py", "b.py"]}


def test_largest_modules_and_module_names() -> None:
    assert hr.largest_modules({"a.py": "x\n" * 3, "b.py": "x\n"}, top=1) == [(3, "a.py")]
    assert hr.module_name("graph/__init__.py") == "motivgraph.graph"
    assert hr.module_name("motivgraph/cli/run.py") == "motivgraph.cli.run"
    assert hr.layer_of("motivgraph.cli.run") == "cli" and hr.layer_of("motivgraph.settings") == "kernel"
