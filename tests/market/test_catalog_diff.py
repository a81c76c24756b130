"""Two catalogs compared offering by offering (planner.market.diff and `planner catalog diff`)."""

import json
import re
import tempfile
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, catalog_of, make_inputs, may_and_june, offering, rescaled, workload, workloads_of
from typer.testing import CliRunner

from planner.cli.app import app
from planner.market.diff import diff_catalogs
from planner.model.load import load_catalog
from planner.model.rescale import model_scores
from planner.model.schema import Catalog

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
        "note": None,
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


# ----------------------------------------------------------------------------- rescales (issue 15)

REAL = ROOT / "catalogs" / "aa-2026-06.yaml"


@pytest.fixture(scope="module")
def real() -> dict:
    """The real catalog (Artificial Analysis scrape of 2026-06-19) as plain data."""
    return load_catalog(REAL).model_dump(exclude_none=True)


def test_a_rescale_of_the_real_catalog_is_one_row_not_a_change_per_offering(real):
    new = rescaled(real)
    outlier = new["offerings"][10]["model"]  # one model keeps its old score: on the new scale it rose
    kept = [o for o in new["offerings"] if o["model"] == outlier]
    for o in kept:
        o["capability"]["overall"] = next(p for p in real["offerings"] if p["id"] == o["id"])["capability"]["overall"]
    for o in new["offerings"]:  # the same model as another offering's mode keeps it too
        for m in o.get("modes", []):
            if m.get("model") == outlier:
                m["capability"]["overall"] = real["offerings"][10]["capability"]["overall"]
    rows = diff_catalogs(Catalog.model_validate(real), Catalog.model_validate(new))
    rescale = [r for r in rows if r["change"] == "rescaled"]
    assert len(rescale) == 1 and rescale[0]["field"] == "capability.overall" and rescale[0]["offering"] == "*"
    assert rescale[0]["relative"] == pytest.approx(-0.25, abs=0.01)
    models = model_scores(Catalog.model_validate(real))["overall"]  # each model once, however many hosts
    scored = sum(1 for s in models.values() if s > 0)
    assert scored < len(real["offerings"]) / 2
    note = rf"x0\.7[45]\d* \({scored} models, {scored - 1} within 15% of it, middle 80% of ratios 0\.7"
    assert re.search(note, rescale[0]["note"]), rescale[0]["note"]
    assert "not declared" in rescale[0]["note"] and f"{len(kept)} scores differ from it" in rescale[0]["note"]
    changed = [(r["offering"], r["field"]) for r in rows if r["change"] == "changed"]
    overall = [r for r in rows if r["field"] == "capability.overall" and r["change"] == "changed"]
    assert sorted(r["offering"] for r in overall) == sorted(o["id"] for o in kept)  # only the model off the factor
    assert all(re.match(r"differs from the rescale: x1 against x0\.7[45]", r["note"]) for r in overall)
    assert [f for _, f in changed if f != "capability.overall"] == ["price.output"] * 3
    assert all(r["field"] != "capability.gpqa" for r in rows)  # the other metrics did not move

    path = _write(new)
    table = runner.invoke(app, ["catalog", "diff", str(REAL), str(path)])
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    offerings = len({o["id"] for o in kept} | {o["id"] for o in new["offerings"][:3]})
    assert lines[0].endswith(f"0 added, 0 removed, {offerings} changed ({3 + len(kept)} figures)")
    assert re.match(r"capability\.overall rescaled x0\.7[45]\d* \(", lines[1])
    assert "rescaled" not in "\n".join(lines[2:])  # the table lists the offerings' changes only
    data = json.loads(runner.invoke(app, ["catalog", "diff", str(REAL), str(path), "--format", "json"]).stdout)
    assert [r["change"] for r in data].count("rescaled") == 1


def _write(data: dict) -> Path:
    path = Path(tempfile.mkdtemp()) / "next.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_one_metric_scaled_on_half_the_offerings_is_no_rescale(real):
    new = rescaled(real, share=0.5)
    rows = diff_catalogs(Catalog.model_validate(real), Catalog.model_validate(new))
    assert not any(r["change"] == "rescaled" for r in rows)
    moved = sum(
        1
        for a, b in zip(real["offerings"], new["offerings"])
        if a["capability"]["overall"] != b["capability"]["overall"]
    )
    assert moved > 0.4 * len(real["offerings"])
    assert sum(1 for r in rows if r["field"] == "capability.overall") == moved  # each one is a change


def _small(scores: list[float], **metric) -> Catalog:
    offerings = [offering(f"o{i}", capability=s) for i, s in enumerate(scores)]
    data = catalog_of(*offerings)
    if metric:
        data["metrics"] = {"overall": {"name": "Intelligence index", **metric}}
    return Catalog.model_validate(data)


def test_a_declared_rescale_is_reported_even_with_few_scores():
    old = _small([60.0, 40.0], scale="v3")
    new = _small([45.0, 44.0], scale="v4")  # o1 moved far from the factor (x1.1 against x0.925)
    rows = diff_catalogs(old, new)
    assert rows[0]["change"] == "rescaled" and (rows[0]["before"], rows[0]["after"]) == ("v3", "v4")
    assert "declared: scale 'v3' -> 'v4'" in rows[0]["note"]
    assert [(r["offering"], r["before"], r["after"]) for r in rows[1:]] == [("o0", 60.0, 45.0), ("o1", 40.0, 44.0)]
    assert all(r["note"].startswith("differs from the rescale") for r in rows[1:])
    assert diff_catalogs(old, _small([45.0, 30.0], scale="v4"))[1:] == []  # both on the factor: one row
    assert diff_catalogs(old, _small([60.0, 40.0], scale="v3")) == []
    kept = diff_catalogs(_small([60.0, 40.0, 50.0], scale="v3", rounding=0.1), _small([45.0, 30.0, 50.0], scale="v4"))
    assert [(r["offering"], r["before"], r["after"]) for r in kept[1:]] == [("o2", 50.0, 50.0)]  # an unchanged score
    three = _small([60.0, 40.0, 50.0], scale="v3")
    relabelled = diff_catalogs(three, _small([60.0, 44.0, 50.0], scale="v4"))  # a new label, no move on the whole
    assert relabelled[0]["note"].endswith("but its scores did not move on the whole: their changes are listed")
    assert [(r["offering"], r["after"], r["note"]) for r in relabelled[1:]] == [("o1", 44.0, None)]


def test_few_scores_moving_together_are_changes_not_a_rescale():
    rows = diff_catalogs(_small([60.0, 40.0, 50.0, 70.0]), _small([45.0, 30.0, 37.5, 52.5]))  # 4 < 5 scores
    assert [r["change"] for r in rows] == ["changed"] * 4
    rows = diff_catalogs(_small([60.0, 40.0, 50.0, 70.0, 20.0]), _small([45.0, 30.0, 37.5, 52.5, 15.0]))
    assert [r["change"] for r in rows] == ["rescaled"] and "5 models" in rows[0]["note"]


def test_a_rescale_needs_scores_moving_one_way_by_one_factor():
    old = [60.0, 40.0, 50.0, 70.0, 20.0, 30.0, 80.0, 65.0, 45.0, 55.0]
    assert diff_catalogs(_small(old), _small([s * 0.75 for s in old]))[0]["change"] == "rescaled"
    two_unchanged = [s * 0.75 for s in old[:8]] + old[8:]  # 80% move down: the other two really changed
    rows = diff_catalogs(_small(old), _small(two_unchanged))
    assert [r["change"] for r in rows] == ["rescaled", "changed", "changed"]
    assert "10 models, 8 within 15% of it" in rows[0]["note"]
    assert [(r["offering"], r["note"]) for r in rows[1:]] == [
        ("o8", "differs from the rescale: x1 against x0.75"),
        ("o9", "differs from the rescale: x1 against x0.75"),
    ]
    three_unchanged = [s * 0.75 for s in old[:7]] + old[7:]  # 70% move down: under 3/4 the same way
    assert {r["change"] for r in diff_catalogs(_small(old), _small(three_unchanged))} == {"changed"}
    spread = [s * f for s, f in zip(old, [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95])]  # not one factor
    assert {r["change"] for r in diff_catalogs(_small(old), _small(spread))} == {"changed"}  # 4 of 10 within 15%
    drift = [s * 1.015 for s in old]  # every score 1.5% up: too small a move to be a new scale
    assert {r["change"] for r in diff_catalogs(_small(old), _small(drift))} == {"changed"}


def test_a_capability_change_under_half_the_rounding_is_no_change():
    old = _small([60.0, 40.0], rounding=0.1)
    rounded = diff_catalogs(old, _small([60.04, 39.96], rounding=0.1))  # counted in one row, not listed
    assert [(r["change"], r["offering"], r["field"]) for r in rounded] == [("rounded", "*", "capability.overall")]
    assert rounded[0]["note"] == (
        "capability.overall: 2 scores moved by less than half the published step 0.1: rounding, not listed"
    )
    rows = diff_catalogs(old, _small([60.06, 40.0], rounding=0.1))
    assert [(r["offering"], r["after"]) for r in rows] == [("o0", 60.06)]
    assert [r["offering"] for r in diff_catalogs(_small([60.0, 40.0]), _small([60.04, 40.0]))] == ["o0"]  # no rounding
    coarse = _small([60.0, 40.0], rounding=1.0)  # the coarser rounding of the two catalogs applies
    rows = diff_catalogs(old, coarse.model_copy(update={"offerings": _small([60.4, 40.0]).offerings}))
    assert [r["change"] for r in rows] == ["rounded"]


def test_catalog_show_says_what_each_metric_is_and_how_high_its_scores_go(real, tmp_path):
    cut = {**real, "offerings": [o for o in real["offerings"] if not o.get("modes")][:40]}
    cut["metrics"] = {
        "overall": {"name": "Artificial Analysis Intelligence Index", "scale": "v4 (2026-06-19)", "rounding": 0.1}
    }
    path = tmp_path / "cut.yaml"
    path.write_text(yaml.safe_dump(cut, sort_keys=False))
    scores = [o["capability"]["overall"] for o in cut["offerings"]]
    gpqa = [o["capability"]["gpqa"] for o in cut["offerings"] if "gpqa" in o["capability"]]
    n = sum(1 + len(o.get("price_tiers", [])) for o in cut["offerings"])  # each tier is an option too
    result = runner.invoke(app, ["catalog", "show", str(path)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "capability overall: Artificial Analysis Intelligence Index",
        "  scale: v4 (2026-06-19) (published to 0.1)",
        f"  scores {min(scores):.3g}-{max(scores):.3g} in {n} of {n} options (the scale's top is 100 but this "
        f"catalog's best is {max(scores):.3g})",
    ]
    assert lines[3] == "capability gpqa: not described in the catalog's metrics (its scale is unknown)"
    assert lines[4].startswith(f"  scores {min(gpqa):.3g}-{max(gpqa):.3g} in ") and f"of {n} options" in lines[4]
    assert max(len(line) for line in lines) <= 100
    first = cut["offerings"][0]  # the table shows the first declared metric, four significant digits
    row = next(line for line in lines if line.startswith(first["id"] + " "))
    assert f"{first['capability']['overall']:.4g}" == "23.83" and re.search(r"\s23\.83(\s|$)", row)
    assert "23.831" not in result.stdout and "capability: overall" in result.stdout
    rows = json.loads(runner.invoke(app, ["catalog", "show", str(path), "--format", "json"]).stdout)
    assert len(rows) == n and rows[0]["capability"].endswith("overall 23.831")  # the files keep every digit


# ----------------------------------------------------------------------------- the real scrapes (issue 27)


def test_the_may_to_june_scrapes_are_one_rescale_and_rounding_not_hundreds_of_changes(real, tmp_path):
    """The 86 June offerings of the models the May excerpt scores, with May's published scores against
    June's. v1.2 listed every changed score here, 304 (each offering's index and 218 benchmark scores,
    the rounding read as 0.0001), and found no rescale. Now: one rescale over the 22 models both sides
    score (five more of the excerpt's are in June only as modes of other defaults), the benchmarks'
    rounding counted, and the index of 32 offerings listed: their 9 models moved off the factor
    (the index was not rescaled by one factor: the weaker models lost more, the strongest less)."""
    may, june = may_and_june(real)
    assert len(may["offerings"]) == len(june["offerings"]) == 86
    pairs = [
        (a["capability"][m], b["capability"][m])
        for a, b in zip(may["offerings"], june["offerings"])
        for m in a["capability"]
        if m in b["capability"]
    ]
    assert sum(1 for x, y in pairs if x != y) == 304  # what v1.2 listed
    rows = diff_catalogs(Catalog.model_validate(may), Catalog.model_validate(june))
    (rescale,) = [r for r in rows if r["change"] == "rescaled"]
    assert rescale["note"] == (
        "capability.overall rescaled x0.719 (22 models, 12 within 15% of it, middle 80% of ratios 0.467-0.829; "
        "not declared; 32 scores differ from it)"
    )
    rounded = {r["field"]: r["note"].split(": ")[1] for r in rows if r["change"] == "rounded"}
    assert rounded == {
        "capability.gpqa": "86 scores moved by less than half the published step 0.1",
        "capability.livecodebench": "67 scores moved by less than half the published step 0.1",
        "capability.mmlu_pro": "65 scores moved by less than half the published step 0.1",
    }
    listed = [r for r in rows if r["change"] == "changed" and r["field"].startswith("capability.")]
    assert len(listed) == 32 and {r["field"] for r in listed} == {"capability.overall"}
    assert all(r["note"].startswith("differs from the rescale: x") for r in listed)
    models = {next(o["model"] for o in may["offerings"] if o["id"] == r["offering"]) for r in listed}
    assert len(models) == 9 and "Gemma 3 4B Instruct" in models
    path_may, path_june = tmp_path / "may.yaml", tmp_path / "june.yaml"
    path_may.write_text(yaml.safe_dump(may, sort_keys=False))
    path_june.write_text(yaml.safe_dump(june, sort_keys=False))
    table = runner.invoke(app, ["catalog", "diff", str(path_may), str(path_june)], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    assert lines[1] == rescale["note"] and lines[2].startswith("capability.gpqa: 86 scores moved by less")
