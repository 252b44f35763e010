"""Logging setup: per-module loggers (`logging.getLogger(__name__)`), one configuration point.

Secrets never reach a log line: settings render masked, and `redact` scrubs known secret values
from any message that might echo them (e.g. an HTTP error body quoting a header).
"""

from __future__ import annotations

import logging
import os
import re

from rich.logging import RichHandler

_SECRET_ENV = re.compile(r"(KEY|TOKEN|PASSWORD|SECRET)", re.I)


class _RedactFilter(logging.Filter):
    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self._secrets = [s for s in secrets if len(s) >= 6]

    def filter(self, record: logging.LogRecord) -> bool:
        if self._secrets:
            msg = record.getMessage()
            for s in self._secrets:
                msg = msg.replace(s, "***")
            record.msg, record.args = msg, None
        return True


def _secret_values() -> list[str]:
    return [v for k, v in os.environ.items() if k.startswith("MOTIVGRAPH_") and _SECRET_ENV.search(k) and v]


def setup_logging(level: str = "INFO", *, rich: bool = True) -> None:
    """Configure the root logger once; repeated calls only change the level."""
    root = logging.getLogger()
    root.setLevel(level.upper())
    if getattr(root, "_motivgraph_configured", False):
        return
    handler: logging.Handler
    if rich:
        handler = RichHandler(show_path=False, rich_tracebacks=False, markup=False)
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    else:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_RedactFilter(_secret_values()))
    root.addHandler(handler)
    # Chatty third-party loggers stay at WARNING unless we are debugging.
    for noisy in ("httpx", "httpcore", "sentence_transformers", "neo4j", "urllib3", "faiss"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
    root._motivgraph_configured = True  # type: ignore[attr-defined]
