"""The offline parser's output on every shared corpus PDF is unchanged: its layout lines and the Paper it
builds match the golden digest (tests/fixtures/ingest/parser_golden.json, see tests/parser_golden.py),
file by file. A deliberate parser change rewrites the fixture (`python -m tests.parser_golden --update`)
and says in its commit which files changed and why."""

from __future__ import annotations

from typing import Any

import pytest

from tests.parser_golden import CORPUS, FOLDERS, corpus_files, differences, digest, file_sha, load_fixture

GOLDEN = load_fixture()
ORDER = sorted(GOLDEN, key=lambda s: str(GOLDEN[s]["name"]))


@pytest.mark.parametrize("sha", ORDER, ids=[GOLDEN[s]["name"] for s in ORDER])
def test_parser_output_matches_the_golden_digest(sha: str) -> None:
    expected: dict[str, Any] = GOLDEN[sha]
    path = CORPUS / expected["name"]
    if not path.is_file():
        pytest.skip(f"shared corpus file {path} not found ({'/'.join(FOLDERS)} under {CORPUS}): "
                    "the parser's golden output cannot be compared")
    if file_sha(path) != sha:
        pytest.skip(f"{path} is not the file the digest was taken from (content hash differs)")
    assert differences(expected, digest(path)) == []


def test_the_fixture_covers_every_corpus_pdf() -> None:
    if not all((CORPUS / folder).is_dir() for folder in FOLDERS):
        pytest.skip(f"shared corpus not found at {CORPUS}: cannot check the golden fixture covers it")
    missing = [str(p) for p in corpus_files() if file_sha(p) not in GOLDEN]
    assert missing == [], "corpus PDFs without a golden digest (run python -m tests.parser_golden --update)"
