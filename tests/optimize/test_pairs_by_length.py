"""SPEC "Speeds by prompt length": each workload is judged at the speeds measured nearest its own input
tokens per call, checked by hand and against the independent reference (tests/reference.py)."""

import math

import numpy as np
import pytest
from conftest import catalog_of, make_inputs, offering, workload, workloads_of
from hypothesis import given
from hypothesis import strategies as st
from reference import pairs as reference_pairs
from strategies import SETTINGS, by_input, sampled_portfolios

from planner.optimize.options import at_lengths
from planner.optimize.pairs import build_pairs

# An offering measured at 10,000 input tokens (its output_tps and ttft_s) and at 1,000 and 100,000:
#   input tokens   1,000   10,000   100,000
#   output tok/s     500      400       200
#   first token s    0.2      0.6       4.0
MEASURED = {
    "output_tps": 400.0,
    "ttft_s": 0.6,
    "input_tokens": 10000,
    "by_input": {1000: {"output_tps": 500.0, "ttft_s": 0.2}, 100000: {"output_tps": 200.0, "ttft_s": 4.0}},
}


def latency(inp, speed=MEASURED, out=1000.0, **extra):
    """One call of `inp` input and `out` output tokens on the measured offering."""
    cat = catalog_of(offering("m", speed=speed, **extra))
    inputs = make_inputs(workloads_of(workload("w", inp=inp, out=out)), cat)
    return float(build_pairs(inputs.workloads, inputs.catalog).latency_s[0, 0])


@pytest.mark.parametrize(
    "inp, ttft, tps",
    [
        (1000, 0.2, 500.0),  # a measured length: its own figures
        (10000, 0.6, 400.0),  # input_tokens: output_tps and ttft_s themselves
        (100000, 4.0, 200.0),
        # 3,000 tokens: log10(3) = 0.47712 of the way from 1,000 to 10,000
        (3000, 0.2 + 0.47712125 * 0.4, 500.0 - 0.47712125 * 100.0),
        # 31,623 tokens (10^4.5): halfway from 10,000 to 100,000 in log
        (10**4.5, 0.6 + 0.5 * 3.4, 400.0 - 0.5 * 200.0),
        (100, 0.2, 500.0),  # below the shortest measured length: its figures
        (0, 0.2, 500.0),
        (1e6, 4.0, 200.0),  # above the longest: its figures
    ],
)
def test_a_call_is_timed_at_its_own_prompt_length(inp, ttft, tps):
    assert latency(inp) == pytest.approx(ttft + 1000 / tps, rel=1e-7)


def test_one_length_or_none_is_the_figures_as_before():
    plain = {"output_tps": 400.0, "ttft_s": 0.6}
    for speed in (plain, {**plain, "input_tokens": 10000}):
        for inp in (0, 1000, 10000, 200000):
            assert latency(inp, speed) == pytest.approx(0.6 + 1000 / 400.0)


def test_a_figure_measured_at_one_length_stays_put_while_the_other_moves():
    """A length may carry only one of the two figures (the other was not measured there)."""
    speed = {**MEASURED, "by_input": {1000: {"ttft_s": 0.2}}}
    assert latency(1000, speed) == pytest.approx(0.2 + 1000 / 400.0)  # output speed measured at 10k only
    assert latency(100000, speed) == pytest.approx(0.6 + 1000 / 400.0)  # nor is the first token beyond 10k


def test_prefill_reads_only_the_input_beyond_the_longest_measured_first_token():
    """A first-token time measured at a prompt length already reads that prompt: prefill_tps adds only the
    tokens beyond the longest length measured (100,000 here), never the whole input again."""
    speed = {**MEASURED, "prefill_tps": 50000.0}
    assert latency(3000, speed) == pytest.approx(latency(3000))  # inside the measured lengths: nothing added
    assert latency(100000, speed) == pytest.approx(4.0 + 1000 / 200.0)
    assert latency(300000, speed) == pytest.approx(4.0 + 200000 / 50000.0 + 1000 / 200.0)
    one = {"output_tps": 400.0, "ttft_s": 0.6, "input_tokens": 10000, "prefill_tps": 50000.0}
    assert latency(2000, one) == pytest.approx(0.6 + 1000 / 400.0)  # measured at 10k: already read
    assert latency(60000, one) == pytest.approx(0.6 + 50000 / 50000.0 + 1000 / 400.0)
    v1 = {"output_tps": 400.0, "ttft_s": 0.6, "prefill_tps": 50000.0}  # no length stated: ttft_s is fixed
    assert latency(60000, v1) == pytest.approx(0.6 + 60000 / 50000.0 + 1000 / 400.0)


def test_at_a_percentile_the_measured_spread_moves_with_the_median():
    """Percentiles are measured at input_tokens: at another length each is scaled by the median there over
    the median at input_tokens. At 1,000 tokens and the 95th percentile: the 5th percentile of speed,
    300 x 500/400 = 375 tokens/s, and the 95th of the first token, 1.2 x 0.2/0.6 = 0.4 s."""
    speed = {**MEASURED, "percentiles": {"output_tps": {5: 300.0}, "ttft_s": {95: 1.2}}}
    cat = catalog_of(offering("m", speed=speed))
    ws = workloads_of(workload("w", inp=1000, out=1000, latency={"budget_s": 60, "percentile": 95}))
    inputs = make_inputs(ws, cat)
    assert build_pairs(inputs.workloads, inputs.catalog).latency_s[0, 0] == pytest.approx(0.4 + 1000 / 375.0)


def test_a_mode_with_its_own_speed_has_its_own_lengths():
    modes = [{"name": "plain", "speed": {"output_tps": 100.0, "ttft_s": 1.0}}, {"name": "inherits"}]
    cat = catalog_of(offering("m", speed=MEASURED, modes=modes))
    inputs = make_inputs(workloads_of(workload("w", inp=1000, out=1000)), cat)
    got = build_pairs(inputs.workloads, inputs.catalog).latency_s[0]
    assert got.tolist() == pytest.approx([0.2 + 2.0, 1.0 + 10.0, 0.2 + 2.0])


def test_sample_tasks_are_each_timed_at_their_own_prompt_length():
    """Three sample tasks of 1,000, 10,000 and 100,000 input tokens and 1,000 output: 2.2 s, 3.1 s and
    9 s; within a 5 s budget, two thirds of them (by weight)."""
    cat = catalog_of(offering("m", speed=MEASURED))
    ws = workloads_of(
        workload("w", inp=10000, out=1000, latency={"budget_s": 5.0, "within_budget_share": 0.5})
        | {"distribution": "t.csv"}
    )
    rows = [(1, 1, 1000, 1000, 0, 0), (1, 1, 10000, 1000, 0, 0), (1, 1, 100000, 1000, 0, 0)]
    inputs = make_inputs(ws, cat, {"t.csv": rows})
    p = build_pairs(inputs.workloads, inputs.catalog, distributions=inputs.distributions)
    assert p.within_share[0, 0] == pytest.approx(2 / 3) and p.need_s[0, 0] == pytest.approx(4.0 + 1000 / 200.0)


@st.composite
def measured(draw):
    """Lengths (ascending, distinct) and a figure at each."""
    lengths = sorted(draw(st.sets(st.integers(1, 10**9), min_size=2, max_size=5)))
    values = draw(st.lists(st.floats(0.001, 1e5), min_size=len(lengths), max_size=len(lengths)))
    return tuple(float(x) for x in lengths), tuple(values)


@SETTINGS
@given(measured(), st.lists(st.floats(0, 2e9), min_size=2, max_size=40))
def test_interpolation_is_monotone_between_two_measured_lengths(points, inputs):
    """Between two neighbouring measured lengths the figure runs from one measured value to the next
    without turning back; outside them it is the nearest measured value; at them, exactly theirs."""
    lengths, values = points
    xs = np.array(sorted(inputs))
    got = at_lengths([points], np.array([values[0]]), xs)[:, 0]
    for (a, ya), (b, yb) in zip(zip(lengths, values), list(zip(lengths, values))[1:]):
        inside = (xs >= a) & (xs <= b)
        seg = got[inside]
        assert ((seg >= min(ya, yb)) & (seg <= max(ya, yb))).all()
        steps = np.diff(seg)
        assert (steps >= 0).all() if yb >= ya else (steps <= 0).all()
    assert (got[xs <= lengths[0]] == values[0]).all() and (got[xs >= lengths[-1]] == values[-1]).all()
    exact = at_lengths([points], np.array([values[0]]), np.array(lengths))[:, 0]
    assert exact.tolist() == list(values)


@SETTINGS
@given(sampled_portfolios(), st.data())
def test_every_pair_is_timed_as_the_reference_times_it(portfolio, data):
    """Every offering measured at several prompt lengths (some with percentiles, some workloads with sample
    tasks or a percentile): each pair's latency and share of sample tasks within budget as the independent
    reference computes them."""
    ws, cat, samples = portfolio
    for off in cat["offerings"]:
        off["speed"] = {**off["speed"], **data.draw(by_input(off["speed"]))}
    inputs = make_inputs(ws, cat, samples)
    mine = build_pairs(inputs.workloads, inputs.catalog, distributions=inputs.distributions)
    ref = reference_pairs(ws, cat, samples)
    for w, row in enumerate(ref):
        for o, pair in enumerate(row):
            assert math.isclose(mine.latency_s[w, o], pair.latency, rel_tol=1e-9, abs_tol=1e-12), (w, o)
            assert math.isclose(mine.within_share[w, o], pair.frac, rel_tol=1e-9, abs_tol=1e-12), (w, o)
