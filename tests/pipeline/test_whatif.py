"""What-if batches (planner.pipeline.whatif and `planner whatif`): every scenario solved from the base's
WarmStart, one or several workers, its plan file the one a cold solve writes, and nothing left
behind by a run that fails."""

import json
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, catalog_of, make_inputs, offering, plan_bytes, workload, workloads_of
from typer.testing import CliRunner

from planner.cli.app import app
from planner.model.scenarios import apply_scenario
from planner.model.schema import Scenario
from planner.pipeline import whatif
from planner.pipeline.solve import solve_base, solve_inputs
from planner.plan.model import Plan
from planner.review.compare import compare_plans

runner = CliRunner()
SUPPORT = ROOT / "workloads" / "support.yaml"


def scenario(**data):
    return Scenario.model_validate({"name": "s", **data})


def three_vendors():
    """Chat workloads on a1, smart ones (a floor only b1 meets) and a fast one on c1."""
    cat = catalog_of(
        offering("a1", vendor="a", price_in=1, price_out=2, tps=80),
        offering("b1", vendor="b", price_in=1.5, price_out=2.5, tps=60, capability=90.0),
        offering("c1", vendor="c", price_in=3, price_out=3, tps=900),
    )
    ws = workloads_of(
        *[workload(f"chat{i}", tasks=1e4 * (i + 1)) for i in range(4)],
        *[workload(f"smart{i}", capability={"min": 85}) for i in range(3)],
        workload("fast", latency={"budget_s": 2.0}),
    )
    return make_inputs(ws, cat)


def b_prices(inputs, factors=(0.9, 1.1, 1.2)):
    """Scenarios moving vendor b's output price, applied to the inputs."""
    scenarios = [
        scenario(name=f"b{k}", catalog=[{"match": {"vendor": "b"}, "set": {"price.output": f"*{f}"}}])
        for k, f in enumerate(factors)
    ]
    return [(sc, apply_scenario(inputs, sc, "s.yaml")) for sc in scenarios]


@pytest.mark.parametrize("jobs", [1, 2])
def test_batch_comparisons_are_those_of_the_plans_compared_afresh(jobs):
    """Each scenario's comparison equals the one made afresh from its plan file; the workloads vendor
    b's price leaves alone (chat on a1, fast on c1) keep their routing and cost in every scenario."""
    inputs = three_vendors()
    base, start = solve_base(inputs, "highs")
    applied = b_prices(inputs)
    outcomes = whatif.solve_scenarios(base, start, applied, "highs", jobs=jobs)
    assert [o.scenario.name for o in outcomes] == ["b0", "b1", "b2"]
    for o in outcomes:
        fresh = compare_plans(base, Plan.model_validate_json(o.plan_json), "base", o.scenario.name)
        assert o.comparison.model_dump() == fresh.model_dump()
        assert o.staged is None and o.status == "optimal" and o.total_cost == fresh.total_after
    rows = [{r.id: r for r in o.comparison.workloads} for o in outcomes]
    untouched = [
        wid for wid in rows[0] if all(not r[wid].changed and r[wid].cost_before == r[wid].cost_after for r in rows)
    ]
    assert untouched == ["chat0", "chat1", "chat2", "chat3", "fast"]  # vendor b's price moves only the smart ones


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_batch_plan_is_the_plan_a_cold_solve_gives(jobs):
    """A scenario solved in a batch (from the base's WarmStart, no review figures unless asked) has the
    plan file a solve of the scenario's inputs from scratch writes, byte for byte."""
    inputs = three_vendors()
    base, start = solve_base(inputs, "highs")
    applied = b_prices(inputs, (0.5, 0.9, 2.0))
    for review in (False, True):
        outcomes = whatif.solve_scenarios(base, start, applied, "highs", review=review, jobs=jobs)
        for o, (sc, scenario_inputs) in zip(outcomes, applied):
            cold = solve_inputs(scenario_inputs, "highs", scenario=sc.name, review=review, resilience=False)
            assert plan_bytes(Plan.model_validate_json(o.plan_json)) == plan_bytes(cold), (sc.name, review)
            assert o.total_cost == cold.total_cost and o.diagnosis == cold.diagnosis


def test_a_batch_with_paths_leaves_each_plan_in_a_hidden_file_beside_its_path(tmp_path):
    inputs = three_vendors()
    base, start = solve_base(inputs, "highs")
    applied = b_prices(inputs)
    paths = [tmp_path / f"{sc.name}.plan.json" for sc, _ in applied]
    ticks = []
    outcomes = whatif.solve_scenarios(
        base, start, applied, "highs", jobs=1, paths=paths, progress=lambda: ticks.append(1)
    )
    assert len(ticks) == 3
    for o, path in zip(outcomes, paths):
        assert o.plan_json == "" and o.staged is not None
        staged = Path(o.staged)
        assert staged.parent == tmp_path and staged.name.startswith(f".{path.name}.")
        assert not path.exists()  # the caller renames each into place
        plan = Plan.model_validate_json(staged.read_text())
        assert plan.inputs.scenario == o.scenario.name and plan.total_cost == o.total_cost
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(Path(o.staged).name for o in outcomes)


def test_whatif_cli_writes_one_plan_per_scenario_and_a_report(tmp_path):
    result = runner.invoke(
        app,
        [
            "whatif",
            str(SUPPORT),
            str(ROOT / "scenarios" / "fast-tier-half-price.yaml"),
            "--set",
            "workloads[live-chat].tasks=*2",
            "--without-vendor",
            "cerebras",
            "--out",
            str(tmp_path),
        ],
    )
    # without Cerebras's hardware no option starts speaking within voice-agent's 2 s: exit 3
    assert result.exit_code == 3, result.output
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "support.fast-tier-half-price.plan.json",
        "support.set.plan.json",
        "support.whatif.html",
        "support.without-cerebras.plan.json",
    ]
    plan = json.loads((tmp_path / "support.without-cerebras.plan.json").read_text())
    assert plan["inputs"]["scenario"] == "without-cerebras"
    used = [a for w in plan["workloads"] for a in w["allocations"]]
    assert used and all("cerebras" not in (a["vendor"], a["host"]) for a in used)
    assert {w["id"] for w in plan["workloads"] if w["status"] == "infeasible"} == {"voice-agent"}
    cheaper = json.loads((tmp_path / "support.fast-tier-half-price.plan.json").read_text())
    solved = runner.invoke(app, ["solve", str(SUPPORT), "--out", str(tmp_path / "b"), "--format", "json"])
    base = json.loads(solved.stdout)
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
    real = whatif.compare_plans

    def fails_on_the_third(old, new, *args):
        if new.inputs.scenario == "gpu-vendor-raises-prices":
            raise RuntimeError("boom")
        return real(old, new, *args)

    monkeypatch.setattr(whatif, "compare_plans", fails_on_the_third)  # forked workers inherit the patch
    shipped = sorted(str(p) for p in (ROOT / "scenarios").glob("*.yaml"))
    out = tmp_path / "made" / "by-the-run"
    result = runner.invoke(app, ["whatif", str(SUPPORT), *shipped, "--jobs", jobs, "--out", str(out)])
    assert result.exit_code == 1 and "RuntimeError: boom" in result.stderr, result.output  # an internal error
    assert not out.exists()
    existing = tmp_path / "existing"
    existing.mkdir()
    result = runner.invoke(app, ["whatif", str(SUPPORT), *shipped, "--jobs", jobs, "--out", str(existing)])
    assert result.exit_code != 0 and list(existing.iterdir()) == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_scenario_whose_plan_file_cannot_be_written_stops_the_run_and_leaves_no_file(tmp_path, jobs):
    """A portfolio and a last scenario whose names together are too long for a file name: that plan
    cannot be staged once the scenarios before it are solved and staged; the run stops with an input
    error and leaves nothing behind."""
    ws = yaml.safe_load(SUPPORT.read_text())
    ws["name"], ws["catalog"] = "p" * 100, str((SUPPORT.parent / ws["catalog"]).resolve())
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(ws, sort_keys=False))
    shipped = sorted(str(p) for p in (ROOT / "scenarios").glob("*.yaml"))
    long = tmp_path / "long.yaml"
    long.write_text(
        yaml.safe_dump(
            {"name": "x" * 150, "catalog": [{"match": {"vendor": "cerebras"}, "set": {"price.output": "*0.5"}}]}
        )
    )
    out = tmp_path / "o"
    result = runner.invoke(
        app, ["whatif", str(tmp_path / "w.yaml"), *shipped, str(long), "--jobs", jobs, "--out", str(out)]
    )
    assert result.exit_code == 2 and ": --out: cannot be written" in result.stderr, result.output
    assert not out.exists()


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
    assert a["company_break_even"] == [] and b["company_break_even"]
    # the lean file is trimmed (SPEC "Plan size"): its rejections are the first of the full file's
    for wa, wb in zip(a["workloads"], b["workloads"]):
        assert wb["rejected"][: len(wa["rejected"])] == wa["rejected"]
        assert len(wa["rejected"]) + wa.get("rejected_omitted", 0) == len(wb["rejected"])
    assert [x for x in a["assumptions"] if not x.startswith("plan file trimmed")] == b["assumptions"]
    assert a["assumptions"][-1].endswith("; planner whatif --full writes them all")  # (a scenario's plan)
    for wa, wb in zip(a["workloads"], b["workloads"]):  # curves kept, or left out and counted
        assert wa["compounding"] in (None, wb["compounding"])
    assert sum(wa["compounding"] != wb["compounding"] for wa, wb in zip(a["workloads"], b["workloads"])) == a.get(
        "compounding_omitted", 0
    )
    for plan in (a, b):  # the plan itself is the same
        for key in ("offering_info", "baselines", "company_break_even", "assumptions", "compounding_omitted"):
            plan.pop(key, None)
        for w in plan["workloads"]:
            for key in ("break_even", "rejected", "rejected_omitted", "compounding"):
                w.pop(key, None)
    assert a == b


def test_whatif_errors(tmp_path):
    assert runner.invoke(app, ["whatif", str(SUPPORT), "--out", str(tmp_path)]).exit_code == 2
    bad = runner.invoke(app, ["whatif", str(SUPPORT), "--without-vendor", "nobody", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "no vendor or host 'nobody'" in bad.stderr
    sc = tmp_path / "bad.yaml"
    edit = {"match": {"id": "nothing*"}, "set": {"price.input": 1}}
    sc.write_text(yaml.safe_dump({"name": "bad", "catalog": [edit]}))
    res = runner.invoke(app, ["whatif", str(SUPPORT), str(sc), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "catalog[0].match: matches no offering" in res.stderr
    assert not (tmp_path / "o").exists()


def test_scenarios_whose_plan_files_would_share_a_name_are_an_input_error(tmp_path):
    """'/' and ':' become '_' in file names: two scenario names that differ only there would write
    the same plan file, so the run stops before any solve and says which."""
    for name, other in (("cheap/gpu", "cheap_gpu"), ("same", "same")):
        a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
        for path, n in ((a, name), (b, other)):
            path.write_text(
                f"name: '{n}'\ncatalog:\n  - match: {{vendor: cerebras}}\n    set: {{price.output: '*0.5'}}\n"
            )
        result = runner.invoke(app, ["whatif", str(SUPPORT), str(a), str(b), "--out", str(tmp_path / "o")])
        assert result.exit_code == 2, result.output
        assert f"scenario name '{other}'" in result.output and str(b) in result.output
        assert ("same plan file name" in result.output) == (name != other)
        assert not (tmp_path / "o").exists()


def test_an_outage_of_the_company_behind_an_aggregator_moves_its_routes(tmp_path):
    """real-support routes 30% of live-chat to GPT-5.4 nano through OpenRouter, which only OpenAI serves at
    that price: without OpenAI that route goes too, and the plan costs more (it read $0 when the route
    counted for OpenRouter alone)."""
    real = ROOT / "workloads" / "real-support.yaml"
    base = json.loads(runner.invoke(app, ["solve", str(real), "--out", str(tmp_path / "a"), "--format", "json"]).stdout)
    nano = [a for w in base["workloads"] for a in w["allocations"] if a["offering"] == "openai/gpt-5.4-nano@openrouter"]
    assert nano and nano[0]["served_by"] == ["openai"]
    assert "openai" in {v["vendor"] for v in base["vendors"]}
    result = runner.invoke(app, ["whatif", str(real), "--without-vendor", "openai", "--out", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    plan = json.loads((tmp_path / "b" / "real-support.without-openai.plan.json").read_text())
    used = {a["offering"] for w in plan["workloads"] for a in w["allocations"]}
    assert "openai/gpt-5.4-nano@openrouter" not in used and plan["total_cost"] > base["total_cost"] + 1
