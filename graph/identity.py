"""Node identity: `key = "<type>:<normalized name>"`.

Normalisation folds what does not change meaning — unicode form, case, punctuation, dashes,
whitespace — so "Low-Resource  NER", "low resource NER" and "Low‑resource NER." share one key,
while "C++", "C#" and "C" stay three keys.
It keeps word order and every alphanumeric character: no stemming, so that
"graph network" and "graph networks" stay apart here and are left to embedding-based resolution.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

from motivgraph.choices import NODE_TYPES

LABELS: dict[str, str] = {"problem": "Problem", "challenge": "Challenge", "solution": "Solution"}
TYPE_OF_LABEL: dict[str, str] = {v: k for k, v in LABELS.items()}

# '+' and '#' survive when attached to a word: "C++", "C#" and "C" are different things.
_NON_WORD = re.compile(r"[^\w+#]+", re.UNICODE)
_LONE_SYMBOLS = re.compile(r"(?<!\S)[+#]+(?!\S)")
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=65536)
def normalize_name(name: str) -> str:
    """Canonical form of a node name (see module doc). Raises ValueError when nothing is left.
    Cached: bulk upserts normalise the same names many times."""
    text = unicodedata.normalize("NFKC", name)
    # Drop combining marks so "naïve" and "naive" agree.
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    text = text.casefold().replace("_", " ")
    text = _NON_WORD.sub(" ", text)
    text = _LONE_SYMBOLS.sub(" ", text)
    text = _SPACES.sub(" ", text).strip()
    if not text:
        raise ValueError(f"node name {name!r} has no letters or digits")
    return text


def check_type(node_type: str) -> str:
    t = node_type.strip().lower()
    if t not in LABELS:
        raise ValueError(f"unknown node type {node_type!r}; expected one of {', '.join(NODE_TYPES)}")
    return t


def node_key(node_type: str, name: str) -> str:
    """The unique key of a node: '<type>:<normalized name>'."""
    return f"{check_type(node_type)}:{normalize_name(name)}"


def split_key(key: str) -> tuple[str, str]:
    """('problem', 'normalized name') from a key; ValueError if it is not a key."""
    node_type, sep, rest = key.partition(":")
    if not sep or node_type not in LABELS or not rest:
        raise ValueError(f"{key!r} is not a node key of the form '<type>:<name>'")
    return node_type, rest


def stable_random(key: str) -> float:
    """A uniform number in [0, 1) fixed by the key; indexed so seeded random sampling is one range scan."""
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64
