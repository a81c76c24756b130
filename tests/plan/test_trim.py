"""The plan file trimmed by default (planner.plan.trim, SPEC v1.9 "Plan size"): what it keeps, that it says
so, that every reader of plan files works on it as on the full one, and that --full writes everything."""

import json

import pytest
from conftest import ROOT

from planner.core import files
from planner.core.errors import InputError
from planner.market.gateway_ids import load_sources
from planner.model.load import load_inputs
from planner.outputs.gateway import to_litellm
from planner.pipeline.solve import solve_inputs
from planner.plan.model import read_plan
from planner.plan.trim import REJECTED_KEPT, RUNNER_UPS_KEPT, trimmed
from planner.review.compare import compare_plans


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """real-support's plan (716 offerings: many rejected options per workload), its trimmed and full files."""
    plan = solve_inputs(load_inputs(ROOT / "workloads" / "real-support.yaml"))
    folder = tmp_path_factory.mktemp("trim")
    short, full = folder / "short.plan.json", folder / "full.plan.json"
    short.write_text(plan.to_json(), encoding="utf-8")
    full.write_text(plan.to_json(full=True), encoding="utf-8")
    return plan, short, full


def test_the_default_file_keeps_the_cheapest_rejections_and_the_runner_ups_and_counts_the_rest(real):
    plan, short, _ = real
    data = json.loads(short.read_text())
    assert any(w.rejected_omitted == 0 and len(w.rejected) > REJECTED_KEPT for w in plan.workloads)
    for w, kept in zip(plan.workloads, data["workloads"]):
        if w.status == "ok":
            assert [r["offering"] for r in kept["rejected"]] == [r.offering for r in w.rejected[:REJECTED_KEPT]]
        assert kept.get("rejected_omitted", 0) == len(w.rejected) - len(kept["rejected"])
        assert kept.get("break_even_omitted", 0) == len(w.break_even) - len(kept["break_even"])
        assert [b for b in kept["break_even"] if b["used"]] == [
            json.loads(b.model_dump_json()) for b in w.break_even if b.used
        ]
        assert len({(b["offering"], b["mode"]) for b in kept["break_even"] if not b["used"]}) <= RUNNER_UPS_KEPT
    assert "planner solve --full writes them all" in data["assumptions"][-1]


def test_the_full_file_is_the_plan_and_omits_nothing(real):
    plan, _, full = real
    text = full.read_text()
    assert "rejected_omitted" not in text and "break_even_omitted" not in text
    assert read_plan(full) == plan
    assert trimmed(read_plan(full)).to_json(full=True) == plan.to_json()  # trimming a full file read back


def test_readers_of_plan_files_work_on_the_trimmed_file_as_on_the_full_one(real):
    """export (its fallbacks are the runner-ups kept), compare and solve --from read the trimmed file."""
    _, short, full = real
    a, b = read_plan(short), read_plan(full)
    src = load_sources(None)
    assert to_litellm(a, src) == to_litellm(b, src)
    assert compare_plans(b, a).workloads == compare_plans(b, b).workloads
    assert [w.allocations for w in a.workloads] == [w.allocations for w in b.workloads]


def test_a_plan_larger_than_the_input_limit_reads_back(real, monkeypatch):
    """The planner reads back every plan it writes: plan files have their own, higher limit (files.max_plan_bytes)
    and a plan is refused at writing when over it (never written unreadable)."""
    plan, _, full = real
    size = full.stat().st_size
    monkeypatch.setenv("PLANNER_MAX_FILE_MB", str(size / 4 / 2**20))  # the input limit: a quarter of the file
    assert files.max_input_bytes() < size <= files.max_plan_bytes()
    assert read_plan(full) == plan
    with pytest.raises(InputError, match="limit for input files"):
        files.read_input(full)
    monkeypatch.setenv("PLANNER_MAX_FILE_MB", str(size / 64 / 2**20))  # now even the plan limit is below it
    with pytest.raises(InputError, match="limit for plan files"):
        read_plan(full)
    with pytest.raises(InputError, match="limit for plan files"):
        files.plan_text(plan.to_json(full=True), "x.plan.json")
