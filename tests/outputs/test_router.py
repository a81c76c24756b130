"""Exports that load (SPEC "Deployability"): the LiteLLM configs `planner export` writes for the real plans,
solved with --deployable-on litellm, load whole in litellm's own Router, and a mock completion goes through
every model group and every deployment. Also: every id the deployability rule accepts for the real catalog is
one litellm resolves to a provider, and the shipped provider list is the installed litellm's.

Needs litellm (the `gateway-check` extra: pip install -e '.[gateway-check]'); skipped without it unless
PLANNER_REQUIRE_LITELLM=1 (as in CI), where it fails instead. Marker `gateway`: in `make test-deep` only
(litellm is a large install and takes seconds to import)."""

from __future__ import annotations

import importlib.util
import json
import os

import pytest
import yaml
from conftest import ROOT
from typer.testing import CliRunner

from planner.cli.app import app
from planner.market import gateway_lists
from planner.market.addressing import Facts, Resolver
from planner.market.gateway_ids import packaged_sources
from planner.model.load import load_catalog

pytestmark = pytest.mark.gateway
runner = CliRunner()
MESSAGES = [{"role": "user", "content": "ping"}]
NEEDS_LOGIN = {"chatgpt", "github_copilot"}  # litellm asks for a device login when it resolves these


@pytest.fixture(scope="module")
def litellm():
    if importlib.util.find_spec("litellm") is None:
        if os.environ.get("PLANNER_REQUIRE_LITELLM") == "1":
            pytest.fail("litellm is required (PLANNER_REQUIRE_LITELLM=1): pip install -e '.[gateway-check]'")
        pytest.skip("litellm is not installed: pip install -e '.[gateway-check]'")
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # the map litellm ships: no download
    import litellm as module

    return module


def _served(tmp_path):
    """real-support without the two workloads only GLM-4.7 on Cerebras serves in budget (no gateway has an id
    for it): a plan deployable on litellm exists, with break-even runner-ups as fallback groups."""
    data = yaml.safe_load((ROOT / "workloads" / "real-support.yaml").read_text())
    data.update(name="served", catalog=str(ROOT / "catalogs" / "aa-2026-06.yaml"))
    data["workloads"] = [w for w in data["workloads"] if w["id"] not in ("voice-agent", "ticket-triage")]
    path = tmp_path / "served.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


CASES = {
    "real-support": lambda tmp: ROOT / "workloads" / "real-support.yaml",
    "support": lambda tmp: ROOT / "workloads" / "support.yaml",
    "served": _served,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_export_loads_in_the_router_and_every_group_answers(litellm, tmp_path, name):
    workloads = CASES[name](tmp_path)
    out = tmp_path / "out"
    solved = runner.invoke(app, ["solve", str(workloads), "--out", str(out), "--deployable-on", "litellm"])
    assert solved.exit_code in (0, 3), solved.output  # 3: no plan meets every rule (support)
    if name == "real-support":  # GLM-4.7 on Cerebras by its host's model string: the whole file deploys
        assert (
            solved.exit_code == 0
            and json.loads(next(out.glob("*.plan.json")).read_text())["deployability"]["premium"] > 0
        )
    plan_path = next(out.glob("*.plan.json"))
    plan = json.loads(plan_path.read_text())
    assert plan["deployability"]["gateway"] == "litellm"
    config_path = tmp_path / "config.yaml"
    exported = runner.invoke(app, ["export", str(plan_path), "--to", "litellm", "--out", str(config_path)])
    assert exported.exit_code == 0, exported.output  # no --sources, no --allow-unknown
    config = yaml.safe_load(config_path.read_text())
    model_list = config["model_list"]
    assert model_list

    router = litellm.Router(model_list=model_list, **config["router_settings"])
    groups = sorted({d["model_name"] for d in model_list})
    routed = [a for w in plan["workloads"] for a in w["allocations"] if a.get("price_tier") != "batch"]
    assert len([d for d in model_list if "weight" in d["litellm_params"]]) == len(routed)
    for group in groups:
        ids = {d["model_info"]["id"] for d in model_list if d["model_name"] == group}
        answer = router.completion(model=group, messages=MESSAGES, mock_response="ok")
        assert answer.choices[0].message.content == "ok", group
        assert answer._hidden_params["model_id"] in ids, group
    for d in model_list:  # each deployment with its own parameters (effort, service tier), weight aside
        params = {k: v for k, v in d["litellm_params"].items() if k != "weight"}
        answer = litellm.completion(**params, messages=MESSAGES, mock_response="ok")
        assert answer.choices[0].message.content == "ok", d["model_info"]["id"]


def test_every_id_the_rule_accepts_resolves_to_a_provider(litellm):
    catalog = load_catalog(ROOT / "catalogs" / "aa-2026-06.yaml")
    infos = {o.id: Facts.of(o) for o in catalog.offerings}
    r = Resolver(infos, packaged_sources())
    accepted = {
        r.litellm(o.id, "default").model
        for o in catalog.offerings
        if not r.problems("litellm", o.id, "default", "list", None)
    }
    assert len(accepted) > 100
    for model in sorted(accepted):
        if model.split("/", 1)[0] in NEEDS_LOGIN:
            continue
        _, provider, _, _ = litellm.get_llm_provider(model)
        prefix = model.split("/", 1)[0]  # litellm resolves ai21/... to its chat route ai21_chat
        assert prefix == provider or provider.startswith(prefix + "_"), (model, provider)


def test_the_shipped_provider_list_is_the_installed_litellms(litellm):
    shipped = json.loads(gateway_lists.packaged_text())
    installed = gateway_lists.litellm_providers_doc()
    if installed["litellm_version"] != shipped["litellm_version"]:
        pytest.skip(
            f"litellm {installed['litellm_version']} installed; the lists are from {shipped['litellm_version']}"
        )
    assert gateway_lists.routable(installed) == shipped["litellm_routable"]
