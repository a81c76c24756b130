"""Random small portfolios for the property tests (test_property, test_prune, test_frontier,
test_resolve, test_solve, test_warm): offerings, workloads and policies drawn from small sets of
round figures, and the settings every property test shares."""

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

VENDORS = ["v0", "v1", "v2"]
money = st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0])


@st.composite
def offerings(draw, i):
    off = {
        "id": f"o{i}",
        "model": f"m{i}",
        "vendor": draw(st.sampled_from(VENDORS)),
        "capability": float(draw(st.integers(40, 100))),
        "price": {"input": draw(money), "output": draw(money)},
        "speed": {
            "output_tps": float(draw(st.sampled_from([50, 150, 750, 1000, 2000]))),
            "ttft_s": draw(st.sampled_from([0.0, 0.2, 1.0])),
        },
    }
    if draw(st.booleans()):
        off["price"]["cached_input"] = draw(money)
    if draw(st.booleans()):
        off["speed"]["prefill_tps"] = float(draw(st.sampled_from([2000, 20000])))
    if draw(st.integers(0, 3)) == 0:
        off["capacity"] = {"tokens_per_minute": float(draw(st.sampled_from([2e4, 1e5, 1e6, 1e7])))}
    if draw(st.integers(0, 5)) == 0:
        off.setdefault("capacity", {})["requests_per_minute"] = float(draw(st.sampled_from([5, 50])))
    if draw(st.integers(0, 3)) == 0:
        off["host"] = draw(st.sampled_from(VENDORS))  # served by another company, or the vendor itself
    if draw(st.integers(0, 3)) == 0:
        off["thinking"] = draw(thinking())
    if draw(st.integers(0, 3)) == 0:
        mode = {
            "name": "high",
            "reasoning_factor": draw(st.sampled_from([0.5, 2.0, 4.0])),
            "capability": min(100.0, off["capability"] + draw(st.integers(0, 10))),
        }
        if draw(st.booleans()):
            mode["thinking"] = draw(thinking())
        if draw(st.integers(0, 2)) == 0:
            mode["speed"] = {"output_tps": float(draw(st.sampled_from([50, 750]))), "ttft_s": 0.5}
        off["modes"] = [mode]
    if draw(st.integers(0, 4)) == 0:
        off["context_window"] = draw(st.sampled_from([2000, 8000]))
    if draw(st.integers(0, 3)) == 0:  # speeds measured at several prompt lengths (SPEC v1.8)
        off["speed"] = {**off["speed"], **draw(by_input(off["speed"]))}
    if draw(st.integers(0, 4)) == 0:
        off["regions"] = draw(st.sampled_from([["us"], ["eu"], ["us", "eu"]]))
    return off


@st.composite
def by_input(draw, speed: dict):
    """A speed's prompt length and its medians at one or two other lengths: output speed slower and the
    first token later at longer prompts, as measured, or the other way round; sometimes one figure only."""
    at = draw(st.sampled_from([1000, 3000]))
    others = draw(st.lists(st.sampled_from([100, 500, 10000, 100000]), min_size=1, max_size=2, unique=True))
    out = {}
    for tokens in sorted(others):
        longer = tokens > at
        entry = {}
        if draw(st.integers(0, 3)):
            entry["output_tps"] = speed["output_tps"] * draw(
                st.sampled_from([0.5, 0.8, 1.0, 1.25]) if longer else st.sampled_from([1.0, 1.1, 0.9])
            )
        if draw(st.integers(0, 3)) or not entry:
            entry["ttft_s"] = speed["ttft_s"] * draw(st.sampled_from([1.0, 2.0])) + (
                draw(st.sampled_from([0.0, 0.5, 3.0])) if longer else 0.0
            )
        out[tokens] = entry
    return {"input_tokens": at, "by_input": out}


def thinking():
    return st.one_of(
        st.builds(lambda x: {"seconds": x}, st.sampled_from([0.0, 0.5, 4.0])),
        st.builds(lambda x: {"tokens": x}, st.sampled_from([100.0, 2000.0])),
    )


@st.composite
def workloads(draw, i):
    w = {
        "id": f"w{i}",
        "tasks": float(draw(st.integers(100, 100000))),
        "turns": draw(st.integers(1, 6)),
        "tool_latency_s": draw(st.sampled_from([0.0, 0.5])),
        "tokens": {
            "input": float(draw(st.integers(0, 5000))),
            "output": float(draw(st.integers(10, 400))),
            "reasoning": float(draw(st.sampled_from([0, 0, 200, 600]))),
            "cached_input_share": draw(st.sampled_from([0.0, 0.5])),
        },
        "latency": {},
        "capability": {},
    }
    budget = draw(st.sampled_from([None, None, 5.0, 10.0, 30.0, 120.0]))
    if budget is not None:
        w["latency"]["budget_s"] = budget
        w["latency"]["within_budget_share"] = draw(st.sampled_from([1.0, 1.0, 0.5, 0.9]))
        w["latency"]["streaming"] = draw(st.booleans())
    floor = draw(st.sampled_from([None, None, 50.0, 70.0, 85.0, "like"]))
    if floor == "like":  # the score of the first offering's model, stated relative to it
        w["capability"]["min"] = {"like": "m0", "times": draw(st.sampled_from([0.8, 1.0]))}
    elif floor is not None:
        w["capability"]["min"] = floor
    mean = draw(st.sampled_from([None, None, None, 60.0, 80.0]))
    if mean is not None:
        w["capability"]["mean_min"] = mean
    if draw(st.integers(0, 4)) == 0:
        w["max_vendor_share"] = draw(st.sampled_from([0.5, 0.8]))
    if draw(st.integers(0, 3)) == 0:
        w["max_options"] = draw(st.integers(1, 2))
    if draw(st.booleans()):
        w["peak_tasks_per_minute"] = float(draw(st.sampled_from([1, 10, 100])))
    if draw(st.integers(0, 5)) == 0:
        w["regions"] = ["us"]
    return w


@st.composite
def portfolios(draw):
    n_off = draw(st.integers(2, 6))
    cat = {"catalog": "random", "offerings": [draw(offerings(i)) for i in range(n_off)]}
    ws = {
        "name": "random",
        "period": "month",
        "workloads": [draw(workloads(i)) for i in range(draw(st.integers(1, 3)))],
    }
    policy = {}
    if draw(st.integers(0, 3)) == 0:
        policy["max_vendor_share"] = draw(st.sampled_from([0.5, 0.7, 0.9]))
    if draw(st.integers(0, 4)) == 0:
        policy["vendor_share"] = {draw(st.sampled_from(VENDORS)): draw(st.sampled_from([0.3, 0.6]))}
    if draw(st.integers(0, 4)) == 0:
        policy["budget"] = float(draw(st.sampled_from([10, 10000, 1000000])))
    if draw(st.integers(0, 5)) == 0:
        policy["deny_vendors"] = ["v2"]
    if draw(st.integers(0, 2)) == 0:
        policy["share_of"] = draw(st.sampled_from(["tokens", "tasks", "spend"]))
    if draw(st.integers(0, 5)) == 0:
        policy["vendor_spend"] = {draw(st.sampled_from(VENDORS)): float(draw(st.sampled_from([50, 5000])))}
    ws["policy"] = policy
    return ws, cat


# Derandomized so that CI runs the same examples every time; set PLANNER_EXPLORE=N to search N fresh
# random examples per test locally. `make test` runs a fifteenth of each property test's examples (at
# least 8); `make test-deep` (PLANNER_DEEP=1) runs them all.
EXPLORE = int(os.environ.get("PLANNER_EXPLORE", "0"))
DEEP = os.environ.get("PLANNER_DEEP", "") == "1"


def examples(full: int) -> int:
    """How many examples a property test runs: `full` in the deep run, a fifteenth of it in `make test`."""
    return EXPLORE or (full if DEEP else max(8, full // 15))


SETTINGS = settings(
    max_examples=examples(200), derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


FALLBACK = {
    "id": "fallback",
    "model": "big",
    "vendor": "vf",
    "capability": 100.0,
    "speed": {"output_tps": 5000.0, "ttft_s": 0.0},
    "regions": ["us", "eu"],
}


def with_fallback(cat, price=20.0):
    """A fast, capable, dear offering makes most portfolios feasible, so the mixes get exercised."""
    cat["offerings"].append({**FALLBACK, "price": {"input": price, "output": price}})
    return cat


def _percentiles(speed: dict, draw) -> dict:
    """Measured percentiles around a speed's medians: output speed lower at the low percentiles, the
    first token later at the high ones; sometimes only one of the two figures."""
    tps, ttft = speed["output_tps"], speed["ttft_s"]
    out = {}
    if draw(st.integers(0, 3)):
        out["output_tps"] = {5: tps * 0.5, 25: tps * 0.8, 75: tps * 1.1, 95: tps * 1.25}
    if draw(st.integers(0, 3)):
        out["ttft_s"] = {5: ttft * 0.8, 25: ttft * 0.9, 75: ttft * 1.5, 95: ttft * 3.0 + 0.5}
    return out


@st.composite
def samples(draw):
    """A distribution's sample tasks: (weight, calls, input, output, reasoning, cached_input) rows."""
    rows = []
    for _ in range(draw(st.integers(1, 5))):
        inp = float(draw(st.sampled_from([0, 500, 3000])))
        rows.append(
            (
                float(draw(st.sampled_from([0.5, 1, 2, 3]))),
                float(draw(st.integers(1, 4))),
                inp,
                float(draw(st.sampled_from([10, 100, 400, 1500]))),
                float(draw(st.sampled_from([0, 0, 200]))),
                draw(st.sampled_from([0.0, inp / 2])),
            )
        )
    return rows


@st.composite
def sampled_portfolios(draw):
    """portfolios() with traffic as distributions and budgets at percentiles (SPEC "Traffic as a
    distribution"): some offerings (and modes with their own speed) measure percentiles, some workloads
    carry sample tasks, some with a budget are judged at a percentile. Returns (ws, cat, samples), samples
    by file name."""
    ws, cat = draw(portfolios())
    for off in cat["offerings"]:
        for speed in [off["speed"]] + [m["speed"] for m in off.get("modes", []) if "speed" in m]:
            if draw(st.integers(0, 2)):
                got = _percentiles(speed, draw)
                if got:
                    speed["percentiles"] = got
    tables = {}
    for w in ws["workloads"]:
        if draw(st.integers(0, 2)):
            name = f"{w['id']}.csv"
            w["distribution"] = name
            tables[name] = draw(samples())
            if draw(st.integers(0, 2)):  # a share of the tasks within budget: rows of fractional shares
                w["latency"].setdefault("budget_s", draw(st.sampled_from([5.0, 10.0, 30.0])))
                w["latency"]["within_budget_share"] = draw(st.sampled_from([0.5, 0.8, 0.9]))
        if w["latency"].get("budget_s") is not None and draw(st.booleans()):
            w["latency"]["percentile"] = draw(st.sampled_from([50, 75, 90, 99]))
    return ws, cat, tables
