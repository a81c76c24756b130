"""Request logs read into the calls table: LiteLLM spend logs (CSV, JSON lines, Parquet), OpenTelemetry
GenAI spans, a plain CSV with a mapping, the Azure public trace; and `planner workloads from-logs`, its
rules checked against computations of their own here."""

import collections
import csv
import datetime as dt
import hashlib
import json
import math
from pathlib import Path

import pytest
import yaml
from conftest import DATA, ROOT
from typer.testing import CliRunner

from planner.cli.app import app
from planner.traffic.logs import LogOptions, open_logs

runner = CliRunner()
LOGS = DATA / "logs"
AZURE = ROOT / "traces" / "azure_llm_trace_conv_2023-11.csv"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def data_lines(path):
    """A written file without its comments."""
    return [line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]


def workloads(path):
    return {w["id"]: w for w in yaml.safe_load(path.read_text())["workloads"]}


def test_the_azure_trace_is_the_published_file():
    sums = dict(reversed(line.split()) for line in (ROOT / "traces" / "SHA256SUMS").read_text().splitlines())
    assert hashlib.sha256(AZURE.read_bytes()).hexdigest() == sums[AZURE.name]
    assert AZURE.read_bytes().count(b"\r\n") == 19366  # CRLF kept (the last line has no line end)


def _azure_rows():
    with open(AZURE, newline="") as fh:
        return list(csv.DictReader(fh))


def _epoch(text: str) -> float:
    """A TIMESTAMP of the trace as seconds since 1970 UTC (the 7th fractional digit cut, as the reader does)."""
    day, frac = text.split(".")
    t = dt.datetime.strptime(day, "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.UTC)
    return t.timestamp() + int(frac[:6]) / 1e6


def test_from_logs_on_the_azure_trace(tmp_path):
    out = tmp_path / "azure-conv.yaml"
    result = run(
        "workloads",
        "from-logs",
        AZURE,
        "--format",
        "csv",
        "--workload",
        "conversation",
        "--out",
        out,
        "--catalog",
        DATA / "tiny-catalog.yaml",
    )
    assert result.exit_code == 0, result.output
    rows = _azure_rows()
    starts = [_epoch(r["TIMESTAMP"]) for r in rows]
    minutes = (max(starts) - min(starts)) / 60
    w = workloads(out)["conversation"]
    # tasks per period: tasks seen x minutes in a month / minutes seen (one call per task: no ids)
    assert w["tasks"] == pytest.approx(len(rows) * 43200 / minutes, abs=0.01)
    # the peak: the most tasks starting in one calendar minute
    assert w["peak_tasks_per_minute"] == max(collections.Counter(r["TIMESTAMP"][:16] for r in rows).values()) == 502
    assert w["turns"] == 1
    assert w["tokens"]["input"] == pytest.approx(1154.7, abs=0.05)  # PROVENANCE.md's means
    assert w["tokens"]["output"] == pytest.approx(211.1, abs=0.05)
    assert w["tokens"]["reasoning"] == 0 and w["tokens"]["cached_input_share"] == 0
    text = out.read_text()
    assert "sha256 2f1e5b666d4e3055fdbba98598ce2ec307767b9064e03e2fa46676dbcc7d0bf8" in text
    assert "2023-11-16 18:15:46 to 2023-11-16 19:14:08 UTC" in text and "19,366 rows" in text
    assert "a person fills them in" in text
    # the distribution: at most 2,000 rows standing for every task, the tails kept
    dist = tmp_path / w["distribution"]
    sample = list(csv.DictReader(line for line in dist.read_text().splitlines() if not line.startswith("#")))
    assert 100 < len(sample) <= 2000
    assert sum(int(r["weight"]) for r in sample) == len(rows)
    assert {r["calls"] for r in sample} == {"1"}
    biggest = max(float(r["input"]) for r in sample)
    assert biggest > 0.9 * max(int(r["ContextTokens"]) for r in rows)  # the longest prompts have rows of their own
    inputs = sorted(int(r["ContextTokens"]) for r in rows)
    p99 = inputs[math.ceil(0.99 * len(inputs)) - 1]
    above = sum(int(r["weight"]) for r in sample if float(r["input"]) > p99)
    assert abs(above - sum(1 for x in inputs if x > p99)) <= 0.02 * len(rows)  # the tail beyond p99, by weight
    assert "How sampled: sketch" in dist.read_text()
    # same logs, same bytes; and the file plans
    again = tmp_path / "again" / "azure-conv.yaml"
    run(
        "workloads",
        "from-logs",
        AZURE,
        "--format",
        "csv",
        "--workload",
        "conversation",
        "--out",
        again,
        "--catalog",
        DATA / "tiny-catalog.yaml",
    )
    assert (again.parent / dist.name).read_bytes() == dist.read_bytes()
    same = lambda path: [line for line in data_lines(path) if not line.startswith("catalog:")]
    assert same(again) == same(out)
    solved = run("solve", out, "--out", tmp_path / "reports")
    assert solved.exit_code == 0, solved.output


def _litellm_rows():
    with open(LOGS / "litellm_spend_logs.csv", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("kind", ["csv", "jsonl", "parquet"])
def test_litellm_spend_logs(tmp_path, kind):
    source = LOGS / f"litellm_spend_logs.{'jsonl' if kind == 'jsonl' else 'csv'}"
    if kind == "parquet":
        import duckdb

        source = tmp_path / "spend.parquet"
        con = duckdb.connect()
        table = f"read_csv('{LOGS / 'litellm_spend_logs.csv'}', all_varchar = true)"
        con.execute(f"COPY (SELECT * FROM {table}) TO '{source}' (FORMAT parquet)")
        con.close()
    out = tmp_path / "spend.yaml"
    result = run("workloads", "from-logs", source, "--format", "litellm", "--out", out)
    assert result.exit_code == 0, result.output
    got = workloads(out)
    assert sorted(got) == ["research", "support-chat", "triage-agent"]  # by model_group
    rows = [r for r in _litellm_rows() if r["status"] != "failure"]
    for wid, w in got.items():
        mine = [r for r in rows if r["model_group"] == wid]
        meta = [json.loads(r["metadata"])["usage_object"] for r in mine]
        tasks = {r["session_id"] or r["request_id"] for r in mine}  # a session is a task; else a call is
        reasoning = sum(m["completion_tokens_details"]["reasoning_tokens"] for m in meta)
        cached = sum(m["prompt_tokens_details"]["cached_tokens"] for m in meta)
        prompt = sum(int(r["prompt_tokens"]) for r in mine)
        completion = sum(int(r["completion_tokens"]) for r in mine)
        assert w["turns"] == round(len(mine) / len(tasks))
        assert w["tokens"]["input"] == pytest.approx(prompt / len(mine), rel=1e-5)
        assert w["tokens"]["reasoning"] == pytest.approx(reasoning / len(mine), rel=1e-5)
        assert w["tokens"]["output"] == pytest.approx((completion - reasoning) / len(mine), rel=1e-5)
        assert w["tokens"]["cached_input_share"] == pytest.approx(cached / prompt, rel=1e-5)
    text = out.read_text()
    assert "Left out: 1 failed calls (status failure)." in text
    assert "Tasks: calls with the same session_id are one task" in text


def test_litellm_by_tag_and_by_call(tmp_path):
    out = tmp_path / "t.yaml"
    assert (
        run(
            "workloads",
            "from-logs",
            LOGS / "litellm_spend_logs.csv",
            "--format",
            "litellm",
            "--group-by",
            "tag",
            "--task-by",
            "call",
            "--out",
            out,
        ).exit_code
        == 0
    )
    got = workloads(out)
    assert sorted(got) == ["research", "support", "triage"]  # the first tag of each request
    assert {w["turns"] for w in got.values()} == {1}


def test_otel_genai_spans(tmp_path):
    out = tmp_path / "o.yaml"
    result = run("workloads", "from-logs", LOGS / "otel_genai_spans.jsonl", "--format", "otel", "--out", out)
    assert result.exit_code == 0, result.output
    got = workloads(out)
    assert sorted(got) == ["summarizer", "support-bot"]  # service.name
    bot = got["support-bot"]
    # two chat spans per trace; the invoke_agent and execute_tool spans are not model calls
    assert bot["turns"] == 2
    assert bot["tokens"]["input"] == 1750 and bot["tokens"]["cached_input_share"] == pytest.approx(
        3072 / 10500, rel=1e-5
    )
    summ = got["summarizer"]
    # output_tokens include the reasoning ones (the semantic conventions): 900 - 600 answer tokens
    assert summ["tokens"]["output"] == 300 and summ["tokens"]["reasoning"] == 600 and summ["turns"] == 1
    text = out.read_text()
    assert "Left out: 1 model calls that failed (status ERROR)." in text
    assert "Left out: 6 spans that are not model calls" in text
    # by conversation: the first two support traces share gen_ai.conversation.id conv_0
    conv = tmp_path / "c.yaml"
    assert (
        run(
            "workloads",
            "from-logs",
            LOGS / "otel_genai_spans.jsonl",
            "--format",
            "otel",
            "--task-by",
            "conversation",
            "--out",
            conv,
        ).exit_code
        == 0
    )
    assert workloads(conv)["support-bot"]["turns"] == 3  # 6 calls in 2 conversations


def test_plain_csv_with_a_mapping(tmp_path):
    out = tmp_path / "p.yaml"
    result = run(
        "workloads",
        "from-logs",
        LOGS / "calls.csv",
        "--format",
        "csv",
        "--map",
        "ts=time",
        "--map",
        "prompt=input",
        "--map",
        "completion=output",
        "--map",
        "thinking=reasoning",
        "--map",
        "cache_hits=cached_input",
        "--group-by",
        "agent",
        "--task-by",
        "job",
        "--out",
        out,
        "--period",
        "day",
    )
    assert result.exit_code == 0, result.output
    got = workloads(out)
    planner, writer = got["planner"], got["writer"]
    assert planner["turns"] == 2  # jobs 1, 2, 6: 3 + 2 + 1 calls
    assert planner["tokens"]["reasoning"] == pytest.approx(250 / 6, rel=1e-5)
    assert planner["tokens"]["output"] == pytest.approx((2000 - 250) / 6, rel=1e-5)
    # 4 writer tasks (a row without a job is a task of its own) in the logs' window, 09:00:01 to 09:03:00
    assert writer["tasks"] == pytest.approx(4 * 1440 / (179 / 60), abs=0.01)
    assert writer["peak_tasks_per_minute"] == 3  # jobs 3, 4 and 5 start in the minute from 09:01
    assert yaml.safe_load(out.read_text())["period"] == "day"


def _one_line_error(result, *words):
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def test_bad_logs_are_one_line(tmp_path):
    out = tmp_path / "w.yaml"
    line = _one_line_error(
        run("workloads", "from-logs", AZURE, "--format", "splunk", "--out", out), "--format", "splunk"
    )
    assert "litellm, otel, csv" in line
    bad = tmp_path / "bad.csv"
    bad.write_text("when,in,out\n2026-05-04 09:00:00,10,20\n")
    _one_line_error(
        run("workloads", "from-logs", bad, "--format", "csv", "--out", out),
        str(bad),
        "no column for the call's start time",
    )
    bad.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2026-05-04 09:00:00,10,20\nyesterday,10,20\n")
    line = _one_line_error(
        run("workloads", "from-logs", bad, "--format", "csv", "--out", out), "TIMESTAMP", '"yesterday"'
    )
    assert line.startswith(f"{bad}:3: TIMESTAMP: ") and "not a date and time" in line
    bad.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2026-05-04 09:00:00,10,20\n2026-05-04 09:01:00,10.5,20\n")
    line = _one_line_error(
        run("workloads", "from-logs", bad, "--format", "csv", "--out", out), "ContextTokens", "whole number"
    )
    assert line.startswith(f"{bad}:3: ")
    # a LiteLLM export without prompt_tokens; a JSON line with a start time that is no time
    rows = _litellm_rows()
    spend = tmp_path / "spend.csv"
    with open(spend, "w", newline="") as fh:
        writer = csv.DictWriter(fh, [k for k in rows[0] if k != "prompt_tokens"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    _one_line_error(
        run("workloads", "from-logs", spend, "--format", "litellm", "--out", out), "no column 'prompt_tokens'"
    )
    lines = (LOGS / "litellm_spend_logs.jsonl").read_text().splitlines()
    broken = json.loads(lines[4])
    broken["startTime"] = "2026-13-45T99:00:00Z"
    lines[4] = json.dumps(broken)
    spend = tmp_path / "spend.jsonl"
    spend.write_text("\n".join(lines) + "\n")
    line = _one_line_error(run("workloads", "from-logs", spend, "--format", "litellm", "--out", out), "startTime")
    assert line.startswith(f"{spend}:5: startTime: ")
    # options
    _one_line_error(
        run("workloads", "from-logs", AZURE, "--format", "csv", "--map", "ContextTokens=prompt", "--out", out),
        "unknown field 'prompt'",
    )
    _one_line_error(
        run("workloads", "from-logs", AZURE, "--format", "litellm", "--map", "a=input", "--out", out), "--map"
    )
    _one_line_error(run("workloads", "from-logs", AZURE, "--format", "otel", "--out", out), "--format otel expects")
    _one_line_error(
        run("workloads", "from-logs", AZURE, "--format", "csv", "--group-by", "agent", "--out", out),
        "no column 'agent'",
    )
    _one_line_error(
        run("workloads", "from-logs", AZURE, "--format", "csv", "--period", "fortnight", "--out", out), "unknown period"
    )
    _one_line_error(
        run("workloads", "from-logs", tmp_path / "none.csv", "--format", "csv", "--out", out), "file not found"
    )
    assert not out.exists() and not list(tmp_path.glob("w.*"))  # nothing written


def test_an_otel_file_that_is_not_traces(tmp_path):
    bad = tmp_path / "metrics.jsonl"
    bad.write_text('{"resourceMetrics": []}\n')
    _one_line_error(run("workloads", "from-logs", bad, "--format", "otel", "--out", tmp_path / "w.yaml"), "no spans")


def test_the_logs_folder_is_removed(tmp_path):
    import tempfile

    before = set(Path(tempfile.gettempdir()).glob("planner-logs-*"))
    with open_logs([AZURE], LogOptions("csv")) as logs:
        assert logs.calls == 19366 and logs.default_workload == "azure_llm_trace_conv_2023-11"
        folder = Path(logs.folder)
        assert folder.exists()
    assert not folder.exists()
    assert set(Path(tempfile.gettempdir()).glob("planner-logs-*")) == before


def test_the_shipped_azure_workload_is_what_from_logs_writes(tmp_path, monkeypatch):
    """workloads/azure-conv.yaml: from-logs' file, with a person's budget and floor in place of the
    commented lines; its distribution file byte for byte (the trace named as from the repository's root)."""
    monkeypatch.chdir(ROOT)
    shipped = ROOT / "workloads" / "azure-conv.yaml"
    out = tmp_path / "workloads" / "azure-conv.yaml"
    (tmp_path / "catalogs").mkdir()
    (tmp_path / "catalogs" / "aa-2026-06.yaml").write_bytes((ROOT / "catalogs" / "aa-2026-06.yaml").read_bytes())
    result = run(
        "workloads", "from-logs", "traces/azure_llm_trace_conv_2023-11.csv", "--format", "csv", "--workload",
        "conversation", "--catalog", tmp_path / "catalogs" / "aa-2026-06.yaml", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    mine = [line for line in data_lines(out) if not line.startswith("catalog:")]
    theirs = [line for line in data_lines(shipped) if not line.startswith("catalog:")]
    person = [line for line in theirs if line.strip().startswith(("latency:", "capability:"))]
    assert person == [
        "    latency: {budget_s: 7, within_budget_share: 0.95}",
        '    capability: {min: {like: "Kimi K2.6 (Non-reasoning)"}}',
    ]
    assert [line for line in theirs if line not in person] == mine
    dist = "azure-conv.conversation.distribution.csv"
    assert (out.parent / dist).read_bytes() == (ROOT / "workloads" / dist).read_bytes()
    assert "Chosen by a person" in shipped.read_text()
