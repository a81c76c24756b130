"""The catalog's speeds by prompt length (SPEC "Speeds by prompt length (v1.8, issue 27)"): what the schema
accepts, and every way of getting it wrong as one line on stderr and exit 2."""

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.app import app
from planner.model.schema import Speed

runner = CliRunner()

SPEED = {"output_tps": 400.0, "ttft_s": 0.6}


def catalog_file(tmp_path, speed: dict):
    path = tmp_path / "cat.yaml"
    offering = {"id": "a", "model": "a", "vendor": "v", "capability": 50, "price": {"input": 1, "output": 1}}
    path.write_text(yaml.safe_dump({"catalog": "t", "offerings": [{**offering, "speed": speed}]}, sort_keys=False))
    return path


def test_lengths_are_optional_and_read_as_written():
    """Old catalogs stay valid; keys arrive as integers from YAML and as text from JSON (scenarios)."""
    assert Speed.model_validate(SPEED).by_input is None
    speed = Speed.model_validate(
        {**SPEED, "input_tokens": 10000, "by_input": {"1000": {"ttft_s": 0.2}, 100000: {"output_tps": 200.0}}}
    )
    assert speed.input_tokens == 10000 and sorted(speed.by_input) == [1000, 100000]
    assert speed.by_input[1000].output_tps is None and speed.by_input[100000].ttft_s is None


@pytest.mark.parametrize(
    "extra, where, what",
    [
        ({"input_tokens": 10000, "by_input": {0: {"ttft_s": 1.0}}}, "speed.by_input[0].[key]", "greater than 0"),
        ({"input_tokens": 10000, "by_input": {-1000: {"ttft_s": 1.0}}}, "speed.by_input[-1000]", "greater than 0"),
        ({"input_tokens": 10000, "by_input": {"ten": {"ttft_s": 1.0}}}, "speed.by_input.ten", "valid integer"),
        ({"input_tokens": 0}, "speed.input_tokens", "should be greater than 0, found 0"),
        ({"input_tokens": 10**10}, "speed.input_tokens", "less than or equal to 1000000000"),
        ({"input_tokens": 10000, "by_input": {1000: {"output_tps": 0}}}, "by_input[1000].output_tps", "greater than 0"),
        (
            {"input_tokens": 10000, "by_input": {1000: {"ttft_s": -0.1}}},
            "by_input[1000].ttft_s",
            "greater than or equal",
        ),
        ({"input_tokens": 10000, "by_input": {1000: {"ttft_s": "fast"}}}, "by_input[1000].ttft_s", "valid number"),
        ({"input_tokens": 10000, "by_input": {1000: {}}}, "by_input[1000]", "give output_tps, ttft_s or both"),
        ({"input_tokens": 10000, "by_input": {1000: {"tps": 5}}}, "by_input[1000].tps", "unknown key 'tps'"),
        ({"by_input": {1000: {"ttft_s": 0.2}}}, "offerings[0].speed", "by_input needs input_tokens"),
        (
            {"input_tokens": 10000, "by_input": {10000: {"ttft_s": 0.2}}},
            "offerings[0].speed",
            "by_input.10000: output_tps and ttft_s are the figures at input_tokens (10000)",
        ),
    ],
    ids=[
        "zero-length",
        "negative-length",
        "length-not-a-number",
        "zero-input-tokens",
        "input-tokens-too-large",
        "zero-speed",
        "negative-ttft",
        "ttft-text",
        "no-figure",
        "unknown-figure",
        "no-input-tokens",
        "reference-repeated",
    ],
)
def test_a_bad_length_is_one_line_exit_2(tmp_path, extra, where, what):
    path = catalog_file(tmp_path, {**SPEED, **extra})
    result = runner.invoke(app, ["catalog", "validate", str(path)])
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1 and "cat.yaml:" in line and where in line and what in line, line
    assert "Traceback" not in result.output


def _lengths_inputs():
    """two_vendors() with a-fast's speed measured at 1,000 input tokens and at 100 and 10,000."""
    from conftest import make_inputs, two_vendors

    inputs = two_vendors()
    cat = inputs.catalog.model_dump(mode="json", exclude_none=True)
    cat["offerings"][0]["speed"].update(
        {
            "ttft_s": 0.2,
            "input_tokens": 1000,
            "by_input": {100: {"ttft_s": 0.1}, 10000: {"output_tps": 500.0, "ttft_s": 0.8}},
        }
    )
    return make_inputs(inputs.workloads.model_dump(mode="json", exclude_none=True), cat)


@pytest.mark.parametrize(
    "field, value, tps, ttft",
    [
        ("speed.output_tps", "*0.5", 250.0, 0.8),
        ("speed.ttft_s", "+0.5", 500.0, 1.3),
        ("speed.ttft_s", 0.4, 500.0, 1.6),  # a number: the figures at every length scaled by new / old
    ],
)
def test_a_speed_edit_takes_its_figures_at_other_lengths_along(field, value, tps, ttft):
    """A what-if that makes an offering twice as slow makes it twice as slow at every prompt length: the
    figures at other lengths move as the percentiles do (SPEC "Speeds by prompt length")."""
    from planner.model.scenarios import apply_scenario
    from planner.model.schema import Scenario

    sc = Scenario.model_validate({"name": "s", "catalog": [{"match": {"id": "a-fast"}, "set": {field: value}}]})
    got = apply_scenario(_lengths_inputs(), sc, "s.yaml").catalog.offerings[0].speed.by_input
    assert got[10000].output_tps == pytest.approx(tps) and got[10000].ttft_s == pytest.approx(ttft)
    assert got[100].output_tps is None  # a figure not measured at a length stays unmeasured


def test_catalog_diff_lists_a_changed_figure_at_a_length(tmp_path):
    from planner.market.diff import diff_catalogs
    from planner.model.schema import Catalog

    before = _lengths_inputs().catalog
    data = before.model_dump(mode="json", exclude_none=True)
    data["offerings"][0]["speed"]["by_input"]["10000"]["ttft_s"] = 1.0
    rows = diff_catalogs(before, Catalog.model_validate(data))
    assert [(r["offering"], r["field"], r["before"], r["after"]) for r in rows] == [
        ("a-fast", "speed.by_input.10000.ttft_s", 0.8, 1.0)
    ]
