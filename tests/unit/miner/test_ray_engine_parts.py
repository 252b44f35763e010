"""The Ray engine's driver-side parts that need no cluster: the writer's plan order, the failure
envelope's classification, and the cluster address checks (miner/ray_engine.py, motivgraph/ray_cluster.py)."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from motivgraph.errors import (
    BackendUnavailable,
    BudgetExceeded,
    ConfigError,
    ExternalServiceError,
    LLMError,
    LLMTimeout,
    ParseError,
)
from motivgraph.ingest.models import Paper
from motivgraph.ingest.plan import WorkItem
from motivgraph.ingest.summary import DocOutcome, classify_failure
from motivgraph.miner.ray_engine import Failure, PlanOrder
from motivgraph.outbound import is_transient
from motivgraph.ray_cluster import check_reachable


def _items(n: int) -> list[WorkItem]:
    return [WorkItem(key=f"k{i}", kind="pdf", path=Path(f"/p/{i}.pdf"), size=1) for i in range(n)]


def _paper(i: int) -> Paper:
    return Paper(paper_id=f"id{i}", sha256=f"k{i}", source_path=f"/p/{i}.pdf")


def test_writer_turns_follow_the_plan_whatever_order_papers_finish_in() -> None:
    """Papers ready in reverse order are written 0, 1, 2, 3; a failed document (never written) does not
    hold the next one up once its outcome is reported."""
    order = PlanOrder(_items(5))
    written: list[int] = []

    async def doc(i: int, ready_after: float) -> None:
        await asyncio.sleep(ready_after)
        if i == 2:  # failed before the sink: only its outcome is reported
            order.finished(f"k{i}")
            return
        await order.turn(order.place(_paper(i)))
        written.append(i)
        order.finished(f"k{i}")

    async def main() -> None:
        await asyncio.gather(*(doc(i, 0.01 * (5 - i)) for i in range(5)))

    asyncio.run(main())
    assert written == [0, 1, 3, 4]


def test_a_paper_without_a_plan_key_is_written_when_ready() -> None:
    order = PlanOrder(_items(3))
    record = Paper(paper_id="r1", source_path="/p/records.jsonl")  # paper-JSON record: no content key
    assert order.place(record) is None
    asyncio.run(asyncio.wait_for(order.turn(None), 1))  # returns at once, nothing before it waited for


def test_a_document_never_waits_for_itself() -> None:
    order = PlanOrder(_items(2))
    asyncio.run(asyncio.wait_for(order.turn(order.place(_paper(0))), 1))
    order.finished("k0")
    asyncio.run(asyncio.wait_for(order.turn(order.place(_paper(1))), 1))


def test_outcomes_reach_the_turns_through_the_progress_wrapper() -> None:
    from motivgraph.miner.ray_engine import _OrderedProgress

    seen: list[str] = []

    class Shown:
        def start(self, total: int, parser: str) -> None:
            seen.append(f"start {total}")

        def advance(self, outcome: DocOutcome) -> None:
            seen.append(outcome.state)

    order = PlanOrder(_items(2))
    prog = _OrderedProgress(order, Shown())
    prog.start(2, "pdf")
    prog.advance(DocOutcome("/p/0.pdf", "k0", "failed"))
    asyncio.run(asyncio.wait_for(order.turn(1), 1))  # k0 finished: document 1 may write
    assert seen == ["start 2", "failed"]


@pytest.mark.parametrize(("exc", "kind", "driver_cls", "transient"), [
    (BudgetExceeded("LLM budget of $1 reached"), "budget", BudgetExceeded, True),
    (LLMTimeout("did not answer within 60s"), "transient", ExternalServiceError, True),
    (ExternalServiceError("GROBID at http://g:8070 is down"), "transient", ExternalServiceError, True),
    (LLMError("reply stays unusable after the re-ask"), "extraction", LLMError, False),
    (ParseError("not a readable PDF"), "permanent", ParseError, False),
    (KeyError("section"), "permanent", RuntimeError, False),
])
def test_failures_keep_their_taxonomy_across_the_process_boundary(
    exc: BaseException, kind: str, driver_cls: type, transient: bool
) -> None:
    """Classified on the worker (where the cause chain is whole), rebuilt on the driver as an error the
    pipeline treats the same way: transient ones pause and retry, permanent ones fail the document
    under the same `ingest report` reason."""
    if isinstance(exc, LLMTimeout):
        exc.__cause__ = TimeoutError("read timed out")  # the chain is what makes an LLM timeout transient
    f = Failure.of(exc)
    assert f.kind == kind
    rebuilt = f.exception()
    assert type(rebuilt) is driver_cls
    assert is_transient(rebuilt) is transient
    assert str(exc).strip("'") in str(rebuilt)
    if kind == "permanent" and driver_cls is not RuntimeError:
        assert classify_failure(rebuilt) == classify_failure(exc)
    if driver_cls is RuntimeError:  # a bug in a task is an "internal error" here as in the local engine
        assert classify_failure(rebuilt) == "internal error" and "KeyError" in str(rebuilt)


def test_address_checks() -> None:  # the engine is a typed option (tests/unit/cli/test_reindex_options.py)
    for bad in ("http://head:8265", "head", "ray://:10001", "head:notaport", "head:6379/path"):
        with pytest.raises(ConfigError, match="--ray-address"):
            check_reachable(bad)
    check_reachable("auto")  # resolved by Ray itself (the cluster `ray start` left on this machine)


def test_an_address_nobody_answers_is_named_at_once() -> None:
    with socket.socket() as s:  # a loopback port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(BackendUnavailable, match=f"no Ray cluster answers at 127.0.0.1:{port}"):
        check_reachable(f"127.0.0.1:{port}")
    with pytest.raises(BackendUnavailable, match="no Ray cluster answers"):
        check_reachable(f"ray://127.0.0.1:{port}")
