#!/usr/bin/env bash
# Install the CPU build of torch (used by scripts/setup.sh and the Dockerfile).
#
#   scripts/install_torch.sh [PYTHON]        PYTHON defaults to python3
#
# On Linux the default PyPI index serves the multi-GB CUDA build, so torch comes from the PyTorch CPU
# wheel index. Where that index cannot be reached (an offline mirror, a proxy that only serves PyPI),
# the default index is used instead, with a note: a cached or mirrored CPU wheel is then what makes it
# CPU-only. Elsewhere (macOS, Windows) the default index already serves the CPU build.
#
# Environment: MOTIVGRAPH_TORCH_SPEC (default torch==2.13.0), MOTIVGRAPH_TORCH_INDEX (default
# https://download.pytorch.org/whl/cpu), MOTIVGRAPH_TORCH_PROBE_TIMEOUT (seconds, default 10),
# PIP_CMD (default "PYTHON -m pip"; tests put a fake here).
set -euo pipefail

PY="${1:-python3}"
SPEC="${MOTIVGRAPH_TORCH_SPEC:-torch==2.13.0}"
INDEX="${MOTIVGRAPH_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}"
TIMEOUT="${MOTIVGRAPH_TORCH_PROBE_TIMEOUT:-10}"
read -r -a PIP <<< "${PIP_CMD:-$PY -m pip}"

# Already installed at the wanted version (a re-run of setup): nothing to do.
if "$PY" - "$SPEC" <<'EOF'
import sys
from importlib.metadata import PackageNotFoundError, version

name, _, wanted = sys.argv[1].partition("==")
try:
    have = version(name)
except PackageNotFoundError:
    sys.exit(1)
sys.exit(0 if wanted and have.split("+")[0] == wanted else 1)
EOF
then
  echo "$SPEC already installed"
  exit 0
fi

if [ "$(uname -s)" != Linux ]; then
  exec "${PIP[@]}" install --quiet "$SPEC"
fi

# Probe the CPU index first: pip on an unreachable index retries for minutes before it gives up.
if "$PY" - "$INDEX" "$TIMEOUT" <<'EOF'
import sys
import urllib.request

url = sys.argv[1].rstrip("/") + "/torch/"
try:
    with urllib.request.urlopen(url, timeout=float(sys.argv[2])) as r:
        sys.exit(0 if r.status == 200 else 1)
except Exception as e:  # DNS, refused, timeout, HTTP error: all mean "not usable from here"
    print(f"{url}: {e}", file=sys.stderr)
    sys.exit(1)
EOF
then
  if "${PIP[@]}" install --quiet --index-url "$INDEX" "$SPEC"; then
    echo "installed $SPEC (CPU build) from $INDEX"
    exit 0
  fi
  echo "note: installing $SPEC from $INDEX failed; falling back to the default index" >&2
else
  echo "note: the PyTorch CPU index $INDEX is unreachable; installing $SPEC from the default index" \
       "(on Linux that is the CUDA build unless a CPU wheel is cached or mirrored there)" >&2
fi
"${PIP[@]}" install --quiet "$SPEC"
echo "installed $SPEC from the default index"
