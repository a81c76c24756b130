"""Plans turned into gateway configurations (planner.gateway and `planner export`): a LiteLLM Router
config and OpenRouter provider preferences, with the catalog's gateway ids."""

import json

import pytest
import yaml
from conftest import ROOT
from typer.testing import CliRunner

from planner.cli import app
from planner.gateway import to_litellm, to_openrouter
from planner.plan import read_plan

runner = CliRunner()


@pytest.fixture(scope="module")
def support_plan(tmp_path_factory):
    out = tmp_path_factory.mktemp("plan")
    assert runner.invoke(app, ["solve", str(ROOT / "workloads" / "support.yaml"), "--out", str(out)]).exit_code == 0
    return out / "support.plan.json"


ROUTING_STRATEGIES = {
    "simple-shuffle",
    "least-busy",
    "usage-based-routing",
    "latency-based-routing",
    "cost-based-routing",
    "usage-based-routing-v2",
}


def test_export_litellm_router_config(support_plan, tmp_path):
    out = tmp_path / "config.yaml"
    result = runner.invoke(app, ["export", str(support_plan), "--to", "litellm", "--out", str(out)])
    assert result.exit_code == 0, result.output
    config = yaml.safe_load(out.read_text())
    assert set(config) == {"model_list", "router_settings"}
    plan = json.loads(support_plan.read_text())
    groups: dict[str, list] = {}
    for d in config["model_list"]:  # LiteLLM's documented deployment shape
        assert set(d) <= {"model_name", "litellm_params", "model_info", "tpm", "rpm"}
        assert isinstance(d["model_name"], str) and isinstance(d["litellm_params"]["model"], str)
        groups.setdefault(d["model_name"], []).append(d)
    for w in plan["workloads"]:
        weights = {d["model_info"]["id"]: d["litellm_params"]["weight"] for d in groups[w["id"]]}
        assert sum(weights.values()) == pytest.approx(1.0)
        assert len(weights) == len(w["allocations"])
    rs = config["router_settings"]
    assert rs["routing_strategy"] in ROUTING_STRATEGIES
    for fb in rs["fallbacks"]:  # [{group: [fallback groups]}], every group defined
        ((src, dst),) = fb.items()
        assert src in groups and all(g in groups for g in dst)
    ids = {d["litellm_params"]["model"] for d in config["model_list"]}
    assert "moonshot/kimi-k2.6" in ids or "cerebras/kimi-k2.6" in ids  # the catalog's gateway ids


def test_export_litellm_loads_in_litellm_router_if_installed(support_plan):
    litellm = pytest.importorskip("litellm")

    config, _ = to_litellm(read_plan(support_plan))
    litellm.Router(model_list=config["model_list"], **config["router_settings"])


OPENROUTER_PROVIDER_FIELDS = {
    "order",
    "allow_fallbacks",
    "require_parameters",
    "data_collection",
    "zdr",
    "only",
    "ignore",
    "quantizations",
    "sort",
    "max_price",
    "enforce_distillable_text",
}


def test_export_openrouter_provider_preferences(support_plan):
    result = runner.invoke(app, ["export", str(support_plan), "--to", "openrouter"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    plan = json.loads(support_plan.read_text())
    assert set(data["workloads"]) == {w["id"] for w in plan["workloads"]}
    for wid, req in data["workloads"].items():
        prov = req["provider"]
        assert set(prov) <= OPENROUTER_PROVIDER_FIELDS
        assert prov["sort"] in {"price", "throughput", "latency"}
        assert all(isinstance(x, str) for x in prov["order"] + prov["only"]) and set(prov["order"]) <= set(prov["only"])
        assert set(prov["max_price"]) == {"prompt", "completion"}
        assert isinstance(req["model"], str) and all(isinstance(m, str) for m in req["models"])
        assert sum(req["shares"].values()) == pytest.approx(1.0), wid
    assert data["workloads"]["voice-agent"]["provider"]["sort"] == "throughput"
    assert data["workloads"]["nightly-summaries"]["provider"]["sort"] == "price"


def test_export_uses_gateway_ids_from_the_catalog(tmp_path):
    result = runner.invoke(app, ["solve", str(ROOT / "workloads" / "real-support.yaml"), "--out", str(tmp_path)])
    assert result.exit_code == 0
    plan = read_plan(tmp_path / "real-support.plan.json")
    config, guessed = to_litellm(plan)
    exported = set()
    for d in config["model_list"]:
        info = plan.offering_info[d["model_info"]["planner_offering"]]
        exported.add(d["model_info"]["planner_offering"])
        if "litellm" in info.gateway:
            assert d["litellm_params"]["model"] == info.gateway["litellm"]
        elif "openrouter" in info.gateway:
            assert d["litellm_params"]["model"] == "openrouter/" + info.gateway["openrouter"]
        else:
            assert d["litellm_params"]["model"].endswith(f"/{info.model}")
    assert set(guessed) == {o for o in exported if not plan.offering_info[o].gateway}
    orr, _ = to_openrouter(plan)
    assert orr["plan"] == "real-support"


def test_export_rejects_what_is_not_a_plan(tmp_path):
    (tmp_path / "x.json").write_text('{"hello": 1}')
    result = runner.invoke(app, ["export", str(tmp_path / "x.json"), "--to", "litellm"])
    assert result.exit_code == 2 and "not a planner plan file" in result.stderr
