"""The LLM extractor (SciMotivMiner proper): paper text in, validated triples out.

One paper costs one call, or two when the first reply breaks a checkable naming rule: the re-ask
lists every violation per triple. Whatever still fails after the re-ask is returned in
`ExtractionResult.rejected` (the sink records it, never stores it). Reply-level trouble — not JSON,
truncated JSON, wrong schema, refusals — is handled inside `LLMClient.structured` (repair + one
corrective re-ask); transport trouble (429, 5xx, timeouts) by its retries. What survives all of
that raises `LLMError` (or `BudgetExceeded`), which the sink turns into a per-paper failure
(or a clean stop).
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from motivgraph.errors import BudgetExceeded, StructuredOutputError
from motivgraph.miner.prompts import extraction_messages, reask_message
from motivgraph.miner.schemas import ExtractedTriple, ExtractionReply, ExtractionResult, RejectedTriple
from motivgraph.miner.text import ExtractionInput, select_input
from motivgraph.miner.validation import dedupe, validate

if TYPE_CHECKING:
    from motivgraph.embeddings.base import Embedder
    from motivgraph.ingest.models import Paper
    from motivgraph.llm import Estimate, LLMClient
    from motivgraph.settings import MinerSettings

log = logging.getLogger(__name__)

ROLE = "extractor"
EXPECTED_OUTPUT_TOKENS = 700  # a 3-5 triple reply; used by dry-run estimates only
MIN_INPUT_TOKENS = 300  # title + abstract, whatever the model's prompt cap


class LLMExtractor:
    name = "llm"

    def __init__(self, client: LLMClient, cfg: MinerSettings, embedder: Embedder | None = None) -> None:
        self.client = client
        self.cfg = cfg
        self.embedder = embedder
        self._input_cfg: MinerSettings | None = None

    @property
    def input_cfg(self) -> MinerSettings:
        """The miner settings with the paper-input budget lowered to what the extractor model's prompt
        cap leaves after the instructions (a local preset caps it: see llm/local.py); the settings
        themselves when the cap leaves room for the whole budget."""
        if self._input_cfg is None:
            self._input_cfg = self.cfg
            cap = self.client.prompt_budget(ROLE)
            if cap is not None:
                from motivgraph.llm import structured as so  # local: offline ingest loads no LangChain
                from motivgraph.llm.tokens import count_message_tokens  # local: offline ingest loads no LangChain

                overhead = count_message_tokens(
                    so.with_instruction(extraction_messages("", self.cfg.max_triples),
                                        so.schema_instruction(ExtractionReply)))
                room = max(MIN_INPUT_TOKENS, cap - overhead)
                if room < self.cfg.input_token_budget:
                    log.info("extractor input capped at %d tokens by the model's prompt cap (%d)", room, cap)
                    self._input_cfg = self.cfg.model_copy(update={"input_token_budget": room})
        return self._input_cfg

    def messages_for(self, inp: ExtractionInput) -> list:
        return extraction_messages(inp.render(), self.cfg.max_triples)

    def estimate(self, paper: Paper) -> Estimate | None:
        """Dry run: tokens and cost of this paper's first extraction call (None: no call needed)."""
        inp = select_input(paper, self.input_cfg)
        if inp.unusable_reason:
            return None
        return self.client.estimate(
            ROLE, self.messages_for(inp), EXPECTED_OUTPUT_TOKENS, schema=ExtractionReply
        )

    def _check(self, triples: list[ExtractedTriple], inp: ExtractionInput) -> list[list[str]]:
        return validate(triples, self.cfg, title=inp.title, text=inp.full_text(), embedder=self.embedder)

    async def extract(self, paper: Paper) -> ExtractionResult:
        inp = select_input(paper, self.input_cfg)
        res = ExtractionResult(
            paper_id=paper.paper_id,
            extractor="llm",
            sections_used=inp.sections_used,
            trimmed=inp.trimmed,
        )
        if inp.unusable_reason:
            res.reason = inp.unusable_reason
            return res
        res.input_tokens = inp.tokens
        msgs = self.messages_for(inp)
        reply = await self.client.structured(ROLE, msgs, ExtractionReply)
        res.llm_calls = 1
        triples = dedupe(reply.triples)[: self.cfg.max_triples]
        violations = self._check(triples, inp)
        bad = [(i, v) for i, v in enumerate(violations) if v]
        empty_unexplained = not triples and not (reply.no_triples_reason or "").strip()
        if empty_unexplained:
            bad = [(0, ["the reply has no triples and no no_triples_reason; give 1 or more triples or say why none"])]

        if (bad and self.cfg.reask):
            from langchain_core.messages import AIMessage  # local: offline ingest loads no LangChain

            res.reasked = True
            follow = [
                *msgs,
                AIMessage(content=json.dumps(reply.model_dump(mode="json"), ensure_ascii=False)),
                reask_message(bad),
            ]
            try:
                second = await self.client.structured(ROLE, follow, ExtractionReply)
            except BudgetExceeded:
                raise
            except StructuredOutputError as e:
                # The first reply was usable; keep what passed there rather than failing the paper.
                log.info("paper %s: re-ask reply unusable (%s); keeping the first reply's valid triples",
                         paper.paper_id, e)
                second = None
            res.llm_calls = 2
            if second is not None:
                kept_first = [t for t, v in zip(triples, violations, strict=True) if not v]
                triples2 = dedupe(second.triples)[: self.cfg.max_triples]
                violations2 = self._check(triples2, inp)
                pool = dedupe([*[t for t, v in zip(triples2, violations2, strict=True) if not v], *kept_first])
                res.triples = pool[: self.cfg.max_triples]
                res.rejected = [
                    RejectedTriple(triple=t, violations=v) for t, v in zip(triples2, violations2, strict=True) if v
                ]
                reply = second
            else:
                res.triples = [t for t, v in zip(triples, violations, strict=True) if not v]
                res.rejected = [
                    RejectedTriple(triple=t, violations=v) for t, v in zip(triples, violations, strict=True) if v
                ]
        else:
            res.triples = [t for t, v in zip(triples, violations, strict=True) if not v]
            res.rejected = [
                RejectedTriple(triple=t, violations=v) for t, v in zip(triples, violations, strict=True) if v
            ]

        if not res.triples:
            if res.rejected:
                res.reason = f"all {len(res.rejected)} triples broke the naming rules after the re-ask: " + "; ".join(
                    res.rejected[0].violations
                )
            else:
                res.reason = (reply.no_triples_reason or "").strip() or "the extractor returned no triples"
        return res
