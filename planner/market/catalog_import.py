"""Build catalogs from public data: litellm's price table, OpenRouter's models listing and the
Artificial Analysis providers table.

A catalog offering needs prices, a measured speed (output tokens/s and time to first token) and
a capability score. Only Artificial Analysis measures speed and scores models, so its rows are
the offerings; the price sources refine or add to them:

* **aa** rows (host x model) give the measured figures: median output speed, median time to
  first token (the input part: thinking is apart), thinking time, context window and scores
  (capability `overall` is the intelligence index, `gpqa`, `mmlu_pro` and `livecodebench` the
  benchmark fractions x 100). A row that thinks (`ttft_reasoning_time` > 0) carries `thinking:
  {seconds}`, rounded up to the millisecond; its tokens (seconds x output speed, billed as
  output) are an estimate. A reasoning row measured with no thinking time, on a host that does
  not stream thinking, has it inside its first-token time: the same host's non-reasoning rows'
  median first-token time is the first token, the rest is thinking (both estimates; left out when
  the host has no non-reasoning row). Rows of one endpoint and one model that
  differ only by an effort qualifier ("(Reasoning, High Effort)", "(xhigh)"...) at the same
  prices are one offering: the row that thinks least is the default, each other row a mode with
  its own model name, scores, speed and thinking. Rows marked deleted, missing a price, speed,
  first-token time or intelligence index, priced 0/0 (Artificial Analysis lists 0 for an
  unpublished price), priced under a tenth of the median of the model's other rows (a
  placeholder; with at least 3 priced rows), reasoning rows that think under a quarter of the
  tokens the same model thinks on its other hosts (median over at least 3: the endpoint likely does
  not run that effort), reasoning models with no measured thinking time, and rows whose input
  price equals their cache-write price (a scrape that took one for the other) are left out and
  listed.
* **litellm** prices replace the table's price for the same host and model (list prices, with
  cached-input prices; published `rpm`/`tpm` become the offering's capacity), matched by the
  rule below. Entries with no matching row are left out (no measured speed). An entry's long-context
  prices (`..._above_272k_tokens`) become `price.long_context`, its batch, flex and priority prices
  (`..._batches`, `_flex`, `_priority`) `price_tiers`, with no speed: none is measured.
* **openrouter** models become offerings served through OpenRouter (vendor and host
  `openrouter`) at OpenRouter's price, with figures that hold at that price whichever provider
  OpenRouter picks: per effort variant, the slowest figures (lowest output speed, longest first
  token, longest thinking) and lowest scores among the Artificial Analysis hosts priced at or
  below OpenRouter's price (within 1%), else among all hosts (the `source` says which). Its
  effort variants are modes as for a host; `model` is the default variant's Artificial Analysis
  name, the OpenRouter id is in the offering id and `gateway`. Models with no such row are left
  out.

A price of 0 for input and output in litellm or OpenRouter is a free tier: left out unless
`free_tiers`, then imported with tier `free` when it publishes a rate limit (its capacity).

Nothing is dropped silently: every entry of a source that is no offering (litellm's entries of other
modes and its sample entry included) is listed in the left-out list with its reason. A figure a source
gives that is not a number in its range leaves its entry out, listed, and is never read as absent: a
context length that is not a number of tokens from 1 to 10^10 is never "no limit", a rate limit that is
not above 0 never "unlimited", a cached-input price that is not a number from 0 never "none", an
OpenRouter discount outside 0..1 never clamped. (Absent figures stay absent: no limit, no cached price.)

Companies. A host name is normalised to the company that bills and serves it (lower case,
qualifiers removed, runs of other characters made one "-", product names mapped to their company:
Amazon Bedrock is `amazon`, Microsoft Azure `microsoft`, Google AI Studio and Vertex `google`,
Kimi `moonshot`); its endpoint variant (FP8, Turbo, Fast, Base, Latency Optimized, AI Studio,
Vertex...) is kept in the offering id (`gpt-oss-120b@deepinfra-fp8`) and the tier
(`standard-fp8`). Tier: "fast" when the measured output speed is at least 500 tokens/s, else
"standard".

Matching rule. Model names match when equal after normalising: lower case; everything up to
the last "/" dropped; region and vendor prefixes ("us.", "global.", "anthropic.", "meta-"...)
dropped; parenthesised qualifiers such as "(high)" dropped; date suffixes (-2025-08-07,
-20250807), OpenRouter's ":free" and the words instruct, chat, latest and maas dropped; "2p6"
read as "2.6"; every run of spaces, dots, underscores and colons made one "-". Hosts match
through their company and a fixed table of litellm providers (Fireworks = fireworks_ai,
Together AI = together_ai, Amazon Bedrock = bedrock, Kimi = moonshot, Google Vertex =
vertex_ai...); an endpoint variant other than Google's AI Studio and Vertex (FP4, Turbo,
Fast, Base, Latency Optimized...) is a different endpoint and keeps its own measured price.

Older scrapes lack some of today's columns: the importer reads what is there, derives what it
can (output speed and first-token time from the long or medium prompt's medians, thinking time
from the total minus the input time or from e2e_reasoning_time, the intelligence index from the
estimated one) and lists each missing column with what it did instead.

Where each part lives: this module reads the sources in order and builds the catalog and its
header; planner.market.sources reads each file into records; names makes hosts and models
comparable; merge prices each Artificial Analysis row (the rules above that leave a row out);
offerings builds their offering records and drops what the schema rejects; openrouter_offerings
builds OpenRouter's; provenance finds the files (KIND:FILE, fetched folders) and their dates.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from planner.core.errors import InputError
from planner.core.fmt import csv_row
from planner.market.merge import Buyable, Entry, hidden_thinking, merge_prices, shallow_thinkers
from planner.market.offerings import aa_offerings, plausible
from planner.market.openrouter_offerings import openrouter_offerings
from planner.market.provenance import aa_as_of, fetched_on, parse_sources
from planner.market.sources.aa import read_aa
from planner.market.sources.aa_api import API_METRICS
from planner.market.sources.figures import read_json
from planner.market.sources.litellm import read_litellm
from planner.market.sources.openrouter import (
    ModelEndpoints,
    openrouter_shape,
    read_openrouter,
    read_openrouter_endpoints,
    read_openrouter_providers,
)
from planner.market.sources.records import AARow, Price

# Catalog metrics: what each score measures, with the column it is read from.
METRICS = {
    "overall": ("Artificial Analysis Intelligence Index", "model_intelligence_index"),
    "gpqa": ("GPQA Diamond", "model_gpqa"),
    "mmlu_pro": ("MMLU-Pro", "model_mmlu_pro"),
    "livecodebench": ("LiveCodeBench", "model_livecodebench"),
}
METRIC_ROUNDING = 0.0001  # the importer keeps the table's scores to 4 decimals: no finer step than this


IDENTITY_COLUMNS = (
    "offering",
    "source",
    "host",
    "host_id",
    "model",
    "host_model_id",
    "litellm",
    "rule",
    "openrouter",
    "served_by",
    "note",
)


@dataclass
class ImportResult:
    """What an import made: the offerings, every entry left out with the reason, and the catalog's date."""

    offerings: list[dict]
    left_out: list[tuple[str, str, str]] = field(default_factory=list)  # (source, name, reason)
    as_of: str | None = None
    identities: list[tuple] = field(default_factory=list)  # IDENTITY_COLUMNS, one per source row in an offering

    def identities_csv(self) -> str:
        """The identity report: which source entries each offering is, by which rule, and what is unsettled."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(IDENTITY_COLUMNS)
        writer.writerows(csv_row(r) for r in self.identities)
        return buf.getvalue()

    @property
    def missing_columns(self) -> list[tuple[str, str, str]]:
        return [r for r in self.left_out if r[0] == "aa" and r[1].startswith("column ")]


def _metrics(offerings: list[dict], as_of: str | None, *, api: bool = False, steps: dict | None = None) -> dict:
    """What each capability metric in the catalog measures, its scale, its top score and rounding: the
    step the scrape publishes the metric's scores at (`steps`, read from the table's text), never finer
    than the importer keeps."""
    top: dict[str, float] = {}
    for o in offerings:
        for caps in [o["capability"], *(m.get("capability") or {} for m in o.get("modes", []))]:
            for metric, value in caps.items():
                top[metric] = max(top.get(metric, 0.0), value)
    out = {}
    for metric, (name, column) in METRICS.items():
        if metric not in top:
            continue
        if metric == "overall":  # a label that names a version would change only with the index itself
            scale = "0-100 points; the scrape does not name the index version"
        else:
            scale = f"{name}, percent of questions answered correctly (0-100)"
        entry: dict = {"name": name, "scale": scale}
        if top[metric] > 0:
            entry["top"] = top[metric]
        entry["rounding"] = max(METRIC_ROUNDING, (steps or {}).get(metric, METRIC_ROUNDING))
        if api:
            where = f"Artificial Analysis API (GET /api/v2/data/llms/models), evaluations.{API_METRICS[metric]}"
        else:
            where = f"Artificial Analysis providers leaderboard, column {column}"
        entry["source"] = where + ("" if metric == "overall" else " (fraction x 100)")
        out[metric] = entry
    return out


@dataclass
class _Read:
    """What the readers gave, by kind, with the entries they could not use (and why)."""

    aa_rows: list[tuple[AARow, Path]] = field(default_factory=list)
    aa_models: list[tuple[AARow, Path]] = field(default_factory=list)  # the API's: one per model, no named host
    litellm: list[Price] = field(default_factory=list)
    openrouter: list[Price] = field(default_factory=list)
    endpoints: list[ModelEndpoints] = field(default_factory=list)
    providers: dict[str, dict] = field(default_factory=dict)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    as_of: str | None = None
    steps: dict[str, float] = field(default_factory=dict)  # metric -> the step the tables publish it at


def _read(files: list[tuple[str, Path]], as_of: str | None) -> _Read:
    """Each (kind, file) by its reader, in order; an OpenRouter file by its shape. `as_of`, when not given,
    is the first Artificial Analysis scrape's date."""
    read = _Read(as_of=as_of)
    for kind, path in files:
        if kind == "aa":
            for r in read_aa(path, read.skipped, read.steps):
                (read.aa_models if r.per_model else read.aa_rows).append((r, path))
            read.as_of = read.as_of or aa_as_of(path)
        elif kind == "litellm":
            read.litellm += read_litellm(path, read.skipped)
        elif kind == "openrouter":
            data = read_json(path)
            shape = openrouter_shape(data)
            if shape == "endpoints":
                read.endpoints.append(read_openrouter_endpoints(path, data))
            elif shape == "providers":
                read.providers.update(read_openrouter_providers(data))
            else:
                read.openrouter += read_openrouter(path, read.skipped, data)
    return read


def build_catalog(
    files: list[tuple[str, Path]],
    name: str,
    as_of: str | None = None,
    *,
    free_tiers: bool = False,
    include: frozenset[str] = frozenset(),
) -> tuple[dict, ImportResult]:
    """Merge the given (kind, file) sources into a catalog dict (SPEC section 1). `free_tiers`: import
    prices of 0/0 that publish a rate limit, with tier `free` and that limit as capacity. `include`:
    "deprecated", "preview": also what is not sold today (left out and listed otherwise)."""
    read = _read(files, as_of)
    as_of = read.as_of or next((d for _, path in files if (d := fetched_on(path))), None)
    hidden_thinking([r for r, _ in read.aa_rows])
    result = ImportResult([], as_of=as_of)
    result.left_out += read.skipped
    shallow = shallow_thinkers(read.aa_rows)
    buyable = Buyable(as_of, "deprecated" in include, "preview" in include)
    entries = merge_prices(read.aa_rows, read.litellm, shallow, result.left_out, buyable, free_tiers=free_tiers)
    ids: dict[str, int] = {}
    made: dict[tuple[str, int], str] = {}
    result.offerings = aa_offerings(entries, ids, as_of, made)
    result.identities = [_identity(e, made) for e in entries if (str(e.path), e.row.line) in made]
    result.offerings += openrouter_offerings(
        read.openrouter,
        read.endpoints,
        read.providers,
        entries,
        [*read.aa_rows, *read.aa_models],
        shallow,
        ids,
        result.left_out,
        buyable,
        free_tiers=free_tiers,
    )
    result.identities += [_aggregate_identity(o) for o in result.offerings if o["vendor"] == "openrouter"]
    result.offerings = plausible(result.offerings, result.left_out)
    kept = {o["id"] for o in result.offerings}
    result.identities = [r for r in result.identities if r[0] in kept]
    catalog: dict = {"catalog": name, "as_of": as_of, "currency": "USD"}
    metrics = _metrics(result.offerings, as_of, api=bool(read.aa_models) and not read.aa_rows, steps=read.steps)
    if metrics:
        catalog["metrics"] = metrics
    catalog["offerings"] = result.offerings
    return catalog, result


def _identity(e: Entry, made: dict[tuple[str, int], str]) -> tuple:
    m = e.identity
    key = m.price.key if m.price else ""
    return (
        made[str(e.path), e.row.line],
        "aa",
        e.row.host,
        e.row.host_id,
        e.row.model,
        e.row.host_model,
        key,
        m.rule,
        "",
        "",
        m.note,
    )


def _aggregate_identity(o: dict) -> tuple:
    served = o.get("served_by") or ([o["host"]] if o.get("host") not in (None, "openrouter") else [])
    return (
        o["id"],
        "openrouter",
        o.get("host", ""),
        "",
        o["model"],
        "",
        "",
        "",
        o["gateway"].get("openrouter", ""),
        " ".join(served),
        "",
    )


def _named(sources: list[tuple[str, Path]]) -> str:
    """The sources for the catalog's header: each file by name, in order; a folder's many files of one kind
    (a fetch's endpoints lists) by their count, where the first of them comes."""
    count: dict[tuple[str, Path], int] = {}
    for k, p in sources:
        count[(k, p.parent)] = count.get((k, p.parent), 0) + 1
    parts: list[str] = []
    for k, p in sources:
        n = count[(k, p.parent)]
        if n <= 3:
            parts.append(f"{k}:{p.name}")
        elif (text := f"{k}:{p.parent.name}/ ({n} files)") not in parts:
            parts.append(text)
    return ", ".join(parts)


def import_catalog(
    kind: str,
    files: list[str],
    out: Path,
    name: str | None,
    as_of: str | None,
    *,
    free_tiers: bool = False,
    include: frozenset[str] = frozenset(),
) -> tuple[str, str, ImportResult]:
    """`planner catalog import`: the catalog file's text (with a header naming the sources and the
    columns the scrape lacked), the left-out list as CSV, and what was imported. The catalog is
    validated before it is returned: the planner never writes a catalog it would reject."""
    import yaml

    from planner.model.load import validate
    from planner.model.schema import Catalog

    sources = parse_sources(kind, files)
    if not sources:
        raise InputError.single("catalog import", "", "no source files given")
    catalog, result = build_catalog(
        sources, name or out.name.split(".")[0], as_of, free_tiers=free_tiers, include=include
    )
    if not catalog["offerings"]:
        raise InputError.single(
            str(sources[0][1]),
            "",
            "no offering has every required figure (prices, a measured "
            "speed and time to first token, a capability score); merge "
            "an Artificial Analysis table: aa:FILE",
        )
    validate(Catalog, catalog, str(out))
    header = (
        "# yaml-language-server: $schema=../schemas/catalog.schema.json\n"  # for editors; catalogs/ beside schemas/
        "# Built by `planner catalog import` from: "
        + _named(sources)
        + f"\n# {len(result.offerings)} offerings; {len(result.left_out)} entries left out, each with the "
        "reason (listed in the .left-out.csv beside this file).\n"
    )
    for _, column, reason in result.missing_columns:
        header += f"# {column} {reason}\n"
    text = header + yaml.safe_dump(catalog, sort_keys=False, allow_unicode=True, width=120)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["source", "name", "reason"])
    writer.writerows(csv_row(r) for r in result.left_out)
    return text, buf.getvalue(), result
