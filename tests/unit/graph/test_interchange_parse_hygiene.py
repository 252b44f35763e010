"""Issue 12 #4/#7 (parse side): `graph import` rejects — with the line number — text it must not
repair (lone surrogates, NULs, invalid UTF-8) and names over the one shared length limit."""

from __future__ import annotations

import json

from motivgraph.graph.interchange import parse_lines

HEADER = '{"kind":"header","format":"motivgraph-graph","version":1}'


def _node(key: str, name: str, **extra: object) -> str:
    return json.dumps({"kind": "node", "type": key.split(":")[0], "key": key, "name": name, **extra})


def _triple(paper_id: str, p: str, c: str, s: str) -> str:
    return json.dumps({"kind": "triple", "paper_id": paper_id, "index": 0,
                       "problem": {"name": p}, "challenge": {"name": c}, "solution": {"name": s}})


def _file(*body: str, counts: dict[str, int] | None = None) -> list[str]:
    return [HEADER, *body, json.dumps({"kind": "end", "counts": counts or {}})]


def _errors(lines: list[str] | list[bytes]) -> dict[int, str]:
    return dict(parse_lines(lines).errors)  # type: ignore[arg-type]


def test_lone_surrogate_in_a_node_line_is_a_bad_line() -> None:
    # json.dumps escapes the surrogate as \ud835, exactly what a hostile file holds
    errors = _errors(_file(_node("problem:ok", "ok"), _node("problem:mu", "mu \ud835")))
    assert 3 in errors and "surrogate" in errors[3] and "name" in errors[3]
    assert 2 not in errors


def test_nul_in_a_key_is_a_bad_line_not_stripped() -> None:
    errors = _errors(_file(_node("problem:ab", "ab"), _node("problem:ab\x00", "ab")))
    assert 3 in errors and "NUL" in errors[3] and "key" in errors[3]


def test_nul_in_nested_fields_is_a_bad_line() -> None:
    errors = _errors(_file(_node("problem:ab", "ab", aliases=["a\x00b"]), _triple("p1", "P\x00", "C", "S")))
    assert "aliases" in errors[2] and "NUL" in errors[2]
    assert "problem" in errors[3] and "NUL" in errors[3]


def test_invalid_utf8_line_is_a_bad_line() -> None:
    good = _node("problem:ok", "ok").encode()
    bad = _node("problem:x", "PLACEHOLDER").encode().replace(b"PLACEHOLDER", b"caf\xe9")
    errors = _errors([HEADER.encode(), good, bad, b'{"kind":"end","counts":{}}'])
    assert 3 in errors and "invalid UTF-8" in errors[3] and 2 not in errors


def test_node_lines_and_triple_references_share_one_name_limit() -> None:
    from motivgraph.limits import MAX_NAME_CHARS

    ok, long = "n" * MAX_NAME_CHARS, "n" * (MAX_NAME_CHARS + 1)
    errors = _errors(_file(
        _node("problem:" + ok, ok), _node("problem:" + long, long), _node("problem:huge", "x" * 1_000_000),
        _node("problem:al", "al", aliases=[long]), _triple("p", ok, "c", "s"), _triple("p", long, "c", "s"),
    ))
    assert 2 not in errors and 6 not in errors
    for lineno in (3, 4, 5, 7):
        assert lineno in errors and str(MAX_NAME_CHARS) in errors[lineno], (lineno, errors)


def test_clean_unicode_outside_the_bmp_is_accepted() -> None:
    counts = {"node": 1, "paper": 0, "triple": 0, "parent": 0}
    parsed = parse_lines(_file(_node("problem:𝜇 estimation", "𝜇 estimation"), counts=counts))
    assert not parsed.errors and parsed.nodes[0][1].name == "𝜇 estimation"
