"""What the page draws, as JSON: the state's summary, routes, risks, spend by company, and its change
against the base with the cost bridge; the figures written as the report writes them (core.fmt), so
the page and the report cannot disagree, with the plain numbers beside them for a program.

A state without a feasible plan carries no cost, change or saving: its total is null and it says what
it lacks (the workloads left with no option, the limits its smallest relaxation moves).
"""

from __future__ import annotations

from planner.core.fmt import money, money_change, percent, seconds, signed_percent
from planner.outputs.report.render import BUY_ROWS, RISKS
from planner.plan.model import Plan, WorkloadPlan
from planner.review.compare import Comparison
from planner.serve.changes import label
from planner.serve.session import Session, State

CHANGED_ROWS = 60  # rerouted workloads listed (a large portfolio's largest cost changes first)


def options(session: Session) -> dict:
    """What the controls offer: the workloads with their budgets, the companies, the offerings."""
    ws, catalog = session.inputs.workloads, session.inputs.catalog
    thresholds = ws.all_thresholds
    rows = []
    for w in ws.workloads:
        budget = w.latency.budget_s if w.latency.budget_s is not None else thresholds.get(w.latency.threshold or "")
        rows.append(
            {
                "id": w.id,
                "budget_s": budget,
                "budget": seconds(budget) if budget is not None else "none",
                "within": w.latency.within_budget_share,
                "tasks": w.tasks,
            }
        )
    return {
        "workloads": rows,
        "billing": sorted({o.vendor for o in catalog.offerings}),
        "companies": sorted({c for o in catalog.offerings for c in o.companies}),
        "offerings": [o.id for o in catalog.offerings],
        "share_of": ws.policy.share_of,
        "max_vendor_share": ws.policy.max_vendor_share,
        "vendor_share": dict(ws.policy.vendor_share),
    }


def state_view(session: Session, state: State) -> dict:
    """The page's view of a state."""
    plan, base = state.plan, session.base
    cur = plan.currency
    feasible = plan.status != "infeasible"
    share_of = session.inputs.workloads.policy.share_of
    moved = {w.id for w in state.comparison.workloads if w.changed} if state.comparison else set()
    return {
        "name": base.name,
        "catalog": f"{base.inputs.catalog} (as of {base.inputs.as_of or 'unknown'})",
        "workloads_file": base.inputs.workloads_file,
        "period": plan.period,
        "currency": cur,
        "changes": [{"change": c.model_dump(exclude_none=True), "label": label(c, share_of)} for c in state.changes],
        "status": plan.status,
        "feasible": feasible,
        "total_cost": plan.total_cost if feasible else None,
        "total": money(plan.total_cost, cur) if feasible else None,
        "base_total_cost": base.total_cost if base.status != "infeasible" else None,
        "base_total": money(base.total_cost, cur) if base.status != "infeasible" else None,
        "lead": _lead(plan),
        "lacks": state.comparison.lacks_after if state.comparison else _lacks(plan),
        "diagnosis": list(plan.diagnosis) if not feasible else [],
        "routes": _routes(plan, moved) if feasible else [],
        "routes_note": _routes_note(plan),
        "risks": [{"severity": r.severity, "text": r.text, "action": r.action} for r in plan.risks[:RISKS]],
        "risks_more": max(0, len(plan.risks) - RISKS),
        "vendors": [
            {"company": v.vendor, "spend": money(v.spend, cur), "share": percent(v.share), "fraction": v.share}
            for v in plan.vendors
        ]
        if feasible
        else [],
        "comparison": _comparison(state.comparison) if state.comparison else None,
        "seconds": round(state.seconds, 4),
    }


def _lead(plan: Plan) -> str:
    if plan.status == "infeasible":
        return "No plan meets every rule with these changes: what it lacks is below, and no cost is shown."
    n, k = len(plan.workloads), len(plan.vendors)
    text = (
        f"{n} workload{'s' if n != 1 else ''} on {k} compan{'ies' if k != 1 else 'y'} for "
        f"{money(plan.total_cost, plan.currency)} a {plan.period}, every budget, floor and limit met"
    )
    if plan.vendors:
        text += f"; {plan.vendors[0].vendor} carries {percent(plan.vendors[0].share)} of the spend"
    return text + "."


def _lacks(plan: Plan) -> str:
    from planner.review.compare import shortfall

    return shortfall(plan)


def _buy(plan: Plan) -> list[WorkloadPlan]:
    return sorted(plan.workloads, key=lambda w: (w.status == "ok", -w.cost, w.id))[:BUY_ROWS]


def _routes(plan: Plan, moved: set[str]) -> list[dict]:
    """The summary's routes as the report's table has them: the workloads of largest spend, each
    allocation a row, largest share first."""
    cur, rows = plan.currency, []
    for w in _buy(plan):
        budget = seconds(w.budget_s) if w.budget_s else "none"
        allocations = sorted(w.allocations, key=lambda a: -a.share)
        if not allocations:
            why = w.diagnosis.summary if w.diagnosis else "see the diagnosis"
            rows.append({"workload": w.id, "rows": 1, "first": True, "moved": w.id in moved, "none": why})
        for k, a in enumerate(allocations):
            miss = ""
            if w.budget_s and not a.within_budget:
                miss = f"{percent(a.within_budget_share)} of tasks in" if a.within_budget_share is not None else "over"
            rows.append(
                {
                    "workload": w.id,
                    "rows": len(allocations),
                    "first": k == 0,
                    "moved": w.id in moved,
                    "offering": a.offering,
                    "mode": a.mode,
                    "option": a.option,
                    "who": f"{a.who} · {a.tier}",
                    "share": percent(a.share),
                    "share_value": a.share,
                    "latency": ("≤" if a.price_tier == "batch" else "") + f"{seconds(a.latency_s)} / {budget}",
                    "miss": miss,
                    "cost": money(a.cost, cur),
                    "cost_value": a.cost,
                }
            )
    return rows


def _routes_note(plan: Plan) -> str:
    if plan.status == "infeasible":
        return "The downloaded report shows the routes of the smallest relaxation; they are not a plan to buy."
    if len(plan.workloads) > BUY_ROWS:
        return f"The {BUY_ROWS} workloads with the largest spend; all {len(plan.workloads)} are in the report."
    return ""


def _comparison(c: Comparison) -> dict:
    """The change against the base: a cost and its bridge only between two feasible plans."""
    cur = c.currency
    rerouted = [w for w in c.workloads if w.changed or w.status_before != w.status_after]
    if len(rerouted) > CHANGED_ROWS:
        rerouted = sorted(rerouted, key=lambda w: -abs((w.cost_after or 0) - (w.cost_before or 0)))[:CHANGED_ROWS]
    return {
        "comparable": c.comparable,
        "delta": c.delta,
        "delta_text": money_change(c.delta, cur) if c.comparable else None,
        "relative": signed_percent(c.delta / c.total_before) if c.comparable and c.total_before > 0 else None,
        "bridge": [
            {
                "key": s.key,
                "label": s.label,
                "amount": s.amount,
                "text": money_change(s.amount, cur),
                "detail": ", ".join(s.detail),
            }
            for s in c.bridge
        ],
        "bridge_note": c.bridge_note,
        "lacks_before": c.lacks_before,
        "lacks_after": c.lacks_after,
        "rerouted": [
            {
                "id": w.id,
                "before": _routing(w.routing_before, w.status_before),
                "after": _routing(w.routing_after, w.status_after),
                "change": money_change((w.cost_after or 0) - (w.cost_before or 0), cur)
                if c.comparable and w.cost_before is not None and w.cost_after is not None
                else "-",
                "why": "; ".join(c.reasons.get(w.id, [])),
            }
            for w in rerouted
        ],
        "rerouted_count": sum(w.changed for w in c.workloads),
        "started": c.binding_started,
        "stopped": c.binding_stopped,
        "notes": c.notes,
    }


def _routing(routes: list[str], status: str | None) -> str:
    return ", ".join(routes) or ("not in the plan" if status is None else "no option")
