"""A solved LP turned into the Plan: per workload its records (allocations, rejections, nearest
misses), spend per offering and vendor, the binding constraints in words, the smallest relaxation
and the assumptions made. Every figure comes from the pair table and the cleaned shares."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from planner.core.fmt import figure, in_unit, money, ordinal, percent, short
from planner.model.load import Inputs
from planner.optimize.lp import CONTRACT_FAMILIES, LinearProgram, Row, traffic
from planner.optimize.pairs import LIST, Pairs, percentile_gaps, vendor_caps
from planner.optimize.solver import SolveResult
from planner.plan.model import (
    Allocation,
    Binding,
    BreakEven,
    CatalogEntry,
    CommitmentUse,
    Compounding,
    Diagnosis,
    DistributionInfo,
    InputFiles,
    LatencySummary,
    MetricInfo,
    NearMiss,
    OfferingInfo,
    OfferingUse,
    OverlayChange,
    OverlayInfo,
    PercentileInfo,
    Plan,
    Rejection,
    Relaxation,
    SolverInfo,
    VendorSpend,
    WorkloadPlan,
    trusted,
)

REJECTIONS = 10  # rejected options listed per workload, cheapest first (SPEC 5)
RELAX_NOISE = 1e-4  # a relaxation under this fraction of its limit is the elastic solve's tolerance
FAR_FLOOR = 0.8  # a score under 80% of the floor misses it by a mile (SPEC v1.3) ...
FAR_BUDGET = 10.0  # ... as does a latency over ten times the budget

Known = Callable[[np.ndarray, np.ndarray], list[Rejection | None]] | None


def build_plan(
    inputs: Inputs,
    pairs: Pairs,
    lp: LinearProgram,
    share: np.ndarray,
    result: SolveResult,
    activities: tuple[np.ndarray, np.ndarray],
    *,
    solver: str,
    scenario: str | None,
    break_even: dict[int, list],
    curves: dict[int, dict],
    known_rejections: Known = None,
    known_records: dict[int, WorkloadPlan] | None = None,
    extra: np.ndarray | None = None,
) -> Plan:
    """The plan of the cleaned shares: records, spend, bindings, relaxation, diagnosis, assumptions.
    break_even (per workload) and curves (compounding, per multi-turn workload) come from insight;
    known_rejections and known_records (a what-if scenario's, warm.py) give records already made."""
    ws, catalog = inputs.workloads, inputs.catalog
    total = lp.money(share, extra, total_only=True)  # what is paid to vendors: a budget's measure
    factor, commitments, paid = commitment_terms(inputs, pairs, lp, share, extra)
    eff = lp.spend * factor if len(lp.spend) else lp.spend
    relaxation = (
        _relaxations(lp, share, result.slack, total, catalog.currency, activities[0])
        if result.slack is not None
        else []
    )
    diagnosis = [r.meaning for r in relaxation]
    far = far_misses(pairs)
    workloads = _workload_plans(
        inputs,
        pairs,
        lp,
        share,
        break_even,
        _rejections(pairs, known_rejections, far=far),
        curves,
        known_records or {},
        factor,
        frozenset(c.id for c in commitments or () if c.kind == "spend" and c.signed),
    )
    _count_far(workloads, pairs, far)
    alone = np.flatnonzero(pairs.eligible_count == 0)
    for w in alone:
        diagnosis.append(f"workload '{pairs.workloads.ids[w]}': {workloads[w].diagnosis.summary}")
    feasible = result.slack is None and len(alone) == 0
    overlaid: dict[str, dict[str, str]] = {}  # offering -> field -> the (last) overlay that set it
    for a in inputs.overlays:
        for oid, field, _, _ in a.changes:
            if field != "removed":
                overlaid.setdefault(oid, {})[field] = a.name
    named = {a.offering for w in workloads for a in w.allocations} | {
        b.offering for w in workloads for b in w.break_even
    }
    return Plan(
        status="optimal" if feasible else "infeasible",
        name=inputs.name,
        period=ws.period,
        currency=catalog.currency,
        inputs=InputFiles(
            workloads_file=inputs.workloads_file,
            catalog_file=inputs.catalog_file,
            catalog=catalog.catalog,
            as_of=catalog.as_of,
            scenario=scenario,
        ),
        solver=SolverInfo(
            name=solver,
            status=result.status if result.slack is None else "Infeasible",
            seconds=round(result.seconds, 4),
            variables=result.n_vars,
            constraints=result.n_rows,
            integer=lp.integer,
            gap=result.gap if result.status == "Time limit" else None,
        ),
        total_cost=sum(w.cost for w in workloads) + sum(c.cost for c in commitments or ()),
        workloads=workloads,
        offerings=_offering_uses(inputs, pairs, lp, share, eff),
        vendors=_vendor_spend(inputs, pairs, lp, share, eff, paid),
        binding=_binding(lp, share, result, total, catalog.currency, ws.period, activities[0]),
        relaxation=relaxation,
        diagnosis=diagnosis,
        thresholds=ws.all_thresholds,
        assumptions=_assumptions(inputs, pairs),
        sources={o.id: o.source for o in catalog.offerings if o.source},
        offering_info={
            o.id: OfferingInfo(
                model=o.model,
                vendor=o.vendor,
                host=o.host_name,
                tier=o.tier,
                price_input=o.price.input,
                price_output=o.price.output,
                gateway=dict(o.gateway),
                estimated=list(o.estimated),
                overlay=overlaid.get(o.id, {}),
            )
            for o in catalog.offerings
            if o.id in named
        },
        metrics={m: MetricInfo(**d.model_dump()) for m, d in catalog.metrics.items()},
        catalog_index={o.id: _entry(o) for o in catalog.offerings},
        share_of=ws.policy.share_of,
        overlays=[
            OverlayInfo(
                name=a.name,
                file=a.file,
                description=a.description,
                source=a.source,
                changes=[OverlayChange(offering=i, field=f, before=b, after=v) for i, f, b, v in a.changes],
            )
            for a in inputs.overlays
        ],
        commitments=commitments,
    )


def _finite(x: float) -> float | None:
    """An option's figure, None where the arrays hold nan (absent)."""
    return None if x != x else float(x)


def _float(x: float | None) -> float | None:
    return None if x is None else float(x)


def _entry(o) -> CatalogEntry:
    cap = o.capacity
    return trusted(
        CatalogEntry,
        {
            "price_input": float(o.price.input),
            "price_output": float(o.price.output),
            "price_cached_input": _float(o.price.cached_input),
            "tokens_per_minute": _float(cap.tokens_per_minute if cap else None),
            "requests_per_minute": _float(cap.requests_per_minute if cap else None),
        },
    )


def commitment_terms(
    inputs: Inputs, pairs: Pairs, lp: LinearProgram, share: np.ndarray, extra: np.ndarray | None
) -> tuple[np.ndarray, list[CommitmentUse] | None, dict[str, float]]:
    """What the catalog's commitments do in the plan: per LP column the factor on its list spend (1 - d
    under a signed committed-spend contract, else 1), one record per commitment (units, use, fees,
    shortfall; savings and break-evens come later from re-solves), and the money each vendor is paid
    beyond its tokens (fees and shortfalls)."""
    catalog, ws = inputs.catalog, inputs.workloads
    factor = np.ones(len(lp.var_w))
    if not catalog.commitments:
        return factor, None, {}
    ex = lp.extras
    value = (
        (lambda kind, ref: 0.0)
        if extra is None or not len(extra)
        else (lambda kind, ref: float(extra[k]) if (k := ex.index(kind, ref)) is not None else 0.0)
    )
    opts, wa = pairs.options, pairs.workloads
    minutes = ws.minutes
    records: list[CommitmentUse] = []
    paid: dict[str, float] = {}
    used = share > 0
    for c in catalog.commitments:
        covered = [o.id for o in catalog.offerings if c.covers(o)]
        period = c.period or ws.period
        if c.reserved:
            cols = np.flatnonzero(np.array([opts.reserved[o] == c.id for o in lp.var_o.tolist()], dtype=bool) & used)
            units = int(round(value("units", c.id)))
            fee = c.per_period(c.unit.fee, ws.period)
            tokens = pairs.task_tokens[lp.var_w[cols], lp.var_o[cols]] * wa.tasks[lp.var_w[cols]] * share[cols]
            avg_tpm = float(tokens.sum()) / minutes
            peak = float((pairs.peak_tpm[lp.var_w[cols], lp.var_o[cols]] * share[cols]).sum())
            capacity = units * c.unit.tokens_per_minute
            # the list price of the tokens it serves, and what each saves: (1 - factor) of it
            list_value = sum(
                float(wa.tasks[w] * share[j] * _list_cost(pairs, w, o))
                for j, w, o in zip(cols.tolist(), lp.var_w[cols].tolist(), lp.var_o[cols].tolist())
            )
            per_token = (1.0 - c.factor) * list_value / float(tokens.sum()) if tokens.sum() > 0 else None
            full = c.unit.tokens_per_minute * minutes  # tokens one unit serves in the period at 100%
            records.append(
                CommitmentUse(
                    id=c.id,
                    vendor=c.vendor,
                    kind="reserved",
                    signed=units > 0,
                    period=period,
                    offerings=covered,
                    units=units,
                    max_units=c.max_units,
                    fee=fee,
                    price_factor=c.factor,
                    capacity_tpm=capacity,
                    used_tpm=avg_tpm,
                    peak_tpm=peak,
                    utilization=avg_tpm / capacity if capacity > 0 else None,
                    break_even_utilization=fee / (full * per_token) if per_token else None,
                    cost=units * fee,
                    tasks=float((wa.tasks[lp.var_w[cols]] * share[cols]).sum()),
                )
            )
            paid[c.vendor] = paid.get(c.vendor, 0.0) + units * fee
        else:
            cols = np.flatnonzero(np.array([opts.discounted[o] == c.id for o in lp.var_o.tolist()], dtype=bool) & used)
            signed = value("signed", c.id) > 0.5
            list_spend = float((lp.spend[cols] * share[cols]).sum())
            minimum = c.per_period(c.min_spend, ws.period)
            shortfall = max(0.0, minimum - (1.0 - c.discount) * list_spend) if signed else 0.0
            if signed:
                factor[cols] = 1.0 - c.discount
            records.append(
                CommitmentUse(
                    id=c.id,
                    vendor=c.vendor,
                    kind="spend",
                    signed=signed,
                    period=period,
                    offerings=covered,
                    min_spend=minimum,
                    discount=c.discount,
                    list_spend=list_spend,
                    shortfall=shortfall,
                    break_even_spend=minimum,
                    cost=shortfall,
                    tasks=float((wa.tasks[lp.var_w[cols]] * share[cols]).sum()),
                )
            )
            paid[c.vendor] = paid.get(c.vendor, 0.0) + shortfall
    return factor, records, paid


def _list_cost(pairs: Pairs, w: int, o: int) -> float:
    """A task's cost on an option at its list price as you go: for a share inside reserved capacity, the
    same offering and mode outside it."""
    opts = pairs.options
    if opts.reserved[o] is None:
        return float(pairs.cost_per_task[w, o])
    twin = next(
        j
        for j in range(len(opts))
        if opts.offering_index[j] == opts.offering_index[o] and opts.mode[j] == opts.mode[o] and opts.listed[j]
    )
    return float(pairs.cost_per_task[w, twin])


def main_options(pairs: Pairs, lp: LinearProgram, share: np.ndarray) -> np.ndarray:
    """Per workload, the option carrying its largest share (the first of equals), or -1."""
    used = np.flatnonzero(share > 0)
    return largest(pairs.shape[0], lp.var_w[used], lp.var_o[used], share[used])


def largest(n_w: int, u_w: np.ndarray, u_o: np.ndarray, u_s: np.ndarray) -> np.ndarray:
    """Per workload, the option of the largest share among allocation entries (the first of equals), or -1."""
    main = np.full(n_w, -1)
    if len(u_w):
        top = np.lexsort((np.arange(len(u_w)), -u_s, u_w))
        firsts = top[np.r_[True, u_w[top][1:] != u_w[top][:-1]]]
        main[u_w[firsts]] = u_o[firsts]
    return main


def _workload_plans(
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
    """Every workload's part of the plan, built from the arrays as typed records (plan.trusted);
    a workload in `known` takes that record (equal to the one made here) with these rejections."""
    from pydantic import TypeAdapter

    wa, opts = pairs.workloads, pairs.options
    ws = inputs.workloads
    used = np.flatnonzero(share > 0)
    if known:
        is_known = np.zeros(pairs.shape[0], dtype=bool)
        is_known[list(known)] = True
        used = used[~is_known[lp.var_w[used]]]
    u_w, u_o, u_s = lp.var_w[used], lp.var_o[used], share[used]
    u_tasks = u_s * wa.tasks[u_w]
    u_cpt = pairs.cost_per_task[u_w, u_o] * (1.0 if factor is None else factor[used])
    u_lat = pairs.latency_s[u_w, u_o]
    u_cap = pairs.capability[u_w, u_o]
    u_within = pairs.within_budget[u_w, u_o]
    u_inside = pairs.within_share[u_w, u_o]
    u_sampled = wa.sampled[u_w] & ~np.isnan(wa.budget_s[u_w])
    u_in = wa.turns[u_w] * wa.input[u_w]  # per task: what the price bridge of a comparison reprices
    u_out = pairs.task_tokens[u_w, u_o] - u_in
    n_w = len(wa.ids)
    lat_mean = np.bincount(u_w, u_s * u_lat, minlength=n_w).tolist()
    lat_max = np.full(n_w, -np.inf)
    np.maximum.at(lat_max, u_w, u_lat)
    within = np.bincount(u_w, u_s * u_inside, minlength=n_w).tolist()
    cap_mean = np.bincount(u_w, u_s * np.nan_to_num(u_cap), minlength=n_w)
    cap_mean = np.where(np.bincount(u_w, np.isnan(u_cap), minlength=n_w) > 0, None, cap_mean).tolist()
    lat_max = lat_max.tolist()
    allocs_of: list[list[Allocation]] = [[] for _ in range(n_w)]
    for w, o, sh, tasks, cpt, lat, cap, inside, t_in, t_out, share_in in zip(
        u_w.tolist(),
        u_o.tolist(),
        u_s.tolist(),
        u_tasks.tolist(),
        u_cpt.tolist(),
        u_lat.tolist(),
        np.where(np.isnan(u_cap), None, u_cap).tolist(),
        u_within.tolist(),
        u_in.tolist(),
        u_out.tolist(),
        np.where(u_sampled, u_inside, None).tolist(),
    ):
        allocs_of[w].append(
            trusted(
                Allocation,
                {
                    "offering": opts.offering_id[o],
                    "mode": opts.mode[o],
                    "share": sh,
                    "tasks": tasks,
                    "cost_per_task": cpt,
                    "cost": tasks * cpt,
                    "latency_s": lat,
                    "capability": cap,
                    "vendor": opts.vendor[o],
                    "host": opts.host[o],
                    "tier": opts.tier[o],
                    "model": opts.model[o],
                    "within_budget": inside,
                    "input_tokens": t_in,
                    "output_tokens": t_out,
                    "within_budget_share": share_in,
                    "output_tps": float(opts.output_tps[o]) if np.isfinite(opts.output_tps[o]) else None,
                    "ttft_s": float(opts.ttft_s[o]) if np.isfinite(opts.output_tps[o]) else None,
                    "prefill_tps": _finite(opts.prefill_tps[o]),
                    "thinking_tokens": _finite(opts.thinking[o]),
                    "reasoning_factor": float(opts.reasoning_factor[o]),
                    "price_tier": None if opts.sale[o] == LIST else opts.sale[o],
                    "reserved": opts.reserved[o],
                    "discounted": opts.discounted[o] if opts.discounted[o] in signed else None,
                },
            )
        )
    tasks_w, budget_w = wa.tasks.tolist(), np.where(np.isnan(wa.budget_s), None, wa.budget_s).tolist()
    eligible = pairs.eligible_count.tolist()
    loose = [b for entries in break_even.values() for b in entries if not isinstance(b, BreakEven)]
    made = iter(TypeAdapter(list[BreakEven]).validate_python(loose)) if loose else iter(())
    break_even = {
        w: [b if isinstance(b, BreakEven) else next(made) for b in entries] for w, entries in break_even.items()
    }
    costs = np.bincount(u_w, u_tasks * u_cpt, minlength=n_w)  # (in allocation order, as a running sum would)
    per_task = (costs / wa.tasks).tolist()
    costs = costs.tolist()
    required, peak = wa.within_budget_share.tolist(), wa.peak_tasks_per_minute.tolist()
    assumed = wa.peak_assumed.tolist()
    judged = _percentile_info(pairs, allocs_of)
    out = []
    for w, wl in enumerate(ws.workloads):
        if w in known:
            out.append(trusted(WorkloadPlan, {**known[w].__dict__, "rejected": rejected[w]}))
            continue
        allocs = allocs_of[w]
        curve = curves.get(w) if allocs else None
        out.append(
            trusted(
                WorkloadPlan,
                {
                    "id": wl.id,
                    "status": "ok" if allocs else "infeasible",
                    "description": wl.description,
                    "tasks": tasks_w[w],
                    "turns": wl.turns,
                    "budget_s": budget_w[w],
                    "threshold": wa.threshold[w],
                    "metric": wa.metric[w],
                    "capability_min": None if np.isnan(wa.cap_min[w]) else float(wa.cap_min[w]),
                    "cost": costs[w],
                    "cost_per_task": per_task[w] if allocs else None,
                    "latency_s": trusted(LatencySummary, {"mean": lat_mean[w], "max": lat_max[w]}) if allocs else None,
                    "within_budget_share": within[w] if allocs else None,
                    "within_budget_share_required": required[w],
                    "capability_mean": cap_mean[w] if allocs else None,
                    "peak_tasks_per_minute": peak[w],
                    "peak_assumed": assumed[w],
                    "eligible": eligible[w],
                    "allocations": allocs,
                    "rejected": rejected[w],
                    "rejected_far": 0,
                    "cached_input_share": float(wl.tokens.cached_input_share),
                    "break_even": break_even.get(w, []),
                    "tool_latency_s": wl.tool_latency_s,
                    "streaming": wl.latency.streaming,
                    "compounding": None if curve is None else trusted(Compounding, curve),
                    "diagnosis": None if eligible[w] else _nearest_misses(pairs, w),
                    "distribution": None
                    if wa.distributions[w] is None
                    else trusted(
                        DistributionInfo, {"file": wa.distributions[w].file, "samples": len(wa.distributions[w])}
                    ),
                    "percentile": judged.get(w),
                },
            )
        )
    return out


def _percentile_info(pairs: Pairs, allocs_of: list[list[Allocation]]) -> dict[int, PercentileInfo]:
    """Per workload judged at a percentile: which of its options were judged at a median for lack of
    measured percentiles, and which at their last measured point (the percentile lies beyond it)."""
    wa, opts = pairs.workloads, pairs.options
    out: dict[int, PercentileInfo] = {}
    gaps: dict[float, tuple[np.ndarray, np.ndarray]] = {}
    index = {key: o for o, key in enumerate(zip(opts.offering_id, opts.mode))}
    for w in np.flatnonzero(~np.isnan(wa.percentile)).tolist():
        p = float(wa.percentile[w])
        if p not in gaps:
            gaps[p] = percentile_gaps(opts, p)
        median, limit = gaps[p]
        used = [index[a.offering, a.mode] for a in allocs_of[w]]
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


def _count_far(workloads: list[WorkloadPlan], pairs: Pairs, far: np.ndarray) -> None:
    """Each workload's count of options that miss by a mile and cost less per task than its plan
    (than anything, when it has no plan)."""
    chosen = np.array([np.inf if w.cost_per_task is None else w.cost_per_task for w in workloads])
    counts = (far & (pairs.cost_per_task < chosen[:, None])).sum(axis=1).tolist()
    for w, n in zip(workloads, counts):
        if w.rejected_far != n:
            w.__dict__["rejected_far"] = n


def _rejections(
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
            },
        )
        for o, why, cpt, lat, c in zip(
            ro.tolist(),
            pairs.reasons_many(rw, ro),
            pairs.cost_per_task[rw, ro].tolist(),
            pairs.latency_s[rw, ro].tolist(),
            cap,
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
    allowed = pairs.vendor_ok[w] & pairs.region_ok[w] & pairs.context_ok[w]
    if not allowed.any():
        counts = {
            "vendor": (~pairs.vendor_ok[w]).sum(),
            "region": (~pairs.region_ok[w]).sum(),
            "context": (~pairs.context_ok[w]).sum(),
        }
        why = ", ".join(f"{k} ({v})" for k, v in counts.items() if v)
        return Diagnosis(summary=f"no option passes the vendor, region and context rules; rejected by {why}")
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
        summary="no eligible option: " + "; ".join(parts),
        fastest_meeting_floor=fastest,
        most_capable_within_budget=most,
    )


def _offering_uses(
    inputs: Inputs, pairs: Pairs, lp: LinearProgram, share: np.ndarray, eff: np.ndarray
) -> list[OfferingUse]:
    """Per offering in use: its spend (after a signed discount), tasks, and the peak load on its per-minute
    limits (batch jobs and reserved capacity are not on them)."""
    opts = pairs.options
    n_off = len(inputs.catalog.offerings)
    spend, tasks, tpm, rpm = (np.zeros(n_off) for _ in range(4))
    if len(share):
        off = opts.offering_index[lp.var_o]
        on_limits = share * opts.in_capacity[lp.var_o]
        spend = np.bincount(off, eff * share, minlength=n_off)
        tasks = np.bincount(off, pairs.workloads.tasks[lp.var_w] * share, minlength=n_off)
        tpm = np.bincount(off, pairs.peak_tpm[lp.var_w, lp.var_o] * on_limits, minlength=n_off)
        rpm = np.bincount(off, pairs.peak_rpm[lp.var_w, lp.var_o] * on_limits, minlength=n_off)
    out = []
    for i, o in enumerate(inputs.catalog.offerings):
        if tasks[i] <= 0:
            continue
        cap = o.capacity
        tpm_lim = cap.tokens_per_minute if cap else None
        rpm_lim = cap.requests_per_minute if cap else None
        ratios = [x / lim for x, lim in ((tpm[i], tpm_lim), (rpm[i], rpm_lim)) if lim]
        out.append(
            OfferingUse(
                id=o.id,
                vendor=o.vendor,
                host=o.host_name,
                tier=o.tier,
                spend=float(spend[i]),
                tasks=float(tasks[i]),
                peak_tpm=float(tpm[i]),
                tokens_per_minute=tpm_lim,
                peak_rpm=float(rpm[i]),
                requests_per_minute=rpm_lim,
                utilization=round(max(ratios), 9) if ratios else None,
                source=o.source,
                price_input=o.price.input,
                price_output=o.price.output,
                output_tps=o.speed.output_tps,
                ttft_s=o.speed.ttft_s,
                capability=dict(o.capability),
            )
        )
    out.sort(key=lambda u: (-u.spend, u.id))
    return out


def _vendor_spend(
    inputs: Inputs,
    pairs: Pairs,
    lp: LinearProgram,
    share: np.ndarray,
    eff: np.ndarray,
    paid: dict[str, float] | None = None,
) -> list[VendorSpend]:
    """One entry per company that bills or serves an option the plan uses: spend on what it bills or
    serves (an option billed by one company and served by another counts for both; a commitment's fees
    and shortfall count for its vendor), what it bills, and its share of the portfolio's traffic in the
    unit the share caps measure."""
    used = np.flatnonzero(share > 0)
    ws = inputs.workloads
    basis = ws.policy.share_of
    weight = traffic(ws, pairs, "tokens" if basis == "spend" else basis)
    in_lp = np.unique(lp.var_w)
    total_traffic = float(weight[in_lp].sum()) if len(in_lp) else 0.0
    spend = eff[used] * share[used]
    flow = weight[lp.var_w[used]] * share[used]
    totals: dict[str, list[float]] = {}  # company -> [spend, billed, traffic], in order of first use
    for k, o in enumerate(lp.var_o[used].tolist()):
        for c in pairs.options.companies[o]:
            t = totals.setdefault(c, [0.0, 0.0, 0.0])
            t[0] += spend[k]
            t[2] += flow[k]
        totals[pairs.options.vendor[o]][1] += spend[k]
    for c, fees in (paid or {}).items():
        if fees:
            t = totals.setdefault(c, [0.0, 0.0, 0.0])
            t[0] += fees
            t[1] += fees
    grand = float(spend.sum()) + sum((paid or {}).values())
    caps = vendor_caps(ws, totals)
    out = [
        VendorSpend(
            vendor=c,
            spend=t[0],
            share=t[0] / grand if grand > 0 else 0.0,
            cap=caps.get(c),
            billed=t[1],
            traffic_share=t[2] / total_traffic if total_traffic > 0 else 0.0,
            spend_cap=ws.policy.vendor_spend.get(c),
        )
        for c, t in totals.items()
    ]
    out.sort(key=lambda x: (-x.spend, x.vendor))
    return out


def _natural(row: Row, act: float, lp: LinearProgram, share: np.ndarray, total: float) -> float:
    """A row's activity in the user's units (tokens/min, share of spend, currency...)."""
    if row.family == "vendor_spend_share":
        on_v = lp.spend[row.cols] * share[row.cols] * (row.coefs > 0)
        return float(on_v.sum() / total) if total > 0 else 0.0
    if row.family == "budget":
        return total
    return act / row.rhs_scale if row.rhs_scale else act


SHARE_FAMILIES = ("vendor_share", "vendor_spend_share", "workload_vendor_share", "latency_share")
LABELS = {  # a constraint in plain words, from its family and the ids in its name
    "tokens_per_minute": "{0}: tokens per minute",
    "requests_per_minute": "{0}: requests per minute",
    "vendor_share": "{0}: cap on its share of traffic",
    "vendor_spend_share": "{0}: cap on its share of spend",
    "vendor_spend": "{0}: spend cap",
    "workload_vendor_share": "{1}: cap on its share of {0}",
    "latency_share": "{0}: share of tasks within budget",
    "mean_capability": "{0}: mean capability floor",
    "budget": "the budget",
}
MEANING = {  # what one step of a binding limit is worth, in the period's currency
    "tokens_per_minute": "another {step} tokens/minute on {0} would save {money} a {period}",
    "requests_per_minute": "another {step} requests/minute on {0} would save {money} a {period}",
    "vendor_share": "each point more on {0}'s traffic cap (now {limit}) would save {money} a {period}",
    "vendor_spend_share": "each point more on {0}'s spend-share cap (now {limit}) would save {money} a {period}",
    "vendor_spend": "another {step} on {0}'s spend cap (now {limit}) would save {money} a {period}",
    "workload_vendor_share": "each point more on {1}'s cap for {0} (now {limit}) would save {money} a {period}",
    "latency_share": "each point of {0}'s within-budget share (now {limit}) costs {money} a {period}",
    "mean_capability": "each point of {0}'s mean capability floor (now {limit}) costs {money} a {period}",
    "budget": "the budget ({limit}) is fully used",
}


def _ids(row: Row) -> list[str]:
    """The ids in a row's name: "latency_share:w" -> [w]; "workload_vendor_share:w:c" -> [w, c]."""
    ident = row.name.split(":", 1)[1] if ":" in row.name else ""
    if row.family == "workload_vendor_share":
        return ident.rsplit(":", 1)
    return [ident]


def label(row: Row) -> str:
    """A constraint as people read it ("ticket-triage: share of tasks within budget")."""
    return LABELS[row.family].format(*_ids(row)) if row.family in LABELS else row.name


def _binding(
    lp: LinearProgram,
    share: np.ndarray,
    result: SolveResult,
    total: float,
    currency: str = "USD",
    period: str = "period",
    acts: np.ndarray | None = None,
) -> list[Binding]:
    out = []
    if acts is None:
        acts, _ = lp.activities(share)
    _, rhs = lp.senses
    families = lp.families
    for i in np.flatnonzero(np.abs(acts - rhs) <= 1e-7 * np.maximum(1.0, np.abs(rhs))).tolist():
        if families[i] in ("cover", *CONTRACT_FAMILIES):  # (commitments and switches: in their own sections)
            continue
        row = lp.rows[i]
        pi = result.pi.get(i)
        shadow = None
        if pi is not None:
            rhs_scale = total / lp.scale if row.family == "vendor_spend_share" else row.rhs_scale
            shadow = abs(pi) * lp.scale * rhs_scale
            shadow = float(f"{shadow:.9g}")
        out.append(
            Binding(
                constraint=row.name,
                shadow_price=shadow,
                limit=row.limit,
                unit=row.unit,
                meaning=_meaning(row, shadow, currency, period),
                label=label(row),
                worth=None if shadow is None else float(f"{shadow * _step(row):.6g}"),
            )
        )
    return out


def _meaning(row: Row, shadow: float | None, currency: str = "USD", period: str = "period") -> str:
    """What one step of the limit is worth: a point of a share, a tenth of a capacity's or spend
    cap's order of magnitude, a point of a mean floor."""
    if shadow is None or row.family not in MEANING:
        return f"{label(row)} is at its limit"
    limit = row.limit or 0.0
    step = _step(row)
    worth = shadow * step
    text = MEANING[row.family].format(
        *_ids(row),
        step=money(step, currency) if row.family == "vendor_spend" else f"{step:,.0f}",
        limit=in_unit(limit, row.unit, currency),
        money=money(worth, currency) if worth >= 0.005 else "under a cent",
        period=period,
    )
    return text


def _step(row: Row) -> float:
    """One step of a limit, what its worth is said of: a point of a share, a tenth of a capacity's or
    a spend cap's order of magnitude, else one unit (a point of a mean floor, a unit of money)."""
    if row.family in ("tokens_per_minute", "requests_per_minute", "vendor_spend"):
        return 10.0 ** max(0, int(np.floor(np.log10(max(row.limit or 0.0, 1)))) - 1)
    return 0.01 if row.family in SHARE_FAMILIES else 1.0


def _relaxations(
    lp: LinearProgram,
    share: np.ndarray,
    slack: np.ndarray,
    total: float,
    currency: str = "USD",
    acts: np.ndarray | None = None,
):
    """The limits the smallest relaxation moves, in plain words. A move within the elastic solve's
    tolerance (RELAX_NOISE of the limit) is noise and not listed; one that takes a requirement away
    entirely (a share or floor to nothing, a share cap to 100%) is flagged."""
    out = []
    if acts is None:
        acts, _ = lp.activities(share)
    for i, row in enumerate(lp.rows):
        if row.relax_weight is None or slack[i] <= 1e-9:
            continue
        act = float(acts[i])
        needed = _natural(row, act, lp, share, total)
        limit = float(row.limit)
        by = needed - limit if row.sense == "<=" else limit - needed
        if by <= RELAX_NOISE * max(1.0, abs(limit)):
            continue
        removes = needed <= 1e-9 if row.sense == ">=" else (row.family in SHARE_FAMILIES and needed >= 1 - 1e-9)
        verb = "raised" if row.sense == "<=" else "lowered"
        a, b = _apart(row, limit, needed, currency)
        way = "up" if row.sense == "<=" else "down"
        if row.family in SHARE_FAMILIES:  # a share moves by points, not by a percentage of itself
            rel = f" ({figure(100 * by, 3)} points {way})" if not removes else ""
        else:
            rel = f" ({percent(by / limit)} {way})" if limit and not removes else ""
        text = f"{label(row)} must be {verb} from {a} to {b}{rel} for a plan to exist"
        if removes:
            text += ": that removes the requirement entirely"
        out.append(
            Relaxation(
                constraint=row.name,
                limit=limit,
                needed=needed,
                by=by,
                unit=row.unit,
                meaning=text,
                label=label(row),
                removes=removes,
            )
        )
    return out


def _apart(row: Row, limit: float, needed: float, currency: str) -> tuple[str, str]:
    """The limit and the needed value written so that they read differently: more digits when the
    usual ones would show the same figure twice."""
    a, b = in_unit(limit, row.unit, currency), in_unit(needed, row.unit, currency)
    if a != b:
        return a, b
    for digits in range(2, 7):
        if row.family in SHARE_FAMILIES:
            a, b = f"{limit:.{digits}%}", f"{needed:.{digits}%}"
        else:
            a, b = f"{limit:,.{digits}f}", f"{needed:,.{digits}f}"
        if a != b:
            break
    return a, b


def _assumptions(inputs: Inputs, pairs: Pairs) -> list[str]:
    ws, wa = inputs.workloads, pairs.workloads
    out = []
    assumed = [wa.ids[w] for w in np.flatnonzero(wa.peak_assumed)]
    if assumed:
        out.append(
            f"peak load from the average (tasks / {ws.minutes:,} minutes x peak_factor "
            f"{ws.policy.peak_factor:g}) for: {', '.join(assumed)}"
        )
    no_prefill = sorted({o.id for o in inputs.catalog.offerings if o.speed.prefill_tps is None})
    if len(no_prefill) == len(inputs.catalog.offerings):
        out.append("prompt processing folded into time to first token (no prefill_tps) for every offering")
    elif no_prefill:
        out.append(
            f"prompt processing folded into time to first token (no prefill_tps) for "
            f"{len(no_prefill)} offering(s): {', '.join(no_prefill[:12])}{' ...' if len(no_prefill) > 12 else ''}"
        )
    no_cache = sorted({o.id for o in inputs.catalog.offerings if o.price.cached_input is None})
    if no_cache and any(w.tokens.cached_input_share > 0 for w in ws.workloads):
        out.append(f"cached input billed at the input price (no cached_input price) for {len(no_cache)} offering(s)")
    for w in np.flatnonzero(wa.sampled).tolist():
        d = wa.distributions[w]
        out.append(
            f"{wa.ids[w]}: latency judged on {len(d):,} sample tasks from {d.file}, each with its own calls and "
            "tokens; cost and capacity on the workload's stated tokens and turns"
        )
    for p in np.unique(wa.percentile[~np.isnan(wa.percentile)]).tolist():
        named = [wa.ids[w] for w in np.flatnonzero(wa.percentile == p).tolist()]
        median, _ = percentile_gaps(pairs.options, p)
        out.append(
            f"latency at the {ordinal(p)} percentile for {', '.join(named)}: each call at the "
            f"{ordinal(100 - p)} percentile of output speed and the {ordinal(p)} of time to first token, "
            "interpolated between the measured percentiles; "
            + (
                f"{int(median.sum())} of {len(median)} options lack them for output speed or first-token time "
                "and are judged at that figure's median"
                if median.any()
                else "every option has them measured"
            )
        )
    out.append(f"period: {ws.period} ({ws.minutes:,} minutes); currency: {inputs.catalog.currency}")
    return out
