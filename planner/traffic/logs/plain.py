"""The csv format: a plain CSV (or Parquet) file, one call a row, its columns found by their names
(CSV_NAMES) or given with --map."""

from __future__ import annotations

from planner.core.errors import InputError, Setting
from planner.traffic.logs.base import FILE_COLUMN, Logs
from planner.traffic.logs.load import load
from planner.traffic.logs.relation import as_text, listed, named_column, raw, timestamp_us

# A plain CSV's columns recognised without --map, in order of preference; the Azure public trace's header
# (TIMESTAMP, ContextTokens, GeneratedTokens) is read as it is.
CSV_NAMES = {
    "time": ("TIMESTAMP", "timestamp", "start_time", "startTime", "start", "time"),
    "end": ("end_time", "endTime", "end"),
    "first_token": ("first_token_time", "completionStartTime", "first_token"),
    "input": ("ContextTokens", "input_tokens", "prompt_tokens", "input"),
    "output": ("GeneratedTokens", "output_tokens", "completion_tokens", "output"),
    "reasoning": ("reasoning_tokens", "reasoning"),
    "cached_input": ("cached_input_tokens", "cached_tokens", "cache_read_input_tokens", "cached_input"),
    "model": ("model",),
}
CSV_TASK_NAMES = ("task_id", "session_id", "trace_id", "conversation_id")


def read(logs: Logs) -> None:
    """Every row a call: its columns found (_found_columns), grouped by --group-by (else one workload) and
    into tasks by --task-by or a task id column (else each call its own task, numbered later)."""
    rel, types = raw(logs)
    found = _found_columns(logs, types)
    logs.columns = found
    text = lambda fld: as_text(found[fld], types) if fld in found else "NULL"
    col = lambda fld: found.get(fld, fld)
    group = named_column(logs, types, logs.options.group_by, Setting("group_by")) if logs.options.group_by else "NULL"
    task_col = logs.options.task_by or next((n for n in CSV_TASK_NAMES if n in types), None)
    if task_col in ("call", None):
        task = "NULL"
        logs.task_rule = "each call is its own task (the log has no task id)"
    else:
        task = named_column(logs, types, task_col, Setting("task_by"))
        logs.task_rule = f"calls with the same '{task_col}' are one task (a call without one is a task of its own)"
    logs.group_rule = f"by the column '{logs.options.group_by}'" if logs.options.group_by else "none: one workload"
    src = f"""
        SELECT {FILE_COLUMN} AS filename, {text("time")} AS start_raw, {text("end")} AS end_raw,
               {text("first_token")} AS first_raw, {text("input")} AS input_raw, {text("output")} AS gen_raw,
               {text("reasoning")} AS reasoning_raw,
               {text("cached_input")} AS cached_raw, {group} AS group_raw, {task} AS task_raw,
               {text("model")} AS model, CAST(NULL AS VARCHAR) AS provider, CAST(NULL AS VARCHAR) AS skip,
               CAST(NULL AS VARCHAR) AS where_raw
        FROM {rel}"""
    names = {
        "start": col("time"),
        "end": col("end"),
        "first": col("first_token"),
        "input": col("input"),
        "gen": col("output"),
        "reasoning": col("reasoning"),
        "cached": col("cached_input"),
    }
    load(logs, src, names, time_parse=timestamp_us, rank_tasks=True)


def _found_columns(logs: Logs, types: dict[str, str]) -> dict[str, str]:
    """The column of each planner field (field -> column): --map's, else the first of CSV_NAMES the file
    has (exactly, else in any case) and no other field took; an input error without a start time, input
    or output tokens."""
    columns = [c for c in types if c != FILE_COLUMN]
    found = dict(logs.options.mapping)
    for fld, col in found.items():
        if col not in types:
            raise InputError.single(
                logs.first_file, col, f"--map {col}={fld}: no such column; the columns are: {listed(columns)}"
            )
    for fld, names in CSV_NAMES.items():
        if fld not in found:
            hit = next((n for n in names if n in types), None) or next(
                (c for n in names for c in columns if c.lower() == n.lower()), None
            )
            if hit is not None and hit not in found.values():
                found[fld] = hit
    for fld, what in (("time", "the call's start time"), ("input", "input tokens"), ("output", "output tokens")):
        if fld not in found:
            raise InputError.single(
                logs.first_file,
                "",
                f"no column for {what}: expected one named {', '.join(CSV_NAMES[fld][:4])} or --map COLUMN={fld}; "
                f"the columns are: {listed(columns)}",
            )
    return found
