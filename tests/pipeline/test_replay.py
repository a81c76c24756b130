"""planner replay against a computation of its own: the routing of each task (md5 of its id against the
cumulative shares), its latency and cost (SPEC 3 on its own tokens), nearest-rank percentiles and the
shares within budget, recomputed here in plain Python from the documented rules."""

import csv
import datetime as dt
import hashlib
import json
import math
import random
import re
from collections import defaultdict

import pytest
import yaml
from conftest import DATA, ROOT
from typer.testing import CliRunner

from planner.cli.app import app

runner = CliRunner()
LOGS = DATA / "logs"
CATALOG = LOGS / "catalog.yaml"


def run(*args):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "100"})


def _plan(tmp_path, logs, fmt, budgets, extra=(), catalog=CATALOG):
    """from-logs, a person's budgets written in, solve: the plan file's data."""
    wl = tmp_path / "w.yaml"
    result = run("workloads", "from-logs", logs, *fmt, "--out", wl, "--catalog", catalog, *extra)
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(wl.read_text())
    for w in data["workloads"]:
        w.update(budgets.get(w["id"], {}))
    wl.write_text(yaml.safe_dump(data, sort_keys=False))
    result = run("solve", wl, "--out", tmp_path / "plans")
    assert result.exit_code == 0, result.output
    return tmp_path / "plans" / "w.plan.json"


def u(task_id: str) -> float:
    """The documented rule: md5's first 8 bytes, little-endian, without the lowest 12 bits, / 2^52."""
    return (int.from_bytes(hashlib.md5(task_id.encode()).digest()[:8], "little") >> 12) / 2**52


def at_length(a: dict, name: str, x: float) -> float:
    """An allocation's median at x input tokens per call (SPEC "Speeds by prompt length"): straight lines in
    log(x) between the lengths the plan gives, the nearest one's figure outside them; its figure when fewer
    than two lengths measure it."""
    points = sorted((int(k), v[name]) for k, v in (a.get("speed_by_input") or {}).items() if v.get(name) is not None)
    if len(points) < 2:
        return a[name]
    if x <= points[0][0]:
        return points[0][1]
    if x >= points[-1][0]:
        return points[-1][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= x < x1:
            return y0 + (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0)) * (y1 - y0)
    raise AssertionError("unreachable")


def expected(plan: dict, tasks: dict[str, dict[str, list]]) -> dict:
    """The replay by hand: tasks[workload][task id] = [calls, input, output, reasoning, cached] (sums)."""
    out = {}
    for w in plan["workloads"]:
        if w["id"] not in tasks or not w["allocations"]:
            continue
        allocs = sorted(w["allocations"], key=lambda a: (a["offering"], a["mode"]))
        total = 0.0
        for a in allocs:
            total += a["share"]
        his, running = [], 0.0
        for k, a in enumerate(allocs):
            running += a["share"]
            his.append(1.0 if k == len(allocs) - 1 else running / total)
        per_route = defaultdict(list)
        for tid, (n, i, o, r, c) in tasks[w["id"]].items():
            k = next(k for k, hi in enumerate(his) if u(tid) < hi)
            a = allocs[k]
            price = plan["catalog_index"][a["offering"]]
            cached_price = (
                price["price_cached_input"] if price["price_cached_input"] is not None else price["price_input"]
            )
            inp, outp, reas, cached = i / n, o / n, r / n, c / n
            reasoning = reas * a["reasoning_factor"]
            if a["thinking_tokens"] is not None:
                reasoning = max(reasoning, a["thinking_tokens"])
            # the first-token time measured at a length already reads that many input tokens
            read = max((int(k) for k, v in (a.get("speed_by_input") or {}).items() if "ttft_s" in v), default=0)
            prefill = max(inp - read, 0) / a["prefill_tps"] if a["prefill_tps"] else 0.0
            ttft, tps = at_length(a, "ttft_s", inp), at_length(a, "output_tps", inp)
            call = ttft + prefill + (reasoning + outp) / tps
            first = ttft + prefill + reasoning / tps
            tool = w["tool_latency_s"]
            latency = (n - 1) * (call + tool) + first if w["streaming"] else n * call + (n - 1) * tool
            cost = (
                n
                * (
                    (inp - cached) * price["price_input"]
                    + cached * cached_price
                    + (reasoning + outp) * price["price_output"]
                )
                / 1e6
            )
            within = w["budget_s"] is None or latency <= w["budget_s"]
            per_route[k].append((latency, cost, within))
        every = sorted(x for rows in per_route.values() for x in rows)
        lat = sorted(x[0] for x in every)

        def pct(values, p):
            return values[(p * len(values) + 999) // 1000 - 1]

        out[w["id"]] = {
            "tasks": len(every),
            "cost_logged": sum(x[1] for x in every),
            "cost_per_period_replay": sum(x[1] for x in every) / len(every) * w["tasks"],
            "latency_s": {f"p{p // 10}": pct(lat, p) for p in (500, 900, 990)},
            "within_budget_share_replay": sum(x[2] for x in every) / len(every),
            "within_budget_share_plan": w["within_budget_share"],
            # short: below the promise by more than two standard errors of a share of n tasks (SPEC)
            "short": sum(x[2] for x in every) / len(every)
            < w["within_budget_share"]
            - max(1e-9, 2 * math.sqrt(w["within_budget_share"] * (1 - w["within_budget_share"]) / len(every))),
            "routes": [
                {
                    "offering": a["offering"],
                    "tasks": len(per_route[k]),
                    "within": sum(x[2] for x in per_route[k]),
                    "p99": pct(sorted(x[0] for x in per_route[k]), 990) if per_route[k] else None,
                }
                for k, a in enumerate(allocs)
            ],
        }
    return out


def check(data: dict, mine: dict) -> None:
    got = {w["id"]: w for w in data["workloads"]}
    assert sorted(got) == sorted(mine)
    for wid, m in mine.items():
        g = got[wid]
        assert g["tasks"] == m["tasks"]
        assert g["cost_logged"] == pytest.approx(m["cost_logged"], rel=1e-5)
        assert g["cost_per_period_replay"] == pytest.approx(m["cost_per_period_replay"], rel=1e-5)
        for p, v in m["latency_s"].items():
            assert g["latency_s"][p] == pytest.approx(v, rel=1e-5), (wid, p)
        assert g["within_budget_share_replay"] == pytest.approx(m["within_budget_share_replay"], rel=1e-5)
        assert g["within_budget_share_plan"] == pytest.approx(m["within_budget_share_plan"])
        assert g["short"] == m["short"]
        for gr, mr in zip(g["routes"], m["routes"], strict=True):
            assert gr["offering"] == mr["offering"] and gr["tasks"] == mr["tasks"]
            if mr["tasks"]:
                assert gr["within_budget_share_replay"] == pytest.approx(mr["within"] / mr["tasks"])
                assert gr["latency_s"]["p99"] == pytest.approx(mr["p99"], rel=1e-5)


def _litellm_tasks():
    with open(LOGS / "litellm_spend_logs.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["status"] != "failure"]
    tasks: dict[str, dict[str, list]] = defaultdict(dict)
    for r in rows:
        usage = json.loads(r["metadata"])["usage_object"]
        reasoning = usage["completion_tokens_details"]["reasoning_tokens"]
        t = tasks[r["model_group"]].setdefault(r["session_id"] or r["request_id"], [0, 0, 0, 0, 0])
        for j, v in enumerate(
            (
                1,
                int(r["prompt_tokens"]),
                int(r["completion_tokens"]) - reasoning,
                reasoning,
                usage["prompt_tokens_details"]["cached_tokens"],
            )
        ):
            t[j] += v
    return tasks


BUDGETS = {
    "support-chat": {"latency": {"budget_s": 6, "within_budget_share": 0.9}},
    "triage-agent": {"latency": {"budget_s": 2.5, "within_budget_share": 0.5}},
}


def test_replay_of_litellm_logs(tmp_path):
    plan_path = _plan(tmp_path, LOGS / "litellm_spend_logs.csv", ["--format", "litellm"], BUDGETS)
    out = tmp_path / "replay"
    result = run("replay", plan_path, LOGS / "litellm_spend_logs.csv", "--format", "litellm", "--out", out)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "w.replay.json").read_text())
    plan = json.loads(plan_path.read_text())
    check(data, expected(plan, _litellm_tasks()))
    # the terminal: 100 columns, the shortfalls flagged
    assert all(len(line) <= 100 for line in result.stdout.splitlines())
    # support-chat's plan meets its budget by its sample tasks (a distribution from the same logs), so
    # what it promises is what the replay finds; triage-agent's four tasks, split by the hash, miss its
    # rule, but by less than splitting four tasks can by chance: noted, not flagged
    assert "90% → 90% │" in result.stdout and "short:" not in result.stdout
    assert "50% → 25% │" in result.stdout
    text = " ".join(result.stdout.split())
    assert "note: triage-agent: 25% of its 4 tasks within 2.5 s, under the rule's 50%, but within what" in text
    html = (out / "w.replay.html").read_text()
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org", "")
    assert html.count("<svg") == 3 and "short of the promise" not in html  # nothing short here (see above)


# The catalog with speeds by prompt length (test figures): the fast host slows at long prompts and reads
# inputs beyond 5k at its prefill_tps; the GPU host measures only its output speed at other lengths.
LENGTHS = {
    "llama@cerebras": {
        "input_tokens": 1000,
        "by_input": {200: {"ttft_s": 0.1}, 5000: {"output_tps": 900, "ttft_s": 1.5}},
    },
    "llama@gpu": {"input_tokens": 2000, "by_input": {500: {"output_tps": 60}, 8000: {"output_tps": 30}}},
    "mini@openai": {"input_tokens": 1000, "by_input": {10000: {"output_tps": 50, "ttft_s": 2.0}}},
}


@pytest.mark.parametrize("lengths", [False, True], ids=["one-length", "by-prompt-length"])
def test_replay_of_many_tasks_on_split_routes(tmp_path, lengths):
    """Three thousand tasks of one to five calls with long-tailed prompts, on a workload the plan splits;
    with speeds by prompt length, each task timed at its own input tokens per call."""
    catalog = CATALOG
    if lengths:
        data = yaml.safe_load(CATALOG.read_text())
        for o in data["offerings"]:
            o["speed"].update(LENGTHS.get(o["id"], {}))
        catalog = tmp_path / "catalog.yaml"
        catalog.write_text(yaml.safe_dump(data, sort_keys=False))
    rng = random.Random(18)
    logs = tmp_path / "calls.csv"
    tasks: dict[str, dict[str, list]] = defaultdict(dict)
    with open(logs, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            ["start", "task_id", "workload", "input_tokens", "output_tokens", "reasoning_tokens", "cached_tokens"]
        )
        for t in range(3000):
            group = "agent" if t % 3 else "chat"
            tid = f"{group}-{t:05d}"
            calls = 1 if group == "chat" else rng.choice((1, 2, 3, 3, 4, 5))
            for c in range(calls):
                inp = int(rng.lognormvariate(7.0, 0.8)) + 10
                out = int(rng.lognormvariate(5.0, 0.7)) + 1
                reasoning = int(out * 0.5) if group == "agent" else 0
                cached = inp // 2 if c else 0
                when = dt.datetime(2026, 5, 4, 9, 0) + dt.timedelta(seconds=t * 1.2 + c * 2.0)
                writer.writerow(
                    [
                        when.isoformat(sep=" "),
                        tid,
                        group,
                        inp,
                        out + reasoning,
                        reasoning,
                        cached,
                    ]
                )
                row = tasks[group].setdefault(tid, [0, 0, 0, 0, 0])
                for j, v in enumerate((1, inp, out, reasoning, cached)):
                    row[j] += v
    budgets = {
        "agent": {"latency": {"budget_s": 3, "within_budget_share": 0.6}, "tool_latency_s": 0.2},
        "chat": {"latency": {"budget_s": 1.2, "within_budget_share": 0.7, "streaming": True}},
    }
    fmt = ["--format", "csv", "--group-by", "workload"]
    plan_path = _plan(tmp_path, logs, fmt, budgets, catalog=catalog)
    plan = json.loads(plan_path.read_text())
    assert any(len(w["allocations"]) > 1 for w in plan["workloads"])  # a split to replay
    used = {a["offering"] for w in plan["workloads"] for a in w["allocations"] if a.get("speed_by_input")}
    assert bool(used) == lengths, used
    out = tmp_path / "replay"
    result = run("replay", plan_path, logs, *fmt, "--out", out)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "w.replay.json").read_text())
    mine = expected(plan, tasks)
    check(data, mine)
    for w in plan["workloads"]:  # each route takes about its share of the tasks
        for a, r in zip(sorted(w["allocations"], key=lambda a: (a["offering"], a["mode"])), mine[w["id"]]["routes"]):
            assert r["tasks"] / mine[w["id"]]["tasks"] == pytest.approx(a["share"], abs=0.05)


def test_workloads_the_plan_lacks_are_listed(tmp_path):
    plan_path = _plan(tmp_path, LOGS / "litellm_spend_logs.csv", ["--format", "litellm"], BUDGETS)
    out = tmp_path / "replay"
    result = run(
        "replay", plan_path, LOGS / "litellm_spend_logs.csv", "--format", "litellm", "--group-by", "tag", "--out", out
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "w.replay.json").read_text())
    assert [w["id"] for w in data["workloads"]] == ["research"]  # the tag research is also a model group
    assert data["not_in_plan"] == {"support": 10, "triage": 4}
    assert data["no_traffic"] == ["support-chat", "triage-agent"]
    assert "not in the plan: support (10 tasks), triage (4 tasks)" in result.stdout


def test_logged_names_are_escaped_in_the_report(tmp_path):
    logs = tmp_path / "calls.csv"
    logs.write_text(
        "start,workload,input_tokens,output_tokens\n"
        "2026-05-04 09:00:00,<b>chat</b>,100,20\n2026-05-04 09:00:30,<b>chat</b>,120,25\n"
    )
    plan_path = _plan(tmp_path, logs, ["--format", "csv", "--group-by", "workload"], {})
    result = run("replay", plan_path, logs, "--format", "csv", "--group-by", "workload", "--out", tmp_path / "r")
    assert result.exit_code == 0, result.output
    html = (tmp_path / "r" / "w.replay.html").read_text()
    assert "-b-chat-/b-" in html and "&lt;b&gt;chat&lt;/b&gt;" in html and "<b>chat" not in html


def test_a_plan_file_that_is_not_one(tmp_path):
    bad = tmp_path / "x.plan.json"
    bad.write_text("{}")
    result = run("replay", bad, LOGS / "calls.csv", "--format", "csv", "--out", tmp_path / "r")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert re.search("plan_version", result.stderr)


def test_a_note_below_the_rule_tells_the_two_shares_apart(capsys):
    """94.8% within a rule of 95% reads "94.8% ... under the rule's 95.0%", never "95% under 95%"."""
    from planner.model.load import load_inputs
    from planner.outputs.comparisons import print_replay
    from planner.pipeline.replay import Replay, WorkloadReplay
    from planner.pipeline.solve import solve_inputs

    plan = solve_inputs(load_inputs(ROOT / "workloads" / "support.yaml"))
    w = next(w for w in plan.workloads if w.id == "ticket-triage")
    w = w.model_copy(update={"within_budget_share_required": 0.95, "within_budget_share": 0.95})
    replayed = WorkloadReplay(id=w.id, logged_as=[w.id], plan=w, routes=[], tasks=500, calls=500, within=474)
    assert replayed.below_rule and not replayed.short  # 94.8% of 500 tasks: within chance of 95%
    print_replay(Replay(plan, [replayed], {}, {}, [], 500, 500), "logs.csv", {"report": "r", "data": "d"})
    text = " ".join(capsys.readouterr().out.split())
    assert "note: ticket-triage: 94.8% of its 500 tasks within 10 s, under the rule's 95.0%" in text
