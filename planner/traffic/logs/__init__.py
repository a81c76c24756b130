"""Request logs read into DuckDB as one table of model calls: open_logs (read.py) reads LiteLLM spend logs
(litellm.py), OpenTelemetry GenAI spans (otel.py) or a plain CSV (plain.py) into the `calls` view (load.py)."""

from planner.traffic.logs.base import (
    FORMATS,
    MAP_FIELDS,
    LogFile,
    LogOptions,
    Logs,
    check_name,
    default_memory_mb,
    memory_mb,
    parse_map,
    workload_id,
)
from planner.traffic.logs.read import open_logs

__all__ = [
    "FORMATS",
    "MAP_FIELDS",
    "LogFile",
    "LogOptions",
    "Logs",
    "check_name",
    "default_memory_mb",
    "memory_mb",
    "open_logs",
    "parse_map",
    "workload_id",
]
