"""SPEC section 4: the linear program. One hand-computed case per constraint family (solved through
the pipeline), the row blocks against rows built one by one, and the self-check on every row."""

import numpy as np
import pytest
from conftest import ROOT, catalog_of, make_inputs, offering, solve_dicts, workload, workloads_of

from planner.model.load import load_inputs
from planner.optimize.lp import LinearProgram, Row, build_problem, check_rows, clean_shares
from planner.optimize.pairs import build_pairs

T = 1000.0  # tasks per period in every case; 1,000 input + 1,000 output tokens per task


def per_task(price_in, price_out):
    return (1000 * price_in + 1000 * price_out) / 1e6


def shares(plan, wid="w"):
    return {a.offering + ("" if a.mode == "default" else "@" + a.mode): a.share for a in plan.workload(wid).allocations}


def lp_of(ws: dict, cat: dict) -> LinearProgram:
    """The unpruned LP over every workload with an eligible option."""
    inputs = make_inputs(ws, cat)
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    return build_problem(inputs.workloads, inputs.catalog, pairs, np.flatnonzero(pairs.eligible_count > 0))


def test_cover_picks_the_cheapest_eligible_option():
    plan = solve_dicts(
        workloads_of(workload("w")),
        catalog_of(offering("a", price_in=2, price_out=2), offering("b", price_in=1, price_out=1)),
    )
    assert plan.status == "optimal"
    assert shares(plan) == {"b": 1.0}
    assert plan.total_cost == pytest.approx(T * per_task(1, 1))


def test_latency_share_sends_only_the_required_share_to_the_fast_lane():
    cat = catalog_of(offering("fast", price_in=2, price_out=2, tps=1000), offering("slow", tps=10))
    ws = workloads_of(workload("w", latency={"budget_s": 5, "within_budget_share": 0.7}))
    plan = solve_dicts(ws, cat)
    assert shares(plan) == pytest.approx({"fast": 0.7, "slow": 0.3})
    assert plan.total_cost == pytest.approx(T * (0.7 * per_task(2, 2) + 0.3 * per_task(1, 1)))
    w = plan.workload("w")
    assert w.within_budget_share == pytest.approx(0.7)
    binding = {b.constraint: b for b in plan.binding}
    # one point less within budget moves 1% of tasks to the slow lane: saves T x 0.002 per unit share
    assert binding["latency_share:w"].shadow_price == pytest.approx(T * (per_task(2, 2) - per_task(1, 1)), rel=1e-4)


def test_mean_capability_mixes_to_the_exact_mean():
    cat = catalog_of(offering("smart", price_in=3, price_out=3, capability=90), offering("plain", capability=60))
    ws = workloads_of(workload("w", capability={"mean_min": 80}))
    plan = solve_dicts(ws, cat)
    assert shares(plan) == pytest.approx({"smart": 2 / 3, "plain": 1 / 3})
    assert plan.workload("w").capability_mean == pytest.approx(80.0)
    assert plan.total_cost == pytest.approx(T * (2 / 3 * per_task(3, 3) + 1 / 3 * per_task(1, 1)))


def test_tokens_per_minute_caps_the_cheap_lane_and_prices_the_capacity():
    # peak = 43,200 tasks / 43,200 minutes = 1 task/min of 2,000 tokens: the cheap lane takes 800 tpm
    cat = catalog_of(offering("cheap", capacity={"tokens_per_minute": 800}), offering("dear", price_in=3, price_out=3))
    ws = workloads_of(workload("w", tasks=43200))
    plan = solve_dicts(ws, cat)
    assert shares(plan) == pytest.approx({"cheap": 0.4, "dear": 0.6})
    use = {o.id: o for o in plan.offerings}
    assert use["cheap"].peak_tpm == pytest.approx(800)
    assert use["cheap"].utilization == pytest.approx(1.0)
    b = {b.constraint: b for b in plan.binding}["tokens_per_minute:cheap"]
    # one more token/minute moves 1/2000 of the tasks to the cheap lane
    assert b.shadow_price == pytest.approx(43200 * (per_task(3, 3) - per_task(1, 1)) / 2000, rel=1e-4)


def test_requests_per_minute_counts_every_turn():
    cat = catalog_of(offering("cheap", capacity={"requests_per_minute": 3}), offering("dear", price_in=2, price_out=2))
    ws = workloads_of(workload("w", tasks=1000, turns=4, peak_tasks_per_minute=1.5))  # 6 requests/min at peak
    plan = solve_dicts(ws, cat)
    assert shares(plan) == pytest.approx({"cheap": 0.5, "dear": 0.5})


def test_a_share_cap_counts_traffic_so_spending_more_cannot_meet_it():
    """x <= 50% of the tokens: half the tasks go to y, however dear y is (with share_of: spend the
    dearer y would let x keep two thirds)."""
    for price in (2, 20):
        cat = catalog_of(offering("x1", vendor="x"), offering("y1", vendor="y", price_in=price, price_out=price))
        plan = solve_dicts(workloads_of(workload("w"), policy={"vendor_share": {"x": 0.5}}), cat)
        assert shares(plan) == pytest.approx({"x1": 0.5, "y1": 0.5})
        traffic = {v.vendor: v.traffic_share for v in plan.vendors}
        assert traffic == pytest.approx({"x": 0.5, "y": 0.5})


def test_a_tasks_share_cap_weighs_workloads_by_tasks():
    """share_of: tasks: x may carry 50% of all tasks; w1 has 3 of 4 tasks, so x takes at most 2/3 of
    it, all of cheap w2 first."""
    cat = catalog_of(offering("x1", vendor="x"), offering("y1", vendor="y", price_in=2, price_out=2))
    w1, w2 = workload("w1", tasks=3000), workload("w2", tasks=1000)
    w1["tokens"] = {"input": 100, "output": 100}
    plan = solve_dicts(workloads_of(w1, w2, policy={"vendor_share": {"x": 0.5}, "share_of": "tasks"}), cat)
    on_x = sum(a.tasks for w in plan.workloads for a in w.allocations if a.vendor == "x")
    assert on_x == pytest.approx(2000)
    assert {v.vendor: v.traffic_share for v in plan.vendors}["x"] == pytest.approx(0.5)


def test_an_absolute_spend_cap_holds_the_companys_spend():
    cat = catalog_of(offering("x1", vendor="x"), offering("y1", vendor="y", price_in=2, price_out=2))
    w = workload("w")
    full = solve_dicts(workloads_of(w), cat).total_cost  # all on x
    plan = solve_dicts(workloads_of(w, policy={"vendor_spend": {"x": full / 4}}), cat)
    assert shares(plan) == pytest.approx({"x1": 0.25, "y1": 0.75})
    assert {b.constraint for b in plan.binding} == {"vendor_spend:x"}
    assert {v.vendor: v.spend_cap for v in plan.vendors}["x"] == full / 4


def test_a_company_that_serves_counts_like_one_that_bills():
    """sol is billed by x and served by z: a cap on z, an outage of z and a workload's max_vendor_share
    all count it."""
    cat = catalog_of(offering("sol", vendor="x", host="z"), offering("y1", vendor="y", price_in=2, price_out=2))
    plan = solve_dicts(workloads_of(workload("w"), policy={"vendor_share": {"z": 0.25}}), cat, "highs")
    assert shares(plan) == pytest.approx({"sol": 0.25, "y1": 0.75})
    by = {v.vendor: v for v in plan.vendors}
    assert by["z"].spend == by["x"].spend and by["z"].billed == 0 and by["x"].billed == by["x"].spend
    outage = {o.vendor: o for o in plan.resilience}
    assert outage["z"].cost_without == pytest.approx(outage["x"].cost_without)
    assert shares(solve_dicts(workloads_of(workload("w", max_vendor_share=0.6)), cat)) == pytest.approx(
        {"sol": 0.6, "y1": 0.4}
    )


def test_vendor_spend_cap_is_a_share_of_total_spend():
    cat = catalog_of(offering("x1", vendor="x"), offering("y1", vendor="y", price_in=2, price_out=2))
    ws = workloads_of(workload("w"), policy={"vendor_share": {"x": 0.5}, "share_of": "spend"})
    plan = solve_dicts(ws, cat)
    # a x 1 <= 0.5 x (a x 1 + (1 - a) x 2)  ->  a = 2/3
    assert shares(plan) == pytest.approx({"x1": 2 / 3, "y1": 1 / 3})
    spend = {v.vendor: v.share for v in plan.vendors}
    assert spend["x"] == pytest.approx(0.5)
    assert [v.vendor for v in plan.vendors] == sorted(spend, key=lambda v: -spend[v])


def test_vendor_share_overrides_max_vendor_share():
    cat = catalog_of(offering("x1", vendor="x"), offering("y1", vendor="y", price_in=2, price_out=2))
    ws = workloads_of(workload("w"), policy={"max_vendor_share": 0.5, "vendor_share": {"x": 1.0, "y": 1.0}})
    assert shares(solve_dicts(ws, cat)) == {"x1": 1.0}


def test_workload_vendor_share_spreads_tasks():
    cat = catalog_of(
        offering("x1", vendor="x"),
        offering("x2", vendor="x", price_in=1.5, price_out=1.5),
        offering("y1", vendor="y", price_in=2, price_out=2),
    )
    ws = workloads_of(workload("w", max_vendor_share=0.6))
    plan = solve_dicts(ws, cat)
    assert shares(plan) == pytest.approx({"x1": 0.6, "y1": 0.4})


def test_budget_binds_when_exactly_met_and_relaxes_when_too_small():
    cat = catalog_of(offering("a"))
    need = T * per_task(1, 1)
    ok = solve_dicts(workloads_of(workload("w"), policy={"budget": need}), cat)
    assert ok.status == "optimal" and ok.total_cost == pytest.approx(need)
    short = solve_dicts(workloads_of(workload("w"), policy={"budget": need / 2}), cat)
    assert short.status == "infeasible"
    (relax,) = short.relaxation
    assert relax.constraint == "budget"
    assert relax.needed == pytest.approx(need) and relax.by == pytest.approx(need / 2)
    assert "budget" in short.diagnosis[0]


def test_each_family_gives_its_rows_by_hand():
    """The rows of a small LP, name by name: a cover row per workload, the latency share over the
    options within budget, capacity per unit of the limit, the vendor's spend share, the budget."""
    cat = catalog_of(
        offering("x1", vendor="x", tps=1000, capacity={"tokens_per_minute": 4000}),
        offering("y1", vendor="y", price_in=2, price_out=2, tps=10),
    )
    ws = workloads_of(
        workload("w", tasks=43200, latency={"budget_s": 5, "within_budget_share": 0.5}),
        policy={"vendor_share": {"x": 0.5}, "budget": 1000.0, "share_of": "spend"},
    )
    lp = lp_of(ws, cat)
    assert lp.var_w.tolist() == [0, 0] and lp.var_o.tolist() == [0, 1]
    assert lp.spend.tolist() == pytest.approx([43200 * per_task(1, 1), 43200 * per_task(2, 2)])
    assert lp.scale == pytest.approx(43200 * per_task(1, 1))  # the cheapest option for every task
    rows = {r.name: r for r in lp.rows}
    assert list(rows) == ["cover:w", "latency_share:w", "tokens_per_minute:x1", "vendor_share:x", "budget"]
    assert lp.families == ["cover", "latency_share", "tokens_per_minute", "vendor_spend_share", "budget"]
    cover = rows["cover:w"]
    assert (cover.cols.tolist(), cover.coefs.tolist(), cover.sense, cover.rhs) == ([0, 1], [1.0, 1.0], "==", 1.0)
    fast = rows["latency_share:w"]  # 1,000 output tokens: x1 takes 1 s, y1 100 s
    assert (fast.cols.tolist(), fast.sense, fast.rhs) == ([0], ">=", 0.5)
    tpm = rows["tokens_per_minute:x1"]  # 1 task/min of 2,000 tokens, per unit of the 4,000 tokens/min limit
    assert (tpm.cols.tolist(), tpm.coefs.tolist(), tpm.sense, tpm.rhs, tpm.limit) == ([0], [0.5], "<=", 1.0, 4000)
    vendor = rows["vendor_share:x"]  # spend on x - 50% of all spend <= 0, in scaled money
    money = lp.spend / lp.scale
    assert vendor.cols.tolist() == [0, 1] and (vendor.sense, vendor.rhs, vendor.limit) == ("<=", 0.0, 0.5)
    assert vendor.coefs.tolist() == pytest.approx([0.5 * money[0], -0.5 * money[1]])
    budget = rows["budget"]
    assert budget.limit == 1000.0 and budget.sense == "<="
    assert (budget.coefs * lp.scale).tolist() == pytest.approx(lp.spend.tolist())
    assert budget.rhs * lp.scale == pytest.approx(1000.0)
    share = np.array([2 / 3, 1 / 3])  # equal spend on x and y: the vendor row at its bound
    acts, _ = lp.activities(share)
    assert acts[list(rows).index("vendor_share:x")] == pytest.approx(0.0, abs=1e-12)
    assert acts[list(rows).index("tokens_per_minute:x1")] == pytest.approx(1 / 3)
    assert check_rows(lp, share) == []


def test_check_rows_names_each_broken_row():
    cat = catalog_of(offering("x1", vendor="x"), offering("y1", vendor="y", price_in=2, price_out=2))
    lp = lp_of(workloads_of(workload("w"), policy={"vendor_share": {"x": 0.5}, "share_of": "spend"}), cat)
    assert check_rows(lp, np.array([2 / 3, 1 / 3])) == []  # equal spend on x and y
    (broken,) = check_rows(lp, np.array([1.0, 0.0]))
    assert broken.startswith("vendor_share:x: ") and " > " in broken
    slack = np.zeros(len(lp.rows))
    slack[lp.families.index("vendor_spend_share")] = 1.0  # a relaxation that big lets it through
    assert check_rows(lp, np.array([1.0, 0.0]), slack) == []
    assert any(b.startswith("cover:w: ") for b in check_rows(lp, np.array([0.5, 0.0])))


def test_clean_shares_drops_dust_and_sums_each_workload_to_one():
    cat = catalog_of(offering("a"), offering("b", price_in=2, price_out=2), offering("c", price_in=3, price_out=3))
    lp = lp_of(workloads_of(workload("w1"), workload("w2")), cat)
    assert lp.var_w.tolist() == [0, 0, 0, 1, 1, 1]
    raw = np.array([0.5, 0.5 + 1e-7, 1e-12, 1.0 + 1e-9, -1e-10, 0.0])
    clean = clean_shares(lp, raw)
    assert clean[2] == 0.0 and clean[4] == 0.0  # dust and solver noise below zero
    assert clean[0] + clean[1] + clean[2] == pytest.approx(1.0, abs=1e-12)
    assert clean[3:].tolist() == [1.0, 0.0, 0.0]
    assert raw[1] == 0.5 + 1e-7  # the solver's answer itself is left alone


def test_clean_shares_of_some_columns_are_those_of_every_column():
    """A sifted re-solve cleans only the columns in its small model: the same figures, bit for bit, as
    cleaning the whole vector with zeros elsewhere (its plan costs and break-evens must not move)."""
    cat = catalog_of(*(offering(f"o{i}", price_in=i + 1, price_out=i + 1) for i in range(4)))
    lp = lp_of(workloads_of(*(workload(f"w{i}") for i in range(3))), cat)
    rng = np.random.default_rng(29)
    for _ in range(50):
        cols = np.flatnonzero(rng.random(lp.n) < 0.6)
        values = rng.random(len(cols)) * rng.choice([1.0, 1e-10, 1.0 + 1e-9], len(cols))
        whole = np.zeros(lp.n)
        whole[cols] = values
        assert np.array_equal(clean_shares(lp, values.copy(), cols), clean_shares(lp, whole))


def test_row_blocks_give_the_rows_and_arrays_built_row_by_row():
    """The per-workload families are built as blocks: each row read from them, and the arrays the
    solver gets, are what one Row per workload gives (names, columns, coefficients, senses, limits)."""
    inputs = load_inputs(ROOT / "workloads" / "real-support.yaml")
    ws = inputs.workloads.model_copy(
        update={
            "workloads": [  # a mean-capability floor on every other workload
                w.model_copy(update={"capability": w.capability.model_copy(update={"mean_min": 40.0})}) if i % 2 else w
                for i, w in enumerate(inputs.workloads.workloads)
            ]
        }
    )
    cat = inputs.catalog
    pairs = build_pairs(ws, cat)
    in_lp = np.flatnonzero(pairs.eligible_count > 0)[::-1]  # (any order of workloads)
    lp = build_problem(ws, cat, pairs, in_lp)

    def same(a, b) -> bool:
        return (a.name, a.family, a.cols.tolist(), a.coefs.tolist(), a.sense, a.rhs, a.limit, a.relax_weight) == (
            b.name,
            b.family,
            b.cols.tolist(),
            b.coefs.tolist(),
            b.sense,
            b.rhs,
            b.limit,
            b.relax_weight,
        )

    one_by_one = [lp.rows[i] for i in range(len(lp.rows))]  # each made on its own, before any iteration
    assert same(lp.rows[-1], one_by_one[-1]) and all(map(same, lp.rows[2:5], one_by_one[2:5]))
    rows = list(lp.rows)
    assert all(isinstance(r, Row) for r in rows)
    assert all(map(same, rows, one_by_one))
    assert {"cover", "latency_share", "mean_capability"} <= set(lp.families)
    assert lp.families == [r.family for r in rows]
    var_of = {(w, o): j for j, (w, o) in enumerate(zip(lp.var_w.tolist(), lp.var_o.tolist()))}
    wa = pairs.workloads
    for r in rows:
        if r.family in ("cover", "latency_share", "mean_capability"):
            w = wa.ids.index(r.name.split(":", 1)[1])
            cols = [
                var_of[w, o]
                for o in range(pairs.shape[1])
                if (w, o) in var_of and (r.family != "latency_share" or pairs.within_budget[w, o])
            ]
            assert r.cols.tolist() == cols, r.name
            want = (
                [pairs.capability[w, lp.var_o[j]] / 100 for j in cols]
                if r.family == "mean_capability"
                else [1.0] * len(cols)
            )
            assert r.coefs.tolist() == want
    by_rows = LinearProgram(lp.var_w, lp.var_o, lp.spend, lp.objective, lp.scale, rows)
    for a, b in zip(lp.matrix + lp.senses, by_rows.matrix + by_rows.senses):
        assert np.array_equal(a, b)
