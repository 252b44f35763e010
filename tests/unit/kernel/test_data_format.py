"""Issue 12: a format version for the data directory. A newer directory is refused with a clear message,
an older one is migrated (or the message names the command that does), a new one is stamped."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.errors import DataFormatError


def _stamp(data: Path) -> dict:
    from motivgraph.data_format import STAMP_NAME

    return json.loads((data / STAMP_NAME).read_text())


def test_new_data_dir_is_stamped_with_the_current_version(tmp_path: Path) -> None:
    from motivgraph.data_format import DATA_FORMAT_VERSION, STAMP_NAME, check_data_dir

    data = tmp_path / "data"
    assert check_data_dir(data) == DATA_FORMAT_VERSION
    assert _stamp(data)["version"] == DATA_FORMAT_VERSION
    assert stat.S_IMODE((data / STAMP_NAME).stat().st_mode) == 0o600
    assert check_data_dir(data) == DATA_FORMAT_VERSION  # idempotent


def test_newer_data_dir_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    from motivgraph.data_format import DATA_FORMAT_VERSION, STAMP_NAME, check_data_dir
    from motivgraph.errors import ConfigError, DataFormatError

    data = tmp_path / "data"
    data.mkdir()
    newer = {"format": "motivgraph-data", "version": DATA_FORMAT_VERSION + 1, "written_by": "99.0"}
    (data / STAMP_NAME).write_text(json.dumps(newer))
    with pytest.raises(DataFormatError) as ei:
        check_data_dir(data)
    msg = str(ei.value)
    assert str(DATA_FORMAT_VERSION + 1) in msg and "newer" in msg and str(data) in msg and "99.0" in msg
    assert isinstance(ei.value, ConfigError)
    assert _stamp(data) == newer  # untouched


def test_unstamped_data_dir_with_content_is_migrated_from_version_0(tmp_path: Path) -> None:
    from motivgraph.data_format import DATA_FORMAT_VERSION, check_data_dir

    data = tmp_path / "data"
    (data / "falkordb").mkdir(parents=True)
    (data / "ledger.sqlite").write_bytes(b"")
    assert check_data_dir(data) == DATA_FORMAT_VERSION
    stamp = _stamp(data)
    assert stamp["version"] == DATA_FORMAT_VERSION and stamp["migrated_from"] == 0


def test_older_version_without_an_automatic_step_names_the_command(tmp_path: Path, monkeypatch) -> None:
    from motivgraph import data_format

    monkeypatch.setattr(data_format, "DATA_FORMAT_VERSION", data_format.DATA_FORMAT_VERSION + 1)
    data = tmp_path / "data"
    data.mkdir()
    (data / data_format.STAMP_NAME).write_text(json.dumps({"format": "motivgraph-data", "version": 1}))
    with pytest.raises(DataFormatError, match="motivgraph db upgrade"):
        data_format.check_data_dir(data, migrate=False)


def test_corrupt_stamp_names_the_file(tmp_path: Path) -> None:
    from motivgraph.data_format import STAMP_NAME, check_data_dir
    from motivgraph.errors import DataFormatError

    data = tmp_path / "data"
    data.mkdir()
    (data / STAMP_NAME).write_text("{not json")
    with pytest.raises(DataFormatError, match=STAMP_NAME):
        check_data_dir(data)


def test_cli_refuses_a_newer_data_dir(tmp_path: Path, monkeypatch) -> None:
    from motivgraph.cli import app
    from motivgraph.data_format import DATA_FORMAT_VERSION, STAMP_NAME

    data = tmp_path / "data"
    data.mkdir()
    (data / STAMP_NAME).write_text(json.dumps({"format": "motivgraph-data", "version": DATA_FORMAT_VERSION + 5}))
    monkeypatch.chdir(tmp_path)
    for k in [k for k in os.environ if k.startswith("MOTIVGRAPH_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(data))
    res = CliRunner().invoke(app, ["db", "status"])
    assert res.exit_code == 3, res.output
    assert "newer" in res.output and str(DATA_FORMAT_VERSION + 5) in res.output
    assert not (data / "falkordb").exists()  # nothing started or written


def test_cli_upgrade_stamps_an_old_data_dir(tmp_path: Path, monkeypatch) -> None:
    from motivgraph.cli import app
    from motivgraph.data_format import DATA_FORMAT_VERSION

    data = tmp_path / "data"
    (data / "index").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    for k in [k for k in os.environ if k.startswith("MOTIVGRAPH_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(data))
    res = CliRunner().invoke(app, ["db", "upgrade"])
    assert res.exit_code == 0, res.output
    assert f"format version {DATA_FORMAT_VERSION}" in " ".join(res.output.split())
    assert _stamp(data)["version"] == DATA_FORMAT_VERSION
