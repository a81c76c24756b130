"""The aggregation (planner/traffic/sql/aggregate.sql) and the files made of it: `from-aggregates` on the SQL's
result, run here by DuckDB over a calls table built without the planner's readers, writes what
`from-logs` writes; the distribution's bins merge as documented."""

import csv
import datetime as dt
import json

import duckdb
import pytest
from conftest import DATA, ROOT
from typer.testing import CliRunner

from planner.cli.app import app
from planner.traffic.aggregate import Group, aggregate_sql, coarsen

runner = CliRunner()
LOGS = DATA / "logs"
AZURE = ROOT / "traces" / "azure_llm_trace_conv_2023-11.csv"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def data_lines(path):
    return [line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]


def _us(text: str) -> int:
    """Microseconds since 1970 UTC of '2023-11-16 18:15:46.6805900' (digits past the sixth cut)."""
    day, _, frac = text.replace("T", " ").rstrip("Z").partition(".")
    t = dt.datetime.strptime(day, "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.UTC)
    return int(t.timestamp()) * 1_000_000 + int((frac + "000000")[:6])


def _azure_calls():
    with open(AZURE, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [
        ("conversation", f"row-{k}", _us(r["TIMESTAMP"]), int(r["ContextTokens"]), int(r["GeneratedTokens"]), 0, 0)
        for k, r in enumerate(rows)
    ]


def _litellm_calls():
    with open(LOGS / "litellm_spend_logs.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["status"] != "failure"]
    out = []
    for r in rows:
        usage = json.loads(r["metadata"])["usage_object"]
        reasoning = usage["completion_tokens_details"]["reasoning_tokens"]
        out.append(
            (
                r["model_group"],
                r["session_id"] or r["request_id"],
                _us(r["startTime"]),
                int(r["prompt_tokens"]),
                int(r["completion_tokens"]) - reasoning,
                reasoning,
                usage["prompt_tokens_details"]["cached_tokens"],
            )
        )
    return out


def _warehouse(calls, path):
    """aggregate.sql run as a warehouse would: over a `calls` table (loaded from a CSV written here), the
    result saved as CSV."""
    table = path.with_name("calls.csv")
    with open(table, "w", newline="") as fh:
        writer = csv.writer(fh)
        for w, t, us, i, o, r, c in calls:
            writer.writerow([w, t, repr(us / 1e6), us // 60_000_000, i, o, r, c])
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE calls (workload VARCHAR, task_id VARCHAR, start_s DOUBLE, start_minute BIGINT, "
        "input_tokens BIGINT, output_tokens BIGINT, reasoning_tokens BIGINT, cached_tokens BIGINT)"
    )
    con.execute(f"COPY calls FROM '{table}' (HEADER false)")
    con.execute(f"COPY ({aggregate_sql()}) TO '{path}' (HEADER, DELIMITER ',')")
    con.close()


@pytest.mark.parametrize(
    "logs, fmt, calls",
    [
        (AZURE, ["--format", "csv", "--workload", "conversation"], _azure_calls),
        (LOGS / "litellm_spend_logs.csv", ["--format", "litellm"], _litellm_calls),
    ],
)
def test_from_aggregates_writes_what_from_logs_writes(tmp_path, logs, fmt, calls):
    direct = tmp_path / "direct" / "w.yaml"
    result = run("workloads", "from-logs", logs, *fmt, "--out", direct, "--aggregates", tmp_path / "mine.csv")
    assert result.exit_code == 0, result.output
    _warehouse(calls(), tmp_path / "result.csv")
    via = tmp_path / "via" / "w.yaml"
    result = run("workloads", "from-aggregates", tmp_path / "result.csv", "--out", via)
    assert result.exit_code == 0, result.output
    assert data_lines(via) == data_lines(direct)
    dists = sorted(p.name for p in direct.parent.glob("*.distribution.csv"))
    assert dists and dists == sorted(p.name for p in via.parent.glob("*.distribution.csv"))
    for name in dists:
        assert data_lines(via.parent / name) == data_lines(direct.parent / name)
    # and the CSV from-logs writes with --aggregates reads back to the same files
    again = tmp_path / "again" / "w.yaml"
    assert run("workloads", "from-aggregates", tmp_path / "mine.csv", "--out", again).exit_code == 0
    assert data_lines(again) == data_lines(direct)


def test_exact_rows_when_few(tmp_path):
    out = tmp_path / "w.yaml"
    assert (
        run("workloads", "from-logs", LOGS / "litellm_spend_logs.csv", "--format", "litellm", "--out", out).exit_code
        == 0
    )
    lines = data_lines(tmp_path / "w.triage-agent.distribution.csv")
    assert lines[0] == "weight,calls,input,output,reasoning,cached_input"
    # each session: three calls, prompts 4000 + 600 x turn + 100 x session, answers 150, 170, 190, two cached
    assert lines[1:] == [f"1,3,{4600 + 100 * j},170,0,1365.33" for j in range(4)]
    assert "How sampled: exact" in (tmp_path / "w.triage-agent.distribution.csv").read_text()


def test_bins_merge_two_by_two():
    bins = [Group(1, k + 1, (10 * k, k, 0, 0), (k, k, k % 3, 0, 0)) for k in range(40)]
    merged, level = coarsen(bins, 10)
    assert len(merged) <= 10 and level == 2  # 40 distinct keys; halved: 20; halved again: 10
    assert sum(g.weight for g in merged) == 40 and sum(g.calls for g in merged) == sum(k + 1 for k in range(40))
    assert sum(g.sums[0] for g in merged) == sum(10 * k for k in range(40))
    assert coarsen(bins, 40) == (sorted(bins, key=lambda g: g.key), 0)


def test_bad_aggregates_are_one_line(tmp_path):
    bad = tmp_path / "agg.csv"
    bad.write_text("kind,workload,weight\nspan,,3\n")
    result = run("workloads", "from-aggregates", bad, "--out", tmp_path / "w.yaml")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "no column calls" in result.stderr
