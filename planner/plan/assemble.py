"""A solved LP turned into the Plan, in two steps: `plan_parts` makes its records (per workload
(plan.records), spend per offering and vendor, the binding constraints and the smallest relaxation in
words (plan.wording), the commitments (plan.commitments), the assumptions made), which the review
reads; `build_plan` then constructs the Plan once, whole, from those parts and the review's findings.
Every figure comes from the pair table and the cleaned shares."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from planner.core.fmt import ordinal
from planner.core.records import trusted
from planner.model.load import Inputs
from planner.model.rescale import model_scores
from planner.optimize.lp import LinearProgram, traffic
from planner.optimize.pairs import Pairs, percentile_gaps, vendor_caps
from planner.optimize.solver import SolveResult
from planner.plan.commitments import commitment_terms
from planner.plan.model import (
    Baseline,
    Binding,
    CatalogEntry,
    CommitmentUse,
    CompanyBreakEven,
    Deployability,
    InputFiles,
    MetricInfo,
    OfferingInfo,
    OfferingUse,
    OverlayChange,
    OverlayInfo,
    Plan,
    Relaxation,
    Risk,
    SolverInfo,
    SwitchInfo,
    VendorOutage,
    VendorSpend,
    WorkloadPlan,
)
from planner.plan.records import Known, count_far, far_misses, rejections, workload_plans
from planner.plan.wording import BudgetAlone, bindings, relaxations


@dataclass(frozen=True)
class PlanParts:
    """The plan's records made from the solved model, before the review reads them: every field of the
    Plan but the review's (its resilience, risks and switching; its status, commitments and assumptions
    are the assembled ones, which the review may complete). Records are never changed once made."""

    status: str
    name: str
    period: str
    currency: str
    inputs: InputFiles
    solver: SolverInfo
    total_cost: float
    workloads: list[WorkloadPlan]
    offerings: list[OfferingUse]
    vendors: list[VendorSpend]
    binding: list[Binding]
    relaxation: list[Relaxation]
    diagnosis: list[str]
    thresholds: dict
    assumptions: list[str]
    baselines: list[Baseline]
    sources: dict[str, str]
    offering_info: dict[str, OfferingInfo]
    metrics: dict[str, MetricInfo]
    catalog_index: dict[str, CatalogEntry]
    overlays: list[OverlayInfo]
    share_of: str
    commitments: list[CommitmentUse] | None
    model_scores: dict[str, dict[str, float]]  # metric -> model -> score (compare's rescale detector)


@dataclass(frozen=True)
class Review:
    """What the review found in a plan's parts (the defaults: no review). status and commitments: None
    keeps the assembled ones; assumptions are said after the assembled ones."""

    status: str | None = None
    commitments: list[CommitmentUse] | None = None  # with their savings and needs
    switching: SwitchInfo | None = None
    resilience: list[VendorOutage] = dataclasses.field(default_factory=list)
    company_break_even: list[CompanyBreakEven] = dataclasses.field(default_factory=list)
    risks: list[Risk] = dataclasses.field(default_factory=list)
    assumptions: list[str] = dataclasses.field(default_factory=list)
    deployability: Deployability | None = None  # policy.deployable_on: what it costs
    diagnosis: list[str] = dataclasses.field(default_factory=list)  # said after the assembled diagnosis


def build_plan(parts: PlanParts, review: Review = Review()) -> Plan:
    """The Plan, constructed once and whole: the assembled parts with the review's findings."""
    values = {f.name: getattr(parts, f.name) for f in dataclasses.fields(parts)}
    values.update(
        status=parts.status if review.status is None else review.status,
        commitments=parts.commitments if review.commitments is None else review.commitments,
        assumptions=[*parts.assumptions, *review.assumptions],
        switching=review.switching,
        resilience=review.resilience,
        company_break_even=review.company_break_even,
        risks=review.risks,
        deployability=review.deployability,
        diagnosis=[*parts.diagnosis, *review.diagnosis],
    )
    return Plan(**values)


def plan_parts(
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
    time_limit: float | None = None,
    budget_alone: BudgetAlone | None = None,
    baselines: list | None = None,
) -> PlanParts:
    """The plan's parts from the cleaned shares: records, spend, bindings, relaxation, diagnosis,
    assumptions. break_even (per workload) and curves (compounding, per multi-turn workload) come from
    insight; known_rejections and known_records (a what-if scenario's, warm.py) give records already
    made; time_limit: the one the integer search ran under (a plan it stopped short of proving is
    `feasible`); budget_alone and baselines: review figures computed before the plan (pipeline.solve)."""
    ws, catalog = inputs.workloads, inputs.catalog
    total = lp.money(share, extra, total_only=True)  # what is paid to vendors: a budget's measure
    factor, commitments, paid = commitment_terms(inputs, pairs, lp, share, extra)
    eff = lp.spend * factor if len(lp.spend) else lp.spend
    relaxation = (
        relaxations(lp, share, result.slack, total, catalog.currency, activities[0], budget_alone)
        if result.slack is not None
        else []
    )
    far = far_misses(pairs)
    workloads = workload_plans(
        inputs,
        pairs,
        lp,
        share,
        break_even,
        rejections(pairs, known_rejections, far=far),
        curves,
        known_records or {},
        factor,
        frozenset(c.id for c in commitments or () if c.kind == "spend" and c.signed),
    )
    count_far(workloads, pairs, far)
    alone = np.flatnonzero(pairs.eligible_count == 0)
    diagnosis = [r.meaning for r in relaxation]
    diagnosis += [f"workload '{pairs.workloads.ids[w]}': {workloads[w].diagnosis.summary}" for w in alone]
    feasible = result.slack is None and len(alone) == 0
    proven = result.status != "Time limit"
    return PlanParts(
        status=("optimal" if proven else "feasible") if feasible else "infeasible",
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
        solver=_solver_info(solver, result, lp, time_limit),
        total_cost=sum(w.cost for w in workloads) + sum(c.cost for c in commitments or ()),
        workloads=workloads,
        offerings=_offering_uses(inputs, pairs, lp, share, eff),
        vendors=_vendor_spend(inputs, pairs, lp, share, eff, paid),
        binding=bindings(lp, share, result, total, catalog.currency, ws.period, activities[0]),
        relaxation=relaxation,
        diagnosis=diagnosis,
        thresholds=ws.all_thresholds,
        assumptions=_assumptions(inputs, pairs),
        baselines=baselines or [],
        **_catalog_parts(inputs, workloads),
        share_of=ws.policy.share_of,
        commitments=commitments,
    )


def _solver_info(solver: str, result: SolveResult, lp: LinearProgram, time_limit: float | None) -> SolverInfo:
    return SolverInfo(
        name=solver,
        status=result.status if result.slack is None else "Infeasible",
        seconds=round(result.seconds, 4),
        variables=result.n_vars,
        constraints=result.n_rows,
        integer=lp.integer,
        gap=result.gap if result.status == "Time limit" else None,
        time_limit=time_limit,
    )


def _catalog_parts(inputs: Inputs, workloads: list[WorkloadPlan]) -> dict:
    """What the plan keeps of the catalog: sources, the offerings it names, metrics, every offering's
    list terms, and the overlays with their changes."""
    catalog = inputs.catalog
    overlaid: dict[str, dict[str, str]] = {}  # offering -> field -> the (last) overlay that set it
    for a in inputs.overlays:
        for oid, field, _, _ in a.changes:
            if field != "removed":
                overlaid.setdefault(oid, {})[field] = a.name
    named = {a.offering for w in workloads for a in w.allocations} | {
        b.offering for w in workloads for b in w.break_even
    }
    return {
        "sources": {o.id: o.source for o in catalog.offerings if o.source},
        "offering_info": {
            o.id: OfferingInfo(
                model=o.model,
                vendor=o.vendor,
                host=o.host_name,
                tier=o.tier,
                price_input=o.price.input,
                price_output=o.price.output,
                gateway=dict(o.gateway),
                gateway_unlisted=list(o.gateway_unlisted) or None,
                estimated=list(o.estimated),
                overlay=overlaid.get(o.id, {}),
            )
            for o in catalog.offerings
            if o.id in named
        },
        "metrics": {m: MetricInfo(**d.model_dump()) for m, d in catalog.metrics.items()},
        "model_scores": model_scores(catalog),  # compare finds a rescale over these, as catalog diff does
        "catalog_index": {o.id: _entry(o) for o in catalog.offerings},
        "overlays": [
            OverlayInfo(
                name=a.name,
                file=a.file,
                description=a.description,
                source=a.source,
                changes=[OverlayChange(offering=i, field=f, before=b, after=v) for i, f, b, v in a.changes],
            )
            for a in inputs.overlays
        ],
    }


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
