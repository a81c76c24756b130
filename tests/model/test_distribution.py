"""Traffic as a distribution (planner.model.distribution, SPEC "Traffic as a distribution"): a workload's
budget judged on a weighted sample of its tasks, read from a CSV file beside the workloads file.

The hand-computed case: three offerings at 100, 250 and 1,000 tokens/s, no first-token time, and four
sample tasks of weights 3, 1, 2, 2 (8 in all) against a 10 s budget:

    task  weight  calls  output/call   at 100 tok/s   at 250     at 1000
    s1      3       1        500          5 s  in      2 s in     0.5 s in
    s2      1       2        250          5 s  in      2 s in     0.5 s in
    s3      2       4        500         20 s  out     8 s in     2 s in
    s4      2       1       3000         30 s  out    12 s out    3 s in

so `slow` serves 4/8 = 50% of the tasks within budget, `mid` 6/8 = 75% and `fast` all of them, though
the stated mean task (one call of 1,000 output tokens) takes 10, 4 and 1 s: within budget on all three.
Cost per task, from the stated tokens: 1,000 output tokens at $1, $2 and $10 per million.

With 90% of the tasks within budget, the LP mixes two options whose shares within budget reach 0.9:
slow + fast at 20/80 costs 0.2 x $0.001 + 0.8 x $0.010 = $0.0082 a task, mid + fast at 40/60 costs
0.4 x $0.002 + 0.6 x $0.010 = $0.0068 (slow + mid reach 75% at most), so 40% mid and 60% fast:
$6,800 a month for a million tasks. With every task within budget only `fast` is eligible: $10,000.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest
import yaml
from conftest import ROOT, plan_bytes, planner_log

from planner.model.distribution import MAX_ROWS, Distribution, read_distribution
from planner.model.load import load_inputs
from planner.model.scenarios import apply_scenario, scenario_from_sets
from planner.outputs.tables import explain_rows
from planner.pipeline.frontier import frontier
from planner.pipeline.solve import solve_base, solve_inputs

HEADER = "weight,calls,input,output,reasoning,cached_input"
TASKS = f"""# four sample tasks, written by hand for a test
# provenance comments come first
{HEADER}
3,1,1000,500,0,0
1,2,1000,250,0,500
2,4,1000,500,0,0
2,1,1000,3000,0,0
"""
CATALOG = {
    "catalog": "hand",
    "offerings": [
        {
            "id": oid,
            "model": oid,
            "vendor": vendor,
            "capability": 80,
            "price": {"input": 0, "output": price},
            "speed": {"output_tps": tps, "ttft_s": 0},
        }
        for oid, vendor, price, tps in (("slow", "a", 1, 100), ("mid", "b", 2, 250), ("fast", "c", 10, 1000))
    ],
}


def hand(tmp_path, share: float = 0.9, tasks: str = TASKS, **latency) -> tuple:
    """The hand-computed case's files in tmp_path: the workloads file's path and its text."""
    (tmp_path / "catalog.yaml").write_text(yaml.safe_dump(CATALOG))
    (tmp_path / "tasks.csv").write_text(tasks)
    ws = {
        "name": "hand",
        "catalog": "catalog.yaml",
        "workloads": [
            {
                "id": "chat",
                "tasks": 1e6,
                "tokens": {"input": 1000, "output": 1000},
                "latency": {"budget_s": 10, "within_budget_share": share, **latency},
                "distribution": "tasks.csv",
            }
        ],
    }
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(ws, sort_keys=False))
    return path


def run(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "planner", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_the_file_is_read_with_its_comments_and_rows(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(TASKS)
    d = read_distribution(path, "t.csv")
    assert len(d) == 4 and d.file == "t.csv"
    assert d.weight.tolist() == [3, 1, 2, 2] and d.calls.tolist() == [1, 2, 4, 1]
    assert d.output.tolist() == [500, 250, 500, 3000] and d.cached_input.tolist() == [0, 500, 0, 0]


def test_the_hand_computed_shares_within_budget_and_the_mix_that_meets_ninety_percent(tmp_path):
    inputs = load_inputs(hand(tmp_path))
    rows = {r["option"]: r for r in explain_rows(inputs, 0)}
    assert {o: r["within_budget_share"] for o, r in rows.items()} == {"slow": 0.5, "mid": 0.75, "fast": 1.0}
    assert {o: r["slowest_s"] for o, r in rows.items()} == {"slow": 30.0, "mid": 12.0, "fast": 3.0}
    assert {o: r["latency_s"] for o, r in rows.items()} == {"slow": 10.0, "mid": 4.0, "fast": 1.0}  # mean task
    plan = solve_inputs(inputs, "highs")
    w = plan.workloads[0]
    shares = {a.offering: a.share for a in w.allocations}
    assert shares == pytest.approx({"mid": 0.4, "fast": 0.6}, abs=1e-6)
    assert plan.total_cost == pytest.approx(6800.0, rel=1e-6)
    assert w.within_budget_share == pytest.approx(0.9, abs=1e-6)
    assert {a.offering: a.within_budget_share for a in w.allocations} == {"mid": 0.75, "fast": 1.0}
    assert {a.offering: a.within_budget for a in w.allocations} == {"mid": False, "fast": True}
    assert w.distribution.file == "tasks.csv" and w.distribution.samples == 4
    assert [b.constraint for b in plan.binding] == ["latency_share:chat"]
    # each point of the share costs the move from mid to fast: 1/0.25 of the share at $8,000 a point of it
    assert plan.binding[0].worth == pytest.approx(0.01 / 0.25 * 1e6 * (0.010 - 0.002), rel=1e-6)
    # the same with CBC
    assert solve_inputs(inputs, "cbc").total_cost == pytest.approx(6800.0, rel=1e-6)


def test_every_task_within_budget_needs_an_option_that_serves_every_sample_task(tmp_path):
    """With within_budget_share 1 an option must serve every sample task within budget (a share of 1):
    any mix then has every task within it, and no mix without such an option has."""
    inputs = load_inputs(hand(tmp_path, share=1.0))
    plan = solve_inputs(inputs, "highs")
    w = plan.workloads[0]
    assert [(a.offering, a.share) for a in w.allocations] == [("fast", 1.0)]
    assert plan.total_cost == pytest.approx(10_000.0) and w.within_budget_share == 1.0
    assert {r.offering: r.reasons for r in w.rejected} == {
        "slow": ["latency: 50% of sample tasks over budget 10 s (slowest 30 s)"],
        "mid": ["latency: 25% of sample tasks over budget 10 s (slowest 12 s)"],
    }


def test_with_no_option_serving_every_task_the_diagnosis_names_the_budget_the_slowest_task_needs(tmp_path):
    cat = dict(CATALOG, offerings=CATALOG["offerings"][:2])
    path = hand(tmp_path, share=1.0)
    (tmp_path / "catalog.yaml").write_text(yaml.safe_dump(cat))
    plan = solve_inputs(load_inputs(path), "highs")
    d = plan.workloads[0].diagnosis
    assert plan.status == "infeasible"
    assert d.fastest_meeting_floor.offering == "mid" and d.fastest_meeting_floor.latency_s == 12.0
    assert "with its slowest sample task at 12 s; it would need a budget of 12 s (budget 10 s)" in d.summary


def test_without_a_distribution_the_mean_task_decides(tmp_path):
    """The same workload without its file: the stated mean task is within 10 s on all three, so the
    cheapest carries it all (what the distribution shows to be wrong for half the tasks)."""
    path = hand(tmp_path, share=1.0)
    data = yaml.safe_load(path.read_text())
    del data["workloads"][0]["distribution"]
    path.write_text(yaml.safe_dump(data))
    plan = solve_inputs(load_inputs(path), "highs")
    assert [a.offering for a in plan.workloads[0].allocations] == ["slow"]
    assert plan.workloads[0].distribution is None
    data = json.loads(plan.to_json())
    assert "distribution" not in data["workloads"][0]
    assert "within_budget_share" not in data["workloads"][0]["allocations"][0]


def test_the_plan_file_report_and_explain_say_so(tmp_path):
    path = hand(tmp_path)
    out = tmp_path / "out"
    done = run("solve", str(path), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "(75% in)" in done.stdout  # mid serves 75% of the sample tasks within budget
    data = json.loads((out / "hand.plan.json").read_text())
    assert data["workloads"][0]["distribution"] == {"file": "tasks.csv", "samples": 4}
    html = (out / "hand.html").read_text()
    assert "4 sample tasks from tasks.csv" in html
    assert "mid serves 75% of them within 10 s" in html
    assert "90% of sample tasks within budget" in html
    shown = run("explain", str(path), "--workload", "chat")
    assert "4 sample tasks from tasks.csv" in shown.stdout and "within" in shown.stdout
    rows = json.loads(run("explain", str(path), "--workload", "chat", "--format", "json").stdout)
    assert {r["option"]: r["within_budget_share"] for r in rows} == {"slow": 0.5, "mid": 0.75, "fast": 1.0}


BAD = {
    "missing file": (None, "distribution file not found"),
    "bad header": ("weight,calls,input,output,reasoning\n1,1,1,1,0\n", "expected the header " + HEADER),
    "negative weight": (
        f"{HEADER}\n1,1,10,10,0,0\n-1,1,10,10,0,0\n",
        "tasks.csv:3:1: weight: should be greater than 0",
    ),
    "non-integer calls": (f"{HEADER}\n1,2.5,10,10,0,0\n", "tasks.csv:2:3: calls: should be a whole number"),
    "cached over input": (f"{HEADER}\n1,1,10,10,0,20\n", "tasks.csv:2: cached_input: is more than input"),
    "not a number": (f"{HEADER}\n1,1,ten,10,0,0\n", "tasks.csv:2:5: input: should be a number, found 'ten'"),
    "no rows": (f"# nothing yet\n{HEADER}\n", "no sample tasks"),
    "too many rows": (f"{HEADER}\n" + "1,1,10,10,0,0\n" * (MAX_ROWS + 1), f"tasks.csv:{MAX_ROWS + 2}: more than"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_distribution_file_is_one_line_and_exit_2(tmp_path, case):
    text, expected = BAD[case]
    hand(tmp_path)
    if text is None:
        (tmp_path / "tasks.csv").unlink()
    else:
        (tmp_path / "tasks.csv").write_text(text)
    done = run("solve", "w.yaml", "--out", "out", cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert done.stderr.count("\n") == 1 and expected in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()
    if case == "missing file":
        assert done.stderr.startswith("w.yaml:") and "workloads[0].distribution" in done.stderr


def test_distributions_are_equal_by_value_and_survive_pickling(tmp_path):
    (tmp_path / "a.csv").write_text(TASKS)
    (tmp_path / "b.csv").write_text(TASKS.replace("# four", "# other comments, same tasks"))
    a, b = read_distribution(tmp_path / "a.csv", "a.csv"), read_distribution(tmp_path / "b.csv", "b.csv")
    assert a == b and hash(a) == hash(b) and a is not b
    assert pickle.loads(pickle.dumps(a)) == a
    changed = Distribution("a.csv", *(np.r_[x[:3], x[3] * (2 if k == 3 else 1)] for k, x in enumerate(columns(a))))
    assert changed != a


def columns(d: Distribution) -> list[np.ndarray]:
    return [d.weight, d.calls, d.input, d.output, d.reasoning, d.cached_input]


def test_a_what_if_starts_from_the_base_when_the_samples_are_equal_by_value(tmp_path):
    """A scenario editing an offering reuses the base's tables, the sample shares included, and gives the
    plan solved afresh; samples that changed (the same file name, other contents) rebuild the table."""
    inputs = load_inputs(hand(tmp_path))
    base, start = solve_base(inputs, "highs")
    edited = apply_scenario(inputs, scenario_from_sets(["offerings[fast].price.output=*0.5"]), "--set")
    assert edited.distributions == inputs.distributions
    with planner_log() as messages:
        reused = solve_inputs(edited, "highs", start=start)
    assert "pairs: 1 of 3 options recomputed, the others taken from the start" in messages
    assert plan_bytes(reused) == plan_bytes(solve_inputs(edited, "highs"))
    # pickled apart (a worker that did not fork): the same reuse and plan
    copied = pickle.loads(pickle.dumps(start)), pickle.loads(pickle.dumps(edited))
    with planner_log() as again:
        assert plan_bytes(solve_inputs(copied[1], "highs", start=copied[0])) == plan_bytes(reused)
    assert "pairs: 1 of 3 options recomputed, the others taken from the start" in again
    # the same file name with other tasks: nothing of the base's table holds
    d = inputs.distributions["chat"]
    longer = Distribution(d.file, d.weight, d.calls, d.input, d.output * 1.5, d.reasoning, d.cached_input)
    other = dataclasses.replace(edited, distributions={"chat": longer})
    with planner_log() as messages:
        plan = solve_inputs(other, "highs", start=start)
    assert "pairs: built afresh (the workloads or the offerings' layout differ from the start's)" in messages
    assert plan_bytes(plan) == plan_bytes(solve_inputs(other, "highs"))
    assert plan.total_cost > reused.total_cost  # longer tasks: mid serves fewer of them within budget


def test_a_scenario_may_name_another_distribution_file(tmp_path):
    path = hand(tmp_path)
    (tmp_path / "short.csv").write_text(f"{HEADER}\n1,1,1000,200,0,0\n")  # one short task: slow serves it
    done = run("whatif", str(path), "--set", "workloads[chat].distribution=short.csv", "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "o" / "hand.set.plan.json").read_text())
    w = data["workloads"][0]
    assert w["distribution"] == {"file": "short.csv", "samples": 1}
    assert [a["offering"] for a in w["allocations"]] == ["slow"] and data["total_cost"] == pytest.approx(1000.0)
    missing = run("whatif", str(path), "--set", "workloads[chat].distribution=nope.csv", "--out", str(tmp_path / "o"))
    assert missing.returncode == 2 and "distribution file not found" in missing.stderr
    assert missing.stderr.count("\n") == 1


def test_the_frontier_sweeps_the_budget_against_the_sample_tasks(tmp_path):
    """One workload's sweep puts every task within budget: an option is on from its slowest sample task's
    latency (fast 3 s, mid 12 s, slow 30 s); the portfolio sweep keeps the 90% and moves the shares within
    the scaled budget; today's point costs what solve costs."""
    inputs = load_inputs(hand(tmp_path))
    one = frontier(inputs, "chat", points=8)
    feasible = [p for p in one.latency if p.feasible and p.value is not None]
    assert feasible[0].value == pytest.approx(3.0) and feasible[0].chosen == "fast"
    at = {p.chosen for p in feasible if p.value >= 30.0}
    assert at == {"slow"}
    whole = frontier(inputs, None, points=8)
    x1 = next(p for p in whole.latency if p.value == 1.0)
    assert x1.cost == pytest.approx(6800.0, rel=1e-6) == whole.today_latency.cost
    x3 = next(p for p in whole.latency if p.value is not None and p.value >= 3.0)  # 30 s: every task in on slow
    assert x3.cost == pytest.approx(1000.0, rel=1e-6)


def test_a_distribution_without_a_budget_changes_nothing_but_the_plan_records_it(tmp_path):
    path = hand(tmp_path)
    data = yaml.safe_load(path.read_text())
    data["workloads"][0]["latency"] = {}
    path.write_text(yaml.safe_dump(data))
    plan = solve_inputs(load_inputs(path), "highs")
    w = plan.workloads[0]
    assert [a.offering for a in w.allocations] == ["slow"] and w.distribution.samples == 4
    assert all(a.within_budget_share is None for a in w.allocations)


def test_a_distribution_read_without_loading_is_an_error():
    from planner.model.schema import Catalog, WorkloadSet
    from planner.optimize.pairs import build_workloads

    ws = WorkloadSet.model_validate(
        {"workloads": [{"id": "w", "tasks": 1.0, "tokens": {"input": 1.0, "output": 1.0}, "distribution": "x.csv"}]}
    )
    with pytest.raises(ValueError, match="was not read"):
        build_workloads(ws, Catalog.model_validate(CATALOG | {"offerings": CATALOG["offerings"]}))


def test_compare_names_the_distribution_and_the_percentile_among_a_reroutes_reasons(tmp_path):
    from planner.review.compare import compare_plans

    path = hand(tmp_path, share=1.0)
    with_samples = solve_inputs(load_inputs(path), "highs")
    data = yaml.safe_load(path.read_text())
    del data["workloads"][0]["distribution"]
    path.write_text(yaml.safe_dump(data))
    mean_only = solve_inputs(load_inputs(path), "highs")
    cmp = compare_plans(mean_only, with_samples)
    assert "budget judged on the mean task → 4 sample tasks from tasks.csv" in cmp.reasons["chat"]
