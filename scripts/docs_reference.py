"""The generated pages of the docs site: the configuration reference (walked from the settings tree and the
registered methods' config models) and the CLI reference (every command's `--help`, walked from the typer app).

Generated at build time, so they cannot drift from the code: mkdocs.yml names this file as a hook, and a page
holding a marker line `<!-- generated: settings -->`, `<!-- generated: methods -->` or `<!-- generated: cli -->`
gets the reference in its place; a line `<!-- include: examples/NAME.py -->` gets that file as a code block
(the worked examples of docs/extending.md are files the tests import, shown as they are). Everything is found
by walking, not listed here: a new settings section, field, method or command appears without editing this
file (tests/unit/docs/test_docs_site.py checks the built site names every one). Run it alone to print a
reference: `python scripts/docs_reference.py settings|methods|cli`.
"""

from __future__ import annotations

import enum
import json
import os
import re
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

MARKER = re.compile(r"^<!-- generated: (\w+) -->$", re.M)
# the console script whose typer app the CLI reference walks (pyproject.toml [project.scripts])
CLI_NAME = "motivgraph"
_HELP_WIDTH = "100"


# ---- types, defaults and text shown in the tables ----


def type_name(annotation: Any) -> str:
    """A readable type: `int`, `'a' | 'b'`, `str | None`, `dict[str, RoleOverride]`, `secret`."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:  # the constraints are shown by limits_text
        return type_name(args[0])
    if origin is typing.Literal:
        return " | ".join(repr(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(a) for a in args)
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{', '.join(type_name(a) for a in args)}]" if args else name
    if annotation is type(None):
        return "None"
    if isinstance(annotation, type):
        if annotation.__name__ == "SecretStr":
            return "secret"
        if annotation.__name__ in ("Path", "PosixPath"):
            return "path"
        if issubclass(annotation, enum.Enum):
            return " | ".join(repr(m.value) for m in annotation)
        return annotation.__name__
    return str(annotation)


def default_text(field: Any) -> str:
    """The field's default as a user would type it; a home-directory path is shown with `~`."""
    from pydantic_core import PydanticUndefined  # local: mkdocs loads the hook; only generated pages need this

    if field.default_factory is not None:
        value = field.default_factory()
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if value is None:
        return "unset"
    if type(value).__name__ == "SecretStr":
        return "unset" if not value.get_secret_value() else "(set)"
    if isinstance(value, Path):
        home = str(Path.home())
        text = str(value)
        return "~" + text[len(home) :] if text == home or text.startswith(home + os.sep) else text
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, dict | list | tuple | bool):
        return json.dumps(value)
    return str(value)


def limits_text(field: Any) -> str:
    """The field's bounds (`1 ≤ x ≤ 64`) and pattern, from its constraints."""
    parts = []
    for m in [*field.metadata, *_annotated_metadata(field.annotation)]:
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            if getattr(m, attr, None) is not None:
                parts.append(f"{sign} {getattr(m, attr)}")
        if getattr(m, "pattern", None):
            parts.append(f"matches `{m.pattern}`")
    return ", ".join(parts)


def _annotated_metadata(annotation: Any) -> list[Any]:
    """Constraint objects inside the annotation (`int | Annotated[int, Ge(1)] | None` -> [Ge(1)])."""
    if typing.get_origin(annotation) is typing.Annotated:
        return list(getattr(annotation, "__metadata__", ()))
    return [m for a in typing.get_args(annotation) for m in _annotated_metadata(a)]


def cell(text: str) -> str:
    """Text safe in a Markdown table cell: one line; `|`, `<` and `>` escaped outside code spans (inside one
    the table extension keeps a `|` and the code span shows `<` as it is)."""
    text = " ".join(text.split())
    pieces = re.split(r"(`[^`]*`)", text)
    out = [p if p.startswith("`") else p.replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|") for p in pieces]
    return "".join(out)


def _nested_models(annotation: Any) -> list[type]:
    """Pydantic models inside a container annotation (`dict[str, RoleOverride]` -> [RoleOverride])."""
    from pydantic import BaseModel  # local: mkdocs loads the hook; only generated pages need this

    found = []
    for a in typing.get_args(annotation):
        if isinstance(a, type) and issubclass(a, BaseModel):
            found.append(a)
        else:
            found += _nested_models(a)
    return found


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _field_row(first: str, field: Any) -> tuple[str, ...]:
    limits = limits_text(field)
    return (
        first,
        cell(f"`{type_name(field.annotation)}`"),
        cell(f"`{default_text(field)}`"),
        cell((field.description or "") + (f" ({limits})" if limits else "")),
    )


# ---- the configuration reference ----


def settings_class() -> Any:
    from motivgraph.settings import Settings  # local: mkdocs loads the hook; only generated pages need this

    return Settings


def settings_markdown() -> str:
    """One table per settings section: environment variable, type, default, description."""
    from pydantic import BaseModel  # local: mkdocs loads the hook; only generated pages need this

    cls = settings_class()
    prefix = cls.model_config.get("env_prefix", "")
    header = ("environment variable", "type", "default", "description")
    top = [
        (f"`{prefix}{n}`".upper(), *_field_row("", f)[1:])
        for n, f in cls.model_fields.items()
        if not (isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel))
    ]
    out = ["## General", "", *_table(top, header), ""]
    for name, field in cls.model_fields.items():
        ann = field.annotation
        if not (isinstance(ann, type) and issubclass(ann, BaseModel)):
            continue
        out += [f"## `{name}`: {cell(field.description or ann.__name__)}", ""]
        if ann.__doc__ and ann.__doc__ != BaseModel.__doc__:
            out += [cell(ann.__doc__), ""]
        rows = [_field_row(f"`{prefix}{name}_{sub}`".upper(), f) for sub, f in ann.model_fields.items()]
        out += [*_table(rows, header), ""]
        for sub, f in ann.model_fields.items():
            for inner in _nested_models(f.annotation):
                env = f"{prefix}{name}_{sub}".upper()
                out += [f"Each entry of `{env}` (JSON) has these keys (`{inner.__name__}`):", ""]
                inner_rows = [_field_row(f"`{k}`", v) for k, v in inner.model_fields.items()]
                out += [*_table(inner_rows, ("key", "type", "default", "description")), ""]
    return "\n".join(out)


def method_configs() -> list[tuple[str, str, Any]]:
    """(method name, summary, config model) of every registered ideation method."""
    from motivgraph.agents.core.registry import (  # local: mkdocs loads the hook; only generated pages need this
        all_methods,
    )

    return [(m.name, m.summary, m.config_model) for m in all_methods()]


def methods_markdown() -> str:
    """One table per ideation method: its `motivgraph ideate --method NAME` flags (= the POST
    /ideation/sessions body fields), type, default, description."""
    out = []
    for name, summary, model in method_configs():
        out += [f"## `{name}`", ""]
        if summary:
            out += [cell(summary), ""]
        rows = [_field_row(f"`--{k.replace('_', '-')}`", f) for k, f in model.model_fields.items()]
        out += [*_table(rows, ("flag / body field", "type", "default", "description")), ""]
    return "\n".join(out)


# ---- the CLI reference ----


def cli_app() -> Any:
    """The typer app behind the `motivgraph` console script, found through its entry point so the
    reference follows the CLI wherever its module lives."""
    from importlib.metadata import entry_points  # local: mkdocs loads the hook; only generated pages need this

    from motivgraph import plugins  # local: mkdocs loads the hook; only generated pages need this

    (ep,) = [e for e in entry_points(group="console_scripts") if e.name == CLI_NAME]
    return plugins.resolve(f"{ep.value.split(':', 1)[0]}:app")


def command_paths() -> list[list[str]]:
    """Every visible command path, the root first, in `--help` order (groups before their commands)."""
    import typer  # local: mkdocs loads the hook; only generated pages need this

    root = typer.main.get_command(cli_app())
    out: list[list[str]] = []

    def walk(cmd: Any, path: list[str], parent: Any) -> None:
        out.append(path)
        if hasattr(cmd, "list_commands"):
            ctx = cmd.context_class(cmd, info_name=path[-1] if path else CLI_NAME, parent=parent)
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None and not getattr(sub, "hidden", False):
                    walk(sub, [*path, name], ctx)

    walk(root, [], None)
    return out


def help_text(path: list[str]) -> str:
    """`motivgraph PATH --help` as a terminal 100 columns wide shows it (run in process)."""
    from typer.testing import CliRunner  # local: mkdocs loads the hook; only generated pages need this

    env = {"COLUMNS": _HELP_WIDTH, "TERMINAL_WIDTH": _HELP_WIDTH, "NO_COLOR": "1"}
    res = CliRunner().invoke(cli_app(), [*path, "--help"], env=env)
    if res.exit_code != 0:
        raise RuntimeError(f"`{CLI_NAME} {' '.join(path)} --help` exited {res.exit_code}: {res.output}")
    return "\n".join(line.rstrip() for line in res.output.strip("\n").splitlines())


def cli_markdown() -> str:
    """Every command's help screen under a heading of its own, in the order the CLI lists them."""
    out = []
    for path in command_paths():
        title = " ".join([CLI_NAME, *path])
        out += [
            f"{'#' * min(2 + len(path[:-1]), 4) if path else '##'} `{title}`",
            "",
            "```text",
            help_text(path),
            "```",
            "",
        ]
    return "\n".join(out)


# ---- the extension points ----


def _part_summary(obj: Any) -> str:
    own_doc = obj.__doc__ if isinstance(obj, type) or callable(obj) else type(obj).__doc__
    text = getattr(obj, "summary", None) or getattr(obj, "description", None) or own_doc or ""
    if not isinstance(text, str):
        text = ""
    return " ".join(text.split(". ")[0].split()).rstrip(".")


def parts_markdown() -> str:
    """One table per kind of part of the one extension mechanism (motivgraph/plugins.py): every built-in part
    with its import path and first sentence, and the entry-point group a package adds one through."""
    from motivgraph import plugins  # local: mkdocs loads the hook; only generated pages need this
    from motivgraph.hookspecs import SPECS  # local: mkdocs loads the hook; only generated pages need this

    out = []
    for kind, spec in SPECS.items():
        what = " ".join(str(spec.__doc__).split())
        out += [f"## {kind.replace('_', ' ')}", "", f"Entry-point group `{plugins.group(kind)}`, Protocol "
                f"`motivgraph.hookspecs.{spec.__name__}`: {cell(what)}", ""]
        rows = []
        for name, line in plugins.lines(kind).items():
            path = plugins.path_of(line)
            try:
                summary = _part_summary(plugins.load(kind, name))
            except Exception as e:  # a broken package's part is listed with why
                summary = f"cannot be loaded: {e}"
            where = "built-in" if name in plugins.BUILTIN[kind] else "installed package"
            rows.append((f"`{name}`", f"`{path}`", where, cell(summary)))
        out += [*(_table(rows, ("name", "object", "from", "what it is")) if rows else ["None built in."]), ""]
    return "\n".join(out)


GENERATORS: dict[str, Callable[[], str]] = {
    "settings": settings_markdown,
    "methods": methods_markdown,
    "cli": cli_markdown,
    "parts": parts_markdown,
}


def expand(markdown: str) -> str:
    """The page with each marker line replaced by its generated reference; an unknown marker is an error."""

    def one(m: re.Match[str]) -> str:
        kind = m.group(1)
        if kind not in GENERATORS:
            raise ValueError(f"unknown generated section {kind!r}; known: {', '.join(GENERATORS)}")
        return GENERATORS[kind]()

    return MARKER.sub(one, markdown)


INCLUDE = re.compile(r"^<!-- include: ([\w./-]+) -->$", re.M)
DOCS_DIR = Path(__file__).resolve().parents[1] / "docs"


def include_files(markdown: str, docs_dir: Path = DOCS_DIR) -> str:
    """Each `<!-- include: examples/x.py -->` line becomes the file (under docs/) as a code block: the page
    shows the very code the tests run, not a copy of it."""

    def one(m: re.Match[str]) -> str:
        path = (docs_dir / m.group(1)).resolve()
        if docs_dir.resolve() not in path.parents or not path.is_file():
            raise ValueError(f"include: {m.group(1)} is not a file under {docs_dir}")
        lang = {".py": "python", ".sh": "bash", ".json": "json"}.get(path.suffix, "text")
        return f"```{lang}\n{path.read_text(encoding='utf-8').rstrip()}\n```"

    return INCLUDE.sub(one, markdown)


# ---- mkdocs hook (mkdocs.yml: hooks) ----


def on_page_markdown(markdown: str, config: Any = None, **_: Any) -> str:
    docs_dir = Path(config["docs_dir"]) if config is not None else DOCS_DIR
    if INCLUDE.search(markdown):
        markdown = include_files(markdown, docs_dir)
    return expand(markdown) if MARKER.search(markdown) else markdown


def _main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in GENERATORS:
        print(f"usage: python scripts/docs_reference.py {'|'.join(GENERATORS)}", file=sys.stderr)
        return 2
    print(GENERATORS[argv[0]]())
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
