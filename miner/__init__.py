"""SciMotivMiner: turn parsed papers into (problem, challenge, solution) triples, resolve node identity
across papers, and add hierarchical parent nodes.

Modules: `schemas` (pydantic models), `text` (input selection and trimming), `prompts`,
`validation` (the B.3 naming rules code can check), `extract` (LLM extractor), `heuristic` (offline
extractor), `resolve` (identity resolution), `parents` (parent node addition), `decisions` (SQLite
decision log and caches), `sink` (the ingest PaperSink that ties them together).
"""
