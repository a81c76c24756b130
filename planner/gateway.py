"""From a plan to a gateway's routing configuration.

LiteLLM Router (proxy config.yaml): one model group per workload, named by the workload id,
with a deployment per allocated option weighted by its share (`simple-shuffle` picks
deployments in proportion to `weight`); a `<workload>-fallback` group of the eligible
runner-ups (the unused options the break-even table lists, cheapest cut first), wired as the
workload's fallback. Reasoning modes other than `default` set `reasoning_effort`.

OpenRouter provider routing: per workload, the request fields `model`, `models` (fallback
models) and `provider` (`order` by share, `only`, `allow_fallbacks: false`, `sort` by the
workload's latency class: latency under 1 s, throughput with a budget, price without, and
`max_price` in USD per million tokens at the dearest allocated option). OpenRouter does not
split traffic by weight, so `shares` carries the plan's split for the caller.

Model ids come from each offering's `gateway` field; without one, `<provider>/<model>` is used
(the host, spelled as LiteLLM's provider where the importer's alias table knows it) and
reported, so that no guess goes out silently.
"""

from __future__ import annotations

from typing import Any

from .catalog_import import HOST_ALIASES
from .plan import Plan

FALLBACKS = 3


def _label(offering: str, mode: str) -> str:
    return offering if mode == "default" else f"{offering}@{mode}"


def _ids(plan: Plan, offering: str, kind: str, guessed: list[str]) -> str:
    info = plan.offering_info.get(offering)
    if info is None:
        guessed.append(offering)
        return offering
    if kind in info.gateway:
        return info.gateway[kind]
    if kind == "litellm" and "openrouter" in info.gateway:
        return f"openrouter/{info.gateway['openrouter']}"  # LiteLLM's OpenRouter provider
    guessed.append(offering)
    if kind == "litellm":
        provider = HOST_ALIASES.get(info.host.replace("-", " "), info.host.replace("-", "_"))
        return f"{provider}/{info.model}"
    return f"{info.host}/{info.model}"


def _runner_ups(w) -> list:
    return [b for b in w.break_even if not b.used][:FALLBACKS]


def to_litellm(plan: Plan) -> tuple[dict[str, Any], list[str]]:
    guessed: list[str] = []
    model_list: list[dict[str, Any]] = []
    fallbacks: list[dict[str, list[str]]] = []
    for w in plan.workloads:
        if w.status != "ok":
            continue
        for a in sorted(w.allocations, key=lambda a: (-a.share, a.offering, a.mode)):
            params: dict[str, Any] = {"model": _ids(plan, a.offering, "litellm", guessed), "weight": round(a.share, 6)}
            if a.mode != "default":
                params["reasoning_effort"] = a.mode
            model_list.append(
                {
                    "model_name": w.id,
                    "litellm_params": params,
                    "model_info": {
                        "id": f"{w.id}/{_label(a.offering, a.mode)}",
                        "planner_offering": a.offering,
                        "planner_mode": a.mode,
                        "planner_share": round(a.share, 6),
                        "planner_cost_per_task": a.cost_per_task,
                    },
                }
            )
        backups = _runner_ups(w)
        if backups:
            group = f"{w.id}-fallback"
            for b in backups:
                params = {"model": _ids(plan, b.offering, "litellm", guessed)}
                if b.mode != "default":
                    params["reasoning_effort"] = b.mode
                model_list.append(
                    {
                        "model_name": group,
                        "litellm_params": params,
                        "model_info": {
                            "id": f"{group}/{_label(b.offering, b.mode)}",
                            "planner_offering": b.offering,
                            "planner_mode": b.mode,
                        },
                    }
                )
            fallbacks.append({w.id: [group]})
    config = {
        "model_list": model_list,
        "router_settings": {"routing_strategy": "simple-shuffle", "num_retries": 2, "fallbacks": fallbacks},
    }
    return config, sorted(set(guessed))


def to_openrouter(plan: Plan) -> tuple[dict[str, Any], list[str]]:
    guessed: list[str] = []
    out: dict[str, Any] = {}
    for w in plan.workloads:
        if w.status != "ok":
            continue
        allocs = sorted(w.allocations, key=lambda a: (-a.share, a.offering, a.mode))
        backups = _runner_ups(w)
        models: list[str] = []
        for x in list(allocs) + backups:
            m = _ids(plan, x.offering, "openrouter", guessed)
            if m not in models:
                models.append(m)

        def host(x) -> str:
            info = plan.offering_info.get(x.offering)
            return info.host if info else x.offering

        order = list(dict.fromkeys(host(a) for a in allocs))
        only = list(dict.fromkeys(order + [host(b) for b in backups]))
        infos = [plan.offering_info[a.offering] for a in allocs if a.offering in plan.offering_info]
        sort = "price" if w.budget_s is None else ("latency" if w.budget_s <= 1 else "throughput")
        provider: dict[str, Any] = {"order": order, "only": only, "allow_fallbacks": False, "sort": sort}
        if infos:
            provider["max_price"] = {
                "prompt": max(i.price_input for i in infos),
                "completion": max(i.price_output for i in infos),
            }
        out[w.id] = {
            "model": models[0],
            "models": models[1:],
            "provider": provider,
            "shares": {_label(a.offering, a.mode): round(a.share, 6) for a in allocs},
        }
    return {"plan": plan.name, "workloads": out}, sorted(set(guessed))


# ----------------------------------------------------------------------------- catalog diff
