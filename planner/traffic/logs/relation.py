"""The log files as one relation (a SQL FROM item) and the helpers each format's SELECT is written with:
columns as text, times as microseconds, the columns a user names, and a file DuckDB cannot read."""

from __future__ import annotations

from planner.core.errors import InputError
from planner.traffic.logs.base import FILE_COLUMN, Logs, duckdb_error, ident


def raw(logs: Logs, json_columns: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:
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
        raise unreadable(logs, exc) from None
    return rel, {row[0]: row[1] for row in described}


def unreadable(logs: Logs, exc: Exception) -> BaseException:
    """A file DuckDB could not read, as one line; out of memory and an interrupt are not that."""
    import duckdb

    if isinstance(exc, (duckdb.OutOfMemoryException, duckdb.InterruptException)):
        return duckdb_error(exc, logs.first_file)
    what = {"csv": "CSV", "json": "JSON (one object a line, or an array)", "parquet": "Parquet"}[logs.kind]
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InputError.single(logs.first_file, "", f"cannot be read as {what}: {first[:300]}")


def as_text(col: str, types: dict[str, str]) -> str:
    """A raw column as text: nested Parquet values as JSON."""
    kind = types[col].upper()
    if kind.startswith(("STRUCT", "MAP")) or kind.endswith("]"):
        return f"CAST(to_json({ident(col)}) AS VARCHAR)"
    return f"CAST({ident(col)} AS VARCHAR)"


def timestamp_us(expr: str) -> str:
    """Microseconds since 1970 UTC of a date and time written as text (ISO 8601; no offset: UTC)."""
    return f"epoch_us(TRY_CAST({expr} AS TIMESTAMPTZ))"


def non_null_columns(logs: Logs, rel: str, columns: list[str]) -> set[str]:
    """The JSON keys that some row has (read with fixed columns, an absent key is null in every row)."""
    counts = ", ".join(f"count({ident(c)})" for c in columns)
    try:
        got = logs.run(f"SELECT {counts} FROM {rel}").fetchone()
    except Exception as exc:
        raise unreadable(logs, exc) from None
    return {c for c, n in zip(columns, got) if n}


def named_column(logs: Logs, types: dict[str, str], name: str, option: str, present=None) -> str:
    """A column the user named (--group-by, --task-by) as text; an input error when the logs have none."""
    present = set(types) if present is None else present
    if name not in present or name == FILE_COLUMN:
        raise InputError.single(
            logs.first_file,
            option,
            f"no column '{name}'; the columns are: {listed(c for c in present if c != FILE_COLUMN)}",
        )
    return as_text(name, types)


def listed(names, most: int = 12) -> str:
    """Names for a message: the first `most`, and how many more."""
    names = list(names)
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")
