"""What `motivgraph ingest run` checks before it starts and what it prints with `--json`."""

from __future__ import annotations

import dataclasses
import glob
from pathlib import Path
from typing import Any

from motivgraph.errors import ConfigError

_GLOB_CHARS = "*?["


def check_inputs(paths: list[str]) -> None:
    """Refuse, before anything starts, paths that do not exist and globs that match nothing, and inputs
    holding no PDF at all (a typo must not look like a successful run over "0 files"). Paper JSON
    (.jsonl/.json records, topics files) counts as input like PDFs."""
    from motivgraph.ingest.plan import input_kinds  # local: off the CLI's start-up path (heavy)
    from motivgraph.ingest.walker import walk  # local: as above

    missing: list[str] = []
    for raw in paths:
        if any(c in raw for c in _GLOB_CHARS):
            if not glob.glob(raw, recursive=True):
                missing.append(f"{raw} (the pattern matches nothing)")
        elif not (Path(raw).expanduser().exists() or Path(raw).expanduser().is_symlink()):
            missing.append(f"{raw} (no such file or folder)")
    if missing:
        raise ConfigError("Nothing to ingest at: " + "; ".join(missing) + ". Pass PDF files, folders (searched "
                          "recursively) or a quoted glob, e.g. motivgraph ingest ~/papers/ or 'papers/*.pdf'.")
    res = walk(paths, suffixes=tuple(input_kinds()))
    if not res.pdfs and not res.unreadable:
        where = ", ".join(paths)
        extra = f" ({res.non_pdf_skipped} non-PDF files skipped)" if res.non_pdf_skipped else ""
        raise ConfigError(f"No PDF files found in {where}{extra}. Point ingest at PDFs (*.pdf), paper JSON "
                          "(*.jsonl, *.json) or folders that contain them.")


def run_json(run: Any) -> dict[str, Any]:
    """The whole outcome of one ingest command as plain JSON (stdout of `ingest run --json`)."""
    s = run.summary
    summary = {f.name: getattr(s, f.name) for f in dataclasses.fields(s) if f.name != "outcomes"}
    summary["skipped"] = [{"path": p, "why": why} for p, why in s.skipped]
    summary["outcomes"] = [{"path": o.path, "state": o.state, "reason": o.reason, "error": o.error,
                            "notes": list(o.notes)} for o in s.outcomes]
    out: dict[str, Any] = {
        "summary": summary,
        "extractor": run.extractor,
        "engine": run.engine,  # "engine: Ray ..." when the per-document work ran on Ray; null: in this process
        "estimate": dataclasses.asdict(run.estimate) if run.estimate is not None else None,
        "miner": {k.strip(): v for k, v in run.miner_rows},
        "derived": dataclasses.asdict(run.derived) if run.derived is not None else None,
        "stopped": str(run.stopped) if run.stopped is not None else None,
        # the extraction gate (#39): its decision and, when the extraction is not supported, why (exit 6)
        "gate": dataclasses.asdict(run.gate) if getattr(run, "gate", None) is not None else None,
        "extraction_failed": getattr(run, "extraction_failed", None),
    }
    return out
