"""The Plan and its file (planner.plan.model): plans built as trusted records equal their validated JSON
round trip, and read_plan's errors name the file and the field."""

import json

import pytest
from conftest import ROOT, solve_dicts

from planner.core.errors import InputError
from planner.model.load import load_inputs
from planner.pipeline.solve import solve_inputs
from planner.plan.model import PLAN_VERSION, InputFiles, Plan, read_plan


@pytest.mark.parametrize("name", ["support", "coding-agent", "real-support"])
def test_a_shipped_example_plan_equals_its_validated_round_trip(name):
    """Plan records are built without pydantic's validation (core.records.trusted): each must be exactly what
    validating the plan file gives back, field by field and type by type, break-even rows included."""
    plan = solve_inputs(load_inputs(ROOT / "workloads" / f"{name}.yaml"))
    assert any(w.break_even for w in plan.workloads) and any(w.compounding for w in plan.workloads)
    read = Plan.model_validate_json(plan.to_json(full=True))
    assert read == plan
    assert read.to_json(full=True) == plan.to_json(full=True)


def test_a_plan_file_reads_back_as_the_plan(tmp_path, tiny_workloads, tiny_catalog):
    plan = solve_dicts(tiny_workloads, tiny_catalog)
    assert isinstance(plan.inputs, InputFiles) and plan.inputs.catalog == "tiny"
    assert plan.plan_version == PLAN_VERSION
    path = tmp_path / "tiny.plan.json"
    path.write_text(plan.to_json(full=True), encoding="utf-8")
    assert read_plan(path) == plan
    assert plan.workload("agent").id == "agent"


def test_a_newer_plan_files_unknown_keys_are_ignored(tmp_path, tiny_workloads, tiny_catalog):
    plan = solve_dicts(tiny_workloads, tiny_catalog)
    data = json.loads(plan.to_json(full=True))
    data["added_later"] = {"x": 1}
    data["workloads"][0]["also_new"] = True
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    assert read_plan(path) == plan


@pytest.mark.parametrize(
    "content, where, words",
    [
        (None, "", "file not found"),
        ("{not json", "", "not valid JSON"),
        ('{"hello": 1}', "plan_version", "not a planner plan file (no plan_version)"),
        ("[1, 2]", "plan_version", "not a planner plan file"),
        ('{"plan_version": 2}', "plan_version", "unsupported plan version 2, expected 1"),
        ('{"plan_version": 1, "status": "optimal"}', "name", "required field is missing"),
    ],
)
def test_read_plan_errors_name_the_file_and_field(tmp_path, content, where, words):
    path = tmp_path / "p.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(InputError) as err:
        read_plan(path)
    line = str(err.value)
    assert line.startswith(str(path)) and words in line, line
    if where:
        assert f": {where}" in line, line


def test_read_plan_of_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "p.json"
    path.write_bytes(b'{"plan_version": "\xff"}')
    with pytest.raises(InputError, match="not UTF-8 text"):
        read_plan(path)


def test_a_plan_is_never_changed_once_built():
    """The review makes a new Plan from the assembled one (issue 26): no code writes into a Plan."""
    import pydantic

    import planner

    plan = planner.solve(planner.load_inputs(ROOT / "workloads" / "support.yaml"))
    with pytest.raises(pydantic.ValidationError):
        plan.status = "infeasible"
    assert plan.risks and plan.resilience  # the review's figures are in the plan it returned
