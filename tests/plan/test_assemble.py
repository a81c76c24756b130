"""The plan's records (planner.plan.assemble): exact costs for the reported shares, the diagnosis of a
workload no option can carry, and the Plan built once from its parts and the review."""

import pytest
from conftest import catalog_of, make_inputs, offering, solve_dicts, workload, workloads_of


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


def test_the_plan_is_built_once_from_its_parts_and_the_review(tiny_workloads, tiny_catalog):
    """build_plan reads the parts and the review's findings; it changes neither, and without a review the
    plan is the parts as assembled."""
    from dataclasses import fields

    import numpy as np

    from planner.optimize.lp import build_problem
    from planner.optimize.pairs import build_pairs
    from planner.optimize.solver import settled, solve_lp
    from planner.plan.assemble import Review, build_plan, plan_parts
    from planner.plan.model import Risk

    inputs = make_inputs(tiny_workloads, tiny_catalog)
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    in_lp = np.flatnonzero(pairs.eligible_count > 0)
    lp = build_problem(inputs.workloads, inputs.catalog, pairs, in_lp, pairs.eligible)
    result = solve_lp(lp, "highs")
    share, extra = settled(lp, result)
    activities = lp.activities(share, extra)  # (the tiny files have no commitments: no extra columns)
    parts = plan_parts(
        inputs, pairs, lp, share, result, activities, solver="HiGHS", scenario=None, break_even={}, curves={}
    )
    bare = build_plan(parts)
    assert {f.name: getattr(parts, f.name) for f in fields(parts)} == {
        f.name: getattr(bare, f.name) for f in fields(parts)
    }
    assert bare.resilience == [] and bare.risks == [] and bare.switching is None
    risk = Risk(kind="capacity", severity="high", subject="x", spend=1.0, text="t", action="a")
    reviewed = build_plan(parts, Review(status="feasible", risks=[risk], assumptions=["said"]))
    assert reviewed.status == "feasible" and reviewed.risks == [risk]
    assert reviewed.assumptions == [*parts.assumptions, "said"] and parts.status == bare.status == "optimal"


def test_the_parts_hold_every_plan_field_but_the_reviews():
    """A Plan field added to the model and forgotten in PlanParts would fail every solve; this says where."""
    import dataclasses

    from planner.plan.assemble import PlanParts, Review
    from planner.plan.model import Plan

    parts = {f.name for f in dataclasses.fields(PlanParts)}
    reviewed = {f.name for f in dataclasses.fields(Review)} - {"status", "commitments", "assumptions", "diagnosis"}
    file_only = {"compounding_omitted"}  # what a plan file leaves out (plan.trim): 0 in every plan assembled
    assert set(Plan.model_fields) - parts - reviewed == {"plan_version", *file_only}
