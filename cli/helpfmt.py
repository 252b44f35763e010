"""What every help screen shows beyond the command's own text: readable metavars (TEXT, N, PATH,
a|b|c; nothing after an on/off flag), one or more examples, and the exit codes.

`polish(cmd, path)` is applied to the command tree as commands are looked up (the root group and the
lazily loaded groups call it), so commands contributed through the agents registry get it too.
An example is looked up by the command's path (`EXAMPLES`); a group without its own example lists its
sub-commands' examples. `tests/unit/cli/test_help_screens.py` walks every command and fails when one
has no example.
"""

from __future__ import annotations

import contextlib
import typing
from pathlib import Path
from typing import Any, TypeVar

EXIT_CODES = (
    (0, "success"),
    (1, "the command ran but something failed (e.g. some documents or lines failed; see the output)"),
    (2, "usage error: an unknown option, a missing or invalid argument"),
    (3, "configuration error: a setting (MOTIVGRAPH_*), path or input is missing or invalid; the message names "
        "the fix"),
    (4, "a service is unreachable: graph store, GROBID, LLM endpoint, Semantic Scholar, or a port in use"),
    (5, "stopped cleanly: interrupted (Ctrl-C) or the --budget-usd was reached; re-run to resume"),
    (6, "extraction gate: the extractor's quotes are mostly not in the papers (or no triple came from papers with "
        "text); use a stronger model or --accept-unverified"),
)

EXAMPLES: dict[str, list[str]] = {
    "": ["motivgraph ingest ~/papers/", 'motivgraph search "learning with few labels" --type challenge',
         'motivgraph ideate "robust graph learning under label noise" --method soiq'],
    "search": ['motivgraph search "label scarcity"', 'motivgraph search "noisy labels" --type challenge -k 5 --json',
               'motivgraph search "label scarcity" --evidence'],
    "reindex": ["motivgraph reindex", "motivgraph reindex --check", "motivgraph reindex --no-papers --kind hnsw"],
    "parse": ["motivgraph parse paper.pdf", "motivgraph parse paper.pdf --json > paper.json"],
    "extract": ["motivgraph extract paper.pdf", "motivgraph extract paper.pdf --offline --json"],
    "ideate": ['motivgraph ideate "robust graph learning under label noise" --method soiq --ideas 2',
               'motivgraph ideate "few-shot segmentation" --method soiq --dry-run',
               "motivgraph ideate --resume soiq-20260101-120000-abc123", "motivgraph ideate --list-methods"],
    "serve": ["motivgraph serve", "motivgraph serve --port 8100", "motivgraph serve --host 0.0.0.0 --workers 2"],
    "mcp": ["motivgraph mcp"],
    "config show": ["motivgraph config show", "motivgraph config show --json"],
    "db start": ["motivgraph db start", "motivgraph db start --json"],
    "db stop": ["motivgraph db stop"],
    "db status": ["motivgraph db status --json"],
    "db upgrade": ["motivgraph db upgrade"],
    "neo4j fetch": ["motivgraph neo4j fetch"],
    "neo4j start": ["MOTIVGRAPH_NEO4J_PASSWORD=choose-a-password motivgraph neo4j start",
                    "MOTIVGRAPH_NEO4J_URI=bolt://127.0.0.1:17687 motivgraph neo4j start --json"],
    "neo4j stop": ["motivgraph neo4j stop"],
    "neo4j status": ["motivgraph neo4j status --json"],
    "embeddings export": ["motivgraph embeddings export", "motivgraph embeddings export --force --json"],
    "embeddings info": ["motivgraph embeddings info", "motivgraph embeddings info --json"],
    "llm check": ["motivgraph llm check", "motivgraph llm check --role mentor --json",
                  "motivgraph llm check --extraction"],
    "llm roles": ["motivgraph llm roles", "motivgraph llm roles --json"],
    "llm usage": ["motivgraph llm usage", "motivgraph llm usage --run soiq-20260101-120000-abc123 --json"],
    "llm start": ["MOTIVGRAPH_LLM_MODEL=local:smollm2 motivgraph llm start"],
    "llm stop": ["motivgraph llm stop"],
    "llm status": ["motivgraph llm status --json"],
    "graph export": ["motivgraph graph export graph.jsonl", "motivgraph graph export - | gzip > graph.jsonl.gz"],
    "graph import": ["motivgraph graph import graph.jsonl", "motivgraph graph import graph.jsonl --replace"],
    "graph push": ["MOTIVGRAPH_NEO4J_PASSWORD=... motivgraph graph push --neo4j-uri bolt://localhost:7687"],
    "graph stats": ["motivgraph graph stats", "motivgraph graph stats --json"],
    "ingest": ["motivgraph ingest ~/papers/", "motivgraph ingest 'papers/*.pdf' --dry-run",
               "motivgraph ingest status", "motivgraph ingest report"],
    "ingest run": ["motivgraph ingest run ~/papers/ --limit 5", "motivgraph ingest run paper.pdf --json",
                   "motivgraph ingest run ~/papers/ --budget-usd 2 --retry-failed"],
    "ingest status": ["motivgraph ingest status --json"],
    "ingest re-extract": ["motivgraph ingest --re-extract", "motivgraph ingest re-extract --only-extractor heuristic",
                          "motivgraph ingest re-extract --paper PAPER_ID --json"],
    "papers list": ["motivgraph papers list --limit 20", "motivgraph papers list --json"],
    "papers show": ["motivgraph papers show 10.1145/3292500.3330919", "motivgraph papers show PAPER_ID --json"],
    "papers delete": ["motivgraph papers delete PAPER_ID", "motivgraph papers delete PAPER_ID --yes --json"],
    "merges list": ["motivgraph merges list", "motivgraph merges list --paper PAPER_ID --json"],
    "merges undo": ["motivgraph merges undo 42", "motivgraph merges undo 42 --json"],
    "ingest report": ["motivgraph ingest report", "motivgraph ingest report --failed",
                      "motivgraph ingest report --json | jq .outstanding"],
    "parents build": ["motivgraph parents build", "motivgraph parents build --type problem --levels 2 --json",
                      "motivgraph parents build --offline"],
    "runs list": ["motivgraph runs list", "motivgraph runs list --method soiq --json"],
    "runs show": ["motivgraph runs show soiq-20260101-120000-abc123",
                  "motivgraph runs show soiq-20260101-120000-abc123 --summary",
                  "motivgraph runs show soiq-20260101-120000-abc123 --json"],
    "eval": ["motivgraph eval --topics topics.jsonl --methods soiq,one_shot --ideas 2 --dry-run",
             'motivgraph eval --topic "label noise" --methods soiq,nova', "motivgraph eval --list"],
    "mindflow train": ["motivgraph mindflow train --topics topics.jsonl --steps 30 --dry-run",
                       "motivgraph mindflow train --from-graph 8 --steps 10"],
    "mindflow show": ["motivgraph mindflow show ~/motivgraph-data/mindflow/topics",
                      'motivgraph mindflow show controller.npz --topic "label noise"'],
    "mindflow controllers": ["motivgraph mindflow controllers",
                             "MOTIVGRAPH_DATA_DIR=/srv/motivgraph motivgraph mindflow controllers"],
    "method": ["motivgraph method mindflow train --topics topics.jsonl --dry-run"],
}

_TYPE_METAVARS: dict[Any, str] = {int: "N", float: "NUMBER", str: "TEXT", Path: "PATH"}


def examples_for(path: str, sub_paths: list[str] | None = None) -> list[str]:
    if path in EXAMPLES:
        return EXAMPLES[path]
    words = path.split(" ")
    if len(words) >= 3 and words[0] == "method":  # `method NAME CMD` is the method's own `NAME CMD`
        twin = " ".join(words[1:])
        if twin in EXAMPLES:
            return [e.replace(f"motivgraph {twin}", f"motivgraph {path}", 1) for e in EXAMPLES[twin]]
    out: list[str] = []
    for sp in sub_paths or []:
        out += examples_for(sp)[:1]
    return out


def _metavar(param: Any) -> str | None:
    """A readable metavar for a typer parameter; None leaves typer's own."""
    desc = getattr(param, "type_descriptor", None)
    if getattr(param, "is_flag", False):
        return ""
    if param.param_type_name == "argument":
        return param.name.upper()
    if desc is None:
        return None
    if desc.is_choice and desc.choices:
        return "|".join(str(getattr(c, "value", c)) for c in desc.choices)
    ann = desc.annotation
    if typing.get_origin(ann) is list:
        (ann,) = typing.get_args(ann) or (str,)
    if desc.is_path or ann is Path:
        return "PATH"
    return _TYPE_METAVARS.get(ann, "TEXT")


def epilog(path: str, sub_paths: list[str] | None = None) -> str:
    from rich.markup import escape  # local: light CLI path

    lines = ["[bold]Examples[/bold]"]
    lines += [f"  $ {escape(e)}" for e in examples_for(path, sub_paths)]
    lines += ["", "[bold]Exit codes[/bold]: " + "; ".join(f"{c} {_short(what)}" for c, what in EXIT_CODES)]
    return "\n".join(lines)


def _short(what: str) -> str:
    return what.split(":")[0].split(" (")[0]


def _readable_argument(p: Any) -> None:
    """Typer writes a required argument as `{query}` in the usage line and adds `<str>`: show `QUERY`,
    `[QUERY]` when optional, `PATHS...` when it takes several."""
    name = p.metavar or p.name.upper()
    many = p.nargs != 1
    p.metavar = name + ("..." if many and not name.endswith("...") else "")
    usage = p.metavar if p.required else f"[{p.metavar}]"
    p._usage_display_name = lambda: usage
    p.display_type_rich = lambda ctx: None


CmdT = TypeVar("CmdT")


def polish(cmd: CmdT, path: str, ctx: Any = None) -> CmdT:
    """Readable metavars and the examples/exit-codes epilog on `cmd` (and its static sub-commands)."""
    _polish(cmd, path)
    return cmd


def _polish(cmd: Any, path: str) -> None:
    if cmd is None or getattr(cmd, "_motivgraph_polished", False):
        return
    cmd._motivgraph_polished = True
    params = list(getattr(cmd, "params", []))
    with contextlib.suppress(Exception):  # the help option is created on first use; create it now to polish it
        help_opt = cmd.get_help_option(cmd.context_class(cmd))
        params.append(help_opt)
        if help_opt is not None and help_opt.default is None:
            # not given, a None is "coerced" through a pydantic adapter typer builds on first use (pydantic
            # is ~0.1-0.3 s of a `motivgraph CMD --help` start); False is already a bool and skips that
            help_opt.default = False
    for p in params:
        if p is None:
            continue
        if p.param_type_name == "argument":
            _readable_argument(p)
            continue
        if p.metavar is None or p.metavar in ("", "<bool>"):
            mv = _metavar(p)
            if mv is not None:
                p.metavar = mv
    commands = getattr(cmd, "commands", None)
    subs: list[str] = []
    if isinstance(commands, dict):
        for name, sub in commands.items():
            sp = f"{path} {name}".strip()
            subs.append(sp)
            _polish(sub, sp)
    if not cmd.epilog:
        cmd.epilog = epilog(path, subs)
