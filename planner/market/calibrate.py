"""A catalog's speeds measured from request logs (`planner catalog calibrate`, SPEC "Plans from real
traffic").

Public figures are medians of someone else's traffic; a company's own logs time its own calls. Where
logs carry timings (LiteLLM spend logs: startTime, completionStartTime, endTime; OpenTelemetry spans:
start, end and gen_ai.response.time_to_first_chunk), each offering seen in them gets its time to first
token and output speed from its calls. The rules:

- a call belongs to the offering its model string names: tried as provider/model (the provider
  logged: LiteLLM's custom_llm_provider, the span's gen_ai.provider.name) and then as the model alone,
  each against, in order, the offering ids, their gateway.litellm ids, their gateway.openrouter ids
  (with or without "openrouter/"), and the catalog's model names when exactly one offering has the
  name (several: ambiguous, not used);
- a call is timed when it streamed (a first token after its start and before its end) and reported
  no reasoning tokens (a thinking call's first token comes after its hidden thinking, which the catalog
  keeps apart, in thinking);
- its time to first token is first token - start, less input tokens / prefill_tps when the offering
  has prefill_tps (the catalog adds that itself), at least 0; its output speed, for calls of at least
  MIN_OUTPUT tokens, is output tokens / (end - first token), so that ttft_s + output / output_tps is
  the call's time, as SPEC 3 counts it;
- an offering with at least `min_calls` timed calls gets ttft_s = the median (p50) and output_tps =
  the median speed, nearest rank; the source names the logs, the calls, their dates, p90 of the time
  to first token and the speed 90% of the calls reach. Offerings not seen keep their figures.
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass, field
from pathlib import Path

from planner.core.errors import InputError
from planner.model.schema import Catalog, Offering
from planner.traffic.logs import Logs

MIN_OUTPUT = 10  # output tokens a call needs for its speed to count (fewer: mostly the first token's wait)
MIN_CALLS = 20  # timed calls an offering needs to be calibrated (the default of --min-calls)


@dataclass
class Measured:
    offering: str
    calls: int  # calls of the offering in the logs
    timed: int  # of them, streamed and without reasoning tokens
    first_s: float
    last_s: float
    ttft: dict[int, float] = field(default_factory=dict)  # per mille -> seconds
    speed: dict[int, float] = field(default_factory=dict)  # per mille -> tokens/s (100: 90% of calls as fast)
    speed_calls: int = 0
    before: tuple[float, float] = (0.0, 0.0)  # the catalog's ttft_s and output_tps

    @property
    def ttft_s(self) -> float | None:
        return self.ttft.get(500)

    @property
    def output_tps(self) -> float | None:
        return self.speed.get(500)


@dataclass
class Calibration:
    measured: list[Measured]  # calibrated: enough timed calls
    too_few: list[Measured]  # seen, too few timed calls: figures kept
    unmatched: list[tuple[str, int, str]]  # model string, calls, why
    not_seen: int  # offerings of the catalog with no call in the logs


def match(model: str, provider: str | None, catalog: Catalog) -> tuple[Offering | None, str]:
    """The offering a logged model string names (see the module's rules), or None and why not."""
    tried = []
    if provider and not model.startswith(provider + "/"):
        tried.append(f"{provider}/{model}")
    tried.append(model)
    for s in tried:
        for o in catalog.offerings:
            if o.id == s:
                return o, ""
        for o in catalog.offerings:
            if o.gateway.get("litellm") == s:
                return o, ""
        for o in catalog.offerings:
            gw = o.gateway.get("openrouter")
            if gw and s in (gw, "openrouter/" + gw):
                return o, ""
    for s in tried:
        named = [o for o in catalog.offerings if o.model == s]
        if len(named) == 1:
            return named[0], ""
        if len(named) > 1:
            ids = ", ".join(o.id for o in named[:4]) + (" ..." if len(named) > 4 else "")
            return None, f"ambiguous: {len(named)} offerings run {s} ({ids}); set their gateway ids"
    return None, "no offering has this id, gateway id or model name"


def calibrate(catalog: Catalog, logs: Logs, min_calls: int = MIN_CALLS) -> Calibration:
    """Match every logged model to an offering and measure the matched ones (the module's rules)."""
    seen = logs.sql(
        "SELECT model, provider, count(*) FROM calls WHERE model IS NOT NULL GROUP BY model, provider ORDER BY 1, 2"
    )
    if not seen:
        raise InputError.single(
            logs.first_file, "model", "no call names its model: the logs cannot tell which offering served them"
        )
    mapping, unmatched = [], []
    by_id = {o.id: o for o in catalog.offerings}
    for model, provider, n in seen:
        off, why = match(model, provider, catalog)
        if off is None:
            unmatched.append((f"{provider}/{model}" if provider else model, int(n), why))
        else:
            mapping.append((model, provider, off.id, off.speed.prefill_tps))
    logs.sql("CREATE OR REPLACE TABLE offering_of (model VARCHAR, provider VARCHAR, offering VARCHAR, prefill DOUBLE)")
    if mapping:
        logs.insert("INSERT INTO offering_of VALUES (?, ?, ?, ?)", mapping)
    logs.sql(_SAMPLES_SQL)
    measured: dict[str, Measured] = {}
    for oid, calls, timed, first_s, last_s, speed_calls in logs.sql(
        "SELECT offering, count(*), count(ttft), min(start_s) FILTER (WHERE ttft IS NOT NULL), "
        "max(start_s) FILTER (WHERE ttft IS NOT NULL), count(speed) FROM samples GROUP BY offering ORDER BY offering"
    ):
        o = by_id[oid]
        measured[oid] = Measured(
            oid,
            int(calls),
            int(timed),
            first_s or 0.0,
            last_s or 0.0,
            speed_calls=int(speed_calls),
            before=(o.speed.ttft_s, o.speed.output_tps),
        )
    for oid, per_mille, value in logs.sql(_PERCENTILE_SQL.format(column="ttft", points="(VALUES (500), (900))")):
        measured[oid].ttft[int(per_mille)] = float(value)
    for oid, per_mille, value in logs.sql(_PERCENTILE_SQL.format(column="speed", points="(VALUES (100), (500))")):
        measured[oid].speed[int(per_mille)] = float(value)
    logs.sql("DROP TABLE samples")
    ok = [m for m in measured.values() if m.timed >= min_calls and m.speed_calls >= min_calls]
    few = [m for m in measured.values() if m not in ok]
    return Calibration(ok, few, unmatched, len(catalog.offerings) - len(measured))


_SAMPLES_SQL = f"""
CREATE OR REPLACE TABLE samples AS
SELECT m.offering, c.start_s,
       CASE WHEN c.first_token_s > c.start_s AND c.end_s > c.first_token_s AND c.reasoning_tokens = 0
            THEN greatest(0.0, c.first_token_s - c.start_s - COALESCE(c.input_tokens / m.prefill, 0.0)) END AS ttft,
       CASE WHEN c.first_token_s > c.start_s AND c.end_s > c.first_token_s AND c.reasoning_tokens = 0
                 AND c.output_tokens >= {MIN_OUTPUT}
            THEN c.output_tokens / (c.end_s - c.first_token_s) END AS speed
FROM calls c JOIN offering_of m ON c.model = m.model AND c.provider IS NOT DISTINCT FROM m.provider
"""

# nearest rank over the calls with a sample, as in planner replay
_PERCENTILE_SQL = """
WITH ranked AS (
    SELECT offering, {column} AS v, row_number() OVER (PARTITION BY offering ORDER BY {column}) AS rn,
           count(*) OVER (PARTITION BY offering) AS cnt
    FROM samples WHERE {column} IS NOT NULL
)
SELECT offering, q.j, v FROM ranked JOIN {points} AS q(j) ON rn = (q.j * cnt + 999) // 1000 ORDER BY ALL
"""


def calibrated_catalog(path: Path, result: Calibration, logs: Logs) -> str:
    """The catalog file again, the measured offerings' ttft_s and output_tps replaced and their source
    saying so (their speed no longer an estimate); every other figure as it was."""
    import yaml

    from planner.model.load import read_yaml, validate

    data, _ = read_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("offerings"), list):
        raise InputError.single(str(path), "offerings", "not a catalog file")
    by_id = {m.offering: m for m in result.measured}
    files = ", ".join(f.path for f in logs.files[:3]) + (
        f" and {len(logs.files) - 3} more" if len(logs.files) > 3 else ""
    )
    for entry in data["offerings"]:
        m = by_id.get(entry.get("id")) if isinstance(entry, dict) else None
        if m is None:
            continue
        speed = dict(entry.get("speed") or {})
        speed["ttft_s"] = round(m.ttft_s, 3)
        speed["output_tps"] = round(m.output_tps, 1)
        # the logged calls are of every length: the figures by prompt length measured elsewhere no longer
        # go with these medians, and no length is stated for them (prefill_tps reads every input token)
        lengths = [k for k in ("input_tokens", "by_input") if speed.pop(k, None) is not None]
        entry["speed"] = speed
        note = (
            f"speed measured from {files} ({m.timed:,} timed calls of {m.calls:,}, {_when(m.first_s)} to "
            f"{_when(m.last_s)} UTC): time to first token p50 {_fig(m.ttft.get(500))} s, p90 "
            f"{_fig(m.ttft.get(900))} s; output p50 {_fig(m.speed.get(500))} tokens/s, 90% of calls at least "
            f"{_fig(m.speed.get(100))} (the catalog had {_fig(m.before[0])} s and {_fig(m.before[1])} tokens/s"
            + ("; its speeds by prompt length dropped: the logged calls are of every length)" if lengths else ")")
        )
        entry["source"] = f"{entry['source']}; {note}" if entry.get("source") else note
        estimated = [e for e in entry.get("estimated") or [] if e not in ("speed", "speed.ttft_s", "speed.output_tps")]
        if "estimated" in entry:
            entry["estimated"] = estimated
    validate(Catalog, data, str(path))  # what is written reads back
    first = Path(path).read_text(encoding="utf-8").splitlines()[:1]
    modeline = first[0] + "\n" if first and first[0].startswith("# yaml-language-server:") else ""
    header = (
        f"{modeline}# {path} with speeds measured from request logs by `planner catalog calibrate`:\n"
        + "".join(f"#   {f.path}: {logs.rows.get(f.path, 0):,} rows, sha256 {f.sha256}\n" for f in logs.files)
        + f"# {len(result.measured)} offerings measured"
        + (f" ({', '.join(m.offering for m in result.measured)})" if result.measured else "")
        + '; the others keep their figures. Rules: SPEC, "Plans from real traffic".\n'
    )
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120)


def _when(seconds: float) -> str:
    return _dt.datetime.fromtimestamp(math.floor(seconds), tz=_dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def _fig(x: float | None) -> str:
    from planner.core.fmt import figure

    return "-" if x is None else figure(x, 3)
