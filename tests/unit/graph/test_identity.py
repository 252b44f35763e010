"""Node identity: normalisation, keys, stable random numbers, and how NodeIn derives keys."""

from __future__ import annotations

import pytest

from motivgraph.graph.identity import check_type, node_key, normalize_name, split_key, stable_random
from motivgraph.graph.models import NodeIn


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Low-Resource  NER", "low resource NER"),
        ("Low\u2011resource NER.", "low resource ner"),  # non-breaking hyphen, trailing period
        ("Naïve Bayes", "naive bayes"),  # combining marks dropped
        ("ＧＰＵ memory", "gpu memory"),  # NFKC folds full-width letters
        ("snake_case_name", "snake case name"),
        ("  Tabs\tand\nnewlines ", "tabs and newlines"),
        ("STRASSE", "strasse"),
        ("Straße", "strasse"),  # casefold, not lower
        ("(Over)-smoothing!", "over smoothing"),
    ],
)
def test_equivalent_spellings_normalise_alike(a: str, b: str) -> None:
    assert normalize_name(a) == normalize_name(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("graph network", "graph networks"),  # no stemming
        ("data to text", "text to data"),  # word order kept
        ("GPT-3", "GPT-4"),  # digits kept
    ],
)
def test_distinct_names_stay_apart(a: str, b: str) -> None:
    assert normalize_name(a) != normalize_name(b)


def test_language_symbols_keep_names_apart() -> None:
    assert len({normalize_name("C++"), normalize_name("C#"), normalize_name("C")}) == 3
    assert normalize_name("C++ compilers") == "c++ compilers"
    # A lone symbol between words is punctuation, not part of a name.
    assert normalize_name("A + B") == normalize_name("a b") == "a b"
    with pytest.raises(ValueError):
        normalize_name("+ # +")


def test_normalised_form_is_idempotent_and_plain() -> None:
    for name in ["Low-Resource NER", "Naïve Bayes", "über-Cool  thing", "x_y-z"]:
        n = normalize_name(name)
        assert normalize_name(n) == n
        assert n == n.strip() and "  " not in n and n == n.casefold()


@pytest.mark.parametrize("bad", ["", "   ", "...", "—", "!!!"])
def test_names_without_letters_or_digits_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match="no letters or digits"):
        normalize_name(bad)


def test_node_key_and_split() -> None:
    key = node_key("Challenge", "Scarce  labelled-data")
    assert key == "challenge:scarce labelled data"
    assert split_key(key) == ("challenge", "scarce labelled data")
    with pytest.raises(ValueError):
        node_key("paper", "x")
    for bad in ["nokey", "paper:x", "problem:", ":x"]:
        with pytest.raises(ValueError):
            split_key(bad)
    assert check_type(" PROBLEM ") == "problem"


def test_stable_random_is_fixed_uniform_and_key_dependent() -> None:
    values = [stable_random(f"problem:p{i}") for i in range(2000)]
    assert values == [stable_random(f"problem:p{i}") for i in range(2000)]
    assert all(0.0 <= v < 1.0 for v in values)
    assert len(set(values)) == len(values)
    # roughly uniform: every tenth of [0, 1) gets a fair share (expected 200 each)
    buckets = [0] * 10
    for v in values:
        buckets[int(v * 10)] += 1
    assert min(buckets) > 120 and max(buckets) < 280


def test_nodein_strips_and_keys() -> None:
    n = NodeIn(name="  Low-resource \x00 NER\t", description="a\n\nb")
    assert n.name == "Low-resource NER" and n.description == "a b"
    assert n.key_for("problem") == "problem:low resource ner"
    assert NodeIn(name="alias spelling", key="problem:canonical").key_for("problem") == "problem:canonical"
    with pytest.raises(ValueError):
        NodeIn(name="")
