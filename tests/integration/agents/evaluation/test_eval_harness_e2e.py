"""End-to-end evaluation with scripted methods and a scripted judge of known preference."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from eval_support import make_writer, world_model

from motivgraph.agents.core import PlatformLLMClient, unregister
from motivgraph.agents.core.rundir import RunDir
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.harness import Evaluation, create_eval, list_evals
from motivgraph.agents.evaluation.judges import Judge
from motivgraph.agents.evaluation.report_check import check_report
from motivgraph.agents.evaluation.topics import load_topics_file
from motivgraph.errors import TargetLeak

SHARED_TOPICS = Path(__file__).resolve().parents[4].parent / "shared" / "eval" / "topics.jsonl"


@pytest.fixture
def writers():
    names = {"q_low": 1, "q_mid": 2, "q_high": 3}
    for n, q in names.items():
        make_writer(n, q)
    yield list(names)
    for n in names:
        unregister(n)


def small_topics(tmp_path: Path, n: int = 2) -> Path:
    rows = []
    for t in range(n):
        rows.append({"topic_id": f"T{t}", "topic_name": f"Topic {t} about sparse rewards",
                     "background_papers": [{"paper_id": f"b{t}{k}", "title": f"Background {k} of topic {t}",
                                            "abstract": f"Reward shaping study {k}."} for k in range(3)],
                     "target_papers": [{"paper_id": f"g{t}{k}", "title": f"Target {k} of topic {t}",
                                        "abstract": f"Later work {k}."} for k in range(2)]})
    f = tmp_path / "topics.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return f


async def _run(settings, embedder, topics_file: Path, methods: list[str], *, n: int = 2, flip: bool = False,
               **cfg):
    topics = load_topics_file(topics_file)
    config = EvalConfig(methods=methods, n_ideas=n, graph="file", n_boot=50, **cfg)
    run = create_eval(settings, config, topics, source=str(topics_file))
    gen = world_model("scripted-gen")
    judge = PlatformLLMClient(settings, model=world_model("scripted-judge-flip" if flip else "scripted-judge",
                                                          flip=flip))
    ev = Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings, model=gen),
                    judges=[Judge("scripted-judge", judge)], embed=embedder.embed)
    res = await ev.execute()
    return run, res


def _est(res, metric: str) -> dict[str, float]:
    return {m: res.estimates[m][metric].value for m in res.methods if metric in res.estimates[m]}


async def test_known_preference_orders_elo_win_rates_and_yield_and_flip_reverses_elo(
        settings, embedder, tmp_path: Path, writers) -> None:
    run, res = await _run(settings, embedder, small_topics(tmp_path), writers)
    elo = _est(res, "elo_overall")
    assert elo["q_high"] > elo["q_mid"] > elo["q_low"]
    # SoIQ's per-method rating (methods as players) beside ours, each with its interval
    me = {m: res.estimates[m]["elo_method_overall"] for m in res.methods}
    assert me["q_high"].value > me["q_mid"].value > me["q_low"].value
    assert all(e.lo <= e.value <= e.hi and e.n > 0 for e in me.values())
    for d in ("novelty", "motivation", "experiment"):
        e = _est(res, f"elo_{d}")
        assert e["q_high"] > e["q_mid"] > e["q_low"]
    wr = _est(res, "wr_significance")
    assert wr == {"q_high": 1.0, "q_mid": 0.5, "q_low": 0.0}  # reference is QUALITY 2: win, tie, loss
    assert _est(res, "moscore_pd")["q_high"] == pytest.approx(1.0)
    y = _est(res, "yield")
    # IDEAgent's main-table gates (NB >= 7, S >= 7, C >= 6, D >= 7): the mid writer's ideas score 6/9 and fail
    assert y == {"q_high": 2.0, "q_mid": 0.0, "q_low": 0.0}
    # a judge that prefers the better idea whatever its slot: every pair agrees across the two orders
    assert res.order and all(r["consistency"] == 1.0 and not r["order_biased"] for r in res.order)
    assert {r["kind"] for r in res.order} == {"pairwise", "reference", "diversity"}
    cu = _est(res, "creative_utility")
    assert cu["q_high"] == pytest.approx(1.0) and cu["q_low"] == pytest.approx(0.0)
    assert check_report(run.path) == []
    assert run.status()["status"] == "completed"
    assert any(e["id"] == run.id for e in list_evals(settings.runs_dir))

    settings2 = settings.model_copy(update={"data_dir": tmp_path / "data2"})
    _, flipped = await _run(settings2, embedder, small_topics(tmp_path), writers, flip=True)
    fe = _est(flipped, "elo_overall")
    assert fe["q_low"] > fe["q_mid"] > fe["q_high"]


async def test_every_pairwise_judgment_is_asked_in_both_orders(settings, embedder, tmp_path: Path, writers) -> None:
    run, _ = await _run(settings, embedder, small_topics(tmp_path, 1), writers[:2], n=2)
    lines = [json.loads(x) for x in (run.path / "judgments.jsonl").read_text().splitlines()]
    pw = [(x["dimension"], x["round"], x["first"], x["second"]) for x in lines if x["kind"] == "pairwise"]
    assert pw and all((d, r, b, a) in pw for d, r, a, b in pw)
    ref = [(x["idea"], x["reference"], x["idea_first"]) for x in lines if x["kind"] == "reference"]
    assert ref and all((i, r, not f) in ref for i, r, f in ref)
    div = [(x["a"], x["b"]) for x in lines if x["kind"] == "diversity"]
    assert div and all((b, a) in div for a, b in div)


async def test_methods_that_reject_are_asked_again_and_shortfalls_are_reported(settings, embedder, tmp_path: Path,
                                                                               writers) -> None:
    run, res = await _run(settings, embedder, small_topics(tmp_path, 1), ["q_mid"], n=2,
                          method_configs={"q_mid": {"reject_first": True}}, max_runs=2)
    # run 1 asked for 2 -> 1 accepted; run 2 asked for 1 -> its only idea is rejected: shortfall of 1
    assert res.estimates["q_mid"]["n_ideas"].value == 1
    assert res.shortfalls and res.shortfalls[0]["delivered"] == 1
    st = json.loads((run.path / "state.json").read_text())
    assert len(st["children"]["q_mid|T0"]) == 2


async def test_target_paper_in_background_is_refused_unless_allowed(settings, embedder, tmp_path: Path,
                                                                    writers) -> None:
    f = small_topics(tmp_path, 1)
    row = json.loads(f.read_text())
    row["background_papers"].append(dict(row["target_papers"][0]))
    f.write_text(json.dumps(row) + "\n")
    with pytest.raises(TargetLeak, match="Target 0 of topic 0"):
        await _run(settings, embedder, f, writers[:1], n=1)
    settings2 = settings.model_copy(update={"data_dir": tmp_path / "d2"})
    _, res = await _run(settings2, embedder, f, writers[:1], n=1, allow_target_leak=True)
    assert any("WARNING target papers visible" in n for n in res.notes)


@pytest.mark.skipif(not SHARED_TOPICS.exists(), reason=f"LOUD SKIP: shared eval topics missing at {SHARED_TOPICS}")
async def test_full_report_on_the_shared_topics_with_ideagent_mindflow_setlevel_stateless(settings, embedder) -> None:
    """The 8 shared topics, four registered methods (launched through the registry) x 2 ideas, the full
    report; report_check parses report.html: every section, every PNG decodes and is not blank, every HTML
    table equals its CSV. Background as files (per-topic graphs: test_eval_topic_graphs.py), to keep CI short."""
    from eval_support import all_methods_model

    methods = ["ideagent", "mindflow", "setlevel", "stateless"]
    topics = load_topics_file(SHARED_TOPICS)
    # mindflow_train_fraction=0: every method on all 8 topics (MindFlow's train/test split and its training
    # are pinned by tests/integration/agents/mindflow/test_mindflow_eval_protocol.py)
    config = EvalConfig(methods=methods, n_ideas=2, graph="file", n_boot=50, mindflow_train_fraction=0.0,
                        method_configs={"ideagent": {"seeds": 2}})
    run = create_eval(settings, config, topics, source=str(SHARED_TOPICS))
    model = all_methods_model()
    ev = Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings, model=model),
                    judges=[Judge("scripted-judge", PlatformLLMClient(settings, model=world_model("scripted-judge")))],
                    embed=embedder.embed)
    res = await ev.execute()
    assert len(res.topics) == len(topics) * 4
    assert {m: res.estimates[m]["n_ideas"].value for m in methods} == {m: 2 * len(topics) for m in methods}
    assert not res.shortfalls
    assert check_report(run.path) == []
    with (run.path / "ideas.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * 4 * len(topics) and {r["method"] for r in rows} == set(methods)
    html = (run.path / "report.html").read_text()
    for m in methods:
        assert m in html
    deliveries = json.loads((run.path / "deliveries.json").read_text())
    assert {(d["method"], d["topic_id"]) for d in deliveries} == {(m, t.topic_id) for m in methods for t in topics}
    for d in deliveries:  # every child run is an ordinary run of its method, on the topic's background only
        child = RunDir.open(settings.runs_dir, d["runs"][0])
        assert child.status()["method"] == d["method"] and child.status()["parent"] == run.id
        text = (child.path / "background.json").read_text()
        topic = next(t for t in topics if t.topic_id == d["topic_id"])
        assert all(p.title in text for p in topic.background)
        assert not any(p.title in text for p in topic.targets)


async def test_budget_stop_then_resume_finishes_without_regenerating(settings, embedder, tmp_path: Path,
                                                                     writers) -> None:
    from motivgraph.errors import BudgetExceeded

    prices = {"scripted-gen": (2000.0, 2000.0), "scripted-judge": (10.0, 10.0)}
    s = settings.model_copy(update={"llm": settings.llm.model_copy(update={"prices": prices})})
    topics = load_topics_file(small_topics(tmp_path, 1))
    run = create_eval(s, EvalConfig(methods=writers[:2], n_ideas=2, graph="file", n_boot=20, budget_usd=0.5),
                      topics, source="test")
    gen = world_model("scripted-gen")

    def evaluation() -> Evaluation:
        return Evaluation(s, run, llm_factory=lambda: PlatformLLMClient(s, model=gen),
                          judges=[Judge("j", PlatformLLMClient(s, model=world_model("scripted-judge")))],
                          embed=embedder.embed)

    with pytest.raises(BudgetExceeded):
        await evaluation().execute()
    assert run.status()["status"] == "stopped"
    children_before = json.loads((run.path / "state.json").read_text())["children"]
    calls_before = len(gen.calls)
    assert calls_before >= 1
    # more budget, same evaluation: continues the stopped child run, then the others
    st = run.status()
    st["config"]["budget_usd"] = 1000.0
    run.write_status(st)
    res = await evaluation().execute()
    assert run.status()["status"] == "completed" and check_report(run.path) == []
    children = json.loads((run.path / "state.json").read_text())["children"]
    for key, ids in children_before.items():
        assert children[key][: len(ids)] == ids  # the stopped child was resumed, not replaced
    assert all(res.estimates[m]["n_ideas"].value == 2 for m in writers[:2])
    assert sum(r["cost_usd"] for r in res.cost if r["scope"] == "generation") > 0.5


async def test_unusable_judge_replies_are_left_out_not_fatal(settings, embedder, tmp_path: Path, writers) -> None:
    from eval_support import world_reply

    from motivgraph.agents.evaluation.judges import SYS
    from motivgraph.llm import ScriptedChatModel
    from motivgraph.llm.tokens import content_text

    def reply(msgs):  # every decomposition request gets prose, never JSON
        if content_text(msgs[0].content).startswith(SYS["signature"]):
            return "I would rather not decompose this idea."
        return world_reply(msgs)

    topics = load_topics_file(small_topics(tmp_path, 1))
    run = create_eval(settings, EvalConfig(methods=writers[:2], n_ideas=2, graph="file", n_boot=20), topics,
                      source="test")
    gen = world_model("scripted-gen")
    judge = PlatformLLMClient(settings, model=ScriptedChatModel(default=reply, model_name="scripted-bad-sig"))
    res = await Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings, model=gen),
                           judges=[Judge("j", judge)], embed=embedder.embed).execute()
    assert run.status()["status"] == "completed"
    assert any("unusable judge replies" in n and "signature 4" in n for n in res.notes)
    assert "yield" not in res.estimates["q_low"]  # no decomposition, no judged diversity, no Yield
    assert "elo_overall" in res.estimates["q_low"]  # the other metrics stand
    failed = [json.loads(x) for x in (run.path / "judgments.jsonl").read_text().splitlines()]
    assert sum(1 for x in failed if x["kind"] == "signature" and "failed" in x) == 4
    assert check_report(run.path) == []
    # counted as unusable in the report's replies table, never turned into a verdict
    with (run.path / "tables" / "replies.csv").open() as fh:
        replies = {(r["kind"], r["judge"]): r for r in csv.DictReader(fh)}
    assert (replies[("signature", "j")]["asked"], replies[("signature", "j")]["unusable"]) == ("4", "4")
    assert replies[("signature", "j")]["usable"] == "0" and replies[("score", "j")]["unusable"] == "0"


def test_an_evaluation_whose_process_died_is_listed_as_interrupted_with_its_resume_command(settings,
                                                                                           tmp_path: Path) -> None:
    """kill -9 (or a reboot) leaves status.json at 'running': the listing must not say so forever."""
    import subprocess
    import sys

    topics = load_topics_file(small_topics(tmp_path, 1))
    run = create_eval(settings, EvalConfig(methods=["stateless"], n_ideas=1, graph="file"), topics, source="test")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    run.update_status(status="running", pid=dead.pid)
    alive = create_eval(settings, EvalConfig(methods=["stateless"], n_ideas=1, graph="file"), topics, source="test")
    alive.update_status(status="running", pid=__import__("os").getpid())

    listed = {e["id"]: e for e in list_evals(settings.runs_dir)}
    assert listed[run.id]["status"] == "interrupted" and listed[alive.id]["status"] == "running"
    st = run.status()
    assert st["status"] == "interrupted" and f"motivgraph eval --resume {run.id}" in st["error"]
