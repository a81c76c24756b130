"""Catalog import (planner.catalog_import and `planner catalog import`): on fixtures cut from the real
source files, and on the whole files in catalogs/sources (built twice: byte for byte the same)."""

import csv
import io
from pathlib import Path

import pytest
import yaml
from conftest import DATA, ROOT
from typer.testing import CliRunner

from planner.catalog_import import build_catalog, host_key, import_catalog, normalize_model, parse_sources
from planner.cli import app
from planner.errors import InputError
from planner.load import load_catalog, validate
from planner.schema import Catalog

runner = CliRunner()
SMALL = DATA / "sources"
FULL = ROOT / "catalogs" / "sources"


@pytest.mark.parametrize(
    "a, b",
    [
        ("Kimi K2.6", "accounts/fireworks/models/kimi-k2p6"),
        ("Kimi K2.6", "moonshot/kimi-k2.6"),
        ("Llama 3.1 405B", "meta-llama/Meta-Llama-3.1-405B-Instruct"),
        ("gpt-oss-120b (high)", "groq/openai/gpt-oss-120b"),
        ("Claude Sonnet 5", "us.anthropic.claude-sonnet-5"),
        ("GPT-5", "gpt-5-2025-08-07"),
    ],
)
def test_model_names_match_across_sources(a, b):
    assert normalize_model(a) == normalize_model(b)


def test_qualified_hosts_are_their_own_endpoints():
    assert host_key("Fireworks") == "fireworks_ai" and host_key("Kimi") == "moonshot"
    assert host_key("Groq") == "groq" and host_key("Amazon Bedrock") == "bedrock"
    assert host_key("DeepInfra (Turbo)") is None and host_key("Nebius Fast") is None


def small_catalog():
    return build_catalog(
        [
            ("aa", SMALL / "aa_small.csv"),
            ("litellm", SMALL / "litellm_small.json"),
            ("openrouter", SMALL / "openrouter_small.json"),
        ],
        "small",
        "2026-06-19",
    )


def test_merge_takes_speed_from_aa_and_list_price_from_litellm():
    catalog, result = small_catalog()
    validate(Catalog, catalog, "small.yaml")
    by = {o["id"]: o for o in catalog["offerings"]}
    groq = by["gpt-oss-120b@groq"]
    assert groq["model"] == "gpt-oss-120b (high)" and groq["creator"] == "OpenAI"
    assert groq["speed"] == {"output_tps": 475.762, "ttft_s": 0.7459}  # measured, Artificial Analysis
    assert groq["thinking"] == {"seconds": 4.204}  # ttft_reasoning_time 4.20378..., rounded up
    assert groq["price"]["cached_input"] == 0.075  # only litellm has the cached price
    assert groq["gateway"] == {"litellm": "groq/openai/gpt-oss-120b"}
    assert "litellm 'groq/openai/gpt-oss-120b'" in groq["source"]
    assert by["gpt-oss-120b@cerebras"]["tier"] == "fast"  # 1,918 tok/s measured
    turbo = by["gpt-oss-120b@deepinfra-turbo"]  # a qualified endpoint keeps its measured price
    assert turbo["vendor"] == turbo["host"] == "deepinfra" and turbo["tier"] == "standard-turbo"
    assert "price: Artificial Analysis" in turbo["source"] and "gateway" not in turbo
    assert by["kimi-k2.6@fireworks"]["capability"]["overall"] == pytest.approx(42.8414, abs=1e-3)
    assert 0 < by["kimi-k2.6@fireworks"]["capability"]["gpqa"] <= 100
    assert by["kimi-k2.6@moonshot"]["vendor"] == "moonshot"  # the host Kimi is Moonshot AI's
    orr = by["openai/gpt-oss-120b@openrouter"]
    assert orr["vendor"] == orr["host"] == "openrouter" and orr["creator"] == "OpenAI"
    assert orr["gateway"] == {"openrouter": "openai/gpt-oss-120b"}
    # no host is as cheap as OpenRouter's $0.039/$0.19: the slowest of the 4 hosts, Novita, and said so
    assert (
        orr["speed"] == by["gpt-oss-120b@novita"]["speed"] and orr["thinking"] == by["gpt-oss-120b@novita"]["thinking"]
    )
    assert "no host at or below this price, so all 4 host(s); output speed Novita at $0.05/$0.25" in orr["source"]


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
    result = runner.invoke(
        app,
        [
            "catalog",
            "import",
            "aa",
            str(folder / aa),
            f"litellm:{folder / litellm}",
            f"openrouter:{folder / openrouter}",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    return load_catalog(out)


def test_import_cli_writes_catalog_and_left_out_list(tmp_path):
    out = tmp_path / "cat.yaml"
    cat = import_all(SMALL, "aa_small.csv", "litellm_small.json", "openrouter_small.json", out)
    assert len(cat.offerings) == 8 and cat.catalog == "cat"
    assert cat.metrics["overall"].scale == "Artificial Analysis Intelligence Index (scrape date unknown)"
    assert (tmp_path / "cat.left-out.csv").read_text().startswith("source,name,reason")
    assert runner.invoke(app, ["catalog", "validate", str(out)]).exit_code == 0


def test_import_errors(tmp_path):
    only_prices = runner.invoke(
        app, ["catalog", "import", "litellm", str(SMALL / "litellm_small.json"), "--out", str(tmp_path / "x.yaml")]
    )
    assert only_prices.exit_code == 2 and "no offering has every required figure" in only_prices.stderr
    assert not (tmp_path / "x.yaml").exists()
    (tmp_path / "bad.json").write_text("{")
    bad = runner.invoke(
        app, ["catalog", "import", "openrouter", str(tmp_path / "bad.json"), "--out", str(tmp_path / "y.yaml")]
    )
    assert bad.exit_code == 2 and "not valid JSON" in bad.stderr
    (tmp_path / "t.csv").write_text("a,b\n1,2\n")
    assert (
        "missing columns"
        in runner.invoke(
            app, ["catalog", "import", "aa", str(tmp_path / "t.csv"), "--out", str(tmp_path / "z.yaml")]
        ).stderr
    )
    assert runner.invoke(app, ["catalog", "import", "nosuch", "f", "--out", "x"]).exit_code == 2


def test_sources_of_several_kinds_in_one_import():
    assert parse_sources("aa", ["t.csv", "litellm:p.json", "openrouter:m.json", "c:/x.csv"]) == [
        ("aa", Path("t.csv")),
        ("litellm", Path("p.json")),
        ("openrouter", Path("m.json")),
        ("aa", Path("c:/x.csv")),
    ]
    with pytest.raises(InputError, match="unknown source 'nosuch'; expected one of"):
        parse_sources("nosuch", ["f"])


def test_import_catalog_gives_the_files_text_and_validates_it(tmp_path):
    out = tmp_path / "small.yaml"
    files = [
        str(SMALL / "aa_small.csv"),
        f"litellm:{SMALL / 'litellm_small.json'}",
        f"openrouter:{SMALL / 'openrouter_small.json'}",
    ]
    text, left_csv, result = import_catalog("aa", files, out, None, None)
    assert text.startswith(
        "# Built by `planner catalog import` from: aa:aa_small.csv, litellm:litellm_small.json, "
        "openrouter:openrouter_small.json\n"
    )
    catalog = yaml.safe_load(text)
    assert catalog["catalog"] == "small" and catalog["offerings"] == result.offerings
    validate(Catalog, catalog, str(out))
    rows = list(csv.reader(io.StringIO(left_csv)))
    assert rows[0] == ["source", "name", "reason"] and [tuple(r) for r in rows[1:]] == result.left_out
    assert not out.exists()  # the command writes the files
    named, _, _ = import_catalog("aa", [str(SMALL / "aa_small.csv")], out, "q3", "2026-07-01")
    assert yaml.safe_load(named)["catalog"] == "q3" and yaml.safe_load(named)["as_of"] == "2026-07-01"
    with pytest.raises(InputError, match="no offering has every required figure"):
        import_catalog("litellm", [str(SMALL / "litellm_small.json")], out, None, None)


def test_whole_source_files_import_the_same_catalog_every_time(tmp_path):
    files = ("aa_providers_leaderboard.csv", "litellm_model_prices_and_context_window.json")
    texts = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        built = import_all(FULL, *files, "openrouter_models_2026-04-04.json", tmp_path / run / "aa-2026-06.yaml")
        texts.append([(tmp_path / run / name).read_bytes() for name in ("aa-2026-06.yaml", "aa-2026-06.left-out.csv")])
    assert texts[0] == texts[1]  # same input, byte-identical catalog and left-out list
    assert built.as_of == "2026-06-19" and len(built.offerings) > 700
    for kind, name in (
        ("litellm", "litellm_model_prices_and_context_window.json"),
        ("openrouter", "openrouter_models_2026-04-04.json"),
    ):
        alone = build_catalog([(kind, FULL / name)], "x")[1]
        assert alone.offerings == [] and len(alone.left_out) > 100  # no speeds in price tables: nothing invented


def test_bad_entries_are_left_out_and_listed_and_the_rest_imports(tmp_path):
    """A short Artificial Analysis row, litellm's Infinity and null prices, an OpenRouter numeric id,
    string pricing and negative prices, a 1e400 context length and a price out of range: none stops
    the import; each is listed with its reason, and every good entry still imports."""
    import json

    aa = (SMALL / "aa_small.csv").read_text().splitlines()
    columns = aa[0].split(",")
    big = aa[1].split(",")
    big[columns.index("median_output_speed")] = "2e7"  # over SPEC's 10^7 tokens/s
    short = "only,two"
    (tmp_path / "aa.csv").write_text("\n".join([aa[0], *aa[2:], ",".join(big), short]) + "\n")
    lite = json.loads((SMALL / "litellm_small.json").read_text())
    lite["bad/infinite"] = {"mode": "chat", "input_cost_per_token": float("inf"), "output_cost_per_token": 1e-6}
    lite["bad/null"] = {"mode": "chat", "input_cost_per_token": None, "output_cost_per_token": None}
    lite["bad/context"] = {
        "mode": "chat",
        "input_cost_per_token": 1e-6,
        "output_cost_per_token": 2e-6,
        "max_input_tokens": 1e400,
    }  # json writes inf as Infinity
    (tmp_path / "lite.json").write_text(json.dumps(lite))
    router = json.loads((SMALL / "openrouter_small.json").read_text())
    router["data"] += [
        {"id": 12345, "pricing": {"prompt": "x", "completion": "y"}},
        {"id": "a/string-pricing", "pricing": "free"},
        {"id": "a/variable", "pricing": {"prompt": "-1", "completion": "-1"}},
    ]
    (tmp_path / "router.json").write_text(json.dumps(router))
    files = [("aa", tmp_path / "aa.csv"), ("litellm", tmp_path / "lite.json"), ("openrouter", tmp_path / "router.json")]
    catalog, result = build_catalog(files, "t")
    why = {(s, n): r for s, n, r in result.left_out}
    assert why[("aa", f"row {len(aa) + 1}")] == "short row: no host_name or model_name"
    assert "no usable input and output price" in why[("litellm", "bad/infinite")]
    assert "no usable input and output price" in why[("litellm", "bad/null")]
    assert "no usable input and output price" in why[("openrouter", "12345")]
    assert "pricing is not an object" in why[("openrouter", "a/string-pricing")]
    assert "no usable input and output price" in why[("openrouter", "a/variable")]
    over = [r for (s, _), r in why.items() if s == "import"]
    assert len(over) == 1 and over[0].startswith("speed.output_tps:"), over
    validate(Catalog, catalog, "catalog")  # what imported is a valid catalog
    good, _ = build_catalog([("aa", SMALL / "aa_small.csv")], "t")
    assert len(catalog["offerings"]) == len(good["offerings"])  # every good row still imported (the big one replaced)
