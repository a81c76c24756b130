"""Hostile plan files read back (issue 25): a plan edited by hand, or made to attack, is read by
replay, export, compare and solve --from with the plan's own rules (planner.plan.model); whatever breaks
them is exit 2 with one line naming the plan file and the field path, with nothing written; nothing
from a plan or its file name reaches an export unescaped; the plans the planner writes read back."""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import DATA, ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import EXPLORE, examples
from typer.testing import CliRunner

from planner.cli.app import app
from planner.plan.model import read_plan

runner = CliRunner()
LOGS = DATA / "logs"
SPEND_LOGS = LOGS / "litellm_spend_logs.csv"
BUDGETS = {
    "support-chat": {"latency": {"budget_s": 6, "within_budget_share": 0.9}},
    "triage-agent": {"latency": {"budget_s": 2.5, "within_budget_share": 0.5}},
}


def run(*args):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "100"})


@pytest.fixture(scope="module")
def logged_plan(tmp_path_factory) -> dict:
    """A plan solved from the test logs (with budgets written in): its data. triage-agent is split
    between two routes; every allocation carries the speeds replay times tasks with."""
    tmp = tmp_path_factory.mktemp("logged")
    wl = tmp / "w.yaml"
    result = run(
        "workloads", "from-logs", SPEND_LOGS, "--format", "litellm", "--out", wl, "--catalog", LOGS / "catalog.yaml"
    )
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(wl.read_text())
    for w in data["workloads"]:
        w.update(BUDGETS.get(w["id"], {}))
    wl.write_text(yaml.safe_dump(data, sort_keys=False))
    result = run("solve", wl, "--out", tmp / "plans")
    assert result.exit_code == 0, result.output
    plan = json.loads((tmp / "plans" / "w.plan.json").read_text())
    assert [len(w["allocations"]) for w in plan["workloads"]] == [1, 1, 2]
    return plan


def write_plan(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data))  # json writes NaN and Infinity as Python's json reads them
    return path


def one_line(result, file, words: str) -> str:
    """Exit 2, one line on stderr starting with the file and holding `words`, no traceback."""
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert len(lines) == 1, lines
    assert lines[0].startswith(str(file)) and words in lines[0], lines[0]
    assert "Traceback" not in result.output
    return lines[0]


def replay(plan_path: Path, out: Path):
    return run("replay", plan_path, SPEND_LOGS, "--format", "litellm", "--out", out)


def _set(*path_value):
    *path, value = path_value

    def edit(d):
        node = d
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = value

    return edit


def _all_shares_zero(d):
    for a in d["workloads"][2]["allocations"]:
        a["share"] = 0.0


def _workload_twice(d):
    d["workloads"].append(copy.deepcopy(d["workloads"][2]))


def _allocation_twice(d):
    w = d["workloads"][1]
    w["allocations"] = [w["allocations"][0], copy.deepcopy(w["allocations"][0])]
    for a in w["allocations"]:
        a["share"] = 0.5


def _offering_twice(d):
    d["offerings"].append(copy.deepcopy(d["offerings"][0]))


# (mutation, the field path the error names, words of the message)
HAND_EDITS = {
    "output_tps 0": (_set("workloads", 2, "allocations", 0, "output_tps", 0), "workloads[2].allocations[0].output_tps"),
    "negative speed": (
        _set("workloads", 2, "allocations", 1, "output_tps", -80.0),
        "workloads[2].allocations[1].output_tps",
    ),
    "negative first token": (
        _set("workloads", 1, "allocations", 0, "ttft_s", -0.5),
        "workloads[1].allocations[0].ttft_s",
    ),
    "prefill 0": (_set("workloads", 1, "allocations", 0, "prefill_tps", 0), "workloads[1].allocations[0].prefill_tps"),
    "negative thinking": (
        _set("workloads", 1, "allocations", 0, "thinking_tokens", -1),
        "workloads[1].allocations[0].thinking_tokens",
    ),
    "negative reasoning factor": (
        _set("workloads", 1, "allocations", 0, "reasoning_factor", -2),
        "workloads[1].allocations[0].reasoning_factor",
    ),
    "budget -1": (_set("workloads", 2, "budget_s", -1), "workloads[2].budget_s"),
    "budget 0": (_set("workloads", 2, "budget_s", 0), "workloads[2].budget_s"),
    "NaN tasks": (_set("workloads", 2, "tasks", math.nan), "workloads[2].tasks"),
    "infinite tasks": (_set("workloads", 0, "tasks", math.inf), "workloads[0].tasks"),
    "negative tasks": (_set("workloads", 0, "tasks", -5), "workloads[0].tasks"),
    "huge tasks": (_set("workloads", 0, "tasks", 1e300), "workloads[0].tasks"),
    "NaN cost": (_set("workloads", 0, "cost", math.nan), "workloads[0].cost"),
    "all-zero shares": (_all_shares_zero, "workloads[2].allocations"),
    "a share above 1": (_set("workloads", 1, "allocations", 0, "share", 1.5), "workloads[1].allocations[0].share"),
    "shares short of 1": (_set("workloads", 2, "allocations", 0, "share", 0.25), "workloads[2].allocations"),
    "a workload twice": (_workload_twice, "workloads"),
    "an option twice": (_allocation_twice, "workloads[1].allocations"),
    "an offering twice": (_offering_twice, "offerings"),
    "a negative price": (
        _set("catalog_index", "mini@openai", "price_output", -1.0),
        "catalog_index.mini@openai.price_output",
    ),
    "an infinite price": (
        _set("catalog_index", "mini@openai", "price_input", math.inf),
        "catalog_index.mini@openai.price_input",
    ),
    "a required share of 0": (
        _set("workloads", 2, "within_budget_share_required", 0),
        "workloads[2].within_budget_share_required",
    ),
    "zero turns": (_set("workloads", 2, "turns", 0), "workloads[2].turns"),
    "an unknown status": (_set("status", "fine"), "status"),
    "an unknown period": (_set("period", "fortnight"), "period"),
    "a price tier not sold": (
        _set("workloads", 1, "allocations", 0, "price_tier", "spot"),
        "workloads[1].allocations[0].price_tier",
    ),
}


@pytest.mark.parametrize("edit", list(HAND_EDITS))
def test_replay_refuses_a_hand_edited_plan_naming_the_field(logged_plan, tmp_path, edit):
    """Before: exit 1 (a traceback's worth) for a speed of 0, a budget of -1, NaN tasks or shares of 0;
    exit 0 with negative latencies "within budget" for a negative speed; a workload listed twice
    replayed twice. Now every one is exit 2 naming the plan file and the field, nothing written."""
    mutate, where = HAND_EDITS[edit]
    data = copy.deepcopy(logged_plan)
    mutate(data)
    path = write_plan(tmp_path / "edited.plan.json", data)
    one_line(replay(path, tmp_path / "out"), path, f": {where}: ")
    assert not (tmp_path / "out").exists()


def test_a_key_twice_in_one_object_is_refused(logged_plan, tmp_path):
    """json keeps the last of two equal keys silently: a second `budget_s` would win unseen."""
    text = json.dumps(logged_plan).replace('"budget_s": 2.5', '"budget_s": 2.5, "budget_s": 250', 1)
    path = tmp_path / "twice.plan.json"
    path.write_text(text)
    one_line(replay(path, tmp_path / "out"), path, "the key 'budget_s' appears twice in one object")


def test_every_command_that_reads_a_plan_reads_it_with_the_same_rules(logged_plan, tmp_path):
    data = copy.deepcopy(logged_plan)
    data["workloads"][2]["allocations"][1]["output_tps"] = -2000.0
    bad = write_plan(tmp_path / "bad.plan.json", data)
    good = write_plan(tmp_path / "good.plan.json", logged_plan)
    where = ": workloads[2].allocations[1].output_tps: should be greater than 0, found -2000.0"
    one_line(run("export", bad, "--to", "litellm", "--allow-unknown", "--out", tmp_path / "c.yaml"), bad, where)
    one_line(run("export", bad, "--to", "openrouter", "--allow-unknown", "--out", tmp_path / "c.json"), bad, where)
    one_line(run("compare", good, bad, "--out", tmp_path / "cmp"), bad, where)
    workloads = ROOT / "tests" / "data" / "tiny-workloads.yaml"
    one_line(run("solve", workloads, "--from", bad, "--out", tmp_path / "s"), bad, where)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.plan.json", "good.plan.json"]


def test_replay_names_the_plan_file_when_a_route_has_no_speed(logged_plan, tmp_path):
    """A plan of an older planner has no speeds: 'solve it again', naming the plan file (it named the
    workloads file the plan was solved from)."""
    data = copy.deepcopy(logged_plan)
    data["workloads"][2]["allocations"][1]["output_tps"] = None
    path = write_plan(tmp_path / "old.plan.json", data)
    one_line(replay(path, tmp_path / "out"), path, ": workloads[2].allocations[1]: the plan has no speed")


# ----------------------------------------------------------------------------- the planner's own plans


def test_the_plans_the_planner_writes_read_back(tmp_path, tiny_workloads, tiny_catalog):
    """The rules hold for every golden plan (solves, what-ifs), an infeasible plan, a plan solved --from
    another (its switching section), and a plan as --time-limit writes it when it stops short of proving
    the optimum (its status and solver fields, as SPEC "Integer plans and --time-limit" gives them)."""
    golden = sorted((ROOT / "tests" / "golden" / "out").rglob("*.plan.json"))
    assert len(golden) >= 10
    for path in golden:
        read_plan(path)
    data = json.loads(golden[0].read_text())
    data["status"] = "feasible"
    data["solver"].update({"status": "Time limit", "gap": None, "time_limit": 5.0, "integer": True})
    assert read_plan(write_plan(tmp_path / "stopped.plan.json", data)).status == "feasible"
    (tmp_path / "tiny-catalog.yaml").write_text(yaml.safe_dump(tiny_catalog))
    tiny_workloads["catalog"] = "tiny-catalog.yaml"
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(tiny_workloads))
    assert run("solve", tmp_path / "tiny.yaml", "--out", tmp_path / "a").exit_code == 0
    result = run("solve", tmp_path / "tiny.yaml", "--from", tmp_path / "a" / "tiny.plan.json", "--out", tmp_path / "b")
    assert result.exit_code == 0, result.output
    assert read_plan(tmp_path / "b" / "tiny.plan.json").switching is not None
    for w in tiny_workloads["workloads"]:
        w["latency"] = {"budget_s": 1e-6}
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(tiny_workloads))
    assert run("solve", tmp_path / "tiny.yaml", "--out", tmp_path / "c").exit_code == 3
    assert read_plan(tmp_path / "c" / "tiny.plan.json").status == "infeasible"


def test_a_name_taken_from_the_file_name_follows_the_rule_of_a_name_in_the_file(tmp_path, tiny_workloads, tiny_catalog):
    """A workloads file without `name:` names its plan after its file name: that name is held to the
    rule of `name:` before the solve, so that the plan written reads back (it was written before)."""
    (tmp_path / "tiny-catalog.yaml").write_text(yaml.safe_dump(tiny_catalog))
    tiny_workloads["catalog"] = "tiny-catalog.yaml"
    tiny_workloads.pop("name", None)
    path = tmp_path / "my plan <v2>.yaml"
    path.write_text(yaml.safe_dump(tiny_workloads))
    for command in (["solve", path], ["whatif", path, "--set", "policy.budget=100"], ["frontier", path]):
        line = one_line(run(*command, "--out", tmp_path / "out"), path, ": name: 'my plan <v2>', the file's name")
        assert "set name: in the file" in line
    assert not (tmp_path / "out").exists()
    tiny_workloads["name"] = "my-plan-v2"
    path.write_text(yaml.safe_dump(tiny_workloads))
    assert run("solve", path, "--out", tmp_path / "out").exit_code == 0
    read_plan(tmp_path / "out" / "my-plan-v2.plan.json")


# ----------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    "field, value, where",
    [
        (("name",), "<script>alert(1)</script>", "name"),
        (("name",), "x" * 300, "name"),
        (("name",), "a\nb", "name"),
        (("workloads", 2, "id"), "<img src=x onerror=alert(1)>", "workloads[2].id"),
        (("workloads", 2, "allocations", 0, "offering"), "mini@openai\n#", "workloads[2].allocations[0].offering"),
        (("workloads", 2, "allocations", 0, "mode"), "default'\"", "workloads[2].allocations[0].mode"),
        (("offerings", 0, "id"), "a b", "offerings[0].id"),
        (
            ("catalog_index",),
            {"mini@openai": {"price_input": 1, "price_output": 1}, "x\ny": {"price_input": 1, "price_output": 1}},
            "catalog_index.x\\ny.[key]",
        ),
    ],
)
def test_names_read_back_follow_the_rule_of_names_read_from_yaml(logged_plan, tmp_path, field, value, where):
    """A plan's name, workload ids and option ids name output files and reach exports and reports:
    they follow the rule of a workloads file's ids (letters, digits and . _ - @ / :, 1 to 200
    characters). Before: '<script>alert(1)</script>' named the replay's files, and every one of these
    was exported."""
    data = copy.deepcopy(logged_plan)
    _set(*field, value)(data)
    path = write_plan(tmp_path / "named.plan.json", data)
    for args in (
        ["replay", path, SPEND_LOGS, "--format", "litellm", "--out", tmp_path / "out"],
        ["compare", path, path, "--out", tmp_path / "out"],
        ["export", path, "--to", "litellm", "--allow-unknown", "--out", tmp_path / "out.yaml"],
        ["export", path, "--to", "openrouter", "--allow-unknown", "--out", tmp_path / "out.json"],
    ):
        one_line(run(*args), path, f": {where}: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["named.plan.json"]


def test_a_name_that_passes_the_rule_but_cannot_name_a_file_is_still_refused(logged_plan, tmp_path):
    """'../x' is a name by the rule ('.' and '/' are allowed): as a file name it is hidden ('.._x'), so
    the output file rule refuses it, as before."""
    path = write_plan(tmp_path / "dots.plan.json", {**logged_plan, "name": "../x"})
    one_line(replay(path, tmp_path / "out"), path, ": name: '../x' cannot name an output file")
    assert not (tmp_path / "out").exists()


# ----------------------------------------------------------------------------- exports

INJECTED = "\ngeneral_settings: {master_key: sk-x}\n"


def test_a_plan_file_name_cannot_write_yaml_into_the_litellm_export(logged_plan, tmp_path):
    """The export's first line names the plan file in a comment. Before: the name went in raw, so a
    file name with a line break wrote `general_settings` (a proxy's master key) into the config."""
    path = write_plan(tmp_path / ("x" + INJECTED + "#.plan.json"), logged_plan)
    out = tmp_path / "config.yaml"
    result = run("export", path, "--to", "litellm", "--allow-unknown", "--out", out)
    assert result.exit_code == 0, result.output
    text = out.read_text()
    config = yaml.safe_load(text)
    assert set(config) == {"model_list", "router_settings"}
    assert text.splitlines()[0] == "# LiteLLM Router config generated by planner from x\\ngeneral_settings: " + (
        "{master_key: sk-x}\\n#.plan.json"
    )
    for sep in ("\u2028", "\x85", "\r"):  # line breaks to YAML too
        other = write_plan(tmp_path / f"y{sep}general_settings: {{a: b}}.plan.json", logged_plan)
        result = run("export", other, "--to", "litellm", "--allow-unknown", "--out", out)
        assert result.exit_code == 0, result.output
        assert set(yaml.safe_load(out.read_text())) == {"model_list", "router_settings"}, repr(sep)


def test_free_text_in_a_plan_stays_a_value_in_both_exports(logged_plan, tmp_path):
    """What a plan may carry as free text (a catalog's gateway ids, exported unchecked with
    --allow-unknown) is a quoted value in the YAML and a JSON string: never a key, never a comment."""
    data = copy.deepcopy(logged_plan)
    hostile = "x\"\n# y\ngeneral_settings: {master_key: sk-x}\n'z"
    for info in data["offering_info"].values():
        info["gateway"] = {"litellm": hostile, "openrouter": hostile}
    path = write_plan(tmp_path / "p.plan.json", data)
    out = tmp_path / "config.yaml"
    assert run("export", path, "--to", "litellm", "--allow-unknown", "--out", out).exit_code == 0
    config = yaml.safe_load(out.read_text())
    assert set(config) == {"model_list", "router_settings"}
    assert hostile in {d["litellm_params"]["model"] for d in config["model_list"]}  # (known ids win)
    out = tmp_path / "requests.json"
    assert run("export", path, "--to", "openrouter", "--allow-unknown", "--out", out).exit_code == 0
    doc = json.loads(out.read_text())
    models = {r["model"] for routes in doc["workloads"].values() for r in routes.values()}
    assert hostile in models


# ----------------------------------------------------------------------------- fuzz

HOSTILE_NUMBERS = [math.nan, math.inf, -math.inf, -1.0, 0.0, 0, -1e-300, 1e300, 10**30, 10**400, True, "1"]
HOSTILE_TEXT = ["", "\n", "a\nb: c", "#", "'\"", "<script>x</script>", "../x", "x" * 300, "\u2028", "é", None, 3]


def _places(node, prefix=()):
    yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _places(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _places(v, prefix + (i,))


def _routing(path: tuple) -> bool:
    """A place in a workload's own figures, its allocations, or the catalog's prices."""
    if path[0] == "catalog_index":
        return True
    return path[0] == "workloads" and (len(path) <= 3 or path[2] == "allocations")


@st.composite
def mutated_plans(draw, base: dict):
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        places = [(p, v) for p, v in _places(data) if p]
        if not draw(st.booleans()):  # half the time, what replay and the exports compute with: routes and prices
            places = [(p, v) for p, v in places if _routing(p)] or places
        where, value = draw(st.sampled_from(places))
        parent = data
        for part in where[:-1]:
            parent = parent[part]
        key = where[-1]
        if isinstance(value, list) and value and draw(st.booleans()):
            k = draw(st.integers(0, len(value) - 1))
            action = draw(st.sampled_from(["duplicate", "delete"]))
            if action == "duplicate":
                value.insert(k, copy.deepcopy(value[k]))
            else:
                del value[k]
        elif isinstance(value, bool) or isinstance(value, (int, float)):
            parent[key] = draw(st.sampled_from(HOSTILE_NUMBERS))
        elif isinstance(value, str):
            parent[key] = draw(st.sampled_from(HOSTILE_TEXT))
        elif draw(st.booleans()):
            parent[key] = draw(st.sampled_from(HOSTILE_NUMBERS + HOSTILE_TEXT))
        elif isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
    return data


def _sane_replay(doc: dict) -> None:
    """What a replay that ran may say: every logged task counted once, latencies and costs finite and
    not negative, shares within budget in [0, 1]."""
    counted = sum(w["tasks"] for w in doc["workloads"]) + sum(doc["not_in_plan"].values())
    assert counted + sum(doc["no_route"].values()) == doc["tasks"], "tasks replayed twice, or lost"
    for w in doc["workloads"]:
        for part in (w, *w["routes"]):
            for x in (*part["latency_s"].values(), part["cost_logged"], part.get("cost_per_period_replay")):
                assert x is None or (math.isfinite(x) and x >= 0), (w["id"], part["latency_s"], x)
            share = part["within_budget_share_replay"]
            assert share is None or 0 <= share <= 1, (w["id"], share)


def _sane_export(text: str) -> None:
    config = yaml.safe_load(text)
    assert set(config) <= {"model_list", "router_settings"}, set(config)
    for d in config["model_list"]:
        weight = d["litellm_params"].get("weight")
        assert weight is None or 0 <= weight <= 1, weight


@settings(
    max_examples=examples(120),
    derandomize=not EXPLORE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_mutated_plans_are_replayed_and_exported_or_refused_on_one_line(logged_plan, tmp_path, data):
    """A real plan with one to three things changed (numbers to NaN, infinity, negative, zero, huge or
    another type; text to line breaks, markup, paths, long or no text; list items repeated or dropped;
    keys dropped): replay and export refuse it on one line (exit 2) or run with figures that make sense
    (exit 0); never an internal error."""
    plan = data.draw(mutated_plans(logged_plan))
    case = tmp_path / f"case-{os.urandom(4).hex()}"
    case.mkdir()
    path = case / "m.plan.json"
    path.write_text(json.dumps(plan))
    for args in (
        ["replay", path, SPEND_LOGS, "--format", "litellm", "--out", case / "r"],
        ["export", path, "--to", "litellm", "--allow-unknown"],
    ):
        result = run(*args)
        assert result.exit_code in (0, 2), (args[0], result.exit_code, result.output, result.exception)
        assert "Traceback" not in result.output and "internal error" not in result.output
        if result.exit_code == 2:
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(str(path)), lines
        elif args[0] == "replay":
            (written,) = (case / "r").glob("*.replay.json")
            _sane_replay(json.loads(written.read_text()))
        else:
            _sane_export(result.stdout)
    shutil.rmtree(case)
