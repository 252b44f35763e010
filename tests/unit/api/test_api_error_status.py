"""Each error class declares the HTTP answer it becomes (motivgraph/errors.py, `status` and `code`), and the API's
handler answers with them. The table is what the API answered before the statuses moved onto the classes (#44):
a subclass inherits its parent's answer, and `LLMUnreachable`, both an LLMError and a BackendUnavailable, is the
unreachable service."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from motivgraph import errors
from motivgraph.api import error_responses

ANSWERS: dict[tuple[int, str], set[str]] = {
    (404, "node_not_found"): {"NodeNotFound"},
    (404, "paper_not_found"): {"PaperNotFound"},
    (422, "invalid_cursor"): {"InvalidCursor"},
    (422, "invalid_request"): {"ToolArgumentError"},
    (500, "internal"): {"ArchiveInvariantError", "CheckpointVersionError", "ImportFormatError", "IngestError",
                        "MotivGraphError", "ParseError", "RunNotFound", "RunStateError", "TextHygieneError",
                        "TopicGraphError", "UnknownReference"},
    (503, "backend_unavailable"): {"BackendUnavailable", "LLMUnreachable"},
    (503, "config_error"): {"BackgroundError", "ConfigError", "CutoffError", "DataFormatError", "IdeasFileError",
                            "TargetLeak", "TopicsError", "UnknownMethod", "UnknownPart"},
    (503, "embedding_unavailable"): {"EmbeddingError", "OnnxMismatch"},
    (503, "external_service"): {"ExternalServiceError", "RateLimited"},
    (503, "graph_error"): {"GraphError"},
    (503, "index_unavailable"): {"IndexCorrupt", "IndexError_", "IndexMissing", "IndexStale"},
    (503, "llm_unavailable"): {"BudgetExceeded", "ContextOverflow", "ExtractionGateStop", "FlowFailed",
                               "IdeaParseError", "JudgeFailure", "LLMError", "LLMTimeout", "ScriptExhausted",
                               "StructuredOutputError"},
}


@pytest.mark.parametrize(("name", "answer"), [(n, a) for a, names in ANSWERS.items() for n in sorted(names)])
def test_each_error_class_declares_its_answer(name: str, answer: tuple[int, str]) -> None:
    cls = getattr(errors, name)
    assert (cls.status, cls.code) == answer


def test_the_handler_answers_with_the_class_status() -> None:
    app = FastAPI()
    error_responses.install(app, error_responses.Redactor([]))

    @app.get("/paper")
    def paper() -> None:
        raise errors.PaperNotFound("No paper has the id 'x'.")

    @app.get("/llm")
    def llm() -> None:
        raise errors.LLMUnreachable("The model at http://127.0.0.1:1 does not answer.")

    client = TestClient(app)
    r = client.get("/paper")
    assert r.status_code == 404 and r.json()["code"] == "paper_not_found"
    r = client.get("/llm")
    assert r.status_code == 503 and r.json()["code"] == "backend_unavailable"
