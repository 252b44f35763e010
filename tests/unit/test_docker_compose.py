"""docker-compose.yml and Dockerfile: structure checked with PyYAML always; `docker compose config`
(or the v1 `docker-compose config`) also run when one is installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


def _ports(svc: dict) -> set[str]:
    return {str(p).split(":")[-1] for p in svc.get("ports", [])}


def test_neo4j_service(compose):
    neo = compose["services"]["neo4j"]
    assert neo["image"].startswith("neo4j:5")
    assert {"7474", "7687"} <= _ports(neo)
    assert "MOTIVGRAPH_NEO4J_PASSWORD" in neo["environment"]["NEO4J_AUTH"]
    assert "cypher-shell" in " ".join(neo["healthcheck"]["test"])
    for vol in neo["volumes"]:
        name = vol.split(":")[0]
        assert name in compose["volumes"], f"{name} must be a named volume"


def test_grobid_service(compose):
    gro = compose["services"]["grobid"]
    image = gro["image"]
    assert image.startswith(("lfoppiano/grobid:0.8", "grobid/grobid:0.8")), image
    assert "8070" in _ports(gro)
    assert "/api/isalive" in " ".join(gro["healthcheck"]["test"])


def test_api_service_runs_serve_against_neo4j(compose):
    api = compose["services"]["api"]
    assert api["build"]["dockerfile"] == "Dockerfile" and (REPO / api["build"]["dockerfile"]).is_file()
    assert api["command"][:2] == ["motivgraph", "serve"] and "0.0.0.0" in api["command"]
    env = api["environment"]
    assert env["MOTIVGRAPH_GRAPH_BACKEND"] == "neo4j"
    assert env["MOTIVGRAPH_NEO4J_URI"] == "bolt://neo4j:7687"
    assert "MOTIVGRAPH_NEO4J_PASSWORD" in env["MOTIVGRAPH_NEO4J_PASSWORD"]  # from env, never a literal
    assert env["MOTIVGRAPH_INGEST_GROBID_URL"] == "http://grobid:8070"
    assert api["depends_on"]["neo4j"]["condition"] == "service_healthy"
    for vol in api["volumes"]:
        assert vol.split(":")[0] in compose["volumes"]


def test_dockerfile_pins_cpu_torch_then_the_lock():
    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    assert next(line for line in text.splitlines() if line.startswith("FROM")) == "FROM python:3.11-slim"
    torch_at = text.index("RUN ./scripts/install_torch.sh")  # the CPU build (PyTorch CPU index, fallback default)
    lock_at = text.index("-c requirements.lock")
    assert torch_at < lock_at
    for path in ("requirements.lock", "pyproject.toml"):
        assert (REPO / path).is_file()
    ignored = (REPO / ".dockerignore").read_text(encoding="utf-8").split()
    assert ".venv" in ignored and ".git" in ignored
    assert "!scripts/install_torch.sh" in ignored  # scripts/ is ignored, but the image needs this one


def test_dockerfile_copies_every_folder_the_package_installs():
    """The image's `pip install .` maps the layer folders (setup.py, from pyproject's one list): each must be copied,
    setup.py with them, or the installed `motivgraph` lacks a layer (the CLI moved to cli/ in #44)."""
    import tomllib

    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    copied = {part.rstrip("/") for line in text.splitlines() if line.startswith("COPY ") for part in line.split()[1:-1]}
    layers = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["motivgraph"]["layer-folders"]
    assert {"motivgraph", "setup.py", "pyproject.toml", *layers} <= copied


def _compose_cli() -> list[str] | None:
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0:
        return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def test_docker_compose_config_validates():
    cli = _compose_cli()
    if cli is None:
        pytest.skip("neither `docker compose` nor `docker-compose` is installed; the YAML checks above still ran")
    res = subprocess.run(
        [*cli, "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert res.returncode == 0, res.stderr


def test_api_service_allows_the_host_names_its_clients_use(compose):
    import json
    import re

    api = compose["services"]["api"]
    raw = api["environment"]["MOTIVGRAPH_API_ALLOWED_HOSTS"]
    default = re.fullmatch(r"\$\{MOTIVGRAPH_API_ALLOWED_HOSTS:-(.*)\}", raw)
    assert default, raw  # overridable from the environment
    hosts = json.loads(default.group(1))
    assert {"localhost", "127.0.0.1", "api"} <= set(hosts) and "*" not in hosts
    # the healthcheck's Host must be one of them
    assert "127.0.0.1" in " ".join(api["healthcheck"]["test"])


def _script(svc: dict) -> str:
    cmd = svc["command"]
    assert cmd[:2] == ["sh", "-c"], cmd
    return cmd[2].replace("$$", "$")  # compose's escape for a literal $


def test_ingest_service_ingests_the_mounted_folder_into_neo4j_then_reindexes(compose):
    ing, api = compose["services"]["ingest"], compose["services"]["api"]
    assert ing["profiles"] == ["ingest"] and ing["restart"] == "no"  # a one-shot job, not a daemon
    assert ing["image"] == api["image"] and ing["build"] == api["build"]
    papers = [v for v in ing["volumes"] if v.endswith(":/papers:ro")]
    assert papers and "./papers" in papers[0]  # read-only; host folder overridable (MOTIVGRAPH_PAPERS_DIR)
    data = [v for v in ing["volumes"] if v.split(":")[0] in compose["volumes"]]
    assert data == [v for v in api["volumes"] if v.endswith(":/data")]  # ledger + FAISS shared with the API
    env = ing["environment"]
    for key in ("MOTIVGRAPH_DATA_DIR", "MOTIVGRAPH_GRAPH_BACKEND", "MOTIVGRAPH_NEO4J_URI", "MOTIVGRAPH_NEO4J_USER",
                "MOTIVGRAPH_NEO4J_PASSWORD", "MOTIVGRAPH_INGEST_GROBID_URL", "MOTIVGRAPH_LLM_MODEL"):
        assert env[key] == api["environment"][key], key  # the same graph and GROBID as the API
    assert ing["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert ing["depends_on"]["grobid"]["condition"] == "service_healthy"

    lines = [ln.strip() for ln in _script(ing).strip().splitlines()]
    steps = [ln.split(";")[0].split("||")[0].strip() for ln in lines if "motivgraph" in ln]
    assert steps == ["motivgraph ingest /papers", "motivgraph parents build", "motivgraph reindex",
                     "MOTIVGRAPH_INDEX_BACKEND=neo4j motivgraph reindex --no-papers"]
    assert lines[-1] == "exit $status"  # the ingest's exit code, after the indexes are rebuilt anyway
    sh = shutil.which("sh")
    if sh:
        assert subprocess.run([sh, "-n", "-c", _script(ing)], capture_output=True).returncode == 0


def test_ingest_steps_are_real_cli_commands(compose):
    """Each step's command line parses (its --help exits 0), so a renamed command or flag fails here."""
    from typer.testing import CliRunner

    from motivgraph.cli import app

    runner = CliRunner()
    for line in _script(compose["services"]["ingest"]).splitlines():
        if "motivgraph" not in line:
            continue
        argv = line.split(";")[0].split("||")[0].split("motivgraph", 1)[1].split()
        res = runner.invoke(app, [*argv, "--help"])
        assert res.exit_code == 0, (argv, res.output)


def test_api_search_backend_is_selectable(compose):
    env = compose["services"]["api"]["environment"]
    assert env["MOTIVGRAPH_INDEX_BACKEND"] == "${MOTIVGRAPH_INDEX_BACKEND:-faiss}"
