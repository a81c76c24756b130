"""Build catalogs from public data: litellm's price table, OpenRouter's models listing and the
Artificial Analysis providers table.

A catalog offering needs prices, a measured speed (output tokens/s and time to first token) and
a capability score. Only Artificial Analysis measures speed and scores models, so its rows are
the offerings; the price sources refine or add to them:

* **aa** rows (host x model) become offerings with the table's own prices, median output speed,
  median time to first token, context window and scores: capability `overall` is the
  intelligence index, `gpqa`, `mmlu_pro` and `livecodebench` the benchmark fractions x 100.
  Rows marked deleted, or missing a price, speed, first-token time or intelligence index, are
  left out and listed.
* **litellm** prices replace the table's price for the same host and model (list prices, with
  cached-input prices), matched by the rule below. Entries with no matching row are left out
  (no measured speed).
* **openrouter** models become offerings served through OpenRouter (vendor and host
  `openrouter`) at OpenRouter's price; speed, first-token time and scores are the median over
  the Artificial Analysis hosts of the same model (the `source` says over how many hosts).
  Models with no such row are left out.

Matching rule. Model names match when equal after normalising: lower case; everything up to
the last "/" dropped; region and vendor prefixes ("us.", "global.", "anthropic.", "meta-"...)
dropped; parenthesised qualifiers such as "(high)" dropped; date suffixes (-2025-08-07,
-20250807) and the words instruct, chat, latest and maas dropped; "2p6" read as "2.6"; every
run of spaces, dots, underscores and colons made one "-". Hosts match through a fixed alias
table (Fireworks = fireworks_ai, Together AI = together_ai, Amazon Bedrock = bedrock,
Kimi = moonshot, ...); an Artificial Analysis host with a qualifier (FP4, Turbo, Fast, Base,
Latency Optimized...) is a different endpoint and keeps its own measured price.

Tier: "fast" when the measured output speed is at least 500 tokens/s, else "standard".
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError
from .files import read_input
from .fmt import csv_row

KINDS = ("litellm", "openrouter", "aa")
FAST_TPS = 500.0

HOST_ALIASES = {
    "amazon bedrock": "bedrock",
    "google vertex": "vertex_ai",
    "google (vertex)": "vertex_ai",
    "google ai studio": "gemini",
    "google (ai studio)": "gemini",
    "google": "gemini",
    "microsoft azure": "azure_ai",
    "together ai": "together_ai",
    "fireworks": "fireworks_ai",
    "kimi": "moonshot",
    "lightning ai": "lightning_ai",
    "alibaba cloud": "dashscope",
    "ai21 labs": "ai21",
    "reka ai": "reka",
    "liquid ai": "liquid_ai",
    "minimax": "minimax",
}
LITELLM_PROVIDER_ALIASES = {
    "bedrock_converse": "bedrock",
    "vertex_ai-llama_models": "vertex_ai",
    "vertex_ai-moonshot_models": "vertex_ai",
    "vertex_ai-language-models": "vertex_ai",
    "fireworks_ai-embedding-models": "fireworks_ai",
}
_PREFIXES = (
    "us.",
    "eu.",
    "apac.",
    "au.",
    "jp.",
    "global.",
    "us-gov.",
    "anthropic.",
    "openai.",
    "meta.",
    "moonshotai.",
    "moonshot.",
    "mistral.",
    "deepseek.",
    "qwen.",
    "google.",
)


def normalize_model(name: str) -> str:
    s = name.strip().lower()
    s = s.rsplit("/", 1)[-1]
    changed = True
    while changed:
        changed = False
        for p in _PREFIXES:
            if s.startswith(p):
                s, changed = s[len(p) :], True
    s = re.sub(r"\([^)]*\)", " ", s)
    s = re.sub(r"(\d)p(\d)", r"\1.\2", s)
    s = re.sub(r"[-_ ]?(20\d\d-\d\d-\d\d|20\d{6})\b", "", s)
    s = re.sub(r"[\s._:]+", "-", s)
    words = [w for w in s.split("-") if w and w not in ("instruct", "chat", "latest", "maas", "it")]
    if words and words[0] == "meta" and len(words) > 1:
        words = words[1:]
    return "-".join(words)


def host_key(host: str) -> str | None:
    """The litellm provider an Artificial Analysis host name stands for; None for qualified endpoints."""
    h = host.strip().lower()
    if h in HOST_ALIASES:
        return HOST_ALIASES[h]
    if "(" in h or re.search(r"\b(fp4|fp8|bf16|int4|mxfp8|turbo|fast|base|latency optimized|standard)\b", h):
        return None
    return re.sub(r"[^a-z0-9]+", "_", h).strip("_")


def slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9._@/:-]+", "-", text.strip().lower())
    return re.sub(r"-{2,}", "-", s).strip("-") or "x"


@dataclass
class Price:
    key: str
    provider: str
    model: str
    input: float
    output: float
    cached_input: float | None
    context: int | None


@dataclass
class AARow:
    host: str
    model: str
    input: float | None
    output: float | None
    cache_discount: float | None
    tps: float | None
    ttft: float | None
    context: int | None
    caps: dict[str, float]
    deleted: bool
    line: int


@dataclass
class ImportResult:
    offerings: list[dict]
    left_out: list[tuple[str, str, str]] = field(default_factory=list)  # (source, name, reason)
    as_of: str | None = None


def _num(text) -> float | None:
    """A finite number, or None (missing, not a number, NaN or infinite)."""
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        try:
            value = float(str(text).strip())
        except ValueError:
            return None
    return value if math.isfinite(value) else None


def _count(text) -> int | None:
    """A positive whole count such as a context window, or None."""
    value = _num(text)
    return int(value) if value is not None and 0 < value <= 1e12 else None


def _why_no_price(*values) -> str:
    shown = ", ".join(repr(v)[:40] for v in values)
    return f"no usable input and output price (found {shown})"


def read_litellm(path: Path, left: list | None = None) -> list[Price]:
    """litellm's chat entries with both prices; the others with a price problem go to `left`."""
    left = [] if left is None else left
    data = _json(path)
    if not isinstance(data, dict):
        raise InputError.single(str(path), "", "expected litellm's price table: a JSON object of model entries")
    out = []
    for key, v in data.items():
        if not isinstance(v, dict) or v.get("mode") != "chat" or key == "sample_spec":
            continue
        raw_in, raw_out = v.get("input_cost_per_token"), v.get("output_cost_per_token")
        pin, pout = _num(raw_in), _num(raw_out)
        if pin is None or pout is None or pin < 0 or pout < 0:
            left.append(("litellm", str(key), _why_no_price(raw_in, raw_out)))
            continue
        provider = str(v.get("litellm_provider") or "")
        provider = LITELLM_PROVIDER_ALIASES.get(provider, provider)
        cached = _num(v.get("cache_read_input_token_cost"))
        ctx = _count(v.get("max_input_tokens"))
        out.append(
            Price(
                key,
                provider,
                key,
                pin * 1e6,
                pout * 1e6,
                None if cached is None else cached * 1e6,
                ctx,
            )
        )
    return out


def read_openrouter(path: Path, left: list | None = None) -> list[Price]:
    """OpenRouter's models with both prices; the others go to `left` with the reason."""
    left = [] if left is None else left
    data = _json(path)
    models = data.get("data") if isinstance(data, dict) else None
    if not isinstance(models, list):
        raise InputError.single(str(path), "data", 'expected an OpenRouter /api/v1/models response: {"data": [...]}')
    out = []
    for i, m in enumerate(models):
        if not isinstance(m, dict) or m.get("id") in (None, ""):
            left.append(("openrouter", f"data[{i}]", "not a model entry with an id"))
            continue
        mid = str(m["id"])
        pricing = m.get("pricing")
        if not isinstance(pricing, dict):
            left.append(("openrouter", mid, f"pricing is not an object (found {repr(pricing)[:40]})"))
            continue
        pin, pout = _num(pricing.get("prompt")), _num(pricing.get("completion"))
        if pin is None or pout is None or pin < 0 or pout < 0:
            left.append(("openrouter", mid, _why_no_price(pricing.get("prompt"), pricing.get("completion"))))
            continue
        cached = _num(pricing.get("input_cache_read"))
        out.append(
            Price(
                mid,
                "openrouter",
                mid,
                pin * 1e6,
                pout * 1e6,
                None if cached is None or cached < 0 else cached * 1e6,
                _count(m.get("context_length")),
            )
        )
    return out


def read_aa(path: Path, left: list | None = None) -> list[AARow]:
    """The Artificial Analysis table's rows; a row too short to name its host and model goes to `left`."""
    left = [] if left is None else left
    text = read_input(path, "a CSV file").removeprefix("\ufeff")
    try:
        with io.StringIO(text, newline="") as fh:
            reader = csv.DictReader(fh)
            need = {"host_name", "model_name", "median_output_speed", "median_ttft"}
            missing = need - set(reader.fieldnames or [])
            if missing:
                raise InputError.single(
                    str(path),
                    "",
                    f"not an Artificial Analysis providers table: missing columns {', '.join(sorted(missing))}",
                )
            rows = []
            for i, r in enumerate(reader, start=2):
                host, model = r.get("host_name"), r.get("model_name")
                if not isinstance(host, str) or not isinstance(model, str) or not host.strip() or not model.strip():
                    left.append(("aa", f"row {i}", "short row: no host_name or model_name"))
                    continue
                caps = {}
                ii = _num(r.get("model_intelligence_index"))
                if ii is not None:
                    caps["overall"] = round(ii, 4)
                for col, metric in (
                    ("model_gpqa", "gpqa"),
                    ("model_mmlu_pro", "mmlu_pro"),
                    ("model_livecodebench", "livecodebench"),
                ):
                    x = _num(r.get(col))
                    if x is not None:
                        caps[metric] = round(100 * x if x <= 1 else x, 4)
                ctx = _count(r.get("context_window_if_different_to_model")) or _count(
                    r.get("model_context_window_tokens")
                )
                rows.append(
                    AARow(
                        host.strip(),
                        model.strip(),
                        _num(r.get("price_1m_input_tokens")),
                        _num(r.get("price_1m_output_tokens")),
                        _num(r.get("cache_hit_discount_percent")),
                        _num(r.get("median_output_speed")),
                        _num(r.get("median_ttft")),
                        ctx,
                        caps,
                        str(r.get("deleted", "")).strip().lower() == "true",
                        i,
                    )
                )
            return rows
    except csv.Error as exc:
        raise InputError.single(str(path), "", f"not a CSV file: {exc}") from None


def _json(path: Path):
    text = read_input(path, "a JSON file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError.single(str(path), "", f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise InputError.single(str(path), "", "not valid JSON: nested too deeply") from None


def _aa_as_of(path: Path) -> str | None:
    meta = Path(path).with_name("aa_scrape_meta.json")
    if meta.exists():
        try:
            date = json.loads(meta.read_text()).get("scrape_date")
            return str(date)[:10] if date else None
        except (json.JSONDecodeError, OSError):
            return None
    return None


def build_catalog(files: list[tuple[str, Path]], name: str, as_of: str | None = None) -> tuple[dict, ImportResult]:
    """Merge the given (kind, file) sources into a catalog dict (SPEC section 1)."""
    aa_rows: list[tuple[AARow, Path]] = []
    litellm: list[Price] = []
    openrouter: list[Price] = []
    skipped: list[tuple[str, str, str]] = []  # entries no reader could use, with the reason
    for kind, path in files:
        if kind == "aa":
            aa_rows += [(r, path) for r in read_aa(path, skipped)]
            as_of = as_of or _aa_as_of(path)
        elif kind == "litellm":
            litellm += read_litellm(path, skipped)
        elif kind == "openrouter":
            openrouter += read_openrouter(path, skipped)
    result = ImportResult([], as_of=as_of)
    result.left_out += skipped
    by_host_model: dict[tuple[str, str], Price] = {}
    for p in sorted(litellm, key=lambda p: (len(p.key), p.key)):  # shortest key first: the plain list price
        by_host_model.setdefault((p.provider, normalize_model(p.model)), p)
    used_prices: set[str] = set()
    ids: dict[str, int] = {}
    by_model: dict[str, list[AARow]] = {}
    for row, path in aa_rows:
        label = f"{row.host} / {row.model}"
        if row.deleted:
            result.left_out.append(("aa", label, "marked deleted in the source"))
            continue
        missing = [
            k
            for k, v in (
                ("output speed", row.tps),
                ("time to first token", row.ttft),
                ("intelligence index", row.caps.get("overall")),
            )
            if v is None or v != v
        ]
        if row.tps is not None and row.tps <= 0:
            missing.append("positive output speed")
        price = by_host_model.get((host_key(row.host) or "", normalize_model(row.model)))
        if price is None and (row.input is None or row.output is None):
            missing.append("price")
        if missing:
            result.left_out.append(("aa", label, "no " + ", no ".join(missing)))
            continue
        by_model.setdefault(normalize_model(row.model), []).append(row)
        if price is not None:
            used_prices.add(price.key)
            p_in, p_out, cached = price.input, price.output, price.cached_input
            price_src = f"price: litellm '{price.key}'"
        else:
            p_in, p_out = row.input, row.output
            cached = p_in * (1 - row.cache_discount / 100) if row.cache_discount else None
            price_src = "price: Artificial Analysis"
        oid = _unique(ids, f"{slug(row.model.replace('(', '').replace(')', ''))}@{slug(row.host)}")
        offering = {
            "id": oid,
            "model": row.model,
            "vendor": slug(row.host),
            "host": slug(row.host),
            "tier": "fast" if row.tps >= FAST_TPS else "standard",
            "capability": dict(row.caps),
            "price": {"input": round(p_in, 6), "output": round(p_out, 6)},
            "speed": {"output_tps": round(row.tps, 3), "ttft_s": round(row.ttft, 4)},
            "source": f"Artificial Analysis providers leaderboard{' (' + as_of + ')' if as_of else ''}, "
            f"{Path(path).name} line {row.line}: speed, first token, scores; {price_src}",
        }
        if cached is not None:
            offering["price"]["cached_input"] = round(cached, 6)
        context = (price.context if price is not None and price.context else None) or row.context
        if context:
            offering["context_window"] = int(context)
        gateway = {}
        if price is not None:
            gateway["litellm"] = price.key if "/" in price.key else f"{price.provider}/{price.key}"
        if gateway:
            offering["gateway"] = gateway
        result.offerings.append(offering)
    for p in litellm:
        if p.key not in used_prices:
            result.left_out.append(
                ("litellm", p.key, "no measured speed (no Artificial Analysis row for this host and model)")
            )
    for p in openrouter:
        rows = by_model.get(normalize_model(p.model))
        if not rows:
            result.left_out.append(
                ("openrouter", p.key, "no measured speed (no Artificial Analysis row for this model)")
            )
            continue
        tps = statistics.median(r.tps for r in rows)
        ttft = statistics.median(r.ttft for r in rows)
        caps = {}
        for metric in sorted({m for r in rows for m in r.caps}):
            values = [r.caps[metric] for r in rows if metric in r.caps]
            caps[metric] = round(statistics.median(values), 4)
        oid = _unique(ids, f"{slug(p.model)}@openrouter")
        offering = {
            "id": oid,
            "model": p.model,
            "vendor": "openrouter",
            "host": "openrouter",
            "tier": "fast" if tps >= FAST_TPS else "standard",
            "capability": caps,
            "price": {"input": round(p.input, 6), "output": round(p.output, 6)},
            "speed": {"output_tps": round(tps, 3), "ttft_s": round(ttft, 4)},
            "source": f"price: OpenRouter models listing '{p.key}'; speed, first token, scores: Artificial Analysis "
            f"median over {len(rows)} host(s) of '{rows[0].model}'",
            "gateway": {"openrouter": p.key},
        }
        if p.cached_input is not None:
            offering["price"]["cached_input"] = round(p.cached_input, 6)
        if p.context:
            offering["context_window"] = p.context
        result.offerings.append(offering)
    result.offerings = _plausible(result)
    catalog = {"catalog": name, "as_of": as_of, "currency": "USD", "offerings": result.offerings}
    return catalog, result


def _plausible(result: ImportResult) -> list[dict]:
    """The offerings the catalog schema accepts; one with a figure out of range (SPEC's plausibility
    limits) is left out and listed with the field and the value, and the rest still import."""
    from pydantic import ValidationError

    from .schema import Offering

    kept = []
    for offering in result.offerings:
        try:
            Offering.model_validate(offering)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            found = repr(err.get("input"))[:40]
            result.left_out.append(("import", str(offering.get("id", "?")), f"{where}: {err['msg']} (found {found})"))
            continue
        kept.append(offering)
    return kept


def _unique(ids: dict[str, int], base: str) -> str:
    n = ids.get(base, 0)
    ids[base] = n + 1
    return base if n == 0 else f"{base}-{n + 1}"


def parse_sources(kind: str, files: list[str]) -> list[tuple[str, Path]]:
    """FILE, or KIND:FILE to mix sources in one import."""
    if kind not in KINDS:
        raise InputError.single("catalog import", "", f"unknown source '{kind}'; expected one of: {', '.join(KINDS)}")
    out = []
    for f in files:
        k, _, rest = f.partition(":")
        if rest and k in KINDS:
            out.append((k, Path(rest)))
        else:
            out.append((kind, Path(f)))
    return out


def import_catalog(
    kind: str, files: list[str], out: Path, name: str | None, as_of: str | None
) -> tuple[str, str, ImportResult]:
    """`planner catalog import`: the catalog file's text (with a header naming the sources), the
    left-out list as CSV, and what was imported. The catalog is validated before it is returned:
    the planner never writes a catalog it would reject."""
    import yaml

    from .load import validate
    from .schema import Catalog

    sources = parse_sources(kind, files)
    catalog, result = build_catalog(sources, name or out.name.split(".")[0], as_of)
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
        "# Built by `planner catalog import` from: "
        + ", ".join(f"{k}:{p.name}" for k, p in sources)
        + f"\n# {len(result.offerings)} offerings; {len(result.left_out)} entries left out for a missing "
        "figure (listed in the .left-out.csv beside this file).\n"
    )
    text = header + yaml.safe_dump(catalog, sort_keys=False, allow_unicode=True, width=120)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["source", "name", "reason"])
    writer.writerows(csv_row(r) for r in result.left_out)
    return text, buf.getvalue(), result
