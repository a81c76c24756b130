"""Send the solver only options that can carry share in some optimal plan.

An eligible option b of workload w is dropped when its share can always be moved to other
options of w without raising the cost or breaking any constraint. The dominating options
must be *free*: their offering has no capacity limit (so moving load onto them cannot break a
tokens- or requests-per-minute row). Then, per workload:

Companies: an option counts for who bills it and who serves it. Options are grouped by that pair
whenever a company rule applies (a share cap, a spend cap, or the workload's max_vendor_share), so
a dominator carries the same companies: moving share onto it keeps each company's traffic and
never raises a company's spend.

* No spend-share caps in the portfolio (case A). b is dominated by a free option a with
  cost_a <= cost_b, capability_a >= capability_b (only when w has mean_min), a within budget
  whenever b is (only when w has within_budget_share < 1; with sample tasks, a serving all of them
  within budget when b serves any), and, when w has max_vendor_share,
  the same vendor; when cost_a = cost_b, a must also be no slower than b (then more capable,
  then catalog order), so the latency tie-break never needs b. Moving b's share to a lowers
  spend (budget rows hold), keeps every other workload's rows, and does not add an option
  (max_options holds).
* Spend-share caps present (policy.share_of: spend; case B). A cheaper substitute lowers total
  spend and can break another company's cap, so the cost of the replaced share must stay the same: b is dropped
  when free options of the same vendor, each no slower than b (so within budget whenever b
  is), bracket its cost (two with cost_a1 <= cost_b <= cost_a2, or one with cost_a = cost_b);
  b's share splits between them at the same spend per vendor, and the split is no slower.
  Workloads with mean_min or max_options are pruned only of twins: b with a free option of
  the same vendor, cost, latency and at least its capability. A workload whose share of tasks
  within budget is read off sample tasks is not pruned here: the mean task's latency does not
  order the options' shares.

Of options equal in cost and latency, the more capable is kept (then catalog order): which
of two such options carries a workload is settled by this rule, not by the solver.

Dominance here is a strict partial order, so every dropped option keeps a dominator.
"""

from __future__ import annotations

import numpy as np

from planner.core.arrays import workload_starts
from planner.model.schema import Catalog, WorkloadSet
from planner.optimize.pairs import Pairs, tie_latency, vendor_caps


def free_options(catalog: Catalog, pairs: Pairs) -> np.ndarray:
    limited = np.array(
        [
            bool(o.capacity and (o.capacity.tokens_per_minute or o.capacity.requests_per_minute))
            for o in catalog.offerings
        ],
        dtype=bool,
    )
    # a share inside a reservation is capped by its units (the reserved row), not free to take more load
    inside = np.array([r is not None for r in pairs.options.reserved], dtype=bool)
    return ~limited[pairs.options.offering_index] & ~inside


def company_rules(ws: WorkloadSet, pairs: Pairs) -> tuple[bool, bool]:
    """(spend-share caps apply: case B; traffic-share or spend caps apply: options are compared only
    with options of the same companies, which keeps every company's traffic and lowers its spend)."""
    companies = {c for cs in pairs.options.companies for c in cs}
    shares = any(s < 1 for s in vendor_caps(ws, companies).values())
    spend_basis = ws.policy.share_of == "spend"
    return shares and spend_basis, (shares and not spend_basis) or bool(ws.policy.vendor_spend)


def company_code(pairs: Pairs) -> np.ndarray:
    """Per option an integer naming who bills and who serves it and the commitments that price it (equal
    codes: the same companies, under the same contracts): a share moved within a code keeps each
    company's traffic and each contract's coverage."""
    opts = pairs.options
    keys = [
        "\x00".join((*c, "r:" + (r or ""), "d:" + (d or "")))
        for c, r, d in zip(opts.companies, opts.reserved, opts.discounted, strict=True)
    ]
    return np.unique(np.array(keys, dtype=object), return_inverse=True)[1]


def contracted(pairs: Pairs) -> bool:
    """Whether some option is priced by a commitment: options are then compared only within a code."""
    opts = pairs.options
    return any(r is not None or d is not None for r, d in zip(opts.reserved, opts.discounted, strict=True))


def candidates(
    ws: WorkloadSet, catalog: Catalog, pairs: Pairs, reuse: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """W x O bool: the eligible pairs that may carry share in an optimal plan (vectorised over all pairs).

    reuse: (the candidates and the eligible pairs of the same workloads under another catalog with the
    same offerings and vendors, a bool per option: changed since). Whether a pair is dropped depends
    only on the pairs of its group (its workload, or workload and vendor), so groups where no changed
    option is or was eligible keep those candidates."""
    keep = pairs.eligible.copy()
    if not keep.any():
        return keep
    free = free_options(catalog, pairs)
    capped, grouped = company_rules(ws, pairs)
    vendor_code = company_code(pairs)
    wa = pairs.workloads
    n_v = int(vendor_code.max()) + 1
    by_vendor = (
        np.full(len(wa.ids), True)
        if capped or grouped or contracted(pairs)
        else ~np.isnan(wa.max_vendor_share) & (wa.max_vendor_share < 1)
    )

    def group_of(w, o):
        return w.astype(np.int64) * n_v + np.where(by_vendor[w], vendor_code[o], 0)

    span = float(np.max(np.abs(pairs.cost_per_task), where=pairs.eligible, initial=0.0)) * 4 + 1.0  # (bands)
    if reuse is None:
        w_idx, o_idx = np.nonzero(pairs.eligible)
        group = group_of(w_idx, o_idx)
    else:
        before, eligible_before, changed = reuse
        cols = np.flatnonzero(changed)
        tw, to = np.nonzero((pairs.eligible | eligible_before)[:, cols])
        marked = np.zeros(len(wa.ids) * n_v, dtype=bool)
        marked[group_of(tw, cols[to])] = True
        # a touched group lies in its workload's row, and among its vendor's options when grouped by vendor
        rows = np.unique(tw)
        near = np.isin(vendor_code, vendor_code[cols]) if by_vendor[rows].all() else np.ones(len(vendor_code), bool)
        near_cols = np.flatnonzero(near)
        sw, so = np.nonzero(pairs.eligible[np.ix_(rows, near_cols)])
        w_idx, o_idx = rows[sw], near_cols[so]
        group = group_of(w_idx, o_idx)
        touched = marked[group]
        w_idx, o_idx, group = w_idx[touched], o_idx[touched], group[touched]
        keep = before & pairs.eligible  # untouched groups: the same pairs, the same decisions
        keep[w_idx, o_idx] = True
        if len(w_idx) == 0:
            return keep
    use_within = (wa.within_budget_share < 1) & ~np.isnan(wa.budget_s)
    inside = np.where(use_within[w_idx], pairs.within_share[w_idx, o_idx], 1.0)
    cost = pairs.cost_per_task[w_idx, o_idx]
    lat = tie_latency(pairs, w_idx, o_idx)  # (a flex tier of unknown speed counts as the slowest)
    is_free = free[o_idx]
    capability = np.nan_to_num(pairs.capability[w_idx, o_idx], nan=-1.0)  # the better of two twins
    if capped:
        prunable = np.isnan(wa.cap_mean_min) & (wa.max_options == 0)
        sel = prunable[w_idx]
        # dominators no slower than b: they are within budget whenever b is, and the split is no slower
        drop, twin = _bracketed_sequential(cost, -lat, is_free, group, capability, workload_blocks(w_idx), span)
        drop = (drop & sel) | twin
        # a task sample's share within budget does not follow the mean task's latency: not pruned
        drop &= ~(use_within & wa.sampled)[w_idx]
    else:
        cap = _capability_ranks(pairs, w_idx, o_idx, ~np.isnan(wa.cap_mean_min))
        drop = _dominated(cost, cap, lat, o_idx, inside, is_free, group, capability, workload_blocks(w_idx))
    keep[w_idx[drop], o_idx[drop]] = False
    return keep


def _dominated(cost, cap, lat, idx, inside, free, group, prefer=None, blocks=None) -> np.ndarray:
    """Case A: sort by (group, cost, latency, -prefer, index), prefer defaulting to cap; b is
    dominated when a free option earlier in its group, serving at least b's share of tasks within
    budget (`inside`: all of them, when b serves any), has cap >= b's. An earlier option is cheaper
    (then b is in no optimal plan) or as cheap and no slower (then the latency tie-break never prefers
    b); of two as cheap and as fast, the more capable is kept.

    cap: non-negative integers in the order of the capabilities (exact in the banded prefix maxima)."""
    order = _lexsort((idx, -(cap if prefer is None else prefer), lat, cost, group), blocks)
    g, c = group[order], np.asarray(cap, dtype=np.int64)[order]
    span = int(c.max()) + 2 if len(c) else 2
    band = g * span  # one band per group keeps prefix maxima inside the group
    first = np.r_[True, g[1:] != g[:-1]]
    drop_sorted = np.zeros(len(order), dtype=bool)
    full, some = inside[order] >= 1, inside[order] > 0
    for dom_mask, applies in ((free[order] & full, some), (free[order], ~some)):
        run = np.maximum.accumulate(band + np.where(dom_mask, c, -1))
        before = np.r_[-1, run[:-1] - band[1:]]  # the best dominator so far in the group, -1 when none
        before[first] = -1
        drop_sorted |= applies & (before >= c)
    drop = np.zeros(len(order), dtype=bool)
    drop[order] = drop_sorted
    return drop


def _capability_ranks(pairs: Pairs, w_idx: np.ndarray, o_idx: np.ndarray, has_mean: np.ndarray) -> np.ndarray:
    """Per pair, the rank of its capability among every score in the catalog (0's rank for workloads
    without a mean floor): integers in the same order, from the few distinct scores."""
    metrics = sorted(set(pairs.workloads.metric))
    table = np.array([pairs.options.score(m) for m in metrics], dtype=float).reshape(len(metrics), -1)
    _, inv = np.unique(np.r_[table.ravel(), 0.0], return_inverse=True)
    ranks = inv[:-1].reshape(table.shape)
    code = {m: i for i, m in enumerate(metrics)}
    metric = np.array([code[m] for m in pairs.workloads.metric], dtype=int)
    return np.where(has_mean[w_idx], ranks[metric[w_idx], o_idx], inv[-1])


def sweep_candidates(
    ws: WorkloadSet, catalog: Catalog, pairs: Pairs, targets: np.ndarray, extra: np.ndarray
) -> np.ndarray:
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
    capped, grouped = company_rules(ws, pairs)
    vendor_code = company_code(pairs)
    w_idx, o_idx = np.nonzero(pairs.eligible & simple[:, None])
    if len(w_idx) == 0:
        return keep
    cost = pairs.cost_per_task[w_idx, o_idx]
    score = extra[w_idx, o_idx]
    lat = tie_latency(pairs, w_idx, o_idx)
    is_free = free[o_idx]
    n_v = int(vendor_code.max()) + 1
    if capped:
        group = w_idx.astype(np.int64) * n_v + vendor_code[o_idx]
        drop = _bracketed_sequential(cost, score, is_free, group, blocks=workload_blocks(w_idx))[0]
    else:
        by_vendor = ~np.isnan(wa.max_vendor_share) & (wa.max_vendor_share < 1) | grouped | contracted(pairs)
        group = w_idx.astype(np.int64) * n_v + np.where(by_vendor[w_idx], vendor_code[o_idx], 0)
        rank = np.unique(score, return_inverse=True)[1]  # any order-preserving integers work
        drop = _dominated(
            cost,
            rank,
            lat,
            o_idx,
            np.ones(len(cost)),
            is_free,
            group,
            blocks=workload_blocks(w_idx),
        )
    keep[w_idx[drop], o_idx[drop]] = False
    return keep


def _bracketed_sequential(
    cost, score, free, group, prefer=None, blocks=None, span: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Case B (score: -latency) and its sweep variant: in the order (group, -score, -prefer, catalog
    order), b is dropped when free options earlier in its group (so scoring at least as well)
    bracket its cost: two of them, or one of the same cost. Every dropped option's share moves
    to earlier ones at the same spend per vendor; the first is never dropped.

    Running extremes are kept inside each group by bands of width `span` (more than 4 x any
    |cost|) at the group's number, so a group's decisions are the same whichever other groups are
    pruned with it (what `candidates` reuses relies on that).

    Also returns the twins: b with a free option earlier in that order of the same group, score
    and cost (so, of two such, the one `prefer`, capability, ranks higher), which may replace b
    whatever else its workload asks. The two rules share the order, so dominance stays acyclic."""
    n = len(cost)
    # the order (group, -score, catalog order): a stable sort of pairs in (workload, option) order; then
    # -prefer before catalog order within the (few, short) runs of equal score
    order = _lexsort((-score, group), blocks)
    if prefer is not None:
        tied, run = _runs(group[order], score[order])
        if len(tied):
            order[tied] = order[tied[np.lexsort((tied, -prefer[order[tied]], run))]]
    g, c, f, sc = group[order], cost[order], free[order], score[order]
    first = np.r_[True, g[1:] != g[:-1]]
    if span is None:
        span = float(np.max(np.abs(c))) * 4 + 1.0
    band = g * span  # keeps running extremes inside each group
    lo_run = np.minimum.accumulate(np.where(f, c, span / 2) - band)
    hi_run = np.maximum.accumulate(np.where(f, c, -span / 2) + band)
    free_before = np.cumsum(f) - f  # free options before each position
    begin = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    lo_before = np.r_[np.inf, lo_run[:-1] + band[1:]]
    hi_before = np.r_[-np.inf, hi_run[:-1] - band[1:]]
    lo_before[first] = np.inf
    hi_before[first] = -np.inf
    drop_sorted = (free_before - free_before[begin] >= 1) & (c >= lo_before) & (c <= hi_before)
    twin_sorted = np.zeros(n, dtype=bool)
    tied, run = _runs(g, sc)
    if len(tied):  # within each run of equal score: by cost, keeping the order
        by_cost = np.lexsort((tied, c[tied], run))
        sub, sub_run, sub_cost = tied[by_cost], run[by_cost], c[tied[by_cost]]
        head = np.r_[True, (sub_run[1:] != sub_run[:-1]) | (sub_cost[1:] != sub_cost[:-1])]
        free_sub = np.cumsum(f[sub]) - f[sub]
        start = np.maximum.accumulate(np.where(head, np.arange(len(sub)), 0))
        twin_sorted[sub] = free_sub - free_sub[start] >= 1
    drop, twin = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    drop[order], twin[order] = drop_sorted, twin_sorted
    return drop, twin


def _runs(group: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """In arrays sorted by (group, score): the positions in runs of two or more equal (group, score),
    and a run number for each."""
    same = (group[1:] == group[:-1]) & (score[1:] == score[:-1])
    tied = np.flatnonzero(np.r_[same, False] | np.r_[False, same])
    return tied, np.cumsum(np.r_[True, ~same])[tied]


def _lexsort(keys: tuple, blocks=None) -> np.ndarray:
    """np.lexsort(keys) (stable; the last key is primary). With blocks (the starts of consecutive
    blocks that the primary key never crosses, plus the end: each workload's pairs), block by
    block, which is faster than one sort of every pair (benchmarks/RESULTS.md)."""
    if blocks is None or len(keys[0]) < 64 * len(blocks):
        return np.lexsort(keys)
    order = np.empty(len(keys[0]), dtype=np.int64)
    for a, b in zip(blocks[:-1], blocks[1:]):
        order[a:b] = a + np.lexsort(tuple(k[a:b] for k in keys))
    return order


def workload_blocks(w_idx: np.ndarray) -> list[int]:
    """Where each workload's pairs start in w_idx (sorted), and the end."""
    return np.r_[workload_starts(w_idx), len(w_idx)].tolist()
