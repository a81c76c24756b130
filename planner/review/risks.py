"""What could hurt a plan, ranked, each with what to do about it (SPEC v1.3, "Risks").

Read from the plan's assembled parts (its vendors, capacity use, latencies and the catalog's
estimates) and the review's outage table, before the Plan is built. A plan file read back carries the
same fields, so `risks(plan, plan.resilience)` gives the same list. High before medium; within a severity,
the larger spend concerned first.
"""

from __future__ import annotations

import math

from planner.core.fmt import money, option, percent, seconds
from planner.plan.assemble import PlanParts
from planner.plan.model import Risk, VendorOutage, estimated_fields

CONCENTRATION = 0.5  # a company carrying more than half the spend is a concentration risk ...
CONCENTRATION_HIGH = 0.75  # ... a high one above three quarters
NEAR_BUDGET = 0.9  # a route at 90% of its budget or more is within 10% of it
CAPACITY = 0.8  # an offering above 80% of its rate limit at peak
CAPACITY_HIGH = 0.95
SEVERITY = {"high": 0, "medium": 1}


def risks(plan: PlanParts, resilience: list[VendorOutage]) -> list[Risk]:
    """Every risk of a feasible plan, most serious first; none for a plan that does not exist.
    resilience: the outage table (empty when not computed)."""
    if plan.status == "infeasible":
        return []
    found = [
        *_single_source(plan, resilience),
        *_concentration(plan, resilience),
        *_capacity(plan),
        *_near_budget(plan),
        *_estimated(plan),
        *_unpriced(plan),
    ]
    found.sort(key=lambda r: (SEVERITY[r.severity], -r.spend, r.kind, r.subject))
    return found


def _risk(kind: str, severity: str, subject: str, spend: float, text: str, action: str) -> Risk:
    return Risk(kind=kind, severity=severity, subject=subject, spend=float(spend), text=text, action=action)


def _single_source(plan: PlanParts, resilience: list[VendorOutage]) -> list[Risk]:
    """A company whose outage leaves workloads with no eligible option (from the outage table)."""
    cost = {w.id: w.cost for w in plan.workloads}
    out = []
    for r in resilience:
        if not r.lost_workloads:
            continue
        names = ", ".join(r.lost_workloads)
        one = len(r.lost_workloads) == 1
        out.append(
            _risk(
                "single_source",
                "high",
                r.vendor,
                sum(cost.get(w, 0.0) for w in r.lost_workloads),
                f"only {r.vendor} serves {names} within {'its' if one else 'their'} budget and floor: "
                f"without it {'that workload has' if one else 'those workloads have'} no option",
                f"find a second host for {'it' if one else 'them'} or agree a fallback budget or floor; "
                f"`planner explain {plan.inputs.workloads_file} --workload {r.lost_workloads[0]}` "
                "lists the nearest options",
            )
        )
    return out


def _concentration(plan: PlanParts, resilience: list[VendorOutage]) -> list[Risk]:
    """A company that bills or serves more than half the spend. The action prices a company share
    cap below what it carries now, in the unit the caps measure (policy.share_of), so the cap binds."""
    if not plan.vendors or plan.total_cost <= 0:
        return []
    top = plan.vendors[0]  # (sorted by spend)
    if top.share <= CONCENTRATION:
        return []
    outage = next((r for r in resilience if r.vendor == top.vendor), None)
    if outage is None:
        without = f"`planner whatif --without-vendor {top.vendor}` prices its outage"
    elif not outage.feasible:
        without = "without it no plan meets every rule"
    elif outage.change is not None:
        without = outage_change(outage, plan.currency, plan.period)
    else:
        without = "its outage could not be priced"
    unit = "spend" if plan.share_of == "spend" else "traffic" if plan.share_of == "tokens" else "tasks"
    now = top.share if plan.share_of == "spend" else top.traffic_share
    cap = max(0.1, math.floor(10 * (round(now, 2) - 0.1) + 1e-9) / 10)  # ten points below or more, in tenths
    carried = "" if plan.share_of == "spend" else f" and {percent(top.traffic_share)} of the {unit}"
    alone = [r for r in resilience if r.vendor == top.vendor and r.lost_workloads]
    first = f"; {', '.join(alone[0].lost_workloads)} need a second host first" if alone else ""
    return [
        _risk(
            "concentration",
            "high" if top.share > CONCENTRATION_HIGH or (outage is not None and not outage.feasible) else "medium",
            top.vendor,
            top.spend,
            f"{top.vendor} bills or serves {percent(top.share)} of the spend "
            f"({money(top.spend, plan.currency)} of {money(plan.total_cost, plan.currency)}){carried}; {without}",
            f"price a cap below its {percent(now)} of the {unit}: "
            f"`planner whatif {plan.inputs.workloads_file} --set policy.max_vendor_share={cap:g}`{first}",
        )
    ]


def outage_change(outage: VendorOutage, currency: str, period: str) -> str:
    """What a company's outage does to the cost, in words: a change under a cent is no change; when it
    leaves workloads with no option, the change is that of the workloads that still have one, said so."""
    lost = outage.lost_workloads
    change = outage.change or 0.0
    amount = (
        "the same"
        if abs(change) < 0.005
        else (f"{money(abs(change), currency)} a {period} {'more' if change > 0 else 'less'}")
    )
    if not lost:
        return "without it the plan costs " + ("the same (no change)" if amount == "the same" else amount)
    names = " and ".join([", ".join(lost[:-1]), lost[-1]]) if len(lost) > 1 else lost[0]
    return f"without it the rest cost {amount}; {names} {'have' if len(lost) > 1 else 'has'} no option"


def _capacity(plan: PlanParts) -> list[Risk]:
    """An offering used above 80% of its rate limit at peak."""
    out = []
    for o in plan.offerings:
        if o.utilization is None or o.utilization <= CAPACITY:
            continue
        out.append(
            _risk(
                "capacity",
                "high" if o.utilization > CAPACITY_HIGH else "medium",
                o.id,
                o.spend,
                f"{o.id} runs at {percent(o.utilization)} of its rate limit at peak",
                f"ask {o.host or o.vendor} for a higher limit, or cap its share; "
                "above its limit the plan's peak load does not fit",
            )
        )
    return out


def _near_budget(plan: PlanParts) -> list[Risk]:
    """A route within budget but within 10% of it: a slower day puts its tasks over."""
    out = []
    for w in plan.workloads:
        if not w.budget_s:
            continue
        for a in w.allocations:
            if not a.within_budget or a.latency_s < NEAR_BUDGET * w.budget_s:
                continue
            out.append(
                _risk(
                    "near_budget",
                    "medium",
                    w.id,
                    a.cost,
                    f"{w.id} on {a.option} takes {seconds(a.latency_s)} of its "
                    f"{seconds(w.budget_s)} budget: a 10% slower day puts {percent(a.share)} of its tasks over",
                    f"watch its tail latency at {a.host}; "
                    f"`planner frontier {plan.inputs.workloads_file} --workload {w.id}` prices more headroom",
                )
            )
    return out


def _estimated(plan: PlanParts) -> list[Risk]:
    """The routes whose cost, latency or capability rests on an estimate in the catalog: one risk,
    naming the options by spend."""
    spend: dict[str, float] = {}
    fields: list[str] = []
    for w in plan.workloads:
        for a in w.allocations:
            est = estimated_fields(plan.offering_info.get(a.offering), a.mode)
            if est:
                key = option(a.offering, a.mode)
                spend[key] = spend.get(key, 0.0) + a.cost
                fields += [f.replace(".", " ").replace("_", " ") for f in est if f not in fields]
    if not spend:
        return []
    total = sum(spend.values())
    names = sorted(spend, key=lambda k: (-spend[k], k))
    what = ", ".join(dict.fromkeys(fields))
    return [
        _risk(
            "estimated",
            "medium",
            "estimates",
            total,
            f"{money(total, plan.currency)} a {plan.period} ({percent(total / plan.total_cost)} of the spend) "
            f"rests on estimated {what}: {', '.join(names[:4])}"
            + (f" and {len(names) - 4} more" if len(names) > 4 else ""),
            "measure these routes on a sample of your traffic, or ask the hosts for the figures, before committing",
        )
    ]


def _unpriced(plan: PlanParts) -> list[Risk]:
    """Routes on an option priced at nothing (a free tier): terms and limits can change."""
    tasks: dict[tuple[str, str], float] = {}
    for w in plan.workloads:
        for a in w.allocations:
            if a.cost_per_task == 0 and a.reserved is None:  # (inside reserved capacity: paid by the fee)
                key = (a.offering, a.mode)
                tasks[key] = tasks.get(key, 0.0) + a.tasks
    return [
        _risk(
            "unpriced",
            "medium",
            option(*key),
            0.0,
            f"{option(*key)} carries {n:,.0f} tasks a {plan.period} at no price (a free tier)",
            "confirm its terms and rate limits; the plan's cost rises if it starts to bill",
        )
        for key, n in tasks.items()
    ]
