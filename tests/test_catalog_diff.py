"""Two catalogs compared offering by offering (planner.catalog_diff and `planner catalog diff`)."""

import json

import pytest
import yaml
from conftest import ROOT, catalog_of, make_inputs, offering, workload, workloads_of
from typer.testing import CliRunner

from planner.catalog_diff import diff_catalogs
from planner.cli import app
from planner.load import load_catalog

runner = CliRunner()
Q3 = ROOT / "catalogs" / "2026-q3.yaml"


def test_catalog_diff(tmp_path):
    old = yaml.safe_load((Q3).read_text())
    new = json.loads(json.dumps(old, default=str))
    new["offerings"][0]["price"]["output"] = 16.0
    new["offerings"][1]["speed"]["output_tps"] = 900
    removed = new["offerings"].pop()
    new["offerings"].append({**new["offerings"][0], "id": "brand-new"})
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new, sort_keys=False))
    rows = diff_catalogs(load_catalog(Q3), load_catalog(tmp_path / "new.yaml"))
    assert {
        "change": "removed",
        "offering": removed["id"],
        "field": "",
        "before": None,
        "after": None,
        "relative": None,
    } in rows
    assert any(r["change"] == "added" and r["offering"] == "brand-new" for r in rows)
    changed = {(r["offering"], r["field"]): r for r in rows if r["change"] == "changed"}
    assert changed[("sol-std", "price.output")]["relative"] == pytest.approx(-0.2)
    assert changed[("sol-fast", "speed.output_tps")]["after"] == 900
    result = runner.invoke(app, ["catalog", "diff", str(Q3), str(tmp_path / "new.yaml"), "--format", "csv"])
    assert result.exit_code == 0 and result.stdout.startswith("change,offering,field,before,after,relative")
    table = runner.invoke(app, ["catalog", "diff", str(Q3), str(tmp_path / "new.yaml")])
    assert "1 added, 1 removed, 2 changed" in table.stdout


def test_a_catalog_against_itself_has_no_change():
    assert diff_catalogs(load_catalog(Q3), load_catalog(Q3)) == []


def test_every_figure_is_compared_capacity_and_capability_too():
    def catalog(*offerings):
        return make_inputs(workloads_of(workload("w")), catalog_of(*offerings)).catalog

    old = catalog(offering("a", capability=80.0), offering("b"))
    new = catalog(offering("a", capability=90.0, capacity={"tokens_per_minute": 1000}), offering("b", ttft=0.5))
    rows = [(r["offering"], r["field"], r["before"], r["after"], r["relative"]) for r in diff_catalogs(old, new)]
    assert rows == [
        ("a", "capacity.tokens_per_minute", None, 1000.0, None),
        ("a", "capability.overall", 80.0, 90.0, 0.125),
        ("b", "speed.ttft_s", 0.0, 0.5, None),
    ]  # no relative change from zero
