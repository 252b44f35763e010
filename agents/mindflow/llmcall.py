"""One structured LLM call with its own token count: MindFlow's flows run concurrently on one client,
so per-step tokens cannot be read off the client's running totals; they come from each reply.

The request is what `LLMClient.structured` would send (the role's structured-output mode from
llm/dialects.py), parsed and validated by llm/structured.py, with one corrective re-ask; a server that
refuses the schema request is asked in a weaker mode (LLMClient.with_structured_fallback, the same
policy as `structured`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel

from motivgraph.agents.core.llm import account_role
from motivgraph.errors import ReplyProblem, StructuredOutputError
from motivgraph.llm import structured as so
from motivgraph.llm.tokens import count_message_tokens, count_tokens
from motivgraph.llm.usage import cost_usd

M = TypeVar("M", bound=BaseModel)
_INSTRUCTIONS: dict[type[BaseModel], str] = {}


def _instruction(schema: type[BaseModel]) -> str:
    # Building a JSON schema costs milliseconds; flows ask for the same three schemas thousands of times.
    if schema not in _INSTRUCTIONS:
        _INSTRUCTIONS[schema] = so.schema_instruction(schema)
    return _INSTRUCTIONS[schema]


@dataclass
class CallUsage:
    """What calls cost: `calls` and tokens are paid calls only; `cached` counts replies the LLM cache answered
    (no tokens, no cost) -- as the run's cost table counts them, so a flow table and the cost table agree."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cached: int = 0

    def add(self, other: CallUsage) -> None:
        self.calls += other.calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cost_usd += other.cost_usd
        self.cached += other.cached

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


# (messages, schema, sample=None) -> (object, usage). `sample`: which independent sample of an identical request
# this call is (a repeated operator, another idea's flow): sent as the request's seed and part of the LLM cache
# key, so a call meant to sample anew is not answered with an earlier reply from the cache.
Ask = Callable[..., Awaitable[tuple[Any, CallUsage]]]


def _usage(client: Any, role: str, msgs: Sequence[BaseMessage], reply: AIMessage) -> CallUsage:
    meta: dict[str, Any] = dict(reply.usage_metadata or {})
    t_in = int(meta.get("input_tokens") or 0) or count_message_tokens(list(msgs))
    t_out = int(meta.get("output_tokens") or 0) or count_tokens(so.reply_text(reply))
    if (reply.response_metadata or {}).get("cache_hit"):  # answered from the cache: nothing paid
        return CallUsage(cached=1)
    return CallUsage(1, t_in, t_out, cost_usd(client.spec(role).model, client.cfg.prices, t_in, t_out))


async def _two_turns(send: Callable[[list[BaseMessage]], Awaitable[tuple[AIMessage, CallUsage]]],
                     msgs: list[BaseMessage], schema: type[Any], who: str) -> tuple[Any, CallUsage]:
    """One reply, and one corrected re-ask when it does not parse; the usage of both is summed and
    travels on the error when neither parses."""
    usage = CallUsage()
    problem = ""
    for _turn in range(2):
        reply, used = await send(msgs)
        usage.add(used)
        try:
            return so.parse_reply(reply, schema), usage
        except ReplyProblem as p:
            problem = str(p)
            msgs = [*msgs, AIMessage(content=so.reply_text(reply)), so.correction(problem, schema)]
    err = StructuredOutputError(f"{who}: no valid {schema.__name__} after 2 replies: {problem}")
    err.usage = usage
    raise err


def _prepare(client: Any, role: str, messages: list[BaseMessage], schema: type[Any], method: str | None = None
             ) -> tuple[list[BaseMessage], dict[str, Any]]:
    """The messages and chat kwargs of a structured request in `method` (default: the role's current
    one; instruction for instruct-only modes; response_format or a forced tool otherwise)."""
    req = client.structured_request(role, schema, method)
    msgs = list(messages)
    if req.instruct:
        msgs = so.with_instruction(msgs, _instruction(schema))
    kwargs: dict[str, Any] = dict(req.kwargs)
    if req.tools:
        kwargs.update(tools=list(req.tools), tool_choice=req.tool_choice)
    return msgs, kwargs


def _seeded(kwargs: dict[str, Any], sample: int | None) -> dict[str, Any]:
    return kwargs if sample is None else {**kwargs, "seed": sample}


async def ask(client: Any, role: str, messages: list[BaseMessage], schema: type[M],
              sample: int | None = None) -> tuple[M, CallUsage]:
    """`schema` from the role's model, and the tokens/cost this took (re-ask included)."""

    async def attempt(method: str) -> tuple[M, CallUsage]:
        msgs, kwargs = _prepare(client, role, messages, schema, method)
        kwargs = _seeded(kwargs, sample)

        async def send(m: list[BaseMessage]) -> tuple[AIMessage, CallUsage]:
            reply = await client.chat(role, m, **kwargs)
            return reply, _usage(client, role, m, reply)

        return await _two_turns(send, msgs, schema, f"MindFlow {role}")

    # A server that refuses the schema request is asked in a weaker mode (the LLM layer's one policy).
    return await client.with_structured_fallback(role, attempt)


def role_ask(llm: Any) -> Ask:
    """`ask` over an agents.core RoleLLM (ctx.llm("ideator")): calls go through `llm.chat`, so the
    platform's usage events and accounting see them; the tokens come from each reply's metadata."""

    key = account_role(llm.client, llm.role)

    async def _ask(messages: list[BaseMessage], schema: type[Any], sample: int | None = None
                   ) -> tuple[Any, CallUsage]:
        async def attempt(method: str) -> tuple[Any, CallUsage]:
            msgs, kwargs = _prepare(llm.client, key, messages, schema, method)
            kwargs = _seeded(kwargs, sample)

            async def send(m: list[BaseMessage]) -> tuple[AIMessage, CallUsage]:
                reply = await llm.chat(m, **kwargs)
                return reply, _usage(llm.client, key, m, reply)

            return await _two_turns(send, msgs, schema, f"MindFlow {llm.role}")

        return await llm.client.with_structured_fallback(key, attempt)

    return _ask


def client_ask(client: Any, role: str) -> Ask:
    """`ask` bound to one role of an LLMClient (cache, budget, retries, accounting included)."""

    async def _ask(messages: list[BaseMessage], schema: type[Any], sample: int | None = None
                   ) -> tuple[Any, CallUsage]:
        return await ask(client, role, messages, schema, sample)

    return _ask


def model_ask(model: Any, price: tuple[float, float] = (0.0, 0.0)) -> Ask:
    """`ask` straight over a LangChain chat model, without LLMClient's cache, budget and ledger.
    For tests and benchmarks that run thousands of scripted calls; tokens are estimated at four
    characters each when the model reports none."""

    async def _ask(messages: list[BaseMessage], schema: type[Any], sample: int | None = None
                   ) -> tuple[Any, CallUsage]:
        # no cache here: every call is a new sample already (`sample` is for the cache key and seed of LLMClient)
        msgs = so.with_instruction(list(messages), _instruction(schema))
        async def send(m: list[BaseMessage]) -> tuple[AIMessage, CallUsage]:
            reply = await model.ainvoke(m)
            meta = reply.usage_metadata or {}
            t_in = int(meta.get("input_tokens") or 0) or sum(len(str(x.content)) for x in m) // 4
            t_out = int(meta.get("output_tokens") or 0) or len(so.reply_text(reply)) // 4
            return reply, CallUsage(1, t_in, t_out, (t_in * price[0] + t_out * price[1]) / 1e6)

        return await _two_turns(send, msgs, schema, "MindFlow")

    return _ask
