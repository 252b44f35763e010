"""Set-level's dry-run price is the prompt the method sends (#42 item 9): the writer's input tokens are counted
from the rendered request, not from a per-call constant (650 + documents priced ~1,530 where the call used 2,369)."""

import json
from pathlib import Path

from motivgraph.agents.core import PlatformLLMClient, RunSpec, create_run, dry_run, run_method
from motivgraph.agents.core.background import TopicBackground
from motivgraph.agents.setlevel.method import IdeaCards, SetlevelConfig, SetlevelMethod
from motivgraph.llm import ScriptedChatModel
from motivgraph.llm.structured import schema_instruction, with_instruction
from motivgraph.llm.tokens import count_message_tokens

TOPIC = "sparse rewards in reinforcement learning"


def _background(tmp_path: Path, n: int = 4) -> Path:
    """A 4-paper topic, each abstract about as long as a real one (the issue's case)."""
    f = tmp_path / "papers.jsonl"
    body = ("Agents facing sparse rewards rarely see a learning signal, so exploration dominates sample cost. "
            "We study shaping terms, intrinsic curiosity and curricula, and measure how each changes the number "
            "of episodes to the first success on long-horizon navigation and manipulation tasks. ") * 3
    rows = [{"paper_id": f"p{i}", "title": f"Study {i} of exploration under sparse rewards",
             "abstract": f"Paper {i}. {body}", "authors": ["Ada Lovelace", "Alan Turing"], "year": 2020 + i}
            for i in range(1, n + 1)]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return f


def _cards(k: int) -> str:
    card = {"title": "Disagreement-paced curricula for sparse-reward agents",
            "problem_gap": "[Bridge Opportunity] Shaping work and curriculum work never share their signals.",
            "core_claim": "Agents learn sparse tasks faster when ensemble disagreement orders the curriculum.",
            "method": "[Method Combination] Combine disagreement estimates with a curriculum scheduler.",
            "inspiration": "Document 1 shapes rewards without a curriculum; Document 2 orders tasks blindly.",
            "documents": [1, 2]}
    return json.dumps({"cards": [card] * k})


async def test_the_writer_estimate_equals_the_tokens_of_the_prompt_that_runs(settings, tmp_path: Path) -> None:
    bg = str(_background(tmp_path))
    spec = RunSpec(method="setlevel", topic=TOPIC, config={"ideas": 3}, background_file=bg)
    plan = dry_run(settings, spec, None)
    model = ScriptedChatModel([_cards(3)])
    run = create_run(settings.runs_dir, spec)
    await run_method(settings, run, llm=PlatformLLMClient(settings, model=model), tool_client=None)
    assert len(model.calls) == 1
    sent = count_message_tokens(model.calls[0])  # what the writer call really carried
    assert plan.roles["setlevel.writer"].input_tokens == sent
    assert sent > 650 + 4 * 100  # the four documents and the schema, not a constant


def test_every_draw_is_priced_from_its_own_rendered_prompt(tmp_path: Path) -> None:
    bg = TopicBackground.from_file(_background(tmp_path), topic=TOPIC)
    method = SetlevelMethod(SetlevelConfig(ideas=3, sets=2))
    schema = schema_instruction(IdeaCards)
    want = sum(count_message_tokens(with_instruction(method.writer_request(bg, TOPIC, draw), schema))
               for draw in (1, 2))
    assert method.writer_prompt_tokens(bg, TOPIC) == want
    # documents cut shorter, fewer tokens priced: the figure follows the prompt as the config renders it
    narrow = SetlevelMethod(SetlevelConfig(ideas=3, sets=2, chars_per_document=300))
    assert narrow.writer_prompt_tokens(bg, TOPIC) < want
