"""Q_φ(G | topic): a small numpy policy over the supernet's layers, topic-aware and autoregressive.

Layer ℓ's logits come from f_ℓ = [topic embedding ; multi-hot of the operators chosen at each
earlier layer (one block per layer, zeros for layers not reached yet) ; 1]:

    z_ℓ = W_ℓ f_ℓ                      (linear, `hidden=0`)
    z_ℓ = W_ℓ f_ℓ + V_ℓ tanh(U g_ℓ)    (one hidden layer shared by all layers; g_ℓ adds a layer one-hot)

W and V start at zero, so the untrained controller is the uniform prior (1/|O| per operator and
layer) whatever the topic; U starts small and random so the hidden units differ. No LLM is
involved. log Q(G|x) = Σ_ℓ log π_ℓ(O_ℓ | x, O_<ℓ) with the Plackett–Luce prefix rule of supernet.py;
`grad_log_prob` is its exact gradient (backprop by hand), `Adam` the update rule.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from motivgraph.agents.mindflow import supernet
from motivgraph.agents.mindflow.config import FlowConfig
from motivgraph.agents.mindflow.flow import FlowPlan, LayerChoice
from motivgraph.errors import ConfigError
from motivgraph.fsutil import atomic_write

Params = dict[str, np.ndarray]
FORMAT = "mindflow-controller/1"


class Controller:
    def __init__(self, operators: tuple[str, ...] | list[str], embed_dim: int, cfg: FlowConfig | None = None, *,
                 seed: int = 0, embedding_model: str = "") -> None:
        self.cfg = cfg or FlowConfig()
        self.operators = tuple(operators)
        if len(self.operators) < 2:
            raise ConfigError("MindFlow controller: the supernet needs at least two operators")
        self.embed_dim = int(embed_dim)
        self.embedding_model = embedding_model
        self.steps_trained = 0
        # what it was trained with: ideator/embedding model, topics, reward, steps, seed (train.Trainer
        # fills it; empty for the untrained prior). Stored in the file so a controller says what it is.
        self.training: dict[str, Any] = {}
        n, layers = len(self.operators), self.cfg.layers
        self.hist_dim = (layers - 1) * n
        self.f_dim = self.embed_dim + self.hist_dim + 1
        self.params: Params = {"W": np.zeros((layers, n, self.f_dim))}
        if self.cfg.hidden:
            rng = np.random.default_rng(seed)
            g_dim = self.f_dim + layers
            self.params["U"] = rng.normal(0.0, self.cfg.init_scale, (self.cfg.hidden, g_dim))
            self.params["V"] = np.zeros((layers, n, self.cfg.hidden))

    # ------------------------------------------------------------------------------ features
    @property
    def n_ops(self) -> int:
        return len(self.operators)

    def _check_emb(self, emb: np.ndarray) -> np.ndarray:
        e = np.asarray(emb, dtype=np.float64).reshape(-1)
        if e.shape[0] != self.embed_dim:
            raise ConfigError(f"MindFlow controller expects {self.embed_dim}-dim topic embeddings "
                              f"({self.embedding_model or 'its embedding model'}), got {e.shape[0]}")
        return e

    def _features(self, emb: np.ndarray, layer: int, history: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        hist = np.zeros(self.hist_dim)
        for h, chosen in enumerate(history[:layer]):
            for i in chosen:
                hist[h * self.n_ops + i] = 1.0
        f = np.concatenate([emb, hist, [1.0]])
        g = np.concatenate([f, np.eye(self.cfg.layers)[layer]]) if self.cfg.hidden else f
        return f, g

    def _logits(self, emb: np.ndarray, layer: int, history: list[list[int]]) -> tuple[np.ndarray, dict[str, Any]]:
        f, g = self._features(emb, layer, history)
        z = self.params["W"][layer] @ f
        cache: dict[str, Any] = {"f": f}
        if self.cfg.hidden:
            h = np.tanh(self.params["U"] @ g)
            z = z + self.params["V"][layer] @ h
            cache.update(g=g, h=h)
        return z, cache

    # ------------------------------------------------------------------------------ policy
    def layer_probs(self, emb: np.ndarray, layer: int, history: list[list[str]] | list[list[int]]) -> np.ndarray:
        """π_ℓ(· | topic, earlier layers' operators) as an array in operator order."""
        hist = [self._indices(h) for h in history]
        return supernet.softmax(self._logits(self._check_emb(emb), layer, hist)[0])

    def _indices(self, ops: list[str] | list[int] | tuple[Any, ...]) -> list[int]:
        return [int(o) if isinstance(o, int | np.integer) else self.operators.index(str(o)) for o in ops]

    def _plan(self, emb: np.ndarray, rng: np.random.Generator | None) -> FlowPlan:
        e = self._check_emb(emb)
        history: list[list[int]] = []
        layers = []
        for layer in range(self.cfg.layers):
            z, _ = self._logits(e, layer, history)
            probs = supernet.softmax(z)
            if rng is None:
                order = supernet.greedy_layer(z, self.cfg.threshold, self.cfg.max_ops_per_layer)
            else:
                order = supernet.sample_layer(z, self.cfg.threshold, self.cfg.max_ops_per_layer, rng)
            layers.append(LayerChoice(tuple(self.operators[i] for i in order), tuple(float(probs[i]) for i in order),
                                      supernet.layer_log_prob(z, order), tuple(float(p) for p in probs)))
            history.append(order)
        return FlowPlan(tuple(layers), "greedy" if rng is None else "sample", self.operators)

    def sample(self, emb: np.ndarray, rng: np.random.Generator) -> FlowPlan:
        """A flow drawn from Q_φ(· | topic): per layer, Plackett–Luce until the threshold."""
        return self._plan(emb, rng)

    def greedy(self, emb: np.ndarray) -> FlowPlan:
        """The inference flow: per layer, descending probability until the threshold."""
        return self._plan(emb, None)

    def log_prob(self, emb: np.ndarray, plan: FlowPlan) -> float:
        e = self._check_emb(emb)
        history: list[list[int]] = []
        total = 0.0
        for layer, choice in enumerate(plan.layers):
            order = self._indices(choice.ops)
            total += supernet.layer_log_prob(self._logits(e, layer, history)[0], order)
            history.append(order)
        return total

    def grad_log_prob(self, emb: np.ndarray, plan: FlowPlan) -> Params:
        """∇_φ log Q(plan | topic) (exact, by hand)."""
        return self._backprop(emb, plan, entropy=False)

    def grad_entropy(self, emb: np.ndarray, plan: FlowPlan) -> Params:
        """∇_φ Σ_ℓ H(π_ℓ(· | topic, plan's earlier layers)): the optional exploration bonus."""
        return self._backprop(emb, plan, entropy=True)

    def _backprop(self, emb: np.ndarray, plan: FlowPlan, *, entropy: bool) -> Params:
        e = self._check_emb(emb)
        grads = {k: np.zeros_like(v) for k, v in self.params.items()}
        history: list[list[int]] = []
        for layer, choice in enumerate(plan.layers):
            order = self._indices(choice.ops)
            z, cache = self._logits(e, layer, history)
            gz = supernet.entropy_grad(z)[1] if entropy else supernet.layer_log_prob_grad(z, order)
            grads["W"][layer] += np.outer(gz, cache["f"])
            if self.cfg.hidden:
                h = cache["h"]
                grads["V"][layer] += np.outer(gz, h)
                dh = self.params["V"][layer].T @ gz
                grads["U"] += np.outer(dh * (1.0 - h * h), cache["g"])
            history.append(order)
        return grads

    def mean_probs(self, emb: np.ndarray) -> np.ndarray:
        """(L, |O|) layer probabilities along the greedy flow's history (what the log reports)."""
        e = self._check_emb(emb)
        plan = self.greedy(e)
        history: list[list[int]] = []
        rows = []
        for layer, choice in enumerate(plan.layers):
            rows.append(supernet.softmax(self._logits(e, layer, history)[0]))
            history.append(self._indices(choice.ops))
        return np.vstack(rows)

    def apply(self, grads: Params, optimizer: Adam | Sgd) -> None:
        """φ ← φ + step(grads): gradient *ascent* on the objective whose gradient is `grads`."""
        optimizer.ascend(self.params, grads)

    # ------------------------------------------------------------------------------ persistence
    def meta(self) -> dict[str, Any]:
        return {"format": FORMAT, "operators": list(self.operators), "embed_dim": self.embed_dim,
                "embedding_model": self.embedding_model, "flow": self.cfg.model_dump(mode="json"),
                "steps_trained": self.steps_trained, "training": self.training}

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        arrays: dict[str, Any] = dict(self.params)
        np.savez(buf, __meta__=np.frombuffer(json.dumps(self.meta()).encode(), dtype=np.uint8), **arrays)
        return buf.getvalue()

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(p, self.to_bytes())
        return p

    @classmethod
    def load(cls, path: str | Path) -> Controller:
        """A controller file, or a training directory holding controller.npz."""
        p = Path(path).expanduser()
        if p.is_dir():
            p = p / "controller.npz"
        try:
            with np.load(p, allow_pickle=False) as data:
                meta = json.loads(bytes(data["__meta__"]).decode())
                params = {k: np.array(data[k]) for k in data.files if k != "__meta__"}
        except FileNotFoundError as e:
            raise ConfigError(f"MindFlow controller {p} does not exist (train one with `motivgraph method mindflow "
                              "train`, or leave --controller out to use the untrained prior)") from e
        except (OSError, ValueError, KeyError) as e:
            raise ConfigError(f"MindFlow controller {p} is not a controller file: {e}") from e
        if meta.get("format") != FORMAT:
            raise ConfigError(f"MindFlow controller {p}: unknown format {meta.get('format')!r} (expected {FORMAT})")
        ctrl = cls(meta["operators"], meta["embed_dim"], FlowConfig.model_validate(meta["flow"]),
                   embedding_model=meta.get("embedding_model", ""))
        for k, v in params.items():
            if k not in ctrl.params or ctrl.params[k].shape != v.shape:
                raise ConfigError(f"MindFlow controller {p}: parameter {k} has shape {v.shape}, expected "
                                  f"{ctrl.params[k].shape if k in ctrl.params else 'none'}")
            ctrl.params[k] = v.astype(np.float64)
        ctrl.steps_trained = int(meta.get("steps_trained", 0))
        ctrl.training = dict(meta.get("training") or {})
        return ctrl


class Sgd:
    def __init__(self, lr: float) -> None:
        self.lr = lr

    def ascend(self, params: Params, grads: Params) -> None:
        for k, g in grads.items():
            params[k] += self.lr * g

    def state(self) -> Params:
        return {}

    def load_state(self, state: Params) -> None:
        return None


class Adam:
    """Adam on gradient ascent; its moments are checkpointed with the controller."""

    def __init__(self, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8) -> None:
        self.lr, self.b1, self.b2, self.eps = lr, beta1, beta2, eps
        self.t = 0
        self.m: Params = {}
        self.v: Params = {}

    def ascend(self, params: Params, grads: Params) -> None:
        self.t += 1
        for k, g in grads.items():
            m = self.m.setdefault(k, np.zeros_like(g))
            v = self.v.setdefault(k, np.zeros_like(g))
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            mhat = m / (1 - self.b1 ** self.t)
            vhat = v / (1 - self.b2 ** self.t)
            params[k] += self.lr * mhat / (np.sqrt(vhat) + self.eps)

    def state(self) -> Params:
        out = {f"m_{k}": v for k, v in self.m.items()} | {f"v_{k}": v for k, v in self.v.items()}
        out["t"] = np.array([self.t])
        return out

    def load_state(self, state: Params) -> None:
        self.t = int(state["t"][0]) if "t" in state else 0
        self.m = {k[2:]: np.array(v) for k, v in state.items() if k.startswith("m_")}
        self.v = {k[2:]: np.array(v) for k, v in state.items() if k.startswith("v_")}


def make_optimizer(kind: str, lr: float) -> Adam | Sgd:
    return Adam(lr) if kind == "adam" else Sgd(lr)
