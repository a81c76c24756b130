"""The plan's records (planner.plan.assemble): exact costs for the reported shares, and the diagnosis of a
workload no option can carry."""

import pytest
from conftest import catalog_of, offering, solve_dicts, workload, workloads_of


def test_reported_costs_are_exact_for_the_reported_shares(tiny_workloads, tiny_catalog):
    plan = solve_dicts(tiny_workloads, tiny_catalog)
    for w in plan.workloads:
        assert sum(a.share for a in w.allocations) == pytest.approx(1.0, abs=1e-12)
        for a in w.allocations:
            assert a.cost == a.share * w.tasks * a.cost_per_task
        assert w.cost == sum(a.cost for a in w.allocations)
    assert plan.total_cost == sum(w.cost for w in plan.workloads)


def test_workload_without_eligible_option_gets_nearest_misses():
    cat = catalog_of(offering("slow-smart", tps=10, capability=95), offering("fast-dumb", tps=1000, capability=50))
    ws = workloads_of(workload("w", latency={"budget_s": 5}, capability={"min": 90}), workload("ok"))
    plan = solve_dicts(ws, cat)
    assert plan.status == "infeasible"
    w = plan.workload("w")
    assert w.status == "infeasible" and w.allocations == []
    assert w.diagnosis.fastest_meeting_floor.offering == "slow-smart"
    assert w.diagnosis.fastest_meeting_floor.latency_s == pytest.approx(100.0)
    assert w.diagnosis.most_capable_within_budget.offering == "fast-dumb"
    assert "would need a budget of 100 s" in w.diagnosis.summary
    assert plan.workload("ok").status == "ok"  # the rest of the portfolio is still planned
    assert {r.offering for r in w.rejected} == {"slow-smart", "fast-dumb"}
