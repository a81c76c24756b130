"""What-if scenarios, --set, vendor outages, frontiers and plan comparison."""

import json

import pytest
import yaml
from typer.testing import CliRunner

from conftest import ROOT, catalog_of, make_inputs, offering, solve_dicts, workload, workloads_of
from planner.cli import app
from planner.errors import InputError
from planner.schema import Scenario
from planner.whatif import apply_scenario, compare_plans, scenario_from_sets

runner = CliRunner()
SUPPORT = ROOT / "workloads" / "support.yaml"


def base_inputs():
    cat = catalog_of(offering("a-fast", vendor="a", price_in=4, price_out=4, tps=1000) | {"tier": "fast"},
                     offering("a-std", vendor="a", price_in=2, price_out=2, tps=50),
                     offering("b-cheap", vendor="b", price_in=1, price_out=1, tps=50, capability=60))
    ws = workloads_of(workload("chat", latency={"budget_s": 30}, capability={"min": 70}),
                      workload("agent", turns=5, latency={"threshold": "attentive"}))
    return make_inputs(ws, cat)


def scenario(**data):
    return Scenario.model_validate({"name": "s", **data})


def test_set_scale_and_shift_by_glob():
    sc = scenario(catalog=[{"match": {"id": "a-*"}, "set": {"price.output": "*0.5", "speed.output_tps": 900,
                                                             "price.input": "+1"}}])
    new = apply_scenario(base_inputs(), sc, "s.yaml")
    by = {o.id: o for o in new.catalog.offerings}
    assert by["a-fast"].price.output == 2.0 and by["a-std"].price.output == 1.0
    assert by["a-fast"].price.input == 5.0 and by["a-std"].speed.output_tps == 900
    assert by["b-cheap"].price.output == 1.0


def test_match_on_tier_vendor_and_several_fields():
    sc = scenario(catalog=[{"match": {"vendor": "a", "tier": "fast"}, "set": {"price.input": 0.5}}])
    by = {o.id: o for o in apply_scenario(base_inputs(), sc, "s.yaml").catalog.offerings}
    assert by["a-fast"].price.input == 0.5 and by["a-std"].price.input == 2.0


def test_remove_add_workloads_and_policy():
    sc = scenario(catalog=[{"remove": {"vendor": "b"}},
                           {"add": [offering("new", vendor="c", price_in=0.1, price_out=0.1, tps=2000)]}],
                  workloads=[{"match": {"id": "chat"}, "set": {"tasks": "*1.5", "latency.budget_s": 5}}],
                  policy={"set": {"budget": 40000, "vendor_share.a": 0.5}})
    new = apply_scenario(base_inputs(), sc, "s.yaml")
    assert [o.id for o in new.catalog.offerings] == ["a-fast", "a-std", "new"]
    chat = new.workloads.workloads[0]
    assert chat.tasks == 1500 and chat.latency.budget_s == 5 and chat.latency.threshold is None
    agent = new.workloads.workloads[1]
    assert agent.latency.threshold == "attentive"
    assert new.workloads.policy.budget == 40000 and new.workloads.policy.vendor_share == {"a": 0.5}


def test_setting_a_threshold_clears_the_budget():
    sc = scenario(workloads=[{"match": {"id": "chat"}, "set": {"latency.threshold": "immediate"}}])
    chat = apply_scenario(base_inputs(), sc, "s.yaml").workloads.workloads[0]
    assert chat.latency.threshold == "immediate" and chat.latency.budget_s is None


def test_lifting_capacity_with_null():
    inputs = base_inputs()
    data = inputs.catalog.model_dump(mode="json")
    data["offerings"][0]["capacity"] = {"tokens_per_minute": 1000}
    inputs = make_inputs(inputs.workloads.model_dump(mode="json"), data)
    sc = scenario(catalog=[{"match": {"tier": "fast"}, "set": {"capacity.tokens_per_minute": None}}])
    assert apply_scenario(inputs, sc, "s.yaml").catalog.offerings[0].capacity.tokens_per_minute is None


@pytest.mark.parametrize("data, where, words", [
    ({"catalog": [{"match": {"id": "zzz*"}, "set": {"price.input": 1}}]}, "catalog[0].match", "matches no offering"),
    ({"catalog": [{"match": {"id": "a-*"}, "set": {"price.inptu": 1}}]}, "catalog[0].set.price.inptu",
     "no field 'inptu' in Price"),
    ({"catalog": [{"match": {"id": "a-*"}, "set": {"prices.input": 1}}]}, "catalog[0].set.prices.input",
     "no field 'prices'"),
    ({"catalog": [{"remove": {"host": "nobody"}}]}, "catalog[0].remove", "matches no offering"),
    ({"workloads": [{"match": {"id": "nope"}, "set": {"tasks": 1}}]}, "workloads[0].match", "matches no workload"),
    ({"catalog": [{"match": {"id": "a-*"}, "set": {"price.cached_input": "*2"}}]}, "catalog[0].set.price.cached_input",
     "not set"),
    ({"catalog": [{"match": {"id": "a-*"}, "set": {"price.input": -3}}]}, "offerings[0].price.input",
     "greater than or equal to 0"),
    ({"policy": {"set": {"budgett": 5}}}, "policy.set.budgett", "no field 'budgett' in Policy"),
])
def test_scenario_errors_name_the_path(data, where, words):
    with pytest.raises(InputError) as err:
        apply_scenario(base_inputs(), scenario(**data), "s.yaml")
    line = str(err.value)
    assert line.startswith("s.yaml") and where in line and words in line, line


def test_set_expressions():
    sc = scenario_from_sets(["offerings[a-*].price.output=*0.8", "workloads[chat].tasks=2000", "policy.budget=100"])
    new = apply_scenario(base_inputs(), sc, "--set")
    assert new.catalog.offerings[0].price.output == pytest.approx(3.2)
    assert new.workloads.workloads[0].tasks == 2000 and new.workloads.policy.budget == 100
    with pytest.raises(InputError):
        scenario_from_sets(["price=3"])


def test_compare_plans_reports_cost_routing_and_prices():
    inputs = base_inputs()
    from planner.solve import solve_inputs

    before = solve_inputs(inputs)
    sc = scenario(catalog=[{"match": {"id": "a-fast"}, "set": {"price.input": "*0.25", "price.output": "*0.25"}}])
    after = solve_inputs(apply_scenario(inputs, sc, "s.yaml"), scenario="s")
    cmp = compare_plans(before, after)
    assert cmp.total_after < cmp.total_before
    chat = next(w for w in cmp.workloads if w.id == "chat")
    assert chat.changed and chat.routing_before == ["a-std 100%"] and chat.routing_after == ["a-fast 100%"]
    assert {(c.id, c.field) for c in cmp.offering_changes} == {("a-fast", "price_input"), ("a-fast", "price_output")}
    assert type(cmp).model_validate_json(cmp.model_dump_json()) == cmp  # its rows are built as trusted records
    import pickle

    back = pickle.loads(pickle.dumps(cmp))  # rows built as trusted records pickle as validated ones do
    assert back == cmp and back.model_dump_json() == cmp.model_dump_json()
    from planner.whatif import packed, routings, unchanged_rows, unpacked

    unchanged = unchanged_rows(before, routings(before))
    assert unpacked(*pickle.loads(pickle.dumps(packed(cmp, unchanged))), unchanged) == cmp  # as a batch worker sends it


def test_whatif_cli_writes_one_plan_per_scenario_and_a_report(tmp_path):
    result = runner.invoke(app, ["whatif", str(SUPPORT), str(ROOT / "scenarios" / "fast-tier-half-price.yaml"),
                                 "--set", "workloads[live-chat].tasks=*2", "--without-vendor", "cerebras",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["support.fast-tier-half-price.plan.json", "support.set.plan.json",
                     "support.whatif.html", "support.without-cerebras.plan.json"]
    plan = json.loads((tmp_path / "support.without-cerebras.plan.json").read_text())
    assert plan["inputs"]["scenario"] == "without-cerebras"
    assert all(a["vendor"] != "cerebras" for w in plan["workloads"] for a in w["allocations"])
    cheaper = json.loads((tmp_path / "support.fast-tier-half-price.plan.json").read_text())
    base = json.loads(runner.invoke(app, ["solve", str(SUPPORT), "--out", str(tmp_path / "b"), "--format", "json"]).stdout)
    assert cheaper["total_cost"] < base["total_cost"]
    html = (tmp_path / "support.whatif.html").read_text()
    assert "without-cerebras" in html and "<script" not in html


def _without_seconds(text: str) -> str:
    plan = json.loads(text)
    plan["solver"]["seconds"] = 0
    return json.dumps(plan)


def test_whatif_batch_is_the_same_on_one_or_two_workers(tmp_path):
    """Scenarios solved in forked workers give the files one worker gives (solver.seconds aside)."""
    shipped = sorted(str(p) for p in (ROOT / "scenarios").glob("*.yaml"))
    for jobs in ("1", "2"):
        result = runner.invoke(app, ["whatif", str(SUPPORT), *shipped, "--jobs", jobs, "--out", str(tmp_path / jobs)])
        assert result.exit_code == 0, result.output
    one, two = sorted((tmp_path / "1").iterdir()), sorted((tmp_path / "2").iterdir())
    assert [p.name for p in one] == [p.name for p in two] and len(one) == len(shipped) + 1
    for a, b in zip(one, two):
        if a.suffix == ".json":
            assert _without_seconds(a.read_text()) == _without_seconds(b.read_text()), a.name
        else:
            assert a.read_text() == b.read_text(), a.name


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_whatif_run_that_fails_midway_leaves_no_file_behind(tmp_path, monkeypatch, jobs):
    """Workers leave each scenario's plan in a hidden file beside its path, renamed into place only
    when the whole run has succeeded: a scenario failing after others finished leaves nothing, not
    even the output folder the run made."""
    import planner.batch as batch

    real = batch.compare_plans

    def fails_on_the_third(old, new, *args):
        if new.inputs.scenario == "gpu-vendor-raises-prices":
            raise RuntimeError("boom")
        return real(old, new, *args)

    monkeypatch.setattr(batch, "compare_plans", fails_on_the_third)  # forked workers inherit the patch
    shipped = sorted(str(p) for p in (ROOT / "scenarios").glob("*.yaml"))
    out = tmp_path / "made" / "by-the-run"
    result = runner.invoke(app, ["whatif", str(SUPPORT), *shipped, "--jobs", jobs, "--out", str(out)])
    assert result.exit_code == 1, result.output  # an internal error, reported as such
    assert not out.exists()
    existing = tmp_path / "existing"
    existing.mkdir()
    result = runner.invoke(app, ["whatif", str(SUPPORT), *shipped, "--jobs", jobs, "--out", str(existing)])
    assert result.exit_code != 0 and list(existing.iterdir()) == []


def test_whatif_plans_leave_out_review_figures_unless_full(tmp_path):
    sc = str(ROOT / "scenarios" / "fast-tier-half-price.yaml")
    lean = runner.invoke(app, ["whatif", str(SUPPORT), sc, "--out", str(tmp_path / "lean")])
    full = runner.invoke(app, ["whatif", str(SUPPORT), sc, "--full", "--out", str(tmp_path / "full")])
    assert lean.exit_code == 0 and full.exit_code == 0
    name = "support.fast-tier-half-price.plan.json"
    a, b = (json.loads((tmp_path / d / name).read_text()) for d in ("lean", "full"))
    assert a["baselines"] == [] and all(w["break_even"] == [] for w in a["workloads"])
    assert b["baselines"] and any(w["break_even"] for w in b["workloads"])
    a["solver"]["seconds"] = b["solver"]["seconds"] = 0
    assert a["offering_info"].items() <= b["offering_info"].items()  # b also names break-even options
    for plan in (a, b):  # the plan itself is the same
        plan.pop("offering_info")
        plan.pop("baselines")
        for w in plan["workloads"]:
            w.pop("break_even")
    assert a == b


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
    cat = catalog_of(offering("cheap", vendor="a", price_in=price, price_out=price, tps=100, capability=70),
                     offering("good", vendor="b", price_in=5, price_out=5, tps=100, capability=90))
    wls = [workload(f"w{i}", tasks=1000.0 * (i + 1), capability={"min": 80 if i < rerouted else 60})
           for i in range(n)]
    return workloads_of(*wls), cat


def test_whatif_errors(tmp_path):
    assert runner.invoke(app, ["whatif", str(SUPPORT), "--out", str(tmp_path)]).exit_code == 2
    bad = runner.invoke(app, ["whatif", str(SUPPORT), "--without-vendor", "nobody", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "no vendor 'nobody'" in bad.stderr
    sc = tmp_path / "bad.yaml"
    sc.write_text(yaml.safe_dump({"name": "bad", "catalog": [{"match": {"id": "nothing*"}, "set": {"price.input": 1}}]}))
    res = runner.invoke(app, ["whatif", str(SUPPORT), str(sc), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "catalog[0].match: matches no offering" in res.stderr
    assert not (tmp_path / "o").exists()


def test_shipped_scenarios_apply():
    from planner.load import load_inputs, load_scenario

    inputs = load_inputs(SUPPORT)
    for path in sorted((ROOT / "scenarios").glob("*.yaml")):
        apply_scenario(inputs, load_scenario(path), str(path))


def test_vendor_outage_table_in_the_plan():
    plan = solve_dicts(workloads_of(workload("w1"), workload("w2", capability={"min": 90})),
                       catalog_of(offering("a1", vendor="a"), offering("b1", vendor="b", price_in=3, price_out=3,
                                                                           capability=95)))
    out = {r.vendor: r for r in plan.resilience}
    assert out["a"].cost_without == pytest.approx(2 * 1000 * 6000 / 1e6)  # both on b at $0.006/task
    assert out["a"].lost_workloads == []
    assert out["b"].lost_workloads == ["w2"]
    assert out["b"].cost_without == pytest.approx(1000 * 2000 / 1e6)


def test_frontier_single_workload_breakpoints(tmp_path):
    from planner.frontier import frontier

    inputs = base_inputs()
    f = frontier(inputs, "agent", points=12)
    costs = [p.cost for p in f.latency if p.feasible]
    assert costs == sorted(costs, reverse=True)  # looser budgets never cost more
    assert f.latency[-1].label == "no budget" and f.latency[-1].chosen == "b-cheap"
    assert f.latency[0].chosen == "a-fast"
    assert any(p.breakpoint for p in f.latency)
    caps = [p.cost for p in f.capability if p.feasible]
    assert caps == sorted(caps)  # higher floors never cost less


def test_frontier_cli_writes_html_and_csv(tmp_path):
    result = runner.invoke(app, ["frontier", str(SUPPORT), "--workload", "ticket-triage", "--points", "8",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = (tmp_path / "support.ticket-triage.frontier.csv").read_text().splitlines()
    assert rows[0].startswith("sweep,workload,value") and len(rows) == 1 + 8 + 8
    portfolio = runner.invoke(app, ["frontier", str(SUPPORT), "--points", "6", "--out", str(tmp_path)])
    assert portfolio.exit_code == 0, portfolio.output
    assert (tmp_path / "support.frontier.html").exists()
    assert runner.invoke(app, ["frontier", str(SUPPORT), "--workload", "nope"]).exit_code == 2


def test_compare_cli(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert runner.invoke(app, ["solve", str(SUPPORT), "--out", str(a)]).exit_code == 0
    assert runner.invoke(app, ["whatif", str(SUPPORT), str(ROOT / "scenarios" / "fast-tier-half-price.yaml"),
                               "--out", str(b)]).exit_code == 0
    result = runner.invoke(app, ["compare", str(a / "support.plan.json"),
                                 str(b / "support.fast-tier-half-price.plan.json"), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "support.plan.json -> support.fast-tier-half-price.plan.json" in result.stdout
    assert "price_input 8 -> 4" in result.stdout
    assert (tmp_path / "support.compare.html").exists()
    data = json.loads(runner.invoke(app, ["compare", str(a / "support.plan.json"),
                                          str(b / "support.fast-tier-half-price.plan.json"), "--out", str(tmp_path),
                                          "--format", "json"]).stdout)
    assert data["total_after"] < data["total_before"]
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    bad = runner.invoke(app, ["compare", str(broken), str(a / "support.plan.json")])
    assert bad.exit_code == 2 and "not valid JSON" in bad.stderr


def test_scenarios_whose_plan_files_would_share_a_name_are_an_input_error(tmp_path):
    """'/' and ':' become '_' in file names: two scenario names that differ only there would write
    the same plan file, so the run stops before any solve and says which."""
    for name, other in (("cheap/gpu", "cheap_gpu"), ("same", "same")):
        a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
        for path, n in ((a, name), (b, other)):
            path.write_text(f"name: '{n}'\ncatalog:\n  - match: {{vendor: cerebras}}\n    set: {{price.output: '*0.5'}}\n")
        result = runner.invoke(app, ["whatif", str(SUPPORT), str(a), str(b), "--out", str(tmp_path / "o")])
        assert result.exit_code == 2, result.output
        assert f"scenario name '{other}'" in result.output and str(b) in result.output
        assert ("same plan file name" in result.output) == (name != other)
        assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("jobs", [1, 2])
def test_batch_comparisons_are_those_of_the_plans_compared_afresh(jobs):
    """A batch's comparisons share the base's row of every workload a scenario leaves as it is (made
    once, and sent back from a worker as a marker): each comparison equals the one made afresh from
    the scenario's plan file, and the rows of untouched workloads are one object across scenarios."""
    from planner.batch import solve_scenarios
    from planner.plan import Plan
    from planner.solve import solve_basis

    cat = catalog_of(offering("a1", vendor="a", price_in=1, price_out=2, tps=80),
                     offering("b1", vendor="b", price_in=1.5, price_out=2.5, tps=60, capability=90.0),
                     offering("c1", vendor="c", price_in=3, price_out=3, tps=900))
    ws = workloads_of(*[workload(f"chat{i}", tasks=1e4 * (i + 1)) for i in range(4)],
                      *[workload(f"smart{i}", capability={"min": 85}) for i in range(3)],
                      workload("fast", latency={"budget_s": 2.0}))
    inputs = make_inputs(ws, cat)
    basis = solve_basis(inputs, "highs")
    scenarios = [scenario(name=f"b{k}", catalog=[{"match": {"vendor": "b"}, "set": {"price.output": f"*{f}"}}])
                 for k, f in enumerate((0.9, 1.1, 1.2))]
    applied = [(sc, apply_scenario(inputs, sc, "s.yaml")) for sc in scenarios]
    outcomes = solve_scenarios(basis, applied, "highs", jobs=jobs)
    for o in outcomes:
        fresh = compare_plans(basis.plan, Plan.model_validate_json(o.plan_json), "base", o.scenario.name)
        assert o.comparison.model_dump() == fresh.model_dump()
    rows = [o.comparison.workloads for o in outcomes]
    shared = [w.id for k, w in enumerate(rows[0]) if w is rows[1][k] is rows[2][k]]
    assert shared == ["chat0", "chat1", "chat2", "chat3", "fast"]  # vendor b's price moves only the smart ones
