"""The first call with a problem as an input error: its file, its line (found by reading a CSV or JSON
lines file again up to it) or span, the column, what it holds and what was expected; otherwise the counts
of what was read, for the provenance."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass

from planner.core.errors import InputError
from planner.traffic.logs.base import Logs
from planner.traffic.logs.relation import unreadable


def check(logs: Logs) -> None:
    """The first call with a problem is an input error (file, line or span, column, what and what was
    expected); otherwise the counts the provenance reports."""
    if logs.con.execute("SELECT count(*) FROM calls_table WHERE bad").fetchone()[0]:
        try:
            found = Found(*logs.run(logs.details).fetchone())  # the files again
        except Exception as exc:
            raise unreadable(logs, exc) from None
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
