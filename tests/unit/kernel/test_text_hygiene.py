"""Text hygiene: repair (counted) for document text, strict rejection for caller-correctable input."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError, field_validator

from motivgraph.errors import MotivGraphError, TextHygieneError
from motivgraph.text_hygiene import (
    NO_REPAIRS,
    REPLACEMENT,
    Repairs,
    check_text,
    find_problem,
    repair_text,
)


def _utf16_halves(s: str) -> str:
    """What pdfium's per-unit API hands out: each astral char as two surrogate code points."""
    units = s.encode("utf-16-le")
    return "".join(chr(int.from_bytes(units[i:i + 2], "little")) for i in range(0, len(units), 2))


def test_clean_text_is_returned_untouched_with_no_repairs() -> None:
    text = "Tab\tnew\nline\r ünïcödé 𝜇 — done"
    out, rep = repair_text(text)
    assert out == text and rep == NO_REPAIRS and not rep and rep.total == 0


def test_surrogate_halves_are_rejoined_into_the_astral_character() -> None:
    halves = _utf16_halves("mean 𝜇 and 𝐹 with 𝛽")
    assert len(halves) == len("mean 𝜇 and 𝐹 with 𝛽") + 3
    out, rep = repair_text(halves)
    assert out == "mean 𝜇 and 𝐹 with 𝛽"
    assert rep == Repairs(surrogate_pairs_joined=3)
    out.encode("utf-8")  # the repaired text serialises


def test_lone_surrogates_become_replacement_characters() -> None:
    out, rep = repair_text("a\ud835b\udf07c\udc80")
    assert out == f"a{REPLACEMENT}b{REPLACEMENT}c{REPLACEMENT}"
    assert rep == Repairs(lone_surrogates=3)
    out.encode("utf-8")


def test_reversed_pair_is_two_lone_surrogates_not_a_character() -> None:
    out, rep = repair_text("\udf07\ud835")
    assert out == REPLACEMENT * 2 and rep.lone_surrogates == 2 and rep.surrogate_pairs_joined == 0


def test_nul_controls_and_noncharacters_are_removed_and_counted() -> None:
    text = "a\x00b\x01c\x7fd\x9fe\ufffef\uffffg\ufdd0h\U0010ffffi\U0001fffej"
    out, rep = repair_text(text)
    assert out == "abcdefgh\U0010ffffi\U0001fffej"  # astral noncharacters are valid in interchange: kept
    assert rep == Repairs(nuls=1, controls=3, noncharacters=3)


def test_whitespace_like_controls_keep_words_apart() -> None:
    out, rep = repair_text("page\x0cbreak\x0bthere")
    assert out == "page break there" and rep.controls == 2


def test_tab_newline_carriage_return_are_kept() -> None:
    assert repair_text("a\tb\nc\rd") == ("a\tb\nc\rd", NO_REPAIRS)


def test_invalid_utf8_bytes_are_replaced_and_counted_per_byte() -> None:
    data = b"ok " + b"\xff\xfe" + b" mid " + b"\xc3" + " 𝜇".encode()
    out, rep = repair_text(data)
    assert out == f"ok {REPLACEMENT} mid {REPLACEMENT} 𝜇"
    assert rep == Repairs(invalid_utf8=3)


def test_valid_utf8_bytes_decode_without_repairs() -> None:
    assert repair_text("μ 𝜇 ü".encode()) == ("μ 𝜇 ü", NO_REPAIRS)


def test_bytes_with_nul_count_both_kinds() -> None:
    out, rep = repair_text(b"a\x00b\x80")
    assert out == f"ab{REPLACEMENT}" and rep == Repairs(nuls=1, invalid_utf8=1)


def test_repairs_add_up_and_report_non_zero_counts() -> None:
    total = Repairs(nuls=1) + Repairs(nuls=2, surrogate_pairs_joined=4)
    assert total == Repairs(nuls=3, surrogate_pairs_joined=4)
    assert total.as_dict() == {"surrogate_pairs_joined": 4, "nuls": 3} and total.total == 7


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("ab\x00c", 3, "NUL"),
        ("a\ud835", 2, "lone surrogate U+D835"),
        (_utf16_halves("𝜇"), 1, "surrogate"),  # strict: even a pair of halves is not text a caller may send
        ("a\x1bb", 2, "control character U+001B"),
        ("a\x85", 2, "control character U+0085"),
        ("xy\uffff", 3, "noncharacter U+FFFF"),
        ("ok\ufdd5", 3, "noncharacter U+FDD5"),
    ],
)
def test_check_text_rejects_with_position(text: str, position: int, fragment: str) -> None:
    with pytest.raises(TextHygieneError) as ei:
        check_text(text, field="name")
    err = ei.value
    assert err.position == position and fragment in str(err) and str(err).startswith("name: ")
    assert isinstance(err, MotivGraphError) and isinstance(err, ValueError)


def test_check_text_accepts_clean_text_unchanged() -> None:
    text = "mean 𝜇\twith\nlines\r"
    assert check_text(text) is text
    assert find_problem(text) is None


def test_check_text_length_limit() -> None:
    assert check_text("a" * 5, max_chars=5) == "aaaaa"
    with pytest.raises(TextHygieneError, match="longer than 5 characters"):
        check_text("a" * 6, max_chars=5)


def test_strict_check_in_a_pydantic_validator_is_a_validation_error() -> None:
    class Req(BaseModel):
        name: str

        @field_validator("name")
        @classmethod
        def _clean(cls, v: str) -> str:
            return check_text(v)

    assert Req(name="ok 𝜇").name == "ok 𝜇"
    with pytest.raises(ValidationError, match="NUL"):
        Req(name="a\x00b")


@pytest.mark.parametrize(
    "text", ["ok", " 𝜇 ", "tab\there", "a\x00b", "a\x1bb", "a\ud835", "\ufffe", "\U0010ffff", "x\x85", " ", "\t\n", "",
             "\u3000", "\u2003x", "\xa0"]
)
def test_schema_patterns_agree_with_check_text(text: str) -> None:
    import re

    from motivgraph.text_hygiene import NONBLANK_TEXT_PATTERN, TEXT_PATTERN

    clean = find_problem(text) is None
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        clean = True  # surrogates are check_text's alone (see TEXT_PATTERN)
    assert bool(re.fullmatch(TEXT_PATTERN, text)) == clean
    assert bool(re.fullmatch(NONBLANK_TEXT_PATTERN, text)) == (clean and bool(text.strip()))
