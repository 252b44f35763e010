"""`motivgraph ideate` with an argument out of its limits: one clear line naming the argument as typed (TOPIC,
--flag) and the limit -- not pydantic's multi-line report with its type codes and documentation URL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app

runner = CliRunner()


def _error_lines(output: str) -> list[str]:
    """The text inside the usage-error box, one entry per printed line."""
    lines = []
    for line in output.splitlines():
        m = re.match(r"^\s*│\s?(.*?)\s*│\s*$", line)
        if m and m[1].strip():
            lines.append(m[1].strip())
    return lines


@pytest.mark.parametrize(("args", "names"), [
    (["xy"], ["TOPIC", "3"]),
    (["q"], ["TOPIC", "3"]),
    (["z" * 620, "--dry-run"], ["TOPIC", "500"]),
    (["a sensible research topic", "--ideas", "0", "--dry-run"], ["--ideas", "1"]),
    (["a sensible research topic", "--ideas", "99", "--dry-run"], ["--ideas", "20"]),
])
def test_out_of_limit_arguments_are_one_clear_line(tmp_path: Path, args: list[str], names: list[str]) -> None:
    res = runner.invoke(app, ["ideate", *args], env={"MOTIVGRAPH_DATA_DIR": str(tmp_path / "d"), "COLUMNS": "250",
                                                     "MOTIVGRAPH_LLM_MODEL": ""})
    assert res.exit_code == 2, res.output
    lines = _error_lines(res.output)
    assert len(lines) == 1, f"not one line:\n{res.output}"
    for name in names:
        assert name in lines[0], (name, lines[0])
    for noise in ("http", "pydantic", "validation error", "type=", "input_value", "RunSpec", "Config"):
        assert noise not in res.output, (noise, res.output)
    assert "z" * 60 not in res.output  # a long topic is not echoed back whole
