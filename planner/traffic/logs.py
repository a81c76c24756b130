"""Request logs read as one table of model calls: LiteLLM proxy spend logs, OpenTelemetry GenAI spans, or
a plain CSV (SPEC "Plans from real traffic").

DuckDB reads the files (CSV, JSON lines, Parquet) into a database file of its own in a temporary folder,
so logs of tens of millions of rows never pass through Python and the memory a run takes stays bounded
(DuckDB spills to that folder). Every format becomes the same `calls` view, the contract that the
aggregation queries in planner/traffic/sql/ read, in DuckDB here or in a warehouse:

    workload        VARCHAR  the workload the call belongs to (never null)
    task_id         UHUGEINT the task it is part of: md5_number of its id (a 128-bit number; never null)
    start_s         DOUBLE   when the call started, seconds since 1970-01-01 UTC
    start_minute    BIGINT   the calendar minute it started in (UTC), minutes since 1970-01-01
    input_tokens    BIGINT   prompt tokens, cached ones included
    output_tokens   BIGINT   answer tokens, reasoning tokens not included
    reasoning_tokens BIGINT  hidden reasoning tokens (billed as output)
    cached_tokens   BIGINT   prompt tokens read from a cache (part of input_tokens)

and, for calibration, end_s, first_token_s (DOUBLE, nullable), model and provider (VARCHAR, nullable).

A value that cannot be read is never guessed: the first one is an input error naming the file, the line
(or span) and the column, what it holds and what was expected.

No text from the user (a path, a column or attribute name, a workload) is ever pasted into SQL: values are
bound parameters (Logs.bind), column names quoted identifiers (_ident), and messages are worded in Python.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.core.errors import InputError
from planner.core.files import regular_file

FORMATS = ("litellm", "otel", "csv")
MAP_FIELDS = ("time", "end", "first_token", "input", "output", "reasoning", "cached_input", "model")

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

MAX_TOKENS = 1e9  # per call; more is a typo (the schema's limit)
# A time is from 1970-01-01 to 9999-12-31 (UTC): the aggregation counts minutes since 1970 (a peak minute
# before it is no minute), and dates are written as Python writes them (up to year 9999).
TIME_FIRST, TIME_LAST = "1970-01-01", "9999-12-31"
END_US = 253_402_300_800_000_000  # 10000-01-01 00:00:00 UTC, microseconds since 1970
MEMORY_MB_DEFAULT = 512  # DuckDB's memory limit at most, by default; PLANNER_LOGS_MEMORY_MB changes it
MEMORY_MB_LEAST = 64  # the default on a small machine: a quarter of its memory, but not less
MEMORY_MB_RANGE = (1, 10_000_000)  # what PLANNER_LOGS_MEMORY_MB may say
THREADS_MOST = 4  # DuckDB's threads: the cores this process may use, up to this (each thread costs memory)
SUFFIXES = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".jsonl": "json", ".ndjson": "json", ".json": "json"}
SUFFIXES |= {".parquet": "parquet", ".pq": "parquet"}
COMPRESSED = (".gz",)
FILE_COLUMN = "planner_log_file"  # the column DuckDB adds with each row's file (a log may have its own `filename`)


@dataclass(frozen=True)
class LogOptions:
    """How to read the logs: their format, the csv format's column mapping (planner field -> column),
    the field that groups calls into workloads and the one that groups them into tasks, and the workload
    of calls without a group."""

    fmt: str
    mapping: dict[str, str] = field(default_factory=dict)
    group_by: str | None = None
    task_by: str | None = None
    workload: str | None = None


@dataclass(frozen=True)
class LogFile:
    path: str  # as given: what the provenance and the messages name
    sha256: str
    size: int
    read: str = ""  # what DuckDB reads: the same file, absolute with links resolved (no ~ for it to expand)


@dataclass
class Logs:
    """Logs read into DuckDB: the connection (with the `calls` view), what was read and how."""

    con: Any
    folder: str
    files: list[LogFile]
    kind: str  # csv, json or parquet
    options: LogOptions
    rows: dict[str, int]  # per file: the rows (calls, or spans) read
    left_out: dict[str, int]  # why -> how many rows were left out
    calls: int
    group_rule: str
    task_rule: str
    default_workload: str
    columns: dict[str, str] = field(default_factory=dict)  # planner field -> the column read (csv format)
    details: str = ""  # the query that finds the first problem's column, value and place
    timings: bool = False  # end, first token, model and provider read too (calibration)
    params: dict[str, Any] = field(default_factory=dict)  # the bound values of the queries, $p0, $p1...
    checks: list = field(default_factory=list)  # the rules of _load, for the wording of the first problem
    unnumbered: bool = False  # calls without a task id wait for _number_calls

    def bind(self, value: Any) -> str:
        """A bound parameter holding `value`: how every value from the user reaches a query."""
        name = f"p{len(self.params)}"
        self.params[name] = value
        return "$" + name

    def run(self, query: str):
        """Execute a query of this module with the parameters it names."""
        used = set(_PARAMETER.findall(_QUOTED.sub("", query)))
        params = {k: v for k, v in self.params.items() if k in used}
        return self.con.execute(query, params) if params else self.con.execute(query)

    def close(self) -> None:
        try:
            self.con.close()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Logs:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def sql(self, query: str, params: list | None = None) -> list[tuple]:
        try:
            return self.con.execute(query, params or []).fetchall()
        except Exception as exc:  # DuckDB's errors: an internal failure of a query the planner wrote
            raise _duckdb_error(exc, self.first_file) from None

    def insert(self, query: str, rows: list[tuple]) -> None:
        """Rows of the planner's own (a calibration's or replay's table) inserted with bound parameters."""
        try:
            self.con.executemany(query, rows)
        except Exception as exc:
            raise _duckdb_error(exc, self.first_file) from None

    @property
    def first_file(self) -> str:
        return self.files[0].path


_QUOTED = re.compile(r'"(?:[^"]|"")*"|\'(?:[^\']|\'\')*\'')  # a quoted identifier or string: no parameter in it
_PARAMETER = re.compile(r"\$(p\d+)\b")


def _duckdb_error(exc: BaseException, file: str) -> BaseException:
    """DuckDB's out of memory as the input error that names the setting; any other error as it is (an
    interrupt stays one: the CLI ends a signalled run with the signal's code)."""
    import duckdb

    if isinstance(exc, duckdb.OutOfMemoryException):
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return InputError.single(
            file,
            "",
            f"DuckDB ran out of memory within PLANNER_LOGS_MEMORY_MB={memory_mb()} MB ({first[:200]}); expected "
            f"more megabytes: set PLANNER_LOGS_MEMORY_MB higher (default {default_memory_mb()} on this machine)",
        )
    return exc


def memory_mb() -> int:
    """DuckDB's memory limit in MB: PLANNER_LOGS_MEMORY_MB, else the machine's default."""
    raw = os.environ.get("PLANNER_LOGS_MEMORY_MB", "").strip()
    if not raw:
        return default_memory_mb()
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    least, most = MEMORY_MB_RANGE
    if not least <= value <= most:  # false for nan
        raise InputError.single(
            "PLANNER_LOGS_MEMORY_MB",
            "",
            f"expected a number of megabytes from {least} to {most:,}, found {raw[:40]!r}",
        )
    return int(value)


def default_memory_mb() -> int:
    """A quarter of the memory this process may use, from MEMORY_MB_LEAST to MEMORY_MB_DEFAULT (that when
    the machine does not say): DuckDB spills what does not fit to disk, and the rest of the run (Python,
    the planner, DuckDB's own buffers outside the limit) keeps ten million rows under 1 GB at 512."""
    machine = _machine_mb()
    if machine is None:
        return MEMORY_MB_DEFAULT
    return max(MEMORY_MB_LEAST, min(MEMORY_MB_DEFAULT, machine // 4))


def _machine_mb() -> int | None:
    """The memory this process may use, in MB: the machine's, or its control group's limit when lower."""
    sizes = []
    try:
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            sizes.append(int(text))
    return min(sizes) // 2**20 if sizes else None


def _threads() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(THREADS_MOST, cores))


def parse_map(items: list[str]) -> dict[str, str]:
    """--map COL=FIELD options as {field: column}."""
    out: dict[str, str] = {}
    for item in items:
        col, sep, fld = item.rpartition("=")
        if not sep or not col or not fld:
            raise InputError.single("--map", "", f"{item!r}: expected COLUMN=FIELD, e.g. ContextTokens=input")
        if fld not in MAP_FIELDS:
            raise InputError.single(
                "--map", "", f"{item!r}: unknown field '{fld}'; expected one of: {', '.join(MAP_FIELDS)}"
            )
        if fld in out:
            raise InputError.single("--map", "", f"field '{fld}' mapped twice ({out[fld]} and {col})")
        check_name(col, "--map")
        out[fld] = col
    return out


def check_name(name: str, option: str) -> None:
    """A column or attribute name given on the command line: any text but a NUL character (which no
    quoted identifier can hold) or one that is not Unicode (an undecodable byte of the command line)."""
    if "\x00" in name:
        raise InputError.single(option, "", f"{name!r}: a column name cannot hold a NUL character")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError.single(option, "", f"{name!r}: expected a name in UTF-8") from None


def open_logs(paths: list[Path], options: LogOptions, timings: bool = False) -> Logs:
    """Read the logs into a fresh DuckDB database (in a temporary folder the Logs removes on close) and
    check every call; an input error, with nothing left behind, when a value cannot be read. With
    `timings`, each call's end, first token, model and provider are read (and checked) too."""
    if options.fmt not in FORMATS:
        raise InputError.single(
            "--format", "", f"unknown format '{options.fmt}'; expected one of: {', '.join(FORMATS)}"
        )
    if options.mapping and options.fmt != "csv":
        raise InputError.single("--map", "", "only for --format csv: litellm and otel logs have documented columns")
    if not paths:
        raise InputError.single("LOGS", "", "no log file given")
    for name, option in ((options.group_by, "--group-by"), (options.task_by, "--task-by")):
        if name is not None:
            check_name(name, option)
    memory_mb()  # a bad setting is found before the files are hashed
    files = [_log_file(Path(p)) for p in paths]
    _once(files)
    kind = _kind(files, options.fmt)
    default = _default_workload(options.workload, files[0].path)
    folder = tempfile.mkdtemp(prefix="planner-logs-")
    con = None
    try:
        con = _connect(folder)
        logs = Logs(con, folder, files, kind, options, {}, {}, 0, "", "", default, timings=timings)
        reader = {"litellm": _read_litellm, "otel": _read_otel, "csv": _read_csv}[options.fmt]
        try:
            reader(logs)
            _check(logs)
            if logs.unnumbered:
                _number_calls(logs)
        except Exception as exc:  # DuckDB's errors left, out of memory among them
            raise _duckdb_error(exc, logs.first_file) from None
        return logs
    except BaseException:
        if con is not None:
            con.close()
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _log_file(path: Path) -> LogFile:
    """A log is a regular file (never a FIFO or device, which could block): its size and sha256, for the
    provenance the outputs carry. Logs have no size limit: DuckDB streams them."""
    st = regular_file(path, "a log file")
    # DuckDB expands a leading ~ to $HOME and reads a name with a scheme (s3://, http://) from the
    # network, while the hash below reads the file as the operating system names it: so DuckDB is given
    # that same file as an absolute path, its links resolved, which it takes as it is
    read = os.path.realpath(path)
    if any(c in str(path) or c in read for c in "*?["):
        raise InputError.single(
            str(path), "", "a log file's name may not contain * ? or [ (DuckDB reads them as patterns)"
        )
    digest = hashlib.sha256()
    with open(read, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return LogFile(str(path), digest.hexdigest(), st.st_size, read)


def _once(files: list[LogFile]) -> None:
    """Each file read once: two names of one file would count its calls twice."""
    seen: dict[str, str] = {}
    for f in files:
        if f.read in seen:
            raise InputError.single(f.path, "", f"the same file as {seen[f.read]}; name each log file once")
        seen[f.read] = f.path


def _kind(files: list[LogFile], fmt: str) -> str:
    """csv, json or parquet, from the file names (a compressed .gz or .zst by the name before), else from
    the first byte: { or [ is JSON."""
    kinds = set()
    for f in files:
        name = f.path.lower()
        for ext in COMPRESSED:
            name = name.removesuffix(ext)
        kind = SUFFIXES.get(os.path.splitext(name)[1])
        if kind is None:
            with open(f.path, "rb") as fh:
                head = fh.read(4096).lstrip()
            kind = "parquet" if head.startswith(b"PAR1") else "json" if head[:1] in (b"{", b"[") else "csv"
        kinds.add(kind)
    if len(kinds) > 1:
        raise InputError.single(
            files[0].path, "", f"logs of several kinds ({', '.join(sorted(kinds))}); pass one kind at a time"
        )
    kind = kinds.pop()
    allowed = {"litellm": ("csv", "json", "parquet"), "otel": ("json",), "csv": ("csv", "parquet")}[fmt]
    if kind not in allowed:
        what = {"otel": "JSON lines from the collector's file exporter"}.get(fmt, "CSV or Parquet")
        raise InputError.single(files[0].path, "", f"reads as {kind}; --format {fmt} expects {what}")
    return kind


def _default_workload(given: str | None, first: str) -> str:
    name = given if given is not None else Path(first).name.split(".")[0]
    wid = workload_id(name)
    if not wid:
        raise InputError.single(
            "--workload", "", f"{name!r} cannot be a workload id; expected letters, digits and . _ - @ / :"
        )
    return wid


_NOT_ID = re.compile(r"[^A-Za-z0-9._\-@/:]")


def workload_id(name: str) -> str:
    """A workload id from a logged value: every character an id may not hold becomes '-', at most 200."""
    return _NOT_ID.sub("-", name.strip())[:200]


def _connect(folder: str):
    import duckdb

    config = {
        "memory_limit": f"{memory_mb()}MB",
        "temp_directory": os.path.join(folder, "spill"),  # spilled there; removed with the folder
        "preserve_insertion_order": False,  # no query here depends on it (but _number_calls'); it costs memory
        "threads": _threads(),
    }
    con = duckdb.connect(os.path.join(folder, "logs.duckdb"), config=config)
    con.execute("SET TimeZone = 'UTC'")
    return con


def _ident(name: str) -> str:
    """A column name as a quoted identifier (a name holding a double quote has it doubled)."""
    return '"' + name.replace('"', '""') + '"'


def _raw(logs: Logs, json_columns: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """The files as one relation (a SQL FROM item) and its columns with their types."""
    paths = logs.bind([f.read for f in logs.files])
    if logs.kind == "csv":
        rel = f"read_csv({paths}, header = true, all_varchar = true, union_by_name = true, filename = '{FILE_COLUMN}')"
    elif logs.kind == "parquet":
        rel = f"read_parquet({paths}, union_by_name = true, filename = '{FILE_COLUMN}')"
    else:
        cols = logs.bind(dict(json_columns or {}))
        rel = f"read_json({paths}, columns = {cols}, format = 'auto', filename = '{FILE_COLUMN}')"
    try:
        described = logs.run(f"DESCRIBE SELECT * FROM {rel}").fetchall()
    except Exception as exc:
        raise _unreadable(logs, exc) from None
    return rel, {row[0]: row[1] for row in described}


def _unreadable(logs: Logs, exc: Exception) -> BaseException:
    """A file DuckDB could not read, as one line; out of memory and an interrupt are not that."""
    import duckdb

    if isinstance(exc, (duckdb.OutOfMemoryException, duckdb.InterruptException)):
        return _duckdb_error(exc, logs.first_file)
    what = {"csv": "CSV", "json": "JSON (one object a line, or an array)", "parquet": "Parquet"}[logs.kind]
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InputError.single(logs.first_file, "", f"cannot be read as {what}: {first[:300]}")


def _as_text(col: str, types: dict[str, str]) -> str:
    """A raw column as text: nested Parquet values as JSON."""
    kind = types[col].upper()
    if kind.startswith(("STRUCT", "MAP")) or kind.endswith("]"):
        return f"CAST(to_json({_ident(col)}) AS VARCHAR)"
    return f"CAST({_ident(col)} AS VARCHAR)"


def _timestamp_us(expr: str) -> str:
    """Microseconds since 1970 UTC of a date and time written as text (ISO 8601; no offset: UTC)."""
    return f"epoch_us(TRY_CAST({expr} AS TIMESTAMPTZ))"


def _shown(value: str | None) -> str:
    """A raw value in a message: quoted as JSON, cut to 60 characters."""
    return json.dumps((value or "")[:60], ensure_ascii=False)


TIME_EXPECTED = "expected a date and time such as 2025-01-15 10:23:45.123 (ISO 8601; UTC unless an offset is given)"


# ----------------------------------------------------------------------------- the formats


def _read_csv(logs: Logs) -> None:
    rel, types = _raw(logs)
    columns = [c for c in types if c != FILE_COLUMN]
    found = dict(logs.options.mapping)
    for fld, col in found.items():
        if col not in types:
            raise InputError.single(
                logs.first_file, col, f"--map {col}={fld}: no such column; the columns are: {_listed(columns)}"
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
                f"the columns are: {_listed(columns)}",
            )
    logs.columns = found
    text = lambda fld: _as_text(found[fld], types) if fld in found else "NULL"
    col = lambda fld: found.get(fld, fld)
    group = _named_column(logs, types, logs.options.group_by, "--group-by") if logs.options.group_by else "NULL"
    task_col = logs.options.task_by or next((n for n in CSV_TASK_NAMES if n in types), None)
    if task_col in ("call", None):
        task = "NULL"
        logs.task_rule = "each call is its own task (the log has no task id)"
    else:
        task = _named_column(logs, types, task_col, "--task-by")
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
    _load(logs, src, names, time_parse=_timestamp_us, rank_tasks=True)


def _read_litellm(logs: Logs) -> None:
    extra = [
        c
        for c in (logs.options.group_by, logs.options.task_by)
        if c and c not in ("tag", "model_group", "session", "call")
    ]
    if logs.kind == "json":
        wanted = {c: "VARCHAR" for c in (*LITELLM_REQUIRED, *LITELLM_OPTIONAL, *extra)}
        wanted |= {"metadata": "JSON", "request_tags": "JSON"}
        rel, types = _raw(logs, wanted)
        present = _non_null_columns(logs, rel, list(wanted))
    else:
        rel, types = _raw(logs)
        present = set(types)
    missing = [c for c in LITELLM_REQUIRED if c not in present]
    if missing:
        raise InputError.single(
            logs.first_file,
            missing[0],
            f"no column '{missing[0]}': a LiteLLM spend log (LiteLLM_SpendLogs) has request_id, startTime, "
            f"prompt_tokens and completion_tokens; the columns are: {_listed(c for c in types if c != FILE_COLUMN)}",
        )
    text = lambda c: _as_text(c, types) if c in present else "CAST(NULL AS VARCHAR)"
    # metadata is a JSON object, or (as the proxy's own payload has it) a JSON string holding one; every
    # usage path is read in one pass over it
    paths = (*LITELLM_REASONING_PATHS, *LITELLM_CACHED_PATHS)
    if "metadata" in present:
        mt = text("metadata")
        unwrapped = f"TRY_CAST(TRY_CAST({mt} AS JSON) ->> '$' AS JSON)"
        usage = (
            f"json_extract_string(CASE WHEN starts_with({mt}, '\"') THEN {unwrapped} "
            f"ELSE TRY_CAST({mt} AS JSON) END, {logs.bind(list(paths))})"
        )
    else:
        usage = f"[{', '.join('CAST(NULL AS VARCHAR)' for _ in paths)}]"
    n_reasoning = len(LITELLM_REASONING_PATHS)
    from_usage = lambda first, n: "COALESCE(" + ", ".join(f"usage[{first + k}]" for k in range(n)) + ")"
    group_by = logs.options.group_by or "model_group"
    if group_by == "model_group":
        group = f"COALESCE(NULLIF(TRIM({text('model_group')}), ''), NULLIF(TRIM({text('model')}), ''))"
        logs.group_rule = "by model_group (the proxy's model group; model when it is empty)"
    elif group_by == "tag":
        tags = f"TRY_CAST({text('request_tags')} AS JSON)"
        group = f"json_extract_string({tags}, '$[0]')"
        logs.group_rule = "by tag (the first of the request's tags, in the order logged)"
    else:
        group = _named_column(logs, types, group_by, "--group-by", present)
        logs.group_rule = f"by the column '{group_by}'"
    task_by = logs.options.task_by or "session"
    if task_by == "session":
        task = text("session_id")
        logs.task_rule = "calls with the same session_id are one task (a call without one is a task of its own)"
    elif task_by == "call":
        task = "NULL"
        logs.task_rule = "each call is its own task (--task-by call)"
    else:
        task = _named_column(logs, types, task_by, "--task-by", present)
        logs.task_rule = f"calls with the same '{task_by}' are one task (a call without one is a task of its own)"
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
    _load(logs, src, names | {"task": "request_id"}, time_parse=_timestamp_us)


def _read_otel(logs: Logs) -> None:
    value = "STRUCT(stringValue VARCHAR, intValue VARCHAR, doubleValue VARCHAR, boolValue VARCHAR)"
    attrs = f"STRUCT(key VARCHAR, value {value})[]"
    span = (
        f"STRUCT(traceId VARCHAR, spanId VARCHAR, name VARCHAR, startTimeUnixNano VARCHAR, endTimeUnixNano VARCHAR, "
        f"attributes {attrs}, status STRUCT(code VARCHAR))"
    )
    resource_spans = f"STRUCT(resource STRUCT(attributes {attrs}), scopeSpans STRUCT(spans {span}[])[])[]"
    rel, _ = _raw(logs, {"resourceSpans": resource_spans})
    try:
        lines, without = logs.run(
            f"SELECT count(*), count(*) FILTER (WHERE resourceSpans IS NULL) FROM {rel}"
        ).fetchone()
    except Exception as exc:
        raise _unreadable(logs, exc) from None
    if lines == 0 or without == lines:
        raise InputError.single(
            logs.first_file,
            "resourceSpans",
            'no spans: expected OTLP JSON traces, one {"resourceSpans": [...]} a line (the collector\'s file exporter)',
        )

    def attr(keys: tuple[str, ...], where: str = "sp.attributes") -> str:
        one = lambda k: f"list_filter({where}, a -> a.key = {logs.bind(k)})[1].value"
        parts = [
            f"COALESCE({one(k)}.stringValue, {one(k)}.intValue, {one(k)}.doubleValue, {one(k)}.boolValue)" for k in keys
        ]
        return parts[0] if len(parts) == 1 else "COALESCE(" + ", ".join(parts) + ")"

    group_by = logs.options.group_by or "service.name"
    group = f"COALESCE({attr((group_by,))}, {attr((group_by,), 'rattrs')})"
    logs.group_rule = (
        "by service.name (the resource attribute)"
        if group_by == "service.name"
        else f"by the attribute '{group_by}' (the span's, else its resource's)"
    )
    task_by = logs.options.task_by or "trace"
    if task_by == "trace":
        task = "sp.traceId"
        logs.task_rule = "the spans of one trace are one task"
    elif task_by == "conversation":
        task = f"COALESCE({attr(OTEL_ATTRS['conversation'])}, sp.traceId)"
        logs.task_rule = "the spans with the same gen_ai.conversation.id are one task (else those of one trace)"
    elif task_by == "call":
        task = "NULL"
        logs.task_rule = "each span is its own task (--task-by call)"
    else:
        task = f"COALESCE({attr((task_by,))}, {attr((task_by,), 'rattrs')})"
        logs.task_rule = f"the spans with the same '{task_by}' are one task (a span without one is a task of its own)"
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
    _load(logs, src, names, time_parse=lambda e: f"(TRY_CAST({e} AS HUGEINT) // 1000)", first_is_offset=True)


def _non_null_columns(logs: Logs, rel: str, columns: list[str]) -> set[str]:
    """The JSON keys that some row has (read with fixed columns, an absent key is null in every row)."""
    counts = ", ".join(f"count({_ident(c)})" for c in columns)
    try:
        got = logs.run(f"SELECT {counts} FROM {rel}").fetchone()
    except Exception as exc:
        raise _unreadable(logs, exc) from None
    return {c for c, n in zip(columns, got) if n}


def _named_column(logs: Logs, types: dict[str, str], name: str, option: str, present=None) -> str:
    present = set(types) if present is None else present
    if name not in present or name == FILE_COLUMN:
        raise InputError.single(
            logs.first_file,
            option,
            f"no column '{name}'; the columns are: {_listed(c for c in present if c != FILE_COLUMN)}",
        )
    return _as_text(name, types)


def _listed(names, most: int = 12) -> str:
    names = list(names)
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


# ----------------------------------------------------------------------------- loading and checking


def _load(logs: Logs, src: str, names: dict[str, str], time_parse, rank_tasks=False, first_is_offset=False):
    """Parse every call of `src` (text columns) into the table calls_table, then the view `calls`.

    Each row gets one cheap flag, `bad`, when a value cannot be read; the message naming the column, the
    value and what was expected is worked out only for the first such row (logs.details, run by _check),
    so ten million good rows pay for one comparison each, not for the wording of every check."""
    timings = logs.timings
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

    def number(raw: str) -> str:
        return f"TRY_CAST({raw} AS DOUBLE)"

    def whole(value: str) -> str:  # a token count: a whole number from 0 to MAX_TOKENS (false for NaN and null)
        return f"COALESCE({value} BETWEEN 0 AND {MAX_TOKENS:g} AND {value} = floor({value}), false)"

    def out_of_range(parsed: str) -> str:
        return f"({parsed} < 0 OR {parsed} >= {END_US})"

    bad = [
        f"start_us IS NULL OR {out_of_range('start_us')}",
        f"NOT {whole('input_f')}",
        f"NOT {whole('gen_f')}",
        f"(reasoning_raw IS NOT NULL AND NOT {whole('reasoning_f')})",
        f"(cached_raw IS NOT NULL AND NOT {whole('cached_f')})",
        "reasoning_f > gen_f",
        "cached_f > input_f",
    ]
    if timings:
        bad += [
            f"(end_raw IS NOT NULL AND (end_us IS NULL OR {out_of_range('end_us')}))",
            f"(first_raw IS NOT NULL AND (first_us IS NULL OR {out_of_range('first_us')}))",
        ]
    if not rank_tasks:
        bad.append("task_raw IS NULL OR task_raw = ''")

    # (condition, raw column, wording): the rules in order; the first that a bad row breaks is worded in
    # Python (_located), from the figures the details query returns, so no name is ever part of the SQL
    checks: list[tuple[str, str, Any]] = []

    def need_time(raw: str, name: str, required: bool) -> None:
        blank = f"{raw} IS NULL"
        if required:
            checks.append((blank, raw, lambda v: (name, f"missing; {TIME_EXPECTED}")))
        parsed = {"start_raw": "start_us", "end_raw": "end_us", "first_raw": "first_us"}[raw]
        expected = TIME_EXPECTED if raw != "first_raw" or not first_is_offset else "expected a number of seconds"
        what = _what(raw, first_is_offset)
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

    def need_tokens(raw: str, value: str, name: str, required: bool) -> None:
        if required:
            checks.append((f"{raw} IS NULL", raw, lambda v: (name, "missing; expected a whole number of tokens")))
        checks.append(
            (
                f"{raw} IS NOT NULL AND NOT {whole(value)}",
                raw,
                lambda v: (name, f"{_shown(v.value)} is not a whole number of tokens from 0 to 1e9"),
            )
        )

    need_time("start_raw", names["start"], True)
    if timings:
        need_time("end_raw", names["end"], False)
        need_time("first_raw", names["first"], False)
    need_tokens("input_raw", "input_f", names["input"], True)
    need_tokens("gen_raw", "gen_f", names["gen"], True)
    need_tokens("reasoning_raw", "reasoning_f", names["reasoning"], False)
    need_tokens("cached_raw", "cached_f", names["cached"], False)
    checks.append(
        (
            "COALESCE(reasoning_f, 0) > gen_f",
            "reasoning_raw",
            lambda v: (
                names["reasoning"],
                f"{v.reasoning:.0f} reasoning tokens, more than the {v.gen:.0f} output tokens ({names['gen']}) "
                "they are part of",
            ),
        )
    )
    checks.append(
        (
            "COALESCE(cached_f, 0) > input_f",
            "cached_raw",
            lambda v: (
                names["cached"],
                f"{v.cached:.0f} cached tokens, more than the {v.input:.0f} input tokens ({names['input']}) "
                "they are part of",
            ),
        )
    )
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
    logs.checks = checks
    problem = "CASE " + " ".join(f"WHEN {c} THEN {k}" for k, (c, _, _) in enumerate(checks)) + " END"
    raw_value = " ".join(f"WHEN {k} THEN {col}" for k, (_, col, _) in enumerate(checks))
    default = logs.bind(logs.default_workload)
    # calls without a task id are numbered later (_number_calls) by the figures kept for it here
    ranks = ", reasoning_f AS rank_reasoning, cached_f AS rank_cached, group_raw AS rank_group, model AS rank_model"
    logs.unnumbered = rank_tasks
    parsed = f"""
        WITH src AS ({src}),
        parsed AS (
            SELECT *, {start} AS start_us, {end} AS end_us, {number("input_raw")} AS input_f,
                   {number("gen_raw")} AS gen_f, {number("reasoning_raw")} AS reasoning_f,
                   {number("cached_raw")} AS cached_f
            FROM src
        ),
        parsed2 AS (SELECT *, {first} AS first_us FROM parsed),
        flagged AS (SELECT *, skip IS NULL AND ({" OR ".join(bad)}) AS bad FROM parsed2)"""
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
        raise _unreadable(logs, exc) from None
    logs.details = f"""{parsed}
        SELECT filename, problem, CASE problem {raw_value} END AS problem_value, reasoning_f, gen_f, cached_f,
               input_f, COALESCE(where_raw, '') AS problem_where
        FROM (SELECT *, {problem} AS problem FROM (SELECT * FROM flagged WHERE bad LIMIT 1))"""
    logs.con.execute(CALLS_VIEW)


CALLS_VIEW = """CREATE OR REPLACE VIEW calls AS
    SELECT workload, task_id, start_us / 1e6 AS start_s, start_us // 60000000 AS start_minute,
           input_tokens, output_tokens, reasoning_tokens, cached_tokens,
           end_us / 1e6 AS end_s, first_us / 1e6 AS first_token_s, model, provider
    FROM calls_table WHERE skip IS NULL"""

RANK_ORDER = (
    "start_us, input_tokens, output_tokens + reasoning_tokens, rank_reasoning, rank_cached, rank_group, rank_model"
)


def _number_calls(logs: Logs) -> None:
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


def _what(raw: str, first_is_offset: bool) -> str:
    return "a number" if raw == "first_raw" and first_is_offset else "a date and time"


def _check(logs: Logs) -> None:
    """The first call with a problem is an input error (file, line or span, column, what and what was
    expected); otherwise the counts the provenance reports."""
    if logs.con.execute("SELECT count(*) FROM calls_table WHERE bad").fetchone()[0]:
        try:
            found = Found(*logs.run(logs.details).fetchone())  # the files again
        except Exception as exc:
            raise _unreadable(logs, exc) from None
        raise _located(logs, found)
    for filename, n in logs.con.execute("SELECT filename, count(*) FROM calls_table GROUP BY filename").fetchall():
        logs.rows[_given(logs, filename)] = n
    for why, n in logs.con.execute(
        "SELECT skip, count(*) FROM calls_table WHERE skip IS NOT NULL GROUP BY skip ORDER BY skip"
    ).fetchall():
        logs.left_out[why] = n
    logs.calls = logs.con.execute("SELECT count(*) FROM calls").fetchone()[0]
    if logs.calls == 0:
        why = "; ".join(f"{n} {w}" for w, n in logs.left_out.items()) or "the files have no rows"
        raise InputError.single(logs.first_file, "", f"no model calls to read ({why})")


def _given(logs: Logs, read: str | None) -> str:
    """The name the user gave the file DuckDB read as `read` (None: the only file)."""
    return next((f.path for f in logs.files if f.read == read), logs.first_file)


@dataclass(frozen=True)
class Found:
    """The first bad row: its file, the rule it breaks (an index into Logs.checks), the raw value of that
    rule's column, its token figures, and where it is (a request or span id)."""

    filename: str | None
    check: int
    value: str | None
    reasoning: float | None
    gen: float | None
    cached: float | None
    input: float | None
    where: str | None


def _located(logs: Logs, found: Found) -> InputError:
    """The problem with where it is: the line of a CSV or JSON lines file (found by reading the file
    again up to it), or the span."""
    _, column, wording = logs.checks[found.check]
    name, text = wording(found)
    filename, where = _given(logs, found.filename), found.where
    read = found.filename or logs.files[0].read
    if logs.options.fmt == "otel":
        return InputError.single(filename, name, f"{where}: {text}")
    line = None
    try:
        if logs.kind == "csv":
            line = _csv_line(read, logs.columns.get(_CSV_FIELD.get(column, ""), name), found.value)
        elif logs.kind == "json" and where:
            line = _json_line(read, where)
    except (OSError, UnicodeDecodeError, csv.Error):
        line = None
    if line is None and where and logs.options.fmt == "litellm":
        text = f"request {where}: {text}"
    return InputError.single(filename, name, text, line)


_CSV_FIELD = {
    "start_raw": "time",
    "end_raw": "end",
    "first_raw": "first_token",
    "input_raw": "input",
    "gen_raw": "output",
    "reasoning_raw": "reasoning",
    "cached_raw": "cached_input",
}


def _csv_line(filename: str, column: str, value: str | None) -> int | None:
    with open(filename, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, None) or []
        if column not in header:
            return None
        k = header.index(column)
        for row in reader:
            cell = row[k] if k < len(row) else ""
            if (value is None and not cell.strip()) or (value is not None and cell == value):
                return reader.line_num
    return None


def _json_line(filename: str, request_id: str) -> int | None:
    needle = json.dumps(request_id)
    with open(filename, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if needle in line:
                return n
    return None
