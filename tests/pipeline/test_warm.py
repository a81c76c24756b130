"""What a solve of variant inputs takes from a solved base (planner.pipeline.warm), matched by value: the pair
table's columns of the offerings an edit leaves alone, pruning's decisions, the routing to sift from.
Whatever is reused, the plan is the one solved from the variant's own tables."""

import copy
import dataclasses
import logging
import pickle

import numpy as np
import pytest
from conftest import catalog_of, make_inputs, offering, plan_bytes, planner_log, routing_start, workload, workloads_of
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import EXPLORE, examples, portfolios, sampled_portfolios, with_fallback

from planner.model.load import validate
from planner.model.schema import Catalog
from planner.optimize.lp import build_problem
from planner.optimize.pairs import Pairs, build_options, build_pairs, build_workloads, changed_options
from planner.optimize.prune import candidates
from planner.pipeline.solve import solve_base, solve_inputs
from planner.pipeline.warm import WarmStart, routed_pairs

BUILT_AFRESH = "pairs: built afresh (the workloads or the offerings' layout differ from the start's)"


def four_offerings():
    cat = catalog_of(
        offering("a1", vendor="a", price_in=1, price_out=2, tps=80),
        offering("a2", vendor="a", price_in=2, price_out=2, tps=900, capacity={"tokens_per_minute": 40_000}),
        offering(
            "b1",
            vendor="b",
            price_in=1.5,
            price_out=2.5,
            tps=60,
            modes=[{"name": "high", "reasoning_factor": 2.0, "capability": 90.0}],
        ),
        offering("b2", vendor="b", price_in=4, price_out=4, tps=1000),
    )
    ws = workloads_of(
        workload("chat", tasks=2e6, latency={"budget_s": 10.0, "within_budget_share": 0.5}),
        workload("agent", tasks=3e5, turns=4, tokens={"input": 1000, "output": 200, "reasoning": 300}),
        workload("batch", tasks=1e5),
        policy={"vendor_share": {"b": 0.4}},
    )
    return ws, cat


def with_catalog(inputs, ws: dict, cat: dict):
    """The inputs with another catalog and the same workloads (as a scenario editing offerings gives)."""
    return dataclasses.replace(inputs, catalog=validate(Catalog, cat, "catalog.yaml"))


def same_pairs(a: Pairs, b: Pairs) -> bool:
    """Every figure of two pair tables, value for value."""
    for f in dataclasses.fields(Pairs):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            if not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
                return False
        elif f.name in ("vendor_why", "region_need") and x != y:
            return False
    return a.options.offering_id == b.options.offering_id and a.options.mode == b.options.mode


def test_a_start_recomputes_only_the_offerings_an_edit_changes(caplog):
    """b1 cut its prices: its two options (default and high) are recomputed, the other three taken
    from the start; the table and pruning's answer are the ones made from scratch."""
    ws, cat = four_offerings()
    base_inputs = make_inputs(ws, cat)
    _, start = solve_base(base_inputs, "highs")
    cat["offerings"][2]["price"] = {"input": 0.5, "output": 1.0}
    inputs = with_catalog(base_inputs, ws, cat)
    opts = build_options(inputs.catalog)
    assert opts.offering_id == ["a1", "a2", "b1", "b1", "b2"] and opts.mode[2:4] == ["default", "high"]
    assert changed_options(base_inputs.catalog, inputs.catalog, opts).tolist() == [False, False, True, True, False]
    caplog.set_level(logging.DEBUG, logger="planner")
    pairs, changed = start.pairs_for(inputs)
    assert caplog.messages == ["pairs: 2 of 5 options recomputed, the others taken from the start"]
    assert changed.tolist() == [False, False, True, True, False]
    fresh = build_pairs(inputs.workloads, inputs.catalog)
    assert same_pairs(pairs, fresh)
    assert not np.array_equal(pairs.cost_per_task, start.pairs.cost_per_task)  # b1's figures did change
    assert np.array_equal(
        start.candidates_for(inputs, pairs, changed), candidates(inputs.workloads, inputs.catalog, fresh)
    )


def test_a_start_is_reused_only_for_the_same_workloads_and_offerings(caplog):
    """A scenario that edits the workloads, or adds, removes or reorders offerings, or moves one to
    another vendor, is solved from its own pair table (the start's routing still starts the solver):
    the plan is the cold one's."""
    cat = catalog_of(
        offering("a1", vendor="a", price_in=1, price_out=2, tps=80),
        offering("b1", vendor="b", price_in=1.5, price_out=2.5, tps=60),
        offering("b2", vendor="b", price_in=4, price_out=4, tps=1000),
    )
    ws = workloads_of(
        workload("chat", tasks=2e6, latency={"budget_s": 10.0}),
        workload("batch", tasks=1e5),
        policy={"vendor_share": {"b": 0.6}},
    )
    base_inputs = make_inputs(ws, cat)
    _, start = solve_base(base_inputs, "highs")
    other_ws = workloads_of(
        workload("chat", tasks=3e6, latency={"budget_s": 10.0}),
        workload("batch", tasks=1e5),
        policy={"vendor_share": {"b": 0.6}},
    )
    variants = [
        make_inputs(other_ws, cat),  # other workloads
        with_catalog(base_inputs, ws, catalog_of(*cat["offerings"][::-1])),
        with_catalog(base_inputs, ws, catalog_of(*cat["offerings"][:2])),
        with_catalog(base_inputs, ws, catalog_of(*cat["offerings"][:2], {**cat["offerings"][2], "vendor": "a"})),
    ]
    caplog.set_level(logging.DEBUG, logger="planner")
    for inputs in variants:
        caplog.clear()
        warm = solve_inputs(inputs, "highs", start=start)
        assert BUILT_AFRESH in caplog.messages
        assert not any("options recomputed" in m for m in caplog.messages)
        assert any(m.startswith("solve: sifting from the start's routing") for m in caplog.messages)
        assert plan_bytes(warm) == plan_bytes(solve_inputs(inputs, "highs"))


def test_the_routing_is_matched_by_workload_offering_and_mode():
    ws, cat = four_offerings()
    inputs = make_inputs(ws, cat)
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    routing = [
        ("agent", "b1", "high"),
        ("chat", "a2", "default"),
        ("gone", "a1", "default"),
        ("chat", "gone", "default"),
        ("batch", "b1", "ultra"),
    ]  # the last three match nothing
    routed = routed_pairs(routing, pairs)
    assert routed.shape == pairs.shape
    assert [(pairs.workloads.ids[w], pairs.options.label(o)) for w, o in zip(*np.nonzero(routed))] == [
        ("chat", "a2"),
        ("agent", "b1 (high)"),
    ]
    reordered = with_catalog(inputs, ws, catalog_of(*cat["offerings"][::-1]))  # the same ids, another order
    other = build_pairs(reordered.workloads, reordered.catalog)
    again = routed_pairs(routing, other)
    assert [other.options.label(o) for o in range(5)] == ["b2", "b1", "b1 (high)", "a2", "a1"]
    assert again.sum() == 2 and again[0, 3] and again[1, 2]


def test_a_start_knows_its_routing_and_the_lp_columns_it_routed():
    ws, cat = four_offerings()
    inputs = make_inputs(ws, cat)
    plan, start = solve_base(inputs, "highs")
    assert start.routing == tuple((w.id, a.offering, a.mode) for w in plan.workloads for a in w.allocations)
    assert start.workloads == inputs.workloads and start.catalog == inputs.catalog
    lp = build_problem(inputs.workloads, inputs.catalog, start.pairs, np.arange(3), start.candidates)
    used = {(w.id, a.offering, a.mode) for w in plan.workloads for a in w.allocations}
    opts = start.pairs.options
    want = [
        (start.pairs.workloads.ids[w], opts.offering_id[o], opts.mode[o]) in used for w, o in zip(lp.var_w, lp.var_o)
    ]
    assert start.columns(start.pairs, lp).tolist() == want and any(want)


def test_a_start_built_from_the_base_of_other_inputs_holds_those_inputs():
    ws, cat = four_offerings()
    ws["workloads"][1]["capability"] = {"min": 85}  # the agent has one option (b1@high): the rest are rejected
    inputs = make_inputs(ws, cat)
    plan = solve_inputs(inputs, "highs")
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    cand = candidates(inputs.workloads, inputs.catalog, pairs)
    start = WarmStart.of(inputs, pairs, cand, plan)
    assert start.pairs is pairs and start.candidates is cand
    assert start.workloads == inputs.workloads and start.catalog == inputs.catalog
    assert start.routing == tuple((w.id, a.offering, a.mode) for w in plan.workloads for a in w.allocations)
    # every rejection record of the plan, found at its (workload, option) pair
    opts = pairs.options
    found = {
        (pairs.workloads.ids[w], opts.offering_id[o], opts.mode[o]): start.rejections[k]
        for (w, o), k in np.ndenumerate(start.rejected_at)
        if k >= 0
    }
    assert found == {(w.id, r.offering, r.mode): r for w in plan.workloads for r in w.rejected}
    assert len(found) == sum(len(w.rejected) for w in plan.workloads) > 0


EDITS = {
    "price": lambda off, f: off.update(price={k: v * f for k, v in off["price"].items()}),
    "speed": lambda off, f: off["speed"].update(output_tps=off["speed"]["output_tps"] * f),
    "capacity": lambda off, f: (
        off.update(capacity={"tokens_per_minute": 2e4 * f}) if f != 1 else off.pop("capacity", None)
    ),
    "capability": lambda off, f: off.update(capability=min(100.0, off["capability"] * f)),
    "context": lambda off, f: off.update(context_window=int(4000 * f)),
    "regions": lambda off, f: off.update(regions=["eu"] if f < 1 else ["us"]),
}


@pytest.mark.parametrize("kind", sorted(EDITS))
def test_a_start_reused_for_an_offering_edit_gives_the_plan_without_reuse(kind):
    ws, cat = four_offerings()
    base_inputs = make_inputs(ws, cat)
    base, start = solve_base(base_inputs, "highs")
    edited = copy.deepcopy(cat)
    EDITS[kind](edited["offerings"][1], 0.5)
    inputs = with_catalog(base_inputs, ws, edited)
    with planner_log() as messages:
        reused = solve_inputs(inputs, "highs", start=start)
    assert "pairs: 1 of 5 options recomputed, the others taken from the start" in messages
    assert plan_bytes(reused) == plan_bytes(solve_inputs(inputs, "highs", start=routing_start(inputs, base)))


@settings(
    max_examples=examples(120), derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    portfolios(),
    st.lists(
        st.tuples(st.sampled_from(sorted(EDITS)), st.integers(0, 7), st.sampled_from([0.5, 1.0, 2.0])),
        min_size=1,
        max_size=3,
    ),
)
def test_a_start_reused_for_any_offering_edit_gives_the_plan_without_reuse(portfolio, edits):
    """Whatever a scenario changes in some offerings (prices, speed, capacity, capability, context
    window, regions), the plan solved reusing the base's tables for the others is the plan solved
    from the scenario's own tables, byte for byte (both started from the base's routing), with the
    review figures and without (as a what-if batch solves a scenario)."""
    ws, cat = portfolio
    cat = with_fallback(cat)
    base_inputs = make_inputs(ws, cat)
    base, start = solve_base(base_inputs, "highs")
    for kind, i, factor in edits:
        EDITS[kind](cat["offerings"][i % len(cat["offerings"])], factor)
    inputs = with_catalog(base_inputs, ws, cat)
    with planner_log() as messages:
        reused = solve_inputs(inputs, "highs", start=start)
    own = routing_start(inputs, base)
    assert plan_bytes(reused) == plan_bytes(solve_inputs(inputs, "highs", start=own))
    lean = solve_inputs(inputs, "highs", start=start, review=False, resilience=False)
    fresh = solve_inputs(inputs, "highs", start=own, review=False, resilience=False)
    assert plan_bytes(lean) == plan_bytes(fresh)
    recomputed = [m for m in messages if m.startswith("pairs: ")]
    floors_moved = not np.array_equal(  # a floor stated as a model's score moves with that score
        build_workloads(base_inputs.workloads, base_inputs.catalog).cap_min,
        build_workloads(inputs.workloads, inputs.catalog).cap_min,
        equal_nan=True,
    )
    reused_message = "pairs: built afresh" if floors_moved else "options recomputed, the others taken from the start"
    assert len(recomputed) == 1 and reused_message in recomputed[0]
    event(f"edits: {sorted({k for k, _, _ in edits})}; status {reused.status}")


def _speed_with_percentiles(off: dict, f: float) -> None:
    """A speed edit as a scenario makes it: the measured percentiles move with the median."""
    off["speed"]["output_tps"] *= f
    points = (off["speed"].get("percentiles") or {}).get("output_tps")
    if points:
        off["speed"]["percentiles"]["output_tps"] = {k: v * f for k, v in points.items()}


@settings(
    max_examples=examples(80), derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    sampled_portfolios(),
    st.lists(
        st.tuples(st.sampled_from(sorted(EDITS)), st.integers(0, 7), st.sampled_from([0.5, 1.0, 2.0])),
        min_size=1,
        max_size=3,
    ),
)
def test_with_distributions_a_start_reused_for_any_offering_edit_gives_the_plan_without_reuse(portfolio, edits):
    """The same with sample tasks and budgets at a percentile: the shares of sample tasks within budget
    are figures of a pair like the others, taken from the start for the offerings an edit leaves alone."""
    ws, cat, samples = portfolio
    cat = with_fallback(cat)
    base_inputs = make_inputs(ws, cat, samples)
    base, start = solve_base(base_inputs, "highs")
    for kind, i, factor in edits:
        off = cat["offerings"][i % len(cat["offerings"])]
        (_speed_with_percentiles if kind == "speed" else EDITS[kind])(off, factor)
    inputs = with_catalog(base_inputs, ws, cat)
    reused = solve_inputs(inputs, "highs", start=start, review=False, resilience=False)
    fresh = solve_inputs(inputs, "highs", start=routing_start(inputs, base), review=False, resilience=False)
    assert plan_bytes(reused) == plan_bytes(fresh)
    event(f"sampled: {bool(samples)}; status {reused.status}")


def test_a_scenario_takes_the_records_its_edit_leaves_alone_and_makes_the_others():
    """A price rise on b2: the workloads routed as before on unchanged options keep the base's
    records, with their own rejections (b2's rejection figures change); the others are made afresh."""
    ws, cat = four_offerings()
    ws["workloads"].append(workload("pricey", tasks=1e4, capability={"min": 85}))  # only b1@high qualifies
    base_inputs = make_inputs(ws, cat)
    base, start = solve_base(base_inputs, "highs")
    edited = copy.deepcopy(cat)
    edited["offerings"][3]["price"] = {"input": 8, "output": 8}  # b2
    inputs = with_catalog(base_inputs, ws, edited)
    with planner_log() as messages:
        lean = solve_inputs(inputs, "highs", start=start, review=False, resilience=False)
    fresh = solve_inputs(inputs, "highs", start=routing_start(inputs, base), review=False, resilience=False)
    assert plan_bytes(lean) == plan_bytes(fresh)
    kept = [
        w.id
        for w, before in zip(lean.workloads, base.workloads)
        if w.allocations == before.allocations and all(a.offering != "b2" for a in w.allocations)
    ]
    assert "pricey" in kept and len(kept) < len(ws["workloads"])  # b2 carried some traffic before the rise
    taken = [m for m in messages if m.startswith("plan: ")]
    assert taken == [f"plan: {len(kept)} of {len(ws['workloads'])} workload records taken from the start"]
    before, after = (
        {r.offering: r for r in p.workload("pricey").rejected} for p in (base, lean)
    )  # b2's rejection figures moved with its price, the others' did not
    assert after["b2"].cost_per_task == 2 * before["b2"].cost_per_task
    assert all(after[o] == before[o] for o in before if o != "b2")
    # with the review figures (break-even prices), every record is made afresh
    with planner_log() as messages:
        solve_inputs(inputs, "highs", start=start)
    assert [m for m in messages if m.startswith("plan: ")] == [
        f"plan: 0 of {len(ws['workloads'])} workload records taken from the start"
    ]


def test_a_start_and_inputs_pickled_apart_give_the_same_plan_and_the_same_reuse():
    """Reuse is decided by value: a start and scenario inputs that each went through pickle (distinct
    objects now, as in a worker that did not fork) give the plan the originals give, byte for byte, and
    take the same figures and records from the start."""
    ws, cat = four_offerings()
    base_inputs = make_inputs(ws, cat)
    base, start = solve_base(base_inputs, "highs")
    edited = copy.deepcopy(cat)
    EDITS["price"](edited["offerings"][1], 0.5)
    inputs = with_catalog(base_inputs, ws, edited)
    copied_start, copied_inputs = pickle.loads(pickle.dumps(start)), pickle.loads(pickle.dumps(inputs))
    assert copied_inputs.workloads is not copied_start.workloads
    plans, reuse = [], []
    for s, i in ((start, inputs), (copied_start, copied_inputs)):
        with planner_log() as messages:
            plans.append(plan_bytes(solve_inputs(i, "highs", start=s, review=False, resilience=False)))
        reuse.append([m for m in messages if m.startswith(("pairs:", "plan:", "solve:"))])
    assert plans[0] == plans[1]
    assert reuse[0] == reuse[1] and "pairs: 1 of 5 options recomputed, the others taken from the start" in reuse[0]
