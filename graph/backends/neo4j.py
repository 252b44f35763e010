"""GraphStore on Neo4j 5 over Bolt with the official `neo4j` driver (imported here, lazily).

Writes of one batch run as one managed write transaction (`execute_write`, retried by the driver
on transient errors); reads run in managed read transactions. The password comes from
settings (env) as a SecretStr and appears in no message or log line.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from motivgraph.errors import BackendUnavailable, ConfigError, GraphError
from motivgraph.graph import queries as Q
from motivgraph.graph.backends.cypher import CypherGraphStore, Row, Statement

if TYPE_CHECKING:
    from motivgraph.settings import Settings

log = logging.getLogger(__name__)

# Dialect: Neo4j 5 DDL. Uniqueness constraints carry their own index; rnd gets a range index for
# seeded sampling. Neo4j range indexes do not index list elements, so the aliases (norm_aliases, a list)
# get a full-text index with the keyword analyser: one term per element, looked up exactly by find_nodes
# (without it every name lookup scanned all three labels). Not eventually consistent: a node is found by
# an alias as soon as the transaction that wrote it commits.
ALIAS_INDEX = "motivgraph_norm_aliases"
SCHEMA: tuple[str, ...] = (
    "CREATE CONSTRAINT problem_key IF NOT EXISTS FOR (n:Problem) REQUIRE n.key IS UNIQUE",
    "CREATE CONSTRAINT challenge_key IF NOT EXISTS FOR (n:Challenge) REQUIRE n.key IS UNIQUE",
    "CREATE CONSTRAINT solution_key IF NOT EXISTS FOR (n:Solution) REQUIRE n.key IS UNIQUE",
    "CREATE CONSTRAINT paper_id IF NOT EXISTS FOR (n:Paper) REQUIRE n.paper_id IS UNIQUE",
    "CREATE CONSTRAINT meta_id IF NOT EXISTS FOR (n:Meta) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX problem_rnd IF NOT EXISTS FOR (n:Problem) ON (n.rnd)",
    "CREATE INDEX challenge_rnd IF NOT EXISTS FOR (n:Challenge) ON (n.rnd)",
    "CREATE INDEX solution_rnd IF NOT EXISTS FOR (n:Solution) ON (n.rnd)",
    "CREATE INDEX problem_level IF NOT EXISTS FOR (n:Problem) ON (n.level)",
    "CREATE INDEX challenge_level IF NOT EXISTS FOR (n:Challenge) ON (n.level)",
    f"CREATE FULLTEXT INDEX {ALIAS_INDEX} IF NOT EXISTS FOR (n:Problem|Challenge|Solution) ON EACH [n.norm_aliases] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword', `fulltext.eventually_consistent`: false}}",
)
# A full-text index made on an existing graph is populated in the background; find_nodes needs it online.
AWAIT_ALIAS_INDEX = "CALL db.awaitIndex($name, $timeout_s)"

# Deletes only this schema's labels, in bounded chunks so a large graph never needs one huge transaction.
CLEAR_CHUNK = """
MATCH (n) WHERE n:Problem OR n:Challenge OR n:Solution OR n:Paper OR n:Meta
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
"""

URI_SETTING = "MOTIVGRAPH_NEO4J_URI"
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
AUTH_SETTINGS = "MOTIVGRAPH_NEO4J_USER / MOTIVGRAPH_NEO4J_PASSWORD"


class Neo4jStore(CypherGraphStore):
    backend = "neo4j"
    alias_index = ALIAS_INDEX

    def __init__(self, driver: Any, *, uri: str, user: str, database: str, timeout_ms: int = 60_000,
                 batch_size: int = 500) -> None:
        super().__init__(batch_size=batch_size)
        self.driver = driver
        self.uri = uri
        self.user = user
        self.database = database
        self.timeout_s = timeout_ms / 1000.0
        self._unreachable = False  # the last call found the server unreachable (see _guard)

    @classmethod
    def from_settings(cls, settings: Settings, driver: Any = None) -> Neo4jStore:
        cfg = settings.neo4j
        if not cfg.uri:
            raise ConfigError(f"graph.backend is 'neo4j' but {URI_SETTING} is not set (e.g. bolt://localhost:7687)")
        if cfg.uri.split("://", 1)[0] not in BOLT_SCHEMES or "://" not in cfg.uri:
            raise ConfigError(
                f"{URI_SETTING}={cfg.uri!r} is not a Bolt URI; use bolt://host:7687 or neo4j://host:7687 "
                "(+s / +ssc for TLS)"
            )
        if driver is None:
            try:
                import neo4j  # local: optional extra
            except ImportError as e:
                raise ConfigError("The neo4j backend needs the driver: pip install 'motivgraph[neo4j]'") from e
            try:
                driver = neo4j.GraphDatabase.driver(
                    cfg.uri, auth=(cfg.user, cfg.password.get_secret_value()),
                    connection_timeout=10.0, max_transaction_retry_time=15.0,
                    # A fresh or partly built graph lacks some labels, types and properties the queries name
                    # (MATCH on them is empty by design): the server's "does not exist" notices are noise the
                    # driver would print as warnings on every command. Deprecations and the rest stay on.
                    notifications_disabled_classifications=[neo4j.NotificationDisabledClassification.UNRECOGNIZED],
                )
            except (ValueError, neo4j.exceptions.ConfigurationError) as e:
                raise ConfigError(f"{URI_SETTING}={cfg.uri!r} is not a usable Bolt URI: {e}") from e
        store = cls(driver, uri=cfg.uri, user=cfg.user, database=cfg.database,
                    timeout_ms=settings.graph.query_timeout_ms, batch_size=settings.graph.batch_size)
        try:
            store.ping()
        except BaseException:
            store.close()
            raise
        return store

    # ---------------------------------------------------------------------- errors
    def _translate(self, e: Exception) -> Exception:
        from neo4j import exceptions as nx  # local: optional extra

        if isinstance(e, nx.AuthError):
            return BackendUnavailable(f"Neo4j at {self.uri} rejected the credentials of user {self.user!r}; "
                                      f"fix {AUTH_SETTINGS}")
        if isinstance(e, nx.ServiceUnavailable | nx.SessionExpired | OSError):
            return BackendUnavailable(f"Cannot reach Neo4j at {self.uri}: {e}; check that it is running "
                                      f"(motivgraph neo4j start, or docker compose up -d neo4j) or fix {URI_SETTING}")
        if isinstance(e, nx.Neo4jError | nx.DriverError):
            return GraphError(f"Neo4j query failed: {e}")
        return e

    def _guard(self, fn: Any, probe: bool = True) -> Any:
        if probe and self._unreachable:
            # The last call found the server unreachable: one connection attempt first, which fails at once while
            # it is still down, so a request's further queries do not each wait out the driver's retry window
            # (max_transaction_retry_time) again -- an API route of two queries took 31 s to answer 503.
            self._guard(self.driver.verify_connectivity, probe=False)
        try:
            result = fn()
        except Exception as e:
            mapped = self._translate(e)
            if isinstance(mapped, BackendUnavailable):
                self._unreachable = True
            if mapped is e:
                raise
            raise mapped from e
        self._unreachable = False
        return result

    # ---------------------------------------------------------------------- primitives
    def _timed(self, fn: Any) -> Any:
        # Managed transactions take their timeout from the unit of work, not from a Query object.
        from neo4j import unit_of_work  # local: optional extra

        return unit_of_work(timeout=self.timeout_s)(fn)

    @staticmethod
    def _records(result: Any) -> list[Row]:
        return [record.data() for record in result]

    def _read(self, query: str, params: dict[str, Any] | None = None) -> list[Row]:
        def work(tx: Any) -> list[Row]:
            return self._records(tx.run(query, params or {}))

        def run() -> list[Row]:
            with self.driver.session(database=self.database) as session:
                return session.execute_read(self._timed(work))

        return self._guard(run)

    def _write_tx(self, statements: Sequence[Statement]) -> list[list[Row]]:
        def work(tx: Any) -> list[list[Row]]:
            return [self._records(tx.run(q, p)) for q, p in statements]

        def run() -> list[list[Row]]:
            with self.driver.session(database=self.database) as session:
                return session.execute_write(self._timed(work))

        return self._guard(run)

    # ---------------------------------------------------------------------- lifecycle
    def ping(self) -> None:
        self._guard(self.driver.verify_connectivity, probe=False)

    def ensure_schema(self) -> None:
        def run() -> None:
            with self.driver.session(database=self.database) as session:
                for ddl in SCHEMA:  # schema statements need auto-commit transactions
                    session.run(ddl).consume()

        self._guard(run)
        self._read(AWAIT_ALIAS_INDEX, {"name": ALIAS_INDEX, "timeout_s": 600})
        self._write(Q.META_INIT, self._meta())

    def _drop_all(self) -> None:
        while True:
            rows = self._write(CLEAR_CHUNK, {"limit": 10_000})
            if int(self._first(rows, "deleted")) == 0:
                break

    def close(self) -> None:
        try:
            self.driver.close()
        except Exception as e:  # closing is best effort
            log.debug("closing Neo4j driver: %s", e)
