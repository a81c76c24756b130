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
