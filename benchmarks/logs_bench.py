"""Benchmark (issue 18): `planner workloads from-logs` and `planner replay` on generated request logs.

    python benchmarks/logs_bench.py                    # 10,000,000 rows (generated once, then reused)
    python benchmarks/logs_bench.py --rows 200000      # a quick look

The generator writes a LiteLLM spend-log export (LiteLLM_SpendLogs as CSV, the columns the planner reads
and a compact metadata JSON with cached and reasoning tokens) of N rows over one day, in DuckDB, so that
ten million rows take seconds to write: five model groups (chat: one call a task; voice: two; agent:
four; triage: six, thinking; summaries: one, long prompts), sessions as tasks, prompt and answer
lengths log-normal (long tails), later calls of a session half cached. Every value is a function of the
row number, so the same N gives the same file.

Measured, each as its own command in a fresh process under /usr/bin/time -v (wall time and peak
resident memory): from-logs on the file; then, after budgets are written into the workloads file and it
is solved against catalogs/aa-2026-06.yaml (not measured), replay of that plan on the same file.
Targets: under 60 s and under 1 GB each.

Issue 25 adds a plain CSV of the same N rows (TIMESTAMP, ContextTokens, GeneratedTokens, as the Azure
trace has them; no task ids, so every call is its own task `call-N`, numbered by a sort of all the
calls), read by from-logs --format csv at the default settings: the case that ran out of memory.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "out" / "logs"
GROUPS = ("chat", "voice", "agent", "triage", "summaries")  # row i belongs to GROUPS[i % 5]
CALLS = {"chat": 1, "voice": 2, "agent": 4, "triage": 6, "summaries": 1}
BUDGETS = {
    "chat": {"threshold": "attentive", "within_budget_share": 0.95},
    "voice": {"budget_s": 2.5, "streaming": True, "within_budget_share": 0.9},
    "agent": {"budget_s": 30, "within_budget_share": 0.9},
    "triage": {"budget_s": 120, "within_budget_share": 0.9},
    "summaries": {"threshold": "background"},
}


def generate(rows: int, path: Path) -> float:
    """The spend log of `rows` rows; the seconds it took."""
    import duckdb

    u = lambda k: f"((hash(i * 7 + {k}) % 1000003) / 1000003.0 + 0.5 / 1000003.0)"  # uniform in (0, 1)
    z = lambda k: f"(sqrt(-2 * ln({u(k)})) * cos(2 * pi() * {u(k + 1)}))"  # standard normal (Box-Muller)
    calls = "CASE g " + " ".join(f"WHEN '{g}' THEN {n}" for g, n in CALLS.items()) + " END"
    mu = "CASE g WHEN 'summaries' THEN 9.0 WHEN 'agent' THEN 8.0 WHEN 'triage' THEN 7.6 ELSE 6.9 END"
    query = f"""
    WITH base AS (
        SELECT i, {_groups()} AS g, i // 5 AS j,
               TIMESTAMP '2026-05-04 00:00:00' + to_microseconds(CAST(i * (86400e6 / {rows}) AS BIGINT)) AS t
        FROM range({rows}) AS r(i)
    ),
    shaped AS (
        SELECT *, {calls} AS per_task,
               greatest(5, round(exp({mu} + 0.8 * {z(1)}))) AS prompt,
               greatest(1, round(exp(5.0 + 0.7 * {z(3)}))) AS answer,
               CASE WHEN g = 'triage' THEN greatest(0, round(300 * exp(0.5 * {z(5)}))) ELSE 0 END AS reasoning
        FROM base
    )
    SELECT 'req-' || i AS request_id,
           CAST(t AS VARCHAR) AS "startTime",
           CAST(t + {_after("0.3 + prompt / 20000 + (reasoning + answer) / 90.0")} AS VARCHAR) AS "endTime",
           CAST(t + {_after("0.3 + prompt / 20000 + reasoning / 90.0")} AS VARCHAR) AS "completionStartTime",
           'model-' || g AS model, g AS model_group, 'openai' AS custom_llm_provider,
           CAST(prompt AS BIGINT) AS prompt_tokens, CAST(answer + reasoning AS BIGINT) AS completion_tokens,
           g || '-' || (j // per_task) AS session_id,
           '["' || g || '"]' AS request_tags,
           '{{"usage_object": {{"prompt_tokens_details": {{"cached_tokens": ' ||
               CAST(CASE WHEN j % per_task > 0 THEN prompt // 2 ELSE 0 END AS BIGINT) ||
               '}}, "completion_tokens_details": {{"reasoning_tokens": ' || CAST(reasoning AS BIGINT) || '}}}}}}'
               AS metadata,
           'success' AS status
    FROM shaped
    """
    start = time.perf_counter()
    con = duckdb.connect()
    con.execute(f"COPY ({query}) TO $path (HEADER, DELIMITER ',')", {"path": str(path)})
    con.close()
    return time.perf_counter() - start


def generate_plain(rows: int, path: Path) -> float:
    """A plain CSV of `rows` calls over one day, without task ids; the seconds it took."""
    import duckdb

    query = f"""
    SELECT strftime(TIMESTAMP '2026-05-04 00:00:00' + to_microseconds(CAST(i * (86400e6 / {rows}) AS BIGINT)),
                    '%Y-%m-%d %H:%M:%S.%f') AS "TIMESTAMP",
           CAST(greatest(5, round(exp(6.9 + 0.8 * {_normal(1)}))) AS BIGINT) AS "ContextTokens",
           CAST(greatest(1, round(exp(5.0 + 0.7 * {_normal(3)}))) AS BIGINT) AS "GeneratedTokens"
    FROM range({rows}) AS r(i)
    """
    start = time.perf_counter()
    con = duckdb.connect()
    con.execute(f"COPY ({query}) TO $path (HEADER, DELIMITER ',')", {"path": str(path)})
    con.close()
    return time.perf_counter() - start


def _normal(k: int) -> str:
    u = lambda k: f"((hash(i * 7 + {k}) % 1000003) / 1000003.0 + 0.5 / 1000003.0)"
    return f"(sqrt(-2 * ln({u(k)})) * cos(2 * pi() * {u(k + 1)}))"


def _after(seconds: str) -> str:
    return f"to_microseconds(CAST(1e6 * ({seconds}) AS BIGINT))"


def _groups() -> str:
    return "CASE i % 5 " + " ".join(f"WHEN {k} THEN '{g}'" for k, g in enumerate(GROUPS)) + " END"


def timed(args: list[str]) -> tuple[float, float, str]:
    """A command under /usr/bin/time -v: wall seconds, peak resident MB, its output."""
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "planner", *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    return wall, peak_kb / 1024, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    logs = OUT / f"spend-{args.rows}.csv"
    if not logs.exists():
        seconds = generate(args.rows, logs)
        print(f"generated {logs.name}: {args.rows:,} rows, {logs.stat().st_size / 2**20:,.0f} MB in {seconds:.1f} s")
    else:
        print(f"reusing {logs.name}: {logs.stat().st_size / 2**20:,.0f} MB")
    work = OUT / f"run-{args.rows}"
    wl = work / "spend.yaml"
    results = {}
    results["from-logs"] = timed(
        [
            "workloads",
            "from-logs",
            str(logs),
            "--format",
            "litellm",
            "--out",
            str(wl),
            "--catalog",
            "catalogs/aa-2026-06.yaml",
        ]
    )
    data = yaml.safe_load(wl.read_text())
    for w in data["workloads"]:
        w["latency"] = BUDGETS[w["id"]]
        w["capability"] = {"min": 30}
    wl.write_text(yaml.safe_dump(data, sort_keys=False))
    solve = subprocess.run(
        [sys.executable, "-m", "planner", "solve", str(wl), "--out", str(work)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    if solve.returncode not in (0, 3):
        raise SystemExit(solve.stdout + solve.stderr)
    results["replay"] = timed(
        ["replay", str(work / "spend.plan.json"), str(logs), "--format", "litellm", "--out", str(work)]
    )
    plain = OUT / f"plain-{args.rows}.csv"
    if not plain.exists():
        seconds = generate_plain(args.rows, plain)
        print(f"generated {plain.name}: {args.rows:,} rows, {plain.stat().st_size / 2**20:,.0f} MB in {seconds:.1f} s")
    results["from-logs csv"] = timed(
        [
            "workloads",
            "from-logs",
            str(plain),
            "--format",
            "csv",
            "--workload",
            "plain",
            "--out",
            str(work / "plain.yaml"),
        ]
    )
    print("| command | rows | wall | peak memory |\n| --- | --- | --- | --- |")
    for name, (wall, peak, _) in results.items():
        print(f"| {name} | {args.rows:,} | {wall:.1f} s | {peak:,.0f} MB |")
    print(results["replay"][2])
    (work / "results.json").write_text(
        json.dumps({k: {"wall_s": v[0], "peak_mb": v[1]} for k, v in results.items()}, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()
