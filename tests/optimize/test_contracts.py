"""Issue 19 through the command line and by hand: price tiers, long calls, commitments, switching,
--time-limit, and the one-line errors of bad contracts (SPEC "Every way vendors sell")."""

from __future__ import annotations

import json

import pytest
from conftest import write_files
from typer.testing import CliRunner

from planner.cli.app import app
from planner.model.load import load_inputs
from planner.optimize.pairs import build_pairs
from planner.pipeline.solve import solve_inputs

runner = CliRunner()

OFFER = {
    "id": "a",
    "model": "m-a",
    "vendor": "va",
    "capability": 80,
    "price": {"input": 2.0, "output": 8.0},
    "speed": {"output_tps": 50, "ttft_s": 0.5},
}


write = write_files


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line(result, *words):
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and "Traceback" not in result.output, lines
    for w in words:
        assert w in lines[0], lines[0]


# ----------------------------------------------------------------------------- tiers, by hand


def test_who_may_use_batch_and_flex(tmp_path):
    """Batch (window 3,600 s, one turn: 3,600 s) may serve a background workload and a 2-hour budget;
    not a workload without latency, nor a 10 s budget that wants only half its tasks within it. Flex
    without a speed: only workloads without a budget."""
    tiers = [
        {"name": "batch", "price": {"input": 1, "output": 4}, "window_s": 3600},
        {"name": "flex", "price": {"input": 1, "output": 4}},
    ]
    tok = {"input": 1000, "output": 100}
    path = write(
        tmp_path,
        [{**OFFER, "price_tiers": tiers}],
        [
            {"id": "bg", "tasks": 10, "tokens": tok, "latency": {"threshold": "background"}},
            {"id": "none", "tasks": 10, "tokens": tok},
            {"id": "2h", "tasks": 10, "tokens": tok, "latency": {"budget_s": 7200}},
            {"id": "half", "tasks": 10, "tokens": tok, "latency": {"budget_s": 10, "within_budget_share": 0.5}},
        ],
    )
    inputs = load_inputs(path)
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    sale = pairs.options.sale
    batch, flex = sale.index("batch"), sale.index("flex")
    assert pairs.eligible[:, batch].tolist() == [True, False, True, False]
    assert pairs.eligible[:, flex].tolist() == [True, True, False, False]
    assert pairs.latency_s[0, batch] == 3600
    assert pairs.reasons(3, batch) == ["batch: a task completes within 1 h; budget 10 s"]
    assert "states no deadline" in pairs.reasons(1, batch)[0]
    assert pairs.reasons(2, flex)[0].startswith("flex: speed not measured")
    plan = solve_inputs(inputs, "highs")
    tiers_used = {w.id: {a.price_tier for a in w.allocations} for w in plan.workloads}
    # bg: batch and flex cost the same ($0.0014 a task); a speed not known breaks no tie: batch
    assert tiers_used == {"bg": {"batch"}, "none": {"flex"}, "2h": {"batch"}, "half": {None}}
    assert plan.workload("2h").allocations[0].output_tps is None  # a batch job has no speed


def test_a_long_call_bills_every_token_at_the_long_price(tmp_path):
    """150,000 input + 1,000 output tokens, above 100,000: (150,000 x 4 + 1,000 x 12) / 1e6 = $0.612 a
    call, not the list (150,000 x 2 + 1,000 x 8) / 1e6 = $0.308."""
    offer = {**OFFER, "price": {"input": 2, "output": 8, "long_context": {"above": 100000, "input": 4, "output": 12}}}
    path = write(
        tmp_path,
        [offer],
        [
            {"id": "long", "tasks": 100, "tokens": {"input": 150000, "output": 1000}},
            {"id": "short", "tasks": 100, "tokens": {"input": 100000, "output": 1000}},
        ],
    )
    plan = solve_inputs(load_inputs(path), "highs")
    assert plan.workload("long").cost_per_task == pytest.approx(0.612)
    assert plan.workload("short").cost_per_task == pytest.approx((100000 * 2 + 1000 * 8) / 1e6)


def test_long_calls_from_sample_tasks(tmp_path):
    """Two sample tasks of equal weight, one call each: 50,000 and 150,000 input tokens, 1,000 output.
    Mean task (100,000 in) at list: $0.208; the long sample adds its long price minus its list price,
    (0.612 - 0.308) = $0.304, half the weight: cost per task 0.208 + 0.152 = $0.360."""
    offer = {**OFFER, "price": {"input": 2, "output": 8, "long_context": {"above": 100000, "input": 4, "output": 12}}}
    (tmp_path / "d.csv").write_text(
        "weight,calls,input,output,reasoning,cached_input\n1,1,50000,1000,0,0\n1,1,150000,1000,0,0\n"
    )
    path = write(
        tmp_path,
        [offer],
        [{"id": "w", "tasks": 10, "tokens": {"input": 100000, "output": 1000}, "distribution": "d.csv"}],
    )
    plan = solve_inputs(load_inputs(path), "highs")
    assert plan.workload("w").cost_per_task == pytest.approx(0.360)


# ----------------------------------------------------------------------------- commitments and budget


def test_fees_count_against_the_budget(tmp_path):
    """100,000 tasks of 1,000 output tokens at $10/1M: $1,000 at list. Units of 1,000 tokens/min at $300
    serve 40% each (peak 2,500 tokens/min): 2 units, $800. A budget of $850 holds with the fees counted;
    a budget of $700 does not: no plan under it (the smallest relaxation raises it)."""
    offer = {**OFFER, "price": {"input": 0, "output": 10}}
    ptu = [{"id": "ptu", "vendor": "va", "unit": {"fee": 300, "tokens_per_minute": 1000}, "max_units": 3}]
    wl = [{"id": "w", "tasks": 100000, "peak_tasks_per_minute": 2.5, "tokens": {"input": 0, "output": 1000}}]
    ok = solve_inputs(load_inputs(write(tmp_path, [offer], wl, ptu, {"budget": 850})), "highs")
    assert (ok.status, ok.total_cost, ok.commitments[0].units) == ("optimal", pytest.approx(800), 2)
    assert ok.commitments[0].break_even_utilization == pytest.approx(300 / (1000 * 43200 * 10 / 1e6))
    tight = solve_inputs(load_inputs(write(tmp_path, [offer], wl, ptu, {"budget": 700})), "highs")
    assert tight.status == "infeasible" and tight.relaxation[0].constraint == "budget"


def test_an_unsigned_spend_commitment_says_what_would_pay(tmp_path):
    """Offering b (vendor vb) $3/1M output, c (vc) $2/1M: 1,000,000 tasks of 1,000 output tokens cost
    $3,000 on b and $2,000 on c. A contract with vb: $2,500 a month minimum, 20% off. Signed, the plan
    pays max(2,500, 0.8 x 3,000) = $2,500 > $2,000: not signed. It pays at a discount d with
    (1 - d) x 3,000 <= 2,000: d = 1/3, where the minimum ($2,500) still binds: no discount makes it pay
    with that minimum, and no lower minimum alone at 20% off (max(m, 2,400) > 2,000)."""
    b = {**OFFER, "id": "b", "vendor": "vb", "price": {"input": 0, "output": 3}}
    c = {**OFFER, "id": "c", "vendor": "vc", "price": {"input": 0, "output": 2}}
    deal = [{"id": "deal", "vendor": "vb", "min_spend": 2500, "discount": 0.2}]
    wl = [{"id": "w", "tasks": 1000000, "tokens": {"input": 0, "output": 1000}}]
    plan = solve_inputs(load_inputs(write(tmp_path, [b, c], wl, deal)), "highs")
    (use,) = plan.commitments
    assert not use.signed and plan.total_cost == pytest.approx(2000)
    assert use.needs is not None and use.needs.min_spend is None and use.needs.discount is None
    assert use.text.endswith("no discount makes it pay")


# ----------------------------------------------------------------------------- switching through the CLI


def test_solve_from_a_plan_declines_a_move_that_does_not_pay(tmp_path):
    """Last plan: everything on a ($2/$8: 1,000 in + 100 out = $0.0028 a task, 1,000,000 tasks: $2,800).
    Now b costs $1/$4: $1,400. With a switch cost of $2,000 the move saves $1,400 < $2,000: declined;
    with $1,000 it is made and $1,000 is paid."""
    wl = [{"id": "w", "tasks": 1000000, "tokens": {"input": 1000, "output": 100}}]
    path = write(tmp_path, [OFFER], wl)
    assert run("solve", path, "--out", tmp_path / "old").exit_code == 0
    b = {**OFFER, "id": "b", "price": {"input": 1, "output": 4}}
    write(tmp_path, [OFFER, b], wl)
    old = tmp_path / "old" / "w.plan.json"
    result = run("solve", path, "--out", tmp_path / "new", "--from", old, "--switch-cost", 2000)
    assert result.exit_code == 0, result.output
    plan = json.loads((tmp_path / "new" / "w.plan.json").read_text())
    assert plan["workloads"][0]["allocations"][0]["offering"] == "a"
    (declined,) = plan["switching"]["declined"]
    assert (declined["workload"], declined["saving"], declined["switch_cost"]) == ("w", pytest.approx(1400), 2000)
    assert "declined w" in result.stdout
    result = run("solve", path, "--out", tmp_path / "new", "--from", old, "--switch-cost", 1000)
    plan = json.loads((tmp_path / "new" / "w.plan.json").read_text())
    assert plan["workloads"][0]["allocations"][0]["offering"] == "b"
    assert plan["switching"]["cost"] == 1000 and plan["total_cost"] == pytest.approx(1400)


def test_time_limit_writes_a_plan_it_does_not_call_optimal(tmp_path):
    """A tiny instance solves well within any limit: optimal, the limit recorded, no gap."""
    wl = [{"id": "w", "tasks": 10, "tokens": {"input": 10, "output": 10}}]
    ptu = [{"id": "p", "vendor": "va", "unit": {"fee": 1, "tokens_per_minute": 1000}, "max_units": 2}]
    path = write(tmp_path, [OFFER], wl, ptu)
    result = run("solve", path, "--out", tmp_path / "o", "--time-limit", 30)
    plan = json.loads((tmp_path / "o" / "w.plan.json").read_text())
    assert result.exit_code == 0 and plan["status"] == "optimal"
    assert plan["solver"]["time_limit"] == 30 and "gap" not in plan["solver"]


# ----------------------------------------------------------------------------- bad input: one line, exit 2


@pytest.mark.parametrize(
    "commitment, words",
    [
        ({"id": "p", "vendor": "va", "unit": {"fee": -1, "tokens_per_minute": 10}, "max_units": 2}, "fee"),
        ({"id": "p", "vendor": "va", "unit": {"fee": 1}, "max_units": 2}, "tokens_per_minute"),
        ({"id": "p", "vendor": "va", "unit": {"fee": 1, "tokens_per_minute": 0}, "max_units": 2}, "tokens_per_minute"),
        (
            {
                "id": "p",
                "vendor": "va",
                "offerings": ["zz-*"],
                "unit": {"fee": 1, "tokens_per_minute": 9},
                "max_units": 2,
            },
            "covers no offering",
        ),
        ({"id": "p", "vendor": "nobody", "min_spend": 10, "discount": 0.1}, "covers no offering"),
        ({"id": "p", "vendor": "va", "min_spend": 10, "discount": 1.0}, "discount"),
        ({"id": "p", "vendor": "va", "min_spend": 10}, "min_spend and discount"),
        (
            {"id": "p", "vendor": "va", "unit": {"fee": 1, "tokens_per_minute": 9}, "max_units": 2, "discount": 0.1},
            "not both",
        ),
    ],
)
def test_bad_commitments_are_one_line(tmp_path, commitment, words):
    wl = [{"id": "w", "tasks": 10, "tokens": {"input": 10, "output": 10}}]
    path = write(tmp_path, [OFFER], wl, [commitment])
    result = run("solve", path, "--out", tmp_path / "o")
    one_line(result, "cat.yaml", words)
    assert not (tmp_path / "o").exists()


def test_bad_switching_flags_are_one_line(tmp_path):
    wl = [{"id": "w", "tasks": 10, "tokens": {"input": 10, "output": 10}}]
    path = write(tmp_path, [OFFER], wl)
    one_line(run("solve", path, "--switch-cost", 5), "--switch-cost", "--from")
    one_line(run("solve", path, "--time-limit", 0), "--time-limit")
    (tmp_path / "bad.json").write_text("{}")
    one_line(run("solve", path, "--from", tmp_path / "bad.json"), "bad.json", "plan_version")
    tiers = [{"name": "batch", "price": {"input": 1, "output": 1}, "speed": {"output_tps": 5, "ttft_s": 1}}]
    write(tmp_path, [{**OFFER, "price_tiers": tiers}], wl)
    one_line(run("solve", path), "cat.yaml", "batch tier has no speed")


def test_the_cost_bridge_adds_up_with_contracts(tmp_path):
    """The same workload before and after a reservation: $1,000 at list, then 2 units ($600) and 20% of the
    tasks at list ($200): -$200, all of it in the contracts part (the fee +$600, the workload -$800)."""
    from planner.review.compare import compare_plans

    offer = {**OFFER, "price": {"input": 0, "output": 10}}
    wl = [{"id": "w", "tasks": 100000, "peak_tasks_per_minute": 2.5, "tokens": {"input": 0, "output": 1000}}]
    before = solve_inputs(load_inputs(write(tmp_path, [offer], wl)), "highs")
    ptu = [{"id": "ptu", "vendor": "va", "unit": {"fee": 300, "tokens_per_minute": 1000}, "max_units": 3}]
    after = solve_inputs(load_inputs(write(tmp_path, [offer], wl, ptu)), "highs")
    cmp = compare_plans(before, after)
    parts = {s.key: s.amount for s in cmp.bridge}
    assert sum(parts.values()) == pytest.approx(after.total_cost - before.total_cost) == pytest.approx(-200)
    assert parts["contracts"] == pytest.approx(-200) and parts["routing"] == 0
    assert cmp.workloads[0].routing_after == ["a (reserved ptu) 80%", "a 20%"]
