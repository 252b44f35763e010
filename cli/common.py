"""What the built-in CLI commands share beyond motivgraph/terminal.py (consoles, settings loading, exit codes,
`cli_errors`, shared with the commands the agents layer contributes): where the data dir is, and whether the
graph is empty."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motivgraph.errors import (
    NOTHING_TO_SEARCH,
    MotivGraphError,
)
from motivgraph.terminal import err_console

if TYPE_CHECKING:
    from motivgraph.settings import Settings


def is_tty() -> bool:
    return sys.stdout.isatty()


_announced: set[str] = set()


def data_dir_note(settings: Settings) -> str:
    default = Path(settings.data_dir).expanduser() == (Path.home() / ".motivgraph")
    why = "the default; set MOTIVGRAPH_DATA_DIR to use another" if default else "MOTIVGRAPH_DATA_DIR"
    return f"data dir: {settings.data_dir} ({why})"


def announce_data_dir(settings: Settings) -> None:
    """Say (on stderr, once per process) which data dir a command writes to."""
    key = str(settings.data_dir)
    if key not in _announced:
        _announced.add(key)
        err_console.print(data_dir_note(settings), highlight=False, markup=False)


def announce_new_data_dir(settings: Settings) -> Callable[[], None]:
    """A close-callback: when the command created the data dir, say which one (nothing is silent about where
    files go, least of all the default ~/.motivgraph)."""
    existed = Path(settings.data_dir).expanduser().exists()

    def after() -> None:
        if not existed and Path(settings.data_dir).expanduser().exists() and str(settings.data_dir) not in _announced:
            _announced.add(str(settings.data_dir))
            err_console.print(f"created {data_dir_note(settings)}", highlight=False, markup=False)

    return after


EMPTY_GRAPH_ADVICE = NOTHING_TO_SEARCH


def graph_is_empty(store: Any) -> bool:
    """No problem, challenge or solution node (papers whose triples were all rejected leave nothing to search)."""
    try:
        st = store.stats()
    except MotivGraphError:
        return False
    return not st.searchable_nodes
