"""`reindex --kind` and `--engine` take the choices the settings declare (motivgraph/choices.py): anything else is
a usage error naming them, before a store or a model is opened."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.settings import IndexSettings


@pytest.mark.parametrize(("option", "choices"), [
    ("--kind", typing.get_args(IndexSettings.model_fields["kind"].annotation)),
    ("--engine", ("local", "ray")),
])
def test_a_bad_choice_is_a_usage_error_naming_the_valid_ones(option: str, choices: tuple[str, ...],
                                                             tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["reindex", option, "nope"], env={"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data")})
    out = " ".join(re.sub("[│╭╮╰╯─]", " ", r.output).split())  # typer's error box, unwrapped
    assert r.exit_code == 2, out
    assert "'nope' is not one of " + ", ".join(repr(c) for c in choices) in out
    assert not (tmp_path / "data").exists()
