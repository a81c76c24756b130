"""Every break-even figure of the sample plans, checked the way a reader would check it (SPEC v1.9): the
price change applied as `planner whatif --set "offerings[ID].price.input=*k"` applies it (every token
price of the offering, or of its price tier, scaled), the plan solved afresh, and its routing read. At
the figure plus two points traffic moves; at the figure less two points it does not; a row with no
figure moves nothing at +100% (used) or -99% (unused). The outage table and the concentration risk's
action are re-run likewise."""

import pytest

from planner.model.load import load_inputs
from planner.model.scenarios import apply_scenario, scenario_from_sets, without_vendor
from planner.optimize.pairs import build_pairs
from planner.pipeline.solve import solve_inputs

MARGIN = 0.02  # two points either side of a figure (the figures are to half a point)
MOVES = 1e-4  # as planner.review.prices: a share moves when it changes by more than this
FILES = {"support": "workloads/support.yaml", "real-support": "workloads/real-support.yaml"}


@pytest.fixture(
    scope="module",
    params=["support", pytest.param("real-support", marks=pytest.mark.deep)],  # real-support: ~40 s of solves
)
def case(request):
    inputs = load_inputs(FILES[request.param])
    return inputs, solve_inputs(inputs, "highs")


def price_sets(inputs, offering_id: str, tier: str | None, factor: float) -> list[str]:
    """--set expressions scaling every token price of one offering's list price (tier None) or tier."""
    off = next(o for o in inputs.catalog.offerings if o.id == offering_id)
    data = off.model_dump()
    if tier is None:
        base, price = "price", data["price"]
    else:
        base, price = f"price_tiers.{tier}.price", next(t for t in data["price_tiers"] if t["name"] == tier)["price"]
    out = [f"offerings[{offering_id}].{base}.{k}=*{factor!r}" for k in ("input", "output", "cached_input") if price[k]]
    if price.get("long_context"):
        lc = price["long_context"]
        out += [f"offerings[{offering_id}].{base}.long_context.{k}=*{factor!r}" for k in ("input", "output") if lc[k]]
        if lc.get("cached_input"):
            out.append(f"offerings[{offering_id}].{base}.long_context.cached_input=*{factor!r}")
    return out


def resolved(inputs, sets: list[str]):
    """The plan after the --set expressions, solved afresh (no review)."""
    changed = apply_scenario(inputs, scenario_from_sets(sets), "--set")
    return solve_inputs(changed, "highs", review=False, resilience=False)


def share_of(plan, workload: str, row) -> float:
    return sum(
        a.share
        for a in plan.workload(workload).allocations
        if (a.offering, a.mode, a.price_tier) == (row.offering, row.mode, row.price_tier)
    )


def offering_share(plan, workload: str, row) -> float:
    """An unused option takes traffic when its offering at its price (any mode, all cut together) does."""
    return sum(
        a.share
        for a in plan.workload(workload).allocations
        if (a.offering, a.price_tier, a.reserved) == (row.offering, row.price_tier, None)
    )


def test_every_break_even_row_moves_traffic_past_its_figure_and_not_before(case):
    inputs, plan = case
    rows = [(w.id, b) for w in plan.workloads for b in w.break_even if b.reserved is None]
    assert rows
    wrong = []
    for wid, b in rows:
        share = share_of if b.used else offering_share
        before = share(plan, wid, b)
        if b.used:
            checks = [(1.0, False)] if b.price_change is None else [(b.price_change + MARGIN, True)]
            if b.price_change is not None:
                checks.append((b.price_change - MARGIN, False))
        elif b.price_change is None:
            checks = [(-0.99, False)]
        else:
            checks = [(b.price_change + MARGIN, False)]
            if b.price_change - MARGIN >= -1:
                checks.append((b.price_change - MARGIN, True))
        for change, moves in checks:
            after = share(resolved(inputs, price_sets(inputs, b.offering, b.price_tier, 1 + change)), wid, b)
            moved = after < before - MOVES if b.used else after > before + MOVES
            if moved != moves:
                wrong.append(f"{wid} {b.option} {b.price_change}: at {change:+.3f} moved={moved}")
    assert not wrong, "\n".join(wrong)


def test_every_company_row_moves_traffic_past_its_figure_and_not_before(case):
    inputs, plan = case
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    assert plan.company_break_even and [c.company for c in plan.company_break_even] == [v.vendor for v in plan.vendors]
    for c in plan.company_break_even:
        involved = pairs.options.involving(c.company)
        offerings = sorted({pairs.options.offering_id[o] for o in range(len(involved)) if involved[o]})

        def company_shares(p, offerings=offerings):
            return {w.id: sum(a.share for a in w.allocations if a.offering in offerings) for w in p.workloads}

        now = company_shares(plan)
        checks = [(1.0, False)] if c.price_change is None else [(c.price_change + MARGIN, True)]
        if c.price_change is not None:
            checks.append((c.price_change - MARGIN, False))
        for change, moves in checks:
            sets = []
            for oid in offerings:
                off = next(o for o in inputs.catalog.offerings if o.id == oid)
                sets += price_sets(inputs, oid, None, 1 + change)
                for t in off.price_tiers:
                    sets += price_sets(inputs, oid, t.name, 1 + change)
            after = company_shares(resolved(inputs, sets))
            moved = any(after[w] < now[w] - MOVES for w in now)
            assert moved == moves, f"{c.company} {c.price_change}: at {change:+.3f} moved={moved}"
        if c.price_change is not None:
            assert c.workload in now and c.moves_to and c.text.startswith(c.company)


def test_every_outage_figure_is_the_plan_without_the_company(case):
    inputs, plan = case
    assert plan.resilience
    for r in plan.resilience:
        other = solve_inputs(
            apply_scenario(inputs, without_vendor(r.vendor, inputs.catalog), "--without-vendor"),
            "highs",
            review=False,
            resilience=False,
        )
        if r.lost_workloads:  # those workloads have no option without it
            assert all(not other.workload(w).allocations for w in r.lost_workloads), r.vendor
            continue
        assert r.feasible == (other.status != "infeasible"), r.vendor
        if r.feasible:
            assert r.change == pytest.approx(other.total_cost - plan.total_cost, abs=0.01), r.vendor


def test_the_concentration_action_prices_a_cap_that_binds(case):
    inputs, plan = case
    (risk,) = [r for r in plan.risks if r.kind == "concentration"]
    cap = float(risk.action.split("policy.max_vendor_share=")[1].split("`")[0])
    top = plan.vendors[0]
    assert cap < top.traffic_share  # below what it carries (ten points below its rounded share)
    capped = resolved(inputs, [f"policy.max_vendor_share={cap}"])
    if capped.status == "infeasible":  # the action says which workloads need a second host first
        lost = next(r for r in plan.resilience if r.vendor == top.vendor).lost_workloads
        assert lost and "need a second host first" in risk.action and all(w in risk.action for w in lost)
    else:
        share = next(v for v in capped.vendors if v.vendor == top.vendor).traffic_share
        assert share <= cap + 1e-6


def test_an_integer_plans_break_evens_stay_within_the_reviews_work(monkeypatch):
    """Each re-solve of an integer plan (commitments) is an integer program: the break-even rows are cut to
    what REVIEW_WORK (column-solves) allows, the largest routes first, and the plan says so; with no work
    left none is computed, companies included."""
    from planner.review import prices

    inputs = load_inputs("workloads/support-contracts.yaml")
    plan = solve_inputs(inputs, "highs")
    assert any(w.break_even for w in plan.workloads)
    monkeypatch.setattr(prices, "REVIEW_WORK", 0)
    starved = solve_inputs(inputs, "highs")
    assert starved.total_cost == plan.total_cost
    assert not any(w.break_even for w in starved.workloads) and not starved.company_break_even
    said = [a for a in starved.assumptions if a.startswith("break-even prices of this integer plan")]
    assert len(said) == 1 and "not computed, companies' included" in said[0], starved.assumptions
    full_n = int(said[0].split("re-solves of its ")[1].split(" columns")[0].replace(",", ""))
    monkeypatch.setattr(prices, "REVIEW_WORK", full_n * prices.SOLVES_PER_ROW)  # one row: the largest route
    one = solve_inputs(inputs, "highs")
    rows = [b for w in one.workloads for b in w.break_even]
    assert len(rows) == 1 and rows[0].used and not one.company_break_even
    assert any(" computed for 1 of " in a for a in one.assumptions), one.assumptions


def test_a_tie_at_every_step_is_settled_in_a_few_solves_not_a_search_per_step():
    """first_move on re-solves that show a move at every step (an option whose price moves no cost: a tie
    everywhere): the first step it shows is a tie, +100% is a tie, so nothing is reported after one search
    and one confirmation (not a new search from each step).
    Where rises force a move from step 37 on, 37 is found by bisection on confirmed moves."""
    import numpy as np

    from planner.optimize.resolve import Point
    from planner.review.prices import STEPS, first_move

    solved = []

    def run(k):
        solved.append(k)
        return Point(True, np.zeros(1), float(k))

    assert first_move(run, lambda p: True, None, lambda p, k: False) == (None, None)
    search = 2 + int(np.ceil(np.log2(STEPS)))  # the guess, the step before it, a bisection
    assert len(solved) <= search + 1, solved
    solved.clear()
    k, point = first_move(run, lambda p: True, 5, lambda p, k: k >= 37)
    assert k == 37 and point.cost == 37.0
    assert len(solved) <= 2 * search, solved
