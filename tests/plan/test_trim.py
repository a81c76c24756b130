"""The plan file trimmed by default (planner.plan.trim, SPEC v1.9 and v1.10 "Plan size"): what it keeps, that
it says so, that every reader of plan files works on it as on the full one, and that --full writes everything."""

import json

import pytest
from conftest import ROOT

from planner.core import files
from planner.core.errors import InputError
from planner.market.gateway_ids import load_sources
from planner.model.load import load_inputs
from planner.outputs.gateway import to_litellm
from planner.outputs.report.render import render_plan_report
from planner.pipeline.solve import solve_inputs
from planner.plan.model import read_plan
from planner.plan.trim import CURVES_KEPT, REJECTED_KEPT, RUNNER_UPS_KEPT, charted, trimmed
from planner.review.compare import compare_plans


def _solved(workloads, folder):
    """The plan of a workloads file, its trimmed and its full file."""
    plan = solve_inputs(load_inputs(workloads))
    short, full = folder / "short.plan.json", folder / "full.plan.json"
    short.write_text(plan.to_json(), encoding="utf-8")
    full.write_text(plan.to_json(full=True), encoding="utf-8")
    return plan, short, full


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """real-support's plan (716 offerings: many rejected options per workload)."""
    return _solved(ROOT / "workloads" / "real-support.yaml", tmp_path_factory.mktemp("trim"))


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


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """The golden corpus's generated portfolio (200 workloads, most of them agent loops)."""
    return _solved(ROOT / "tests" / "golden" / "inputs" / "bench-200x50.yaml", tmp_path_factory.mktemp("trim-bench"))


def test_the_default_file_keeps_the_charted_curves_and_the_baselines_misses_and_counts_the_rest(bench):
    plan, short, full = bench
    data = json.loads(short.read_text())
    looped = [w for w in plan.workloads if w.compounding]
    kept = {w.id for w in charted(plan.workloads)}
    assert len(looped) > CURVES_KEPT == len(kept)
    assert min(w.cost for w in looped if w.id in kept) >= max(w.cost for w in looped if w.id not in kept)
    for w, x in zip(plan.workloads, data["workloads"]):
        assert x["compounding"] == (json.loads(w.compounding.model_dump_json()) if w.id in kept else None)
    assert data["compounding_omitted"] == len(looped) - CURVES_KEPT
    assert any(b.misses for b in plan.baselines) and any(not c.misses for b in plan.baselines for c in b.choices)
    for b, x in zip(plan.baselines, data["baselines"]):
        assert [c["workload"] for c in x["choices"]] == [c.workload for c in b.choices if c.misses]
        assert x.get("choices_omitted", 0) == sum(1 for c in b.choices if not c.misses)
        assert (x["total_cost"], x["misses"]) == (b.total_cost, b.misses)
    said = data["assumptions"][-1]
    assert "compounding_omitted counts the rest" in said and "choices_omitted counts the rest" in said
    assert read_plan(full) == plan and trimmed(read_plan(full)).to_json() == short.read_text()


def test_the_report_of_a_trimmed_file_shows_the_same_curves_and_baselines_as_the_plan_in_memory(bench):
    """The report charts exactly the curves the file keeps, lists only the baselines' misses, and its note
    on the curves left out holds for the trimmed file as for the whole plan."""
    plan, short, _ = bench

    def section(html: str, name: str) -> str:
        start = html.index(f'<section id="{name}">')
        return html[start : html.index("</section>", start)]

    whole, back = render_plan_report(plan), render_plan_report(read_plan(short))
    for name in ("compounding", "baselines"):
        assert section(whole, name) == section(back, name)
    looped = sum(1 for w in plan.workloads if w.compounding)
    assert f"<code>planner solve --full</code> writes the curves of all {looped} to the plan file" in back


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
