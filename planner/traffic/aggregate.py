"""Workloads from traffic: the aggregation of planner/traffic/sql/aggregate.sql (run by `from-logs` in DuckDB, or
elsewhere and read back by `from-aggregates`) made into a workloads file and one distribution file per
workload (SPEC "Plans from real traffic").

The rules, which an independent computation reproduces:

- the observed window is the first to the last call start over all the logs, in minutes;
- tasks per period = tasks seen x the period's minutes / the window's minutes;
- peak_tasks_per_minute = the most tasks whose first call started in one calendar minute (UTC);
- turns = the mean calls per task, rounded half up (the schema's turns is a whole number);
- tokens per call = each token sum over the workload's calls / its calls; cached_input_share = cached
  tokens / input tokens;
- the distribution file has one row per distinct task (calls and token sums) when a workload has at
  most MAX_ROWS of them; else the SQL's log-scale bins, merged two by two on every scale (the bins
  doubled) until at most MAX_ROWS are left. A row's tokens per call are its token sums over its calls,
  its calls the mean calls per task rounded half up, its weight the tasks it stands for.

Figures are written as fmt.plain writes them, so the same logs give the same bytes.
"""

from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import io
import json
import math
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from planner.core.errors import InputError, Setting
from planner.core.files import file_stem, read_input
from planner.core.fmt import number, plain, visible
from planner.model.schema import ID_PATTERN, MINUTES_PER_PERIOD

MAX_ROWS = 2000  # rows of a distribution file (and the SQL's limit for exact rows)
BIN_WIDTH = 0.1  # the SQL's finest bins, in ln(calls) and ln(1 + tokens per call)
COLUMNS = (
    "kind",
    "workload",
    "weight",
    "calls",
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "cached_tokens",
    "k_calls",
    "k_input",
    "k_output",
    "k_reasoning",
    "k_cached",
    "first_s",
    "last_s",
)
SUMS = ("input_tokens", "output_tokens", "reasoning_tokens", "cached_tokens")
BINS = ("k_calls", "k_input", "k_output", "k_reasoning", "k_cached")
DISTRIBUTION_HEADER = "weight,calls,input,output,reasoning,cached_input"


def aggregate_sql() -> str:
    """The aggregation query (package data), as a warehouse would run it."""
    return (resources.files("planner.traffic") / "sql" / "aggregate.sql").read_text(encoding="utf-8")


@dataclass
class Group:
    """A set of tasks: how many, their calls and token sums (a shape, a bin, or a whole workload)."""

    weight: int
    calls: int
    sums: tuple[int, int, int, int]  # input, output, reasoning, cached
    key: tuple[int, ...] | None = None  # a bin's indices; None: an exact shape


@dataclass
class WorkloadTraffic:
    name: str  # as logged
    tasks: int
    calls: int
    sums: tuple[int, int, int, int]
    first_s: float
    last_s: float
    peak: int = 0
    peak_minute: int = 0
    shapes: list[Group] = field(default_factory=list)
    bins: list[Group] = field(default_factory=list)


@dataclass
class Aggregates:
    calls: int
    first_s: float
    last_s: float
    workloads: dict[str, WorkloadTraffic]


def run_aggregates(logs) -> tuple[Aggregates, list[tuple]]:
    """The aggregation run in DuckDB over the logs' `calls` view: the parsed result and its rows."""
    rows = logs.sql(aggregate_sql())
    return parse_rows(rows, "planner/traffic/sql/aggregate.sql"), rows


def aggregates_csv(rows: list[tuple]) -> str:
    """The aggregation's result as the CSV from-aggregates reads (what a warehouse export gives)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    key = lambda r: (str(r[0]), str(r[1] or ""), tuple(-1 if v is None else float(v) for v in r[2:13]))
    for r in sorted(rows, key=key):
        writer.writerow(["" if v is None else repr(v) if isinstance(v, float) else v for v in r])
    return out.getvalue()


def read_aggregates(path: Path) -> Aggregates:
    """The CSV a warehouse wrote of aggregate.sql's result (header included; numbers as the engine
    writes them: 12, 12.0, 1.2E+1)."""
    text = read_input(path, "the CSV result of planner/traffic/sql/aggregate.sql")
    reader = csv.reader(io.StringIO(text))
    header = [h.strip().lower() for h in next(reader, [])]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError.single(
            str(path),
            "",
            f"no column {missing[0]}: expected the columns of aggregate.sql's result: {', '.join(COLUMNS)}",
        )
    index = [header.index(c) for c in COLUMNS]
    rows: list[tuple] = []
    for cells in reader:
        if not any(c.strip() for c in cells):
            continue
        line = reader.line_num
        if len(cells) < len(header):
            raise InputError.single(str(path), "", f"{len(cells)} cells, expected {len(header)}", line)
        values: list = []
        for col, k in zip(COLUMNS, index):
            cell = cells[k].strip()
            if col in ("kind", "workload"):
                values.append(cell or None)
            elif not cell or cell.lower() == "null":
                values.append(None)
            else:
                try:
                    x = float(cell)
                except ValueError:
                    raise InputError.single(str(path), col, f"{cell[:40]!r} is not a number", line) from None
                if not math.isfinite(x):
                    raise InputError.single(str(path), col, f"{cell[:40]!r} is not a finite number", line)
                values.append(x)
        rows.append(tuple(values))
    return parse_rows(rows, str(path))


def parse_rows(rows: list[tuple], source: str) -> Aggregates:
    """The result's rows (in COLUMNS order) as aggregates, checked: one span, every workload with its
    summary, peak and shapes or bins."""

    def whole(v, col: str, kind: str) -> int:
        if v is None or float(v) != math.floor(float(v)) or float(v) < 0:
            raise InputError.single(source, col, f"a {kind} row has {v!r}; expected a whole number >= 0")
        return int(v)

    span = None
    workloads: dict[str, WorkloadTraffic] = {}
    peaks: dict[str, tuple[int, int]] = {}
    groups: dict[str, tuple[list[Group], list[Group]]] = {}
    for r in rows:
        kind, name = r[0], r[1]
        if kind == "span":
            if span is not None:
                raise InputError.single(source, "kind", "two span rows; expected one")
            span = (whole(r[2], "weight", kind), _float(r[13], "first_s", source), _float(r[14], "last_s", source))
            continue
        if kind not in ("summary", "peak", "shape", "bin"):
            raise InputError.single(source, "kind", f"{kind!r}: expected span, summary, peak, shape or bin")
        if name is None:
            raise InputError.single(source, "workload", f"a {kind} row without a workload")
        name = str(name)
        if kind == "summary":
            workloads[name] = WorkloadTraffic(
                name,
                whole(r[2], "weight", kind),
                whole(r[3], "calls", kind),
                tuple(whole(v, c, kind) for v, c in zip(r[4:8], SUMS)),
                _float(r[13], "first_s", source),
                _float(r[14], "last_s", source),
            )
        elif kind == "peak":
            peaks[name] = (whole(r[2], "weight", kind), whole(r[3], "calls", kind))
        else:
            g = Group(
                whole(r[2], "weight", kind),
                whole(r[3], "calls", kind),
                tuple(whole(v, c, kind) for v, c in zip(r[4:8], SUMS)),
                None if kind == "shape" else tuple(_index(v, c, source) for v, c in zip(r[8:13], BINS)),
            )
            groups.setdefault(name, ([], []))[0 if kind == "shape" else 1].append(g)
    if span is None:
        raise InputError.single(source, "kind", "no span row: expected the whole result of aggregate.sql")
    if not workloads:
        raise InputError.single(source, "kind", "no summary row: no workload")
    for name, w in workloads.items():
        if name not in peaks:
            raise InputError.single(source, "kind", f"workload {name!r} has no peak row")
        w.peak, w.peak_minute = peaks[name]
        w.shapes, w.bins = groups.get(name, ([], []))
        if not w.shapes and not w.bins:
            raise InputError.single(source, "kind", f"workload {name!r} has no shape or bin rows")
        tasks = sum(g.weight for g in (*w.shapes, *w.bins))
        if tasks != w.tasks:
            raise InputError.single(
                source, "weight", f"workload {name!r}: its shape or bin rows count {tasks} tasks, its summary {w.tasks}"
            )
    for name in (*peaks, *groups):
        if name not in workloads:
            raise InputError.single(source, "kind", f"workload {name!r} has no summary row")
    return Aggregates(span[0], span[1], span[2], dict(sorted(workloads.items())))


def _float(v, col: str, source: str) -> float:
    if v is None:
        raise InputError.single(source, col, "missing; expected seconds since 1970-01-01 UTC")
    return float(v)


def _index(v, col: str, source: str) -> int:
    if v is None or float(v) != math.floor(float(v)):
        raise InputError.single(source, col, f"{v!r}: expected a whole bin index")
    return int(v)


# ----------------------------------------------------------------------------- the files


@dataclass(frozen=True)
class Provenance:
    """Where the numbers come from, for the files' comments."""

    source: str  # "from 1 log file (format csv):", or the aggregates file
    lines: tuple[str, ...] = ()  # the log files: rows, size, sha256
    reading: tuple[str, ...] = ()  # how calls became workloads and tasks, what was left out
    logs: str = ""  # the sources in one phrase, for the distribution files


@dataclass(frozen=True)
class Written:
    files: dict[Path, str]
    workloads: list[tuple[str, WorkloadTraffic, float]]  # id, traffic, tasks per period


def build_files(
    agg: Aggregates,
    out: Path,
    provenance: Provenance,
    period: str,
    name: str | None = None,
    catalog: Path | None = None,
    command: str = "planner workloads from-logs",
) -> Written:
    """The workloads file and its distribution files (paths -> text); the YAML is checked against the
    schema before anything is written."""
    from planner.model.load import check_workloads, parse_yaml, validate
    from planner.model.schema import WorkloadSet

    check_period(period)
    scale = _scale(agg, out, period)
    stem = Path(out).name.split(".")[0]
    title = _title(name or stem, out)
    lines = _header(agg, out, provenance, scale, command) + _top_keys(title, catalog, out, period)
    files: dict[Path, str] = {}
    written = []
    for wid, w in _ids(agg):
        rows, method = distribution_rows(w)
        dist = Path(out).parent / f"{stem}.{file_stem(wid, str(out), 'workload')}.distribution.csv"
        files[dist] = _distribution_text(wid, w, rows, method, provenance, agg)
        lines += _workload_lines(wid, w, scale, dist.name)
        written.append((wid, w, scale.tasks(w)))
    text = "\n".join(lines) + "\n"
    data, positions = parse_yaml(text, str(out))
    ws = validate(WorkloadSet, data, str(out), positions)
    check_workloads(ws, str(out), positions)
    return Written({Path(out): text, **files}, written)


@dataclass(frozen=True)
class _Scale:
    """How the logs' window becomes the plan's period."""

    minutes: float  # the observed window: the first to the last call start
    period: str

    @property
    def period_minutes(self) -> int:
        return MINUTES_PER_PERIOD[self.period]

    @property
    def window(self) -> str:
        return number(round(self.minutes, 2))

    def tasks(self, w: WorkloadTraffic) -> float:
        """The workload's tasks per period: those seen x the period's minutes / the window's."""
        return w.tasks * self.period_minutes / self.minutes


def _scale(agg: Aggregates, out: Path, period: str) -> _Scale:
    minutes = (agg.last_s - agg.first_s) / 60
    if minutes <= 0:
        raise InputError.single(
            str(out),
            "",
            "every call starts at the same instant: the logs span no time, so tasks per period cannot be scaled",
        )
    return _Scale(minutes, period)


def _title(title: str, out: Path) -> str:
    """The file's `name:` (the plan's), checked as the schema checks it."""
    if not _is_id(title):
        raise InputError.single(
            str(out), Setting("name"), f"{title!r} cannot name a plan; expected letters, digits and . _ - @ / :"
        )
    return title


def _header(agg: Aggregates, out: Path, provenance: Provenance, scale: _Scale, command: str) -> list[str]:
    """The comments at the top: the schema line, where the logs come from, the window, how each figure
    is made, and what a person fills in."""
    window = scale.window
    return [
        "# yaml-language-server: $schema=" + _schema_path(Path(out)),
        f"# Written by `{command}` {provenance.source}",
        *(f"#   {visible(x)}" for x in provenance.lines),
        *(f"# {visible(x)}" for x in provenance.reading),
        f"# {_count(agg.calls)} calls from {_when(agg.first_s)} to {_when(agg.last_s)} UTC: a window of {window} "
        "minutes",
        "# (first to last call start). How the figures are made:",
        f"#   tasks = tasks seen x {number(scale.period_minutes)} minutes a {scale.period} / {window} minutes seen;",
        "#   peak_tasks_per_minute = the most tasks whose first call started in one calendar minute (UTC);",
        "#   turns = mean calls per task, rounded half up; tokens = means per call (output without reasoning),",
        "#   cached_input_share = cached / input tokens; distribution = the tasks as they were (see its comments).",
        "# Latency budgets and capability floors are not in logs: a person fills them in (the latency and",
        "# capability lines of each workload), then `planner solve` plans it.",
    ]


def _top_keys(title: str, catalog: Path | None, out: Path, period: str) -> list[str]:
    """name, catalog (relative to the file, or a comment saying to name one), period, workloads."""
    lines = [f"name: {json.dumps(title)}"]
    if catalog is not None:
        lines.append(f"catalog: {json.dumps(os.path.relpath(catalog, Path(out).parent or Path('.')))}")
    else:
        lines.append("# catalog: ../catalogs/aa-2026-06.yaml   # name one here, or pass --catalog to planner solve")
    return lines + [f"period: {period}", "workloads:"]


def _workload_lines(wid: str, w: WorkloadTraffic, scale: _Scale, distribution: str) -> list[str]:
    """One workload's entry: its traffic in comments, its figures (module docstring), its distribution
    file, and the latency and capability lines left for a person."""
    mean_calls = w.calls / w.tasks
    turns = max(1, math.floor(mean_calls + 0.5))
    per_call = [s / w.calls for s in w.sums]
    share = min(1.0, w.sums[3] / w.sums[0]) if w.sums[0] else 0.0
    note = _turns_note(turns, mean_calls)
    lines = [
        f"  - id: {json.dumps(wid)}",
        f"    # {_count(w.tasks)} tasks, {_count(w.calls)} calls ({plain(mean_calls)} per task), "
        f"{_when(w.first_s)} to {_when(w.last_s)} UTC;",
        f"    # peak {w.peak} tasks in the minute from {_when(w.peak_minute * 60)[:-3]} UTC.{note}",
    ]
    if w.name != wid:
        lines.append(f"    # logged as {visible(json.dumps(w.name, ensure_ascii=False))}")
    return lines + [
        f"    tasks: {plain(scale.tasks(w))}",
        f"    peak_tasks_per_minute: {w.peak}",
        f"    turns: {turns}",
        "    tokens:",
        f"      input: {plain(per_call[0])}",
        f"      output: {plain(per_call[1])}",
        f"      reasoning: {plain(per_call[2])}",
        f"      cached_input_share: {plain(share)}",
        f"    distribution: {json.dumps(distribution)}",
        "    # latency: {threshold: attentive, within_budget_share: 0.95}   # a person's choice: fill in",
        "    # capability: {min: 40}                                         # a person's choice: fill in",
    ]


def _turns_note(turns: int, mean_calls: float) -> str:
    """What rounding the mean calls to whole turns does to the tokens a task counts, when over 1%."""
    if abs(turns - mean_calls) / mean_calls <= 0.01:
        return ""
    return (
        f" turns {turns} for a mean of {plain(mean_calls)} calls: the plan counts "
        f"{abs(1 - turns / mean_calls):.0%} {'fewer' if turns < mean_calls else 'more'} tokens per task "
        "than seen (the distribution file has the tasks as they were)."
    )


def check_period(period: str) -> None:
    if period not in MINUTES_PER_PERIOD:
        raise InputError.single(
            Setting("period"), "", f"unknown period '{period}'; expected one of: {', '.join(MINUTES_PER_PERIOD)}"
        )


def _is_id(s: str) -> bool:
    import re

    return bool(re.fullmatch(ID_PATTERN, s)) and len(s) <= 200


def _ids(agg: Aggregates) -> list[tuple[str, WorkloadTraffic]]:
    """Workload ids from the logged names (logs.workload_id); two names that give one id are an error."""
    from planner.traffic.logs import workload_id

    seen: dict[str, str] = {}
    out = []
    for name, w in agg.workloads.items():
        wid = workload_id(name) or "unnamed"
        if wid in seen:
            raise InputError.single(
                Setting("group_by"),
                "",
                f"the logged workloads {seen[wid]!r} and {name!r} both give the id {wid!r}; group by another field",
            )
        seen[wid] = name
        out.append((wid, w))
    return out


def _schema_path(out: Path) -> str:
    """The editor's schema line, as every workloads file of the repository has it (workloads/ beside
    schemas/); `python -m planner.model.schemas --out DIR` writes the schemas elsewhere."""
    return "../schemas/workloads.schema.json"


def _when(seconds: float) -> str:
    """A moment as people read it, UTC, to the second (cut, not rounded)."""
    t = _dt.datetime.fromtimestamp(math.floor(seconds), tz=_dt.UTC)
    return t.strftime("%Y-%m-%d %H:%M:%S")


def _count(n: int) -> str:
    return f"{n:,}"


def distribution_rows(w: WorkloadTraffic) -> tuple[list[tuple[int, int, float, float, float, float]], str]:
    """The workload's sample tasks (weight, calls, tokens per call) and the method in words."""
    if w.shapes and not w.bins:
        groups = w.shapes
        method = f"exact: one row per distinct task (calls and tokens), {len(groups):,} rows; weight = the tasks alike"
    else:
        groups, level = coarsen(w.bins, MAX_ROWS)
        width = BIN_WIDTH * 2**level
        method = (
            f"sketch: {w.tasks:,} tasks binned on a log scale by calls and by each token count per call "
            f"(bins {width:g} wide in ln(calls) and ln(1 + tokens per call)), {len(groups):,} rows; every bin "
            "kept with its weight, so the tails stay"
        )
    rows = []
    for g in groups:
        calls = max(1, math.floor(g.calls / g.weight + 0.5))
        rows.append((g.weight, calls, *(s / g.calls for s in g.sums)))
    rows.sort(key=lambda r: (r[1], r[2], r[3], r[4], r[5], r[0]))
    return rows, method


def coarsen(bins: list[Group], most: int) -> tuple[list[Group], int]:
    """The bins merged two by two on every scale (index // 2 per level) until at most `most` are left:
    the fewest levels that fit, and that level."""
    level = 0
    merged = bins
    while len(merged) > most:
        level += 1
        acc: dict[tuple[int, ...], list[int]] = {}
        for g in bins:
            key = tuple(k >> level for k in g.key)
            a = acc.setdefault(key, [0, 0, 0, 0, 0, 0])
            a[0] += g.weight
            a[1] += g.calls
            for j in range(4):
                a[2 + j] += g.sums[j]
        merged = [Group(a[0], a[1], tuple(a[2:]), key) for key, a in acc.items()]
    return sorted(merged, key=lambda g: g.key), level


def _distribution_text(wid: str, w: WorkloadTraffic, rows, method: str, provenance: Provenance, agg: Aggregates) -> str:
    out = io.StringIO()
    out.write(f"# Sample tasks of workload {json.dumps(wid)}: {provenance.logs or 'logs'}.\n")
    out.write(
        f"# {w.tasks:,} tasks and {w.calls:,} calls of {agg.calls:,} in the logs, {_when(w.first_s)} to "
        f"{_when(w.last_s)} UTC.\n"
    )
    out.write(f"# How sampled: {method}.\n")
    out.write(
        "# weight: the tasks seen that the row stands for; calls: model calls per task; input, output, "
        "reasoning,\n# cached_input: tokens per call, means over the calls (output without reasoning; "
        "cached_input is part of input).\n"
    )
    out.write(DISTRIBUTION_HEADER + "\n")
    for weight, calls, *tokens in rows:
        out.write(",".join([str(weight), str(calls), *(plain(t) for t in tokens)]) + "\n")
    return visible_lines(out.getvalue())


def visible_lines(text: str) -> str:
    """Comment lines with no control characters but their line ends."""
    return "\n".join(visible(line) for line in text.split("\n"))


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
