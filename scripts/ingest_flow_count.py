"""Count how control moves between the ingest and miner layers during one `motivgraph ingest` (#44).

Runs the real command in this process (offline extractor, a throw-away data dir) under `sys.setprofile` and
reports, over the distinct caller→callee function pairs that ran:
- crossings: calls from a miner module into an ingest module and back (ingest → miner), each direction (calls
  into `ingest/models.py`, the Paper type's own accessors, are data, not control, and are left out);
- pipeline entries: functions of `ingest/pipeline.py` called from another module (how often the pipeline is
  entered), named.
Distinct pairs, not call counts: a batch of N documents would otherwise count N times what is one edge of the
flow. Also, statically: which names the project's own modules (tests left out) import from `ingest/pipeline.py`.
Usage: `.venv/bin/python scripts/ingest_flow_count.py [PDF or .jsonl ...]` (default: one generated paper
JSON record). Point another checkout's venv at this file to count its flow the same way.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from pathlib import Path

RECORD = {
    "paper_id": "flow-0", "title": "Transfer Learning for Low-Resource Speech Recognition",
    "abstract": "We study speech recognition with little transcribed audio and propose sharing an acoustic encoder.",
    "introduction": ("Speech recognition maps raw audio to text. However, most settings offer only a few thousand "
                     "examples of transcribed audio, and accuracy drops sharply because the models overfit. "
                     "In this paper we propose a transfer scheme that shares an acoustic encoder."),
}


def _layer(module: str) -> str | None:
    if module == "motivgraph.ingest.models":
        return None  # the Paper data type's own methods (a section, a record): a shape, not a step of the flow
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] == "motivgraph" and parts[1] in ("ingest", "miner"):
        return parts[1]
    return None


def static_pipeline_imports() -> dict[str, list[str]]:
    """module path -> the names it imports from motivgraph.ingest.pipeline (every .py of the checkout but tests)."""
    import ast  # local: only this count parses source

    import motivgraph.ingest  # local: the checkout the running venv maps (this one, or another's)

    root = Path(motivgraph.ingest.__file__).resolve().parents[1]
    out: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in ("tests", "build", ".venv") or rel.parts[0].startswith("."):
            continue
        names = [a.name for node in ast.walk(ast.parse(path.read_bytes()))
                 if isinstance(node, ast.ImportFrom) and node.module == "motivgraph.ingest.pipeline"
                 for a in node.names]
        if names:
            out[str(rel)] = sorted(set(names))
    return out


def _cleanup(work: Path) -> None:
    """Stop the embedded graph server the command started for the throw-away data dir, and remove the dir."""
    import shutil  # local: only the clean-up needs it

    from motivgraph.graph.embedded import EmbeddedFalkorDB  # local: the checkout the running venv maps

    EmbeddedFalkorDB(work / "data").stop()
    shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="mg-flow-"))
    inputs = sys.argv[1:]
    if not inputs:
        rec = work / "papers.jsonl"
        rec.write_text(json.dumps(RECORD) + "\n")
        inputs = [str(rec)]
    os.environ.update(MOTIVGRAPH_DATA_DIR=str(work / "data"), MOTIVGRAPH_LLM_MODEL="", HF_HUB_OFFLINE="1",
                      MOTIVGRAPH_MINER_EXTRACTOR="heuristic")
    from motivgraph.cli import app  # local: the environment above must be set before settings load

    edges: set[tuple[str, str, str, str]] = set()

    def profile(frame, event, arg):  # type: ignore[no-untyped-def]
        if event != "call" or frame.f_back is None:
            return
        callee = frame.f_globals.get("__name__", "")
        caller = frame.f_back.f_globals.get("__name__", "")
        if callee != caller and (_layer(callee) or _layer(caller)):
            edges.add((caller, frame.f_back.f_code.co_name, callee, frame.f_code.co_name))

    from typer.testing import CliRunner  # local: as above

    threading.setprofile(profile)  # the store and parse steps run in worker threads
    sys.setprofile(profile)
    try:
        result = CliRunner().invoke(app, ["ingest", *inputs, "--concurrency", "1"])
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        _cleanup(work)
    if result.exit_code != 0:
        raise SystemExit(f"ingest failed ({result.exit_code}):\n{result.output}")
    to_ingest = sorted({(a, f, b, g) for a, f, b, g in edges if _layer(a) == "miner" and _layer(b) == "ingest"})
    to_miner = sorted({(a, f, b, g) for a, f, b, g in edges if _layer(a) == "ingest" and _layer(b) == "miner"})
    # entered from another MotivGraph module (not the event loop resuming a coroutine of its own)
    entries = sorted({g for a, _f, b, g in edges if b == "motivgraph.ingest.pipeline" and a != b
                      and a.startswith("motivgraph.") and not g.startswith("<")})
    static = static_pipeline_imports()
    print(json.dumps({
        "pipeline_imported_by_modules": len(static),
        "pipeline_names_imported": len({n for names in static.values() for n in names}),
        "pipeline_imports": static,
        "miner_to_ingest": len(to_ingest), "ingest_to_miner": len(to_miner),
        "pipeline_entry_points": len(entries), "pipeline_entered_as": entries,
        "miner_to_ingest_calls": [f"{a}.{f} -> {b}.{g}" for a, f, b, g in to_ingest],
        "ingest_to_miner_calls": [f"{a}.{f} -> {b}.{g}" for a, f, b, g in to_miner],
    }, indent=1))


if __name__ == "__main__":
    main()
