"""Issue 41 item 3: a stored MindFlow controller has an id (`<model key>:<entry>`) that remote callers name instead
of a server path; an id cannot leave the store, and `motivgraph mindflow controllers` lists the ids."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.agents.mindflow.store import CONTROLLER_FILE, controller_id, entry_dir, is_controller_id, resolve


def _stored(data_dir: Path, entry: str = "topics-0123456789ab") -> Path:
    folder = entry_dir(data_dir, "local:smollm2", "all-MiniLM-L6-v2", entry)
    folder.mkdir(parents=True)
    (folder / CONTROLLER_FILE).write_bytes(b"x")
    return folder / CONTROLLER_FILE


def test_an_id_names_its_stored_controller(tmp_path: Path) -> None:
    npz = _stored(tmp_path)
    cid = controller_id(npz)
    assert is_controller_id(cid) and "/" not in cid
    assert resolve(tmp_path, cid) == npz
    assert resolve(tmp_path, cid + "x") is None


@pytest.mark.parametrize("value", ["", "/etc/passwd", "../x:y", "a:../b", "a:b/c", "a:.hidden", "a:b\n", "-a:b",
                                   "a", "a:b:c", "x" * 129 + ":b"])
def test_what_is_no_id(value: str, tmp_path: Path) -> None:
    assert not is_controller_id(value)
    assert resolve(tmp_path, value) is None


def test_the_cli_lists_the_ids(tmp_path: Path) -> None:
    from motivgraph.cli import app

    npz = _stored(tmp_path / "d")
    res = CliRunner().invoke(app, ["mindflow", "controllers"], env={"MOTIVGRAPH_DATA_DIR": str(tmp_path / "d")})
    assert res.exit_code == 0, res.output
    assert controller_id(npz) in res.output
    empty = CliRunner().invoke(app, ["mindflow", "controllers"], env={"MOTIVGRAPH_DATA_DIR": str(tmp_path / "e")})
    assert empty.exit_code == 0 and "no stored controllers" in empty.output
