"""Two plans side by side (planner.compare): cost, routing and price changes, which workloads a
report shows, and `planner compare`."""

import json
import pickle

from conftest import ROOT, catalog_of, offering, solve_dicts, two_vendors, workload, workloads_of
from typer.testing import CliRunner

from planner.cli import app
from planner.compare import Comparison, compare_plans
from planner.scenarios import apply_scenario
from planner.schema import Scenario
from planner.solve import solve_inputs

runner = CliRunner()
SUPPORT = ROOT / "workloads" / "support.yaml"


def scenario(**data):
    return Scenario.model_validate({"name": "s", **data})


def test_compare_plans_reports_cost_routing_and_prices():
    inputs = two_vendors()
    before = solve_inputs(inputs)
    sc = scenario(catalog=[{"match": {"id": "a-fast"}, "set": {"price.input": "*0.25", "price.output": "*0.25"}}])
    after = solve_inputs(apply_scenario(inputs, sc, "s.yaml"), scenario="s")
    cmp = compare_plans(before, after)
    assert cmp.total_after < cmp.total_before
    chat = next(w for w in cmp.workloads if w.id == "chat")
    assert chat.changed and chat.routing_before == ["a-std 100%"] and chat.routing_after == ["a-fast 100%"]
    assert {(c.id, c.field) for c in cmp.offering_changes} == {("a-fast", "price_input"), ("a-fast", "price_output")}
    assert type(cmp).model_validate_json(cmp.model_dump_json()) == cmp  # its rows are built as trusted records
    back = pickle.loads(pickle.dumps(cmp))  # rows built as trusted records pickle as validated ones do
    assert back == cmp and back.model_dump_json() == cmp.model_dump_json()


def test_a_plan_compared_with_itself_has_no_change(tiny_workloads, tiny_catalog):
    plan = solve_dicts(tiny_workloads, tiny_catalog)
    cmp = compare_plans(plan, plan, "q3", "q4")
    assert isinstance(cmp, Comparison) and (cmp.label_before, cmp.label_after) == ("q3", "q4")
    assert cmp.total_before == cmp.total_after == plan.total_cost
    assert [w.id for w in cmp.workloads] == ["chat", "agent", "batch"] and not any(w.changed for w in cmp.workloads)
    assert all(v.delta == 0 for v in cmp.vendors) and cmp.offering_changes == []
    assert cmp.binding_started == [] and cmp.binding_stopped == []


def test_workloads_in_only_one_plan_are_listed_too():
    cat = catalog_of(offering("a"))
    before = solve_dicts(workloads_of(workload("w1"), workload("w2")), cat)
    after = solve_dicts(workloads_of(workload("w2"), workload("w3")), cat)
    rows = {w.id: w for w in compare_plans(before, after).workloads}
    assert list(rows) == ["w1", "w2", "w3"]
    assert rows["w1"].status_after is None and rows["w1"].cost_after is None and rows["w1"].routing_after == []
    assert rows["w3"].status_before is None and rows["w3"].routing_after == ["a 100%"] and rows["w3"].changed
    assert not rows["w2"].changed


def test_comparison_shows_rerouted_and_largest_changes_first():
    base_plan = solve_dicts(*_many(40, price=1.0))
    new_plan = solve_dicts(*_many(40, price=2.0, rerouted=3))
    c = compare_plans(base_plan, new_plan)
    shown = c.notable(10)
    assert len(shown) == 10 and [w.id for w in shown] == sorted((w.id for w in shown), key=lambda i: int(i[1:]))
    assert {"w0", "w1", "w2"} <= {w.id for w in shown if w.changed}  # the rerouted ones are all there
    rest = [w for w in c.workloads if w not in shown and not w.changed]
    smallest_shown = min(abs(w.cost_after - w.cost_before) for w in shown if not w.changed)
    assert all(abs(w.cost_after - w.cost_before) <= smallest_shown for w in rest)
    assert c.notable(100) == c.workloads


def _many(n: int, price: float, rerouted: int = 0):
    """n workloads of growing size on a cheap option; the first `rerouted` lose it to a floor."""
    cat = catalog_of(
        offering("cheap", vendor="a", price_in=price, price_out=price, tps=100, capability=70),
        offering("good", vendor="b", price_in=5, price_out=5, tps=100, capability=90),
    )
    wls = [workload(f"w{i}", tasks=1000.0 * (i + 1), capability={"min": 80 if i < rerouted else 60}) for i in range(n)]
    return workloads_of(*wls), cat


def test_compare_cli(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert runner.invoke(app, ["solve", str(SUPPORT), "--out", str(a)]).exit_code == 0
    assert (
        runner.invoke(
            app, ["whatif", str(SUPPORT), str(ROOT / "scenarios" / "fast-tier-half-price.yaml"), "--out", str(b)]
        ).exit_code
        == 0
    )
    result = runner.invoke(
        app,
        [
            "compare",
            str(a / "support.plan.json"),
            str(b / "support.fast-tier-half-price.plan.json"),
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "support.plan.json -> support.fast-tier-half-price.plan.json" in result.stdout
    assert "kimi-fast: price_output 8 -> 4" in result.stdout
    assert (tmp_path / "support.compare.html").exists()
    data = json.loads(
        runner.invoke(
            app,
            [
                "compare",
                str(a / "support.plan.json"),
                str(b / "support.fast-tier-half-price.plan.json"),
                "--out",
                str(tmp_path),
                "--format",
                "json",
            ],
        ).stdout
    )
    assert data["total_after"] < data["total_before"]
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    bad = runner.invoke(app, ["compare", str(broken), str(a / "support.plan.json")])
    assert bad.exit_code == 2 and "not valid JSON" in bad.stderr
