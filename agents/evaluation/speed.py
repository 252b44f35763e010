"""How long an evaluation would take, for the dry run: tokens turned into hours.

A local model (`local:` presets, or any endpoint on a loopback address) is timed, never from the cache: after
a warm-up, a long prompt with a one-token reply, a short one with a one-token reply (their difference: seconds
per prompt token) and the short one with a longer reply (seconds per reply token); what is left of the short
call is the cost of a request. The measurement is recorded in
<cache_dir>/llm-speed.json per model and reused by later dry runs (`--measure-speed` times it again). The
estimate adds the calls one after another: a local server answers one request at a time on a CPU.

A hosted model is not timed (that would cost money and say little about its rate limits); the estimate uses
a stated basis (HOSTED_*), printed with it.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from motivgraph.agents.core import PlatformLLMClient
from motivgraph.settings import Settings

# Basis for hosted models (not measured): typical API throughput for one request stream, and calls in flight.
HOSTED_INPUT_TPS = 2000.0
HOSTED_OUTPUT_TPS = 60.0
LOOPBACK = ("127.0.0.1", "localhost", "::1", "0.0.0.0")
BUSY_LOAD = 0.5  # 1-minute load per core above which a timing is "measured while busy" and is measured again
PROMPT_WORDS = 400  # the timed prompt: long enough that prompt processing dominates the first call
REPLY_TOKENS = 48  # the timed reply: long enough that generation dominates the second call


@dataclass
class Speed:
    model: str
    s_per_input_token: float
    s_per_output_token: float
    measured_at: str
    source: str = "measured now"
    s_per_call: float = 0.0  # what a call costs besides its tokens (request, scheduling)
    # the machine's 1-minute load per core while it was timed (None: not recorded, an older record): a model
    # timed on a busy machine runs several times slower than it will idle, so such a timing is not reused
    load_per_core: float | None = None

    @property
    def idle(self) -> bool:
        return self.load_per_core is not None and self.load_per_core <= BUSY_LOAD

    def seconds(self, input_tokens: int, output_tokens: int, calls: int = 0) -> float:
        return calls * self.s_per_call + input_tokens * self.s_per_input_token + output_tokens * self.s_per_output_token


def hours(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "an unknown time"
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def role_model(settings: Settings, role: str | None) -> tuple[str, str | None]:
    """(provider:model, base_url) a base role would use, from settings alone."""
    o = settings.llm.roles.get(role) if role else None
    model = (o.model if o and o.model else None) or settings.llm.model or ""
    base = (o.base_url if o and o.base_url else None) or settings.llm.base_url
    return model, base


def is_local(model: str, base_url: str | None) -> bool:
    if model.startswith("local:"):
        return True
    host = urlparse(base_url).hostname if base_url else None
    return host is not None and (host in LOOPBACK or host.startswith("127."))


def _record_path(settings: Settings) -> Path:
    return Path(settings.cache_dir) / "llm-speed.json"


def recorded(settings: Settings, model: str) -> Speed | None:
    try:
        data = json.loads(_record_path(settings).read_text(encoding="utf-8"))
        row = data[model]
        load = row.get("load_per_core")
        how = f", load {load:.2f} per core" if isinstance(load, int | float) else ", load not recorded"
        return Speed(**{**row, "source": f"recorded {row['measured_at']}{how}"})
    except (OSError, KeyError, TypeError, ValueError):
        return None


def _record(settings: Settings, sp: Speed) -> None:
    p = _record_path(settings)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    row = asdict(sp)
    row.pop("source", None)
    data[sp.model] = row
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=1), encoding="utf-8")


def load_per_core() -> float:
    """The 1-minute load average per CPU core (0 where the platform has none)."""
    try:
        return float(os.getloadavg()[0]) / max(1, os.cpu_count() or 1)
    except (OSError, AttributeError):
        return 0.0


def usable(sp: Speed | None) -> Speed | None:
    """A recorded timing to reuse: only one taken on an idle machine (a busy one is timed again)."""
    return sp if sp is not None and sp.idle else None


def measure(settings: Settings, role: str | None = "judge") -> Speed:
    """Two timed completions on the role's model (uncached; the nonce keeps any cache from answering)."""


    model, _ = role_model(settings, role)
    client = PlatformLLMClient(settings)
    nonce = f"{time.time_ns()}"
    words = " ".join(f"w{k % 97}" for k in range(PROMPT_WORDS))
    key = f"eval.speed.{role}" if role else "eval.speed"

    async def timed(text: str, max_tokens: int) -> tuple[float, int, int]:
        before = client.usage.to_dict().get(key, {})
        t0 = time.perf_counter()
        await client.chat(key, text, cache=False, max_tokens=max_tokens)
        dt = time.perf_counter() - t0
        after = client.usage.to_dict().get(key, {})
        return (dt, int(after.get("input_tokens", 0)) - int(before.get("input_tokens", 0)),
                int(after.get("output_tokens", 0)) - int(before.get("output_tokens", 0)))

    async def three() -> list[tuple[float, int, int]]:
        await timed(f"[{nonce}] Reply OK.", 1)  # untimed warm-up: a server that starts or loads on first use
        return [await timed(f"[{nonce}] Reply with the single word OK.\n\n{words}", 1),  # long prompt, 1 token
                await timed(f"[{nonce}] Reply with the single word OK.", 1),  # short prompt, 1 token
                await timed(f"[{nonce}] Count from one upwards in words, separated by spaces.", REPLY_TOKENS)]

    # differences of like calls, so the fixed cost of a request cancels out of both token speeds
    load_before = load_per_core()
    (ta, ia, _), (tb, ib, ob), (tc, ic, oc) = asyncio.run(three())
    load = max(load_before, load_per_core())
    s_in = max(0.0, ta - tb) / max(1, ia - ib)
    s_out = max(0.0, tc - tb - (ic - ib) * s_in) / max(1, oc - ob)
    sp = Speed(model, s_in, s_out, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               source=f"measured now, load {load:.2f} per core" + ("" if load <= BUSY_LOAD else
                                                                    " (busy: slower than idle, not reused)"),
               s_per_call=max(0.0, tb - ib * s_in - ob * s_out), load_per_core=round(load, 3))
    _record(settings, sp)
    return sp


def time_lines(settings: Settings, est: Any, speeds: dict[str, Speed]) -> tuple[float, list[str]]:
    """Seconds for every line of the cost estimate (calls in sequence), and how each part was estimated."""
    total = 0.0
    basis: list[str] = []
    hosted_in = hosted_out = 0
    for ln in est.lines:
        sp = next((s for m, s in speeds.items() if m.split(":", 1)[-1] == ln.model or m == ln.model), None)
        if sp is not None:
            total += sp.seconds(ln.input_tokens, ln.output_tokens, ln.calls)
        else:
            hosted_in += ln.input_tokens
            hosted_out += ln.output_tokens
    for m, sp in speeds.items():
        basis.append(f"{m}: local, {1 / sp.s_per_input_token if sp.s_per_input_token else float('inf'):.0f} "
                     f"prompt tokens/s and {1 / sp.s_per_output_token if sp.s_per_output_token else float('inf'):.1f} "
                     f"reply tokens/s, {sp.s_per_call:.2f} s per call ({sp.source}); its calls run one after another; "
                     "an upper bound: the timing defeats the server's reuse of a shared prompt prefix (the judges' "
                     "system prompts), and real ideas may be shorter than the assumed size")
    if hosted_in or hosted_out:
        total += hosted_in / HOSTED_INPUT_TPS + hosted_out / HOSTED_OUTPUT_TPS
        basis.append(f"hosted models: not measured; basis {HOSTED_INPUT_TPS:.0f} prompt tokens/s and "
                     f"{HOSTED_OUTPUT_TPS:.0f} reply tokens/s for one request stream, calls in sequence (an upper "
                     f"bound: up to MOTIVGRAPH_LLM_CONCURRENCY={settings.llm.concurrency} run at once, rate "
                     "limits allowing)")
    return total, basis


def local_models(settings: Settings, roles: list[str | None]) -> list[tuple[str, str | None]]:
    """The distinct local models behind `roles` (provider:model, the role to time it with)."""
    out: dict[str, str | None] = {}
    for r in roles:
        model, base = role_model(settings, r)
        if model and is_local(model, base) and model not in out:
            out[model] = r
    return list(out.items())
