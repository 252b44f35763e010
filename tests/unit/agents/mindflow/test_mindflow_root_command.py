"""`motivgraph mindflow train` is contributed at the top of the CLI through the registry."""

from __future__ import annotations

from typer.testing import CliRunner

from motivgraph.cli import app


def test_mindflow_is_a_top_level_command_with_train_and_show() -> None:
    r = CliRunner().invoke(app, ["--help"])
    assert r.exit_code == 0 and "mindflow" in r.output
    r = CliRunner().invoke(app, ["mindflow", "train", "--help"])
    assert r.exit_code == 0, r.output
    assert "--topics" in r.output and "--steps" in r.output and "--dry-run" in r.output
    r = CliRunner().invoke(app, ["mindflow", "show", "--help"])
    assert r.exit_code == 0, r.output
