"""Two catalogs compared offering by offering: added, removed, and every figure that changed
(`planner catalog diff`)."""

from __future__ import annotations

from typing import Any

from .schema import Catalog


def _fields(o) -> dict[str, float | str | None]:
    out: dict[str, float | str | None] = {
        "model": o.model,
        "vendor": o.vendor,
        "host": o.host_name,
        "tier": o.tier,
        "price.input": o.price.input,
        "price.output": o.price.output,
        "price.cached_input": o.price.cached_input,
        "speed.output_tps": o.speed.output_tps,
        "speed.ttft_s": o.speed.ttft_s,
        "speed.prefill_tps": o.speed.prefill_tps,
        "context_window": o.context_window,
        "capacity.tokens_per_minute": o.capacity.tokens_per_minute if o.capacity else None,
        "capacity.requests_per_minute": o.capacity.requests_per_minute if o.capacity else None,
    }
    for metric, score in sorted(o.capability.items()):
        out[f"capability.{metric}"] = score
    return out


def diff_catalogs(old: Catalog, new: Catalog) -> list[dict[str, Any]]:
    """One row per added or removed offering and per changed figure of an offering in both."""
    a = {o.id: o for o in old.offerings}
    b = {o.id: o for o in new.offerings}
    rows: list[dict[str, Any]] = []
    for oid in [o.id for o in old.offerings if o.id not in b]:
        rows.append(
            {"change": "removed", "offering": oid, "field": "", "before": None, "after": None, "relative": None}
        )
    for oid in [o.id for o in new.offerings if o.id not in a]:
        rows.append({"change": "added", "offering": oid, "field": "", "before": None, "after": None, "relative": None})
    for oid in [o.id for o in new.offerings if o.id in a]:
        fa, fb = _fields(a[oid]), _fields(b[oid])
        for key in list(fa) + [k for k in fb if k not in fa]:
            x, y = fa.get(key), fb.get(key)
            if x != y:
                rel = (y - x) / x if isinstance(x, (int, float)) and isinstance(y, (int, float)) and x else None
                rows.append(
                    {
                        "change": "changed",
                        "offering": oid,
                        "field": key,
                        "before": x,
                        "after": y,
                        "relative": None if rel is None else round(rel, 6),
                    }
                )
    return rows
