"""The Artificial Analysis providers table (CSV): which columns this scrape has and what the importer reads
instead of a missing one, and each row (host x model) with its figures, scores and percentiles."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from planner.core.errors import InputError
from planner.core.files import read_input
from planner.market.reasoning import reasoning_by_name
from planner.market.sources.aa_api import read_aa_api
from planner.market.sources.figures import given, num, parse_json, read_context, shown
from planner.market.sources.records import AARow

# The Artificial Analysis columns read for each figure, first choice first (older scrapes lack some).
SPEED_COLUMNS = ("median_output_speed", "perf_long_median_output_speed", "perf_medium_median_output_speed")
TTFT_COLUMNS = ("median_ttft", "ttft_input_time", "perf_long_median_ttft", "perf_medium_median_ttft")
PERCENTILES = (5, 25, 75, 95)  # measured beside the medians: p05_output_speed ... p95_ttft
BENCHMARKS = (("model_gpqa", "gpqa"), ("model_mmlu_pro", "mmlu_pro"), ("model_livecodebench", "livecodebench"))


def _first(columns: set[str], names: tuple[str, ...]) -> str | None:
    return next((c for c in names if c in columns), None)


@dataclass
class _Columns:
    """Which of a scrape's columns give each figure, and what its missing columns made the importer do."""

    speed: str
    ttft: str
    thinking: tuple[str, ...]  # one column; two: the first minus the second; none: not measured
    reasoning: str | None
    overall: str | None
    creator: tuple[str, ...]
    notes: list[tuple[str, str]]  # (column, what the importer did instead)
    tps_pct: tuple[str, ...] = ()  # the output speed's percentile columns, in PERCENTILES' order; (): none
    ttft_pct: tuple[str, ...] = ()  # the first-token time's


def _aa_columns(path: Path, columns: set[str]) -> _Columns:
    """The columns to read in this scrape; exit 2 naming the file when a required one is missing."""
    speed, ttft = _first(columns, SPEED_COLUMNS), _first(columns, TTFT_COLUMNS)
    missing = [c for c in ("host_name", "model_name") if c not in columns]
    if speed is None:
        missing.append(" or ".join(SPEED_COLUMNS))
    if ttft is None:
        missing.append(" or ".join(TTFT_COLUMNS))
    if missing:
        raise InputError.single(
            str(path), "", f"not an Artificial Analysis providers table: missing columns {', '.join(missing)}"
        )
    notes = []
    if speed != SPEED_COLUMNS[0]:
        notes.append((SPEED_COLUMNS[0], f"output speed read from {speed}"))
    if ttft != TTFT_COLUMNS[0]:
        notes.append((TTFT_COLUMNS[0], f"time to first token read from {ttft}"))
    if "ttft_reasoning_time" in columns:
        thinking: tuple[str, ...] = ("ttft_reasoning_time",)
    elif "ttft_total_time" in columns and ttft in ("median_ttft", "ttft_input_time"):
        thinking = ("ttft_total_time", ttft)
        notes.append(("ttft_reasoning_time", f"thinking time = ttft_total_time - {ttft}"))
    elif "e2e_reasoning_time" in columns:
        thinking = ("e2e_reasoning_time",)
        notes.append(("ttft_reasoning_time", "thinking time read from e2e_reasoning_time"))
    else:
        thinking = ()
        notes.append(("ttft_reasoning_time", "no thinking time: reasoning models left out"))
    reasoning = "model_reasoning_model" if "model_reasoning_model" in columns else None
    if reasoning is None:
        notes.append(
            (
                "model_reasoning_model",
                "a row is a reasoning model when its name says so: an effort qualifier other than Non-reasoning, "
                "the word Thinking or Reasoning, or a name in the reviewed list of reasoning models",
            )
        )
    overall = _first(columns, ("model_intelligence_index", "model_estimated_intelligence_index"))
    if overall == "model_estimated_intelligence_index":
        notes.append(
            ("model_intelligence_index", "capability overall read from model_estimated_intelligence_index (estimated)")
        )
    elif overall is None:
        notes.append(("model_intelligence_index", "no intelligence index: every row left out"))
    for col, metric in BENCHMARKS:
        if col not in columns:
            notes.append((col, f"no {metric} score"))
    for col in ("price_1m_input_tokens", "price_1m_output_tokens"):
        if col not in columns:
            notes.append((col, "prices from litellm only; rows without a litellm price left out"))
    if "cache_hit_discount_percent" not in columns:
        notes.append(("cache_hit_discount_percent", "no cached-input price from this table (litellm's where matched)"))
    if "cache_write_price" not in columns and "price_per_1m_cache_write" not in columns:
        notes.append(("cache_write_price", "input prices not checked against cache-write prices"))
    if "model_context_window_tokens" not in columns:
        notes.append(("model_context_window_tokens", "context window only where the row or litellm gives one"))
    if "context_window_if_different_to_model" not in columns:
        notes.append(("context_window_if_different_to_model", "context window read from the model's window"))
    if "deleted" not in columns:
        notes.append(("deleted", "no row counted as deleted"))
    creator = tuple(c for c in ("model_creator_name", "model_creator_slug") if c in columns)
    if "model_creator_name" not in columns:
        notes.append(("model_creator_name", "creator from model_creator_slug" if creator else "no creator"))
    pct = {}
    for name, median, what in (("output_speed", speed, "output speed"), ("ttft", ttft, "time to first token")):
        wanted = tuple(f"p{k:02d}_{name}" for k in PERCENTILES)
        absent = [c for c in wanted if c not in columns]
        if absent:
            notes.append((absent[0], f"no percentiles of {what}: budgets at a percentile judge at the median"))
        elif median != f"median_{name}":  # percentiles of another measurement than the median read
            notes.append((f"median_{name}", f"percentiles of {what} not read: they do not go with {median}"))
        else:
            pct[name] = wanted
    return _Columns(
        speed, ttft, thinking, reasoning, overall, creator, notes, pct.get("output_speed", ()), pct.get("ttft", ())
    )


def _flag(text) -> bool | None:
    value = str(text if text is not None else "").strip().lower()
    return True if value in ("true", "1", "yes") else False if value in ("false", "0", "no") else None


def _thinking(r: dict, cols: _Columns) -> float | None:
    if not cols.thinking:
        return None
    first = num(r.get(cols.thinking[0]))
    if len(cols.thinking) == 1 or first is None:
        return first
    second = num(r.get(cols.thinking[1]))
    return None if second is None else max(0.0, first - second)


def read_aa(path: Path, left: list | None = None, steps: dict[str, float] | None = None) -> list[AARow]:
    """The Artificial Analysis table's rows; a row too short to name its host and model, and each
    column this scrape lacks (with what the importer does instead), go to `left`. A saved API response
    (JSON) gives one row per model, marked `per_model` (see read_aa_api). `steps` gets, per capability
    metric, the step the table publishes its scores at (published_step), in the catalog's units."""
    left = [] if left is None else left
    steps = {} if steps is None else steps
    text = read_input(path, "a CSV file").removeprefix("\ufeff")
    if text.lstrip().startswith(("{", "[")):
        return read_aa_api(path, parse_json(text, path), left)
    try:
        with io.StringIO(text, newline="") as fh:
            reader = csv.DictReader(fh)
            cols = _aa_columns(path, set(reader.fieldnames or []))
            for col, what in cols.notes:
                note = ("aa", f"column {col}", f"missing from this scrape: {what}")
                if note not in left:
                    left.append(note)
            rows = []
            score_texts: dict[str, list[str]] = {}
            for i, r in enumerate(reader, start=2):
                for col, metric in _score_columns(cols):
                    score_texts.setdefault(metric, []).append(r.get(col) or "")
                host, model = r.get("host_name"), r.get("model_name")
                if not isinstance(host, str) or not isinstance(model, str) or not host.strip() or not model.strip():
                    left.append(("aa", f"row {i}", "short row: no host_name or model_name"))
                    continue
                row = _aa_row(r, cols, host.strip(), model.strip(), i)
                row.tps_pct = _percentiles(r, cols.tps_pct, row.tps, "output speed", row, left)
                row.ttft_pct = _percentiles(r, cols.ttft_pct, row.ttft, "time to first token", row, left)
                rows.append(row)
            for metric, texts in score_texts.items():
                step = published_step(texts, percent=metric != "overall")
                if step is not None:
                    steps[metric] = max(step, steps.get(metric, step))
            return rows
    except csv.Error as exc:
        raise InputError.single(str(path), "", f"not a CSV file: {exc}") from None


def _score_columns(cols: _Columns) -> list[tuple[str, str]]:
    """(column, metric) of each capability score this scrape has."""
    return ([(cols.overall, "overall")] if cols.overall else []) + list(BENCHMARKS)


def published_step(texts: list[str], *, percent: bool = False) -> float | None:
    """The step a column's scores are published at, read from their text, not from the floats: 10^-d for
    the most digits d after the decimal point of any value (a value written with fewer has lost its
    trailing zeros: "6.3" beside "24.47" is 6.30), in the catalog's units (a fraction up to 1 is a
    percentage there: x100, as the importer reads it). None: no value is a number."""
    finest = None
    for text in texts:
        try:
            value = Decimal(str(text).strip())
        except InvalidOperation:
            continue
        if not value.is_finite():
            continue
        step = 10.0 ** min(0, value.as_tuple().exponent) * (100 if percent and value <= 1 else 1)
        finest = step if finest is None else min(finest, step)
    return finest


def _aa_row(r: dict, cols: _Columns, host: str, model: str, line: int) -> AARow:
    caps, estimated = {}, []
    ii = num(r.get(cols.overall)) if cols.overall else None
    if ii is not None:
        caps["overall"] = round(ii, 4)
        if cols.overall == "model_estimated_intelligence_index":
            estimated.append("capability.overall")
    for col, metric in BENCHMARKS:
        x = num(r.get(col))
        if x is not None:
            caps[metric] = round(100 * x if x <= 1 else x, 4)
    ctx, no_ctx = read_context(r.get("context_window_if_different_to_model"))
    if ctx is None and no_ctx is None:
        ctx, no_ctx = read_context(r.get("model_context_window_tokens"))
    reasoning = _flag(r.get(cols.reasoning)) if cols.reasoning else None
    if reasoning is None:
        reasoning = reasoning_by_name(model)
    creator = next((str(r[c]).strip() for c in cols.creator if str(r.get(c) or "").strip()), None)
    write = num(r.get("cache_write_price"))
    if write is None:
        write = num(r.get("price_per_1m_cache_write"))
    return AARow(
        host,
        model,
        num(r.get("price_1m_input_tokens")),
        num(r.get("price_1m_output_tokens")),
        num(r.get("cache_hit_discount_percent")),
        num(r.get(cols.speed)),
        num(r.get(cols.ttft)),
        ctx,
        caps,
        str(r.get("deleted", "")).strip().lower() == "true",
        line,
        creator,
        reasoning,
        _thinking(r, cols),
        write,
        estimated,
        left_out=no_ctx,
        host_id=str(r.get("host_id") or "").strip(),
        host_model=str(r.get("host_api_id") or "").strip(),
        released=str(r.get("model_release_date") or "").strip()[:10],
    )


def _percentiles(r: dict, columns: tuple[str, ...], median: float | None, what: str, row: AARow, left: list):
    """A row's figure at the other measured percentiles, when every one is a number that, with the
    median at 50, does not fall as the percentile rises; else none (the figure is judged at its median),
    and a row whose percentiles are there but incomplete, not numbers from 0 or out of order is listed
    in `left` (a row with none measured is not)."""
    if not columns or median is None:
        return None
    raw = [r.get(c) for c in columns]
    if not any(given(x) for x in raw):  # not measured for this row
        return None
    values = [num(x) for x in raw]
    why = None
    if not all(given(x) for x in raw):
        why = f"{what} percentiles incomplete"
    elif any(v is None or v < 0 for v in values):
        why = f"{what} percentiles not all numbers from 0 (found {', '.join(shown(x) for x in raw)})"
    if why:
        left.append(("aa", f"{row.host} / {row.model}", f"{why} (line {row.line}): judged at the median"))
        return None
    ordered = values[:2] + [median] + values[2:]
    if any(b < a for a, b in zip(ordered, ordered[1:])) or (what == "output speed" and ordered[0] <= 0):
        why = f"{what} percentiles out of order with the median (line {row.line}): judged at the median"
        left.append(("aa", f"{row.host} / {row.model}", why))
        return None
    return dict(zip(PERCENTILES, values))
