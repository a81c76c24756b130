"""Catalog import (planner.market.catalog_import and `planner catalog import`): on fixtures cut from the real
source files, and on the whole files in catalogs/sources (built twice: byte for byte the same)."""

import csv
import io
import json
import math
from pathlib import Path

import pytest
import yaml
from conftest import DATA, ROOT
from strategies import DEEP
from typer.testing import CliRunner

from planner.cli.app import app
from planner.core.errors import InputError
from planner.market.catalog_import import _named, build_catalog, import_catalog
from planner.market.diff import diff_catalogs
from planner.market.names import endpoint, host_key, normalize_model, split_effort
from planner.market.provenance import parse_sources
from planner.market.sources.aa import read_aa
from planner.market.sources.litellm import read_litellm
from planner.model.load import load_catalog, validate
from planner.model.schema import Catalog

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
    assert groq["speed"] == {  # measured, Artificial Analysis: medians, and p05_output_speed ... p95_ttft
        "output_tps": 475.762,
        "ttft_s": 0.7459,
        "percentiles": {
            "output_tps": {5: 464.921, 25: 473.943, 75: 480.286, 95: 483.325},
            "ttft_s": {5: 0.6419, 25: 0.6981, 75: 0.8281, 95: 0.9069},
        },
        # the medians are the 10k-input workload's (perf_long_*); perf_medium_* (1k) and perf_100k_* beside them
        "input_tokens": 10000,
        "by_input": {
            1000: {"output_tps": 474.143, "ttft_s": 0.2412},
            100000: {"output_tps": 481.445, "ttft_s": 4.7971},
        },
    }
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
    novita = by["gpt-oss-120b@novita"]
    assert orr["thinking"] == novita["thinking"]
    assert {k: v for k, v in orr["speed"].items() if k != "percentiles"} == {
        k: v for k, v in novita["speed"].items() if k != "percentiles"
    }
    # each percentile the slowest of the four hosts': the lowest speed, the longest first token
    hosts = [o for o in catalog["offerings"] if o["model"] == "gpt-oss-120b (high)" and o["vendor"] != "openrouter"]
    assert len(hosts) == 4
    for name, worst in (("output_tps", min), ("ttft_s", max)):
        for k in (5, 25, 75, 95):
            assert orr["speed"]["percentiles"][name][k] == worst(h["speed"]["percentiles"][name][k] for h in hosts)
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
    assert cat.metrics["overall"].scale == "0-100 points; the scrape does not name the index version"
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
        "# yaml-language-server: $schema=../schemas/catalog.schema.json\n"
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
    """Imported, the whole source files give the shipped catalog byte for byte (imported when it was made):
    `make test` imports once; `make test-deep` twice, in one process."""
    files = ("aa_providers_leaderboard.csv", "litellm_model_prices_and_context_window.json")
    texts = []
    for run in ("a", "b") if DEEP else ("a",):
        (tmp_path / run).mkdir()
        built = import_all(FULL, *files, "openrouter_models_2026-04-04.json", tmp_path / run / "aa-2026-06.yaml")
        texts.append([(tmp_path / run / name).read_bytes() for name in ("aa-2026-06.yaml", "aa-2026-06.left-out.csv")])
    assert all(t == texts[0] for t in texts)  # same input, byte-identical catalog and left-out list
    shipped = ROOT / "catalogs"
    assert texts[0] == [(shipped / n).read_bytes() for n in ("aa-2026-06.yaml", "aa-2026-06.left-out.csv")]
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


# ----------------------------------------------------------------------------- issue 15, on the real files

FULL_FILES = [
    ("aa", FULL / "aa_providers_leaderboard.csv"),
    ("litellm", FULL / "litellm_model_prices_and_context_window.json"),
    ("openrouter", FULL / "openrouter_models_2026-04-04.json"),
]


@pytest.fixture(scope="module")
def full():
    catalog, result = build_catalog(FULL_FILES, "aa-2026-06")
    validate(Catalog, catalog, "aa-2026-06.yaml")
    return catalog, result


def aa_table(path=FULL / "aa_providers_leaderboard.csv"):
    """The table's rows by file line (the header is line 1)."""
    with open(path, encoding="utf-8", newline="") as fh:
        return dict(enumerate(csv.DictReader(fh), start=2))


def figures(offering):
    """The offering's default and its modes, each as (model name, figures)."""
    yield offering["model"], offering
    for mode in offering.get("modes", []):
        yield mode["model"], mode


def by_line(catalog):
    """Artificial Analysis line -> (offering, the figures of that line's model: default or a mode)."""
    out = {}
    for o in catalog["offerings"]:
        if o["vendor"] == "openrouter":
            continue
        lines = [int(x) for x in o["source"].split(" line")[1].split(":")[0].lstrip("s ").split(", ")]
        for line in lines:
            assert line not in out  # every row is in one offering only
            out[line] = o
    return out


@pytest.mark.parametrize(
    "host, company, variant",
    [
        ("DeepInfra (FP8)", "deepinfra", "fp8"),
        ("DeepInfra FP8", "deepinfra", "fp8"),
        ("DeepInfra (Turbo, FP4)", "deepinfra", "turbo-fp4"),
        ("Nebius Fast", "nebius", "fast"),
        ("Nebius (Base, FP4)", "nebius", "base-fp4"),
        ("Amazon Bedrock", "amazon", ""),
        ("Amazon Bedrock Latency Optimized", "amazon", "latency-optimized"),
        ("Microsoft Azure", "microsoft", ""),
        ("Google", "google", ""),
        ("Google (AI Studio)", "google", "ai-studio"),
        ("Google AI Studio", "google", "ai-studio"),
        ("Google Vertex", "google", "vertex"),
        ("Google (Vertex)", "google", "vertex"),
        ("xAI Fast", "xai", "fast"),
        ("Together.ai", "together-ai", ""),
        ("Together AI", "together-ai", ""),
        ("Together AI Turbo", "together-ai", "turbo"),
        ("Kimi", "moonshot", ""),
        ("Alibaba Cloud", "alibaba", ""),
        ("Makora FP4", "makora", "fp4"),
    ],
)
def test_hosts_are_companies_and_endpoint_variants(host, company, variant):
    assert endpoint(host) == (company, variant)


def test_litellm_providers_of_companies():
    assert host_key("Google Vertex") == host_key("Google (Vertex)") == "vertex_ai"
    assert host_key("Google AI Studio") == host_key("Google") == "gemini"
    assert host_key("Microsoft Azure") == "azure_ai" and host_key("Together.ai") == "together_ai"


@pytest.mark.parametrize(
    "name, base, effort",
    [
        ("DeepSeek V4 Flash (Reasoning, High Effort)", "DeepSeek V4 Flash", "Reasoning, High Effort"),
        ("Claude Opus 4.7 (Adaptive Reasoning, Max Effort)", "Claude Opus 4.7", "Adaptive Reasoning, Max Effort"),
        ("gpt-oss-120b (high)", "gpt-oss-120b", "high"),
        ("GPT-5.5 (xhigh)", "GPT-5.5", "xhigh"),
        ("Claude 4.5 Haiku (Non-reasoning)", "Claude 4.5 Haiku", "Non-reasoning"),
        ("GPT-4o (Nov '24)", "GPT-4o (Nov '24)", None),  # another model, not an effort
        ("GPT-5 (ChatGPT)", "GPT-5 (ChatGPT)", None),
        ("Kimi K2.6", "Kimi K2.6", None),
    ],
)
def test_effort_qualifiers(name, base, effort):
    assert split_effort(name) == (base, effort)


def test_reasoning_rows_carry_their_measured_thinking(full):
    """Every row that thinks is imported with at least its measured thinking time (rounded up), and
    the tokens derived from it are marked an estimate; a row that does not think carries none."""
    catalog, result = full
    rows, where = aa_table(), by_line(catalog)
    left = {n for s, n, _ in result.left_out if s == "aa"}
    thinking = hidden = 0
    for line, row in rows.items():
        if line not in where:
            assert f"{row['host_name']} / {row['model_name']}" in left  # never silently dropped
            continue
        offering = where[line]
        measured = float(row["ttft_reasoning_time"])
        for model, fig in figures(offering):
            if model != row["model_name"]:
                continue
            assert fig["speed"]["output_tps"] == round(float(row["median_output_speed"]), 3)
            prefix = "" if fig is offering else f"modes.{fig['name']}."
            if measured == 0 and row["model_reasoning_model"] == "True":
                # thinking the host does not stream is inside the first-token time: split, the total kept
                total = fig["speed"]["ttft_s"] + fig["thinking"]["seconds"]
                assert total == pytest.approx(float(row["median_ttft"]), abs=0.002)
                assert {prefix + "thinking.seconds", prefix + "speed.ttft_s"} <= set(offering["estimated"])
                hidden += 1
                continue
            assert fig["speed"]["ttft_s"] == round(float(row["median_ttft"]), 4)  # the input part
            if measured > 0:
                assert measured <= fig["thinking"]["seconds"] < measured + 0.0011
                path = "thinking.tokens" if fig is offering else f"modes.{fig['name']}.thinking.tokens"
                assert path in offering["estimated"]
                thinking += 1
            else:
                assert "thinking" not in fig
    assert thinking > 300  # 335 rows think; all but those left out for their price are imported
    assert hidden > 100  # 124 reasoning rows on hosts that do not stream their thinking


def test_every_row_carries_its_measured_percentiles(full):
    """p05_output_speed ... p95_ttft become speed.percentiles of the row's offering or mode, rounded as the
    medians; a row whose thinking is split from its first-token time keeps its speed percentiles only
    (its first-token percentiles hold the thinking, and only the median is split)."""
    catalog, _ = full
    rows, where = aa_table(), by_line(catalog)
    checked = split = 0
    for line, row in rows.items():
        if line not in where:
            continue
        for model, fig in figures(where[line]):
            if model != row["model_name"]:
                continue
            pct = fig["speed"]["percentiles"]
            assert pct["output_tps"] == {k: round(float(row[f"p{k:02d}_output_speed"]), 3) for k in (5, 25, 75, 95)}
            if float(row["ttft_reasoning_time"]) == 0 and row["model_reasoning_model"] == "True":
                assert "ttft_s" not in pct
                split += 1
            else:
                assert pct["ttft_s"] == {k: round(float(row[f"p{k:02d}_ttft"]), 4) for k in (5, 25, 75, 95)}
            checked += 1
    assert checked > 700 and split > 100


def test_percentiles_out_of_order_or_missing_are_left_out_and_said(tmp_path):
    rows = [r for r in aa_table().values() if r["host_name"] == "Groq" and r["model_name"] == "gpt-oss-120b (high)"]
    rows[0]["p25_output_speed"] = "999"  # above the median
    path = tmp_path / "aa.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    catalog, result = build_catalog([("aa", path)], "x")
    (groq,) = catalog["offerings"]
    assert set(groq["speed"]["percentiles"]) == {"ttft_s"}  # the speed's are out of order: judged at the median
    why = {n: r for _, n, r in result.left_out}
    assert why["Groq / gpt-oss-120b (high)"].startswith("output speed percentiles out of order with the median")
    # an older scrape without the columns: no percentiles, and the columns listed
    _, _, old = import_catalog("aa", [str(SMALL / "aa_old_columns.csv")], tmp_path / "old.yaml", None, None)
    missing = {n: r for s, n, r in old.left_out if s == "aa" and n.startswith("column ")}
    assert missing["column p05_output_speed"].endswith(
        "no percentiles of output speed: budgets at a percentile judge at the median"
    )
    assert all("percentiles" not in o["speed"] for o in old.offerings)


def test_effort_variants_of_one_endpoint_are_one_offering_with_modes(full):
    catalog, _ = full
    by = {o["id"]: o for o in catalog["offerings"]}
    gmi = by["deepseek-v4-flash@gmi"]  # lines 202, 230, 243: three efforts at one price
    assert gmi["model"] == "DeepSeek V4 Flash (Non-reasoning)" and "thinking" not in gmi  # thinks least
    assert [m["name"] for m in gmi["modes"]] == ["reasoning-high-effort", "reasoning-max-effort"]
    high, top = gmi["modes"]
    assert high["model"] == "DeepSeek V4 Flash (Reasoning, High Effort)" and high["reasoning_factor"] == 1.0
    assert high["thinking"] == {"seconds": 12.145} and top["thinking"] == {"seconds": 53.673}
    assert high["speed"] == {  # its own measured speed, and that speed's percentiles
        "output_tps": 102.101,
        "ttft_s": 3.6001,
        "percentiles": {
            "output_tps": {5: 74.014, 25: 88.435, 75: 113.398, 95: 147.363},
            "ttft_s": {5: 2.3037, 25: 3.0985, 75: 6.5388, 95: 15.1776},
        },
        "input_tokens": 10000,  # and its own speeds at the other prompt lengths
        "by_input": {1000: {"output_tps": 125.89, "ttft_s": 3.2904}, 100000: {"output_tps": 68.454, "ttft_s": 32.1304}},
    }
    assert gmi["capability"]["overall"] < high["capability"]["overall"] < top["capability"]["overall"]
    assert "lines 202, 230, 243" in gmi["source"]
    # "DeepInfra (FP4)" and "DeepInfra FP4" are one endpoint: its two efforts are one offering
    fp4 = by["deepseek-v4-flash@deepinfra-fp4"]
    assert fp4["tier"] == "standard-fp4" and [m["name"] for m in fp4["modes"]] == ["reasoning-max-effort"]
    # CoreWeave lists its non-reasoning variant at $0.01/$0.01, a placeholder (left out); the
    # reasoning variants are one offering
    assert "deepseek-v4-flash-non-reasoning@coreweave" not in by
    assert by["deepseek-v4-flash@coreweave"]["price"]["input"] == 0.14


def test_endpoint_variants_share_their_company(full):
    catalog, _ = full
    deepinfra = [o for o in catalog["offerings"] if o["id"].split("@")[1].startswith("deepinfra")]
    assert {o["vendor"] for o in deepinfra} == {o["host"] for o in deepinfra} == {"deepinfra"}
    tiers = {o["tier"] for o in deepinfra}
    assert {"standard", "standard-fp8", "standard-fp4", "standard-turbo-fp8"} <= tiers
    vendors = {o["vendor"] for o in catalog["offerings"]}
    assert {"amazon", "microsoft", "google", "moonshot", "together-ai"} <= vendors
    assert not vendors & {"amazon-bedrock", "microsoft-azure", "google-vertex", "deepinfra-fp8", "nebius-fast"}
    assert {o["creator"] for o in catalog["offerings"] if o["id"].startswith("gpt-oss-120b@")} == {"OpenAI"}


def test_a_renamed_host_keeps_its_offerings(tmp_path):
    """'Together.ai' in one scrape, 'Together AI' in the next: the same offerings, nothing added or removed."""
    rows = [r for r in aa_table().values() if r["host_name"].startswith("Together AI")]
    scrapes = {}
    for name, host in (("old", "Together.ai"), ("new", "Together AI")):
        path = tmp_path / f"{name}.csv"
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows({**r, "host_name": r["host_name"].replace("Together AI", host)} for r in rows)
        catalog, _ = build_catalog([("aa", path)], name, "2026-06-19")
        scrapes[name] = validate(Catalog, catalog, str(path))
    assert len(scrapes["new"].offerings) >= 10
    assert [o.id for o in scrapes["old"].offerings] == [o.id for o in scrapes["new"].offerings]
    assert diff_catalogs(scrapes["old"], scrapes["new"]) == []


def test_unknown_prices_are_left_out_and_free_tiers_need_the_option(full):
    catalog, result = full
    assert not [o for o in catalog["offerings"] if o["price"]["input"] == o["price"]["output"] == 0]
    why = {(s, n): r for s, n, r in result.left_out}
    unpublished = [n for (s, n), r in why.items() if s == "aa" and r.startswith("price not published")]
    assert "Mistral / Devstral 2" in unpublished and "Cloudflare / Llama 3.1 Instruct 8B" in unpublished
    assert len(unpublished) == 8  # 12 rows at 0/0: 2 have a litellm list price, 2 are litellm free tiers
    phi = next(o for o in catalog["offerings"] if o["id"] == "phi-4-mini-instruct@microsoft")
    assert phi["vendor"] == "microsoft" and phi["price"]["input"] == 0.075  # litellm's list price
    assert why[("aa", "Google AI Studio / Gemma 4 26B A4B (Reasoning)")].startswith(
        "free tier with no published rate limit"
    )
    assert why[("openrouter", "openai/gpt-oss-120b:free")] == "free tier with no published rate limit"
    with_free, _ = build_catalog(FULL_FILES, "x", free_tiers=True)
    assert with_free["offerings"] == catalog["offerings"]  # no free tier in these files publishes a rate limit


def test_free_tiers_enter_with_their_rate_limits_when_asked(tmp_path):
    """Real rows and litellm entries: Gemma 4 on Google AI Studio (litellm: free), with Gemini's
    published free-tier limit (30 requests, 15,000 tokens a minute) added to the 31B entry."""
    files = [("aa", SMALL / "aa_free.csv"), ("litellm", SMALL / "litellm_free.json")]
    plain, result = build_catalog(files, "x")
    assert [o["model"] for o in plain["offerings"]] == ["Phi-4 Mini Instruct"]
    why = {n: r for _, n, r in result.left_out}
    assert why["Google (AI Studio) / Gemma 4 31B (Reasoning)"].startswith("free tier; import with --free-tiers")
    assert why["Google AI Studio / Gemma 4 26B A4B (Reasoning)"].startswith("free tier with no published rate limit")
    assert why["Cloudflare / Llama 3.1 Instruct 8B"].startswith("price not published")
    out = tmp_path / "free.yaml"
    cli = runner.invoke(
        app, ["catalog", "import", "aa", str(files[0][1]), f"litellm:{files[1][1]}", "--free-tiers", "--out", str(out)]
    )
    assert cli.exit_code == 0, cli.output
    by = {o.model: o for o in load_catalog(out).offerings}
    gemma = by["Gemma 4 31B (Reasoning)"]
    assert gemma.tier == "free" and gemma.vendor == "google" and gemma.price.input == gemma.price.output == 0
    assert gemma.capacity.requests_per_minute == 30 and gemma.capacity.tokens_per_minute == 15000
    assert "rpm, tpm (published rate limits)" in gemma.source
    assert "Gemma 4 26B A4B (Reasoning)" not in by  # free, but no published limit


def test_litellm_rate_limits_become_capacity(full):
    catalog, _ = full
    limited = [o for o in catalog["offerings"] if "capacity" in o]
    assert limited and all("(published rate limits)" in o["source"] for o in limited)
    table = json.loads((FULL / "litellm_model_prices_and_context_window.json").read_text())
    for o in limited:  # the capacity is the entry's own rpm and tpm, nothing else
        key = o["gateway"]["litellm"]
        entry = table.get(key) or table[key.split("/", 1)[1]]
        expected = {}
        if entry.get("rpm") is not None:
            expected["requests_per_minute"] = float(entry["rpm"])
        if entry.get("tpm") is not None:
            expected["tokens_per_minute"] = float(entry["tpm"])
        assert {k: float(v) for k, v in o["capacity"].items()} == expected, key


def test_aggregator_figures_hold_at_its_price(full):
    """An OpenRouter offering is no faster, no quicker to answer, no shorter in thinking and no
    better scoring than any Artificial Analysis host of the same model variant at or below its price."""
    catalog, _ = full
    hosts: dict[str, list] = {}
    for o in catalog["offerings"]:
        if o["vendor"] != "openrouter":
            for model, fig in figures(o):
                hosts.setdefault(model, []).append((o["price"], fig))
    checked = 0
    for o in catalog["offerings"]:
        if o["vendor"] != "openrouter":
            continue
        for model, fig in figures(o):
            for price, host in (h for name in model.split(" / ") for h in hosts.get(name, [])):
                if price["input"] <= o["price"]["input"] * 1.01 and price["output"] <= o["price"]["output"] * 1.01:
                    assert fig["speed"]["output_tps"] <= host["speed"]["output_tps"]
                    assert fig["speed"]["ttft_s"] >= host["speed"]["ttft_s"]
                    assert fig.get("thinking", {}).get("seconds", 0) >= host.get("thinking", {}).get("seconds", 0)
                    assert fig["capability"]["overall"] <= host["capability"]["overall"]
                    checked += 1
    assert checked > 100
    gpt5 = next(o for o in catalog["offerings"] if o["id"] == "openai/gpt-5@openrouter")
    assert "ChatGPT" not in str(gpt5)  # "GPT-5 (ChatGPT)" is another model
    assert [m["name"] for m in gpt5["modes"]] == ["low", "medium", "high"]  # by thinking time


def test_catalog_metrics_say_what_each_score_measures(full):
    catalog, _ = full
    metrics = catalog["metrics"]
    assert list(metrics) == ["overall", "gpqa", "mmlu_pro", "livecodebench"]
    overall = metrics["overall"]
    assert overall["name"] == "Artificial Analysis Intelligence Index"
    assert overall["scale"] == "0-100 points; the scrape does not name the index version"  # the same every scrape
    assert overall["rounding"] == 0.0001 and overall["source"].endswith("model_intelligence_index")
    scores = [f["capability"]["overall"] for o in catalog["offerings"] for _, f in figures(o)]
    assert overall["top"] == max(scores)
    assert "percent of questions" in metrics["gpqa"]["scale"] and "2026" not in metrics["gpqa"]["scale"]


def test_cached_input_from_the_discount_is_an_estimate(tmp_path):
    rows = list(aa_table(SMALL / "aa_small.csv").values())
    rows[0]["cache_hit_discount_percent"] = "50"
    path = tmp_path / "aa.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    catalog, _ = build_catalog([("aa", path)], "x")
    groq = catalog["offerings"][0]
    assert groq["price"] == {"input": 0.15, "output": 0.6, "cached_input": 0.075}
    assert groq["estimated"] == ["price.cached_input", "thinking.tokens"]


def test_input_price_equal_to_a_cache_write_surcharge_is_left_out(tmp_path):
    """A scrape that shows a Claude row's cache-write price as its input price: the model's other
    rows charge cache writes above input, so the row is suspect and, with no list price, left out."""
    rows = [r for r in aa_table().values() if r["model_name"].startswith("Claude Sonnet 4.6")]
    assert len(rows) == 9 and all(float(r["cache_write_price"]) > float(r["price_1m_input_tokens"]) for r in rows)
    (bad,) = [r for r in rows if r["host_name"] == "Anthropic" and "High Effort" in r["model_name"]]
    bad["price_1m_input_tokens"] = bad["cache_write_price"]  # $3.75 for $3
    path = tmp_path / "aa.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    catalog, result = build_catalog([("aa", path)], "x")
    why = {n: r for _, n, r in result.left_out}
    assert "$3.75 equals the cache-write price" in why["Anthropic / Claude Sonnet 4.6 (Non-reasoning, High Effort)"]
    assert len([line for o in catalog["offerings"] for line, _ in figures(o)]) == len(rows) - 1
    # with litellm's list price for the host, the row imports at that price
    catalog, _ = build_catalog([("aa", path), ("litellm", FULL_FILES[1][1])], "x")
    anthropic = next(o for o in catalog["offerings"] if o["vendor"] == "anthropic")
    assert anthropic["model"] == bad["model_name"] and anthropic["price"]["input"] == 3.0
    assert "litellm 'claude-sonnet-4-6' (the table's input price is the cache-write price)" in anthropic["source"]


def test_a_scrape_with_fewer_columns_imports_and_lists_them(tmp_path):
    """aa_old_columns.csv: nine real rows with 13 of the 122 columns, as an older scrape has."""
    text, _, result = import_catalog("aa", [str(SMALL / "aa_old_columns.csv")], tmp_path / "old.yaml", None, None)
    missing = {n: r for s, n, r in result.left_out if s == "aa" and n.startswith("column ")}
    assert missing["column median_output_speed"] == (
        "missing from this scrape: output speed read from perf_long_median_output_speed"
    )
    assert missing["column median_ttft"].endswith("time to first token read from ttft_input_time")
    assert missing["column ttft_reasoning_time"].endswith("thinking time = ttft_total_time - ttft_input_time")
    assert "model_estimated_intelligence_index" in missing["column model_intelligence_index"]
    assert {"column model_reasoning_model", "column deleted", "column model_creator_name"} <= set(missing)
    assert "# column median_ttft missing from this scrape: time to first token read from ttft_input_time\n" in text
    (together,) = result.offerings  # the DeepSeek rows have no estimated index: left out
    assert together["id"] == "gpt-oss-120b@together-ai" and together["creator"] == "openai"
    assert together["capability"]["overall"] == pytest.approx(35.8773)  # the estimated index
    assert "capability.overall" in together["estimated"] and "livecodebench" not in together["capability"]
    real = aa_table()[21]  # Together AI, gpt-oss-120b (high): derived as the full table measures it
    assert real["model_name"] == together["model"]
    assert together["thinking"]["seconds"] == pytest.approx(float(real["ttft_reasoning_time"]), abs=0.0011)
    assert together["speed"]["output_tps"] == round(float(real["median_output_speed"]), 3)
    why = {n: r for _, n, r in result.left_out}
    assert why["GMI / DeepSeek V4 Flash (Non-reasoning)"] == "no intelligence index"


def test_a_scrape_without_thinking_times_leaves_reasoning_models_out(tmp_path):
    rows = list(aa_table(SMALL / "aa_old_columns.csv").values())
    path = tmp_path / "aa.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        keep = [c for c in rows[0] if c != "ttft_total_time"]
        writer = csv.DictWriter(fh, fieldnames=keep, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    catalog, result = build_catalog([("aa", path)], "x")
    why = {n: r for _, n, r in result.left_out}
    assert why["column ttft_reasoning_time"] == "missing from this scrape: no thinking time: reasoning models left out"
    assert why["Together AI / gpt-oss-120b (high)"] == "reasoning model with no measured thinking time"
    assert catalog["offerings"] == []


def test_a_scrape_without_a_speed_column_is_an_input_error(tmp_path):
    rows = list(aa_table(SMALL / "aa_old_columns.csv").values())
    path = tmp_path / "aa.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        keep = [c for c in rows[0] if c not in ("perf_long_median_output_speed", "host_name")]
        writer = csv.DictWriter(fh, fieldnames=keep, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    cli = runner.invoke(app, ["catalog", "import", "aa", str(path), "--out", str(tmp_path / "x.yaml")])
    assert cli.exit_code == 2
    assert str(path) in cli.stderr and "missing columns host_name, median_output_speed or " in cli.stderr


FETCHED = DATA / "fetch"  # saved API responses shaped as OpenRouter and Artificial Analysis document them


def fetched(*names):
    return [("openrouter" if n.startswith("openrouter") else n.split("/")[0], FETCHED / n) for n in names]


def test_openrouter_endpoints_become_one_offering_each():
    """Billed by OpenRouter, served by the endpoint's provider, at its price less the discount, at its
    median speed (latency in milliseconds); scores and thinking tokens from Artificial Analysis."""
    catalog, result = build_catalog(
        fetched(
            "openrouter/models.json",
            "openrouter/providers.json",
            "openrouter/endpoints/openai/gpt-oss-120b.json",
            "aa/llms_models.json",
        ),
        "live",
    )
    validate(Catalog, catalog, "live.yaml")
    by = {o["id"]: o for o in catalog["offerings"]}
    assert sorted(by) == [
        "openai/gpt-oss-120b@openrouter:cerebras",
        "openai/gpt-oss-120b@openrouter:deepinfra/fp4",
        "openai/gpt-oss-120b@openrouter:groq",
    ]
    cerebras = by["openai/gpt-oss-120b@openrouter:cerebras"]
    assert (cerebras["vendor"], cerebras["host"], cerebras["tier"]) == ("openrouter", "cerebras", "fast")
    assert cerebras["price"] == {"input": 0.35, "output": 0.75}
    assert cerebras["speed"] == {"output_tps": 2123.4, "ttft_s": 0.412}  # p50s; 412 ms
    assert cerebras["model"] == "gpt-oss-120B (low)" and cerebras["capability"]["overall"] == 24.5
    assert cerebras["thinking"] == {"tokens": 850}  # (2.911 - 0.498) s x 352.104 tok/s, rounded up
    high = cerebras["modes"][0]
    assert high["name"] == "high" and high["thinking"] == {"tokens": 2006} and "speed" not in high
    assert high["capability"] == {"overall": 33.3, "gpqa": 78.2, "mmlu_pro": 80.8, "livecodebench": 63.9}
    assert cerebras["estimated"] == ["thinking.tokens", "modes.high.thinking.tokens"]
    assert cerebras["gateway"] == {"openrouter": "openai/gpt-oss-120b"} and cerebras["context_window"] == 131072
    for kept in ("p90 2456", "p99 1.64", "99.12% over 30 minutes", "datacenters US CA", "llms_models.json data[1]"):
        assert kept in cerebras["source"]
    groq = by["openai/gpt-oss-120b@openrouter:groq"]  # 10% discount on its list price, cached input too
    assert groq["price"] == {"input": 0.135, "output": 0.54, "cached_input": 0.0675}
    assert "discount of 10%" in groq["source"]
    fp4 = by["openai/gpt-oss-120b@openrouter:deepinfra/fp4"]
    assert (fp4["host"], fp4["tier"]) == ("deepinfra", "standard-fp4")
    why = {name: reason for src, name, reason in result.left_out if src == "openrouter"}
    assert "OPENROUTER_API_KEY" in why["openai/gpt-oss-120b @ together"]  # anonymous: no latency, no throughput
    assert why["acme/mystery-1"].startswith("no measured speed")  # no endpoints file: the aggregate path
    assert catalog["metrics"]["overall"]["source"].startswith("Artificial Analysis API")


def test_the_aa_api_rates_models_but_gives_no_offering():
    left: list = []
    rows = read_aa(FETCHED / "aa" / "llms_models.json", left)
    assert [r.model for r in rows][:3] == ["gpt-oss-120B (high)", "gpt-oss-120B (low)", "Llama 3.3 Instruct 70B"]
    assert all(r.per_model and r.host == "" for r in rows)
    high = rows[0]
    assert high.caps == {"overall": 33.3, "gpqa": 78.2, "mmlu_pro": 80.8, "livecodebench": 63.9}
    assert (high.tps, high.ttft, high.creator, high.reasoning) == (340.512, 0.521, "OpenAI", True)
    assert abs(high.thinking - 5.891) < 1e-9  # first answer token minus first token
    o3 = next(r for r in rows if r.model.startswith("o3-mini"))
    assert o3.reasoning and o3.thinking is None  # answer with the first token: thinking hidden in it, unknown
    assert len(left) == len(rows) and all("per model, not per host" in reason for _, _, reason in left)
    catalog, result = build_catalog([("aa", FETCHED / "aa" / "llms_models.json")], "x")
    assert catalog["offerings"] == []


def test_endpoints_take_scores_from_the_table_and_other_models_keep_the_aggregate():
    """With the providers table instead of the API: thinking tokens are the median over its hosts; a
    listed model with no endpoints file is still imported as before."""
    catalog, _ = build_catalog(
        [
            ("aa", SMALL / "aa_small.csv"),
            ("openrouter", SMALL / "openrouter_small.json"),
            ("openrouter", FETCHED / "openrouter" / "endpoints" / "openai" / "gpt-oss-120b.json"),
        ],
        "mixed",
    )
    ids = [o["id"] for o in catalog["offerings"]]
    assert "openai/gpt-oss-120b@openrouter" not in ids and "openai/gpt-oss-120b@openrouter:groq" in ids
    groq = next(o for o in catalog["offerings"] if o["id"] == "openai/gpt-oss-120b@openrouter:groq")
    assert groq["model"] == "gpt-oss-120b (high)" and "aa_small.csv lines" in groq["source"]
    rows = [r for r in read_aa(SMALL / "aa_small.csv") if r.model == "gpt-oss-120b (high)"]
    tokens = sorted(r.thinking * r.tps for r in rows)
    assert groq["thinking"]["tokens"] == math.ceil((tokens[1] + tokens[2]) / 2)  # the median of 4 hosts
    assert catalog["metrics"]["overall"]["source"].startswith("Artificial Analysis providers leaderboard")


def test_many_files_of_one_folder_are_named_by_their_count():
    sources = [("aa", Path("s/t.csv"))] + [("openrouter", Path(f"live/endpoints/m{i}.json")) for i in range(5)]
    assert _named(sources) == "aa:t.csv, openrouter:endpoints/ (5 files)"
    assert _named(sources[:3]) == "aa:t.csv, openrouter:m0.json, openrouter:m1.json"


@pytest.mark.parametrize(
    "provider, company",
    [("GMICloud", "gmi"), ("Friendli", "friendliai"), ("Together", "together-ai"), ("Azure", "microsoft")],
)
def test_openrouter_provider_names_are_the_same_companies(provider, company):
    assert endpoint(provider)[0] == company


def test_two_endpoints_files_of_one_model_give_each_endpoint_once(tmp_path):
    one = json.loads((FETCHED / "openrouter" / "endpoints" / "openai" / "gpt-oss-120b.json").read_text())
    two = json.loads(json.dumps(one))
    two["data"]["endpoints"] = two["data"]["endpoints"][:1] + [
        dict(two["data"]["endpoints"][1], tag="groq/turbo", name="Groq | turbo")
    ]
    (tmp_path / "a.json").write_text(json.dumps(one))
    (tmp_path / "b.json").write_text(json.dumps(two))
    files = [("openrouter", tmp_path / "a.json"), ("openrouter", tmp_path / "b.json")]
    catalog, _ = build_catalog([*files, ("aa", FETCHED / "aa" / "llms_models.json")], "x")
    assert [o["id"].split("@")[1] for o in catalog["offerings"]] == [
        "openrouter:cerebras",
        "openrouter:groq",
        "openrouter:deepinfra/fp4",
        "openrouter:groq/turbo",
    ]


# ----------------------------------------------------------------------------- v1.6, issue 19: litellm's tiers

GROQ = "groq/openai/gpt-oss-120b"  # priced by litellm in the small fixture: $0.15/$0.60, cached $0.075


def with_litellm(tmp_path, **entries):
    """The small fixture's litellm table with these entries' keys added (or replacing), as a file."""
    lite = json.loads((SMALL / "litellm_small.json").read_text())
    for key, fields in entries.items():
        lite[key] = {**lite.get(key, {"mode": "chat", "litellm_provider": "acme"}), **fields}
    path = tmp_path / "lite.json"
    path.write_text(json.dumps(lite))
    return path


def small_with(litellm):
    return build_catalog([("aa", SMALL / "aa_small.csv"), ("litellm", litellm)], "small", "2026-06-19")


TIERED = {  # hand-written per-token prices; the expected per-1M figures below are these x 1e6
    "input_cost_per_token_batches": 7.5e-08,
    "output_cost_per_token_batches": 3e-07,
    "cache_read_input_token_cost_batches": 3.75e-08,
    "input_cost_per_token_flex": 8e-08,
    "output_cost_per_token_flex": 3.2e-07,  # no cached price of its own: none written
    "input_cost_per_token_priority": 2.7e-07,
    "output_cost_per_token_priority": 1.08e-06,
    "cache_read_input_token_cost_priority": 1.35e-07,
    "input_cost_per_token_above_272k_tokens": 3e-07,
    "output_cost_per_token_above_272k_tokens": 1.2e-06,
    "cache_read_input_token_cost_above_272k_tokens": 1.5e-07,
    "input_cost_per_token_above_272k_tokens_batches": 1.5e-07,
    "output_cost_per_token_above_272k_tokens_batches": 6e-07,
    # priority: no above_272k price of its own, so none (the list's long-context price is not the tier's)
}


def test_litellm_tiers_and_long_context_prices_import_exactly(tmp_path):
    catalog, result = small_with(with_litellm(tmp_path, **{GROQ: TIERED}))
    validate(Catalog, catalog, "small.yaml")
    groq = next(o for o in catalog["offerings"] if o["id"] == "gpt-oss-120b@groq")
    assert groq["price"] == {
        "input": 0.15,
        "output": 0.6,
        "cached_input": 0.075,
        "long_context": {"above": 272000, "input": 0.3, "output": 1.2, "cached_input": 0.15},
    }
    assert groq["price_tiers"] == [
        {
            "name": "batch",
            "price": {
                "input": 0.075,
                "output": 0.3,
                "cached_input": 0.0375,
                "long_context": {"above": 272000, "input": 0.15, "output": 0.6},
            },
            "source": f"litellm '{GROQ}' *_batches prices; litellm states no window: 24 h",
        },
        {
            "name": "flex",
            "price": {"input": 0.08, "output": 0.32},
            "source": f"litellm '{GROQ}' *_flex prices; speed not measured: unknown",
        },
        {
            "name": "priority",
            "price": {"input": 0.27, "output": 1.08, "cached_input": 0.135},
            "source": f"litellm '{GROQ}' *_priority prices; speed not measured: the list speed",
        },
    ]
    assert groq["source"].endswith(
        f"price: litellm '{GROQ}'; tiers: litellm '{GROQ}' batch, flex, priority "
        "(speeds not measured: flex judged unknown, priority at the list speed)"
    )
    assert not [r for r in result.left_out if r[1].startswith(GROQ)]
    tiers = {t.name: t for t in Catalog.model_validate(catalog).offerings[0].price_tiers}
    assert all(t.speed is None and t.window_s is None for t in tiers.values())  # none measured, none stated
    assert tiers["batch"].window == 86400


def test_several_long_context_thresholds_take_the_lowest_complete_one(tmp_path):
    """Steps at 32k (input only: incomplete, listed), 128k and 256k: the catalog holds one threshold,
    and the lowest with both prices is taken."""
    steps = {
        "input_cost_per_token_above_32k_tokens": 2e-07,
        "input_cost_per_token_above_256k_tokens": 6e-07,
        "output_cost_per_token_above_256k_tokens": 2.4e-06,
        "input_cost_per_token_above_128k_tokens": 4e-07,
        "output_cost_per_token_above_128k_tokens": 1.6e-06,
        "cache_read_input_token_cost_above_128k_tokens": 4e-08,
    }
    catalog, result = small_with(with_litellm(tmp_path, **{GROQ: steps}))
    groq = next(o for o in catalog["offerings"] if o["id"] == "gpt-oss-120b@groq")
    assert groq["price"]["long_context"] == {"above": 128000, "input": 0.4, "output": 1.6, "cached_input": 0.04}
    assert "price_tiers" not in groq and "tiers:" not in groq["source"]
    why = {n: r for s, n, r in result.left_out if s == "litellm"}
    assert why[f"{GROQ} long context above 32000"] == "no usable input and output price (found 2e-07, None)"


def test_a_tier_with_a_bad_price_is_left_out_and_listed(tmp_path):
    bad = {
        "input_cost_per_token_batches": -7.5e-08,  # negative
        "output_cost_per_token_batches": 3e-07,
        "input_cost_per_token_flex": "cheap",  # not a number
        "output_cost_per_token_flex": 3e-07,
        "input_cost_per_token_priority": 2.7e-07,  # a good tier still imports
        "output_cost_per_token_priority": 1.08e-06,
        "cache_read_input_token_cost_priority": 1.35e-07,
    }
    over = {  # an entry with a usable list price
        "input_cost_per_token": 1e-06,
        "output_cost_per_token": 2e-06,
        "input_cost_per_token_batches": 1e-06,
        "output_cost_per_token_batches": 2.0,  # $2,000,000 per 1M: over the schema's limit
        "input_cost_per_token_flex": 1e-06,
        "output_cost_per_token_flex": 2e-06,
        "cache_read_input_token_cost_flex": float("nan"),  # json writes NaN; a bad cached price drops the tier too
    }
    catalog, result = small_with(with_litellm(tmp_path, **{GROQ: bad, "acme/over": over}))
    validate(Catalog, catalog, "small.yaml")
    groq = next(o for o in catalog["offerings"] if o["id"] == "gpt-oss-120b@groq")
    assert [t["name"] for t in groq["price_tiers"]] == ["priority"]
    assert groq["source"].endswith(
        "tiers: litellm 'groq/openai/gpt-oss-120b' priority (speeds not measured: priority at the list speed)"
    )
    why = {n: r for s, n, r in result.left_out if s == "litellm"}
    limit = ": a price is a number from 0 to 1,000,000 per 1M tokens"
    assert why[f"{GROQ} batch"] == "no usable input and output price (found -7.5e-08, 3e-07)" + limit
    assert why[f"{GROQ} flex"] == "no usable input and output price (found 'cheap', 3e-07)" + limit
    assert why["acme/over batch"] == "no usable input and output price (found 1e-06, 2.0)" + limit
    assert why["acme/over flex"] == "no usable cached-input price (found nan)" + limit
    assert why["acme/over"].startswith("no measured speed")  # the entry itself: as before


def test_an_entry_without_tiers_imports_as_before(tmp_path):
    """Tiers and long-context prices only add: with them stripped from the table, every offering is as
    it was, and an offering whose litellm entry has none carries no price_tiers and no long_context."""
    lite = json.loads((SMALL / "litellm_small.json").read_text())
    plain = {
        key: {k: v for k, v in entry.items() if not any(t in k for t in ("_batches", "_flex", "_priority", "_above_"))}
        for key, entry in lite.items()
    }
    (tmp_path / "plain.json").write_text(json.dumps(plain))
    tiered, _ = small_with(SMALL / "litellm_small.json")
    untiered, _ = small_with(tmp_path / "plain.json")
    assert [o["id"] for o in tiered["offerings"]] == [o["id"] for o in untiered["offerings"]]
    for a, b in zip(tiered["offerings"], untiered["offerings"]):
        assert "price_tiers" not in b and "long_context" not in b["price"] and "tiers:" not in b["source"]
        if "price_tiers" not in a:
            assert a == b and list(a) == list(b)  # the same keys in the same order: the same YAML
    kimi = next(o for o in tiered["offerings"] if o["id"] == "kimi-k2.6@fireworks")  # the one tiered entry
    assert [t["name"] for t in kimi["price_tiers"]] == ["priority"]
    left: list = []
    (price,) = [p for p in read_litellm(tmp_path / "plain.json", left) if p.key == GROQ]
    assert price.tiers == [] and price.long_context is None and not [r for r in left if r[1].startswith(GROQ)]


def test_every_tier_in_the_real_catalog_is_litellms_price(full):
    """Each tier of the catalog built from the whole files is its litellm entry's per-token prices x 1e6."""
    catalog, _ = full
    table = json.loads((FULL / "litellm_model_prices_and_context_window.json").read_text())
    suffix = {"batch": "_batches", "flex": "_flex", "priority": "_priority"}
    tiered = [o for o in catalog["offerings"] if "price_tiers" in o]
    assert len(tiered) > 50
    for o in tiered:
        key = o["source"].split("; tiers: litellm '")[1].split("'")[0]
        entry = table[key]
        for t in o["price_tiers"]:
            s = suffix[t["name"]]
            assert t["price"]["input"] == round(entry[f"input_cost_per_token{s}"] * 1e6, 6), (key, t["name"])
            assert t["price"]["output"] == round(entry[f"output_cost_per_token{s}"] * 1e6, 6), (key, t["name"])
            assert "speed" not in t and "window_s" not in t


def test_the_shipped_catalog_carries_gpt_5_4s_tiers():
    """gpt-5.4 on OpenAI, as litellm lists it: $2.50/$15; batch and flex at half, priority at double;
    above 272k input tokens $5/$22.50 (batch and flex: their own, half that; priority: none listed)."""
    by = {o.id: o for o in load_catalog(ROOT / "catalogs" / "aa-2026-06.yaml").offerings}
    gpt = by["gpt-5.4@openai"]
    assert (gpt.price.input, gpt.price.output, gpt.price.cached_input) == (2.5, 15.0, 0.25)
    lc = gpt.price.long_context
    assert (lc.above, lc.input, lc.output, lc.cached_input) == (272000, 5.0, 22.5, 0.5)
    tiers = {t.name: t for t in gpt.price_tiers}
    assert list(tiers) == ["batch", "flex", "priority"]
    assert (tiers["batch"].price.input, tiers["batch"].price.output) == (1.25, 7.5)
    assert tiers["batch"].price.cached_input == 0.13  # litellm's 1.3e-07, not half of 0.25
    assert tiers["batch"].price.long_context.above == 272000 and tiers["batch"].price.long_context.input == 2.5
    assert (tiers["flex"].price.input, tiers["flex"].price.output) == (1.25, 7.5)
    assert (tiers["priority"].price.input, tiers["priority"].price.output) == (5.0, 30.0)
    assert tiers["priority"].price.long_context is None
    assert all(t.speed is None for t in gpt.price_tiers)
    assert "tiers: litellm 'gpt-5.4-2026-03-05' batch, flex, priority" in gpt.source
