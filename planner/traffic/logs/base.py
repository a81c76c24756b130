"""What every part of reading logs shares: the options, the names given on the command line, the Logs
(a DuckDB connection and what was read into it), and DuckDB's settings.

DuckDB reads the files (CSV, JSON lines, Parquet) into a database file of its own in a temporary folder,
so logs of tens of millions of rows never pass through Python and the memory a run takes stays bounded
(DuckDB spills to that folder, within PLANNER_LOGS_MEMORY_MB).

No text from the user (a path, a column or attribute name, a workload) is ever pasted into SQL: values are
bound parameters (Logs.bind), column names quoted identifiers (ident), and messages are worded in Python.
"""

from __future__ import annotations

import math
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.core.errors import InputError, Setting

FORMATS = ("litellm", "otel", "csv")
MAP_FIELDS = ("time", "end", "first_token", "input", "output", "reasoning", "cached_input", "model")

MAX_TOKENS = 1e9  # per call; more is a typo (the schema's limit)
# A time is from 1970-01-01 to 9999-12-31 (UTC): the aggregation counts minutes since 1970 (a peak minute
# before it is no minute), and dates are written as Python writes them (up to year 9999).
TIME_FIRST, TIME_LAST = "1970-01-01", "9999-12-31"
END_US = 253_402_300_800_000_000  # 10000-01-01 00:00:00 UTC, microseconds since 1970
MEMORY_MB_DEFAULT = 512  # DuckDB's memory limit at most, by default; PLANNER_LOGS_MEMORY_MB changes it
MEMORY_MB_LEAST = 64  # the default on a small machine: a quarter of its memory, but not less
MEMORY_MB_RANGE = (1, 10_000_000)  # what PLANNER_LOGS_MEMORY_MB may say
THREADS_MOST = 4  # DuckDB's threads: the cores this process may use, up to this (each thread costs memory)
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
    checks: list = field(default_factory=list)  # the rules of load, for the wording of the first problem
    unnumbered: bool = False  # calls without a task id wait for number_calls

    def bind(self, value: Any) -> str:
        """A bound parameter holding `value`: how every value from the user reaches a query."""
        name = f"p{len(self.params)}"
        self.params[name] = value
        return "$" + name

    def run(self, query: str):
        """Execute a query of this package with the parameters it names."""
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
            raise duckdb_error(exc, self.first_file) from None

    def insert(self, query: str, rows: list[tuple]) -> None:
        """Rows of the planner's own (a calibration's or replay's table) inserted with bound parameters."""
        try:
            self.con.executemany(query, rows)
        except Exception as exc:
            raise duckdb_error(exc, self.first_file) from None

    @property
    def first_file(self) -> str:
        return self.files[0].path


_QUOTED = re.compile(r'"(?:[^"]|"")*"|\'(?:[^\']|\'\')*\'')  # a quoted identifier or string: no parameter in it
_PARAMETER = re.compile(r"\$(p\d+)\b")


def duckdb_error(exc: BaseException, file: str) -> BaseException:
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
            raise InputError.single(Setting("map"), "", f"{item!r}: expected COLUMN=FIELD, e.g. ContextTokens=input")
        if fld not in MAP_FIELDS:
            raise InputError.single(
                Setting("map"), "", f"{item!r}: unknown field '{fld}'; expected one of: {', '.join(MAP_FIELDS)}"
            )
        if fld in out:
            raise InputError.single(Setting("map"), "", f"field '{fld}' mapped twice ({out[fld]} and {col})")
        check_name(col, Setting("map"))
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


_NOT_ID = re.compile(r"[^A-Za-z0-9._\-@/:]")


def workload_id(name: str) -> str:
    """A workload id from a logged value: every character an id may not hold becomes '-', at most 200."""
    return _NOT_ID.sub("-", name.strip())[:200]


def connect(folder: str):
    """A fresh DuckDB database in `folder`: its memory limit, the folder it spills to, its threads, UTC."""
    import duckdb

    config = {
        "memory_limit": f"{memory_mb()}MB",
        "temp_directory": os.path.join(folder, "spill"),  # spilled there; removed with the folder
        "preserve_insertion_order": False,  # no query here depends on it (but number_calls'); it costs memory
        "threads": _threads(),
    }
    con = duckdb.connect(os.path.join(folder, "logs.duckdb"), config=config)
    con.execute("SET TimeZone = 'UTC'")
    return con


def ident(name: str) -> str:
    """A column name as a quoted identifier (a name holding a double quote has it doubled)."""
    return '"' + name.replace('"', '""') + '"'
