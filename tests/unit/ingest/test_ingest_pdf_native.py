"""The C loops over pdfium's per-character calls (ingest/pdf_native.py): built with the system's compiler
and loaded, the parser's output identical with and without them on every corpus PDF (the golden digest),
and no compiler / a failing compiler leaving the parser on its pure-Python path with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from motivgraph.ingest import pdf_layout, pdf_native
from tests.parser_golden import CORPUS, corpus_files, differences, digest, file_sha, lines_digest, load_fixture


@pytest.fixture
def no_cached_library():
    pdf_native.library.cache_clear()
    yield
    pdf_native.library.cache_clear()


def test_the_library_builds_and_loads_where_a_compiler_is(tmp_path: Path) -> None:
    if pdf_native.compiler() is None:
        pytest.skip("no C compiler here: the parser runs its pure-Python path (tested below)")
    path = pdf_native.build(tmp_path)
    assert path.parent == tmp_path and path.name == pdf_native.library_name()
    lib = pdf_native._load(path)
    assert all(hasattr(lib, fn) for fn in ("mg_uint_range", "mg_font_info_at", "mg_reading_turn", "mg_page_lines"))


def test_the_output_is_the_same_without_the_c_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    files = list(corpus_files()) if CORPUS.is_dir() else []
    if not files:
        pytest.skip(f"shared corpus not found at {CORPUS}: nothing to compare the two paths on")
    if pdf_native.library() is None:
        pytest.skip("the C loops are not available here, so both runs would take the pure-Python path")
    golden = load_fixture()
    monkeypatch.setattr(pdf_layout, "_native", lambda: None)
    checked = 0
    for path in files:
        sha = file_sha(path)
        if sha in golden:
            assert differences(golden[sha], digest(path)) == [], path.name
            checked += 1
    assert checked >= len(files) // 2


def test_the_c_pass_builds_every_corpus_page(monkeypatch: pytest.MonkeyPatch) -> None:
    files = list(corpus_files()) if CORPUS.is_dir() else []
    if not files or pdf_native.library() is None:
        pytest.skip("no shared corpus, or the C loops are not available here")
    golden = load_fixture()
    for name in ("_lines_in_bulk", "_lines_char_by_char"):  # no page falls back to a Python pass
        monkeypatch.setattr(pdf_layout, name, lambda *a, _name=name, **k: pytest.fail(f"{_name} used"))
    for path in files:
        sha = file_sha(path)
        if sha in golden and "lines_sha" in golden[sha]:
            assert lines_digest(path)["lines_sha"] == golden[sha]["lines_sha"], path.name


def test_no_compiler_means_the_python_path_with_the_reason(monkeypatch, no_cached_library, tmp_path, caplog):
    monkeypatch.setattr(pdf_native, "compiler", lambda: None)
    monkeypatch.setattr(pdf_native, "_build_dirs", lambda: [tmp_path])
    with pytest.raises(RuntimeError, match="no C compiler"):
        pdf_native.build()
    with caplog.at_level("INFO", logger="motivgraph.ingest.pdf_native"):
        assert pdf_native.library() is None
    assert "pure-Python path" in caplog.text


def test_a_failing_compiler_is_reported_and_leaves_no_file(monkeypatch, no_cached_library, tmp_path):
    monkeypatch.setattr(pdf_native, "compiler", lambda: ["false"])
    with pytest.raises(RuntimeError, match="exited 1"):
        pdf_native.build(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_edited_source_gets_its_own_build(monkeypatch, tmp_path):
    before = pdf_native.library_name()
    edited = tmp_path / "pdfchars.c"
    edited.write_text(pdf_native.SOURCE.read_text() + "\n/* edited */\n")
    monkeypatch.setattr(pdf_native, "SOURCE", edited)
    assert pdf_native.library_name() != before
