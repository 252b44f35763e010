"""The docs site builds with `mkdocs build --strict`, loads nothing from another host, and its generated
reference pages name every setting, every ideation method flag and every command the code has (walked here
from the code itself, not from the generator), so the reference cannot drift from the code."""

from __future__ import annotations

import html
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from pydantic import BaseModel

REPO = Path(__file__).resolve().parents[3]
HOOK = REPO / "scripts" / "docs_reference.py"


def _hook() -> Any:
    spec = importlib.util.spec_from_file_location("docs_reference", HOOK)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("mkdocs") is None:
        pytest.fail("mkdocs is not installed: ./scripts/setup.sh installs it (the `docs` extra)")
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


def _text(site: Path, page: str) -> str:
    """The page's text with tags dropped and entities decoded (what a reader sees)."""
    raw = (site / page).read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


# ---- no asset from another host

_REMOTE = r"""(?:https?:)?//"""
_ASSET_IN_HTML = [
    re.compile(rf"""<script\b[^>]*\bsrc\s*=\s*["']?{_REMOTE}""", re.I),
    re.compile(rf"""<link\b[^>]*\bhref\s*=\s*["']?{_REMOTE}""", re.I),
    re.compile(rf"""<(?:img|iframe|source|audio|video|embed)\b[^>]*\bsrc\s*=\s*["']?{_REMOTE}""", re.I),
]
_ASSET_IN_CSS = [
    re.compile(rf"""@import\s+(?:url\()?\s*["']?{_REMOTE}""", re.I),
    re.compile(rf"""url\(\s*["']?{_REMOTE}""", re.I),
]


def remote_assets(text: str, kind: str) -> list[str]:
    patterns = _ASSET_IN_HTML + _ASSET_IN_CSS if kind == "html" else _ASSET_IN_CSS
    return [m.group(0) for p in patterns for m in p.finditer(text)]


def test_the_asset_check_finds_remote_assets() -> None:
    page = (
        '<link rel="stylesheet" href="https://cdn.example/x.css"><script src="//cdn.example/x.js"></script>'
        '<style>@import url("https://fonts.example/css");</style><a href="https://www.mkdocs.org/">x</a>'
    )
    found = " ".join(remote_assets(page, "html"))
    assert "<script" in found and "<link" in found and "@import" in found
    assert "<a " not in found  # a link to a page is not an asset
    assert remote_assets("a{background:url(https://x.example/a.png)}", "css")
    assert not remote_assets(
        "a{background:url(\"data:image/svg+xml,%3csvg xmlns='http://www.w3.org/2000/svg'\")}", "css"
    )


def test_the_site_loads_nothing_from_another_host(site: Path) -> None:
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix in (".html", ".css"):
            found += [
                (str(path.relative_to(site)), a)
                for a in remote_assets(path.read_text(encoding="utf-8", errors="replace"), path.suffix[1:])
            ]
    assert not found, f"assets from another host: {found[:10]}"


# ---- the generated references cover the code


def _settings_env_names(settings: type[BaseModel] | None = None) -> list[str]:
    """Every environment variable of the settings tree (a section's fields as PREFIX_SECTION_FIELD)."""
    from motivgraph.settings import Settings

    cls = settings or Settings
    prefix = cls.model_config.get("env_prefix", "")
    names = []
    for name, field in cls.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            names += [f"{prefix}{name}_{sub}".upper() for sub in ann.model_fields]
        else:
            names.append(f"{prefix}{name}".upper())
    return names


def test_every_setting_is_in_the_configuration_reference(site: Path) -> None:
    text = _text(site, "reference/configuration.html")
    names = _settings_env_names()
    assert len(names) > 50
    missing = [n for n in names if n not in text]
    assert not missing, f"settings missing from the built configuration reference: {missing}"


def test_every_method_flag_is_in_the_methods_reference(site: Path) -> None:
    from motivgraph.agents.core.registry import all_methods

    text = _text(site, "reference/methods.html")
    methods = all_methods()
    assert len(methods) >= 4
    for m in methods:
        assert m.name in text, m.name
        missing = [f for f in m.config_model.model_fields if f"--{f.replace('_', '-')}" not in text]
        assert not missing, f"{m.name}: flags missing from the methods reference: {missing}"


def test_every_part_is_in_the_extension_points_reference(site: Path) -> None:
    """Every registered part of every kind (motivgraph/plugins.py) is documented, with its entry-point group."""
    from motivgraph import plugins
    from motivgraph.hookspecs import SPECS

    text = _text(site, "reference/extensions.html")
    for kind in SPECS:
        assert plugins.group(kind) in text, kind
        missing = [n for n in plugins.names(kind) if n not in text]
        assert not missing, f"{kind} missing from the extension points reference: {missing}"


def _command_paths() -> list[str]:
    from motivgraph.cli import app

    out: list[str] = []

    def walk(cmd: Any, path: list[str], parent: Any) -> None:
        out.append(" ".join(["motivgraph", *path]))
        if hasattr(cmd, "list_commands"):
            ctx = cmd.context_class(cmd, info_name=path[-1] if path else "motivgraph", parent=parent)
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None and not getattr(sub, "hidden", False):
                    walk(sub, [*path, name], ctx)

    walk(typer.main.get_command(app), [], None)
    return out


def test_every_command_is_in_the_cli_reference(site: Path) -> None:
    raw = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    headings = {
        html.unescape(re.sub(r"<[^>]+>", "", h)).replace("¶", "").strip()
        for h in re.findall(r"<h[2-4][^>]*>(.*?)</h[2-4]>", raw, re.S)
    }
    paths = _command_paths()
    assert {"motivgraph ingest run", "motivgraph graph push", "motivgraph eval"} <= set(paths)
    missing = [p for p in paths if p not in headings]
    assert not missing, f"commands missing from the built CLI reference: {missing}"
    text = _text(site, "reference/cli.html")
    assert text.count("Exit codes") >= len(paths)  # each section is the command's real help screen


def test_the_worked_examples_are_shown_from_their_files(site: Path) -> None:
    text = _text(site, "extending.html")
    for path in sorted((REPO / "docs" / "examples").glob("*.py")):
        first_def = re.search(r"^(class|def) \w+", path.read_text(encoding="utf-8"), re.M)
        assert first_def and first_def.group(0) in text, f"{path.name} is not shown on the Extending page"
    assert "<!-- include:" not in (site / "extending.html").read_text(encoding="utf-8")


# ---- the generator walks the code: a new section, field or marker needs no edit of it


def test_a_new_settings_section_and_field_are_generated(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import Field

    from motivgraph.settings import Settings

    class CacheSettings(BaseModel):
        ttl_s: float = Field(30.0, ge=0, description="How long an entry lives.")

    class Wider(Settings):
        cachex: CacheSettings = Field(default_factory=CacheSettings, description="A section added later.")

    hook = _hook()
    monkeypatch.setattr(hook, "settings_class", lambda: Wider)
    text = hook.settings_markdown()
    assert "MOTIVGRAPH_CACHEX_TTL_S" in text and "A section added later." in text
    assert "How long an entry lives. (≥ 0)" in text
    assert "MOTIVGRAPH_CACHEX_TTL_S" in _settings_env_names(Wider)


def test_table_cells_keep_code_and_escape_markup() -> None:
    hook = _hook()
    assert hook.cell("a | b <data_dir> `x | <y>`") == "a \\| b &lt;data_dir&gt; `x | <y>`"
    assert hook.type_name(int | None) == "int | None"


def test_an_unknown_marker_or_include_is_an_error(tmp_path: Path) -> None:
    hook = _hook()
    with pytest.raises(ValueError, match="unknown generated section"):
        hook.expand("<!-- generated: nonsense -->")
    with pytest.raises(ValueError, match="not a file under"):
        hook.include_files("<!-- include: ../README.md -->", REPO / "docs")
