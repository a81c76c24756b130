"""What-if scenarios (planner.model.scenarios): edits matched by glob, field paths and their errors, --set
expressions and vendor outages, applied to validated inputs."""

import pytest
from conftest import ROOT, catalog_of, make_inputs, offering, two_vendors, workload, workloads_of

from planner.core.errors import InputError
from planner.model.load import load_inputs, load_scenario
from planner.model.scenarios import apply_scenario, scenario_from_sets, without_vendor
from planner.model.schema import Scenario

SUPPORT = ROOT / "workloads" / "support.yaml"


def scenario(**data):
    return Scenario.model_validate({"name": "s", **data})


def test_set_scale_and_shift_by_glob():
    sc = scenario(
        catalog=[
            {"match": {"id": "a-*"}, "set": {"price.output": "*0.5", "speed.output_tps": 900, "price.input": "+1"}}
        ]
    )
    new = apply_scenario(two_vendors(), sc, "s.yaml")
    by = {o.id: o for o in new.catalog.offerings}
    assert by["a-fast"].price.output == 2.0 and by["a-std"].price.output == 1.0
    assert by["a-fast"].price.input == 5.0 and by["a-std"].speed.output_tps == 900
    assert by["b-cheap"].price.output == 1.0


def test_match_on_tier_vendor_and_several_fields():
    sc = scenario(catalog=[{"match": {"vendor": "a", "tier": "fast"}, "set": {"price.input": 0.5}}])
    by = {o.id: o for o in apply_scenario(two_vendors(), sc, "s.yaml").catalog.offerings}
    assert by["a-fast"].price.input == 0.5 and by["a-std"].price.input == 2.0


def test_remove_add_workloads_and_policy():
    sc = scenario(
        catalog=[
            {"remove": {"vendor": "b"}},
            {"add": [offering("new", vendor="c", price_in=0.1, price_out=0.1, tps=2000)]},
        ],
        workloads=[{"match": {"id": "chat"}, "set": {"tasks": "*1.5", "latency.budget_s": 5}}],
        policy={"set": {"budget": 40000, "vendor_share.a": 0.5}},
    )
    new = apply_scenario(two_vendors(), sc, "s.yaml")
    assert [o.id for o in new.catalog.offerings] == ["a-fast", "a-std", "new"]
    chat = new.workloads.workloads[0]
    assert chat.tasks == 1500 and chat.latency.budget_s == 5 and chat.latency.threshold is None
    agent = new.workloads.workloads[1]
    assert agent.latency.threshold == "attentive"
    assert new.workloads.policy.budget == 40000 and new.workloads.policy.vendor_share == {"a": 0.5}


def test_setting_a_threshold_clears_the_budget():
    sc = scenario(workloads=[{"match": {"id": "chat"}, "set": {"latency.threshold": "immediate"}}])
    chat = apply_scenario(two_vendors(), sc, "s.yaml").workloads.workloads[0]
    assert chat.latency.threshold == "immediate" and chat.latency.budget_s is None


def test_lifting_capacity_with_null():
    inputs = two_vendors()
    data = inputs.catalog.model_dump(mode="json")
    data["offerings"][0]["capacity"] = {"tokens_per_minute": 1000}
    inputs = make_inputs(inputs.workloads.model_dump(mode="json"), data)
    sc = scenario(catalog=[{"match": {"tier": "fast"}, "set": {"capacity.tokens_per_minute": None}}])
    assert apply_scenario(inputs, sc, "s.yaml").catalog.offerings[0].capacity.tokens_per_minute is None


@pytest.mark.parametrize(
    "data, where, words",
    [
        (
            {"catalog": [{"match": {"id": "zzz*"}, "set": {"price.input": 1}}]},
            "catalog[0].match",
            "matches no offering",
        ),
        (
            {"catalog": [{"match": {"id": "a-*"}, "set": {"price.inptu": 1}}]},
            "catalog[0].set.price.inptu",
            "no field 'inptu' in Price",
        ),
        (
            {"catalog": [{"match": {"id": "a-*"}, "set": {"prices.input": 1}}]},
            "catalog[0].set.prices.input",
            "no field 'prices'",
        ),
        ({"catalog": [{"remove": {"host": "nobody"}}]}, "catalog[0].remove", "matches no offering"),
        ({"workloads": [{"match": {"id": "nope"}, "set": {"tasks": 1}}]}, "workloads[0].match", "matches no workload"),
        (
            {"catalog": [{"match": {"id": "a-*"}, "set": {"price.cached_input": "*2"}}]},
            "catalog[0].set.price.cached_input",
            "not set",
        ),
        (
            {"catalog": [{"match": {"id": "a-*"}, "set": {"price.input": -3}}]},
            "offerings[0].price.input",
            "greater than or equal to 0",
        ),
        ({"policy": {"set": {"budgett": 5}}}, "policy.set.budgett", "no field 'budgett' in Policy"),
    ],
)
def test_scenario_errors_name_the_path(data, where, words):
    with pytest.raises(InputError) as err:
        apply_scenario(two_vendors(), scenario(**data), "s.yaml")
    line = str(err.value)
    assert line.startswith("s.yaml") and where in line and words in line, line


def test_set_expressions():
    sc = scenario_from_sets(["offerings[a-*].price.output=*0.8", "workloads[chat].tasks=2000", "policy.budget=100"])
    new = apply_scenario(two_vendors(), sc, "--set")
    assert new.catalog.offerings[0].price.output == pytest.approx(3.2)
    assert new.workloads.workloads[0].tasks == 2000 and new.workloads.policy.budget == 100
    with pytest.raises(InputError):
        scenario_from_sets(["price=3"])


def test_shipped_scenarios_apply():
    inputs = load_inputs(SUPPORT)
    paths = sorted((ROOT / "scenarios").glob("*.yaml"))
    assert len(paths) == 4
    for path in paths:
        new = apply_scenario(inputs, load_scenario(path), str(path))
        assert (new.workloads, new.catalog) != (inputs.workloads, inputs.catalog), path.name  # each edits something
        assert new.catalog.offerings and new.workloads.workloads


def test_without_a_company_removes_what_it_bills_and_what_it_serves():
    """support.yaml's sol-fast is billed by openai and served by cerebras: a cerebras outage takes it."""
    inputs = load_inputs(SUPPORT)
    new = apply_scenario(inputs, without_vendor("cerebras", inputs.catalog), "--without-vendor")
    left = {o.id for o in new.catalog.offerings}
    assert "sol-fast" not in left and "sol-std" in left
    assert not [o for o in new.catalog.offerings if "cerebras" in o.companies]


def test_without_vendor_removes_its_offerings():
    sc = without_vendor("a", two_vendors().catalog)
    assert sc.name == "without-a"
    new = apply_scenario(two_vendors(), sc, "--without-vendor")
    assert [o.id for o in new.catalog.offerings] == ["b-cheap"]
    assert new.workloads == two_vendors().workloads
    with pytest.raises(InputError, match="matches no offering"):
        apply_scenario(new, sc, "--without-vendor")


def test_applying_a_scenario_leaves_the_inputs_as_they_were():
    inputs = two_vendors()
    before = (inputs.workloads.model_dump(), inputs.catalog.model_dump())
    sc = scenario(
        catalog=[{"match": {"id": "a-*"}, "set": {"price.output": "*0.5"}}],
        workloads=[{"match": {"id": "chat"}, "set": {"tasks": "*2"}}],
    )
    new = apply_scenario(inputs, sc, "s.yaml")
    assert (inputs.workloads.model_dump(), inputs.catalog.model_dump()) == before
    assert new.workloads.workloads[0].tasks == 2 * inputs.workloads.workloads[0].tasks
    assert new.workloads_file == inputs.workloads_file and new.catalog_file == inputs.catalog_file


def _measured_inputs():
    """two_vendors() with a-fast's speed measured at percentiles."""
    inputs = two_vendors()
    cat = inputs.catalog.model_dump(mode="json")
    cat["offerings"][0]["speed"]["percentiles"] = {
        "output_tps": {5: 500.0, 25: 800.0, 75: 1100.0, 95: 1200.0},
        "ttft_s": {5: 0.1, 95: 0.9},
    }
    cat["offerings"][0]["speed"]["ttft_s"] = 0.2
    return make_inputs(inputs.workloads.model_dump(mode="json"), cat)


@pytest.mark.parametrize(
    "field, value, tps, ttft",
    [
        ("speed.output_tps", "*0.5", {5: 250.0, 25: 400.0, 75: 550.0, 95: 600.0}, {5: 0.1, 95: 0.9}),
        ("speed.output_tps", 2000, {5: 1000.0, 25: 1600.0, 75: 2200.0, 95: 2400.0}, {5: 0.1, 95: 0.9}),
        ("speed.ttft_s", "+0.5", {5: 500.0, 25: 800.0, 75: 1100.0, 95: 1200.0}, {5: 0.6, 95: 1.4}),
        ("speed.ttft_s", "-0.15", {5: 500.0, 25: 800.0, 75: 1100.0, 95: 1200.0}, {5: 0.0, 95: 0.75}),
    ],
)
def test_a_median_speed_edit_takes_its_measured_percentiles_along(field, value, tps, ttft):
    """Halving a speed halves every percentile of it, 0.5 s more to the first token is 0.5 s more at every
    percentile (never below 0), a number sets the median and scales the percentiles alike: they stay one
    measurement, in order, rather than a median moved away from its own spread."""
    inputs = _measured_inputs()
    edited = apply_scenario(inputs, scenario(catalog=[{"match": {"id": "a-fast"}, "set": {field: value}}]), "s.yaml")
    got = edited.catalog.offerings[0].speed.percentiles
    assert got.output_tps == pytest.approx(tps) and got.ttft_s == pytest.approx(ttft)


def test_an_overlay_lists_the_percentiles_a_speed_edit_moved(tmp_path):
    from planner.model.load import apply_overlays

    inputs = _measured_inputs()
    (tmp_path / "o.yaml").write_text(
        "name: slower\ncatalog:\n  - match: {id: a-fast}\n    set: {speed.output_tps: '*0.8'}\n"
    )
    _, (applied,) = apply_overlays(inputs.catalog, [tmp_path / "o.yaml"])
    assert [(c[0], c[1]) for c in applied.changes] == [
        ("a-fast", "speed.output_tps"),
        ("a-fast", "speed.percentiles.output_tps"),
    ]
    assert applied.changes[1][3] == pytest.approx({"5": 400.0, "25": 640.0, "75": 880.0, "95": 960.0})


def test_a_price_tier_is_edited_by_its_name():
    tiers = [{"name": "batch", "price": {"input": 1, "output": 2}, "window_s": 86400}]
    inputs = make_inputs(workloads_of(workload("w")), catalog_of(offering("a", price_tiers=tiers), offering("b")))
    sc = scenario(catalog=[{"match": {"id": "a"}, "set": {"price_tiers.batch.price.input": "*0.5"}}])
    (tier,) = apply_scenario(inputs, sc, "s.yaml").catalog.offerings[0].price_tiers
    assert tier.price.input == 0.5 and tier.price.output == 2
    for path, words in [
        ("price_tiers.flex.price.input", "no 'flex' in 'price_tiers' of offering 'a'; expected one of: batch"),
        ("price_tiers.batch", "is a whole item"),
        ("price_tiers.batch.price.inptu", "no field 'inptu' in Price"),
    ]:
        with pytest.raises(InputError, match=words):
            apply_scenario(inputs, scenario(catalog=[{"match": {"id": "a"}, "set": {path: "*0.5"}}]), "s.yaml")
