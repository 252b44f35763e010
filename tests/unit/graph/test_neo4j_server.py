"""The local Neo4j manager's checks that need no server: ports, Java, settings -> server (graph/neo4j_server.py).
The server itself is exercised by every Neo4j test (tests/neo4j_support.py) and tests/e2e/test_neo4j_server.py."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from motivgraph.errors import BackendUnavailable, ConfigError
from motivgraph.graph.neo4j_server import Neo4jServer, bolt_handshake, bolt_port, from_settings
from motivgraph.settings import Neo4jSettings, Settings


def test_bolt_port_comes_from_the_uri() -> None:
    assert bolt_port(None) == 7687
    assert bolt_port("bolt://127.0.0.1:17687") == 17687
    assert bolt_port("neo4j://localhost") == 7687
    with pytest.raises(ConfigError, match="loopback"):
        bolt_port("bolt://db.example.org:7687")


def test_a_short_password_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="MOTIVGRAPH_NEO4J_PASSWORD"):
        Neo4jServer(tmp_path, password="short").start()
    assert not (tmp_path / "data").exists()


def test_same_bolt_and_http_port_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="MOTIVGRAPH_NEO4J_HTTP_PORT"):
        Neo4jServer(tmp_path, password="long-enough", bolt_port=7000, http_port=7000)


def test_a_taken_port_is_named_not_mistaken_for_our_server(tmp_path: Path) -> None:
    with socket.socket() as other:  # someone else listens where our Bolt port would be
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        http = port + 1 if port < 65535 else 1
        server = Neo4jServer(tmp_path, password="long-enough", bolt_port=port, http_port=http)
        with pytest.raises(BackendUnavailable, match=f"port {port} .* already taken"):
            server.start(timeout=5)
    assert not (tmp_path / "data").exists()  # nothing was set up for a server that could not be ours


def test_an_open_port_is_not_a_bolt_server() -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        assert not bolt_handshake(other.getsockname()[1], timeout=0.5)


def test_settings_choose_home_ports_and_memory(tmp_path: Path) -> None:
    s = Settings(data_dir=tmp_path, neo4j=Neo4jSettings(uri="bolt://127.0.0.1:17687", password="long-enough",
                                                        http_port=17474, server_heap="2g"), _env_file=None)
    server = from_settings(s)
    assert (server.home, server.bolt_port, server.http_port, server.heap) == (
        (tmp_path / "neo4j-server").resolve(), 17687, 17474, "2g")
    assert "server.memory.heap.max_size=2g" in server._conf()
    assert "server.default_listen_address=127.0.0.1" in server._conf()  # loopback only
