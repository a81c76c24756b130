"""The calls of every format parsed and checked into one table, calls_table, and the `calls` view over it:
the contract that the aggregation queries in planner/traffic/sql/ read, in DuckDB here or in a warehouse:

    workload        VARCHAR  the workload the call belongs to (never null)
    task_id         UHUGEINT the task it is part of: md5_number of its id (a 128-bit number; never null)
    start_s         DOUBLE   when the call started, seconds since 1970-01-01 UTC
    start_minute    BIGINT   the calendar minute it started in (UTC), minutes since 1970-01-01
    input_tokens    BIGINT   prompt tokens, cached ones included
    output_tokens   BIGINT   answer tokens, reasoning tokens not included
    reasoning_tokens BIGINT  hidden reasoning tokens (billed as output)
    cached_tokens   BIGINT   prompt tokens read from a cache (part of input_tokens)

and, for calibration, end_s, first_token_s (DOUBLE, nullable), model and provider (VARCHAR, nullable).

A value that cannot be read is never guessed: each rule a call may break is kept (Logs.checks) with its
wording, for the first bad call's message (locate.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from planner.traffic.logs.base import END_US, MAX_TOKENS, TIME_FIRST, TIME_LAST, Logs
from planner.traffic.logs.relation import unreadable

TIME_EXPECTED = "expected a date and time such as 2025-01-15 10:23:45.123 (ISO 8601; UTC unless an offset is given)"

CALLS_VIEW = """CREATE OR REPLACE VIEW calls AS
    SELECT workload, task_id, start_us / 1e6 AS start_s, start_us // 60000000 AS start_minute,
           input_tokens, output_tokens, reasoning_tokens, cached_tokens,
           end_us / 1e6 AS end_s, first_us / 1e6 AS first_token_s, model, provider
    FROM calls_table WHERE skip IS NULL"""

RANK_ORDER = (
    "start_us, input_tokens, output_tokens + reasoning_tokens, rank_reasoning, rank_cached, rank_group, rank_model"
)

Check = tuple[str, str, Any]  # (condition, raw column, wording: the bad row's figures -> (column name, text))


def load(
    logs: Logs, src: str, names: dict[str, str], time_parse, *, rank_tasks: bool = False, first_is_offset: bool = False
):
    """Parse every call of `src` (text columns) into the table calls_table, then the view `calls`.

    Each row gets one cheap flag, `bad`, when a value cannot be read; the message naming the column, the
    value and what was expected is worked out only for the first such row (logs.details, run by check),
    so ten million good rows pay for one comparison each, not for the wording of every check."""
    times = _times(time_parse, timings=logs.timings, first_is_offset=first_is_offset)
    bad = _bad(timings=logs.timings, rank_tasks=rank_tasks)
    logs.checks = _checks(names, timings=logs.timings, rank_tasks=rank_tasks, first_is_offset=first_is_offset)
    default = logs.bind(logs.default_workload)
    logs.unnumbered = rank_tasks  # calls without a task id are numbered later (number_calls)
    parsed = _parsed(src, times, bad)
    _create_table(logs, parsed, default, rank_tasks=rank_tasks)
    logs.details = _details(parsed, logs.checks)
    logs.con.execute(CALLS_VIEW)


def _times(time_parse: Callable[[str], str], *, timings: bool, first_is_offset: bool) -> tuple[str, str, str]:
    """The start, end and first token as microseconds since 1970 (the last two null without `timings`);
    an OpenTelemetry first chunk is seconds after the start."""
    start = time_parse("start_raw")
    end = time_parse("end_raw") if timings else "CAST(NULL AS BIGINT)"
    if not timings:
        first = "CAST(NULL AS BIGINT)"
    elif first_is_offset:
        first = (
            "CASE WHEN TRY_CAST(first_raw AS DOUBLE) BETWEEN 0 AND 1e6 "
            "THEN start_us + CAST(TRY_CAST(first_raw AS DOUBLE) * 1e6 AS BIGINT) END"
        )
    else:
        first = time_parse("first_raw")
    return start, end, first


def _number(raw: str) -> str:
    return f"TRY_CAST({raw} AS DOUBLE)"


def _whole(value: str) -> str:
    """A token count: a whole number from 0 to MAX_TOKENS (false for NaN and null)."""
    return f"COALESCE({value} BETWEEN 0 AND {MAX_TOKENS:g} AND {value} = floor({value}), false)"


def _out_of_range(parsed: str) -> str:
    return f"({parsed} < 0 OR {parsed} >= {END_US})"


def _bad(*, timings: bool, rank_tasks: bool) -> list[str]:
    """The conditions any of which flags a call as bad (the cheap test every row pays for)."""
    bad = [
        f"start_us IS NULL OR {_out_of_range('start_us')}",
        f"NOT {_whole('input_f')}",
        f"NOT {_whole('gen_f')}",
        f"(reasoning_raw IS NOT NULL AND NOT {_whole('reasoning_f')})",
        f"(cached_raw IS NOT NULL AND NOT {_whole('cached_f')})",
        "reasoning_f > gen_f",
        "cached_f > input_f",
    ]
    if timings:
        bad += [
            f"(end_raw IS NOT NULL AND (end_us IS NULL OR {_out_of_range('end_us')}))",
            f"(first_raw IS NOT NULL AND (first_us IS NULL OR {_out_of_range('first_us')}))",
        ]
    if not rank_tasks:
        bad.append("task_raw IS NULL OR task_raw = ''")
    return bad


def _checks(names: dict[str, str], *, timings: bool, rank_tasks: bool, first_is_offset: bool) -> list[Check]:
    """The rules in order; the first that a bad row breaks is worded in Python (locate.py), from the figures
    the details query returns, so no name is ever part of the SQL."""
    offset = first_is_offset
    checks = _time_checks("start_raw", names["start"], required=True, first_is_offset=offset)
    if timings:
        checks += _time_checks("end_raw", names["end"], required=False, first_is_offset=offset)
        checks += _time_checks("first_raw", names["first"], required=False, first_is_offset=offset)
    checks += _token_checks("input_raw", "input_f", names["input"], required=True)
    checks += _token_checks("gen_raw", "gen_f", names["gen"], required=True)
    checks += _token_checks("reasoning_raw", "reasoning_f", names["reasoning"], required=False)
    checks += _token_checks("cached_raw", "cached_f", names["cached"], required=False)
    checks += _part_checks(names)
    if not rank_tasks:
        checks.append(
            (
                "task_raw IS NULL OR task_raw = ''",
                "task_raw",
                lambda v: (
                    names["task"],
                    "missing; every call needs one (it names the task of a call that has no other)",
                ),
            )
        )
    return checks


def _time_checks(raw: str, name: str, *, required: bool, first_is_offset: bool) -> list[Check]:
    """A time that is missing (when required), not a time, or before 1970 or after 9999."""
    checks: list[Check] = []
    blank = f"{raw} IS NULL"
    if required:
        checks.append((blank, raw, lambda v: (name, f"missing; {TIME_EXPECTED}")))
    parsed = {"start_raw": "start_us", "end_raw": "end_us", "first_raw": "first_us"}[raw]
    expected = TIME_EXPECTED if raw != "first_raw" or not first_is_offset else "expected a number of seconds"
    what = _what(raw, first_is_offset=first_is_offset)
    checks.append(
        (f"NOT {blank} AND {parsed} IS NULL", raw, lambda v: (name, f"{_shown(v.value)} is not {what}; {expected}"))
    )
    for test, side in ((f"{parsed} < 0", f"before {TIME_FIRST}"), (f"{parsed} >= {END_US}", f"after {TIME_LAST}")):
        checks.append(
            (
                test,
                raw,
                lambda v, side=side: (
                    name,
                    f"{_shown(v.value)} is {side} (UTC); expected a date and time from {TIME_FIRST} to {TIME_LAST}",
                ),
            )
        )
    return checks


def _token_checks(raw: str, value: str, name: str, *, required: bool) -> list[Check]:
    """A token count that is missing (when required) or not a whole number from 0 to 1e9."""
    checks: list[Check] = []
    if required:
        checks.append((f"{raw} IS NULL", raw, lambda v: (name, "missing; expected a whole number of tokens")))
    checks.append(
        (
            f"{raw} IS NOT NULL AND NOT {_whole(value)}",
            raw,
            lambda v: (name, f"{_shown(v.value)} is not a whole number of tokens from 0 to 1e9"),
        )
    )
    return checks


def _part_checks(names: dict[str, str]) -> list[Check]:
    """Reasoning tokens are part of the output, cached ones part of the input: never more than it."""
    return [
        (
            "COALESCE(reasoning_f, 0) > gen_f",
            "reasoning_raw",
            lambda v: (
                names["reasoning"],
                f"{v.reasoning:.0f} reasoning tokens, more than the {v.gen:.0f} output tokens ({names['gen']}) "
                "they are part of",
            ),
        ),
        (
            "COALESCE(cached_f, 0) > input_f",
            "cached_raw",
            lambda v: (
                names["cached"],
                f"{v.cached:.0f} cached tokens, more than the {v.input:.0f} input tokens ({names['input']}) "
                "they are part of",
            ),
        ),
    ]


def _parsed(src: str, times: tuple[str, str, str], bad: list[str]) -> str:
    """The WITH clauses that parse `src` and flag its bad rows (the relation `flagged`)."""
    start, end, first = times
    return f"""
        WITH src AS ({src}),
        parsed AS (
            SELECT *, {start} AS start_us, {end} AS end_us, {_number("input_raw")} AS input_f,
                   {_number("gen_raw")} AS gen_f, {_number("reasoning_raw")} AS reasoning_f,
                   {_number("cached_raw")} AS cached_f
            FROM src
        ),
        parsed2 AS (SELECT *, {first} AS first_us FROM parsed),
        flagged AS (SELECT *, skip IS NULL AND ({" OR ".join(bad)}) AS bad FROM parsed2)"""


def _create_table(logs: Logs, parsed: str, default: str, *, rank_tasks: bool) -> None:
    """calls_table: every row read, its flags (skip, bad) and figures; with `rank_tasks`, the figures
    number_calls ranks calls without a task id by."""
    timings = logs.timings
    ranks = ", reasoning_f AS rank_reasoning, cached_f AS rank_cached, group_raw AS rank_group, model AS rank_model"
    one_file = len(logs.files) == 1
    sql = f"""
        CREATE TABLE calls_table AS {parsed}
        SELECT {"CAST(NULL AS VARCHAR)" if one_file else "filename"} AS filename, skip, bad,
               COALESCE(NULLIF(TRIM(group_raw), ''), {default}) AS workload,
               md5_number({"NULLIF(task_raw, '')" if rank_tasks else "task_raw"}) AS task_id,
               start_us, end_us, first_us,
               {"model" if timings else "CAST(NULL AS VARCHAR)"} AS model,
               {"provider" if timings else "CAST(NULL AS VARCHAR)"} AS provider,
               TRY_CAST(input_f AS BIGINT) AS input_tokens,
               TRY_CAST(gen_f - COALESCE(reasoning_f, 0) AS BIGINT) AS output_tokens,
               TRY_CAST(COALESCE(reasoning_f, 0) AS BIGINT) AS reasoning_tokens,
               TRY_CAST(COALESCE(cached_f, 0) AS BIGINT) AS cached_tokens{ranks if rank_tasks else ""}
        FROM flagged"""
    try:
        logs.run(sql)
    except Exception as exc:
        raise unreadable(logs, exc) from None


def _details(parsed: str, checks: list[Check]) -> str:
    """The query that finds the first bad row again: its file, the rule it breaks, that rule's raw value,
    its token figures and where it is (the fields of locate.Found)."""
    problem = "CASE " + " ".join(f"WHEN {c} THEN {k}" for k, (c, _, _) in enumerate(checks)) + " END"
    raw_value = " ".join(f"WHEN {k} THEN {col}" for k, (_, col, _) in enumerate(checks))
    return f"""{parsed}
        SELECT filename, problem, CASE problem {raw_value} END AS problem_value, reasoning_f, gen_f, cached_f,
               input_f, COALESCE(where_raw, '') AS problem_where
        FROM (SELECT *, {problem} AS problem FROM (SELECT * FROM flagged WHERE bad LIMIT 1))"""


def _what(raw: str, *, first_is_offset: bool) -> str:
    return "a number" if raw == "first_raw" and first_is_offset else "a date and time"


def _shown(value: str | None) -> str:
    """A raw value in a message: quoted as JSON, cut to 60 characters."""
    return json.dumps((value or "")[:60], ensure_ascii=False)


def number_calls(logs: Logs) -> None:
    """A call without a task id (a CSV's) is the task `call-N`, N its rank in (start, input, output,
    reasoning, cached, group, model) order; ties are equal calls, so which of them gets which number
    changes nothing.

    The rank is a sort that spills to disk, numbered as it streams out (row_number() OVER () in the
    order the sorted rows arrive, which preserve_insertion_order keeps); a window ordered over the whole
    table held every row in memory and ran out of it at ten million rows."""
    con = logs.con
    if not con.execute("SELECT count(*) FROM calls_table WHERE task_id IS NULL").fetchone()[0]:
        return
    con.execute("SET preserve_insertion_order = true")
    try:
        con.execute(
            f"""CREATE TABLE calls_numbered AS
                SELECT * EXCLUDE (task_id, rank_reasoning, rank_cached, rank_group, rank_model, n),
                       COALESCE(task_id, md5_number('call-' || CAST(n AS VARCHAR))) AS task_id
                FROM (SELECT *, row_number() OVER () AS n FROM (SELECT * FROM calls_table ORDER BY {RANK_ORDER}))"""
        )
    finally:
        con.execute("SET preserve_insertion_order = false")
    con.execute("DROP TABLE calls_table")
    con.execute("ALTER TABLE calls_numbered RENAME TO calls_table")
    con.execute(CALLS_VIEW)
