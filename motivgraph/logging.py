"""Logging setup: per-module loggers (`logging.getLogger(__name__)`), one configuration point.

Log lines always go to stderr (stdout is reserved for a command's output, e.g. `--json`), one line
each, with an ISO-8601 timestamp: `2026-12-01T04:16:15.123+00:00 INFO motivgraph.graph.embedded: ...`.

Third-party noise (transformers' "Loading weights" bar, hub progress bars, advisory warnings) is
silenced unless `verbose`: it must reach neither a script reading stdout nor a human's terminal.

Secrets never reach a log line: settings render masked, and `redact` scrubs known secret values
from any message that might echo them (e.g. an HTTP error body quoting a header).
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
import warnings

_SECRET_ENV = re.compile(r"(KEY|TOKEN|PASSWORD|SECRET)", re.I)
NOISY_LOGGERS = ("httpx", "httpcore", "sentence_transformers", "transformers", "huggingface_hub", "neo4j",
                 "urllib3", "faiss", "filelock", "torch")
# Read by transformers / huggingface_hub / tokenizers when they are first imported.
_QUIET_ENV = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


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


# What must never reach a log line raw: C0/C1 controls (CR, LF, ESC of ANSI sequences, NUL, DEL), the Unicode line and
# paragraph separators and the bidi overrides that reorder what a reader sees. A request value carrying them could
# forge a line or hide part of one (issue 41).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape_char(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def log_safe(value: object, limit: int = 2000) -> str:
    """`value` as text fit for one log line: backslashes doubled and every control character written as `\\xNN` /
    `\\uNNNN`, so a forged line or an ANSI sequence shows as its escape and no two inputs log alike; cut at `limit`."""
    text = str(value)
    if len(text) > limit:
        text = text[:limit] + f"...(+{len(text) - limit} chars)"
    return _UNSAFE.sub(_escape_char, text.replace("\\", "\\\\"))


class _OneLineFilter(logging.Filter):
    """Every record's message stays on its line: control characters anything put in it (a request value inside an
    exception text, a model's output) are escaped. Tracebacks are formatted after this and keep their lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        if _UNSAFE.search(msg):
            record.msg, record.args = _UNSAFE.sub(_escape_char, msg), None
        return True


class IsoFormatter(logging.Formatter):
    """`%(asctime)s` as ISO-8601 with milliseconds and the UTC offset (never a locale date)."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        t = time.localtime(record.created)
        offset = time.strftime("%z", t)
        offset = f"{offset[:3]}:{offset[3:]}" if len(offset) == 5 else offset
        return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{int(record.msecs):03d}{offset}"


FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever `sys.stderr` is at emit time (test runners and wrappers swap it)."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)

    @property
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:  # StreamHandler.setStream assigns; stderr stays the target
        pass


def _secret_values() -> list[str]:
    return [v for k, v in os.environ.items() if k.startswith("MOTIVGRAPH_") and _SECRET_ENV.search(k) and v]


def quiet_third_party(verbose: bool = False) -> None:
    """Silence progress bars and advisory warnings of the ML libraries (unless verbose). Effective for
    libraries imported afterwards (env) and, for transformers, also when it is already imported."""
    if verbose:
        return
    for k, v in _QUIET_ENV.items():
        os.environ.setdefault(k, v)
    warnings.filterwarnings("ignore", module=r"(transformers|sentence_transformers|huggingface_hub|torch)(\.|$)")
    tf_logging = sys.modules.get("transformers.utils.logging")
    if tf_logging is not None:
        tf_logging.disable_progress_bar()


def setup_logging(level: str = "INFO", *, rich: bool = True, verbose: bool = False) -> None:
    """Configure the root logger once (stderr, ISO timestamps); repeated calls only change the level.
    `rich` is accepted for callers of the older signature; output is plain lines either way so that log
    files and pipes get one parseable line per record."""
    del rich
    quiet_third_party(verbose)
    root = logging.getLogger()
    root.setLevel(level.upper())
    if not getattr(root, "_motivgraph_configured", False):
        handler = _StderrHandler()
        handler.setFormatter(IsoFormatter(FORMAT))
        handler.addFilter(_RedactFilter(_secret_values()))
        handler.addFilter(_OneLineFilter())
        root.addHandler(handler)
        root._motivgraph_configured = True  # type: ignore[attr-defined]
    # Chatty third-party loggers stay at WARNING unless we are debugging.
    for noisy in NOISY_LOGGERS:
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level) if not verbose else root.level)
