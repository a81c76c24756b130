"""policy.deployable_on and --deployable-on (SPEC "Deployability"): only options the gateway can address enter
the LP, the rest are rejected with what the gateway lacks, and the plan states the premium over the unrestricted
optimum, found here by solving both."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import ROOT, catalog_of, make_inputs, offering, workload, workloads_of
from typer.testing import CliRunner

from planner.cli.app import app
from planner.market.addressing import Facts, Resolver
from planner.market.gateway_ids import packaged_sources
from planner.model.load import load_inputs
from planner.optimize.pairs import build_pairs
from planner.pipeline.solve import solve_inputs

runner = CliRunner()


def _tiny(gateway: str | None = None, **policy) -> dict:
    """A workload, one cheap offering no gateway knows (host makora), one OpenAI offering both know, and a
    batch tier of the known one, cheaper still."""
    cat = catalog_of(
        offering("cheap", vendor="makora", price_in=1, price_out=1),
        offering("nano", vendor="openai", price_in=2, price_out=2)
        | {"model": "gpt-5.4-nano", "price_tiers": [{"name": "batch", "price": {"input": 0.5, "output": 0.5}}]},
    )
    ws = workloads_of(
        workload("chat", latency={"threshold": "background"}),
        policy={**({"deployable_on": gateway} if gateway else {}), **policy},
    )
    return ws, cat


@pytest.mark.parametrize("gateway", ["litellm", "openrouter"])
def test_only_addressable_options_are_eligible_and_the_rest_say_why(gateway):
    inputs = make_inputs(*_tiny(gateway))
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    labels = [pairs.options.label(o) for o in range(len(pairs.options))]
    assert labels == ["cheap", "nano", "nano (batch)"]
    assert pairs.eligible[0].tolist() == [False, True, False]
    cheap, batch = pairs.reasons(0, 0), pairs.reasons(0, 2)
    assert len(cheap) == 1 and cheap[0].startswith(f"not deployable on {gateway}: id: ")
    assert "makora" in cheap[0]
    assert batch == [
        f"not deployable on {gateway}: batch: jobs go through the vendor's batch API, not a gateway's live routes"
    ]
    free = pairs.without_gateway()
    assert free.eligible[0].tolist() == [True, True, True] and free.reasons(0, 0) == []


def test_without_a_gateway_nothing_changes():
    inputs = make_inputs(*_tiny())
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    assert pairs.gateway is None and pairs.gateway_ok.all() and pairs.without_gateway() is pairs
    plan = solve_inputs(inputs, "highs")
    assert plan.deployability is None and "deployability" not in json.loads(plan.to_json())


def test_the_premium_is_the_difference_of_the_two_optima():
    """Hand-computed: 1000 tasks of 1000 + 1000 tokens cost 2 x the price per 1M. Unrestricted: the batch
    tier at 0.5 (1.00); on litellm: nano's list price, 2 (4.00); the premium is 3.00, +300%."""
    plan = solve_inputs(make_inputs(*_tiny("litellm")), "highs")
    free = solve_inputs(make_inputs(*_tiny()), "highs")
    d = plan.deployability
    assert plan.status == "optimal" and [a.option for a in plan.workloads[0].allocations] == ["nano"]
    assert plan.total_cost == pytest.approx(4.0) and free.total_cost == pytest.approx(1.0)
    assert d.gateway == "litellm" and d.options_excluded == 2
    assert d.unrestricted_cost == pytest.approx(free.total_cost)
    assert d.premium == pytest.approx(plan.total_cost - free.total_cost) and d.premium_share == pytest.approx(3.0)
    assert d.text == "Deployable on litellm: $3.00 a month more than the unrestricted optimum ($1.00; +300.0%)"


def test_no_deployable_plan_says_deployability_is_why():
    ws, cat = _tiny("litellm")
    cat["offerings"] = cat["offerings"][:1]  # only the offering no gateway knows
    plan = solve_inputs(make_inputs(ws, cat), "highs")
    assert plan.status == "infeasible"
    assert plan.deployability.premium is None and plan.deployability.unrestricted_cost == pytest.approx(2.0)
    assert "deployability is why" in plan.diagnosis[-1]
    summary = plan.workloads[0].diagnosis.summary
    assert summary.startswith("deployability on litellm is why: 1 option meets every other rule")
    assert "cheap" in summary and "makora" in summary


def test_infeasible_for_other_reasons_does_not_blame_the_gateway():
    ws, cat = _tiny("litellm")
    ws["workloads"][0]["capability"] = {"min": 90}  # nothing reaches the floor, addressable or not
    plan = solve_inputs(make_inputs(ws, cat), "highs")
    assert plan.status == "infeasible" and plan.deployability.unrestricted_cost is None
    assert "deployability" not in plan.workloads[0].diagnosis.summary
    assert "the gateway is not the only reason" in plan.deployability.text


# ----------------------------------------------------------------------------- the real catalog


def _real(tmp_path, drop=("voice-agent", "ticket-triage")):
    """real-support without the workloads only GLM-4.7 on Cerebras serves within budget (no gateway addresses
    it: its model is a display name and neither list has it), so that a deployable plan exists."""
    data = yaml.safe_load((ROOT / "workloads" / "real-support.yaml").read_text())
    data["catalog"] = str(ROOT / "catalogs" / "aa-2026-06.yaml")
    data["workloads"] = [w for w in data["workloads"] if w["id"] not in drop]
    data["name"] = "real"
    path = tmp_path / "real.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize(
    "gateway, drop",
    [("litellm", ()), ("openrouter", ("voice-agent", "ticket-triage"))],  # OpenRouter lists no GLM-4.7 on Cerebras
)
def test_real_support_premium_found_by_solving_both(tmp_path, gateway, drop):
    """The whole of real-support deploys on litellm (GLM-4.7 on Cerebras by the host's own model string,
    cerebras/zai-glm-4.7); on OpenRouter only without the two workloads it alone serves."""
    path = _real(tmp_path, drop)
    out = tmp_path / gateway
    result = runner.invoke(app, ["solve", str(path), "--out", str(out), "--deployable-on", gateway])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "real.plan.json").read_text())
    free = solve_inputs(load_inputs(path), "highs")
    d = plan["deployability"]
    assert d["unrestricted_cost"] == pytest.approx(free.total_cost, rel=1e-9)
    assert d["premium"] == pytest.approx(plan["total_cost"] - free.total_cost, rel=1e-6) and d["premium"] > 0
    assert d["text"] in " ".join(result.stdout.split())  # the terminal summary (wrapped to its width)
    assert d["text"] in (out / "real.html").read_text()
    # every option the plan routes to is one the gateway addresses
    cat = load_inputs(path).catalog
    infos = {o.id: Facts.of(o) for o in cat.offerings}
    r = Resolver(infos, packaged_sources())
    for w in plan["workloads"]:
        for a in w["allocations"]:
            assert r.problems(gateway, a["offering"], a["mode"], a.get("price_tier") or "list", a.get("reserved")) == []
            assert a.get("price_tier") != "batch"
    # and it exports with no flags: no --sources, no --allow-unknown
    exported = tmp_path / f"{gateway}.out"
    result = runner.invoke(app, ["export", str(out / "real.plan.json"), "--to", gateway, "--out", str(exported)])
    assert result.exit_code == 0, result.output


def test_the_flag_overrides_the_file_and_a_bad_value_is_one_line(tmp_path):
    path = _real(tmp_path)
    data = yaml.safe_load(path.read_text())
    data["policy"]["deployable_on"] = "openrouter"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "out"
    result = runner.invoke(app, ["solve", str(path), "--out", str(out), "--deployable-on", "litellm"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "real.plan.json").read_text())["deployability"]["gateway"] == "litellm"
    data["policy"]["deployable_on"] = "bedrock"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    result = runner.invoke(app, ["solve", str(path), "--out", str(tmp_path / "bad")])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "policy.deployable_on" in lines[0] and "litellm" in lines[0], lines
    assert not (tmp_path / "bad").exists()


def test_real_support_on_openrouter_has_no_plan_and_says_why(tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        ["solve", str(ROOT / "workloads" / "real-support.yaml"), "--out", str(out), "--deployable-on", "openrouter"],
    )
    assert result.exit_code == 3, result.output
    plan = json.loads((out / "real-support.plan.json").read_text())
    assert plan["deployability"]["premium"] is None and plan["deployability"]["unrestricted_cost"] > 0
    assert "so deployability is why" in plan["diagnosis"][-1]
    voice = next(w for w in plan["workloads"] if w["id"] == "voice-agent")
    assert voice["diagnosis"]["summary"].startswith("deployability on openrouter is why")
    assert "glm-4.7@cerebras" in voice["diagnosis"]["summary"]


def test_whatif_and_explain_take_the_flag(tmp_path):
    path = _real(tmp_path)
    result = runner.invoke(
        app,
        [
            "whatif",
            str(path),
            "--set",
            "workloads[live-chat].tasks=*2",
            "--out",
            str(tmp_path / "w"),
            "--deployable-on",
            "litellm",
        ],
    )
    assert result.exit_code == 0, result.output
    scenario = json.loads((tmp_path / "w" / "real.set.plan.json").read_text())
    assert scenario["deployability"]["gateway"] == "litellm" and scenario["deployability"]["premium"] > 0
    result = runner.invoke(
        app, ["explain", str(path), "--workload", "live-chat", "--format", "json", "--deployable-on", "litellm"]
    )
    assert result.exit_code == 0, result.output
    assert "not deployable on litellm" in result.stdout
