"""One name, one thing: no two modules of the repo declare a class (or a `Literal` alias) of the same name, so a
name read in a traceback, a type hint or a report says which thing it is. The detector is the one
scripts/house_report.py counts."""

from __future__ import annotations

from pathlib import Path

from tests.house_report_support import house_report

REPO = Path(__file__).resolve().parents[2]
# Both are structured-output schemas: the class name is the schema name sent to the model, so it is part of every
# LLM cache key on disk (motivgraph/llm/cache.py) and of the recorded replies; renaming either re-asks every call.
KEPT = {"Signature": ["agents/evaluation/judges.py", "agents/ideagent/signature.py"]}



def test_no_two_modules_declare_the_same_name() -> None:
    hr = house_report()
    found = hr.duplicated_declarations(hr.read_sources(REPO))
    assert found == KEPT, "rename the less central one by what it is:\n" + "\n".join(
        f"  {name}: {', '.join(paths)}" for name, paths in found.items() if name not in KEPT)
