"""The JSON Schemas of the input files (planner.model.schemas): generated from the models, shipped twice (the
package and the repository's schemas/), named by every shipped YAML file's first line, and agreeing with
the loader on every shipped file, on the shorthands it accepts and on files it rejects."""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

import jsonschema
import pytest

from planner.core.errors import InputError
from planner.model import schemas
from planner.model.load import load_catalog, load_inputs, load_overlay, load_scenario, load_workloads, read_yaml
from planner.model.scenarios import apply_scenario
from planner.model.schemas.__main__ import main as generate

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = [ROOT / "planner" / "model" / "schemas", ROOT / "schemas"]
LOADERS = {"catalog": load_catalog, "workloads": load_workloads, "scenario": load_scenario, "overlay": load_overlay}
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)\n")
SHIPPED = sorted(
    p.relative_to(ROOT).as_posix()
    for pattern in (
        "workloads/*.yaml",
        "scenarios/*.yaml",
        "catalogs/*.yaml",
        "catalogs/overlays/*.yaml",
        "tests/golden/inputs/*.yaml",
    )
    for p in ROOT.glob(pattern)
)


def as_json(value):
    """A loaded YAML value as JSON holds it (what an editor's YAML 1.2 reading sees): dates as text."""
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def validator(kind: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schemas.schema(kind))


def schema_errors(kind: str, path: Path, leaves: bool = False) -> list[str]:
    """What the schema finds wrong in a file (leaves: inside anyOf, each alternative's own errors)."""
    data, _ = read_yaml(path)
    found = list(validator(kind).iter_errors(as_json(data)))
    while leaves and any(e.context for e in found):
        found = [c for e in found for c in (e.context or [e])]
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in found]


def test_the_shipped_schemas_are_the_models(tmp_path):
    for folder in FOLDERS:
        for kind in schemas.KINDS:
            path = folder / schemas.file_name(kind)
            assert path.is_file() and path.read_bytes() == schemas.render(kind).encode(), (
                f"{path.relative_to(ROOT)} differs from the models in planner/model/schema/: run `make schemas` "
                "(or `python -m planner.model.schemas`) and commit both copies"
            )
    # the generator writes the same bytes every run, and --check says when a copy is stale
    assert generate(["--out", str(tmp_path)]) == 0
    assert generate(["--check", "--out", str(tmp_path), "--out", str(FOLDERS[1])]) == 0
    (tmp_path / "workloads.schema.json").write_text("{}\n")
    assert schemas.stale([tmp_path]) == [tmp_path / "workloads.schema.json"]
    assert generate(["--check", "--out", str(tmp_path)]) == 1
    assert schemas.default_folders() == FOLDERS


def test_the_schemas_are_draft_2020_12():
    for kind in schemas.KINDS:
        document = schemas.schema(kind)
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(document)
        assert document["title"].startswith("planner ") and document["additionalProperties"] is False


def test_every_shipped_yaml_file_names_its_schema():
    assert len(SHIPPED) >= 11 and "catalogs/aa-2026-06.yaml" in SHIPPED
    for name in SHIPPED:
        path = ROOT / name
        line = MODELINE.match(path.read_text())
        assert line, f"{name}: the first line should be `# yaml-language-server: $schema=<relative path>`"
        target = Path(os.path.normpath(path.parent / line[1]))
        assert target.parent == ROOT / "schemas" and target.is_file(), f"{name}: {line[1]} is not in schemas/"


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_yaml_file_validates_against_its_schema(name):
    path = ROOT / name
    kind = MODELINE.match(path.read_text())[1].rsplit("/", 1)[1].removesuffix(".schema.json")
    assert schema_errors(kind, path) == []
    LOADERS[kind](path)  # and the planner reads it as that kind


def test_the_importer_names_the_catalog_schema():
    """`planner catalog import` writes the line itself (catalogs/aa-2026-06.yaml is its output, byte for byte)."""
    assert (
        (ROOT / "catalogs/aa-2026-06.yaml")
        .read_text()
        .startswith(
            "# yaml-language-server: $schema=../schemas/catalog.schema.json\n# Built by `planner catalog import`"
        )
    )


OFFERING = """\
  - id: fast-one
    model: model-x
    vendor: acme
    capability: {capability}
    price: {{input: 1.0, output: 4.0}}
    speed: {{output_tps: 900, ttft_s: 0.2}}
    modes:
      - {{name: high, reasoning_factor: 3, capability: {mode_capability}}}
"""
CATALOG = "catalog: test\nas_of: 2026-07-15\n{offerings}:\n" + OFFERING
WORKLOADS = """\
catalog: catalog.yaml
period: {period}
thresholds: {{slow: 60, never: null}}
workloads:
  - id: chat
    tasks: {tasks}
    tokens: {{input: 1000, {output}: 200}}
    latency: {{threshold: {threshold}}}
    capability: {{min: {min}, mean_min: {mean_min}}}
"""
SCENARIO = """\
name: {name}
catalog:
  - match: {{tier: standard}}
    {set}: {{price.output: "*0.8", speed.output_tps: 900, capacity.tokens_per_minute: null}}
  - add:
      - {{id: new-one, model: model-y, vendor: newco, capability: 70, {price}speed: {{output_tps: 50, ttft_s: 1}}}}
workloads:
  - match: {{id: "ch*"}}
    set: {{tasks: "*2", latency.budget_s: 5}}
policy:
  set: {{budget: 40000}}
"""
GOOD = {
    "catalog": dict(offerings="offerings", capability="91.9", mode_capability="94"),
    "workloads": dict(
        period="month", tasks="1000", output="output", threshold="attentive", min="50", mean_min='{like: "model-x"}'
    ),
    "scenario": dict(name="price-cut", set="set", price="price: {input: 1, output: 2}, "),
}
# (kind, what is wrong, the change to GOOD[kind])
BAD = [
    ("catalog", "capability over 100 as a bare number", dict(capability="120")),
    ("catalog", "a score that is text", dict(mode_capability="{overall: high}")),
    ("catalog", "a misspelt top-level field", dict(offerings="offering")),
    ("workloads", "a misspelt field", dict(output="ouput")),
    ("workloads", "a period that is not one", dict(period="fortnight")),
    ("workloads", "negative tasks", dict(tasks="-5")),
    ("workloads", "tasks as text", dict(tasks="lots")),
    ("workloads", "a floor over 100", dict(min="101")),
    ("workloads", "a relative floor with a misspelt key", dict(mean_min='{like: "model-x", tims: 2}')),
    ("scenario", "a misspelt edit", dict(set="sett")),
    ("scenario", "a name with a space", dict(name="price cut")),
]


def write(tmp_path: Path, kind: str, **change) -> Path:
    text = {"catalog": CATALOG, "workloads": WORKLOADS, "scenario": SCENARIO}[kind].format(**{**GOOD[kind], **change})
    (tmp_path / "catalog.yaml").write_text(CATALOG.format(**GOOD["catalog"]))
    path = tmp_path / f"{kind}.yaml"
    path.write_text(text)
    return path


def test_the_shorthands_the_loader_accepts_the_schemas_accept(tmp_path):
    """A capability as a bare number or by metric, a floor as a number or {like: MODEL}, thresholds of
    one's own (null: no budget), an unquoted date, a scenario's set values and added offerings."""
    for kind, changes in (
        ("catalog", {}),
        ("catalog", dict(capability="{overall: 88, coding: 91.9}", mode_capability="{coding: 95}")),
        ("workloads", {}),
        ("workloads", dict(min="{like: fast-one, mode: high, times: 0.9}", mean_min="null", threshold="slow")),
        ("workloads", dict(threshold="never", period="quarter")),
        ("scenario", {}),
    ):
        path = write(tmp_path, kind, **changes)
        assert schema_errors(kind, path) == [], (kind, changes)
        LOADERS[kind](path)
    inputs = load_inputs(write(tmp_path, "workloads"))
    apply_scenario(inputs, load_scenario(write(tmp_path, "scenario")), "scenario.yaml")


@pytest.mark.parametrize("kind, why, change", BAD, ids=[why for _, why, _ in BAD])
def test_a_file_the_loader_rejects_the_schema_rejects(tmp_path, kind, why, change):
    path = write(tmp_path, kind, **change)
    assert schema_errors(kind, path), why
    with pytest.raises(InputError):
        LOADERS[kind](path)


def test_an_added_offering_is_checked_as_an_offering(tmp_path):
    """The loader checks a scenario's added offerings when it applies the scenario; the schema at once."""
    path = write(tmp_path, "scenario", price="")  # an offering with no price
    assert "catalog.1.add.0: 'price' is a required property" in schema_errors("scenario", path, leaves=True)
    inputs = load_inputs(write(tmp_path, "workloads"))
    with pytest.raises(InputError, match="price"):
        apply_scenario(inputs, load_scenario(path), str(path))


def test_a_misspelt_field_is_named_as_an_editor_names_it(tmp_path):
    """What the YAML language server underlines: the schema forbids keys it does not list, everywhere."""
    errors = schema_errors("workloads", write(tmp_path, "workloads", output="ouput"))
    assert sorted(errors) == [
        "workloads.0.tokens: 'output' is a required property",
        "workloads.0.tokens: Additional properties are not allowed ('ouput' was unexpected)",
    ]
    threshold = schemas.schema("workloads")["$defs"]["Latency"]["properties"]["threshold"]
    assert threshold["examples"] == ["immediate", "attentive", "background"]


def _at(document: dict, path: str) -> dict:
    """The schema of a field named as the README names it (`workloads[].latency.threshold`)."""
    node = document
    for part in path.split("."):
        for key in [part.removesuffix("[]")] + (["[]"] if part.endswith("[]") else []):
            while "$ref" in node or "anyOf" in node:  # into the model (an optional field: its non-null form)
                target = node if "$ref" in node else next(a for a in node["anyOf"] if "$ref" in a or "items" in a)
                node = document["$defs"][target["$ref"].rsplit("/", 1)[1]] if "$ref" in target else target
            node = node["items"] if key == "[]" else node["properties"][key]
    return node


def test_the_readme_shows_what_the_workloads_schema_says():
    """The README's table of what an editor's hover and completion show: the schema's own words."""
    document = schemas.schema("workloads")
    rows = re.findall(r"^\| `([a-z_\[\].]+)` \| (.+?) \|\s*(.*?)\s*\|$", (ROOT / "README.md").read_text(), re.M)
    assert len(rows) >= 8
    for path, hover, values in rows:
        field = _at(document, path)
        assert hover == field["description"], path
        offered = (
            field.get("enum") or field.get("examples") or (["true", "false"] if field.get("type") == "boolean" else [])
        )
        assert values.split() == [f"`{v}`" for v in offered], path
