"""Pruning (planner.optimize.prune): an eligible option that another beats on every count never carries share,
so it is left out of the LP; whatever is left out, the optimum stays the same."""

import pytest
from conftest import catalog_of, make_inputs, offering, solve_dicts, workload, workloads_of
from hypothesis import given
from strategies import SETTINGS, portfolios, sampled_portfolios, with_fallback

from planner.optimize.pairs import build_pairs
from planner.optimize.prune import candidates


def kept(ws: dict, cat: dict) -> list[str]:
    inputs = make_inputs(ws, cat)
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    keep = candidates(inputs.workloads, inputs.catalog, pairs)
    return [pairs.options.label(o) for o in range(pairs.shape[1]) if keep[0, o]]


def test_an_option_beaten_on_cost_capability_and_speed_is_left_out():
    cat = catalog_of(
        offering("best", tps=200, capability=90), offering("worse", price_in=2, price_out=2, tps=100, capability=80)
    )
    assert kept(workloads_of(workload("w")), cat) == ["best"]


def test_an_option_with_a_capacity_limit_leaves_the_others_in():
    """The cheaper option may run out of capacity: what it beats is still needed then."""
    cat = catalog_of(
        offering("best", tps=200, capability=90, capacity={"tokens_per_minute": 1000}),
        offering("worse", price_in=2, price_out=2, tps=100, capability=80),
    )
    assert kept(workloads_of(workload("w")), cat) == ["best", "worse"]


def test_under_a_vendor_spend_cap_dearer_options_stay():
    """A spend-share cap can make a dearer option worth using (more spend elsewhere lets more go to
    the capped vendor): under one, vendor y's dearer option stays; without the cap, the best option
    leaves out both of vendor y's."""
    cat = catalog_of(
        offering("best", vendor="x", tps=200, capability=90),
        offering("worse", vendor="y", price_in=2, price_out=2, tps=100, capability=80),
        offering("worst", vendor="y", price_in=3, price_out=3, tps=100, capability=80),
    )
    assert kept(workloads_of(workload("w")), cat) == ["best"]
    capped = workloads_of(workload("w"), policy={"vendor_share": {"x": 0.5}, "share_of": "spend"})
    assert kept(capped, cat) == ["best", "worse", "worst"]
    plan = solve_dicts(capped, cat)  # 2a <= 0.5 (2a + 4 (1 - a)): a = 2/3 on x, the rest on the cheaper y
    assert {a.offering: a.share for a in plan.workload("w").allocations} == pytest.approx(
        {"best": 2 / 3, "worse": 1 / 3}
    )


def test_an_option_ineligible_for_the_workload_is_never_a_candidate():
    cat = catalog_of(offering("dumb", capability=50), offering("smart", price_in=2, price_out=2, capability=90))
    assert kept(workloads_of(workload("w", capability={"min": 80})), cat) == ["smart"]


def test_pruning_changes_no_plan(tiny_workloads, tiny_catalog):
    pruned = solve_dicts(tiny_workloads, tiny_catalog)
    full = solve_dicts(tiny_workloads, tiny_catalog, prune=False)
    assert [w.allocations for w in pruned.workloads] == [w.allocations for w in full.workloads]
    assert pruned.total_cost == full.total_cost


@SETTINGS
@given(portfolios())
def test_pruning_keeps_the_optimum(portfolio):
    ws, cat = portfolio
    pruned = solve_dicts(ws, cat, prune=True)
    full = solve_dicts(ws, cat, prune=False)
    assert pruned.status == full.status
    if full.status == "optimal":
        assert pruned.total_cost == pytest.approx(full.total_cost, rel=1e-6, abs=1e-6)


@SETTINGS
@given(sampled_portfolios())
def test_pruning_keeps_the_optimum_with_sample_tasks_and_percentiles(portfolio):
    """An option is dropped for another only if that one serves at least its share of sample tasks
    within budget (all of them, when it serves any); the optimum is the unpruned LP's."""
    ws, cat, samples = portfolio
    cat = with_fallback(cat)
    pruned = solve_dicts(ws, cat, "highs", prune=True, samples=samples)
    full = solve_dicts(ws, cat, "highs", prune=False, samples=samples)
    assert pruned.status == full.status
    if full.status == "optimal":
        assert pruned.total_cost == pytest.approx(full.total_cost, rel=1e-6, abs=1e-6)
