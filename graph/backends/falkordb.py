"""GraphStore on FalkorDB: the embedded server under the data directory, or an external one.

`graph.falkordb_url` unset: the embedded server (graph.embedded) for `data_dir` is started or
reused. Set (redis://host:port, rediss://..., unix:///path): that server is used as is.
Reads go through GRAPH.RO_QUERY. FalkorDB has no multi-statement transactions, so a batch is a
sequence of single (atomic) statements; every statement is idempotent, so a batch cut short by a
crash converges when it is written again.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import redis
from falkordb import FalkorDB

from motivgraph.errors import BackendUnavailable, ConfigError, GraphError
from motivgraph.graph import queries as Q
from motivgraph.graph.backends.cypher import CypherGraphStore, Row, Statement
from motivgraph.graph.embedded import EmbeddedFalkorDB

if TYPE_CHECKING:
    from motivgraph.settings import Settings

log = logging.getLogger(__name__)

URL_SETTING = "MOTIVGRAPH_GRAPH_FALKORDB_URL"

# Dialect: FalkorDB range indexes (an index on a list property indexes its elements, which makes
# `$norm IN n.norm_aliases` an index lookup) plus unique constraints built on the key index.
RANGE_INDEXES: dict[str, tuple[str, ...]] = {
    "Problem": ("key", "rnd", "norm_aliases", "level"),
    "Challenge": ("key", "rnd", "norm_aliases", "level"),
    "Solution": ("key", "rnd", "norm_aliases"),
    "Paper": ("paper_id",),
    "Meta": ("id",),
}
UNIQUE: dict[str, str] = {"Problem": "key", "Challenge": "key", "Solution": "key", "Paper": "paper_id"}


def mask_url(url: str) -> str:
    """The URL with any password replaced, for messages and logs."""
    return re.sub(r"(?<=://)([^/@]*):[^/@]*@", r"\1:***@", url)


def _scrub(value: Any) -> Any:
    """Parameters travel in a text header that the server reads as a C string: a NUL would cut the
    command short, so it is removed from every string value."""
    if isinstance(value, str):
        return value.replace("\x00", "") if "\x00" in value else value
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v) for v in value]
    return value


def _has_nul(params: dict[str, Any]) -> bool:
    # json.dumps walks the parameters in C; a NUL anywhere shows up as its escape.
    return "\\u0000" in json.dumps(params, default=str)


class FalkorDBStore(CypherGraphStore):
    backend = "falkordb"

    def __init__(self, db: Any, graph_name: str, *, where: str, hint: str, timeout_ms: int = 60_000,
                 batch_size: int = 500) -> None:
        super().__init__(batch_size=batch_size)
        self.db = db
        self.graph_name = graph_name
        self.graph = db.select_graph(graph_name)
        self.where = where
        self.hint = hint
        self.timeout_ms = timeout_ms

    # ---------------------------------------------------------------------- opening
    @classmethod
    def from_settings(cls, settings: Settings) -> FalkorDBStore:
        cfg = settings.graph
        if cfg.falkordb_url:
            url = cfg.falkordb_url.strip()
            where = f"FalkorDB at {mask_url(url)}"
            hint = f"check that the server is running or fix {URL_SETTING}"
            db = cls._connect_url(url, where, hint)
        else:
            server = EmbeddedFalkorDB(settings.data_dir)
            server.start()
            where = f"the embedded FalkorDB on {server.socket_path}"
            hint = (f"run `motivgraph db start` (data dir {settings.data_dir}, MOTIVGRAPH_DATA_DIR) "
                    f"or set {URL_SETTING}")
            db = cls._connect_url(server.url, where, hint)
        store = cls(db, cfg.name, where=where, hint=hint, timeout_ms=cfg.query_timeout_ms,
                    batch_size=cfg.batch_size)
        store.ping()
        return store

    @staticmethod
    def _connect_url(url: str, where: str, hint: str) -> Any:
        if not re.match(r"^(redis|rediss|unix|falkor|falkors)://", url):
            raise ConfigError(
                f"{URL_SETTING}={mask_url(url)!r} is not a FalkorDB URL; use redis://host:port or unix:///path/to.sock"
            )
        try:
            return FalkorDB.from_url(url, socket_connect_timeout=5)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as e:
            raise BackendUnavailable(f"Cannot reach {where}: {e}; {hint}") from e

    # ---------------------------------------------------------------------- primitives
    def _unavailable(self, e: Exception) -> BackendUnavailable:
        return BackendUnavailable(f"Cannot reach {self.where}: {e}; {self.hint}")

    @staticmethod
    def _rows(res: Any) -> list[Row]:
        names = [h[1] for h in res.header]
        return [dict(zip(names, row, strict=False)) for row in res.result_set]

    def _call(self, fn: Any, query: str, params: dict[str, Any] | None, **kw: Any) -> list[Row]:
        try:
            if params and _has_nul(params):
                params = _scrub(params)
            return self._rows(fn(query, params or None, **kw))
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as e:
            raise self._unavailable(e) from e
        except redis.exceptions.ResponseError as e:
            if "empty key" in str(e):
                return []  # the graph does not exist yet: it is empty
            raise GraphError(f"FalkorDB query failed: {e}") from e

    def _read(self, query: str, params: dict[str, Any] | None = None) -> list[Row]:
        return self._call(self.graph.ro_query, query, params, timeout=self.timeout_ms)

    def _write_tx(self, statements: Sequence[Statement]) -> list[list[Row]]:
        return [self._call(self.graph.query, q, p) for q, p in statements]

    # ---------------------------------------------------------------------- lifecycle
    def ping(self) -> None:
        try:
            self.db.connection.ping()
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as e:
            raise self._unavailable(e) from e

    def _existing_indexes(self) -> set[tuple[str, str]]:
        rows = self._read("CALL db.indexes() YIELD label, properties RETURN label, properties")
        return {(r["label"], prop) for r in rows for prop in r["properties"] or []}

    def ensure_schema(self) -> None:
        have = self._existing_indexes()
        for label, props in RANGE_INDEXES.items():
            for prop in props:
                if (label, prop) in have:
                    continue
                try:
                    # DDL: label and property are schema constants, never caller input.
                    self.graph.query(f"CREATE INDEX FOR (n:{label}) ON (n.{prop})")
                except redis.exceptions.ResponseError as e:
                    if "already indexed" not in str(e):
                        raise GraphError(f"Could not create index on {label}.{prop}: {e}") from e
                except redis.exceptions.ConnectionError as e:
                    raise self._unavailable(e) from e
        for label, prop in UNIQUE.items():
            try:
                self.graph.create_node_unique_constraint(label, prop)
            except redis.exceptions.ResponseError as e:
                if "already exists" not in str(e).lower():
                    raise GraphError(f"Could not create unique constraint on {label}.{prop}: {e}") from e
        self._write(Q.META_INIT, self._meta())

    def drop_graph(self) -> None:
        """Delete this graph and its indexes entirely (test teardown)."""

        try:
            self.graph.delete()
        except redis.exceptions.ResponseError as e:
            if "empty key" not in str(e).lower() and "invalid graph" not in str(e).lower():
                raise GraphError(f"Could not delete graph {self.graph_name!r}: {e}") from e

    def _drop_all(self) -> None:
        # Dropping the graph key is far faster than deleting a large graph node by node.
        self.drop_graph()
        self.graph = self.db.select_graph(self.graph_name)

    def close(self) -> None:
        try:
            self.db.connection.close()
        except Exception as e:  # closing is best effort
            log.debug("closing FalkorDB connection: %s", e)
