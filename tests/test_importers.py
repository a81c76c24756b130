"""Importers (on fixtures cut from the real files, and once on each whole file), diff and export."""

import json

import pytest
import yaml
from typer.testing import CliRunner

from conftest import DATA, ROOT
from planner.cli import app
from planner.gateway import diff_catalogs, to_litellm, to_openrouter
from planner.importers import build_catalog, host_key, normalize_model
from planner.load import load_catalog, validate
from planner.schema import Catalog

runner = CliRunner()
SMALL = DATA / "sources"
FULL = ROOT / "catalogs" / "sources"


@pytest.mark.parametrize("a, b", [
    ("Kimi K2.6", "accounts/fireworks/models/kimi-k2p6"), ("Kimi K2.6", "moonshot/kimi-k2.6"),
    ("Llama 3.1 405B", "meta-llama/Meta-Llama-3.1-405B-Instruct"), ("gpt-oss-120b (high)", "groq/openai/gpt-oss-120b"),
    ("Claude Sonnet 5", "us.anthropic.claude-sonnet-5"), ("GPT-5", "gpt-5-2025-08-07"),
])
def test_model_names_match_across_sources(a, b):
    assert normalize_model(a) == normalize_model(b)


def test_qualified_hosts_are_their_own_endpoints():
    assert host_key("Fireworks") == "fireworks_ai" and host_key("Kimi") == "moonshot"
    assert host_key("Groq") == "groq" and host_key("Amazon Bedrock") == "bedrock"
    assert host_key("DeepInfra (Turbo)") is None and host_key("Nebius Fast") is None


def small_catalog():
    return build_catalog([("aa", SMALL / "aa_small.csv"), ("litellm", SMALL / "litellm_small.json"),
                          ("openrouter", SMALL / "openrouter_small.json")], "small", "2026-06-19")


def test_merge_takes_speed_from_aa_and_list_price_from_litellm():
    catalog, result = small_catalog()
    validate(Catalog, catalog, "small.yaml")
    by = {o["id"]: o for o in catalog["offerings"]}
    groq = by["gpt-oss-120b-high@groq"]
    assert groq["speed"] == {"output_tps": 475.762, "ttft_s": 0.7459}  # measured, Artificial Analysis
    assert groq["price"]["cached_input"] == 0.075  # only litellm has the cached price
    assert groq["gateway"] == {"litellm": "groq/openai/gpt-oss-120b"}
    assert "litellm 'groq/openai/gpt-oss-120b'" in groq["source"]
    assert by["gpt-oss-120b-high@cerebras"]["tier"] == "fast"  # 1,918 tok/s measured
    turbo = by["gpt-oss-120b-high@deepinfra-turbo"]  # a qualified endpoint keeps its measured price
    assert "price: Artificial Analysis" in turbo["source"] and "gateway" not in turbo
    assert by["kimi-k2.6@fireworks"]["capability"]["overall"] == pytest.approx(42.8414, abs=1e-3)
    assert 0 < by["kimi-k2.6@fireworks"]["capability"]["gpqa"] <= 100
    orr = by["openai/gpt-oss-120b@openrouter"]
    assert orr["vendor"] == "openrouter" and "median over 4 host(s)" in orr["source"]
    assert orr["gateway"] == {"openrouter": "openai/gpt-oss-120b"}


def test_entries_missing_a_figure_are_left_out_and_listed_never_filled():
    catalog, result = small_catalog()
    left = {(s, n): r for s, n, r in result.left_out}
    assert left[("litellm", "gpt-5.6-sol")].startswith("no measured speed")
    assert left[("openrouter", "google/gemma-4-26b-a4b-it")].startswith("no measured speed")
    assert not any(o["model"] == "gpt-5.6-sol" for o in catalog["offerings"])


def test_aa_row_without_speed_is_left_out(tmp_path):
    text = (SMALL / "aa_small.csv").read_text(encoding="utf-8").splitlines()
    header = text[0].split(",")
    col = header.index("median_output_speed")
    import csv
    import io

    rows = list(csv.reader(io.StringIO("\n".join(text))))
    rows[1][col] = ""
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    (tmp_path / "aa.csv").write_text(buf.getvalue(), encoding="utf-8")
    catalog, result = build_catalog([("aa", tmp_path / "aa.csv")], "x")
    assert len(catalog["offerings"]) == len(rows) - 2
    assert any("no output speed" in r for _, _, r in result.left_out)


def import_all(folder, aa, litellm, openrouter, out):
    """`planner catalog import` of the three kinds merged into one catalog, as `make catalog` runs it."""
    result = runner.invoke(app, ["catalog", "import", "aa", str(folder / aa), f"litellm:{folder / litellm}",
                                 f"openrouter:{folder / openrouter}", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return load_catalog(out)


def test_import_cli_writes_catalog_and_left_out_list(tmp_path):
    out = tmp_path / "cat.yaml"
    cat = import_all(SMALL, "aa_small.csv", "litellm_small.json", "openrouter_small.json", out)
    assert len(cat.offerings) == 8 and cat.catalog == "cat"
    assert (tmp_path / "cat.left-out.csv").read_text().startswith("source,name,reason")
    assert runner.invoke(app, ["catalog", "validate", str(out)]).exit_code == 0


def test_import_errors(tmp_path):
    only_prices = runner.invoke(app, ["catalog", "import", "litellm", str(SMALL / "litellm_small.json"),
                                      "--out", str(tmp_path / "x.yaml")])
    assert only_prices.exit_code == 2 and "no offering has every required figure" in only_prices.stderr
    assert not (tmp_path / "x.yaml").exists()
    (tmp_path / "bad.json").write_text("{")
    bad = runner.invoke(app, ["catalog", "import", "openrouter", str(tmp_path / "bad.json"), "--out", str(tmp_path / "y.yaml")])
    assert bad.exit_code == 2 and "not valid JSON" in bad.stderr
    (tmp_path / "t.csv").write_text("a,b\n1,2\n")
    assert "missing columns" in runner.invoke(app, ["catalog", "import", "aa", str(tmp_path / "t.csv"),
                                                    "--out", str(tmp_path / "z.yaml")]).stderr
    assert runner.invoke(app, ["catalog", "import", "nosuch", "f", "--out", "x"]).exit_code == 2


def test_whole_source_files_import_and_match_the_shipped_catalog(tmp_path):
    built = import_all(FULL, "aa_providers_leaderboard.csv", "litellm_model_prices_and_context_window.json",
                       "openrouter_models_2026-04-04.json", tmp_path / "aa-2026-06.yaml")
    assert built.as_of == "2026-06-19" and len(built.offerings) > 800
    shipped = load_catalog(ROOT / "catalogs" / "aa-2026-06.yaml")
    assert diff_catalogs(shipped, built) == []  # `make catalog` reproduces the checked-in catalog
    for kind, name in (("litellm", "litellm_model_prices_and_context_window.json"),
                       ("openrouter", "openrouter_models_2026-04-04.json")):
        alone = build_catalog([(kind, FULL / name)], "x")[1]
        assert alone.offerings == [] and len(alone.left_out) > 100  # no speeds in price tables: nothing invented


def test_real_catalog_workloads_solve(tmp_path):
    result = runner.invoke(app, ["solve", str(ROOT / "workloads" / "real-support.yaml"), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output


def test_catalog_diff(tmp_path):
    old = yaml.safe_load((ROOT / "catalogs" / "2026-q3.yaml").read_text())
    new = json.loads(json.dumps(old, default=str))
    new["offerings"][0]["price"]["output"] = 16.0
    new["offerings"][1]["speed"]["output_tps"] = 900
    removed = new["offerings"].pop()
    new["offerings"].append({**new["offerings"][0], "id": "brand-new"})
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new, sort_keys=False))
    rows = diff_catalogs(load_catalog(ROOT / "catalogs" / "2026-q3.yaml"), load_catalog(tmp_path / "new.yaml"))
    assert {"change": "removed", "offering": removed["id"], "field": "", "before": None, "after": None,
            "relative": None} in rows
    assert any(r["change"] == "added" and r["offering"] == "brand-new" for r in rows)
    changed = {(r["offering"], r["field"]): r for r in rows if r["change"] == "changed"}
    assert changed[("sol-std", "price.output")]["relative"] == pytest.approx(-0.2)
    assert changed[("sol-fast", "speed.output_tps")]["after"] == 900
    result = runner.invoke(app, ["catalog", "diff", str(ROOT / "catalogs" / "2026-q3.yaml"), str(tmp_path / "new.yaml"),
                                 "--format", "csv"])
    assert result.exit_code == 0 and result.stdout.startswith("change,offering,field,before,after,relative")
    table = runner.invoke(app, ["catalog", "diff", str(ROOT / "catalogs" / "2026-q3.yaml"), str(tmp_path / "new.yaml")])
    assert "1 added, 1 removed, 2 changed" in table.stdout


@pytest.fixture(scope="module")
def support_plan(tmp_path_factory):
    out = tmp_path_factory.mktemp("plan")
    assert runner.invoke(app, ["solve", str(ROOT / "workloads" / "support.yaml"), "--out", str(out)]).exit_code == 0
    return out / "support.plan.json"


ROUTING_STRATEGIES = {"simple-shuffle", "least-busy", "usage-based-routing", "latency-based-routing",
                      "cost-based-routing", "usage-based-routing-v2"}


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
    from planner.plan import read_plan

    config, _ = to_litellm(read_plan(support_plan))
    litellm.Router(model_list=config["model_list"], **config["router_settings"])


OPENROUTER_PROVIDER_FIELDS = {"order", "allow_fallbacks", "require_parameters", "data_collection", "zdr", "only",
                              "ignore", "quantizations", "sort", "max_price", "enforce_distillable_text"}


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
        assert sum(req["shares"].values()) == pytest.approx(1.0)
    assert data["workloads"]["voice-agent"]["provider"]["sort"] == "throughput"
    assert data["workloads"]["nightly-summaries"]["provider"]["sort"] == "price"


def test_export_uses_gateway_ids_from_the_catalog(tmp_path):
    result = runner.invoke(app, ["solve", str(ROOT / "workloads" / "real-support.yaml"), "--out", str(tmp_path)])
    assert result.exit_code == 0
    from planner.plan import read_plan

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
