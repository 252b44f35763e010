"""private_dir / tighten: owner-only directories and files, never loosened."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from motivgraph.private import PRIVATE_UMASK, private_dir, set_private_umask, tighten


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_private_dir_creates_every_missing_level_700_under_a_loose_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = private_dir(tmp_path / "a" / "b" / "c")
    finally:
        os.umask(old)
    assert target.is_dir()
    assert [_mode(tmp_path / p) for p in ("a", "a/b", "a/b/c")] == [0o700, 0o700, 0o700]


def test_tighten_removes_group_and_other_bits_but_never_adds(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_text("x")
    f.chmod(0o664)
    tighten(f, 0o600)
    assert _mode(f) == 0o600
    g = tmp_path / "g"
    g.write_text("x")
    g.chmod(0o400)
    tighten(g, 0o600)
    assert _mode(g) == 0o400  # already private: left alone


def test_set_private_umask_returns_the_old_mask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        assert set_private_umask() == 0o022
        (tmp_path / "new").write_text("x")
        assert _mode(tmp_path / "new") == 0o600
        assert os.umask(0o022) == PRIVATE_UMASK
    finally:
        os.umask(old)
