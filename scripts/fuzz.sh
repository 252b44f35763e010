#!/usr/bin/env bash
# The fuzz lane (issue 41): schemathesis with all its checks over the live app's OpenAPI spec, without a key and with
# one (right, wrong and no key), pinned version / seed / example counts. Any failure that is not listed with its
# reason in tests/integration/api/fuzz_allowlist.py fails the lane. Prints the cases sent and the failures found.
#   ./scripts/fuzz.sh            # from the repository root; uses .venv
set -euo pipefail
cd "$(dirname "$0")/.."
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
rc=0
MOTIVGRAPH_FUZZ_REPORT="$report" .venv/bin/python -m pytest -q -p no:randomly \
  tests/integration/api/test_api_conformance.py "$@" || rc=$?
.venv/bin/python - "$report" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
if not text:
    sys.exit("fuzz lane: no report (the run stopped before its end)")
r = json.loads(text)
print(f"fuzz lane: schemathesis {r['schemathesis']}, seed {r['seed']}: {r['cases']} cases, "
      f"{r['failures']} failures outside the allow-list, {r['allowed']} allowed answers "
      f"(tests/integration/api/fuzz_allowlist.py)")
PY
exit $rc
