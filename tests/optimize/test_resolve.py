"""Re-solves (planner.optimize.resolve): one LP kept in HiGHS while options are switched on and off, solved whole
(Resolver) or by sifting (SiftedResolver), as frontier points and vendor outages are; and an LP solved
by sifting from a guess of its optimal columns (solve_sifted, through solver.solve_warm), as a what-if
scenario is."""

import logging

import numpy as np
import pytest
from conftest import catalog_of, load_dict, make_inputs, offering, planner_log, workload, workloads_of
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import EXPLORE, examples, portfolios, with_fallback

from planner.optimize import resolve
from planner.optimize.lp import build_problem, clean_shares
from planner.optimize.pairs import build_pairs
from planner.optimize.resolve import Pricing, Resolver, SiftedResolver, _most_negative
from planner.optimize.solver import solve_lp, solve_warm

FELL_BACK = "re-solve: point solved over the whole LP"


def lp_of(ws: dict, cat: dict):
    inputs = make_inputs(ws, cat)
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    return build_problem(inputs.workloads, inputs.catalog, pairs, np.flatnonzero(pairs.eligible_count > 0))


def two_lanes():
    """Two workloads on a cheap lane of vendor a, a dear one of vendor b, and b's fast lane."""
    cat = catalog_of(
        offering("a", vendor="a"),
        offering("b", vendor="b", price_in=2, price_out=2),
        offering("b-fast", vendor="b", price_in=3, price_out=3, tps=1000),
    )
    return lp_of(workloads_of(workload("w1"), workload("w2", tasks=3000)), cat)


@pytest.mark.parametrize("kind", [Resolver, SiftedResolver])
def test_switching_options_off_and_on_again(kind):
    lp = two_lanes()
    assert lp.var_o.tolist() == [0, 1, 2, 0, 1, 2]
    resolver = kind(lp)
    everything = resolver.run()
    assert everything.ok and everything.share.tolist() == [1, 0, 0, 1, 0, 0]
    assert everything.cost == pytest.approx(4000 * 0.002)
    resolver.set_upper(np.array([0.0, 1, 1, 1, 1, 1]))  # w1 without a
    point = resolver.run()
    assert point.ok and point.share.tolist() == [0, 1, 0, 1, 0, 0]
    assert point.cost == pytest.approx(1000 * 0.004 + 3000 * 0.002)
    resolver.set_upper(np.array([0.0, 0, 0, 1, 1, 1]))  # w1 with nothing: no plan
    assert not resolver.run().ok
    resolver.set_upper(np.ones(6))
    again = resolver.run()
    assert again.ok and again.share.tolist() == everything.share.tolist() and again.cost == everything.cost


def test_a_sifted_point_short_of_a_row_is_solved_whole(caplog):
    """Vendor a capped at half the spend: with w1 on a alone and w2's cheap lane off, the small model
    would need its slack; the point is solved over the whole LP, which has no plan either."""
    cat = catalog_of(offering("a", vendor="a"), offering("b", vendor="b", price_in=2, price_out=2))
    lp = lp_of(
        workloads_of(workload("w1"), workload("w2"), policy={"vendor_share": {"a": 0.5}, "share_of": "spend"}), cat
    )
    caplog.set_level(logging.DEBUG, logger="planner")
    sifted = SiftedResolver(lp)
    first = sifted.run()
    assert first.ok and first.cost == pytest.approx(Resolver(lp).run().cost)
    sifted.set_upper(np.array([1.0, 0.0, 1.0, 1.0]))  # w1 on a only
    assert sifted.run().ok  # w2 spends enough on b
    assert FELL_BACK not in caplog.messages
    sifted.set_upper(np.array([1.0, 0.0, 1.0, 0.0]))  # both on a only: over the cap
    assert not sifted.run().ok
    assert FELL_BACK in caplog.messages


@settings(
    max_examples=examples(100), derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(portfolios(), st.integers(0, 2**32 - 1), st.sampled_from([0.3, 0.7, 0.95]))
def test_points_solved_by_sifting_match_whole_solves(portfolio, seed, p_on):
    """Frontier points are solved by sifting (a small model that grows from point to point, with
    slacks on the relaxable rows): over a run of random option switches, each point's feasibility
    and optimum are those of the whole LP re-solved."""
    ws, cat = portfolio
    lp = lp_of(ws, with_fallback(cat))
    if lp.integer or not len(lp.var_w):
        return
    rng = np.random.default_rng(seed)
    start = rng.random(len(lp.var_w)) < 0.3 if seed % 2 else None  # a first model seeded, or not
    sifted, whole = SiftedResolver(lp, start), Resolver(lp)
    with planner_log() as messages:
        for _ in range(6):
            upper = (rng.random(len(lp.var_w)) < p_on).astype(float)
            sifted.set_upper(upper)
            whole.set_upper(upper)
            a, b = sifted.run(), whole.run()
            assert a.ok == b.ok
            if a.ok:
                assert a.cost == pytest.approx(b.cost, rel=1e-7, abs=1e-9)
                assert np.all(a.share[upper == 0] == 0)
    fell_back = messages.count(FELL_BACK)
    event(f"points solved whole: {min(fell_back, 2)}{'+' if fell_back > 2 else ''}")


def test_a_workload_with_no_option_leaves_the_others_re_solved_by_sifting():
    """A workload no offering serves is not in the LP (its number is missing from var_w): the sifted
    re-solver plans the others, as the whole LP does, at any prices and with options switched off."""
    cat = catalog_of(
        offering("a", vendor="a", regions=["us"]), offering("b", vendor="b", price_in=2, price_out=2, regions=["us"])
    )
    nowhere = workload("w0")
    nowhere["regions"] = ["eu"]
    lp = lp_of(workloads_of(nowhere, workload("w1"), workload("w2", tasks=3000)), cat)
    assert sorted(set(lp.var_w.tolist())) == [1, 2]
    sifted, whole = SiftedResolver(lp), Resolver(lp)
    for factor, upper in ((None, None), ([3.0, 1, 1, 1], None), (None, [0.0, 1, 1, 1]), (None, [0.0, 0, 1, 1])):
        for r in (sifted, whole):
            if factor is not None:
                r.set_prices(np.array(factor))
            if upper is not None:
                r.set_upper(np.array(upper))
        a, b = sifted.run(), whole.run()
        assert a.ok == b.ok and (not a.ok or a.cost == pytest.approx(b.cost))
    assert not sifted.run().ok  # w1 with every option off


def test_a_round_with_more_entering_columns_than_rows_adds_each_workloads_most_negative():
    """More columns priced negative than a basis holds (a first round priced with slacks in use): each
    workload's most negative one enters, the first on a tie; the rounds go on until none is left."""
    cols = np.array([0, 1, 2, 5, 6, 9])
    dj = np.array([-1.0, -3.0, -3.0, -0.5, -2.0, -1e-3])
    var_w = np.array([0, 0, 0, 1, 1, 2])
    assert _most_negative(cols, dj, var_w).tolist() == [1, 6, 9]


def test_many_options_a_workload_sift_to_the_whole_lps_optimum_at_any_prices(monkeypatch):
    """Thirty offerings, two workloads and a vendor cap: nearly every column prices negative in a first
    round (more than the rows; the limit of a round lowered from 50,000 to none), so columns enter a
    workload at a time; each repriced point costs what the whole LP re-solved costs."""
    monkeypatch.setattr(resolve, "ENTERING_AT_MOST", 0)
    cat = catalog_of(
        *(
            offering(f"o{i}", vendor="ab"[i % 2], price_in=1 + i / 7, price_out=1 + (i * 3 % 11) / 5, tps=40 + 30 * i)
            for i in range(30)
        )
    )
    ws = workloads_of(
        workload("chat", tasks=2e5, latency={"budget_s": 30.0, "within_budget_share": 0.8}),
        workload("agent", tasks=5e4, turns=4),
        policy={"vendor_share": {"a": 0.6}},
    )
    lp = lp_of(ws, cat)
    assert len(lp.var_w) > 2 * len(lp.rows)
    rng = np.random.default_rng(29)
    sifted, whole = SiftedResolver(lp), Resolver(lp)
    for _ in range(8):
        factor = rng.choice([0.5, 1.0, 1.5, 3.0], len(lp.var_w))
        sifted.set_prices(factor)
        whole.set_prices(factor)
        a, b = sifted.run(), whole.run()
        assert a.ok and b.ok and a.cost == pytest.approx(b.cost, rel=1e-7)


def test_pricing_kept_between_points_is_pricing_from_scratch():
    """A Pricing updated for the few duals and costs that changed gives what pricing every column from
    scratch gives, over a run of changes small and large (a large one prices afresh)."""
    cat = catalog_of(*(offering(f"o{i}", vendor="ab"[i % 2], price_in=1 + i, capacity=None) for i in range(12)))
    lp = lp_of(
        workloads_of(*(workload(f"w{i}", tasks=1000 * (i + 1)) for i in range(6)), policy={"vendor_share": {"a": 0.7}}),
        cat,
    )
    rng = np.random.default_rng(7)
    pricing, cost, y = Pricing(lp), lp.objective.copy(), rng.normal(size=len(lp.rows))
    for step in range(40):
        rows = rng.choice(len(lp.rows), size=len(lp.rows) if step % 9 == 8 else 2, replace=False)
        y = y.copy()
        y[rows] = rng.normal(size=len(rows))
        cols = rng.choice(lp.n, size=3, replace=False)
        new = cost.copy()
        new[cols] = rng.random(3)
        pricing.costs(cols, cost[cols], new[cols])
        cost = new
        assert np.allclose(pricing(cost, y), lp.reduced_costs(cost, y), rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------- sifting from a guess (solve_sifted)


def lp_and_pairs(inputs):
    """The unpruned LP over every workload with an eligible option, and its pair table."""
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    return build_problem(inputs.workloads, inputs.catalog, pairs, np.flatnonzero(pairs.eligible_count > 0)), pairs


def sifting_case():
    """Four offerings of two vendors, a capacity row and a vendor cap that bind after b1's price cut."""
    cat = catalog_of(
        offering("a1", vendor="a", price_in=1, price_out=2, tps=80),
        offering("a2", vendor="a", price_in=2, price_out=2, tps=900, capacity={"tokens_per_minute": 40_000}),
        offering("b1", vendor="b", price_in=0.5, price_out=1.0, tps=60),
        offering("b2", vendor="b", price_in=4, price_out=4, tps=1000),
    )
    ws = workloads_of(
        workload("chat", tasks=2e6, latency={"budget_s": 10.0, "within_budget_share": 0.5}),
        workload("agent", tasks=3e5, turns=4),
        workload("batch", tasks=1e5),
        policy={"vendor_share": {"b": 0.4}, "share_of": "spend"},
    )
    return make_inputs(ws, cat)


def test_sifting_from_a_feasible_guess_gives_the_whole_lps_optimum():
    """Sifting adds the columns that price out until none is left. Guessing every subset of
    chat's four columns (agent's and batch's all in): the restricted LP has a plan only when it has
    a2 and b2 (the latency share needs more than a2's capacity), and from each such guess the plan
    and the binding rows are those of the whole LP solved at once, even when the guess left out a
    column the optimum uses (chat's a1)."""
    lp, pairs = lp_and_pairs(sifting_case())
    whole = solve_lp(lp, "highs")
    best = clean_shares(lp, whole.share)

    def held(result):
        return {lp.rows[i].name for i, y in result.pi.items() if abs(y) > 1e-9}

    assert {"vendor_share:b", "tokens_per_minute:a2"} <= held(whole)
    chat = np.flatnonzero(lp.var_w == pairs.workloads.ids.index("chat"))
    assert [pairs.options.offering_id[o] for o in lp.var_o[chat]] == ["a1", "a2", "b1", "b2"]
    assert best[chat[0]] > 0.3  # a1 carries part of chat
    settled = []
    for k in range(16):
        start = np.ones(len(lp.var_w), dtype=bool)
        start[chat] = [(k >> i) & 1 for i in range(4)]
        result = solve_warm(lp, "highs", start)
        if result is None:
            continue
        settled.append(k)
        assert result.ok and np.allclose(clean_shares(lp, result.share), best, atol=1e-9), k
        assert held(result) == held(whole), k
    assert settled == [0b1010, 0b1011, 0b1110, 0b1111]  # a2 and b2 in; a1 (bit 0) out in two of them


def test_sifting_from_a_guess_with_no_feasible_restriction_gives_no_answer():
    """Started on vendor a's options only, a 50% cap on a leaves the restricted LP infeasible:
    sifting gives no answer (the caller then solves the whole LP, which has one)."""
    cat = catalog_of(
        offering("a", vendor="a", price_in=1, price_out=1), offering("b", vendor="b", price_in=2, price_out=2)
    )
    lp, _ = lp_and_pairs(
        make_inputs(workloads_of(workload("w"), policy={"vendor_share": {"a": 0.5}, "share_of": "spend"}), cat)
    )
    assert solve_warm(lp, "highs", lp.var_o == 0) is None
    whole = solve_lp(lp, "highs")
    assert whole.ok and np.allclose(clean_shares(lp, whole.share), [2 / 3, 1 / 3])  # equal spend on a and b


def test_sifting_settles_on_the_tiny_portfolio():
    lp, _ = lp_and_pairs(make_inputs(load_dict("tiny-workloads.yaml"), load_dict("tiny-catalog.yaml")))
    result = solve_warm(lp, "highs", np.zeros(len(lp.var_w), dtype=bool))
    assert result is not None and result.ok
    assert np.array_equal(clean_shares(lp, result.share), clean_shares(lp, solve_lp(lp, "highs").share))
