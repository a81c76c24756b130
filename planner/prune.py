"""Send the solver only options that can carry share in some optimal plan.

An eligible option b of workload w is dropped when its share can always be moved to other
options of w without raising the cost or breaking any constraint. The dominating options
must be *free*: their offering has no capacity limit (so moving load onto them cannot break a
tokens- or requests-per-minute row). Then, per workload:

* No vendor spend caps in the portfolio (case A). b is dominated by a free option a with
  cost_a <= cost_b, capability_a >= capability_b (only when w has mean_min), a within budget
  whenever b is (only when w has within_budget_share < 1), and, when w has max_vendor_share,
  the same vendor; when cost_a = cost_b, a must also be no slower than b (then catalog order),
  so the latency tie-break never needs b. Moving b's share to a lowers spend (budget rows
  hold), keeps every other workload's rows, and does not add an option (max_options holds).
* Vendor spend caps present (case B). A cheaper substitute lowers total spend and can break
  another vendor's cap, so the cost of the replaced share must stay the same: b is dropped
  when two free options of the same vendor, each no slower than b (so within budget whenever b
  is), bracket its cost (cost_a1 <= cost_b <= cost_a2); b's share splits between them at the
  same spend per vendor, and the split is no slower.
  Workloads with mean_min or max_options are not pruned in this case.

Dominance here is a strict partial order, so every dropped option keeps a dominator.
"""

from __future__ import annotations

import numpy as np

from .model import vendor_caps
from .pairs import Pairs
from .schema import Catalog, WorkloadSet


def free_options(catalog: Catalog, pairs: Pairs) -> np.ndarray:
    limited = np.array([bool(o.capacity and (o.capacity.tokens_per_minute or o.capacity.requests_per_minute))
                        for o in catalog.offerings], dtype=bool)
    return ~limited[pairs.options.offering_index]


def candidates(ws: WorkloadSet, catalog: Catalog, pairs: Pairs) -> np.ndarray:
    """W x O bool: the eligible pairs that may carry share in an optimal plan (vectorised over all pairs)."""
    keep = pairs.eligible.copy()
    free = free_options(catalog, pairs)
    present = sorted(set(pairs.options.vendor))
    capped = any(s < 1 for s in vendor_caps(ws, present).values())
    _, vendor_code = np.unique(np.array(pairs.options.vendor, dtype=object), return_inverse=True)
    wa = pairs.workloads
    w_idx, o_idx = np.nonzero(pairs.eligible)
    if len(w_idx) == 0:
        return keep
    use_within = (wa.within_budget_share < 1) & ~np.isnan(wa.budget_s)
    within = np.where(use_within[w_idx], pairs.within_budget[w_idx, o_idx], True)
    cost = pairs.cost_per_task[w_idx, o_idx]
    is_free = free[o_idx]
    if capped:
        prunable = np.isnan(wa.cap_mean_min) & (wa.max_options == 0)
        sel = prunable[w_idx]
        group = w_idx.astype(np.int64) * (int(vendor_code.max()) + 1) + vendor_code[o_idx]
        # dominators no slower than b: they are within budget whenever b is, and the split is no slower
        drop = _bracketed_sequential(cost, -pairs.latency_s[w_idx, o_idx], is_free, group) & sel
    else:
        has_mean = ~np.isnan(wa.cap_mean_min)
        cap = np.where(has_mean[w_idx], pairs.capability[w_idx, o_idx], 0.0)
        by_vendor = ~np.isnan(wa.max_vendor_share) & (wa.max_vendor_share < 1)
        group = w_idx.astype(np.int64) * (int(vendor_code.max()) + 1) + np.where(by_vendor[w_idx], vendor_code[o_idx], 0)
        drop = _dominated(cost, cap, pairs.latency_s[w_idx, o_idx], o_idx, within, is_free, group)
    keep[w_idx[drop], o_idx[drop]] = False
    return keep


def _dominated(cost, cap, lat, idx, within, free, group) -> np.ndarray:
    """Case A: sort by (group, cost, latency, -capability, index); b is dominated when a free option
    earlier in its group (within budget, if b is) has capability >= b's. An earlier option is
    cheaper (then b is in no optimal plan) or as cheap and no slower (then the latency tie-break
    never prefers b)."""
    order = np.lexsort((idx, -cap, lat, cost, group))
    g, c = group[order], cap[order]
    _, g_rank = np.unique(g, return_inverse=True)
    first = np.r_[True, g[1:] != g[:-1]]
    drop_sorted = np.zeros(len(order), dtype=bool)
    span = 1000.0  # capabilities lie in 0..100: one band per group keeps prefix maxima inside the group
    for dom_mask, applies in ((free[order] & within[order], within[order]), (free[order], ~within[order])):
        banded = g_rank * span + np.where(dom_mask, c, -span / 2)
        run = np.maximum.accumulate(banded)
        before = np.r_[-np.inf, run[:-1]]
        before[first] = -np.inf
        drop_sorted |= applies & (before - g_rank * span >= c)
    drop = np.zeros(len(order), dtype=bool)
    drop[order] = drop_sorted
    return drop


def sweep_candidates(ws: WorkloadSet, catalog: Catalog, pairs: Pairs, targets: np.ndarray,
                     extra: np.ndarray) -> np.ndarray:
    """Candidates that stay valid while a sweep switches options of the target workloads on and off.

    A sweep keeps an option of a target workload when its `extra` score (W x O; -latency for a
    budget sweep, capability for a floor sweep) reaches the sweep's threshold, so a dominator
    must score at least as well on `extra` as the option it replaces: then it is on whenever
    that option is. Targets with within_budget_share < 1, mean_min or max_options are not pruned.
    """
    keep = candidates(ws, catalog, pairs)
    wa = pairs.workloads
    simple = targets & (wa.within_budget_share >= 1) & np.isnan(wa.cap_mean_min) & (wa.max_options == 0)
    keep[targets] = pairs.eligible[targets]
    if not simple.any():
        return keep
    free = free_options(catalog, pairs)
    present = sorted(set(pairs.options.vendor))
    capped = any(s < 1 for s in vendor_caps(ws, present).values())
    _, vendor_code = np.unique(np.array(pairs.options.vendor, dtype=object), return_inverse=True)
    w_idx, o_idx = np.nonzero(pairs.eligible & simple[:, None])
    if len(w_idx) == 0:
        return keep
    cost = pairs.cost_per_task[w_idx, o_idx]
    score = extra[w_idx, o_idx]
    is_free = free[o_idx]
    n_v = int(vendor_code.max()) + 1
    if capped:
        group = w_idx.astype(np.int64) * n_v + vendor_code[o_idx]
        drop = _bracketed_sequential(cost, score, is_free, group)
    else:
        by_vendor = ~np.isnan(wa.max_vendor_share) & (wa.max_vendor_share < 1)
        group = w_idx.astype(np.int64) * n_v + np.where(by_vendor[w_idx], vendor_code[o_idx], 0)
        rank = np.unique(score, return_inverse=True)[1].astype(float)  # any order-preserving scale works
        drop = _dominated(cost, rank, pairs.latency_s[w_idx, o_idx], o_idx, np.ones(len(cost), dtype=bool),
                          is_free, group)
    keep[w_idx[drop], o_idx[drop]] = False
    return keep


def _bracketed_sequential(cost, score, free, group) -> np.ndarray:
    """Case B (score: -latency) and its sweep variant: in the order (group, -score, catalog order),
    b is dropped when free options earlier in its group (so scoring at least as well) bracket its
    cost. Every dropped option's share splits between earlier ones at the same spend per vendor;
    the first two are never dropped."""
    # the order (group, -score, catalog order): pairs come in (workload, option) order, so two stable
    # sorts give it
    order = np.argsort(-score, kind="stable")
    order = order[np.argsort(group[order], kind="stable")]
    g, c, f = group[order], cost[order], free[order]
    _, g_rank = np.unique(g, return_inverse=True)
    first = np.r_[True, g[1:] != g[:-1]]
    span = float(np.max(np.abs(c))) * 4 + 1.0  # banding keeps running extremes inside each group
    lo_run = np.minimum.accumulate(np.where(f, c, span / 2) - g_rank * span)
    hi_run = np.maximum.accumulate(np.where(f, c, -span / 2) + g_rank * span)
    count_run = np.cumsum(f)
    start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
    before_count = count_run - f - np.r_[0, count_run][start]
    lo_before = np.r_[np.inf, lo_run[:-1] + g_rank[1:] * span]
    hi_before = np.r_[-np.inf, hi_run[:-1] - g_rank[1:] * span]
    lo_before[first] = np.inf
    hi_before[first] = -np.inf
    drop_sorted = (before_count >= 2) & (c >= lo_before) & (c <= hi_before)
    drop = np.zeros(len(order), dtype=bool)
    drop[order] = drop_sorted
    return drop
