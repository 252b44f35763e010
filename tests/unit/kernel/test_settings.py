"""Settings: env prefix and nesting, .env file, validation messages, masked secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from motivgraph.errors import ConfigError
from motivgraph.settings import Settings
from motivgraph.terminal import load_settings

SECRET = "hunter2-very-secret"


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import os

    for k in list(os.environ):
        if k.startswith("MOTIVGRAPH_"):
            monkeypatch.delenv(k)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_defaults() -> None:
    s = Settings()
    assert s.graph.backend == "falkordb" and s.graph.falkordb_url is None
    assert s.neo4j.uri is None and s.neo4j.password.get_secret_value() == ""
    assert s.db_dir == s.data_dir / "falkordb"
    assert s.embedding.model == "all-MiniLM-L6-v2"


def test_env_prefix_and_nesting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("MOTIVGRAPH_NEO4J_URI", "bolt://db:7687")
    monkeypatch.setenv("MOTIVGRAPH_NEO4J_PASSWORD", SECRET)
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_BACKEND", "neo4j")
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", "redis://localhost:6380")  # field name with underscores
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_BATCH_SIZE", "250")
    monkeypatch.setenv("MOTIVGRAPH_LLM_ROLES", '{"mentor": {"model": "openai:gpt-4o", "temperature": 0.5}}')
    s = Settings()
    assert s.data_dir == tmp_path / "d" and s.db_dir == tmp_path / "d" / "falkordb"
    assert s.neo4j.uri == "bolt://db:7687"
    assert s.neo4j.password.get_secret_value() == SECRET
    assert s.graph.backend == "neo4j"
    assert s.graph.falkordb_url == "redis://localhost:6380"
    assert s.graph.batch_size == 250
    assert s.llm.roles["mentor"].model == "openai:gpt-4o" and s.llm.roles["mentor"].temperature == 0.5


def test_dotenv_file_is_read_and_env_wins(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (clean_env / ".env").write_text(
        f"MOTIVGRAPH_NEO4J_PASSWORD={SECRET}\nMOTIVGRAPH_GRAPH_NAME=from_dotenv\nMOTIVGRAPH_LOG_LEVEL=debug\n"
    )
    s = Settings()
    assert s.neo4j.password.get_secret_value() == SECRET
    assert s.graph.name == "from_dotenv"
    assert s.log_level == "DEBUG"
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_NAME", "from_env")
    assert Settings().graph.name == "from_env"
    assert Settings(_env_file=None).neo4j.password.get_secret_value() == ""  # type: ignore[call-arg]


def test_validation_errors_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_BACKEND", "sqlite")
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_BATCH_SIZE", "0")
    monkeypatch.setenv("MOTIVGRAPH_LOG_LEVEL", "loud")
    with pytest.raises(ConfigError) as err:
        load_settings()
    msg = str(err.value)
    assert "MOTIVGRAPH_GRAPH_BACKEND" in msg
    assert "MOTIVGRAPH_GRAPH_BATCH_SIZE" in msg
    assert "MOTIVGRAPH_LOG_LEVEL" in msg


def test_secrets_are_masked_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOTIVGRAPH_NEO4J_PASSWORD", SECRET)
    monkeypatch.setenv("MOTIVGRAPH_LLM_API_KEY", SECRET)
    monkeypatch.setenv("MOTIVGRAPH_API_API_KEY", SECRET)
    s = Settings()
    assert s.llm.api_key is not None and s.llm.api_key.get_secret_value() == SECRET
    for text in (repr(s), str(s), json.dumps(s.masked()), s.model_dump_json()):
        assert SECRET not in text
    assert s.masked()["neo4j"]["password"] != SECRET


def test_config_show_masks_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from motivgraph.cli import app

    monkeypatch.setenv("MOTIVGRAPH_NEO4J_PASSWORD", SECRET)
    res = CliRunner().invoke(app, ["config", "show", "--json"])
    assert res.exit_code == 0, res.output
    assert SECRET not in res.output
    assert json.loads(res.output)["neo4j"]["password"].startswith("*")


def test_every_field_has_a_description() -> None:
    from pydantic import BaseModel

    def walk(model: type[BaseModel], path: str) -> list[str]:
        missing = []
        for name, field in model.model_fields.items():
            if not field.description:
                missing.append(f"{path}{name}")
            ann = field.annotation
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                missing += walk(ann, f"{path}{name}.")
        return missing

    assert walk(Settings, "") == []


@pytest.mark.parametrize(("value", "order"), [
    ("openalex,arxiv", ["openalex", "arxiv"]),
    (" arxiv , semantic_scholar ,arxiv", ["arxiv", "semantic_scholar"]),  # spaces; a repeat is tried once
    ('["openalex"]', ["openalex"]),
    ("", []),  # no outbound source: the local corpus alone
])
def test_literature_sources_order_from_env(monkeypatch: pytest.MonkeyPatch, value: str, order: list[str]) -> None:
    monkeypatch.setenv("MOTIVGRAPH_LITERATURE_SOURCES", value)
    s = Settings()
    assert s.literature.sources == order
    assert not (s.s2.enabled or s.openalex.enabled or s.arxiv.enabled)  # each still off until enabled


def test_literature_sources_default_and_unknown_name(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().literature.sources == ["semantic_scholar", "openalex", "arxiv"]
    monkeypatch.setenv("MOTIVGRAPH_LITERATURE_SOURCES", "s2,openalex")
    with pytest.raises(ConfigError, match="MOTIVGRAPH_LITERATURE_SOURCES"):
        load_settings()
