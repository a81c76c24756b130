"""The otel format: OpenTelemetry GenAI spans (OTLP JSON lines from the collector's file exporter), each
span with a model a call; its tokens and model read from the gen_ai.* attributes."""

from __future__ import annotations

from planner.core.errors import InputError
from planner.traffic.logs.base import FILE_COLUMN, Logs
from planner.traffic.logs.load import load
from planner.traffic.logs.relation import raw, unreadable

# OpenTelemetry GenAI span attributes (semantic conventions, gen_ai.*), with the names older
# instrumentations used after the current one.
OTEL_ATTRS = {
    "model": ("gen_ai.request.model", "gen_ai.response.model"),
    "response_model": ("gen_ai.response.model",),
    "provider": ("gen_ai.provider.name", "gen_ai.system"),
    "operation": ("gen_ai.operation.name",),
    "input": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
    "output": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
    "reasoning": ("gen_ai.usage.reasoning.output_tokens",),
    "cached": ("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.input_tokens.cached"),
    "first_chunk": ("gen_ai.response.time_to_first_chunk",),
    "conversation": ("gen_ai.conversation.id",),
}
OTEL_CALL_OPERATIONS = ("chat", "text_completion", "generate_content")


def read(logs: Logs) -> None:
    """Every span a row (spans that are not model calls, or failed, left out), grouped by --group-by
    (service.name by default) and into tasks by --task-by (the trace by default)."""
    rel = _spans(logs)
    attr = lambda keys: _attr(logs, keys)
    group = _group(logs)
    task = _task(logs)
    operation = attr(OTEL_ATTRS["operation"])
    model = attr(OTEL_ATTRS["model"])
    ops = logs.bind(list(OTEL_CALL_OPERATIONS))
    provider = attr(OTEL_ATTRS["provider"])
    src = f"""
        WITH r AS (
            SELECT {FILE_COLUMN} AS filename, UNNEST(resourceSpans) AS rs FROM {rel} WHERE resourceSpans IS NOT NULL
        ),
        s AS (SELECT filename, rs.resource.attributes AS rattrs, UNNEST(rs.scopeSpans) AS ss FROM r),
        p AS (SELECT filename, rattrs, UNNEST(ss.spans) AS sp FROM s)
        SELECT filename, sp.startTimeUnixNano AS start_raw, sp.endTimeUnixNano AS end_raw,
               {attr(OTEL_ATTRS["first_chunk"])} AS first_raw, {attr(OTEL_ATTRS["input"])} AS input_raw,
               {attr(OTEL_ATTRS["output"])} AS gen_raw, {attr(OTEL_ATTRS["reasoning"])} AS reasoning_raw,
               {attr(OTEL_ATTRS["cached"])} AS cached_raw, {group} AS group_raw,
               COALESCE(NULLIF({task}, ''), sp.spanId) AS task_raw, {model} AS model, {provider} AS provider,
               CASE
                 WHEN {model} IS NULL OR ({operation} IS NOT NULL AND NOT list_contains({ops}, {operation}))
                   THEN 'spans that are not model calls (no gen_ai.request.model, or an operation such as invoke_agent)'
                 WHEN sp.status.code IN ('2', 'STATUS_CODE_ERROR') THEN 'model calls that failed (status ERROR)'
                 WHEN {attr(OTEL_ATTRS["input"])} IS NULL OR {attr(OTEL_ATTRS["output"])} IS NULL
                   THEN 'model calls without gen_ai.usage.input_tokens and output_tokens'
               END AS skip,
               'span ' || COALESCE(sp.spanId, '?') || ' of trace ' || COALESCE(sp.traceId, '?') AS where_raw
        FROM p"""
    names = {
        "start": "startTimeUnixNano",
        "end": "endTimeUnixNano",
        "first": "gen_ai.response.time_to_first_chunk",
        "input": "gen_ai.usage.input_tokens",
        "gen": "gen_ai.usage.output_tokens",
        "reasoning": "gen_ai.usage.reasoning.output_tokens",
        "cached": "gen_ai.usage.cache_read.input_tokens",
        "task": "spanId",
    }
    load(logs, src, names, time_parse=lambda e: f"(TRY_CAST({e} AS HUGEINT) // 1000)", first_is_offset=True)


def _spans(logs: Logs) -> str:
    """The files as one relation of OTLP JSON lines (their resourceSpans); an input error without spans."""
    value = "STRUCT(stringValue VARCHAR, intValue VARCHAR, doubleValue VARCHAR, boolValue VARCHAR)"
    attrs = f"STRUCT(key VARCHAR, value {value})[]"
    span = (
        f"STRUCT(traceId VARCHAR, spanId VARCHAR, name VARCHAR, startTimeUnixNano VARCHAR, endTimeUnixNano VARCHAR, "
        f"attributes {attrs}, status STRUCT(code VARCHAR))"
    )
    resource_spans = f"STRUCT(resource STRUCT(attributes {attrs}), scopeSpans STRUCT(spans {span}[])[])[]"
    rel, _ = raw(logs, {"resourceSpans": resource_spans})
    try:
        lines, without = logs.run(
            f"SELECT count(*), count(*) FILTER (WHERE resourceSpans IS NULL) FROM {rel}"
        ).fetchone()
    except Exception as exc:
        raise unreadable(logs, exc) from None
    if lines == 0 or without == lines:
        raise InputError.single(
            logs.first_file,
            "resourceSpans",
            'no spans: expected OTLP JSON traces, one {"resourceSpans": [...]} a line (the collector\'s file exporter)',
        )
    return rel


def _attr(logs: Logs, keys: tuple[str, ...], where: str = "sp.attributes") -> str:
    """The first of the attributes `keys` a span (or, with where="rattrs", its resource) has, as text."""
    one = lambda k: f"list_filter({where}, a -> a.key = {logs.bind(k)})[1].value"
    parts = [
        f"COALESCE({one(k)}.stringValue, {one(k)}.intValue, {one(k)}.doubleValue, {one(k)}.boolValue)" for k in keys
    ]
    return parts[0] if len(parts) == 1 else "COALESCE(" + ", ".join(parts) + ")"


def _group(logs: Logs) -> str:
    """The workload of a span (--group-by: an attribute, the span's else its resource's), its rule in
    logs.group_rule."""
    group_by = logs.options.group_by or "service.name"
    group = f"COALESCE({_attr(logs, (group_by,))}, {_attr(logs, (group_by,), 'rattrs')})"
    logs.group_rule = (
        "by service.name (the resource attribute)"
        if group_by == "service.name"
        else f"by the attribute '{group_by}' (the span's, else its resource's)"
    )
    return group


def _task(logs: Logs) -> str:
    """The task of a span (--task-by: trace, conversation, call or an attribute), its rule in
    logs.task_rule."""
    task_by = logs.options.task_by or "trace"
    if task_by == "trace":
        logs.task_rule = "the spans of one trace are one task"
        return "sp.traceId"
    if task_by == "conversation":
        logs.task_rule = "the spans with the same gen_ai.conversation.id are one task (else those of one trace)"
        return f"COALESCE({_attr(logs, OTEL_ATTRS['conversation'])}, sp.traceId)"
    if task_by == "call":
        logs.task_rule = "each span is its own task (--task-by call)"
        return "NULL"
    logs.task_rule = f"the spans with the same '{task_by}' are one task (a span without one is a task of its own)"
    return f"COALESCE({_attr(logs, (task_by,))}, {_attr(logs, (task_by,), 'rattrs')})"
