"""What a vendor review reads off a plan (planner.review.insight): break-even prices, from the duals and by
re-solving, and the vendor outage table."""

import pytest
from conftest import catalog_of, make_inputs, offering, solve_dicts, workload, workloads_of

from planner.pipeline.solve import solve_inputs


def per_task(price_in, price_out):
    return (1000 * price_in + 1000 * price_out) / 1e6


UNTIED = catalog_of(  # prices whose break-evens fall between the half-point steps (no tie on the grid)
    offering("a"), offering("b", price_in=1.513, price_out=1.513), offering("c", price_in=4.1, price_out=4.1)
)


def test_break_even_prices_by_hand():
    plan = solve_dicts(workloads_of(workload("w")), UNTIED, "highs")
    be = {b.offering: b for b in plan.workload("w").break_even}
    # SPEC v1.9: the smallest change that moves traffic, on a grid of half a point: b costs 51.3% more than
    # a, so a's traffic moves at +51.5%; b takes it at a cut of 34% (1 - 1/1.513 = 33.9%), c at 76%
    assert be["a"].used and be["a"].price_change == pytest.approx(0.515)
    assert be["a"].plan_cost == pytest.approx(1000 * per_task(1.513, 1.513))
    assert not be["b"].used and be["b"].price_change == pytest.approx(-0.34)
    assert be["c"].price_change == pytest.approx(-0.76)
    assert be["b"].break_even_cost_per_task == pytest.approx(per_task(1.513, 1.513) * 0.66)
    assert be["b"].plan_cost == pytest.approx(1000 * per_task(1.513, 1.513) * 0.66)


def test_break_even_for_integer_workloads_by_resolving():
    cat = catalog_of(
        offering("top", price_in=5.1, price_out=5.1, capability=100),
        offering("mid", price_in=2.5, price_out=2.5, capability=90),
        offering("low", price_in=0.5, price_out=0.5, capability=50),
    )
    plan = solve_dicts(workloads_of(workload("w", capability={"mean_min": 80}, max_options=1)), cat, "highs")
    be = {b.offering: b for b in plan.workload("w").break_even}
    assert be["mid"].used and be["mid"].price_change is None  # top costs more than twice as much
    assert be["top"].price_change == pytest.approx(-0.51)


def test_break_even_prices_are_the_same_from_either_solver():
    cat = UNTIED
    ws = workloads_of(workload("w"), workload("v", max_options=1))
    plans = [solve_dicts(ws, cat, solver) for solver in ("highs", "cbc")]
    for wid in ("w", "v"):
        a, b = ({x.offering: x.price_change for x in p.workload(wid).break_even} for p in plans)
        # CBC re-solves each point from scratch: the route in use and its nearest unused option only
        assert set(a) == {"a", "b", "c"} and set(b) == {"a", "b"}, wid
        assert b == pytest.approx({k: a[k] for k in b}), wid
    assert any("cannot re-solve warm" in x for x in plans[1].assumptions)


def test_vendor_outage_table_in_the_plan():
    ws = workloads_of(workload("w1"), workload("w2", capability={"min": 90}))
    cat = catalog_of(offering("a1", vendor="a"), offering("b1", vendor="b", price_in=3, price_out=3, capability=95))
    plan = solve_dicts(ws, cat, "highs")
    cbc = solve_dicts(ws, cat, "cbc")  # CBC cannot re-solve warm: the table is refused in one sentence
    assert not cbc.resilience and any("which CBC cannot do" in a for a in cbc.assumptions)
    assert cbc.total_cost == pytest.approx(plan.total_cost)
    out = {r.vendor: r for r in plan.resilience}
    assert out["a"].cost_without == pytest.approx(2 * 1000 * 6000 / 1e6)  # both on b at $0.006/task
    assert out["a"].lost_workloads == []
    assert out["b"].lost_workloads == ["w2"]
    assert out["b"].cost_without == pytest.approx(1000 * 2000 / 1e6)


def test_a_solve_without_review_leaves_the_review_figures_out(tiny_workloads, tiny_catalog):
    inputs = make_inputs(tiny_workloads, tiny_catalog)
    full = solve_inputs(inputs, "highs")
    lean = solve_inputs(inputs, "highs", review=False, resilience=False)
    assert full.baselines and full.resilience and any(w.break_even for w in full.workloads)
    assert lean.baselines == [] and lean.resilience == [] and all(w.break_even == [] for w in lean.workloads)
    assert [w.allocations for w in lean.workloads] == [w.allocations for w in full.workloads]


def test_break_even_of_an_integer_workload_keeps_the_used_option_out_of_its_re_solve():
    """max_options: j (cheap, fast) carries the workload; k costs three times as much, so no rise within
    +100% moves it (both solvers); k takes it past a cut of two thirds."""
    cat = catalog_of(offering("j", price_in=1, price_out=1, tps=500), offering("k", price_in=3, price_out=3, tps=50))
    ws = workloads_of(workload("w", max_options=1))
    for solver in ("highs", "cbc"):
        plan = solve_inputs(make_inputs(ws, cat), solver, prune=False)  # (pruning would drop k)
        rows = [(b.offering, b.price_change) for b in plan.workload("w").break_even]
        assert rows == [("j", None), ("k", pytest.approx(-0.67))], solver
