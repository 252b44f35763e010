"""`motivgraph embeddings ...`: export the embedding model to ONNX (a setup step) and show which backend runs."""

from __future__ import annotations

import json
import time

import typer

from motivgraph.terminal import cli_errors, console, load_settings

app = typer.Typer(help="The embedding model: export it to ONNX (scripts/setup.sh does) and check the backend.",
                  no_args_is_help=True)


@app.command("export")
@cli_errors
def export_cmd(
    force: bool = typer.Option(False, "--force", help="Export again even when a current export exists."),
    int8: bool = typer.Option(None, "--int8/--no-int8", show_default=False,
                              help="Also write the int8 file (default: only when its recipe passed the gate)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Export the configured embedding model to ONNX from its local weights with torch (nothing is
    downloaded), then check the ONNX vectors against torch's on the stored reference texts."""
    from motivgraph.embeddings import onnx_export  # local: light CLI path
    from motivgraph.embeddings.minilm import resolve_model_path  # local: light CLI path
    from motivgraph.embeddings.onnx_embedder import OnnxEmbedder  # local: light CLI path

    cfg = load_settings().embedding
    want_int8 = onnx_export.INT8_GATE_PASSED if int8 is None else int8
    model_path = resolve_model_path(cfg.model)
    dest = onnx_export.export_dir(cfg.model, model_path, cfg.onnx_dir)
    was_current = not force and onnx_export.current_export(dest, model_path) is not None
    t0 = time.perf_counter()
    meta = onnx_export.export(cfg.model, model_path, dest, int8=want_int8, force=force)
    seconds = time.perf_counter() - t0
    checks = {}
    for variant in ("fp32", "int8") if want_int8 else ("fp32",):
        emb = OnnxEmbedder(cfg.model, model_path, dest, meta, variant=variant, batch_size=cfg.batch_size)
        checks[variant] = round(emb.self_check(), 6)
    files = {v: str(dest / (onnx_export.FP32_FILE if v == "fp32" else onnx_export.INT8_FILE)) for v in checks}
    if as_json:
        typer.echo(json.dumps({"ok": True, "dir": str(dest), "files": files, "min_cosine_vs_torch": checks,
                               "exported": not was_current, "seconds": round(seconds, 2),
                               "torch": meta.get("torch")}, indent=2))
        return
    for variant, path in files.items():
        console.print(f"[green]ok[/green] {variant}: {path} (lowest cosine to torch on the reference texts "
                      f"{checks[variant]:.6f})", highlight=False)
    how = "already current, exported" if was_current else f"exported in {seconds:.1f}s"
    console.print(f"{how} from {meta.get('source')} with torch {meta.get('torch')} at {meta.get('exported_at')}",
                  highlight=False)


@app.command("info")
@cli_errors
def info_cmd(as_json: bool = typer.Option(False, "--json", help="Print the result as JSON.")) -> None:
    """Load the configured embedder (exporting or falling back as at first use) and say which backend runs."""
    from motivgraph.embeddings import get_embedder  # local: light CLI path

    cfg = load_settings().embedding
    emb = get_embedder(cfg)
    from motivgraph.embeddings.bulk import planned_precision  # local: light CLI path

    # the bulk path is decided at the first index build (it loads torch's model); this says what it will do
    bulk = "fp32" if emb.bulk is None else planned_precision(cfg.bulk_precision)
    row = {"configured": cfg.backend, "backend": emb.backend, "model": emb.model_name, "dim": emb.dim,
           "file": str(getattr(emb, "path", "")) or None, "bulk_precision": cfg.bulk_precision,
           "index_builds_in": bulk}
    if as_json:
        typer.echo(json.dumps(row, indent=2))
        return
    fell_back = " (fell back: see the warning above)" if row["backend"] != cfg.backend else ""
    console.print(f"embedding backend [bold]{row['backend']}[/bold]{fell_back}, model {row['model']} (dim {row['dim']})"
                  + (f", {row['file']}" if row["file"] else ""), highlight=False)
    console.print(f"index builds embed in {bulk} (embedding.bulk_precision={cfg.bulk_precision})", highlight=False)
