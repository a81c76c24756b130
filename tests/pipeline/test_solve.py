"""The pipeline (planner.pipeline.solve): pairs -> prune -> LP -> run -> check -> plan. The same input gives the
same bytes; a solve started from a solved base (a what-if scenario's) gives the plan a cold solve
gives, whether sifting from the base's routing settles or falls back to the whole LP."""

import copy
import dataclasses
import json
import logging

import pytest
from conftest import (
    catalog_of,
    make_inputs,
    offering,
    plan_bytes,
    planner_log,
    routing_start,
    solve_dicts,
    workload,
    workloads_of,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from reference import check_plan
from strategies import EXPLORE, VENDORS, examples, portfolios, with_fallback

from planner.pipeline.solve import solve_base, solve_inputs

SETTLED = "solve: sifting from the start's routing settled"
FELL_BACK = "solve: sifting from the start's routing gave no answer; the whole LP is solved"


def test_same_input_same_bytes(tiny_workloads, tiny_catalog):
    def text():
        return json.dumps(plan_bytes(solve_dicts(tiny_workloads, tiny_catalog)))

    assert text() == text()


def test_auto_solves_with_highs(tiny_workloads, tiny_catalog):
    inputs = make_inputs(tiny_workloads, tiny_catalog)
    auto = solve_inputs(inputs)
    assert auto.solver.name == "HiGHS"
    assert plan_bytes(auto) == plan_bytes(solve_inputs(inputs, "highs"))


def test_each_stage_is_timed_at_info_level(caplog, tiny_workloads, tiny_catalog):
    caplog.set_level(logging.INFO, logger="planner")
    solve_dicts(tiny_workloads, tiny_catalog, "highs")
    stages = [m.split(":")[0] for m in caplog.messages]
    assert stages == [
        "stage pairs",
        "stage prune",
        "stage lp",
        "stage solve",
        "stage check",
        "stage review",
        "stage baselines",
        "stage plan",
        "stage outages",
        "stage company break-evens",
    ]
    assert all(m.endswith(" s") and float(m.split(": ")[1][:-2]) >= 0 for m in caplog.messages)


def test_nothing_is_logged_below_warning_by_default(caplog, tiny_workloads, tiny_catalog):
    caplog.set_level(logging.WARNING, logger="planner")
    solve_dicts(tiny_workloads, tiny_catalog, "highs")
    assert caplog.messages == []


def price_cut():
    """Four offerings of two vendors; vendor b cuts b1's prices, after which a capacity row and a
    vendor cap bind. Returns the base inputs and the scenario's (the same workloads)."""
    cat = catalog_of(
        offering("a1", vendor="a", price_in=1, price_out=2, tps=80),
        offering("a2", vendor="a", price_in=2, price_out=2, tps=900, capacity={"tokens_per_minute": 40_000}),
        offering("b1", vendor="b", price_in=1.5, price_out=2.5, tps=60),
        offering("b2", vendor="b", price_in=4, price_out=4, tps=1000),
    )
    ws = workloads_of(
        workload("chat", tasks=2e6, latency={"budget_s": 10.0, "within_budget_share": 0.5}),
        workload("agent", tasks=3e5, turns=4),
        workload("batch", tasks=1e5),
        policy={"vendor_share": {"b": 0.4}, "share_of": "spend"},
    )
    base_inputs = make_inputs(ws, cat)
    cat["offerings"][2]["price"] = {"input": 0.5, "output": 1.0}  # vendor b cuts prices
    return base_inputs, dataclasses.replace(base_inputs, catalog=make_inputs(ws, cat).catalog)


def test_a_solve_started_from_a_base_gives_the_plan_a_cold_solve_gives(caplog):
    """What-if scenarios start from the base's tables and routing (sifting): the same plan as from
    scratch, here with a capacity row and a vendor cap binding after a price cut; so does a start
    from the base's routing alone (with the scenario's own tables)."""
    base_inputs, inputs = price_cut()
    base, start = solve_base(base_inputs, "highs")
    cold = solve_inputs(inputs, "highs")
    caplog.set_level(logging.DEBUG, logger="planner")
    warm = solve_inputs(inputs, "highs", start=start)
    assert "pairs: 1 of 4 options recomputed, the others taken from the start" in caplog.messages  # b1 only
    assert SETTLED in caplog.messages
    assert plan_bytes(warm) == plan_bytes(cold)
    assert {b.constraint.split(":")[0] for b in warm.binding} >= {"vendor_share", "tokens_per_minute"}
    caplog.clear()
    routed = solve_inputs(inputs, "highs", start=routing_start(inputs, base))
    assert "pairs: 0 of 4 options recomputed, the others taken from the start" in caplog.messages
    assert SETTLED in caplog.messages
    assert plan_bytes(routed) == plan_bytes(cold)


def test_a_lean_solve_started_from_a_base_writes_the_cold_solves_file():
    """As a what-if batch solves a scenario (no review figures, no outage table): the plan file is the
    one a cold solve of the scenario writes, byte for byte."""
    cat = catalog_of(
        offering("a1", vendor="a", price_in=1, price_out=2, tps=80),
        offering("b1", vendor="b", price_in=1.5, price_out=2.5, tps=60, capability=90.0),
        offering("c1", vendor="c", price_in=3, price_out=3, tps=900),
    )
    ws = workloads_of(
        workload("chat", tasks=2e6),
        workload("fast", tasks=1e5, latency={"budget_s": 2.0}),
        workload("smart", tasks=1e4, capability={"min": 85}, turns=3),
    )
    base_inputs = make_inputs(ws, cat)
    _, start = solve_base(base_inputs, "highs")
    cat["offerings"][0]["price"] = {"input": 0.5, "output": 1.0}  # a1, which chat uses, gets cheaper
    inputs = dataclasses.replace(base_inputs, catalog=make_inputs(ws, cat).catalog)
    lean = solve_inputs(inputs, "highs", scenario="a1-cheaper", start=start, review=False, resilience=False)
    cold = solve_inputs(inputs, "highs", scenario="a1-cheaper", review=False, resilience=False)
    cold.solver.seconds = lean.solver.seconds
    assert lean.to_json() == cold.to_json()
    assert lean.inputs.scenario == "a1-cheaper" and lean.baselines == [] and lean.resilience == []


def test_a_start_with_no_feasible_restriction_falls_back_to_the_whole_lp(caplog):
    """The base routed everything to vendor a; the scenario caps a at 50% of the spend, so the LP
    restricted to the base's routing (and each workload's cheapest option, a again) is infeasible:
    the whole LP is solved instead, and the plan is the cold solve's."""
    cat = catalog_of(
        offering("a", vendor="a", price_in=1, price_out=1), offering("b", vendor="b", price_in=2, price_out=2)
    )
    base, start = solve_base(make_inputs(workloads_of(workload("w")), cat), "highs")
    assert start.routing == (("w", "a", "default"),)
    inputs = make_inputs(workloads_of(workload("w"), policy={"vendor_share": {"a": 0.5}, "share_of": "spend"}), cat)
    caplog.set_level(logging.DEBUG, logger="planner")
    warm = solve_inputs(inputs, "highs", start=start)
    assert FELL_BACK in caplog.messages and SETTLED not in caplog.messages
    shares = {a.offering: a.share for a in warm.workload("w").allocations}
    assert shares == pytest.approx({"a": 2 / 3, "b": 1 / 3})  # equal spend on a and b
    assert plan_bytes(warm) == plan_bytes(solve_inputs(inputs, "highs"))


@pytest.mark.parametrize("solver, max_options", [("cbc", None), ("highs", 1)])
def test_without_sifting_a_start_still_gives_the_cold_plan(caplog, solver, max_options):
    """Sifting is a HiGHS pass over plain LPs: with CBC, or integer groups, a start gives its tables
    only, and the plan is the cold one's."""
    base_inputs, inputs = price_cut()
    if max_options:
        ws = base_inputs.workloads.model_copy(
            update={
                "workloads": [
                    w.model_copy(update={"max_options": max_options}) for w in base_inputs.workloads.workloads
                ]
            }
        )
        base_inputs, inputs = (dataclasses.replace(i, workloads=ws) for i in (base_inputs, inputs))
    _, start = solve_base(base_inputs, solver)
    caplog.set_level(logging.DEBUG, logger="planner")
    warm = solve_inputs(inputs, solver, start=start)
    assert "pairs: 1 of 4 options recomputed, the others taken from the start" in caplog.messages
    assert not any(m.startswith("solve: sifting") for m in caplog.messages)
    assert plan_bytes(warm) == plan_bytes(solve_inputs(inputs, solver))


@settings(
    max_examples=examples(150), derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    portfolios(),
    st.integers(0, len(VENDORS) - 1),
    st.sampled_from([0.25, 0.8, 1.5, 4.0]),
    st.booleans(),
    st.sampled_from([1.0, 0.3, 3.0]),
)
def test_a_scenario_started_from_the_base_plan_matches_a_cold_solve(portfolio, vendor, factor, twin, speed):
    """What-if scenarios are solved by sifting from the base plan's routing, reusing the base's
    figures for the options the scenario leaves alone: the optimum, the tie-break's latency and the
    checker's verdict are those of a solve from scratch, and reusing the base's figures changes
    nothing in the plan (with the review figures and without, as a what-if batch solves it)."""
    ws, cat = portfolio
    cat = with_fallback(cat)
    if twin:  # equal in cost and latency to the first offering, more capable: the twin rule decides
        cat["offerings"].append({**copy.deepcopy(cat["offerings"][0]), "id": "twin", "capability": 100.0})
    base_inputs = make_inputs(ws, cat)
    base, start = solve_base(base_inputs, "highs")
    hit = [off for off in cat["offerings"] if off["vendor"] == VENDORS[vendor]]
    for off in hit:
        off["price"] = {k: v * factor for k, v in off["price"].items()}
    if hit:  # and one offering slower or faster: options become eligible or not
        hit[0]["speed"] = {**hit[0]["speed"], "output_tps": hit[0]["speed"]["output_tps"] * speed}
    inputs = dataclasses.replace(base_inputs, catalog=make_inputs(ws, cat).catalog)
    with planner_log() as messages:
        warm = solve_inputs(inputs, "highs", start=start)
    event("sifted" if SETTLED in messages else "solved whole" if FELL_BACK in messages else "not an LP for sifting")
    routed_only = routing_start(inputs, base)  # the base's routing, the scenario's own tables
    assert plan_bytes(warm) == plan_bytes(solve_inputs(inputs, "highs", start=routed_only))
    lean = solve_inputs(inputs, "highs", start=start, review=False, resilience=False)
    fresh = solve_inputs(inputs, "highs", start=routed_only, review=False, resilience=False)
    assert plan_bytes(lean) == plan_bytes(fresh)
    cold = solve_inputs(inputs, "highs")
    assert warm.status == cold.status
    if cold.status != "optimal":
        return
    assert warm.total_cost == pytest.approx(cold.total_cost, rel=1e-7, abs=1e-9)

    def latency(plan):
        return sum(a.tasks * a.latency_s for w in plan.workloads for a in w.allocations)

    assert latency(warm) == pytest.approx(latency(cold), rel=1e-6, abs=1e-6)
    assert check_plan(json.loads(warm.to_json()), ws, cat) == []
