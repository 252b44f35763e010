"""Server filesystem paths scrubbed out of messages sent to clients."""

from __future__ import annotations

import re

# Filesystem paths under the usual roots (never an API route such as /tools/node_search): a client learns
# nothing it can act on from them, and they tell an attacker user names and layout.
FS_PATH = re.compile(
    r"(?<![\w.-])/(?:home|root|tmp|var|usr|opt|srv|mnt|media|data|work|etc|run|proc|private|Users|Volumes|nix|snap)"
    r"(?![\w.-])(?:/[^\s'\"(),;:]*)?"
)


def scrub_paths(text: str) -> str:
    """`text` with every server filesystem path replaced by `<path>` (for messages sent to clients)."""
    return FS_PATH.sub("<path>", text)

