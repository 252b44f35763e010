"""LLMClient: the one door every LLM call goes through.

    cache (SQLite, free on hit) -> budget check -> concurrency limit (and the server's slots)
        -> context-window check -> rate limit -> call with a time limit, retried with backoff on
        429/5xx -> usage + cost -> cache

A timeout is not retried blindly: the call is repeated at most `timeout_retries` times, each with
twice the limit, and against a single-slot local server only once that server has finished the
abandoned reply (else the retry would queue behind it and time out too). Then LLMTimeout is raised,
which a run records as its failure reason. A prompt that cannot fit the model's context window
raises ContextOverflow before anything is sent; a reply cap that would overflow it is lowered.

Structured output (`structured`) asks in the strongest mode of the provider's dialect
(llm/dialects.py); a server that rejects that request (HTTP 400/422) is asked in a weaker mode from
then on. Replies are repaired and validated, with one corrective re-ask.

Async only (`chat`, `structured`): plain code runs a call with `asyncio.run`.
A run's budget (`budget_usd`, default settings.llm.budget_usd) is checked before every paid call:
once this client's spend reaches it, BudgetExceeded is raised and nothing more is sent; cached
answers still flow, so re-running resumes where the run stopped without paying twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel

from motivgraph.errors import (
    BudgetExceeded,
    ConfigError,
    ContextOverflow,
    LLMError,
    LLMTimeout,
    LLMUnreachable,
    MotivGraphError,
    ReplyProblem,
    RetriesExhausted,
    StructuredOutputError,
)
from motivgraph.llm import structured as so
from motivgraph.llm.cache import LLMCache, cache_key, cache_path
from motivgraph.llm.dialects import StructuredRequest, dialect_for, structured_request, weaker
from motivgraph.llm.factory import ModelSpec, build_chat_model, is_configured, resolve_spec
from motivgraph.llm.limiter import RateLimiter
from motivgraph.llm.local import wait_idle
from motivgraph.llm.reach import endpoint_of, require_reachable
from motivgraph.llm.retry import (
    RetryPolicy,
    describe,
    is_connection_error,
    is_timeout,
    retry_call,
    status_code,
)
from motivgraph.llm.tokens import content_text, count_message_tokens, count_tokens
from motivgraph.llm.usage import Usage, cost_usd, price_for
from motivgraph.settings import Settings

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
Messages = Sequence[BaseMessage] | str
DEFAULT_ROLE = "default"  # accounting name for calls that use the default model, not a role's

_HINTS = {
    401: "the API key was rejected — check MOTIVGRAPH_LLM_API_KEY",
    403: "access denied — check MOTIVGRAPH_LLM_API_KEY and the model's permissions",
    404: "model or endpoint not found — check MOTIVGRAPH_LLM_MODEL and MOTIVGRAPH_LLM_BASE_URL",
}
_CONTEXT_WORDS = ("context window", "context length", "maximum context", "exceed context", "too many tokens",
                  "prompt is too long")
# Our token counts are estimates (MiniLM word pieces), not the model's tokenizer: keep a margin.
CONTEXT_MARGIN = 1.15
MIN_REPLY_TOKENS = 32


@dataclass(frozen=True)
class CallEstimate:
    """Dry-run estimate of one call. `cached` calls cost nothing."""

    input_tokens: int
    output_tokens: int
    cost_usd: float
    cached: bool


class _Final(Exception):
    """Carries an error the retry loop must not retry (its classifier goes by class names)."""

    def __init__(self, error: MotivGraphError) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass
class _Bound:
    spec: ModelSpec
    model: BaseChatModel


def truncated_reply(e: BaseException) -> AIMessage | None:
    """The reply inside the OpenAI SDK's LengthFinishReasonError, as a normal AIMessage cut off at the
    token limit (finish_reason "length", the server's usage). With a response_format the SDK parses
    the reply and raises instead of returning a truncated one; a truncated reply is an answer (the
    structured-output layer counts it invalid and re-asks for a shorter one), not a failed call."""
    completion = getattr(e, "completion", None)
    if type(e).__name__ != "LengthFinishReasonError" or completion is None:
        return None
    choices = getattr(completion, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    content = str(getattr(message, "content", None) or "")
    usage = getattr(completion, "usage", None)
    t_in = int(getattr(usage, "prompt_tokens", 0) or 0)
    t_out = int(getattr(usage, "completion_tokens", 0) or 0)
    return AIMessage(
        content=content,
        response_metadata={"finish_reason": "length", "model_name": getattr(completion, "model", None)},
        usage_metadata={"input_tokens": t_in, "output_tokens": t_out, "total_tokens": t_in + t_out},
    )


def _as_messages(messages: Messages) -> list[BaseMessage]:
    return [HumanMessage(content=messages)] if isinstance(messages, str) else list(messages)


class LLMClient:
    """Cached, limited, retried, metered access to the chat models of every role."""

    def __init__(
        self,
        settings: Settings,
        *,
        model: BaseChatModel | None = None,
        models: dict[str, BaseChatModel] | None = None,
        budget_usd: float | None = None,
        run_id: str | None = None,
        use_cache: bool | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        seed: int | None = None,
    ) -> None:
        """`model` (all roles) / `models` (per role) inject ready models, e.g. ScriptedChatModel in tests.

        `sleep` is used for retry backoff and rate limiting (tests pass a recorder, never real time).
        """
        self.settings = settings
        self.cfg = settings.llm
        self.run_id = run_id or uuid.uuid4().hex[:12]
        self.budget_usd = budget_usd if budget_usd is not None else self.cfg.budget_usd
        self.use_cache = self.cfg.cache if use_cache is None else use_cache
        self.usage = Usage()
        self.planned = Usage()  # what `estimate` calls added up to (dry runs)
        self._injected = dict(models or {})
        self._default_model = model
        self._bound: dict[str | None, _Bound] = {}
        self._sleep = sleep
        self._rng = random.Random(seed)
        self._policy = RetryPolicy(self.cfg.max_retries, self.cfg.retry_base_s, self.cfg.retry_max_s)
        self._limiter = RateLimiter(self.cfg.requests_per_minute, burst=self.cfg.concurrency, sleep=sleep)
        self._sem: asyncio.Semaphore | None = None
        self._sem_loop: asyncio.AbstractEventLoop | None = None
        self._slot_sems: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Semaphore]] = {}
        self._weaker: dict[str, str] = {}  # model id -> structured method after a rejected request
        self._pending: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[AIMessage]]] = {}
        self.cache = LLMCache(cache_path(settings))
        # Which sample of a request this client draws: a run's seed (agents/core/runner.py). It is part of
        # every cache key and, where the provider takes one, sent as the request's `seed`, so a retry run with
        # another seed is a new sample, not a replay of the first run's cached replies; the same seed resumes
        # from the cache. None (miner, CLI checks): keys as before, no seed sent.
        self.sample: int | None = None

    # -- models --------------------------------------------------------------------------------
    def is_configured(self, role: str | None = None) -> bool:
        """True when `role` has a model (injected or from settings)."""
        return bool(self._default_model or role in self._injected or is_configured(self.cfg, role))

    def require(self, role: str | None = None) -> ModelSpec:
        """Fail at once (ConfigError naming MOTIVGRAPH_LLM_MODEL...) when `role` has no model."""
        return self._model(role).spec

    def check_reachable(self, roles: Iterable[str | None]) -> list[str]:
        """Connect once to each distinct endpoint of `roles` (llm/reach.py) before anything is spent:
        LLMUnreachable (exit 4) naming the first one that is down. Returns the endpoints checked."""
        pairs = []
        for role in roles:
            b = self._model(role)
            pairs.append((f"role {role or 'default'} ({b.spec.model_id})", endpoint_of(b.spec, b.model)))
        return require_reachable(pairs)

    def _model(self, role: str | None) -> _Bound:
        role = None if role == DEFAULT_ROLE else role
        if role not in self._bound:
            injected = self._injected.get(role) if role else None
            injected = injected or self._default_model
            if injected is not None:
                name = str(getattr(injected, "model_name", None) or getattr(injected, "model", None) or "model")
                provider = "scripted" if injected._llm_type == "scripted" else injected._llm_type
                spec = ModelSpec(role, provider, name, None, None, self.cfg.temperature, self.cfg.max_tokens,
                                 self.cfg.timeout_s, dialect=dialect_for(provider, None, self.cfg.dialect),
                                 context_window=self.cfg.context_window)
                self._bound[role] = _Bound(spec, injected)
            else:
                spec = resolve_spec(self.cfg, role, self.settings.data_dir)
                self._bound[role] = _Bound(spec, build_chat_model(spec, timeout_retries=self.cfg.timeout_retries))
            spec = self._bound[role].spec
            if self.budget_usd is not None and price_for(spec.model, self.cfg.prices) == (0.0, 0.0):
                log.warning("No price for model %r in MOTIVGRAPH_LLM_PRICES: its calls count as $0, so the "
                            "budget of $%.2f cannot stop them", spec.model, self.budget_usd)
        return self._bound[role]

    def model_id(self, role: str | None = None) -> str:
        return self._model(role).spec.model_id

    def chat_model(self, role: str | None = None) -> BaseChatModel:
        """The LangChain model behind `role` (calls should still go through `chat`)."""
        return self._model(role).model

    def supports_tools(self, role: str | None = None) -> bool:
        """True when the role's model should get native tool calls (bind_tools); False for models
        that implement none and for presets that use the text protocol (local: models)."""
        b = self._model(role)
        return b.spec.native_tools and type(b.model).bind_tools is not BaseChatModel.bind_tools

    def prompt_budget(self, role: str | None = None) -> int | None:
        """Most prompt tokens (estimated) a call of `role` should send, or None when unlimited:
        the role's context cap and what the model's context window leaves after the reply cap.
        Agents trim their conversation to min(their own budget, this)."""
        budget = self._model(role).spec.prompt_budget
        return int(budget / CONTEXT_MARGIN) if budget is not None else None

    def spec(self, role: str | None = None) -> ModelSpec:
        return self._model(role).spec

    # -- the call pipeline -------------------------------------------------------------------
    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._sem is None or self._sem_loop is not loop:  # asyncio.run() in sync wrappers: new loop
            self._sem, self._sem_loop = asyncio.Semaphore(self.cfg.concurrency), loop
        return self._sem

    def _slots(self, spec: ModelSpec) -> asyncio.Semaphore | None:
        """The server's own limit (a local model has one slot: more calls would only queue there,
        where their time limits would run out waiting)."""
        if not spec.slots:
            return None
        loop = asyncio.get_running_loop()
        held = self._slot_sems.get(spec.model_id)
        if held is None or held[0] is not loop:
            held = (loop, asyncio.Semaphore(spec.slots))
            self._slot_sems[spec.model_id] = held
        return held[1]

    def _key(self, b: _Bound, messages: list[BaseMessage], tools: list[dict], params: dict[str, Any]) -> str:
        full = {"temperature": b.spec.temperature, "max_tokens": b.spec.max_tokens, "base_url": b.spec.base_url,
                **params}
        return cache_key(b.spec.model_id, messages, tools=tools, params=full)

    def _check_budget(self, role: str) -> None:
        if self.budget_usd is not None and self.usage.cost_usd >= self.budget_usd:
            raise BudgetExceeded(
                f"LLM budget of ${self.budget_usd:.4f} reached (spent ${self.usage.cost_usd:.4f}) before a "
                f"{role} call; re-run the same command with a higher --budget-usd / MOTIVGRAPH_LLM_BUDGET_USD "
                "to resume — answers already received are cached and cost nothing"
            )

    def _redact(self, text: str, spec: ModelSpec) -> str:
        key = spec.api_key.get_secret_value() if spec.api_key else ""
        return text.replace(key, "***") if len(key) >= 6 else text

    async def chat(
        self,
        role: str,
        messages: Messages,
        *,
        tools: Sequence[Any] | None = None,
        tool_choice: str | None = None,
        cache: bool = True,
        **params: Any,
    ) -> AIMessage:
        """One chat turn for `role`. `tools`: LangChain tools, pydantic classes, functions or
        OpenAI tool dicts, bound with bind_tools. Extra `params` (e.g. response_format) are bound
        to the model and are part of the cache key. Returns the AIMessage (tool_calls included)."""
        msgs = _as_messages(messages)
        b = self._model(role)
        tool_schemas = [convert_to_openai_tool(t) for t in tools or []]
        call_params = {**params, **({"tool_choice": tool_choice} if tool_choice else {})}
        if not (self.use_cache and cache):
            return await self._call(role, b, msgs, tool_schemas, tool_choice, params)
        key = self._key(b, msgs, tool_schemas,
                        call_params if self.sample is None else {**call_params, "sample": self.sample})
        hit = self.cache.get(key)
        if hit is not None:
            return self._hit(role, b, hit)
        # Identical requests in flight at the same time are sent once; the others wait for it.
        loop = asyncio.get_running_loop()
        pending = self._pending.get(key)
        if pending is not None and pending[0] is loop:
            try:
                return self._hit(role, b, (await asyncio.shield(pending[1])).model_copy(deep=True))
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise
            except Exception:
                pass  # the first caller reports its own error; this one makes its own attempt
        fut: asyncio.Future[AIMessage] = loop.create_future()
        self._pending[key] = (loop, fut)
        try:
            msg = await self._call(role, b, msgs, tool_schemas, tool_choice, params)
        except Exception as e:
            fut.set_exception(e)
            fut.exception()  # mark retrieved: nobody may be waiting
            raise
        except BaseException:
            fut.cancel()
            raise
        else:
            fut.set_result(msg)
        finally:
            if self._pending.get(key, (None, None))[1] is fut:
                del self._pending[key]
        if content_text(msg.content).strip() or msg.tool_calls:
            self.cache.put(key, b.spec.model_id, role, msg)  # empty replies are not worth replaying
        return msg

    def _hit(self, role: str, b: _Bound, msg: AIMessage) -> AIMessage:
        self.usage.record_cache_hit(role)
        self.cache.log_call(run_id=self.run_id, role=role, model_id=b.spec.model_id, cached=True)
        msg.response_metadata = {**msg.response_metadata, "cache_hit": True}
        return msg

    async def _call(
        self, role: str, b: _Bound, msgs: list[BaseMessage], tool_schemas: list[dict], tool_choice: str | None,
        params: dict[str, Any],
    ) -> AIMessage:
        """Budget check, concurrency slot, rate limit, timeout, retries, accounting: one paid call."""
        self._check_budget(role)
        params = {**params, **self._fit_reply(role, b, msgs, tool_schemas)}
        if "seed" in type(b.model).model_fields:  # OpenAI-compatible models take one
            if self.sample is not None:  # a request's own seed (one sample of several) wins over the run's
                params.setdefault("seed", self.sample)
        else:
            params.pop("seed", None)  # the provider takes none; a request's seed still told the cache keys apart
        runnable: Any = b.model
        if tool_schemas:
            try:
                runnable = b.model.bind_tools(tool_schemas, **({"tool_choice": tool_choice} if tool_choice else {}))
            except NotImplementedError as e:
                raise LLMError(f"{b.spec.model_id} does not support tool calling (role {role})") from e
        if params:
            runnable = runnable.bind(**params)

        async def attempt() -> AIMessage:
            try:
                return await self._attempt(role, b, runnable, msgs)
            except LLMTimeout as e:  # final: carried past the retry loop, which would retry any "*Timeout*"
                raise _Final(e) from e

        def on_retry(n: int, e: BaseException, wait: float) -> None:
            self.usage.record_retry(role)
            log.warning("LLM %s (%s) retry %d/%d in %.1fs: %s", role, b.spec.model_id, n,
                        self._policy.max_retries, wait, self._redact(describe(e), b.spec))

        slots = self._slots(b.spec)
        async with self._semaphore(), (slots if slots is not None else contextlib.nullcontext()):
            self._check_budget(role)  # spend may have grown while this call waited for a slot
            try:
                msg = await retry_call(attempt, self._policy, sleep=self._sleep, rng=self._rng, on_retry=on_retry)
            except _Final as e:
                self.usage.record_failure(role)
                raise e.error from e.error.__cause__
            except RetriesExhausted as e:
                self.usage.record_failure(role)
                if is_connection_error(e.last):  # the endpoint is down, not the call: say which (exit 4)
                    raise LLMUnreachable(
                        f"LLM {role} ({b.spec.model_id}): the endpoint {endpoint_of(b.spec, b.model) or ''} "
                        f"is unreachable after {e.attempts} attempts ({self._redact(describe(e.last), b.spec)}): "
                        "start the model server or fix MOTIVGRAPH_LLM_BASE_URL"
                    ) from e.last
                raise LLMError(
                    f"LLM {role} ({b.spec.model_id}) failed after {e.attempts} attempts: "
                    f"{self._redact(describe(e.last), b.spec)}"
                ) from e.last
            except MotivGraphError:
                self.usage.record_failure(role)
                raise
            except Exception as e:
                self.usage.record_failure(role)
                text = str(e).lower()
                if status_code(e) in (400, 413, 422) and any(w in text for w in _CONTEXT_WORDS):
                    raise ContextOverflow(
                        f"LLM {role} ({b.spec.model_id}): the prompt does not fit the model's context window "
                        f"({self._redact(describe(e), b.spec)}); shorten the input (e.g. "
                        "MOTIVGRAPH_MINER_INPUT_TOKEN_BUDGET, MOTIVGRAPH_AGENTS_CONTEXT_TOKEN_BUDGET)"
                    ) from e
                hint = _HINTS.get(status_code(e) or 0, "")
                raise LLMError(
                    f"LLM {role} ({b.spec.model_id}) failed: {self._redact(describe(e), b.spec)}"
                    + (f" — {hint}" if hint else "")
                ) from e
        self._account(role, b, msgs, tool_schemas, msg)
        return msg

    async def _attempt(self, role: str, b: _Bound, runnable: Any, msgs: list[BaseMessage]) -> AIMessage:
        """One call under the timeout policy (see module docstring). Errors other than timeouts
        propagate to the retry loop unchanged."""
        limit = b.spec.timeout_s
        for n in range(self.cfg.timeout_retries + 1):
            await self._limiter.acquire()
            try:
                out = await asyncio.wait_for(runnable.ainvoke(msgs), timeout=limit)
            except Exception as e:
                cut = truncated_reply(e)
                if cut is not None:
                    return cut
                if not is_timeout(e):
                    raise
                if n >= self.cfg.timeout_retries:
                    tries = f" ({n + 1} attempts, the last with a {limit:.0f}s limit)" if n else ""
                    raise LLMTimeout(
                        f"LLM {role} ({b.spec.model_id}) did not answer within {limit:.0f}s{tries}; the model is "
                        f"too slow for this call: lower its reply cap (now {b.spec.max_tokens} tokens; "
                        "MOTIVGRAPH_LLM_MAX_TOKENS or the role's max_tokens) or raise MOTIVGRAPH_LLM_TIMEOUT_S"
                    ) from e
                self.usage.record_retry(role)
                log.warning("LLM %s (%s) timed out after %.0fs; retrying once more with a %.0fs limit", role,
                            b.spec.model_id, limit, limit * 2)
                if b.spec.slots == 1:
                    await self._wait_idle(b, limit * 2)
                else:
                    await self._sleep(self._policy.delay(n + 1, e, self._rng))
                limit *= 2
                continue
            if not isinstance(out, AIMessage):
                raise LLMError(f"{b.spec.model_id} returned {type(out).__name__}, not an AIMessage")
            return out
        raise AssertionError("unreachable")

    async def _wait_idle(self, b: _Bound, timeout_s: float) -> None:
        """A single-slot server keeps generating the reply nobody waits for any more; a retry sent
        now would queue behind it. Wait until it is free (bounded by `timeout_s`)."""
        base_url = getattr(b.model, "openai_api_base", None)
        if not base_url:
            return
        key = getattr(b.model, "openai_api_key", None)

        if not await wait_idle(base_url, key.get_secret_value() if key else None, timeout_s):
            log.warning("LLM server at %s still busy after %.0fs", base_url, timeout_s)

    def _fit_reply(self, role: str, b: _Bound, msgs: list[BaseMessage], tools: list[dict]) -> dict[str, Any]:
        """Context-window check before sending: ContextOverflow when the prompt leaves no room for a
        reply; {"max_tokens": n} when the reply cap must shrink to fit; {} otherwise."""
        window = b.spec.context_window
        if not window:
            return {}
        prompt = int(count_message_tokens(msgs, tools) * CONTEXT_MARGIN)
        room = window - prompt
        if room < MIN_REPLY_TOKENS:
            self.usage.record_failure(role)
            raise ContextOverflow(
                f"LLM {role} ({b.spec.model_id}): the prompt (~{prompt} tokens) leaves no room for a reply in the "
                f"model's {window}-token context window; nothing was sent. Shorten the input (e.g. "
                "MOTIVGRAPH_MINER_INPUT_TOKEN_BUDGET, MOTIVGRAPH_AGENTS_CONTEXT_TOKEN_BUDGET) or use a model with a "
                "larger window (MOTIVGRAPH_LLM_CONTEXT_WINDOW)"
            )
        if room < b.spec.max_tokens:
            log.info("LLM %s: reply cap lowered from %d to %d tokens to fit the %d-token context window", role,
                     b.spec.max_tokens, room, window)
            return {"max_tokens": room}
        return {}

    def _account(self, role: str, b: _Bound, msgs: list[BaseMessage], tools: list[dict], msg: AIMessage) -> None:
        meta = msg.usage_metadata
        if meta and (meta.get("input_tokens") or meta.get("output_tokens")):
            t_in, t_out, estimated = int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)), False
        else:
            t_in = count_message_tokens(msgs, tools)
            t_out = count_tokens(so.reply_text(msg)) if (msg.content or msg.tool_calls) else 0
            estimated = True
        cost = cost_usd(b.spec.model, self.cfg.prices, t_in, t_out)
        self.usage.record_call(role, t_in, t_out, cost, estimated=estimated)
        self.cache.log_call(run_id=self.run_id, role=role, model_id=b.spec.model_id, cached=False,
                            input_tokens=t_in, output_tokens=t_out, estimated=estimated, cost=cost)

    # -- structured output -------------------------------------------------------------------
    def structured_method(self, role: str) -> str:
        """The method structured calls of `role` use now: constrained, tool, json_mode or text."""
        method = self.cfg.structured_method
        spec = self._model(role).spec
        if method == "auto":
            method = "text" if spec.dialect == "scripted" else "constrained"
            if "reasoner" in spec.model:  # reasoning models (deepseek-reasoner) reject forced tool calls
                method = "text"
        return self._weaker.get(spec.model_id, method)  # after a rejection: the weaker method, for good

    def structured_request(self, role: str, schema: type[BaseModel], method: str | None = None, *,
                           budget_tokens: int | None = None) -> StructuredRequest:
        """What a structured call of `role` sends for `schema` (see llm/dialects.py); a grammar-bounded
        dialect fits the schema's bounds to `budget_tokens` (default: the role's reply cap)."""
        spec = self._model(role).spec
        return structured_request(spec.dialect, method or self.structured_method(role), schema,
                                  budget_tokens or spec.max_tokens)

    def _structured_call(self, role: str, messages: Messages, schema: type[BaseModel],
                         method: str | None = None, *, budget_tokens: int | None = None) -> tuple[list, dict]:
        """(messages, chat kwargs) that `structured` sends for `schema`."""
        req = self.structured_request(role, schema, method, budget_tokens=budget_tokens)
        msgs = _as_messages(messages)
        if req.instruct:
            msgs = so.with_instruction(msgs, so.schema_instruction(schema))
        kwargs: dict[str, Any] = dict(req.kwargs)
        if req.tools:
            kwargs.update(tools=list(req.tools), tool_choice=req.tool_choice)
        return msgs, kwargs

    async def structured(self, role: str, messages: Messages, schema: type[M], *, reask: bool = True,
                         method: str | None = None, seed: int | None = None) -> M:
        """A `schema` instance from the model: parse (repairing broken JSON) and validate; on
        failure ask once more quoting the problems; then StructuredOutputError (with `.raw` and
        `.problems` attributes holding the replies and what was wrong with them). `method`
        overrides the structured method for this call (benchmarks compare them). `seed` makes the
        call one independent sample of several identical requests: it is part of the cache key and
        sent to providers that take a seed."""
        async def attempt(used: str) -> M:
            return await self._structured(role, messages, schema, reask=reask, method=used, seed=seed)

        return await self.with_structured_fallback(role, attempt, method)

    async def with_structured_fallback(self, role: str, attempt: Callable[[str], Awaitable[T]],
                                       method: str | None = None) -> T:
        """`attempt(method)` in the role's structured method; when the server refuses that request
        format itself (HTTP 400/422), the next weaker method is remembered for the model (for good)
        and `attempt` runs again with it. The one fallback policy of every structured call: `structured`
        and callers that send structured requests their own way (MindFlow's per-call accounting).
        With `method` given, no fallback (benchmarks compare methods)."""
        while True:
            used = method or self.structured_method(role)
            try:
                return await attempt(used)
            except ContextOverflow:
                raise
            except LLMError as e:
                if method is not None or not self._rejected(e, used):
                    raise
                fallback = weaker(used)
                if fallback is None:
                    raise
                spec = self._model(role).spec
                log.warning("LLM %s (%s) rejected the %s structured-output request (%s); using %s from now on",
                            role, spec.model_id, used, e, fallback)
                self._weaker[spec.model_id] = fallback

    @staticmethod
    def _rejected(e: LLMError, method: str) -> bool:
        """True when the server refused the request format itself (not the prompt or the key)."""
        cause = e.__cause__
        return method != "text" and cause is not None and status_code(cause) in (400, 422)

    async def _structured(self, role: str, messages: Messages, schema: type[M], *, reask: bool, method: str,
                          seed: int | None = None) -> M:
        msgs, kwargs = self._structured_call(role, messages, schema, method)
        if seed is not None:
            kwargs["seed"] = seed
        raws: list[str] = []
        problems: list[str] = []
        for turn in range(2 if reask else 1):
            reply = await self.chat(role, msgs, **kwargs)
            raws.append(so.reply_text(reply))
            try:
                return so.parse_reply(reply, schema)
            except ReplyProblem as p:
                problems.append(str(p))
                log.info("LLM %s: unusable %s reply (turn %d): %s", role, schema.__name__, turn + 1, p)
                msgs = [*msgs, AIMessage(content=raws[-1]), so.correction(str(p), schema)]
                if reply.response_metadata.get("finish_reason") == "length":
                    # cut off at the reply cap: a grammar-bounded request asks again with bounds for half of
                    # it, so the re-ask cannot run out the same way (other dialects' kwargs do not change)
                    spec = self._model(role).spec
                    _, kwargs = self._structured_call(role, messages, schema, method,
                                                      budget_tokens=max(1, spec.max_tokens // 2))
                    if seed is not None:
                        kwargs["seed"] = seed
        err = StructuredOutputError(
            f"LLM {role} gave no valid {schema.__name__} after {len(raws)} replies: {problems[-1]}"
        )
        err.raw = raws
        err.problems = problems
        raise err

    # -- estimates, sync wrappers, housekeeping -----------------------------------------------
    def estimate(
        self,
        role: str,
        messages: Messages,
        expected_output_tokens: int = 256,
        *,
        tools: Sequence[Any] | None = None,
        schema: type[BaseModel] | None = None,
    ) -> CallEstimate:
        """Tokens and cost one call would take, without calling (0 when already cached). Adds to
        `self.planned`. With `schema`, the messages are those `structured` would send."""
        b = self._model(role)
        kwargs: dict[str, Any] = {}
        msgs = _as_messages(messages)
        if schema is not None:
            msgs, kwargs = self._structured_call(role, msgs, schema)
        tools = list(tools or []) + list(kwargs.pop("tools", []))
        tool_schemas = [convert_to_openai_tool(t) for t in tools]
        key = self._key(b, msgs, tool_schemas, kwargs)
        if self.use_cache and self.cache.get(key) is not None:
            self.planned.record_cache_hit(role)
            return CallEstimate(0, 0, 0.0, True)
        t_in = count_message_tokens(msgs, tool_schemas)
        cost = cost_usd(b.spec.model, self.cfg.prices, t_in, expected_output_tokens)
        self.planned.record_call(role, t_in, expected_output_tokens, cost, estimated=True)
        return CallEstimate(t_in, expected_output_tokens, cost, False)

    def close(self) -> None:
        self.cache.close()


def get_client(settings: Settings, *, budget_usd: float | None = None, role: str | None = None) -> LLMClient:
    """A client from settings; with `role`, fail at once (ConfigError) if that role has no model."""
    client = LLMClient(settings, budget_usd=budget_usd)
    if role is not None:
        try:
            client.require(role)
        except ConfigError:
            client.close()
            raise
    return client
