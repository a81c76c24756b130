"""A workload's traffic as a distribution: a compact weighted sample of its tasks, kept in a CSV file
beside the workloads file (SPEC "Traffic as a distribution").

A mean task hides the tail that breaks a latency budget: an option that serves the mean in time can
leave the long tasks over it. The file lets the budget be judged task by task, while cost and capacity
keep reading the workload's stated means (the LP's costs stay what `tokens` says).

Contents are compared by value: two distributions with the same samples are equal whatever their
file, so what-if scenarios reuse a solved base's tables exactly when the samples did not change.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from planner.core.errors import InputError, Problem
from planner.core.files import read_input

HEADER = ("weight", "calls", "input", "output", "reasoning", "cached_input")
MAX_ROWS = 100_000  # sample tasks a file may hold: a sample, not a log
MAX_WEIGHT = 1e15  # plausibility limits, as for the workloads file's own figures
MAX_CALLS = 10_000
MAX_TOKENS = 1e9


@dataclass(frozen=True, eq=False)
class Distribution:
    """The sample tasks of one file: per task its weight (how many tasks it stands for; only ratios
    matter), its model calls, and its tokens per call (means over its calls)."""

    file: str  # as the workloads file names it
    weight: np.ndarray
    calls: np.ndarray
    input: np.ndarray
    output: np.ndarray
    reasoning: np.ndarray
    cached_input: np.ndarray
    digest: str = field(init=False, repr=False, compare=False)  # the samples' value: sha256 of every column

    def __post_init__(self) -> None:
        h = hashlib.sha256()
        for name in HEADER:
            h.update(np.ascontiguousarray(getattr(self, name), dtype=np.float64).tobytes())
        object.__setattr__(self, "digest", h.hexdigest())

    def __len__(self) -> int:
        return len(self.weight)

    def __eq__(self, other: object) -> bool:
        """Equal samples, whatever the file: what the arithmetic reads."""
        if not isinstance(other, Distribution):
            return NotImplemented
        return len(self) == len(other) and self.digest == other.digest

    def __hash__(self) -> int:
        return hash(self.digest)


def read_distribution(path: str | Path, file: str) -> Distribution:
    """The sample tasks in the CSV file at `path` (named `file` in the workloads file). Leading lines
    starting with # are comments; then the header, then one row per sample task. Every bad row is an
    input error naming the file, its line and the column."""
    text = read_input(path, "a CSV file of sample tasks").removeprefix("\ufeff")
    where = str(path)
    lines = text.splitlines(keepends=True)
    skip = 0
    while skip < len(lines) and lines[skip].lstrip().startswith("#"):
        skip += 1
    reader = csv.reader(io.StringIO("".join(lines[skip:]), newline=""))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise InputError.single(where, "", f"not a CSV file: {exc}", skip + 1) from None
    if header is None or [h.strip() for h in header] != list(HEADER):
        found = "nothing" if header is None else repr(",".join(header)[:60])
        raise InputError.single(where, "", f"expected the header {','.join(HEADER)}, found {found}", skip + 1)
    rows: list[list[float]] = []
    problems: list[Problem] = []
    try:
        for cells in reader:
            line = skip + reader.line_num
            if not cells or all(not c.strip() for c in cells):
                continue  # a blank line
            if len(rows) >= MAX_ROWS:
                raise InputError.single(
                    where, "", f"more than {MAX_ROWS:,} sample tasks (the limit); merge similar tasks", line
                )
            row = _row(cells, line, problems)
            if row is not None:
                rows.append(row)
            if len(problems) >= 20:  # enough to say the file is wrong
                break
    except csv.Error as exc:
        raise InputError.single(where, "", f"not a CSV file: {exc}", skip + reader.line_num) from None
    if problems:
        raise InputError(where, problems)
    if not rows:
        raise InputError.single(where, "", "no sample tasks: the file has a header and no rows")
    data = np.array(rows, dtype=float)
    return Distribution(file, *(np.ascontiguousarray(data[:, k]) for k in range(len(HEADER))))


def _row(cells: list[str], line: int, problems: list[Problem]) -> list[float] | None:
    """One sample task's figures, or None with its problems added (one per bad cell)."""
    if len(cells) != len(HEADER):
        problems.append(Problem("", f"expected {len(HEADER)} values ({','.join(HEADER)}), found {len(cells)}", line))
        return None
    values: list[float] = []
    ok = True
    column = 1
    for name, cell in zip(HEADER, cells):
        why = None
        text = cell.strip()
        try:
            x = float(text)
        except ValueError:
            x, why = math.nan, f"should be a number, found {text[:60]!r}" if text else "missing"
        if why is None and not math.isfinite(x):
            why = f"should be a finite number, found {text[:60]!r}"
        elif why is None:
            why = _bad(name, x, text)
        if why is not None:
            problems.append(Problem(name, why, line, column))
            ok = False
        values.append(x)
        column += len(cell) + 1
    if ok and values[5] > values[2]:
        problems.append(Problem("cached_input", f"is more than input ({values[5]:g} > {values[2]:g})", line))
        ok = False
    return values if ok else None


def _bad(name: str, x: float, text: str) -> str | None:
    if name == "weight":
        if x <= 0:
            return f"should be greater than 0, found {text[:60]!r}"
        if x > MAX_WEIGHT:
            return f"should be at most {MAX_WEIGHT:g}, found {text[:60]!r}"
        return None
    if name == "calls":
        if not x.is_integer():
            return f"should be a whole number of model calls, found {text[:60]!r}"
        if not 1 <= x <= MAX_CALLS:
            return f"should be from 1 to {MAX_CALLS:,}, found {text[:60]!r}"
        return None
    if x < 0:
        return f"should be at least 0, found {text[:60]!r}"
    if x > MAX_TOKENS:
        return f"should be at most {MAX_TOKENS:g} tokens per call, found {text[:60]!r}"
    return None
