"""Start-up imports of the CLI: `motivgraph --help`, every command's `--help` and the commands that need
no graph, model or server import none of the graph, ML, LLM or web stacks (those cost seconds at each
start; the test suite runs the CLI as a subprocess many times). The root help lists the commands from
the summaries of the built-in "commands" lines (`motivgraph.plugins.BUILTIN`): they must be the commands' own help.

No timing here: a fresh interpreter imports the CLI once, then each command runs in a forked child
and reports which of the heavy libraries ended up in `sys.modules`.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from motivgraph import plugins
from motivgraph.cli import app

COMMANDS = plugins.BUILTIN["commands"]
# The commands of the agents layer: their options may be built from a pydantic config.
CONTRIBUTED = {n for n, c in COMMANDS.items() if c.app}

# Top-level packages a help screen or a light command must not import.
HEAVY = ("redis", "falkordb", "numpy", "faiss", "torch", "sentence_transformers", "transformers", "onnxruntime",
         "langchain", "langchain_core", "langchain_openai", "langchain_community", "fastapi", "starlette",
         "uvicorn", "pypdfium2")
# Help screens need no settings (pydantic-settings is the largest import of a command's start) and, but for
# the contributed commands, no pydantic.
HELP_ALSO_NOT = ("pydantic_settings", "pydantic")

HELP_ARGS = [
    [], *([name] for name in COMMANDS if name != "method"),
    ["graph", "stats"], ["ingest", "run"], ["mindflow", "train"],
]
# Commands that run (not only their help) without the graph, a model or a server.
LIGHT_COMMANDS = [["--version"], ["config", "show", "--json"], ["runs", "list", "--json"], ["llm", "roles", "--json"],
                  ["llm", "usage", "--json"]]

_PROBE = r"""
import json, os, sys
heavy = json.loads(sys.argv[1])
commands = json.loads(sys.argv[2])

def loaded():
    return sorted({m.split(".")[0] for m in sys.modules} & set(heavy))

def child(argv, w):
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    sys.argv = ["motivgraph", *argv]
    code = 0
    try:
        motivgraph.cli.main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:
        code = 99
    os.write(w, json.dumps([loaded(), code]).encode())
    os._exit(0)

import motivgraph.cli
out = {"import motivgraph.cli": [loaded(), 0]}
import typer.rich_utils  # what every help screen renders with (light): loaded once, before the children fork
running = {}
todo = list(commands)
while todo or running:
    while todo and len(running) < (os.cpu_count() or 1):
        argv = todo.pop(0)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            child(argv, w)
        os.close(w)
        running[pid] = (" ".join(argv), r)
    pid, _ = os.wait()
    name, r = running.pop(pid)
    with os.fdopen(r) as f:
        out[name] = json.loads(f.read() or '[["(child died)"], 99]')
print(json.dumps(out))
"""


def _probe(commands: list[list[str]], tmp_path: Path) -> dict[str, tuple[list[str], int]]:
    env = {**os.environ, "MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1", "COLUMNS": "120"}
    env.pop("MOTIVGRAPH_LLM_MODEL", None)
    res = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(HEAVY + HELP_ALSO_NOT), json.dumps(commands)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stderr[-3000:]
    return {k: (v[0], v[1]) for k, v in json.loads(res.stdout).items()}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the probe forks one child per command")
def test_help_screens_and_light_commands_import_no_heavy_library(tmp_path: Path) -> None:
    got = _probe([[*a, "--help"] for a in HELP_ARGS] + LIGHT_COMMANDS, tmp_path)
    assert got.pop("import motivgraph.cli") == ([], 0)
    light = {" ".join(a) for a in LIGHT_COMMANDS}
    bad = {}
    for cmd, (mods, code) in got.items():
        assert code == 0, f"`motivgraph {cmd}` exited {code}"
        if cmd in light:
            allowed: tuple[str, ...] = HELP_ALSO_NOT
        elif cmd.split()[0] in CONTRIBUTED:  # a contribution's options may be built from its pydantic config
            allowed = ("pydantic",)
        else:
            allowed = ()
        if extra := [m for m in mods if m not in allowed]:
            bad[cmd] = extra
    assert not bad, f"start-up imports heavy libraries (make those imports lazy): {bad}"


def test_root_help_summaries_are_the_commands_own() -> None:
    """The root help shows the built-in lines' summaries without importing the modules: each must be the
    first paragraph of the command's own help (what the listing showed when every module was imported)."""
    wrong = {}
    for name, part in COMMANDS.items():
        sub = part.cli()
        cmd = typer.main.get_command(sub) if isinstance(sub, typer.Typer) else sub
        own = inspect.cleandoc(cmd.short_help or cmd.help or "").split("\n\n")[0]
        if own != part.summary:
            wrong[name] = own
    assert not wrong, f"update the summaries in motivgraph/plugins.py to: {wrong}"


def test_every_command_a_module_adds_is_a_line() -> None:
    """A command a module's register() adds but no line names would be unreachable."""
    for register in {c.register for c in COMMANDS.values() if c.register}:
        holder = typer.Typer()
        plugins.resolve(register)(holder)
        for name in typer.main.get_group(holder).commands:
            assert COMMANDS[name].register == register, f"{register} adds `{name}`: add its line to BUILTIN"


def test_root_help_lists_every_command_in_order() -> None:
    root = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="motivgraph")
    names = root.list_commands(ctx)  # type: ignore[attr-defined]
    assert names[: len(COMMANDS)] == list(COMMANDS)
    assert set(names) == set(COMMANDS) | set(plugins.names("commands"))
    text = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    for name in names:
        assert f"│ {name} " in text, name
