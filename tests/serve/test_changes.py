"""The page's controls as scenario edits (planner.serve.changes): each change checked against the inputs,
a control given twice keeps its last value, and the list made into one scenario of ordinary edits."""

import pytest
from conftest import catalog_of, make_inputs, offering, workload, workloads_of

from planner.core.errors import InputError
from planner.model.scenarios import apply_scenario
from planner.serve.changes import check, label, parse_changes, scenario_of


def inputs():
    tiers = [{"name": "batch", "price": {"input": 0.5, "output": 1.0}, "window_s": 86400}]
    long = {"input": 3, "output": 3, "long_context": {"above": 200000, "input": 4, "output": 8}}
    cat = catalog_of(
        offering("a1", vendor="a", price_in=2, price_out=4, price_tiers=tiers),
        offering("a2", vendor="a", price_in=1, price_out=2) | {"price": {"input": 1, "output": 2, "cached_input": 0.1}},
        offering("b1", vendor="b", price_in=3, price_out=3) | {"price": long},
        offering("r1", vendor="router", host="router", served_by=["a", "b"]),
        offering("r2", vendor="router", host="router", served_by=["b"]),
        offering("c1", vendor="c"),
    )
    ws = workloads_of(
        workload("chat", latency={"budget_s": 10}, peak_tasks_per_minute=5),
        workload("batch", latency={"threshold": "background"}),
    )
    return make_inputs(ws, cat)


def applied(changes):
    base = inputs()
    parsed = parse_changes({"changes": changes})
    check(parsed, base)
    return apply_scenario(base, scenario_of(parsed, base), "changes")


def test_a_price_change_scales_every_price_the_company_bills():
    new = {o.id: o for o in applied([{"kind": "price", "company": "a", "percent": -50}]).catalog.offerings}
    assert (new["a1"].price.input, new["a1"].price.output) == (1, 2)
    assert (new["a1"].price_tiers[0].price.input, new["a1"].price_tiers[0].price.output) == (0.25, 0.5)
    assert (new["a2"].price.input, new["a2"].price.cached_input) == (0.5, 0.05)
    assert new["b1"].price.input == 3 and new["r1"].price.input == 1  # what others bill keeps its price
    new = {o.id: o for o in applied([{"kind": "price", "offering": "b1", "percent": 10}]).catalog.offerings}
    assert new["b1"].price.long_context.input == pytest.approx(4.4) and new["b1"].price.output == pytest.approx(3.3)


def test_outages_take_down_together_what_only_they_serve_behind_an_aggregator():
    ids = lambda changes: [o.id for o in applied(changes).catalog.offerings]
    assert ids([{"kind": "outage", "company": "a"}]) == ["b1", "r1", "r2", "c1"]  # router still reaches b for r1
    assert ids([{"kind": "outage", "company": "b"}]) == ["a1", "a2", "r1", "c1"]
    assert ids([{"kind": "outage", "company": "a"}, {"kind": "outage", "company": "b"}]) == ["c1"]
    # a price change of what an outage removes comes first, so that its match is not empty
    assert ids([{"kind": "outage", "company": "a"}, {"kind": "price", "company": "a", "percent": 5}]) == [
        "b1",
        "r1",
        "r2",
        "c1",
    ]


def test_workload_and_policy_changes():
    new = applied(
        [
            {"kind": "traffic", "workload": "chat", "factor": 2},
            {"kind": "budget", "workload": "batch", "budget_s": 30},
            {"kind": "within", "workload": "batch", "share": 0.9},
            {"kind": "cap", "share": 0.6},
            {"kind": "cap", "company": "a", "share": 0.5},
        ]
    )
    chat, batch = new.workloads.workloads
    assert chat.tasks == 2000 and chat.peak_tasks_per_minute == 10  # a stated peak grows with the traffic
    assert batch.latency.budget_s == 30 and batch.latency.threshold is None and batch.latency.within_budget_share == 0.9
    assert new.workloads.policy.max_vendor_share == 0.6 and new.workloads.policy.vendor_share == {"a": 0.5}


def test_a_control_given_twice_keeps_its_last_value_in_its_first_place():
    changes = parse_changes(
        {
            "changes": [
                {"kind": "price", "company": "a", "percent": -10},
                {"kind": "outage", "company": "c"},
                {"kind": "price", "company": "a", "percent": 20},
                {"kind": "price", "offering": "a1", "percent": 5},
            ]
        }
    )
    assert [label(c) for c in changes] == ["a prices +20% (what it bills)", "c out", "a1 prices +5%"]


@pytest.mark.parametrize(
    "change, words",
    [
        ({"kind": "budget", "workload": "nope", "budget_s": 3}, "changes[0].workload: no workload 'nope'"),
        ({"kind": "price", "company": "zz", "percent": 3}, "no offering billed by 'zz'; expected one of: a, b, c"),
        ({"kind": "price", "offering": "zz", "percent": 3}, "no offering 'zz' in the catalog"),
        ({"kind": "outage", "company": "zz"}, "no company 'zz' bills or serves an offering"),
        ({"kind": "within", "workload": "batch", "share": 0.5}, "has no latency budget: give it one first"),
        ({"kind": "price", "company": "a", "percent": -101}, "greater than or equal to -100"),
        ({"kind": "price", "company": "a", "offering": "a1", "percent": 1}, "a company or an offering, not both"),
        ({"kind": "traffic", "workload": "chat", "factor": 0}, "greater than 0"),
        ({"kind": "traffic", "workload": "chat", "factor": "2"}, "valid number"),
        ({"kind": "cap", "share": True}, "valid number"),
        ({"kind": "within", "workload": "chat", "share": 1.5}, "less than or equal to 1"),
        ({"kind": "budget", "workload": "chat", "budget_s": 3, "extra": 1}, "extra"),
        ({"kind": "discount", "workload": "chat"}, "kind"),
    ],
)
def test_a_change_the_inputs_refuse_names_itself(change, words):
    with pytest.raises(InputError) as err:
        check(parse_changes({"changes": [change]}), inputs())
    assert str(err.value).startswith("changes: ") and words in str(err.value), str(err.value)
