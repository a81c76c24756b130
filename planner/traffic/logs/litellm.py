"""The litellm format: the LiteLLM proxy's spend logs (LiteLLM_SpendLogs, as CSV, JSON lines or Parquet),
one row a request, its usage details read from the metadata, grouped by model group or tag."""

from __future__ import annotations

from collections.abc import Callable

from planner.core.errors import InputError, Setting
from planner.traffic.logs.base import FILE_COLUMN, Logs
from planner.traffic.logs.load import load
from planner.traffic.logs.relation import as_text, listed, named_column, non_null_columns, raw, timestamp_us

# LiteLLM_SpendLogs columns read (the proxy's schema.prisma); the first four are required.
LITELLM_REQUIRED = ("request_id", "startTime", "prompt_tokens", "completion_tokens")
LITELLM_OPTIONAL = (
    "endTime",
    "completionStartTime",
    "model",
    "model_group",
    "custom_llm_provider",
    "session_id",
    "request_tags",
    "metadata",
    "status",
)
# Where the spend log's metadata keeps the usage details (SpendLogsMetadata: usage_object is the
# response's usage; additional_usage_values every usage key but the three counted in columns).
LITELLM_REASONING_PATHS = (
    "$.usage_object.completion_tokens_details.reasoning_tokens",
    "$.additional_usage_values.completion_tokens_details.reasoning_tokens",
)
LITELLM_CACHED_PATHS = (
    "$.usage_object.prompt_tokens_details.cached_tokens",
    "$.additional_usage_values.prompt_tokens_details.cached_tokens",
    "$.usage_object.cache_read_input_tokens",
    "$.additional_usage_values.cache_read_input_tokens",
)


def read(logs: Logs) -> None:
    """Every request a call (a failed one left out), grouped by --group-by (model_group by default) and
    into tasks by --task-by (session_id by default; a request without one is a task of its own)."""
    rel, types, present = _relation(logs)
    text = lambda c: as_text(c, types) if c in present else "CAST(NULL AS VARCHAR)"
    usage = _usage(logs, text, present)
    n_reasoning = len(LITELLM_REASONING_PATHS)
    from_usage = lambda first, n: "COALESCE(" + ", ".join(f"usage[{first + k}]" for k in range(n)) + ")"
    group = _group(logs, types, present, text)
    task = _task(logs, types, present, text)
    src = f"""
        SELECT filename, start_raw, end_raw, first_raw, input_raw, gen_raw,
               {from_usage(1, n_reasoning)} AS reasoning_raw,
               {from_usage(1 + n_reasoning, len(LITELLM_CACHED_PATHS))} AS cached_raw,
               group_raw, COALESCE(NULLIF(task0, ''), request_id) AS task_raw, model, provider,
               CASE WHEN lower(status) = 'failure' THEN 'failed calls (status failure)' END AS skip,
               request_id AS where_raw
        FROM (
            SELECT {FILE_COLUMN} AS filename, {text("startTime")} AS start_raw, {text("endTime")} AS end_raw,
                   {text("completionStartTime")} AS first_raw, {text("prompt_tokens")} AS input_raw,
                   {text("completion_tokens")} AS gen_raw, {group} AS group_raw, {task} AS task0,
                   {text("request_id")} AS request_id, NULLIF(TRIM({text("model")}), '') AS model,
                   NULLIF(TRIM({text("custom_llm_provider")}), '') AS provider, {text("status")} AS status,
                   {usage} AS usage
            FROM {rel}
        ) AS r0"""
    names = {
        "start": "startTime",
        "end": "endTime",
        "first": "completionStartTime",
        "input": "prompt_tokens",
        "gen": "completion_tokens",
        "reasoning": "metadata.usage_object.completion_tokens_details.reasoning_tokens",
        "cached": "metadata.usage_object.prompt_tokens_details.cached_tokens",
    }
    load(logs, src, names | {"task": "request_id"}, time_parse=timestamp_us)


def _relation(logs: Logs) -> tuple[str, dict[str, str], set[str]]:
    """The files as one relation, their columns' types and the columns present (JSON lines are read with
    the columns wanted: a key no row has is absent); an input error without the four required."""
    extra = [
        c
        for c in (logs.options.group_by, logs.options.task_by)
        if c and c not in ("tag", "model_group", "session", "call")
    ]
    if logs.kind == "json":
        wanted = {c: "VARCHAR" for c in (*LITELLM_REQUIRED, *LITELLM_OPTIONAL, *extra)}
        wanted |= {"metadata": "JSON", "request_tags": "JSON"}
        rel, types = raw(logs, wanted)
        present = non_null_columns(logs, rel, list(wanted))
    else:
        rel, types = raw(logs)
        present = set(types)
    missing = [c for c in LITELLM_REQUIRED if c not in present]
    if missing:
        raise InputError.single(
            logs.first_file,
            missing[0],
            f"no column '{missing[0]}': a LiteLLM spend log (LiteLLM_SpendLogs) has request_id, startTime, "
            f"prompt_tokens and completion_tokens; the columns are: {listed(c for c in types if c != FILE_COLUMN)}",
        )
    return rel, types, present


def _usage(logs: Logs, text: Callable[[str], str], present: set[str]) -> str:
    """A list of the usage details, the reasoning paths then the cached ones, read from the metadata."""
    # metadata is a JSON object, or (as the proxy's own payload has it) a JSON string holding one; every
    # usage path is read in one pass over it
    paths = (*LITELLM_REASONING_PATHS, *LITELLM_CACHED_PATHS)
    if "metadata" not in present:
        return f"[{', '.join('CAST(NULL AS VARCHAR)' for _ in paths)}]"
    mt = text("metadata")
    unwrapped = f"TRY_CAST(TRY_CAST({mt} AS JSON) ->> '$' AS JSON)"
    return (
        f"json_extract_string(CASE WHEN starts_with({mt}, '\"') THEN {unwrapped} "
        f"ELSE TRY_CAST({mt} AS JSON) END, {logs.bind(list(paths))})"
    )


def _group(logs: Logs, types: dict[str, str], present: set[str], text: Callable[[str], str]) -> str:
    """The workload of a request (--group-by: model_group, tag or a column), its rule in logs.group_rule."""
    group_by = logs.options.group_by or "model_group"
    if group_by == "model_group":
        logs.group_rule = "by model_group (the proxy's model group; model when it is empty)"
        return f"COALESCE(NULLIF(TRIM({text('model_group')}), ''), NULLIF(TRIM({text('model')}), ''))"
    if group_by == "tag":
        logs.group_rule = "by tag (the first of the request's tags, in the order logged)"
        tags = f"TRY_CAST({text('request_tags')} AS JSON)"
        return f"json_extract_string({tags}, '$[0]')"
    group = named_column(logs, types, group_by, Setting("group_by"), present)
    logs.group_rule = f"by the column '{group_by}'"
    return group


def _task(logs: Logs, types: dict[str, str], present: set[str], text: Callable[[str], str]) -> str:
    """The task of a request (--task-by: session, call or a column), its rule in logs.task_rule."""
    task_by = logs.options.task_by or "session"
    if task_by == "session":
        logs.task_rule = "calls with the same session_id are one task (a call without one is a task of its own)"
        return text("session_id")
    if task_by == "call":
        logs.task_rule = "each call is its own task (--task-by call)"
        return "NULL"
    task = named_column(logs, types, task_by, Setting("task_by"), present)
    logs.task_rule = f"calls with the same '{task_by}' are one task (a call without one is a task of its own)"
    return task
