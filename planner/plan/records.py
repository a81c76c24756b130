"""Each workload's records in the plan: its allocations with their latency and cost, the options it
rejected and why (cheapest first), its nearest misses when it has no option, and the misses far from
any rule."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from planner.core.fmt import short
from planner.core.records import trusted
from planner.model.load import Inputs
from planner.optimize.lp import LinearProgram
from planner.optimize.pairs import LIST, Pairs, percentile_gaps
from planner.plan.model import (
    Allocation,
    BreakEven,
    Compounding,
    Diagnosis,
    DistributionInfo,
    LatencySummary,
    NearMiss,
    PercentileInfo,
    Rejection,
    SpeedAt,
    WorkloadPlan,
)

REJECTIONS = 10  # rejected options listed per workload, cheapest first (SPEC 5)


FAR_FLOOR = 0.8  # a score under 80% of the floor misses it by a mile (SPEC v1.3) ...


FAR_BUDGET = 10.0  # ... as does a latency over ten times the budget


Known = Callable[[np.ndarray, np.ndarray], list[Rejection | None]] | None


def _finite(x: float) -> float | None:
    """An option's figure, None where the arrays hold nan (absent)."""
    return None if x != x else float(x)


@dataclass
class _Entries:
    """The plan's allocation entries (share > 0) as arrays, one position per entry: workload, option,
    share, tasks, cost per task, latency, capability, share of tasks within budget."""

    w: np.ndarray
    o: np.ndarray
    share: np.ndarray
    tasks: np.ndarray
    cpt: np.ndarray
    latency: np.ndarray
    capability: np.ndarray
    inside: np.ndarray


def workload_plans(
    inputs: Inputs,
    pairs: Pairs,
    lp: LinearProgram,
    share: np.ndarray,
    break_even: dict[int, list],
    rejected: list[list[Rejection]],
    curves: dict[int, dict],
    known: dict[int, WorkloadPlan],
    factor: np.ndarray | None = None,
    signed: frozenset[str] = frozenset(),
) -> list[WorkloadPlan]:
    """Every workload's part of the plan, built from the arrays as typed records (core.records.trusted);
    a workload in `known` takes that record (equal to the one made here) with these rejections."""
    e = _entries(pairs, lp, share, known, factor)
    allocs_of = _allocations(pairs, e, signed)
    sums = _summaries(pairs, e)
    break_even = _typed(break_even)
    judged = _percentile_info(pairs, allocs_of)
    out = []
    for w, wl in enumerate(inputs.workloads.workloads):
        if w in known:
            out.append(trusted(WorkloadPlan, {**known[w].__dict__, "rejected": rejected[w]}))
            continue
        record = _record(pairs, w, wl, allocs_of[w], sums, curves.get(w) if allocs_of[w] else None)
        record.update(rejected=rejected[w], break_even=break_even.get(w, []), percentile=judged.get(w))
        out.append(trusted(WorkloadPlan, record))
    return out


def _entries(pairs: Pairs, lp: LinearProgram, share: np.ndarray, known, factor) -> _Entries:
    """The allocation entries of the workloads not taken from a start, with their figures."""
    wa = pairs.workloads
    used = np.flatnonzero(share > 0)
    if known:
        is_known = np.zeros(pairs.shape[0], dtype=bool)
        is_known[list(known)] = True
        used = used[~is_known[lp.var_w[used]]]
    u_w, u_o, u_s = lp.var_w[used], lp.var_o[used], share[used]
    return _Entries(
        u_w,
        u_o,
        u_s,
        u_s * wa.tasks[u_w],
        pairs.cost_per_task[u_w, u_o] * (1.0 if factor is None else factor[used]),
        pairs.latency_s[u_w, u_o],
        pairs.capability[u_w, u_o],
        pairs.within_share[u_w, u_o],
    )


def _allocations(pairs: Pairs, e: _Entries, signed: frozenset[str]) -> list[list[Allocation]]:
    """Per workload, its allocations as typed records, in entry order."""
    wa, opts = pairs.workloads, pairs.options
    sampled = wa.sampled[e.w] & ~np.isnan(wa.budget_s[e.w])
    t_in = wa.turns[e.w] * wa.input[e.w]  # per task: what the price bridge of a comparison reprices
    t_out = pairs.task_tokens[e.w, e.o] - t_in
    allocs_of: list[list[Allocation]] = [[] for _ in range(len(wa.ids))]
    for w, o, sh, tasks, cpt, lat, cap, inside, tin, tout, share_in in zip(
        e.w.tolist(),
        e.o.tolist(),
        e.share.tolist(),
        e.tasks.tolist(),
        e.cpt.tolist(),
        e.latency.tolist(),
        np.where(np.isnan(e.capability), None, e.capability).tolist(),
        pairs.within_budget[e.w, e.o].tolist(),
        t_in.tolist(),
        t_out.tolist(),
        np.where(sampled, e.inside, None).tolist(),
    ):
        figures = {"share": sh, "tasks": tasks, "cost_per_task": cpt, "cost": tasks * cpt, "latency_s": lat}
        figures.update(capability=cap, within_budget=inside, input_tokens=tin, output_tokens=tout)
        figures["within_budget_share"] = share_in
        fields = {**_option_fields(opts, o, signed), **figures}
        allocs_of[w].append(trusted(Allocation, {k: fields[k] for k in ALLOCATION_ORDER}))
    return allocs_of


# An allocation's fields in the order the plan file writes them (the model's order).
ALLOCATION_ORDER = (
    "offering",
    "mode",
    "share",
    "tasks",
    "cost_per_task",
    "cost",
    "latency_s",
    "capability",
    "vendor",
    "host",
    "served_by",
    "tier",
    "model",
    "within_budget",
    "input_tokens",
    "output_tokens",
    "within_budget_share",
    "output_tps",
    "ttft_s",
    "prefill_tps",
    "speed_by_input",
    "thinking_tokens",
    "reasoning_factor",
    "price_tier",
    "reserved",
    "discounted",
)


def _option_fields(opts, o: int, signed: frozenset[str]) -> dict:
    """What an allocation says of its option: who, which tier, its measured figures."""
    return {
        "offering": opts.offering_id[o],
        "mode": opts.mode[o],
        "vendor": opts.vendor[o],
        "host": opts.host[o],
        "served_by": list(opts.outage_companies[o][2:]) or None,
        "tier": opts.tier[o],
        "model": opts.model[o],
        "output_tps": float(opts.output_tps[o]) if np.isfinite(opts.output_tps[o]) else None,
        "ttft_s": float(opts.ttft_s[o]) if np.isfinite(opts.output_tps[o]) else None,
        "prefill_tps": _finite(opts.prefill_tps[o]),
        "speed_by_input": _speed_by_input(opts, o),
        "thinking_tokens": _finite(opts.thinking[o]),
        "reasoning_factor": float(opts.reasoning_factor[o]),
        "price_tier": None if opts.sale[o] == LIST else opts.sale[o],
        "reserved": opts.reserved[o],
        "discounted": opts.discounted[o] if opts.discounted[o] in signed else None,
    }


def _speed_by_input(opts, o: int) -> dict[int, SpeedAt] | None:
    """The option's medians at every prompt length measured, input_tokens' included (for `planner replay`
    to time each logged task at its own length); None when its speed states no length, or for a batch
    window."""
    at = float(opts.measured_at[o])
    if np.isnan(at) or not np.isfinite(opts.output_tps[o]):
        return None
    rows: dict[int, dict[str, float | None]] = {}
    for name, points, median in (
        ("output_tps", opts.tps_lengths[o], opts.output_tps[o]),
        ("ttft_s", opts.ttft_lengths[o], opts.ttft_s[o]),
    ):
        lengths, values = points if points is not None else ((at,), (float(median),))
        for k, v in zip(lengths, values):
            rows.setdefault(int(k), {"output_tps": None, "ttft_s": None})[name] = float(v)
    return {k: trusted(SpeedAt, rows[k]) for k in sorted(rows)}


def _summaries(pairs: Pairs, e: _Entries) -> dict[str, list]:
    """Per workload: mean and worst latency, share within budget, mean capability, cost, cost per task."""
    wa = pairs.workloads
    n_w = len(wa.ids)
    lat_max = np.full(n_w, -np.inf)
    np.maximum.at(lat_max, e.w, e.latency)
    cap_mean = np.bincount(e.w, e.share * np.nan_to_num(e.capability), minlength=n_w)
    cap_mean = np.where(np.bincount(e.w, np.isnan(e.capability), minlength=n_w) > 0, None, cap_mean)
    costs = np.bincount(e.w, e.tasks * e.cpt, minlength=n_w)  # (in allocation order, as a running sum would)
    return {
        "lat_mean": np.bincount(e.w, e.share * e.latency, minlength=n_w).tolist(),
        "lat_max": lat_max.tolist(),
        "within": np.bincount(e.w, e.share * e.inside, minlength=n_w).tolist(),
        "cap_mean": cap_mean.tolist(),
        "cost": costs.tolist(),
        "per_task": (costs / wa.tasks).tolist(),
    }


def _typed(break_even: dict[int, list]) -> dict[int, list[BreakEven]]:
    """The break-even rows as BreakEven records (those still given as dicts validated in one batch)."""
    from pydantic import TypeAdapter

    loose = [b for entries in break_even.values() for b in entries if not isinstance(b, BreakEven)]
    made = iter(TypeAdapter(list[BreakEven]).validate_python(loose)) if loose else iter(())
    return {w: [b if isinstance(b, BreakEven) else next(made) for b in entries] for w, entries in break_even.items()}


def _record(pairs: Pairs, w: int, wl, allocs: list[Allocation], sums: dict[str, list], curve) -> dict:
    """A workload's record but for its rejections, break-evens and percentile."""
    wa = pairs.workloads
    eligible = int(pairs.eligible_count[w])
    on = bool(allocs)
    distribution = wa.distributions[w]
    return {
        "id": wl.id,
        "status": "ok" if on else "infeasible",
        "description": wl.description,
        "tasks": float(wa.tasks[w]),
        "turns": wl.turns,
        "budget_s": None if np.isnan(wa.budget_s[w]) else float(wa.budget_s[w]),
        "threshold": wa.threshold[w],
        "metric": wa.metric[w],
        "capability_min": None if np.isnan(wa.cap_min[w]) else float(wa.cap_min[w]),
        "cost": sums["cost"][w],
        "cost_per_task": sums["per_task"][w] if on else None,
        "latency_s": trusted(LatencySummary, {"mean": sums["lat_mean"][w], "max": sums["lat_max"][w]}) if on else None,
        "within_budget_share": sums["within"][w] if on else None,
        "within_budget_share_required": float(wa.within_budget_share[w]),
        "capability_mean": sums["cap_mean"][w] if on else None,
        "peak_tasks_per_minute": float(wa.peak_tasks_per_minute[w]),
        "peak_assumed": bool(wa.peak_assumed[w]),
        "eligible": eligible,
        "allocations": allocs,
        "rejected": [],  # (filled by the caller, as are break_even and percentile)
        "rejected_far": 0,
        "cached_input_share": float(wl.tokens.cached_input_share),
        "break_even": [],
        "tool_latency_s": wl.tool_latency_s,
        "streaming": wl.latency.streaming,
        "compounding": None if curve is None else trusted(Compounding, curve),
        "diagnosis": None if eligible else _nearest_misses(pairs, w),
        "distribution": None
        if distribution is None
        else trusted(DistributionInfo, {"file": distribution.file, "samples": len(distribution)}),
        "percentile": None,
        "rejected_omitted": 0,
        "break_even_omitted": 0,
    }


def _percentile_info(pairs: Pairs, allocs_of: list[list[Allocation]]) -> dict[int, PercentileInfo]:
    """Per workload judged at a percentile: which of its options were judged at a median for lack of
    measured percentiles, and which at their last measured point (the percentile lies beyond it)."""
    wa, opts = pairs.workloads, pairs.options
    out: dict[int, PercentileInfo] = {}
    gaps: dict[float, tuple[np.ndarray, np.ndarray]] = {}
    index = {key: o for o, key in enumerate(zip(opts.offering_id, opts.mode, opts.sale, opts.reserved))}
    for w in np.flatnonzero(~np.isnan(wa.percentile)).tolist():
        p = float(wa.percentile[w])
        if p not in gaps:
            gaps[p] = percentile_gaps(opts, p)
        median, limit = gaps[p]
        used = [index[a.offering, a.mode, a.price_tier or LIST, a.reserved] for a in allocs_of[w]]
        out[w] = PercentileInfo(
            percentile=p,
            output_tps_percentile=100.0 - p,
            ttft_percentile=p,
            at_median=[opts.label(o) for o in used if median[o]],
            at_median_eligible=int((median & pairs.eligible[w]).sum()),
            at_limit=[opts.label(o) for o in used if limit[o] and not median[o]],
        )
    return out


def far_misses(pairs: Pairs) -> np.ndarray:
    """Per pair, whether the option misses the workload's rules by a mile: a score under FAR_FLOOR of
    its floor, or a latency over FAR_BUDGET times its budget. Such options are counted, not listed;
    a workload with no eligible option lists its cheapest misses however far (with its diagnosis)."""
    wa = pairs.workloads
    floor = wa.cap_min[:, None]
    with np.errstate(invalid="ignore"):
        low = (floor > 0) & (pairs.capability < FAR_FLOOR * floor)
        slow = pairs.latency_s > FAR_BUDGET * wa.budget_s[:, None]
    return ~pairs.eligible & (low | slow) & (pairs.eligible_count > 0)[:, None]


def count_far(workloads: list[WorkloadPlan], pairs: Pairs, far: np.ndarray) -> None:
    """Each workload's count of options that miss by a mile and cost less per task than its plan
    (than anything, when it has no plan)."""
    chosen = np.array([np.inf if w.cost_per_task is None else w.cost_per_task for w in workloads])
    counts = (far & (pairs.cost_per_task < chosen[:, None])).sum(axis=1).tolist()
    for w, n in zip(workloads, counts):
        if w.rejected_far != n:
            w.__dict__["rejected_far"] = n


def rejections(
    pairs: Pairs, known: Known = None, limit: int = REJECTIONS, far: np.ndarray | None = None
) -> list[list[Rejection]]:
    """Per workload, up to `limit` ineligible options, cheapest first (then faster, then catalog order),
    each with its reasons, leaving out those that miss by a mile (`far`). known(rw, ro): per pair, a
    record already made for it (equal to the one made here), or None."""
    W, O = pairs.shape
    listed = ~pairs.eligible if far is None else ~pairs.eligible & ~far
    cost = np.where(listed, pairs.cost_per_task, np.inf)
    if O > limit:  # only options up to each row's limit-th cheapest cost can make its list
        nth = np.partition(cost, limit - 1, axis=1)[:, limit - 1]
        rw, ro = np.nonzero(listed & (cost <= nth[:, None]))
    else:
        rw, ro = np.nonzero(listed)
    order = np.lexsort((pairs.latency_s[rw, ro], cost[rw, ro], rw))  # cheapest, then faster, then catalog (stable)
    rw, ro = rw[order], ro[order]
    keep = np.arange(len(rw)) - np.searchsorted(rw, rw) < limit
    rw, ro = rw[keep], ro[keep]
    records = [None] * len(rw) if known is None else known(rw, ro)
    new = [i for i, r in enumerate(records) if r is None]
    for i, r in zip(new, _new_rejections(pairs, rw[new], ro[new])):
        records[i] = r
    ends = np.searchsorted(rw, np.arange(W + 1)).tolist()  # rw is sorted: each workload's records are a run
    return [records[a:b] for a, b in zip(ends[:-1], ends[1:])]


def _new_rejections(pairs: Pairs, rw: np.ndarray, ro: np.ndarray) -> list[Rejection]:
    ids, modes = pairs.options.offering_id, pairs.options.mode
    cap = pairs.capability[rw, ro]
    cap = np.where(np.isnan(cap), None, cap).tolist()  # floats, None where there is no score
    return [
        trusted(
            Rejection,
            {
                "offering": ids[o],
                "mode": modes[o],
                "reasons": why,
                "cost_per_task": cpt,
                "latency_s": lat,
                "capability": c,
                "price_tier": sold.get("price_tier"),
                "reserved": sold.get("reserved"),
            },
        )
        for o, why, cpt, lat, c, sold in zip(
            ro.tolist(),
            pairs.reasons_many(rw, ro),
            pairs.cost_per_task[rw, ro].tolist(),
            pairs.latency_s[rw, ro].tolist(),
            cap,
            map(pairs.options.sold, ro.tolist()),
        )
    ]


def _near(pairs: Pairs, w: int, o: int) -> NearMiss:
    cap = pairs.capability[w, o]
    return NearMiss(
        offering=pairs.options.offering_id[o],
        mode=pairs.options.mode[o],
        latency_s=float(pairs.latency_s[w, o]),
        capability=None if np.isnan(cap) else float(cap),
        cost_per_task=float(pairs.cost_per_task[w, o]),
    )


def _nearest_misses(pairs: Pairs, w: int) -> Diagnosis:
    """Why workload w has no eligible option, and the nearest misses on latency and capability."""
    wa = pairs.workloads
    allowed = pairs.vendor_ok[w] & pairs.region_ok[w] & pairs.context_ok[w] & pairs.gateway_ok[w]
    gateway = _gateway_miss(pairs, w)
    if not allowed.any():
        counts = {
            "vendor": (~pairs.vendor_ok[w]).sum(),
            "region": (~pairs.region_ok[w]).sum(),
            "context": (~pairs.context_ok[w]).sum(),
            f"deployable on {pairs.gateway}": (~pairs.gateway_ok[w]).sum(),
        }
        why = ", ".join(f"{k} ({v})" for k, v in counts.items() if v)
        rules = "vendor, region and context rules" + (f" and deployability on {pairs.gateway}" if pairs.gateway else "")
        return Diagnosis(summary=f"{gateway}no option passes the {rules}; rejected by {why}")
    parts = []
    fastest = most = None
    floor_ok = np.flatnonzero(allowed & pairs.capability_ok[w])
    if len(floor_ok):
        o = int(floor_ok[np.lexsort((floor_ok, pairs.cost_per_task[w, floor_ok], pairs.need_s[w, floor_ok]))[0]])
        fastest = _near(pairs, w, o)
        if wa.sampled[w]:  # the budget it would need: its slowest sample task's latency
            fastest.latency_s = float(pairs.need_s[w, o])
            parts.append(
                f"the fastest option meeting the capability floor is {pairs.options.label(o)}, with its slowest "
                f"sample task at {short(fastest.latency_s)} s; it would need a budget of "
                f"{short(fastest.latency_s)} s (budget {short(wa.budget_s[w])} s)"
            )
        else:
            parts.append(
                f"the fastest option meeting the capability floor is {pairs.options.label(o)} at "
                f"{short(fastest.latency_s)} s; it would need a budget of {short(fastest.latency_s)} s "
                f"(budget {short(wa.budget_s[w])} s)"
            )
    else:
        parts.append(f"no allowed option reaches the {wa.metric[w]} floor of {wa.cap_min[w]:g}")
    budget_ok = np.flatnonzero(allowed & pairs.within_budget[w] & ~np.isnan(pairs.capability[w]))
    if len(budget_ok):
        caps = pairs.capability[w, budget_ok]
        o = int(budget_ok[np.lexsort((budget_ok, pairs.cost_per_task[w, budget_ok], -caps))[0]])
        most = _near(pairs, w, o)
        parts.append(
            f"the most capable option within the budget is {pairs.options.label(o)}, scoring "
            f"{most.capability:g} {wa.metric[w]} (floor {wa.cap_min[w]:g})"
        )
    elif not np.isnan(wa.budget_s[w]):
        parts.append(f"no allowed option finishes within {short(wa.budget_s[w])} s")
    return Diagnosis(
        summary=f"{gateway}no eligible option: " + "; ".join(parts),
        fastest_meeting_floor=fastest,
        most_capable_within_budget=most,
    )


def _gateway_miss(pairs: Pairs, w: int) -> str:
    """When policy.deployable_on is why workload w has no option: the options that meet every other rule,
    the cheapest named with what the gateway lacks for it (empty text otherwise)."""
    if pairs.gateway is None:
        return ""
    free = np.flatnonzero(pairs.without_gateway().eligible[w] & ~pairs.gateway_ok[w])
    if not len(free):
        return ""
    o = int(free[np.lexsort((free, pairs.cost_per_task[w, free]))[0]])
    why = pairs.gateway_why.get(pairs.options.key(o), "no id in its lists")
    n = len(free)
    return (
        f"deployability on {pairs.gateway} is why: {n} option{'s' if n > 1 else ''} meet{'' if n > 1 else 's'} "
        f"every other rule, and {pairs.gateway} cannot address {'them' if n > 1 else 'it'} (the cheapest, "
        f"{pairs.options.label(o)}: {why}); among the options it can address, "
    )
