"""The solver's passes (planner.optimize.solver): the cost pass and its latency tie-break, HiGHS and CBC alike,
the max_options integer pass, the smallest relaxation, the duals and reduced costs."""

import numpy as np
import pytest
from conftest import catalog_of, make_inputs, offering, solve_dicts, workload, workloads_of

from planner.optimize.lp import build_problem, clean_shares
from planner.optimize.pairs import build_pairs
from planner.optimize.solver import relax_lp, solve_lp
from planner.review.insight import full_problem, reduced_costs

T = 1000.0  # tasks per period in every case; 1,000 input + 1,000 output tokens per task


def per_task(price_in, price_out):
    return (1000 * price_in + 1000 * price_out) / 1e6


def shares(plan, wid="w"):
    return {a.offering + ("" if a.mode == "default" else "@" + a.mode): a.share for a in plan.workload(wid).allocations}


def lp_of(inputs):
    """The unpruned LP over every workload with an eligible option, and its pair table."""
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    return build_problem(inputs.workloads, inputs.catalog, pairs, np.flatnonzero(pairs.eligible_count > 0)), pairs


# ----------------------------------------------------------------------------- ties


def test_equal_cost_ties_prefer_lower_latency():
    cat = catalog_of(offering("slow", tps=100), offering("quick", tps=900))
    plan = solve_dicts(workloads_of(workload("w")), cat, prune=False)
    assert shares(plan) == {"quick": 1.0}
    assert shares(solve_dicts(workloads_of(workload("w")), cat)) == {"quick": 1.0}


def test_ties_across_vendors_under_a_spend_cap_prefer_lower_latency():
    # equal prices, so the cap only says "at most 99% on either vendor"; the faster lane gets the 99%
    cat = catalog_of(offering("slow", vendor="a", tps=50), offering("quick", vendor="b", tps=146))
    plan = solve_dicts(workloads_of(workload("w"), policy={"max_vendor_share": 0.99}), cat)
    assert shares(plan) == pytest.approx({"quick": 0.99, "slow": 0.01})


@pytest.mark.parametrize("policy", [{}, {"vendor_share": {"r": 0.5}}])
def test_of_options_equal_in_cost_and_latency_the_more_capable_carries_the_workload(policy):
    """No reasoning tokens: the 'high' mode costs and takes what the default does, and scores more;
    so does a second host of the same model listed after the first. With a vendor spend cap too."""
    high = {"modes": [{"name": "high", "reasoning_factor": 2.0, "capability": 90.0}]}
    cat = catalog_of(
        offering("m", capability=80.0, **high),
        offering("m-other-host", capability=85.0),
        offering("rival", vendor="r", price_in=5, price_out=5),
    )
    for solver in ("highs", "cbc"):
        plan = solve_dicts(workloads_of(workload("w"), policy=policy), cat, solver)
        assert shares(plan) == {"m@high": 1.0}, solver
    cat["offerings"][0]["modes"][0]["capability"] = 70.0  # now the other host is the most capable twin
    assert shares(solve_dicts(workloads_of(workload("w"), policy=policy), cat, "highs")) == {"m-other-host": 1.0}


def test_the_cost_pass_alone_may_pick_the_slower_twin_the_tie_break_never_does():
    """solve_lp on the LP: of two options equal in cost, the faster carries the workload, from
    either solver, and the plan costs what the cheapest does."""
    inputs = make_inputs(workloads_of(workload("w")), catalog_of(offering("slow", tps=100), offering("quick", tps=900)))
    lp, _ = lp_of(inputs)
    for solver in ("highs", "cbc"):
        result = solve_lp(lp, solver)
        assert result.ok and result.status == "Optimal"
        assert clean_shares(lp, result.share).tolist() == [0.0, 1.0], solver


# ----------------------------------------------------------------------------- HiGHS and CBC


def test_highs_and_cbc_agree(tiny_workloads, tiny_catalog):
    tiny_workloads["policy"] = {"max_vendor_share": 0.8}
    a = solve_dicts(tiny_workloads, tiny_catalog, "cbc")
    b = solve_dicts(tiny_workloads, tiny_catalog, "highs")
    assert a.total_cost == pytest.approx(b.total_cost, rel=1e-7)
    assert b.solver.name == "HiGHS" and a.solver.name == "CBC"


def test_reduced_costs_match_the_solver(tiny_workloads, tiny_catalog):
    """The cost pass's duals, turned into reduced costs over the full LP (insight.reduced_costs, which
    break-even prices read), are the reduced costs each solver reports."""
    tiny_workloads["policy"] = {"vendor_share": {"budgetco": 0.002}, "budget": 1e9}
    tiny_catalog["offerings"][2]["capacity"] = {"tokens_per_minute": 1000}  # binds on chat
    inputs = make_inputs(tiny_workloads, tiny_catalog)
    lp, pairs = lp_of(inputs)
    for solver in ("cbc", "highs"):
        result = solve_lp(lp, solver)
        assert result.ok
        duals = {lp.rows[i].name: y for i, y in result.pi.items()}
        d, _ = reduced_costs(full_problem(inputs, pairs), lp, duals)
        assert np.allclose(d, result.dj, atol=1e-6), (solver, d, result.dj)  # the cost pass prices lp.cost
        assert {"vendor_share:budgetco"} <= {r.name for i, r in enumerate(lp.rows) if result.pi.get(i)}


# ----------------------------------------------------------------------------- max_options


def test_max_options_forces_a_single_option():
    cat = catalog_of(
        offering("top", price_in=5, price_out=5, capability=100),
        offering("mid", price_in=2.5, price_out=2.5, capability=90),
        offering("low", price_in=0.5, price_out=0.5, capability=50),
    )
    lp_plan = solve_dicts(workloads_of(workload("w", capability={"mean_min": 80})), cat)
    assert shares(lp_plan) == pytest.approx({"mid": 0.75, "low": 0.25})  # 0.75 x 90 + 0.25 x 50 = 80
    one = solve_dicts(workloads_of(workload("w", capability={"mean_min": 80}, max_options=1)), cat)
    assert shares(one) == {"mid": 1.0}
    assert one.solver.integer
    assert one.total_cost == pytest.approx(T * per_task(2.5, 2.5))


def test_the_integer_pass_honours_bounds_on_the_shares():
    """solve_lp's integer pass within bounds: with the single best option switched off, the next
    best single option carries the workload."""
    cat = catalog_of(
        offering("top", price_in=5, price_out=5, capability=100),
        offering("mid", price_in=2.5, price_out=2.5, capability=90),
        offering("low", price_in=0.5, price_out=0.5, capability=50),
    )
    lp, _ = lp_of(make_inputs(workloads_of(workload("w", capability={"mean_min": 80}, max_options=1)), cat))
    assert lp.integer
    for solver in ("highs", "cbc"):
        assert clean_shares(lp, solve_lp(lp, solver).share).tolist() == [0.0, 1.0, 0.0], solver
        no_mid = clean_shares(lp, solve_lp(lp, solver, upper=np.array([1.0, 0.0, 1.0])).share)
        assert no_mid.tolist() == [1.0, 0.0, 0.0], solver


# ----------------------------------------------------------------------------- the smallest relaxation


def test_capacity_conflict_reports_the_smallest_relaxation():
    # both lanes capped: 1 task/min of 2,000 tokens needs 2,000 tpm, only 1,500 exist
    cat = catalog_of(
        offering("a", capacity={"tokens_per_minute": 1000}),
        offering("b", price_in=2, price_out=2, capacity={"tokens_per_minute": 500}),
    )
    plan = solve_dicts(workloads_of(workload("w", tasks=43200)), cat)
    assert plan.status == "infeasible"
    assert sum(r.by / r.limit for r in plan.relaxation) == pytest.approx(0.5)  # +500 on the 1,000 lane
    (relax,) = plan.relaxation
    assert relax.constraint == "tokens_per_minute:a"
    assert relax.needed == pytest.approx(1500) and relax.limit == 1000


def test_relax_lp_gives_the_slack_of_each_relaxed_row():
    """Half the budget a plan needs: the cost pass finds no plan, the relaxation pass raises the
    budget row by the other half (scaled) and plans on the cheapest option."""
    cat = catalog_of(offering("a"), offering("b", price_in=2, price_out=2))
    need = T * per_task(1, 1)
    lp, _ = lp_of(make_inputs(workloads_of(workload("w"), policy={"budget": need / 2}), cat))
    for solver in ("highs", "cbc"):
        assert not solve_lp(lp, solver).ok, solver
        relaxed = relax_lp(lp, solver)
        assert relaxed.ok and clean_shares(lp, relaxed.share).tolist() == [1.0, 0.0], solver
        budget = lp.families.index("budget")
        assert relaxed.slack[budget] * lp.scale == pytest.approx(need / 2), solver
        assert np.count_nonzero(relaxed.slack) == 1, solver


def test_a_relaxation_an_integer_pass_finds_a_hair_short_still_gets_its_cheapest_plan():
    """max_options 1 against at most half the tasks per vendor: the least relaxation is half the
    tasks, which HiGHS's integer pass found as 0.499999 (within its 1e-6 tolerance), and the cost
    pass held to that bound was infeasible (found by a long random run); it now retries with room
    for the tolerance."""
    limited = {"tokens_per_minute": 20000.0}
    high = {"modes": [{"name": "high", "reasoning_factor": 0.5, "capability": 40.0}]}
    cat = catalog_of(
        offering(
            "o0", vendor="v0", price_in=0, price_out=0.1, tps=50, capability=40, capacity=limited, context_window=2000
        ),
        offering("o1", vendor="v0", price_in=0, price_out=0, tps=50, capability=40, capacity=limited, **high),
        offering(
            "o2",
            vendor="v0",
            price_in=0,
            price_out=0.25,
            tps=50,
            capability=40,
            capacity={**limited, "requests_per_minute": 5.0},
            context_window=2000,
            **high,
        ),
        offering(
            "o3",
            vendor="v1",
            price_in=0,
            price_out=0,
            tps=50,
            capability=40,
            capacity=limited,
            context_window=2000,
            **high,
        ),
        offering(
            "o4",
            vendor="v1",
            price_in=0,
            price_out=0.1,
            tps=50,
            capability=40,
            capacity={**limited, "requests_per_minute": 5.0},
        ),
        offering("fallback", vendor="vf", price_in=20, price_out=20, tps=5000, capability=100),
    )
    ws = workloads_of(
        workload("w0", tasks=100, inp=0, out=10, max_vendor_share=0.5, max_options=1),
        policy={"max_vendor_share": 0.5, "budget": 10.0, "share_of": "spend"},
    )
    for solver in ("highs", "cbc"):
        plan = solve_dicts(ws, cat, solver)
        assert plan.status == "infeasible"
        assert [r.constraint for r in plan.relaxation] == ["workload_vendor_share:w0:v0"], solver
        assert plan.total_cost == 0.0  # on o1, free, once the share is relaxed


def test_the_tie_break_pass_keeps_the_bounds_it_was_given():
    """Two options of equal cost: the tie-break sends the workload to the faster one, unless that one is
    switched off (upper bound 0), with either solver. (HiGHS's tie-break pass used to drop the bounds.)"""
    cat = catalog_of(offering("slow", tps=50), offering("fast", tps=500))
    lp, pairs = lp_of(make_inputs(workloads_of(workload("w")), cat))
    assert [pairs.options.offering_id[o] for o in lp.var_o] == ["slow", "fast"]
    for solver in ("highs", "cbc"):
        assert clean_shares(lp, solve_lp(lp, solver).share).tolist() == [0.0, 1.0], solver
        off = solve_lp(lp, solver, upper=np.array([1.0, 0.0]))
        assert off.ok and clean_shares(lp, off.share).tolist() == [1.0, 0.0], solver


def test_the_smallest_relaxation_weighs_a_mean_capability_point_as_one():
    """A mean floor of 80 costs 0.4667 per task (two thirds on smart); the budget is 1% short. Lowering
    the floor to fit would take 0.35 points (weight 0.35); raising the budget by 1% weighs 0.01: the
    relaxation raises the budget, and keeps the floor."""
    cat = catalog_of(offering("plain", capability=60), offering("smart", price_in=3, price_out=3, capability=90))
    needed = T * (2 / 3 * per_task(3, 3) + 1 / 3 * per_task(1, 1))
    ws = workloads_of(workload("w", capability={"mean_min": 80}), policy={"budget": 0.99 * needed})
    for solver in ("highs", "cbc"):
        plan = solve_dicts(ws, cat, solver)
        assert plan.status == "infeasible", solver
        assert [r.constraint for r in plan.relaxation] == ["budget"], (solver, plan.relaxation)
        assert plan.relaxation[0].needed == pytest.approx(needed, rel=1e-6)
        assert plan.workload("w").capability_mean == pytest.approx(80.0)
