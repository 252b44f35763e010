"""The evaluation's metrics: small pure functions (no LLM, no I/O), each pinned by unit tests.

The harness gathers judgments and embeddings; these modules only compute numbers from them.
"""
