"""From gathered evidence to the report's numbers, with the pure metric functions only."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from motivgraph.agents.evaluation.collect import TopicEvidence
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.generate import Delivery
from motivgraph.agents.evaluation.judges import PAIR_DIMENSIONS
from motivgraph.agents.evaluation.metrics.agreement import OrderPair, cohen_kappa, order_consistency
from motivgraph.agents.evaluation.metrics.cost import Cost, from_usage
from motivgraph.agents.evaluation.metrics.creative_utility import (
    creative_utility,
    field_distance_matrix,
    length_controlled,
)
from motivgraph.agents.evaluation.metrics.elo import bootstrap_leagues, bootstrap_method_elo, elo_ratings
from motivgraph.agents.evaluation.metrics.grounding import Fidelity
from motivgraph.agents.evaluation.metrics.reference import DIMENSIONS, moscores, strict_win_rate, win_rates
from motivgraph.agents.evaluation.metrics.stats import Estimate, mean, mean_ci
from motivgraph.agents.evaluation.metrics.yield_ import Gates, topics_with_yield, yield_, yield_surface
from motivgraph.agents.evaluation.report import EvalResults

SURFACE_GRID = tuple(range(0, 10))


def _avg(xs: Sequence[float]) -> float:
    return mean([float(x) for x in xs])


def _gates(ev: TopicEvidence, idea_id: str) -> Gates | None:
    gs = [g for g in ev.gates.get(idea_id) or [] if g is not None]
    if not gs:
        return None
    return Gates(_avg([g.non_obviousness for g in gs]), _avg([g.soundness for g in gs]), _avg([g.clarity for g in gs]))


def _fidelity(rec: Any) -> Fidelity:
    g = rec.grounding
    return Fidelity(len(g.links), g.links_resolved, len(g.citations), g.citations_resolved)


def aggregate(config: EvalConfig, evidence: list[TopicEvidence], deliveries: list[Delivery],
              judge_usage: dict[str, dict[str, Any]], judge_names: list[str], meta: dict[str, Any],
              notes: list[str]) -> EvalResults:
    methods = list(config.methods)
    seed = config.seed
    ideas: list[dict[str, Any]] = []
    topics: list[dict[str, Any]] = []
    per_idea: dict[str, dict[str, list[float]]] = {m: {} for m in methods}
    per_topic: dict[str, dict[str, list[float]]] = {m: {} for m in methods}
    surfaces: dict[str, list[list[list[int]]]] = {m: [] for m in methods}
    yields: dict[str, list[int]] = {m: [] for m in methods}
    group_of: dict[str, str] = {}
    leagues: dict[str, list[tuple[list[str], list[Any]]]] = {d: [] for d in PAIR_DIMENSIONS}

    def add(store: dict[str, dict[str, list[float]]], m: str, k: str, v: float | None) -> None:
        if v is not None and not (isinstance(v, float) and math.isnan(v)):
            store[m].setdefault(k, []).append(float(v))

    cu_q = impact_quality(evidence) if config.on("cu") and config.cu_quality == "impact" else {}
    for ev in evidence:
        ratings: dict[str, dict[str, float]] = {}
        for dim, (players, matches) in ev.leagues.items():
            leagues[dim].append((players, matches))
            ratings[dim] = elo_ratings(players, matches, k=config.elo_k, start=config.elo_start)
        for it in ev.items:
            group_of[it.idea_id] = it.method
            row: dict[str, Any] = {"idea_id": it.idea_id, "method": it.method, "topic_id": it.topic_id,
                                   "title": it.record.title, "run_id": it.record.provenance.run_id}
            sc = [s for s in ev.scores.get(it.idea_id) or [] if s is not None]
            for d in ("novelty", "experiment", "motivation"):
                row[f"score_{d}"] = _avg([getattr(s, d) for s in sc]) if sc else None
            if ratings:
                for d in PAIR_DIMENSIONS:
                    row[f"elo_{d}"] = ratings[d].get(it.idea_id) if d in ratings else None
                row["elo_overall"] = _avg([row[f"elo_{d}"] for d in PAIR_DIMENSIONS if row.get(f"elo_{d}") is not None])
            votes = ev.votes.get(it.idea_id) or []
            if votes and config.on("reference"):
                wr = win_rates(votes)
                row |= {f"wr_{d}": wr[d] for d in DIMENSIONS}
                row |= moscores(wr, config.w_pd, config.w_ps)
            if config.cu_quality == "impact":
                if it.idea_id in cu_q:
                    row["cu_quality"] = cu_q[it.idea_id]
            elif votes:
                row["cu_quality"] = strict_win_rate(votes)
            row |= ev.novelty.get(it.idea_id, {})
            g = _gates(ev, it.idea_id)
            if g is not None:
                row |= {"gate_non_obviousness": g.non_obviousness, "gate_soundness": g.soundness,
                        "gate_clarity": g.clarity,
                        "gate_pass": float(g.passes(config.gate_k, config.gate_l, config.gate_m))}
            if config.on("grounding"):
                f = _fidelity(it.record)
                row |= {"grounding_links": f.link_share, "grounding_citations": f.citation_share,
                        "kg_links": f.links, "citations": f.citations}
            ideas.append(row)
            for k in ("score_novelty", "score_experiment", "score_motivation", "novelty", "novelty_motivation",
                      "novelty_method", "gate_non_obviousness", "gate_soundness", "gate_clarity", "cu_quality",
                      "grounding_links", "grounding_citations", "moscore_pd", "moscore_ps",
                      *[f"wr_{d}" for d in DIMENSIONS]):
                add(per_idea, it.method, k, row.get(k))
            add(per_idea, it.method, "gate_pass_rate", row.get("gate_pass"))
        for m, its in ev.by_method().items():
            ids = [i.idea_id for i in its]
            trow: dict[str, Any] = {"topic_id": ev.topic.topic_id, "method": m, "n_ideas": len(ids)}
            trow |= ev.diversity.get(m, {})
            q = [r for r in ideas if r["topic_id"] == ev.topic.topic_id and r["method"] == m]
            qual = [_avg([r[f"score_{d}"] for d in ("novelty", "experiment", "motivation")])
                    for r in q if r.get("score_novelty") is not None]
            trow["quality"] = _avg(qual) if qual else None
            gates = {i: g for i in ids if (g := _gates(ev, i)) is not None}
            div = {p: _avg(v) for p, v in ev.pair_div.items() if p <= set(ids)}
            if div:
                trow["pair_diversity"] = _avg(list(div.values()))
            all_pairs = len(div) == len(ids) * (len(ids) - 1) // 2  # a missing judgment is not "not diverse"
            if config.on("yield") and len(gates) == len(ids) and all_pairs:
                y = yield_(ids, gates, div, k=config.gate_k, l=config.gate_l, m=config.gate_m, tau=config.tau)
                trow["yield"] = y
                yields[m].append(y)
                if config.gate_k_alt is not None:
                    trow["yield_nb_alt"] = yield_(ids, gates, div, k=config.gate_k_alt, l=config.gate_l,
                                                  m=config.gate_m, tau=config.tau)
                surfaces[m].append(yield_surface(ids, gates, div, ks=SURFACE_GRID, ls=SURFACE_GRID,
                                                 m=config.surface_m, tau=config.tau))
            if config.on("cu") and all(r.get("cu_quality") is not None for r in q) and q:
                qv = [float(r["cu_quality"]) for r in q]
                if config.cu_distance == "fields":
                    dm = field_distance_matrix(len(ids), {(a, b): ev.cu_fields[frozenset((ids[a], ids[b]))]
                                                          for a in range(len(ids)) for b in range(a + 1, len(ids))
                                                          if frozenset((ids[a], ids[b])) in ev.cu_fields})
                elif config.cu_distance == "embedding" and m in ev.emb_distance:
                    # 1 - cosine lies in [0, 2]; CU's distance is in [0, 1] (opposed ideas are simply distinct)
                    dm = [[min(1.0, max(0.0, float(x))) for x in r] for r in ev.emb_distance[m].tolist()]
                else:
                    dm = [[0.0 if a == b else (_avg(ev.pair_div[frozenset((a, b))]) / 9.0
                                               if frozenset((a, b)) in ev.pair_div else math.nan)
                           for b in ids] for a in ids]
                if not any(math.isnan(x) for r in dm for x in r):
                    trow["creative_utility"] = creative_utility(qv, dm, gamma=config.cu_gamma)
                    off = [dm[i][j] for i in range(len(ids)) for j in range(len(ids)) if i < j]
                    trow["cu_distance"] = _avg(off) if off else None
            topics.append(trow)
            for k in ("diversity", "diversity_motivation", "diversity_method", "pair_diversity", "yield",
                      "yield_nb_alt",
                      "creative_utility", "cu_distance"):
                add(per_topic, m, k, trow.get(k))

    est: dict[str, dict[str, Estimate]] = {m: {} for m in methods}
    for m in methods:
        for k, vals in per_idea[m].items():
            est[m][k] = mean_ci(vals, n_boot=config.n_boot, seed=seed)
        for k, vals in per_topic[m].items():
            est[m][k] = mean_ci(vals, n_boot=config.n_boot, seed=seed)
    if any(ls for ls in leagues.values()):
        elo = bootstrap_leagues({d: ls for d, ls in leagues.items() if ls}, group_of, k=config.elo_k,
                                start=config.elo_start, n_boot=max(10, config.n_boot // 2), seed=seed)
        for d, per in elo.items():
            for m, e in per.items():
                est[m][f"elo_{d}"] = e
        # SoIQ's own figure: the methods are the players (elo_method_*); elo_* above averages idea ratings
        method_elo = bootstrap_method_elo({d: ls for d, ls in leagues.items() if ls}, group_of, k=config.elo_k,
                                          start=config.elo_start, n_boot=max(10, config.n_boot // 2), seed=seed)
        for d, per in method_elo.items():
            for m, e in per.items():
                if m in est:
                    est[m][f"elo_method_{d}"] = e
        # matches played (every dimension), per method: what the ELO intervals are resampled from
        for m in methods:
            n_m = sum(1 for ls in leagues.values() for _, ms in ls for x in ms
                      if group_of.get(x.a) == m or group_of.get(x.b) == m)
            est[m]["elo_matches"] = Estimate(n_m, n_m, n_m, n_m)
        meta["elo_matches"] = {d: sum(len(ms) for _, ms in ls) for d, ls in leagues.items()}
    # delivery, shortfalls and cost
    shortfalls, cost_rows = [], []
    n_ideas_total = sum(len(d.ideas) for d in deliveries) or 1
    for m in methods:
        ds = [d for d in deliveries if d.method == m]
        n = sum(len(d.ideas) for d in ds)
        est[m]["n_ideas"] = Estimate(n, n, n, len(ds))
        est[m]["n_topics"] = Estimate(len(ds), len(ds), len(ds), len(ds))
        short = sum(max(0, config.n_ideas - len(d.ideas)) for d in ds)
        est[m]["shortfall"] = Estimate(short, short, short, len(ds))
        for dv in ds:
            if len(dv.ideas) < config.n_ideas:
                shortfalls.append({"method": m, "topic_id": dv.topic_id, "requested": config.n_ideas,
                                   "delivered": len(dv.ideas), "reason": dv.reason})
        gen = Cost()
        for dv in ds:
            gen.add(from_usage(dv.usage))
        cost_rows.append({"method": m, "scope": "generation", **gen.as_dict(),
                          "cost_usd_per_idea": gen.cost_usd / n if n else None})
        total = gen.cost_usd
        share = n / n_ideas_total  # judging cost apportioned by each method's share of the judged ideas
        for role, row in sorted(judge_usage.items()):
            c = from_usage({role: row})
            part = Cost(round(c.calls * share), round(c.input_tokens * share), round(c.output_tokens * share),
                        c.cost_usd * share)
            cost_rows.append({"method": m, "scope": role, **part.as_dict(),
                              "cost_usd_per_idea": part.cost_usd / n if n else None})
            total += part.cost_usd
        est[m]["cost_usd"] = Estimate(total, total, total, n)
    rejections = rejection_rows(methods, deliveries)
    yield_counts = [{"method": m, "topics": len(yields[m]), **{f"yield_ge_{t}": c for t, c in
                                                               topics_with_yield(yields[m]).items()}}
                    for m in methods if yields[m]]
    surf = {}
    for m in methods:
        if surfaces[m]:
            grid = [[round(_avg([s[i][j] for s in surfaces[m]]), 4) for j in range(len(SURFACE_GRID))]
                    for i in range(len(SURFACE_GRID))]
            surf[m] = {"ks": list(SURFACE_GRID), "ls": list(SURFACE_GRID), "grid": grid, "m": config.surface_m,
                       "tau": config.tau}
    order = order_consistency(order_pairs(evidence), bias_share=config.order_bias_share,
                              bias_min=config.order_bias_min)
    for r in order:
        if r["order_biased"]:
            side = "first" if r["slot_a_share"] >= 0.5 else "second"
            notes.append(f"WARNING order bias: judge {r['judge']} named the {side}-shown idea in "
                         f"{max(r['slot_a_share'], 1 - r['slot_a_share']):.0%} of {r['decisive']} decisive "
                         f"{r['kind']} verdicts on {r['dimension']}; {r['flipped']} of {r['pairs']} pairs flipped "
                         "with the order and count as ties (no signal), so its numbers there do not compare methods")
    return EvalResults(meta=meta, methods=methods, ideas=ideas, topics=topics, estimates=est, surfaces=surf,
                       yield_counts=yield_counts, cost=cost_rows, kappa=kappa_rows(evidence, judge_names),
                       shortfalls=shortfalls, notes=notes, order=order, replies=list(meta.get("replies") or []),
                       protocol=protocol_played(meta), rejections=rejections)


def rejection_rows(methods: list[str], deliveries: list[Delivery]) -> list[dict[str, Any]]:
    """Per method: ideas rejected (by the method or the shared validity gate) and how often each reason came up
    -- what the shortfall is made of. A method with none gets a row with 0, so "none rejected" is said."""
    rows = []
    for m in methods:
        rej = [r for d in deliveries if d.method == m for r in d.rejected]
        counts: dict[str, int] = {}
        for r in rej:
            # the reason's first clause ("title only echoes template labels ('IdeaText')") names the kind
            key = str(r.get("reason") or "").removeprefix("invalid_idea: ").split("; ")[0][:120]
            counts[key] = counts.get(key, 0) + 1
        top = "; ".join(f"{k} (x{v})" if v > 1 else k for k, v in sorted(counts.items(), key=lambda kv: -kv[1])[:5])
        rows.append({"method": m, "rejected": len(rej), "accepted": sum(len(d.ideas) for d in deliveries
                                                                         if d.method == m),
                     "reasons": top or "none rejected"})
    return rows


def protocol_played(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The protocol as decided, plus what was played: the ELO matches per dimension (what its bootstrap
    intervals resample)."""
    rows = list(meta.get("protocol") or [])
    played = meta.get("elo_matches")
    if played:
        rows.append({"item": "ELO matches played", "value": ", ".join(f"{d} {n}" for d, n in played.items())
                     + " (each judged by every panel judge in both orders; intervals resample these matches)"})
    return rows


_SLOT = {1.0: "A", 0.0: "B", 0.5: "tie"}


def order_pairs(evidence: list[TopicEvidence]) -> list[OrderPair]:
    """Every question a judge answered in both orders, as the slots it named (agreement.OrderPair)."""
    out: list[OrderPair] = []
    for ev in evidence:
        for dim, log in ev.pair_votes.items():  # ELO matches: scores of the first-shown idea per order
            out += [OrderPair("pairwise", dim, j, _SLOT[ab], _SLOT[ba]) for j, ab, ba in log]
        for votes in ev.votes.values():  # reference comparisons: the idea's verdict per order
            cells: dict[tuple[str, str, str], dict[bool, str]] = {}
            for v in votes:
                slot = "tie" if v.winner == "tie" else ("A" if (v.winner == "idea") == v.idea_first else "B")
                cells.setdefault((v.judge, v.reference, v.dimension), {})[v.idea_first] = slot
            out += [OrderPair("reference", d, j, c[True], c[False]) for (j, _, d), c in cells.items()
                    if True in c and False in c]
        for j, ab, ba in ev.div_relations:  # diversity: one relation per axis, the same in both orders
            out += [OrderPair("diversity", axis, j, ab[axis], ba[axis], slotted=False) for axis in ab if axis in ba]
    return out


def impact_quality(evidence: list[TopicEvidence]) -> dict[str, float]:
    """CU quality, the set-level paper's: every strict-win outcome (idea vs gold, a judge, both orders) of
    the whole pool length-controlled by one regression (metrics/creative_utility.length_controlled),
    then averaged per idea."""
    who: list[str] = []
    wins: list[float] = []
    idea_len: list[float] = []
    gold_len: list[float] = []
    for ev in evidence:
        for idea_id, outcomes in ev.cu_impact.items():
            for w, li, lg in outcomes:
                who.append(idea_id)
                wins.append(w)
                idea_len.append(li)
                gold_len.append(lg)
    per: dict[str, list[float]] = {}
    for idea_id, v in zip(who, length_controlled(wins, idea_len, gold_len), strict=True):
        per.setdefault(idea_id, []).append(v)
    return {k: _avg(v) for k, v in per.items()}


def kappa_rows(evidence: list[TopicEvidence], judges: list[str]) -> list[dict[str, Any]]:
    """Cohen's kappa for every pair of panel judges, per dimension (quadratic for scales)."""
    rows: list[dict[str, Any]] = []
    if len(judges) < 2:
        return rows
    for a in range(len(judges)):
        for b in range(a + 1, len(judges)):
            ja, jb = judges[a], judges[b]
            pairs: dict[str, tuple[list[Any], list[Any], str | None]] = {}

            def put(dim: str, x: Any, y: Any, w: str | None,
                    pairs: dict[str, tuple[list[Any], list[Any], str | None]] = pairs) -> None:
                pairs.setdefault(dim, ([], [], w))[0].append(x)
                pairs[dim][1].append(y)

            for ev in evidence:
                for sc in ev.scores.values():
                    if sc[a] is None or sc[b] is None:
                        continue
                    for d in ("novelty", "experiment", "motivation"):
                        put(f"score_{d}", getattr(sc[a], d), getattr(sc[b], d), "quadratic")
                for gs in ev.gates.values():
                    if gs[a] is None or gs[b] is None:
                        continue
                    for d in ("non_obviousness", "soundness", "clarity"):
                        put(f"gate_{d}", getattr(gs[a], d), getattr(gs[b], d), "quadratic")
                for votes in ev.votes.values():
                    cell: dict[tuple[str, str, bool], dict[str, str]] = {}
                    for v in votes:
                        cell.setdefault((v.dimension, v.reference, v.idea_first), {})[v.judge] = v.winner
                    for (d, _, _), by in cell.items():
                        if ja in by and jb in by:
                            put(f"wr_{d}", by[ja], by[jb], None)
                for dim, log in ev.pair_votes.items():
                    by_j: dict[str, list[tuple[float, float]]] = {}
                    for j, x, y in log:
                        by_j.setdefault(j, []).append((x, y))
                    for (x1, y1), (x2, y2) in zip(by_j.get(ja, []), by_j.get(jb, []), strict=False):
                        put(f"pairwise_{dim}", x1, x2, None)
                        put(f"pairwise_{dim}", y1, y2, None)
            for dim, (xa, xb, w) in sorted(pairs.items()):
                rows.append({"dimension": dim, "judge_a": ja, "judge_b": jb, "n": len(xa),
                             "kappa": cohen_kappa(xa, xb, weights=w)})
    return rows
