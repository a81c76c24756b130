"""SPEC section 3: the arithmetic of one workload on one option, checked by hand."""

import numpy as np
import pytest
from conftest import catalog_of, make_inputs, offering, workload, workloads_of

from planner.optimize.pairs import build_pairs


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
    from planner.model.schema import Catalog, RelativeFloor, floor_value

    cat = Catalog.model_validate(
        catalog_of(offering("o0", capability=40) | {"model": "m0", "modes": [{"name": "high", "capability": 41}]})
    )
    assert floor_value(RelativeFloor(like="m0"), "overall", cat) == 41
    assert floor_value(RelativeFloor(like="o0"), "overall", cat) == 40  # an offering id: its default mode
    assert floor_value(RelativeFloor(like="o0", mode="high"), "overall", cat) == 41


# ----------------------------------------------------------------------------- latency at a percentile
#
# An offering measured at 300 tokens/s and 1.0 s to the first token (the medians), with
#   output speed: p5 100, p25 200, p75 400, p95 600      first token: p5 0.5, p25 0.8, p75 1.5, p95 3.0
# At the 90th percentile of latency: the 10th percentile of speed, 100 + (10 - 5) / (25 - 5) x (200 - 100)
# = 125 tokens/s, and the 90th of the first token, 1.5 + (90 - 75) / (95 - 75) x (3.0 - 1.5) = 2.625 s.

MEASURED = {
    "output_tps": 300.0,
    "ttft_s": 1.0,
    "percentiles": {
        "output_tps": {5: 100.0, 25: 200.0, 75: 400.0, 95: 600.0},
        "ttft_s": {5: 0.5, 25: 0.8, 75: 1.5, 95: 3.0},
    },
}


def at(percentile, **extra):
    """One 500-token answer on the measured offering and on one without percentiles (200 tokens/s, 0.5 s),
    judged at `percentile` (None: the medians), with a 5 s budget."""
    cat = catalog_of(offering("measured", speed=MEASURED, **extra), offering("plain", tps=200, ttft=0.5))
    latency = {"budget_s": 5.0} | ({} if percentile is None else {"percentile": percentile})
    return table(workloads_of(workload("w", inp=0, out=500, latency=latency)), cat)


def test_percentile_speeds_are_interpolated_between_the_measured_points():
    from planner.optimize.pairs import at_percentile

    points = [((5.0, 25.0, 50.0, 75.0, 95.0), (100.0, 200.0, 300.0, 400.0, 600.0)), None]
    median = np.array([300.0, 42.0])
    for q, want, beyond in [
        (10, 125.0, False),  # a quarter of the way from p5 to p25
        (25, 200.0, False),  # a measured point
        (40, 260.0, False),  # 200 + 15/25 x 100
        (50, 300.0, False),  # the median itself
        (90, 550.0, False),  # 400 + 15/20 x 200
        (95, 600.0, False),
        (99, 600.0, True),  # beyond the last measured point: its value, flagged
        (1, 100.0, True),
    ]:
        value, missing, past = at_percentile(points, median, q)
        assert value[0] == pytest.approx(want) and past[0] == beyond, q
        assert value[1] == 42.0 and missing.tolist() == [False, True] and not past[1]  # no points: the median


def test_a_budget_at_the_90th_percentile_judges_the_slow_calls():
    p90, median = at(90), at(None)
    assert p90.latency_s[0, 0] == pytest.approx(2.625 + 500 / 125)  # 6.625 s: over the 5 s budget
    assert median.latency_s[0, 0] == pytest.approx(1.0 + 500 / 300)  # 2.67 s: within it
    assert p90.reasons(0, 0) == ["latency 6.625 s > budget 5 s"] and median.eligible[0, 0]
    assert p90.latency_s[0, 1] == median.latency_s[0, 1] == pytest.approx(0.5 + 500 / 200)  # no data: the median
    assert (p90.cost_per_task == median.cost_per_task).all()  # a percentile is about time, not tokens


def test_the_median_percentile_is_the_medians():
    assert np.array_equal(at(50).latency_s, at(None).latency_s)


def test_measured_thinking_takes_longer_at_slow_speed_and_bills_the_same_tokens():
    """Two seconds of thinking measured at the median speed are 600 tokens; at the 10th percentile of
    speed (125 tokens/s) they take 4.8 s, and are billed as the same 600 tokens."""
    p90, median = at(90, thinking={"seconds": 2.0}), at(None, thinking={"seconds": 2.0})
    assert p90.reasoning[0, 0] == median.reasoning[0, 0] == pytest.approx(600.0)
    assert p90.latency_s[0, 0] == pytest.approx(2.625 + (600 + 500) / 125)
    assert p90.cost_per_task[0, 0] == median.cost_per_task[0, 0]


def test_a_mode_is_judged_at_its_own_speeds_percentiles():
    own = {"output_tps": 100.0, "ttft_s": 2.0, "percentiles": {"output_tps": {5: 50.0}, "ttft_s": {95: 4.0}}}
    modes = [{"name": "fast-path", "speed": own}, {"name": "inherits"}]
    p = at(95, modes=modes)
    assert p.options.mode[:3] == ["default", "fast-path", "inherits"]
    assert p.latency_s[0, 1] == pytest.approx(4.0 + 500 / 50.0)  # its own p5 speed and p95 first token
    assert p.latency_s[0, 2] == p.latency_s[0, 0] == pytest.approx(3.0 + 500 / 100.0)  # the offering's


def test_sample_tasks_are_each_judged_at_the_percentile_speeds(tmp_path):
    """A distribution and a percentile together: each sample task at the percentile's speeds."""
    from planner.model.distribution import Distribution

    cat = catalog_of(offering("measured", speed=MEASURED))
    ws = workloads_of(
        workload("w", inp=0, out=500, latency={"budget_s": 10.0, "within_budget_share": 0.5, "percentile": 90})
        | {"distribution": "t.csv"}
    )
    inputs = make_inputs(ws, cat, {"t.csv": [(1, 1, 0, 500, 0, 0), (1, 2, 0, 500, 0, 0), (2, 1, 0, 1000, 0, 0)]})
    p = build_pairs(inputs.workloads, inputs.catalog, distributions=inputs.distributions)
    # at 125 tokens/s and 2.625 s a call: 6.625 s in, 13.25 s out, 10.625 s out: a quarter of the weight in
    assert p.within_share[0, 0] == 0.25 and p.need_s[0, 0] == pytest.approx(13.25)
    assert isinstance(inputs.distributions["w"], Distribution)


def test_percentiles_out_of_order_or_at_the_median_are_refused():
    from planner.core.errors import InputError

    bad = {**MEASURED, "percentiles": {"output_tps": {5: 350.0}}}  # the 5th above the median 300
    with pytest.raises(InputError, match=r"the median \(300\) is below the 5th percentile \(350\)"):
        table(workloads_of(workload("w")), catalog_of(offering("x", speed=bad)))
    with pytest.raises(InputError, match="the median .50. is the speed figure itself"):
        table(
            workloads_of(workload("w")),
            catalog_of(offering("x", speed={**MEASURED, "percentiles": {"ttft_s": {50: 1}}})),
        )


def test_a_percentile_without_a_budget_is_an_input_error():
    from planner.core.errors import InputError

    for latency in ({"percentile": 90}, {"threshold": "background", "percentile": 90}):
        with pytest.raises(InputError, match="a percentile needs a latency budget"):
            make_inputs(workloads_of(workload("w", latency=latency)), catalog_of(offering("x")))
