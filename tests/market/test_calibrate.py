"""planner catalog calibrate on the LiteLLM fixture: each offering seen gets the median time to first
token and output speed of its own streamed calls (recomputed here from the rows), matched by gateway id
or model name; offerings not seen, or seen only thinking, keep their figures."""

import csv
import datetime as dt
import json

import pytest
import yaml
from conftest import DATA
from typer.testing import CliRunner

from planner.cli.app import app
from planner.market.calibrate import match
from planner.model.load import load_catalog

runner = CliRunner()
LOGS = DATA / "logs"
CATALOG = LOGS / "catalog.yaml"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _t(text: str) -> float:
    return dt.datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=dt.UTC).timestamp()


def _nearest(values, per_mille):
    values = sorted(values)
    return values[(per_mille * len(values) + 999) // 1000 - 1]


def test_calibrate_on_litellm_logs(tmp_path):
    out = tmp_path / "calibrated.yaml"
    result = run(
        "catalog",
        "calibrate",
        CATALOG,
        LOGS / "litellm_spend_logs.csv",
        "--format",
        "litellm",
        "--out",
        out,
        "--min-calls",
        "3",
    )
    assert result.exit_code == 0, result.output
    before = {o.id: o for o in load_catalog(CATALOG).offerings}
    after = {o.id: o for o in load_catalog(out).offerings}
    with open(LOGS / "litellm_spend_logs.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["status"] != "failure"]
    prefill = {"llama-3.3-70b": 50000.0}
    for oid, model in (("mini@openai", "gpt-4o-mini"), ("llama@cerebras", "llama-3.3-70b")):
        ttft, speed = [], []
        for r in rows:
            if r["model"] != model:
                continue
            start, first, end = _t(r["startTime"]), _t(r["completionStartTime"]), _t(r["endTime"])
            reasoning = json.loads(r["metadata"])["usage_object"]["completion_tokens_details"]["reasoning_tokens"]
            if not (start < first < end) or reasoning:
                continue
            ttft.append(max(0.0, first - start - int(r["prompt_tokens"]) / prefill.get(model, float("inf"))))
            if int(r["completion_tokens"]) >= 10:
                speed.append(int(r["completion_tokens"]) / (end - first))
        assert after[oid].speed.ttft_s == pytest.approx(round(_nearest(ttft, 500), 3), abs=1e-9)
        assert after[oid].speed.output_tps == pytest.approx(round(_nearest(speed, 500), 1), abs=1e-9)
        assert after[oid].speed.prefill_tps == before[oid].speed.prefill_tps
        assert "litellm_spend_logs.csv" in after[oid].source and "2026-05-04 09:" in after[oid].source
        assert f"{len(ttft)} timed calls" in after[oid].source and after[oid].source.startswith("test figures; ")
        assert after[oid].price == before[oid].price
    assert after["mini@openai"].speed.ttft_s == 0.42  # the fifth of ten first-token times
    # o4-mini only thinks (reasoning tokens, not streamed): kept; sonnet and the GPU llama: not seen
    for oid in ("o4-mini@openai", "sonnet@anthropic", "llama@gpu"):
        assert after[oid] == before[oid]
    assert "o4-mini@openai: 0 timed calls of 4, fewer than 3: figures kept" in result.stderr
    text = out.read_text()
    assert text.startswith("# yaml-language-server: $schema=../../../schemas/catalog.schema.json\n")
    assert "sha256 39dfaa76" in text
    # the calibrated catalog plans
    wl = tmp_path / "w.yaml"
    wl.write_text(
        yaml.safe_dump(
            {
                "catalog": "calibrated.yaml",
                "workloads": [{"id": "chat", "tasks": 1000, "tokens": {"input": 1000, "output": 200}}],
            }
        )
    )
    assert run("solve", wl, "--out", tmp_path / "r").exit_code == 0


def test_the_default_needs_twenty_timed_calls(tmp_path):
    out = tmp_path / "c.yaml"
    result = run("catalog", "calibrate", CATALOG, LOGS / "litellm_spend_logs.csv", "--format", "litellm", "--out", out)
    assert result.exit_code == 0, result.output
    assert load_catalog(out).offerings == load_catalog(CATALOG).offerings
    assert "fewer than 20: figures kept" in result.stderr


def test_calibrate_on_otel_spans(tmp_path):
    out = tmp_path / "c.yaml"
    result = run(
        "catalog",
        "calibrate",
        CATALOG,
        LOGS / "otel_genai_spans.jsonl",
        "--format",
        "otel",
        "--out",
        out,
        "--min-calls",
        "1",
    )
    assert result.exit_code == 0, result.output
    mini = {o.id: o for o in load_catalog(out).offerings}["mini@openai"]
    # time to first chunk 0.35 s on first calls and 0.40 s on second ones: the nearest-rank median of six
    assert mini.speed.ttft_s == 0.35
    assert "deepseek/deepseek-reasoner: 3 calls not used: no offering" in result.stderr


def test_matching_rules():
    cat = load_catalog(CATALOG)
    assert match("mini@openai", None, cat)[0].id == "mini@openai"  # an offering id
    assert match("gpt-4o-mini", "openai", cat)[0].id == "mini@openai"  # provider/model: the litellm id
    assert match("openrouter/openai/gpt-4o-mini", None, cat)[0].id == "mini@openai"  # an OpenRouter id
    assert match("claude-sonnet", "anthropic", cat)[0].id == "sonnet@anthropic"  # the only offering of a model
    off, why = match("llama-3.3-70b", "groq", cat)
    assert off is None and why.startswith("ambiguous: 2 offerings run llama-3.3-70b")
    assert match("gpt-9", None, cat)[0] is None


def test_calibrating_from_logs_drops_the_lengths_measured_elsewhere(tmp_path):
    """Logged calls are of every prompt length: a speed calibrated from them states no length, so the
    figures measured elsewhere at other lengths no longer go with it and are dropped, which the source says."""
    logs = LOGS
    data = yaml.safe_load((logs / "catalog.yaml").read_text())
    mini = next(o for o in data["offerings"] if o["id"] == "mini@openai")
    mini["speed"].update({"input_tokens": 1000, "by_input": {10000: {"output_tps": 50, "ttft_s": 2.0}}})
    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "c.yaml"
    args = ["catalog", "calibrate", str(path), str(logs / "otel_genai_spans.jsonl"), "--format", "otel"]
    result = run(*args, "--out", out, "--min-calls", "1")
    assert result.exit_code == 0, result.output
    got = next(o for o in load_catalog(out).offerings if o.id == "mini@openai")
    assert got.speed.ttft_s == 0.35 and got.speed.input_tokens is None and got.speed.by_input is None
    assert "its speeds by prompt length dropped: the logged calls are of every length" in got.source
