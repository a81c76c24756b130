"""open_logs: the log files checked and hashed, read by their format's module into a fresh DuckDB
database, every call checked; an input error, with nothing left behind, when a value cannot be read."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from planner.core.errors import InputError, Setting
from planner.core.files import regular_file
from planner.traffic.logs import litellm, otel, plain
from planner.traffic.logs.base import (
    FORMATS,
    LogFile,
    LogOptions,
    Logs,
    check_name,
    connect,
    duckdb_error,
    memory_mb,
    workload_id,
)
from planner.traffic.logs.load import number_calls
from planner.traffic.logs.locate import check

SUFFIXES = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".jsonl": "json", ".ndjson": "json", ".json": "json"}
SUFFIXES |= {".parquet": "parquet", ".pq": "parquet"}
COMPRESSED = (".gz",)
READERS = {"litellm": litellm.read, "otel": otel.read, "csv": plain.read}


def open_logs(paths: list[Path], options: LogOptions, *, timings: bool = False) -> Logs:
    """Read the logs into a fresh DuckDB database (in a temporary folder the Logs removes on close) and
    check every call; an input error, with nothing left behind, when a value cannot be read. With
    `timings`, each call's end, first token, model and provider are read (and checked) too."""
    if options.fmt not in FORMATS:
        raise InputError.single(
            Setting("format"), "", f"unknown format '{options.fmt}'; expected one of: {', '.join(FORMATS)}"
        )
    if options.mapping and options.fmt != "csv":
        raise InputError.single(
            Setting("map"), "", "only for --format csv: litellm and otel logs have documented columns"
        )
    if not paths:
        raise InputError.single("LOGS", "", "no log file given")
    for name, option in ((options.group_by, Setting("group_by")), (options.task_by, Setting("task_by"))):
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
        con = connect(folder)
        logs = Logs(con, folder, files, kind, options, {}, {}, 0, "", "", default, timings=timings)
        try:
            READERS[options.fmt](logs)
            check(logs)
            if logs.unnumbered:
                number_calls(logs)
        except Exception as exc:  # DuckDB's errors left, out of memory among them
            raise duckdb_error(exc, logs.first_file) from None
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
            Setting("workload"), "", f"{name!r} cannot be a workload id; expected letters, digits and . _ - @ / :"
        )
    return wid
