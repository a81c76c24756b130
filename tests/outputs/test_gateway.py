"""Exports that deploy (planner.outputs.gateway, planner.market.gateway_ids and `planner export`, SPEC "Exports that
deploy"): every field checked against the documented schema of the gateway's config or API, written
down below with its source, and every id, provider slug and effort against the gateways' own lists."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import ROOT
from typer.testing import CliRunner

from planner.cli.app import app
from planner.market.gateway_ids import LITELLM_EFFORTS, OPENROUTER_EFFORTS, load_sources, mode_intent
from planner.outputs.gateway import Resolver, label, preferences, sort_for, to_litellm, to_openrouter
from planner.plan.model import OfferingInfo, Plan, read_plan

runner = CliRunner()
SOURCES = ROOT / "catalogs" / "sources"

# ----------------------------------------------------------------------------- documented schemas

# LiteLLM proxy config.yaml, https://docs.litellm.ai/docs/proxy/configs: the top-level sections;
# `model_list` entries are {model_name, litellm_params, model_info}; `litellm_params` takes any
# litellm.completion() input (https://docs.litellm.ai/docs/completion/input) — the export writes
# `model` (str, "<provider>/<model>"), `weight` (number, simple-shuffle's weighted pick,
# https://docs.litellm.ai/docs/routing#weighted-shuffle) and `reasoning_effort` (str, litellm's
# REASONING_EFFORT values, https://docs.litellm.ai/docs/reasoning_content); `model_info` takes `id`
# (str, the deployment's id) and free metadata keys. `service_tier` (flex | priority): an OpenAI
# chat-completions input litellm passes on (https://docs.litellm.ai/docs/completion/input).
LITELLM_SECTIONS = {"model_list", "router_settings", "litellm_settings", "general_settings", "environment_variables"}
LITELLM_DEPLOYMENT = {"model_name": str, "litellm_params": dict, "model_info": dict}
LITELLM_PARAMS = {"model": str, "weight": (int, float), "reasoning_effort": str, "service_tier": str}
# router_settings, https://docs.litellm.ai/docs/proxy/configs#router-settings and
# https://docs.litellm.ai/docs/proxy/reliability: routing_strategy, num_retries, fallbacks
# ([{model_group: [fallback groups]}]).
LITELLM_ROUTER_SETTINGS = {"routing_strategy": str, "num_retries": int, "fallbacks": list}
ROUTING_STRATEGIES = {
    "simple-shuffle",
    "least-busy",
    "usage-based-routing",
    "latency-based-routing",
    "cost-based-routing",
    "usage-based-routing-v2",
}

# OpenRouter chat-completions request body, https://openrouter.ai/docs/api/api-reference/chat/create-a-chat-completion:
# `model` (str), `models` (str[]: model fallbacks, https://openrouter.ai/docs/guides/routing/model-fallbacks),
# `reasoning` ({effort | max_tokens, exclude, enabled},
# https://openrouter.ai/docs/guides/best-practices/reasoning-tokens), `provider` (below).
# `service_tier` (flex | priority), https://openrouter.ai/docs/guides/features/service-tiers
OPENROUTER_BODY = {"model": str, "models": list, "reasoning": dict, "provider": dict, "service_tier": str}
OPENROUTER_REASONING = {"effort": str, "max_tokens": int, "exclude": bool, "enabled": bool}
# The `provider` object, https://openrouter.ai/docs/guides/routing/provider-selection (its field table).
OPENROUTER_PROVIDER = {
    "order": list,
    "allow_fallbacks": bool,
    "require_parameters": bool,
    "data_collection": str,
    "zdr": bool,
    "enforce_distillable_text": bool,
    "only": list,
    "ignore": list,
    "quantizations": list,
    "sort": (str, dict),
    "preferred_min_throughput": (int, float, dict),
    "preferred_max_latency": (int, float, dict),
    "max_price": dict,
}
OPENROUTER_SORTS = {"price", "throughput", "latency"}
OPENROUTER_PERCENTILES = {"p50", "p75", "p90", "p99"}  # PercentileLatencyCutoffs / PercentileThroughputCutoffs
OPENROUTER_MAX_PRICE = {"prompt", "completion", "request", "image"}  # USD per million tokens


def check_fields(obj: dict, schema: dict, where: str) -> None:
    assert set(obj) <= set(schema), f"{where}: undocumented keys {set(obj) - set(schema)}"
    for key, value in obj.items():
        kind = schema[key]
        if kind is bool:
            assert isinstance(value, bool), (where, key)
        else:
            assert isinstance(value, kind) and not isinstance(value, bool), (where, key, value)


def check_litellm(config: dict, src, unknown: dict) -> None:
    """Field by field against the schema above; every model string known to litellm's map unless it is
    an option the export named as unknown."""
    assert set(config) <= LITELLM_SECTIONS
    ids = set()
    groups: dict[str, list] = {}
    unknown_labels = set(unknown)
    for d in config["model_list"]:
        check_fields(d, LITELLM_DEPLOYMENT, "deployment")
        check_fields(d["litellm_params"], LITELLM_PARAMS, "litellm_params")
        info = d["model_info"]
        assert isinstance(info["id"], str) and info["id"] not in ids  # every deployment its own id
        ids.add(info["id"])
        params = d["litellm_params"]
        if "weight" in params:
            assert 0 < params["weight"] <= 1
        if "reasoning_effort" in params:
            assert params["reasoning_effort"] in LITELLM_EFFORTS
        opt = label(info["planner_offering"], info["planner_mode"])
        if "planner_note" in info:  # the host's own model string: routed by its provider, which the Router routes
            assert info["planner_note"].startswith("not in litellm's price table: routed by its provider")
            assert params["model"].split("/", 1)[0] in src.routable and "reasoning_effort" not in params
        elif opt not in unknown_labels:
            assert src.litellm_entry(params["model"]), params["model"]  # the id is in litellm's map
            if "reasoning_effort" in params:
                assert src.litellm_effort(params["model"], params["reasoning_effort"]) is None
        groups.setdefault(d["model_name"], []).append(d)
    for group, deps in groups.items():  # no two deployments of a group alike
        keys = [json.dumps(d["litellm_params"] | {"weight": None}, sort_keys=True) for d in deps]
        assert len(keys) == len(set(keys)), group
    rs = config["router_settings"]
    check_fields(rs, LITELLM_ROUTER_SETTINGS, "router_settings")
    assert rs["routing_strategy"] in ROUTING_STRATEGIES
    for fb in rs["fallbacks"]:
        ((src_group, dst),) = fb.items()
        assert src_group in groups and all(g in groups for g in dst)


def check_openrouter(doc: dict, src, unknown: dict) -> None:
    for wid, routes in doc["workloads"].items():
        for route, body in routes.items():
            where = f"{wid}/{route}"
            check_fields(body, OPENROUTER_BODY, where)
            assert all(isinstance(m, str) for m in body.get("models", []))
            if route not in unknown:
                assert body["model"] in src.or_models, where  # the id is in OpenRouter's listing
            if "reasoning" in body:
                check_fields(body["reasoning"], OPENROUTER_REASONING, where + " reasoning")
                if "effort" in body["reasoning"]:
                    assert body["reasoning"]["effort"] in OPENROUTER_EFFORTS
            prov = body["provider"]
            check_fields(prov, OPENROUTER_PROVIDER, where + " provider")
            for key in ("order", "only"):
                for slug in prov.get(key, []):
                    assert slug in src.or_providers and slug != "openrouter", (where, slug)  # real slugs
            assert set(prov.get("order", [])) <= set(prov.get("only", prov.get("order", [])))
            assert prov["sort"] in OPENROUTER_SORTS
            for key in ("preferred_max_latency", "preferred_min_throughput"):
                if key in prov:
                    assert set(prov[key]) <= OPENROUTER_PERCENTILES and all(v > 0 for v in prov[key].values())
            if "max_price" in prov:
                assert set(prov["max_price"]) <= OPENROUTER_MAX_PRICE
                assert all(isinstance(v, int | float) and v >= 0 for v in prov["max_price"].values())


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def src():
    return load_sources(None)


@pytest.fixture(scope="module")
def plans(tmp_path_factory):
    out = tmp_path_factory.mktemp("plans")
    for name in ("support", "real-support"):
        assert runner.invoke(app, ["solve", str(ROOT / "workloads" / f"{name}.yaml"), "--out", str(out)]).exit_code == 0
    return {"support": out / "support.plan.json", "real-support": out / "real-support.plan.json"}


def _with_allocations(plan: Plan, wid: str, options: list[tuple[str, str, float]], info: dict | None = None) -> Plan:
    """The plan with one workload's allocations replaced (offering, mode, share)."""
    plan = plan.model_copy(deep=True)
    for offering, data in (info or {}).items():
        plan.offering_info[offering] = OfferingInfo(**data)
    w = plan.workload(wid)
    proto = w.allocations[0]
    w.allocations = [
        proto.model_copy(update={"offering": o, "mode": m, "share": s, "within_budget": True}) for o, m, s in options
    ]
    return plan


# ----------------------------------------------------------------------------- LiteLLM


@pytest.mark.parametrize("name", ["support", "real-support"])
def test_litellm_export_follows_the_router_config_schema(plans, src, name, tmp_path):
    out = tmp_path / "config.yaml"
    result = runner.invoke(app, ["export", str(plans[name]), "--to", "litellm", "--out", str(out), "--allow-unknown"])
    assert result.exit_code == 0, result.output
    config = yaml.safe_load(out.read_text())
    _, unknown, _ = to_litellm(read_plan(plans[name]), src)
    check_litellm(config, src, unknown)
    assert "!!float" not in out.read_text()  # a whole share is written 1.0
    plan = json.loads(plans[name].read_text())
    for w in plan["workloads"]:  # the shares are the weights; batch shares go through the batch API instead
        weights = [d["litellm_params"]["weight"] for d in config["model_list"] if d["model_name"] == w["id"]]
        live = [a for a in w["allocations"] if a.get("price_tier") != "batch"]
        assert sum(weights) == pytest.approx(sum(a["share"] for a in live)) and len(weights) == len(live)
    for option in unknown:  # what was not checked is named on stderr
        assert option in result.stderr


def test_litellm_uses_the_catalogs_gateway_ids_when_the_map_has_them(plans, src):
    plan = read_plan(plans["support"])
    config, unknown, _ = to_litellm(plan, src)
    by_offering = {d["model_info"]["planner_offering"]: d["litellm_params"]["model"] for d in config["model_list"]}
    assert by_offering["kimi-std"] == "moonshot/kimi-k2.6"  # in litellm's map
    assert by_offering["luna-std"] == "openai/gpt-5.6-luna"
    # the Cerebras-served fast tiers follow litellm's form but the map has no such key: refused, not written
    assert set(unknown) == {"kimi-fast", "sol-fast"}
    assert "gateway.litellm 'cerebras/kimi-k2.6' is not in litellm's model map" in unknown["kimi-fast"][0]


def test_litellm_refuses_unknown_ids_on_one_line(plans, tmp_path):
    out = tmp_path / "config.yaml"
    result = runner.invoke(app, ["export", str(plans["real-support"]), "--to", "litellm", "--out", str(out)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "export refused" in lines[0] and "--allow-unknown" in lines[0]
    assert "deepseek-v4-flash@makora" in lines[0]
    assert "host makora is no provider in litellm's model map" in lines[0]
    assert "glm-4.7@cerebras (id" not in lines[0]  # its host's own model string, cerebras/zai-glm-4.7 (SPEC v1.8)
    assert not out.exists()


def test_litellm_ids_are_derived_only_into_the_map(plans, src):
    """Without a gateway field an id comes from the catalog's model and host, accepted only when the
    map has it; a display name never makes one."""
    plan = read_plan(plans["real-support"])
    r = Resolver(plan, src)
    assert r.litellm_id("gpt-oss-120b@cerebras") == ("cerebras/gpt-oss-120b", "")
    assert r.litellm_id("openai/gpt-5.4-nano@openrouter")[0] == "openrouter/openai/gpt-5.4-nano"
    assert r.litellm_id("glm-4.7@cerebras") == ("cerebras/zai-glm-4.7", "")  # gateway_unlisted: the host's string
    info = plan.offering_info["glm-4.7@cerebras"]
    bare = {"gateway": {}, "gateway_unlisted": None}
    plan.offering_info["glm-4.7@cerebras"] = info.model_copy(update=bare)
    model, why = Resolver(plan, src).litellm_id("glm-4.7@cerebras")
    assert model is None and "display name" in why  # never an id guessed from a display name
    unlisted = {"gateway": {"litellm": "cerebras/zai-glm-4.7"}, "gateway_unlisted": None}
    plan.offering_info["glm-4.7@cerebras"] = info.model_copy(update=unlisted)  # a stated id the map lacks
    assert Resolver(plan, src).litellm_id("glm-4.7@cerebras")[0] is None
    plan.offering_info["glm-4.7@cerebras"] = info.model_copy(update={**bare, "model": "gpt-oss-120b"})
    assert Resolver(plan, src).litellm_id("glm-4.7@cerebras") == ("cerebras/gpt-oss-120b", "")


def test_two_effort_modes_of_one_model_are_two_deployments(plans, src):
    plan = _with_allocations(
        read_plan(plans["real-support"]),
        "live-chat",
        [
            ("gpt-5.4-nano@openai", "default", 0.4),
            ("gpt-5.4-nano@openai", "medium", 0.3),
            ("gpt-5.4-nano@openai", "xhigh", 0.3),
        ],
    )
    config, unknown, _ = to_litellm(plan, src)
    group = [d for d in config["model_list"] if d["model_name"] == "live-chat"]
    assert len(group) == 3 and not any(o.startswith("gpt-5.4-nano@openai") for o in unknown)
    params = [d["litellm_params"] for d in group]
    assert {p["model"] for p in params} == {"openai/gpt-5.4-nano-2026-03-17"}  # the snapshot measured
    assert [p.get("reasoning_effort") for p in params] == [None, "medium", "xhigh"]
    assert len({json.dumps(p, sort_keys=True) for p in params}) == 3  # different litellm_params
    assert len({d["model_info"]["id"] for d in group}) == 3
    doc, _, unknown_or, _ = to_openrouter(plan, src)
    routes = doc["workloads"]["live-chat"]
    assert [b.get("reasoning") for b in routes.values()] == [None, {"effort": "medium"}, {"effort": "xhigh"}]


def test_a_mode_that_names_no_effort_is_refused(plans, src):
    plan = _with_allocations(
        read_plan(plans["support"]),
        "live-chat",
        [("sol-std", "ultra", 0.5), ("sol-std", "default", 0.5)],
        info={
            "sol-std": dict(
                model="gpt-5.6-sol",
                vendor="openai",
                host="openai",
                tier="standard",
                price_input=4.0,
                price_output=20.0,
                gateway={"litellm": "openai/gpt-5.6-sol"},
            )
        },
    )
    config, unknown, _ = to_litellm(plan, src)
    assert unknown["sol-std@ultra"] == [
        "effort: mode 'ultra' names no documented reasoning effort",
        "effort: the same litellm_params as sol-std in group live-chat",  # nothing would tell them apart
    ]
    ultra = next(d for d in config["model_list"] if d["model_info"]["id"] == "live-chat/sol-std@ultra")
    assert "reasoning_effort" not in ultra["litellm_params"]  # never `ultra`, even when exported unchecked


def test_mode_names_map_to_documented_efforts():
    assert mode_intent("default").kind == "default"
    for mode, effort in [
        ("high", "high"),
        ("xhigh", "xhigh"),
        ("reasoning-high-effort", "high"),
        ("reasoning-max-effort", "max"),
        ("adaptive-reasoning-max-effort", "max"),
        ("non-reasoning", "none"),
    ]:
        assert (mode_intent(mode).kind, mode_intent(mode).effort) == ("effort", effort), mode
    assert mode_intent("reasoning").kind == "on"
    for mode in ("ultra", "non-reasoning-low-effort", "high-temperature", "low-high"):
        assert mode_intent(mode).kind == "unknown", mode


def test_efforts_follow_litellms_model_map(src):
    assert src.litellm_effort("openai/gpt-5.4-nano", "xhigh") is None  # supports_xhigh_reasoning_effort
    assert src.litellm_effort("openai/gpt-5.4-nano", "minimal")  # supports_minimal_reasoning_effort: false
    assert src.litellm_effort("cerebras/gpt-oss-120b", "high") is None
    assert src.litellm_effort("cerebras/gpt-oss-120b", "xhigh")  # no flag says it takes xhigh
    assert "does not reason" in src.litellm_effort("gmi/deepseek-ai/DeepSeek-V4-Flash", "high")


@pytest.mark.skipif(
    not __import__("importlib").util.find_spec("litellm"), reason="litellm is not installed (extra: gateway-check)"
)
@pytest.mark.parametrize("name", ["support", "real-support", "efforts"])
def test_litellm_router_loads_the_export(plans, src, name, monkeypatch):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # the map litellm ships, no download
    import litellm

    if name == "efforts":
        plan = _with_allocations(
            read_plan(plans["real-support"]),
            "live-chat",
            [("gpt-5.4-nano@openai", "default", 0.5), ("gpt-5.4-nano@openai", "xhigh", 0.5)],
        )
    else:
        plan = read_plan(plans[name])
    config, unknown, _ = to_litellm(plan, src)
    known = [
        d
        for d in config["model_list"]
        if label(d["model_info"]["planner_offering"], d["model_info"]["planner_mode"]) not in unknown
    ]
    groups = {d["model_name"] for d in known}
    settings = dict(config["router_settings"])
    settings["fallbacks"] = [
        f for f in settings["fallbacks"] if all(k in groups and set(v) <= groups for k, v in f.items())
    ]
    router = litellm.Router(model_list=known, **settings)
    if hasattr(router, "registry"):  # litellm 1.110: the registry; before, Router.model_list
        loaded = [d for g in sorted(groups) for d in router.registry().deployments(g)]
    else:
        loaded = router.model_list
    assert len(loaded) == len(known)
    if name == "efforts":
        live = [d["litellm_params"] for d in loaded if d["model_name"] == "live-chat"]
        assert sorted(str(p.get("reasoning_effort")) for p in live) == ["None", "xhigh"]


# ----------------------------------------------------------------------------- OpenRouter


@pytest.mark.parametrize("name", ["support", "real-support"])
def test_openrouter_export_is_documented_request_bodies(plans, src, name, tmp_path):
    out = tmp_path / "or.json"
    result = runner.invoke(
        app, ["export", str(plans[name]), "--to", "openrouter", "--out", str(out), "--allow-unknown"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    _, _, unknown, _ = to_openrouter(read_plan(plans[name]), src)
    check_openrouter(doc, src, unknown)
    text = out.read_text()
    assert '"shares"' not in text and '"openrouter"' not in text
    shares = json.loads((tmp_path / "or.json.shares.json").read_text())  # beside --out
    for wid, routes in doc["workloads"].items():
        assert set(shares["workloads"][wid]) == set(routes)
        assert sum(shares["workloads"][wid].values()) == pytest.approx(1.0)


def test_openrouter_slugs_are_openrouters(plans, src):
    doc, _, unknown, _ = to_openrouter(read_plan(plans["support"]), src)
    only = {s for routes in doc["workloads"].values() for b in routes.values() for s in b["provider"].get("only", [])}
    assert "moonshotai" in only and "moonshot" not in only  # Moonshot AI's slug, from the provider list
    assert only <= set(src.or_providers)
    assert src.openrouter_slug("gmi-fp8", "gmi") == ("gmicloud", "")
    assert src.openrouter_slug("makora", "makora")[0] is None


def test_openrouter_refuses_unknown_ids(plans, tmp_path):
    result = runner.invoke(
        app, ["export", str(plans["real-support"]), "--to", "openrouter", "--out", str(tmp_path / "o.json")]
    )
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert "host makora is no provider in OpenRouter's provider list" in line
    assert not (tmp_path / "o.json").exists() and not (tmp_path / "o.json.shares.json").exists()


def test_max_price_covers_every_model_of_the_request(plans, src):
    plan = read_plan(plans["support"])
    doc, _, _, _ = to_openrouter(plan, src)
    body = doc["workloads"]["live-chat"]["luna-std"]
    # luna costs 0.20/1.20; its fallbacks (Kimi on Moonshot and Fireworks, 0.95/4.00) are dearer
    assert body["provider"]["max_price"] == {"prompt": 0.95, "completion": 4.0}
    r = Resolver(plan, src)
    for w in plan.workloads:
        options = [(x.offering, x.mode) for x in w.allocations + [b for b in w.break_even if not b.used][:3]]
        for route in doc["workloads"].get(w.id, {}).values():  # (a workload all on batch has no request)
            models = {route["model"], *route.get("models", [])}
            for o, m in options:
                if r.openrouter(o, m).model in models:
                    info = plan.offering_info[o]
                    assert route["provider"]["max_price"]["prompt"] >= info.price_input
                    assert route["provider"]["max_price"]["completion"] >= info.price_output


def test_sort_follows_the_budget_kind(plans, src):
    doc, _, _, _ = to_openrouter(read_plan(plans["support"]), src)
    sorts = {wid: {b["provider"]["sort"] for b in routes.values()} for wid, routes in doc["workloads"].items()}
    assert sorts["voice-agent"] == {"latency"}  # streaming: the budget ends at the first token
    assert sorts["live-chat"] == {"latency"}  # interactive: a person waits 10 s at most
    assert sorts["ticket-triage"] == {"latency"}
    assert "nightly-summaries" not in sorts  # nobody waits: all of it through OpenAI's batch API
    real = read_plan(plans["real-support"])
    coding = real.workload("coding-agent")
    assert sort_for(real, coding, coding.allocations[0]) == "throughput"  # 30 s, mostly generating
    tight = coding.allocations[0].model_copy(update={"latency_s": 0.95 * coding.budget_s})
    assert sort_for(real, coding, tight) == "latency"


def test_preferred_cutoffs_come_from_the_budget(plans):
    plan = read_plan(plans["real-support"])
    w = plan.workload("coding-agent")
    a = w.allocations[0]
    use = next(o for o in plan.offerings if o.id == a.offering)
    prefs = preferences(plan, w, a)
    slack = (w.budget_s - 9 * w.tool_latency_s) / (a.latency_s - 9 * w.tool_latency_s)
    assert prefs["preferred_max_latency"]["p99"] == pytest.approx(use.ttft_s * slack, rel=1e-3)
    assert prefs["preferred_min_throughput"]["p99"] == pytest.approx(use.output_tps / slack, rel=1e-3)
    # a provider at both cutoffs takes the whole budget: first tokens and generation scale by `slack`
    triage = plan.workload("ticket-triage")
    assert set(preferences(plan, triage, triage.allocations[0]) or {}) <= {
        "preferred_max_latency",
        "preferred_min_throughput",
    }
    assert all(
        "p90" in v for v in preferences(plan, triage, next(x for x in triage.allocations if x.within_budget)).values()
    )
    assert preferences(plan, triage, next(x for x in triage.allocations if not x.within_budget)) == {}
    nightly = plan.workload("nightly-summaries")
    assert preferences(plan, nightly, nightly.allocations[0]) == {}  # no budget


def test_shares_file_options(plans, tmp_path):
    shares = tmp_path / "s.json"
    result = runner.invoke(
        app, ["export", str(plans["support"]), "--to", "openrouter", "--allow-unknown", "--shares-out", str(shares)]
    )
    assert result.exit_code == 0 and json.loads(shares.read_text())["plan"] == "support"
    assert json.loads(result.stdout)["plan"] == "support"
    result = runner.invoke(app, ["export", str(plans["support"]), "--to", "openrouter", "--allow-unknown"])
    assert result.exit_code == 0 and "shares were not written" in result.stderr
    result = runner.invoke(app, ["export", str(plans["support"]), "--to", "litellm", "--shares-out", str(shares)])
    assert result.exit_code == 2 and "only for --to openrouter" in result.stderr


# ----------------------------------------------------------------------------- sources


def test_sources_folder_with_catalog_fetch_names(plans, tmp_path):
    """--sources reads the files `planner catalog fetch` saves; a newer listing makes an id known."""
    folder = tmp_path / "fetched"
    folder.mkdir()
    listing = json.loads((SOURCES / "openrouter_models_2026-04-04.json").read_text())
    listing["data"].append({"id": "moonshotai/kimi-k2.6", "supported_parameters": ["reasoning"]})
    (folder / "openrouter_models.json").write_text(json.dumps(listing))
    (folder / "openrouter_providers.json").write_bytes((SOURCES / "openrouter_providers_2026-05-20.json").read_bytes())
    (folder / "model_prices_and_context_window.json").write_bytes(
        (SOURCES / "litellm_model_prices_and_context_window.json").read_bytes()
    )
    src = load_sources(folder)
    plan = read_plan(plans["support"])
    assert Resolver(plan, src).openrouter_id("kimi-std") == ("moonshotai/kimi-k2.6", "")
    assert Resolver(plan, load_sources(None)).openrouter_id("kimi-std")[0] is None
    out = tmp_path / "o.json"
    args = ["export", str(plans["support"]), "--to", "openrouter", "--out", str(out), "--sources", str(folder)]
    result = runner.invoke(app, [*args, "--allow-unknown"])
    assert result.exit_code == 0
    assert "kimi-std (" not in result.stderr
    (folder / "openrouter_providers.json").unlink()
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "OpenRouter's provider list is not in it" in result.stderr
    assert "openrouter_providers.json" in result.stderr


def test_shipped_sources_match_their_checksums():
    import hashlib

    for line in (SOURCES / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        assert hashlib.sha256((SOURCES / name).read_bytes()).hexdigest() == digest, name
        assert name in (SOURCES / "PROVENANCE.md").read_text()


def test_export_rejects_what_is_not_a_plan(tmp_path):
    (tmp_path / "x.json").write_text('{"hello": 1}')
    result = runner.invoke(app, ["export", str(tmp_path / "x.json"), "--to", "litellm"])
    assert result.exit_code == 2 and "not a planner plan file" in result.stderr
