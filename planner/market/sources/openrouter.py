"""OpenRouter's saved responses: the models listing (one price per model), one model's endpoints (each
provider's price and measured speed) and the providers listing, told apart by their shape."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from planner.core.errors import InputError
from planner.market.sources.figures import num, read_cached, read_context, read_json, why_no_price
from planner.market.sources.records import Price


def read_openrouter(path: Path, left: list | None = None, data=None) -> list[Price]:
    """OpenRouter's models with both prices; the others go to `left` with the reason."""
    left = [] if left is None else left
    data = read_json(path) if data is None else data
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
        pin, pout = num(pricing.get("prompt")), num(pricing.get("completion"))
        if pin is None or pout is None or pin < 0 or pout < 0:
            left.append(("openrouter", mid, why_no_price(pricing.get("prompt"), pricing.get("completion"))))
            continue
        cached, no_cached = read_cached(pricing.get("input_cache_read"))
        context, no_context = read_context(m.get("context_length"))
        if no_cached or no_context:
            left.append(("openrouter", mid, no_cached or no_context))
            continue
        out.append(Price(mid, "openrouter", mid, pin * 1e6, pout * 1e6, cached, context))
    return out


@dataclass
class ModelEndpoints:
    """A saved OpenRouter endpoints response (`GET /api/v1/models/{author}/{slug}/endpoints`): the
    providers that serve one model, each with its own price and measured speed."""

    model_id: str
    name: str
    endpoints: list[dict]
    path: Path


def openrouter_shape(data) -> str:
    """Which OpenRouter response a saved file is: "endpoints" (one model's endpoints), "providers" (the
    providers listing: entries with a slug and no id) or "models" (the models listing)."""
    inner = data.get("data") if isinstance(data, dict) else None
    if isinstance(inner, dict) and "endpoints" in inner:
        return "endpoints"
    if isinstance(inner, list) and inner and all(isinstance(x, dict) and "slug" in x and "id" not in x for x in inner):
        return "providers"
    return "models"


def read_openrouter_endpoints(path: Path, data) -> ModelEndpoints:
    """One model's endpoints as saved; each endpoint is read (and left out with its reason) when the
    catalog is built."""
    inner = data.get("data") if isinstance(data, dict) else None
    model_id = inner.get("id") if isinstance(inner, dict) else None
    endpoints = inner.get("endpoints") if isinstance(inner, dict) else None
    if not isinstance(model_id, str) or not model_id or not isinstance(endpoints, list):
        raise InputError.single(
            str(path),
            "data",
            'expected an OpenRouter /api/v1/models/{author}/{slug}/endpoints response: {"data": {"id": ..., '
            '"endpoints": [...]}}',
        )
    return ModelEndpoints(model_id, str(inner.get("name") or model_id), endpoints, path)


def read_openrouter_providers(data) -> dict[str, dict]:
    """The providers listing (`GET /api/v1/providers`) by slug."""
    return {str(x["slug"]): x for x in data["data"] if isinstance(x, dict) and x.get("slug")}
