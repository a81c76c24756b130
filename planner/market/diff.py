"""Two catalogs compared offering by offering: added, removed, and every figure that changed
(`planner catalog diff`). A capability metric put on a new scale is one `rescaled` row (rescale.py,
found over the models both catalogs score), not one change per offering; a capability change under half
the source's rounding is no change, counted in one `rounded` row per metric."""

from __future__ import annotations

from typing import Any

from planner.model.rescale import Rescale, matched, model_scores, rounding_noise, rounding_of, score_changes
from planner.model.schema import Catalog


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


def capability_changes(
    old: Catalog, new: Catalog
) -> tuple[dict[str, Rescale], dict[str, dict[str, str | None]], dict[str, tuple[int, float]]]:
    """Per capability metric of the offerings in both catalogs: its rescale, when it was put on a new
    scale (declared, or found from the models both catalogs score), the scores to list as changes,
    offering -> note (rescale.score_changes), and the changes under half the rounding (count, rounding)
    when the metric was not rescaled."""
    b = {o.id: o for o in new.offerings}
    metrics = sorted(
        {m for o in (*old.offerings, *new.offerings) for m in o.capability} | set(old.metrics) | set(new.metrics)
    )
    models_a, models_b = model_scores(old), model_scores(new)
    rescales, listed, rounded = {}, {}, {}
    for m in metrics:
        ma, mb = old.metrics.get(m), new.metrics.get(m)
        scores = [
            (o.id, o.capability[m], b[o.id].capability[m])
            for o in old.offerings
            if o.id in b and m in o.capability and m in b[o.id].capability
        ]
        rounding = rounding_of(ma.rounding if ma else None, mb.rounding if mb else None)
        found, listed[m] = score_changes(
            m,
            scores,
            rounding,
            ma.scale if ma else None,
            mb.scale if mb else None,
            models=matched(models_a.get(m), models_b.get(m)),
        )
        if found is not None:
            rescales[m] = found
        if (found is None or not found.moves) and (noise := rounding_noise(scores, rounding)):
            rounded[m] = (noise, rounding)
    return rescales, listed, rounded


def diff_catalogs(old: Catalog, new: Catalog) -> list[dict[str, Any]]:
    """One row per rescaled capability metric, one per metric whose scores moved by less than half the
    rounding (counted, not listed), per added or removed offering and per changed figure of an offering
    in both. Capability rows follow rescale.score_changes: under a rescale of metric m, an offering's
    capability.m row is listed only when its score differs from the rescale (the note says so); a
    capability change under half the rounding either catalog declares is no change."""
    a = {o.id: o for o in old.offerings}
    b = {o.id: o for o in new.offerings}
    rescales, listed, rounded = capability_changes(old, new)
    rows: list[dict[str, Any]] = [
        _row(
            "rescaled",
            "*",
            f"capability.{m}",
            r.scale_before if r.declared else None,
            r.scale_after if r.declared else None,
            None if r.factor is None else round(r.factor - 1, 6),
            r.line(),
        )
        for m, r in rescales.items()
    ]
    rows += [
        _row(
            "rounded",
            "*",
            f"capability.{m}",
            note=f"capability.{m}: {n} {'score' if n == 1 else 'scores'} moved by less than half the published "
            f"step {step:g}: rounding, not listed",
        )
        for m, (n, step) in rounded.items()
    ]
    for oid in [o.id for o in old.offerings if o.id not in b]:
        rows.append(_row("removed", oid))
    for oid in [o.id for o in new.offerings if o.id not in a]:
        rows.append(_row("added", oid))
    for oid in [o.id for o in new.offerings if o.id in a]:
        fa, fb = _fields(a[oid]), _fields(b[oid])
        for key in list(fa) + [k for k in fb if k not in fa]:
            x, y = fa.get(key), fb.get(key)
            numbers = isinstance(x, (int, float)) and isinstance(y, (int, float))
            metric = key.removeprefix("capability.") if key.startswith("capability.") and numbers else None
            note = None
            if metric is not None:
                if oid not in listed[metric]:
                    continue
                note = listed[metric][oid]
            elif x == y:
                continue
            rel = (y - x) / x if numbers and x else None
            rows.append(_row("changed", oid, key, x, y, None if rel is None else round(rel, 6), note))
    return rows


def _row(change, offering, field="", before=None, after=None, relative=None, note=None) -> dict[str, Any]:
    return {
        "change": change,
        "offering": offering,
        "field": field,
        "before": before,
        "after": after,
        "relative": relative,
        "note": note,
    }
