"""Entry point of the local model server: llama-cpp-python's OpenAI-compatible server
(`python -m motivgraph.llm.llama_server <llama_cpp.server options>`), with grammar-constrained
sampling done the way llama.cpp's own sampler (common/sampling.cpp) does it.

llama-cpp-python (0.3.x) puts the grammar sampler into the chain before top-k, so every generated
token checks all ~49k vocabulary entries against the grammar: measured here (SmolLM2-135M, one
thread) 22-29 ms per token for the grammar against ~40 ms for the model itself, more than half of
a constrained reply's cost. llama.cpp samples first and asks the grammar about that one token; only
when the grammar rejects it are all candidates filtered and the token drawn again. The result is
the same distribution over grammar-valid tokens (a rejected token is redrawn from the filtered
candidates), at a fraction of the cost: most tokens of a JSON reply the model already writes
correctly.

Only the sampler changes, and only for requests with a grammar; everything else is the upstream
server. If the installed llama-cpp-python lacks what this needs, the upstream sampler is kept (a
warning in the server log), never a failed start.
"""

from __future__ import annotations

import ctypes
import logging
import math
import sys
from typing import Any

import numpy as np

log = logging.getLogger(__name__)


class GrammarChecked:
    """A sampler (duck-typed like llama_cpp._internals.LlamaSampler: `sample(ctx, idx)`, `close()`)
    that draws from `chain` and applies `grammar` only when the drawn token breaks it."""

    def __init__(self, llama: Any, chain: Any, grammar: Any) -> None:
        from llama_cpp import llama_cpp as C  # local: optional extra

        self._C = C
        self.chain = chain
        self.grammar = C.llama_sampler_init_grammar(
            llama._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        if not self.grammar:
            raise ValueError("llama.cpp could not build the grammar")
        self.n_vocab = int(llama.n_vocab())
        self._buf = (C.llama_token_data * self.n_vocab)()
        dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
        self._view = np.frombuffer(memoryview(self._buf).cast("B"), dtype=dtype)
        self._ids = np.arange(self.n_vocab, dtype=np.intc)
        self._one = (C.llama_token_data * 1)()
        self.checks = 0
        self.rejections = 0

    def _candidates(self, logits: Any) -> Any:
        self._view["id"] = self._ids
        self._view["logit"] = logits
        self._view["p"] = 0.0
        ptr = ctypes.cast(self._buf, ctypes.POINTER(self._C.llama_token_data))
        return self._C.llama_token_data_array(data=ptr, size=self.n_vocab, selected=-1, sorted=False)

    def _draw(self, cur: Any) -> int:
        self._C.llama_sampler_apply(self.chain.sampler, ctypes.byref(cur))
        return int(cur.data[cur.selected].id)

    def sample(self, ctx: Any, idx: int = -1) -> int:
        C = self._C
        logits = np.ctypeslib.as_array(C.llama_get_logits_ith(ctx.ctx, idx), shape=(self.n_vocab,))
        token = self._draw(self._candidates(logits))
        self.checks += 1
        self._one[0] = C.llama_token_data(token, 1.0, 0.0)
        one = C.llama_token_data_array(data=ctypes.cast(self._one, ctypes.POINTER(C.llama_token_data)), size=1,
                                       selected=-1, sorted=False)
        C.llama_sampler_apply(self.grammar, ctypes.byref(one))
        if math.isinf(self._one[0].logit):  # the grammar rejects it: filter every candidate, draw again
            self.rejections += 1
            cur = self._candidates(logits)
            C.llama_sampler_apply(self.grammar, ctypes.byref(cur))
            token = self._draw(cur)
        C.llama_sampler_accept(self.grammar, token)
        C.llama_sampler_accept(self.chain.sampler, token)
        return token

    def close(self) -> None:
        if self.grammar:
            self._C.llama_sampler_free(self.grammar)
            self.grammar = None
        self.chain.close()

    def __del__(self) -> None:
        self.close()


def patch_sampler() -> bool:
    """Make llama_cpp.Llama sample grammar requests with GrammarChecked; False when not possible."""
    try:
        from llama_cpp import llama as L  # local: optional extra
        from llama_cpp import llama_cpp as C  # local: optional extra

        needed = ("llama_sampler_init_grammar", "llama_sampler_apply", "llama_sampler_accept", "llama_get_logits_ith")
        if not all(hasattr(C, n) for n in needed) or not hasattr(L.Llama, "_init_sampler"):
            raise AttributeError("sampler API not found")
    except (ImportError, AttributeError) as e:
        log.warning("grammar sampling left as llama-cpp-python does it: %s", e)
        return False
    original: Any = L.Llama._init_sampler
    if getattr(original, "motivgraph_patched", False):
        return True

    def _init_sampler(self: Any, *args: Any, grammar: Any = None, **kwargs: Any) -> Any:
        chain = original(self, *args, grammar=None, **kwargs)
        if grammar is None or kwargs.get("logits_processor") is not None:
            if grammar is not None:  # a custom processor: keep upstream's order (it must see the grammar's work)
                chain.close()
                return original(self, *args, grammar=grammar, **kwargs)
            return chain
        return GrammarChecked(self, chain, grammar)

    _init_sampler.motivgraph_patched = True  # type: ignore[attr-defined]
    setattr(L.Llama, "_init_sampler", _init_sampler)  # noqa: B010  (mypy: no assigning to a method)
    return True


def main() -> None:
    patch_sampler()
    sys.argv[0] = "llama_cpp.server"
    from llama_cpp.server.__main__ import main as server_main  # local: optional extra

    server_main()


if __name__ == "__main__":
    main()
