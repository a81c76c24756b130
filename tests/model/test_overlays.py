"""Contract overlays (issue 17): a workloads file's `catalog: [public.yaml, ours.yaml]`, later files
editing earlier ones with the scenario syntax, and plans that say which figures an overlay set."""

import json

import pytest
import yaml
from conftest import ROOT, catalog_of, offering, workload, workloads_of
from typer.testing import CliRunner

from planner.cli.app import app
from planner.core.errors import InputError
from planner.model.load import load_inputs
from planner.pipeline.solve import solve_inputs
from planner.review.compare import compare_plans

runner = CliRunner()
CONTRACT = ROOT / "workloads" / "real-support-contract.yaml"
REAL = ROOT / "workloads" / "real-support.yaml"


@pytest.fixture
def files(tmp_path):
    """A one-offering-per-vendor catalog, a workloads file naming it and overlays, written to tmp."""

    def write(overlays: list[dict], catalog: dict | None = None, wl: dict | None = None):
        cat = catalog or catalog_of(
            offering("a1", vendor="a", price_in=2, price_out=2), offering("b1", vendor="b", price_in=3, price_out=3)
        )
        (tmp_path / "public.yaml").write_text(yaml.safe_dump(cat))
        names = ["public.yaml"]
        for k, o in enumerate(overlays):
            (tmp_path / f"ours{k}.yaml").write_text(yaml.safe_dump(o))
            names.append(f"ours{k}.yaml")
        ws = wl or workloads_of(workload("w"))
        ws["catalog"] = names
        (tmp_path / "w.yaml").write_text(yaml.safe_dump(ws))
        return tmp_path / "w.yaml"

    return write


def test_a_discount_by_hand(files):
    """1000 tasks of 1000 + 1000 tokens on a1 at $2/$2 per million: $4; 50% off a's prices: $2."""
    path = files(
        [
            {
                "name": "deal",
                "source": "contract 7",
                "catalog": [{"match": {"vendor": "a"}, "set": {"price.input": "*0.5", "price.output": "*0.5"}}],
            }
        ]
    )
    inputs = load_inputs(path)
    plan = solve_inputs(inputs, "highs")
    assert plan.total_cost == pytest.approx(2.0)
    (o,) = plan.overlays
    assert (o.name, o.source) == ("deal", "contract 7")
    assert [(c.offering, c.field, c.before, c.after) for c in o.changes] == [
        ("a1", "price.input", 2.0, 1.0),
        ("a1", "price.output", 2.0, 1.0),
    ]
    assert plan.offering_info["a1"].overlay == {"price.input": "deal", "price.output": "deal"}
    assert plan.catalog_index["a1"].price_input == 1.0


def test_later_overlays_edit_earlier_ones_in_order(files):
    path = files(
        [
            {"name": "first", "catalog": [{"match": {"id": "b1"}, "set": {"price.input": 1, "price.output": 1}}]},
            {"name": "second", "catalog": [{"match": {"id": "b1"}, "set": {"price.output": "*2"}}]},
        ]
    )
    inputs = load_inputs(path)
    b1 = next(o for o in inputs.catalog.offerings if o.id == "b1")
    assert (b1.price.input, b1.price.output) == (1, 2)  # $1 + $2 per 1M against a1's $2 + $2: b1 is used
    plan = solve_inputs(inputs, "highs")
    assert [a.offering for a in plan.workloads[0].allocations] == ["b1"]
    assert plan.offering_info["b1"].overlay == {"price.input": "first", "price.output": "second"}
    assert [o.name for o in plan.overlays] == ["first", "second"]


def test_deny_removes_what_a_company_bills_or_serves(files):
    path = files([{"name": "policy", "deny": ["a"]}])
    inputs = load_inputs(path)
    assert [o.id for o in inputs.catalog.offerings] == ["b1"]
    assert inputs.overlays[0].changes == (("a1", "removed", None, None),)


@pytest.mark.parametrize(
    "overlay, where, what",
    [
        (
            {"name": "x", "catalog": [{"match": {"vendor": "nobody"}, "set": {"price.input": 1}}]},
            "catalog[0].match",
            "matches no offering",
        ),
        (
            {"name": "x", "catalog": [{"match": {"id": "a1"}, "set": {"price.nope": 1}}]},
            "catalog[0].set.price.nope",
            "no field 'nope'",
        ),
        ({"name": "x", "deny": ["nobody"]}, "deny[0]", "no offering is billed or served by 'nobody'"),
        ({"name": "x"}, "", "an overlay edits the catalog"),
        (
            {"name": "x", "catalog": [{"match": {"id": "a1"}, "set": {"price.input": -1}}]},
            "offerings[0].price.input",
            "the catalog after this overlay",
        ),
    ],
    ids=["match-nothing", "unknown-field", "deny-nobody", "empty", "invalid-after"],
)
def test_a_bad_overlay_is_one_line_exit_2(files, overlay, where, what):
    path = files([overlay])
    result = runner.invoke(app, ["solve", str(path), "--out", str(path.parent / "out")])
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1 and "ours0.yaml" in line and where in line and what in line
    assert not (path.parent / "out").exists()  # nothing written


def test_a_missing_overlay_file_names_its_place_in_the_list(files):
    path = files([])
    ws = yaml.safe_load(path.read_text())
    ws["catalog"] = ["public.yaml", "missing.yaml"]
    path.write_text(yaml.safe_dump(ws))
    with pytest.raises(InputError) as exc:
        load_inputs(path)
    assert "catalog[1]" in exc.value.lines()[0] and "overlay file not found" in exc.value.lines()[0]


def test_catalog_override_keeps_the_overlays(files, tmp_path):
    path = files([{"name": "deal", "catalog": [{"match": {"vendor": "a"}, "set": {"price.input": "*0.5"}}]}])
    other = catalog_of(offering("a1", vendor="a", price_in=4, price_out=2), offering("b1", vendor="b"))
    (tmp_path / "other.yaml").write_text(yaml.safe_dump(other))
    inputs = load_inputs(path, tmp_path / "other.yaml")
    assert next(o for o in inputs.catalog.offerings if o.id == "a1").price.input == 2.0
    assert inputs.catalog_file.endswith("other.yaml") and inputs.overlays[0].name == "deal"


def test_the_shipped_contract_overlay(tmp_path):
    """The example overlay: 20% off Cerebras, a rate limit at Novita, regions for three hosts. The
    plan is cheaper than the public one by the discount (Cerebras keeps its routes), says which
    figures the overlay set, and the comparison puts the saving in prices."""
    result = runner.invoke(app, ["solve", str(CONTRACT), "--out", str(tmp_path)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "+ overlay example-contract" in " ".join(result.stdout.split())
    plan = json.loads((tmp_path / "real-support-contract.plan.json").read_text())
    (o,) = plan["overlays"]
    fields = {(c["offering"], c["field"]) for c in o["changes"]}
    assert ("glm-4.7@cerebras", "price.input") in fields and (
        "qwen3.7-max@novita",
        "capacity.tokens_per_minute",
    ) in fields
    assert {c["field"] for c in o["changes"]} == {
        "price.input",
        "price.output",
        "capacity.tokens_per_minute",
        "regions",
    }
    info = plan["offering_info"]["glm-4.7@cerebras"]
    assert info["overlay"]["price.input"] == "example-contract"
    public = solve_inputs(load_inputs(REAL), "highs")
    contract = solve_inputs(load_inputs(CONTRACT), "highs")
    assert contract.total_cost < public.total_cost
    cerebras = {a.offering for w in public.workloads for a in w.allocations if a.vendor == "cerebras"}
    for oid in cerebras:
        assert contract.catalog_index[oid].price_input == pytest.approx(0.8 * public.catalog_index[oid].price_input)
    cmp = compare_plans(public, contract)
    parts = {s.key: s.amount for s in cmp.bridge}
    assert parts["prices"] < 0 and sum(parts.values()) == pytest.approx(contract.total_cost - public.total_cost)
    html = (tmp_path / "real-support-contract.html").read_text()
    assert "Overlay example-contract" in html and "‡" in html
