"""SPEC section 3: the arithmetic of one workload on one option, checked by hand."""

import numpy as np
import pytest
from conftest import catalog_of, make_inputs, offering, workload, workloads_of

from planner.pairs import build_pairs


def table(ws, cat):
    inputs = make_inputs(ws, cat)
    return build_pairs(inputs.workloads, inputs.catalog)


def test_ten_turn_task_two_minutes_on_gpu_seven_seconds_wafer_scale():
    # the essay: ten turns of ~560 generated tokens each
    cat = catalog_of(offering("gpu", tps=50), offering("wafer", tps=750))
    ws = workloads_of(
        workload("agent", turns=10, inp=3000, out=150, tokens=None)
        | {"tokens": {"input": 3000, "output": 150, "reasoning": 410}}
    )
    p = table(ws, cat)
    gpu, wafer = p.latency_s[0]
    assert gpu == pytest.approx(112.0)  # 10 x 560 / 50: near two minutes
    assert 7.0 <= wafer <= 8.0  # 10 x 560 / 750 = 7.47 s
    assert gpu / wafer == pytest.approx(15.0)


def test_agentic_request_wafer_inside_ten_seconds_gpu_outside():
    # 10,000 input tokens, full reasoning, 500 output; prefill and first-token time count too
    cat = catalog_of(
        offering("gpu", tps=50, ttft=0.8, speed=None)
        | {"speed": {"output_tps": 50, "ttft_s": 0.8, "prefill_tps": 5000}},
        offering("wafer") | {"speed": {"output_tps": 750, "ttft_s": 0.25, "prefill_tps": 20000}},
    )
    ws = workloads_of(
        {
            "id": "req",
            "tasks": 1,
            "tokens": {"input": 10000, "output": 500, "reasoning": 3000},
            "latency": {"threshold": "attentive"},
        }
    )
    p = table(ws, cat)
    gpu, wafer = p.latency_s[0]
    assert gpu == pytest.approx(0.8 + 2.0 + 3500 / 50)
    assert wafer == pytest.approx(0.25 + 0.5 + 3500 / 750)
    assert wafer < 10 < gpu
    assert list(p.eligible[0]) == [False, True]
    assert p.reasons(0, 0) == [f"latency {gpu:.4g} s > budget 10 s"]


def test_cost_with_cache_reasoning_and_turns():
    cat = catalog_of(
        offering("o", price_in=2.0, price_out=10.0) | {"price": {"input": 2.0, "output": 10.0, "cached_input": 0.5}}
    )
    ws = workloads_of(
        {
            "id": "w",
            "tasks": 10,
            "turns": 3,
            "tokens": {"input": 1000, "output": 100, "reasoning": 200, "cached_input_share": 0.4},
        }
    )
    p = table(ws, cat)
    call = (1000 * 0.6 * 2.0 + 1000 * 0.4 * 0.5 + 300 * 10.0) / 1e6
    assert p.call_cost[0, 0] == pytest.approx(call)
    assert p.cost_per_task[0, 0] == pytest.approx(3 * call)
    assert p.task_tokens[0, 0] == 3 * 1300


def test_cached_price_defaults_to_input_price():
    cat = catalog_of(offering("o", price_in=3.0, price_out=0.0))
    ws = workloads_of({"id": "w", "tasks": 1, "tokens": {"input": 1e6, "output": 0, "cached_input_share": 0.5}})
    assert table(ws, cat).cost_per_task[0, 0] == pytest.approx(3.0)


def test_streaming_ends_at_first_token_of_final_call():
    cat = catalog_of(
        offering("o", tps=100, ttft=0.5) | {"speed": {"output_tps": 100, "ttft_s": 0.5, "prefill_tps": 1000}}
    )
    ws = workloads_of(
        {
            "id": "w",
            "tasks": 1,
            "turns": 3,
            "tool_latency_s": 1.0,
            "tokens": {"input": 500, "output": 100},
            "latency": {"budget_s": 5, "streaming": True},
        }
    )
    p = table(ws, cat)
    call = 0.5 + 0.5 + 1.0
    assert p.call_s[0, 0] == pytest.approx(call)
    assert p.latency_s[0, 0] == pytest.approx(2 * (call + 1.0) + 0.5 + 0.5)


def test_modes_scale_reasoning_and_inherit_capability():
    cat = catalog_of(
        offering("o", tps=100, capability=None)
        | {
            "capability": {"overall": 80, "coding": 70},
            "modes": [{"name": "high", "reasoning_factor": 3.0, "capability": {"coding": 90}}],
        }
    )
    ws = workloads_of(
        {
            "id": "w",
            "tasks": 1,
            "tokens": {"input": 0, "output": 100, "reasoning": 100},
            "capability": {"metric": "coding", "min": 80},
        }
    )
    p = table(ws, cat)
    assert p.options.mode == ["default", "high"]
    assert p.reasoning[0].tolist() == [100, 300]
    assert p.latency_s[0].tolist() == pytest.approx([2.0, 4.0])
    assert p.capability[0].tolist() == [70, 90]
    assert p.options.capability["overall"].tolist() == [80, 80]
    assert p.eligible[0].tolist() == [False, True]
    assert p.reasons(0, 0) == ["coding 70 < floor 80"]


def test_every_rejection_reason_is_listed():
    cat = catalog_of(offering("o", vendor="bad", tps=10, capability=50, context_window=1000, regions=["us"]))
    ws = workloads_of(
        {
            "id": "w",
            "tasks": 1,
            "tokens": {"input": 2000, "output": 100},
            "latency": {"threshold": "immediate"},
            "capability": {"min": 70},
            "vendors": {"deny": ["bad"]},
            "regions": ["eu"],
        }
    )
    reasons = table(ws, cat).reasons(0, 0)
    assert reasons == [
        "vendor bad denied for this workload",
        "region: runs in us, needs one of eu",
        "context 2,100 tokens > window 1,000",
        "overall 50 < floor 70",
        "latency 10 s > budget 1 s",
    ]


def test_region_rules_policy_default_and_override():
    cat = catalog_of(offering("eu-only", regions=["eu"]), offering("nowhere"))
    ws = workloads_of(
        {"id": "a", "tasks": 1, "tokens": {"input": 1, "output": 1}},
        {"id": "b", "tasks": 1, "tokens": {"input": 1, "output": 1}, "regions": ["us"]},
        policy={"regions": ["eu"]},
    )
    p = table(ws, cat)
    assert p.region_ok.tolist() == [[True, False], [False, False]]
    assert p.reasons(1, 1) == ["region: unknown, needs one of us"]


def test_vendor_allow_and_policy_deny():
    cat = catalog_of(offering("a", vendor="x"), offering("b", vendor="y"), offering("c", vendor="z"))
    ws = workloads_of(
        {"id": "w", "tasks": 1, "tokens": {"input": 1, "output": 1}, "vendors": {"allow": ["x", "y"]}},
        policy={"deny_vendors": ["y"]},
    )
    p = table(ws, cat)
    assert p.vendor_ok[0].tolist() == [True, False, False]
    assert p.reasons(0, 1) == ["vendor y denied by policy"]
    assert p.reasons(0, 2) == ["vendor z not in allow list"]


def test_latency_over_budget_is_eligible_when_only_a_share_must_meet_it():
    cat = catalog_of(offering("slow", tps=1))
    ws = workloads_of(
        {
            "id": "w",
            "tasks": 1,
            "tokens": {"input": 1, "output": 100},
            "latency": {"budget_s": 1, "within_budget_share": 0.5},
        }
    )
    p = table(ws, cat)
    assert p.eligible[0, 0] and not p.within_budget[0, 0]


def test_peak_load_from_average_and_explicit():
    cat = catalog_of(offering("o"))
    ws = workloads_of(
        {"id": "avg", "tasks": 43200, "turns": 2, "tokens": {"input": 100, "output": 50}},
        {"id": "peak", "tasks": 1, "peak_tasks_per_minute": 7, "tokens": {"input": 100, "output": 50}},
        policy={"peak_factor": 2.0},
    )
    p = table(ws, cat)
    assert p.workloads.peak_tasks_per_minute.tolist() == [2.0, 7.0]
    assert p.peak_tpm[:, 0].tolist() == [2.0 * 300, 7.0 * 150]
    assert p.peak_rpm[:, 0].tolist() == [4.0, 7.0]
    assert p.workloads.peak_assumed.tolist() == [True, False]


def test_missing_metric_is_a_reason():
    cat = catalog_of(offering("o"))
    ws = workloads_of({"id": "w", "tasks": 1, "tokens": {"input": 1, "output": 1}, "capability": {"metric": "math"}})
    p = table(ws, cat)
    assert not p.eligible[0, 0]
    assert p.reasons(0, 0) == ["no 'math' capability score"]
    assert np.isnan(p.capability[0, 0])


def test_a_relative_floor_counts_the_modes_that_run_the_named_model():
    """A mode without a `model` of its own runs its offering's model: {like: m0} takes the highest
    score of m0 in any mode (hypothesis found the planner reading only the default mode's 40)."""
    from planner.schema import Catalog, RelativeFloor, floor_value

    cat = Catalog.model_validate(
        catalog_of(offering("o0", capability=40) | {"model": "m0", "modes": [{"name": "high", "capability": 41}]})
    )
    assert floor_value(RelativeFloor(like="m0"), "overall", cat) == 41
    assert floor_value(RelativeFloor(like="o0"), "overall", cat) == 40  # an offering id: its default mode
    assert floor_value(RelativeFloor(like="o0", mode="high"), "overall", cat) == 41
