"""The command line: exit codes 0, 2 and 3, one-line messages with file and field path, no tracebacks."""

import json
import logging
import re
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import DATA, ROOT
from typer.testing import CliRunner

from planner.cli.app import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def tiny(tmp_path):
    """The tiny catalog and workloads copied to a folder the test may change."""
    shutil.copy(DATA / "tiny-catalog.yaml", tmp_path / "tiny-catalog.yaml")
    shutil.copy(DATA / "tiny-workloads.yaml", tmp_path / "tiny-workloads.yaml")
    return tmp_path


def edit(path, fn):
    data = yaml.safe_load(path.read_text())
    fn(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def test_solve_writes_plan_and_report(tiny):
    out = tiny / "out"
    result = run("solve", tiny / "tiny-workloads.yaml", "--out", out)
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "tiny.plan.json").read_text())
    assert plan["status"] == "optimal" and plan["plan_version"] == 1
    assert [w["id"] for w in plan["workloads"]] == ["chat", "agent", "batch"]
    assert (out / "tiny.html").read_text().startswith("<!doctype html>")
    assert "chat" in result.output and "tiny.plan.json" in result.output


def test_solve_format_json_prints_the_plan(tiny):
    result = run("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "o", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["name"] == "tiny"


@pytest.mark.parametrize("full", [[], ["--full"]])
def test_solve_format_json_prints_the_plan_file_as_written(tiny, full):
    """Trimmed by default, whole with --full (SPEC "Plan size"): what is printed is the file's text."""
    out = tiny / ("whole" if full else "trimmed")
    result = run("solve", tiny / "tiny-workloads.yaml", "--out", out, "--format", "json", *full)
    assert result.exit_code == 0
    text = (out / "tiny.plan.json").read_text()
    assert result.stdout == text and ("choices_omitted" in text) != bool(full)


def test_solve_format_csv_prints_allocations(tiny):
    result = run("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "o", "--format", "csv")
    assert result.exit_code == 0
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("workload,offering,mode,vendor")
    assert len(lines) >= 4


def test_catalog_override(tiny):
    other = tiny / "sub"
    other.mkdir()
    shutil.copy(tiny / "tiny-catalog.yaml", other / "c.yaml")
    (tiny / "tiny-catalog.yaml").unlink()
    assert run("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "o").exit_code == 2
    assert run("solve", tiny / "tiny-workloads.yaml", "--catalog", other / "c.yaml", "--out", tiny / "o").exit_code == 0


def test_infeasible_exits_3_and_still_writes(tiny):
    edit(tiny / "tiny-workloads.yaml", lambda d: d["workloads"][0].update(latency={"budget_s": 0.1}))
    result = run("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "o")
    assert result.exit_code == 3, result.output
    plan = json.loads((tiny / "o" / "tiny.plan.json").read_text())
    assert plan["status"] == "infeasible"
    chat = plan["workloads"][0]
    assert chat["status"] == "infeasible" and chat["diagnosis"]["summary"].startswith("no eligible option")
    assert "chat" in result.output


@pytest.mark.parametrize(
    "change, where, words",
    [
        (
            lambda d: d["workloads"][1]["tokens"].update(input=-5),
            "workloads[1].tokens.input",
            "greater than or equal to 0, found -5",
        ),
        (lambda d: d["workloads"][0].update(tasks="many"), "workloads[0].tasks", "valid number, found 'many'"),
        (lambda d: d["workloads"][0].update(tasks=0), "workloads[0].tasks", "greater than 0"),
        (
            lambda d: d["workloads"][0].update(colour="red"),
            "workloads[0].colour",
            "unknown key 'colour'; expected one of: id,",
        ),
        (lambda d: d["workloads"][0].pop("tokens"), "workloads[0].tokens", "required field is missing"),
        (lambda d: d["workloads"][1].update(id="chat"), "workloads", "duplicate workload id 'chat'"),
        (
            lambda d: d["workloads"][0]["latency"].update(threshold="soon"),
            "workloads[0].latency.threshold",
            "unknown threshold 'soon'",
        ),
        (
            lambda d: d["workloads"][0]["latency"].update(budget_s=3),
            "workloads[0].latency",
            "either threshold or budget_s",
        ),
        (lambda d: d.update(period="fortnight"), "period", "'day', 'week', 'month', 'quarter' or 'year'"),
        (lambda d: d["workloads"][0].update(turns=True), "workloads[0].turns", "valid integer"),
        (
            lambda d: d["workloads"][0]["tokens"].update(cached_input_share=1.5),
            "workloads[0].tokens.cached_input_share",
            "less than or equal to 1",
        ),
        (lambda d: d.update(workloads=[]), "workloads", "at least 1 item"),
        (lambda d: d.update(catalog="missing.yaml"), "catalog", "catalog file not found"),
        (
            lambda d: (
                d["policy"].update(max_vendor_share=1.5)
                if "policy" in d
                else d.update(policy={"max_vendor_share": 1.5})
            ),
            "policy.max_vendor_share",
            "less than or equal to 1",
        ),
    ],
)
def test_bad_workloads_file_exit_2_with_path(tiny, change, where, words):
    path = tiny / "tiny-workloads.yaml"
    edit(path, change)
    result = run("solve", path, "--out", tiny / "o")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    line = result.stderr.strip().splitlines()[0]
    assert line.startswith(str(path)), line
    assert f": {where}: " in line or f": {where}" in line, line
    assert words in line, line
    assert not (tiny / "o").exists()  # nothing half-written


@pytest.mark.parametrize(
    "change, where, words",
    [
        (
            lambda d: d["offerings"][0]["price"].update(output=-1),
            "offerings[0].price.output",
            "greater than or equal to 0",
        ),
        (lambda d: d["offerings"][1]["speed"].update(output_tps=0), "offerings[1].speed.output_tps", "greater than 0"),
        (lambda d: d["offerings"][2].update(id="bad id!"), "offerings[2].id", "letters, digits"),
        (lambda d: d["offerings"][2].update(id="gpu"), "offerings", "duplicate offering id 'gpu'"),
        (
            lambda d: d["offerings"][0].update(capability=120),
            "offerings[0].capability.overall",
            "less than or equal to 100",
        ),
        (lambda d: d["offerings"][0].pop("speed"), "offerings[0].speed", "required field is missing"),
        (
            lambda d: d["offerings"][0]["capacity" if False else "price"].update(cached=1),
            "offerings[0].price.cached",
            "expected one of: input, output, cached_input",
        ),
    ],
)
def test_bad_catalog_exit_2_with_path(tiny, change, where, words):
    path = tiny / "tiny-catalog.yaml"
    edit(path, change)
    for args in (("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "o"), ("catalog", "validate", path)):
        result = run(*args)
        assert result.exit_code == 2, result.output
        line = result.stderr.strip().splitlines()[0]
        assert line.startswith(str(path)) and where in line and words in line, line


def test_yaml_syntax_error_gives_line_and_column(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("name: x\nworkloads:\n  - id: a\n    tasks: [1, 2\n")
    result = run("solve", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{path}:5:1: YAML syntax error") or result.stderr.startswith(f"{path}:4:")


def test_error_names_the_line_of_the_field(tiny):
    path = tiny / "tiny-workloads.yaml"
    text = path.read_text().replace("tasks: 20000", "tasks: -3")
    path.write_text(text)
    line_no = text.splitlines().index("    tasks: -3") + 1
    result = run("solve", path)
    assert result.stderr.startswith(f"{path}:{line_no}:"), result.stderr
    assert "(in workload 'agent')" in result.stderr


def test_duplicate_yaml_key_is_an_error(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("name: x\nname: y\nworkloads: []\n")
    result = run("solve", path)
    assert result.exit_code == 2 and "duplicate key 'name'" in result.stderr


@pytest.mark.parametrize(
    "content, words",
    [
        ("", "found an empty file"),
        ("- a\n- b\n", "found a list"),
        ("just text", "found a str"),
    ],
)
def test_not_a_mapping(tmp_path, content, words):
    path = tmp_path / "w.yaml"
    path.write_text(content)
    result = run("solve", path)
    assert result.exit_code == 2 and words in result.stderr


def test_missing_file_and_directory(tmp_path):
    assert "file not found" in run("solve", tmp_path / "nope.yaml").stderr
    assert "is a directory" in run("solve", tmp_path).stderr


def test_not_utf8(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_bytes(b"name: \xff\xfe\n")
    result = run("solve", path)
    assert result.exit_code == 2 and "not UTF-8" in result.stderr


def test_usage_errors_exit_2(tiny):
    assert run("solve").exit_code == 2
    assert run("solve", tiny / "tiny-workloads.yaml", "--solver", "gurobi").exit_code == 2
    assert run("frobnicate").exit_code == 2


def test_debug_shows_the_traceback(tiny):
    path = tiny / "tiny-workloads.yaml"
    edit(path, lambda d: d.update(period="fortnight"))
    result = runner.invoke(app, ["--debug", "solve", str(path)])
    assert result.exit_code != 0 and result.exception is not None


def test_explain_lists_every_option_with_reasons(tiny):
    result = run("explain", tiny / "tiny-workloads.yaml", "--workload", "agent", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert {r["option"] for r in rows} == {"gpu", "fast", "cheap"}
    costs = [r["cost_per_task"] for r in rows]
    assert costs == sorted(costs)
    by = {r["option"]: r for r in rows}
    assert by["fast"]["eligible"] and not by["gpu"]["eligible"]
    assert any(reason.startswith("latency") for reason in by["gpu"]["reasons"])
    assert by["cheap"]["reasons"][0] == "overall 60 < floor 80"
    table = run("explain", tiny / "tiny-workloads.yaml", "--workload", "agent")
    assert table.exit_code == 0 and "cheapest first" in table.stdout


def test_explain_unknown_workload(tiny):
    result = run("explain", tiny / "tiny-workloads.yaml", "--workload", "nope")
    assert result.exit_code == 2 and "no workload 'nope'; expected one of: chat, agent, batch" in result.stderr


def test_catalog_show_and_validate():
    cat = ROOT / "catalogs" / "2026-q3.yaml"
    result = run("catalog", "validate", cat)
    assert result.exit_code == 0 and "ok:" in result.stdout
    rows = json.loads(run("catalog", "show", cat, "--format", "json").stdout)
    assert {"sol-fast", "sol-fast (ultra)", "luna-std"} <= {r["option"] for r in rows}


def test_version():
    result = run("--version")
    assert result.exit_code == 0 and result.stdout.startswith("planner ")


@pytest.mark.parametrize("name", ["support", "coding-agent"])
def test_shipped_examples_solve(tmp_path, name):
    result = run("solve", ROOT / "workloads" / f"{name}.yaml", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    plan = json.loads((tmp_path / f"{name}.plan.json").read_text())
    tiers = {a["tier"] for w in plan["workloads"] for a in w["allocations"]}
    assert "fast" in tiers and tiers - {"fast"}, tiers  # the optimum mixes fast and cheap lanes


def test_real_catalog_workloads_solve(tmp_path):
    result = run("solve", ROOT / "workloads" / "real-support.yaml", "--out", tmp_path)
    assert result.exit_code == 0, result.output


@pytest.fixture
def planner_logger():
    """The "planner" logger as it was: `planner -v` adds a handler to it (for the process it runs in)."""
    log = logging.getLogger("planner")
    handlers, level = list(log.handlers), log.level
    yield log
    log.handlers[:] = handlers
    log.setLevel(level)


def test_verbose_prints_each_stage_time_on_stderr_and_changes_nothing_else(tiny, planner_logger):
    quiet = run("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "quiet", "--format", "csv")
    loud = run("-v", "solve", tiny / "tiny-workloads.yaml", "--out", tiny / "loud", "--format", "csv")
    assert quiet.exit_code == loud.exit_code == 0, loud.output
    assert quiet.stderr == ""
    stages = [line.split(":")[0] for line in loud.stderr.splitlines()]
    assert stages == [
        "stage load",
        "stage pairs",
        "stage prune",
        "stage lp",
        "stage solve",
        "stage check",
        "stage review",
        "stage baselines",
        "stage plan",
        "stage outages",
        "stage company break-evens",
        "stage write",
    ]
    assert loud.stdout == quiet.stdout

    def report(folder):  # the solver's seconds aside
        return re.sub(r"constraints, [0-9.]+ s\.", "", (tiny / folder / "tiny.html").read_text())

    assert report("loud") == report("quiet")
    again = run("-v", "solve", tiny / "tiny-workloads.yaml", "--out", tiny / "loud", "--format", "csv")
    assert len(again.stderr.splitlines()) == len(stages)  # one handler, however many runs in a process
    assert run("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "quiet").stderr == ""


def test_python_m_planner_is_the_command_line(tiny):
    version = subprocess.run([sys.executable, "-m", "planner", "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout == run("--version").stdout
    bad = subprocess.run(
        [sys.executable, "-m", "planner", "solve", str(tiny / "nope.yaml")], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "file not found" in bad.stderr and "Traceback" not in bad.stderr


def test_unwritable_output_is_an_input_error(tiny):
    blocker = tiny / "file"
    blocker.write_text("x")
    result = run("solve", tiny / "tiny-workloads.yaml", "--out", blocker / "sub")
    assert result.exit_code == 2 and "cannot be written" in result.stderr


def test_help_imports_no_solver_and_no_numpy():
    """`planner --help` stays quick (issue 29): the heavy modules load inside commands, not on the CLI's path."""
    import subprocess
    import sys

    code = (
        "import sys; from planner.cli import main; sys.argv = ['planner', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('numpy', 'highspy', 'scipy', 'jinja2', 'pulp', 'duckdb') if m in sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("HEAVY []"), out[-300:]
