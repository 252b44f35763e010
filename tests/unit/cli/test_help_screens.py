"""Every help screen: an example, the exit codes, readable metavars, no seed section numbers; `ingest
--help` shows the options of `ingest run`; the exit-code table of docs/command-line.md is the CLI's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.cli.helpfmt import EXIT_CODES

runner = CliRunner()
REPO = Path(__file__).resolve().parents[3]
README = REPO / "README.md"
COMMAND_LINE = REPO / "docs" / "command-line.md"  # the exit-code table
# Python-typed metavars typer would print, and section numbers of the source paper (B.4, §3.2)
_TYPED = re.compile(r"<(bool|str|int|float|path|list\[[^\]]*\]|[a-z]+ range)>|\{[a-z_]+\}")
_SECTION = re.compile(r"\(([A-E]\.\d+(\.\d+)?)\)|§\s?\d|\b[A-E]\.\d\b(?![\d.]*\w)")


def _paths() -> list[list[str]]:
    root = typer.main.get_command(app)
    out: list[list[str]] = []

    def walk(cmd: object, path: list[str], parent: object) -> None:
        out.append(path)
        if hasattr(cmd, "list_commands"):
            ctx = cmd.context_class(cmd, info_name=path[-1] if path else "motivgraph", parent=parent)  # type: ignore[attr-defined]
            for name in cmd.list_commands(ctx):  # type: ignore[attr-defined]
                sub = cmd.get_command(ctx, name)  # type: ignore[attr-defined]
                if sub is not None and not getattr(sub, "hidden", False):
                    walk(sub, [*path, name], ctx)

    walk(root, [], None)
    return out


PATHS = _paths()


def test_the_walk_reaches_contributed_and_method_commands() -> None:
    names = {" ".join(p) for p in PATHS}
    assert {"search", "ingest run", "runs list", "runs show", "eval", "mindflow train",
            "method mindflow train"} <= names


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "motivgraph")
def test_help_screen(path: list[str], tmp_path: Path) -> None:
    res = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200", "MOTIVGRAPH_DATA_DIR": str(tmp_path / "d")})
    assert res.exit_code == 0, res.output
    text = res.output
    example = re.search(r"\$ (\S+=\S+ )*motivgraph ", text)
    assert "Examples" in text and example, f"no example in `motivgraph {' '.join(path)} --help`"
    assert "Exit codes" in text and "3 configuration error" in text
    typed = _TYPED.findall(text)
    assert not typed, f"Python-typed metavars {typed} in `{' '.join(path)} --help`"
    assert not _SECTION.search(text), f"section number {_SECTION.search(text)} in `{' '.join(path)} --help`"
    assert not (tmp_path / "d").exists()  # help never creates the data dir


def test_ingest_help_shows_the_run_options() -> None:
    text = runner.invoke(app, ["ingest", "--help"], env={"COLUMNS": "200"}).output
    for opt in ("--retry-failed", "--dry-run", "--budget-usd", "--limit", "--json", "PATHS..."):
        assert opt in text, opt


def test_documented_exit_code_table_matches_the_cli() -> None:
    text = COMMAND_LINE.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\d)` \| ([^|]+) \|", text, flags=re.M))
    assert {int(k) for k in rows} == {c for c, _ in EXIT_CODES}


def test_exit_codes_are_the_ones_the_cli_uses() -> None:
    from motivgraph.errors import BackendUnavailable, BudgetExceeded, ConfigError, GraphError
    from motivgraph.terminal import EXIT_CONFIG, EXIT_FAILED, EXIT_STOPPED, EXIT_UNAVAILABLE, exit_code_for

    documented = {c for c, _ in EXIT_CODES}
    assert {EXIT_FAILED, EXIT_CONFIG, EXIT_UNAVAILABLE, EXIT_STOPPED, 2} <= documented
    errors = (GraphError, ConfigError, BackendUnavailable, BudgetExceeded)
    assert [exit_code_for(e("x")) for e in errors] == [1, 3, 4, 5]


def _readme_commands(group: str) -> list[list[str]]:
    """The words of every command line `motivgraph <group> ...` of the README and the docs pages (env
    assignments before it dropped, the comment after it cut)."""
    import shlex

    out = []
    pages = [README, *sorted((REPO / "docs").rglob("*.md"))]
    for line in (ln for page in pages for ln in page.read_text(encoding="utf-8").splitlines()):
        m = re.match(rf"^\s*(?:\w+=\S+\s+)*motivgraph {re.escape(group)}\b(.*)$", line)
        if m:
            out.append(shlex.split(m[1].split(" #", 1)[0], comments=False))
    return out


def _help(path: list[str]) -> str:
    res = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    return res.output


def test_every_ingest_option_the_readme_uses_is_in_its_help() -> None:
    """`motivgraph ingest --help` (and the help of the subcommand a README line names) shows every option the
    README's ingest commands use; a line using the `--re-extract` shortcut takes the options of `ingest re-extract`."""
    commands = _readme_commands("ingest")
    assert len(commands) >= 5
    group = typer.main.get_command(app).get_command(None, "ingest")  # type: ignore[attr-defined]
    subs = set(group.commands)
    missing = []
    for words in commands:
        options = [w.split("=", 1)[0] for w in words if w.startswith("--")]
        if words and words[0] in subs:
            where = [words[0]]
        elif "--re-extract" in options:
            if "--re-extract" not in _help(["ingest"]):
                missing.append(("ingest", "--re-extract"))
            where, options = ["re-extract"], [o for o in options if o != "--re-extract"]
        else:
            where = []
        text = _help(["ingest", *where])
        missing += [(" ".join(["ingest", *where]), o) for o in options if not re.search(rf"{re.escape(o)}\b", text)]
    assert not missing, f"README options missing from the help screens: {sorted(set(missing))}"
