"""Send the solver only options that can carry share in some optimal plan.

An eligible option b of workload w is dropped when its share can always be moved to other
options of w without raising the cost or breaking any constraint. The dominating options
must be *free*: their offering has no capacity limit (so moving load onto them cannot break a
tokens- or requests-per-minute row). Then, per workload:

* No vendor spend caps in the portfolio (case A). b is dominated by a free option a with
  cost_a <= cost_b, capability_a >= capability_b (only when w has mean_min), a within budget
  whenever b is (only when w has within_budget_share < 1), and, when w has max_vendor_share,
  the same vendor. Ties are broken by latency, then catalog order, so the kept option is the
  faster one. Moving b's share to a lowers spend (budget rows hold), keeps every other
  workload's rows, and does not add an option (max_options holds).
* Vendor spend caps present (case B). A cheaper substitute lowers total spend and can break
  another vendor's cap, so the cost of the replaced share must stay the same: b is dropped
  when two free options of the same vendor, within budget whenever b is, bracket its cost
  (cost_a1 <= cost_b <= cost_a2); b's share splits between them at the same spend per vendor.
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
    """W x O bool: the eligible pairs that may carry share in an optimal plan."""
    keep = pairs.eligible.copy()
    free = free_options(catalog, pairs)
    vendors = np.array(pairs.options.vendor, dtype=object)
    present = sorted(set(pairs.options.vendor))
    capped = any(s < 1 for s in vendor_caps(ws, present).values())
    _, vendor_code = np.unique(vendors, return_inverse=True)
    wa = pairs.workloads
    order_idx = np.arange(len(vendors))
    for w in range(keep.shape[0]):
        el = np.flatnonzero(keep[w])
        if len(el) <= 1:
            continue
        use_within = wa.within_budget_share[w] < 1 and not np.isnan(wa.budget_s[w])
        within = pairs.within_budget[w, el] if use_within else np.ones(len(el), dtype=bool)
        cost = pairs.cost_per_task[w, el]
        if capped:
            if not np.isnan(wa.cap_mean_min[w]) or wa.max_options[w]:
                continue
            drop = _bracketed(cost, within, free[el], vendor_code[el], el)
        else:
            has_mean = not np.isnan(wa.cap_mean_min[w])
            cap = pairs.capability[w, el] if has_mean else np.zeros(len(el))
            by_vendor = not np.isnan(wa.max_vendor_share[w]) and wa.max_vendor_share[w] < 1
            groups = vendor_code[el] if by_vendor else np.zeros(len(el), dtype=int)
            drop = _dominated(cost, cap, pairs.latency_s[w, el], order_idx[el], within, free[el], groups)
        keep[w, el[drop]] = False
    return keep


def _dominated(cost, cap, lat, idx, within, free, groups) -> np.ndarray:
    """Case A, vectorised: sort by (group, cost, -capability, latency, index); b is dominated when a
    free option earlier in its group (within budget, if b is) has capability >= b's."""
    order = np.lexsort((idx, lat, -cap, cost, groups))
    g, c = groups[order], cap[order]
    drop_sorted = np.zeros(len(order), dtype=bool)
    for dom_mask, applies in ((free[order] & within[order], within[order]), (free[order], ~within[order])):
        best = np.where(dom_mask, c, -np.inf)
        before = np.full(len(order), -np.inf)
        for grp in np.unique(g):
            sel = np.flatnonzero(g == grp)
            run = np.maximum.accumulate(best[sel])
            before[sel[1:]] = run[:-1]
        drop_sorted |= applies & (before >= c)
    drop = np.zeros(len(order), dtype=bool)
    drop[order] = drop_sorted
    return drop


def _bracketed(cost, within, free, vendor, idx) -> np.ndarray:
    """Case B: b is dropped when free options of its vendor (within budget, if b is) bracket its cost."""
    drop = np.zeros(len(cost), dtype=bool)
    for v in np.unique(vendor):
        in_v = vendor == v
        for b_within in (True, False):
            dom = in_v & free & (within if b_within else np.ones_like(within))
            if dom.sum() < 2:
                continue
            d = np.flatnonzero(dom)
            lo = d[np.lexsort((idx[d], cost[d]))[0]]
            hi = d[np.lexsort((idx[d], -cost[d]))[0]]
            targets = in_v & (within == b_within)
            targets[[lo, hi]] = False
            drop |= targets & (cost >= cost[lo]) & (cost <= cost[hi])
    return drop
