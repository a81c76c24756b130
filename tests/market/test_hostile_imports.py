"""Importers that drop nothing silently (issue 25): every entry of litellm's table, OpenRouter's
listings and the Artificial Analysis table that does not become an offering is listed in the left-out
list with its reason, and a context length, rate limit, cached price or discount that is given but not
a number in its range leaves its entry out, listed: never read as "no limit" or as nothing given."""

from __future__ import annotations

import csv
import io
import json

import pytest
from conftest import DATA
from typer.testing import CliRunner

from planner.cli.app import app
from planner.market.catalog_import import build_catalog

runner = CliRunner()
SMALL = DATA / "sources"
FETCHED = DATA / "fetch"
GROQ = "groq/openai/gpt-oss-120b"  # a litellm entry the small AA table's Groq row takes its price from
AA_GROQ = "Groq / gpt-oss-120b (high)"


def left_out(result, source: str) -> dict[str, str]:
    return {name: reason for s, name, reason in result.left_out if s == source}


def litellm_with(tmp_path, **entries) -> list:
    lite = json.loads((SMALL / "litellm_small.json").read_text())
    for key, fields in entries.items():
        lite[key] = fields if not isinstance(fields, dict) else {**lite.get(key, {}), **fields}
    path = tmp_path / "lite.json"
    path.write_text(json.dumps(lite))  # json writes inf and nan as Infinity and NaN, as Python's json reads them
    return [("aa", SMALL / "aa_small.csv"), ("litellm", path)]


# ----------------------------------------------------------------------------- litellm


@pytest.mark.parametrize(
    "value, shown", [(float("inf"), "inf"), (-1, "-1"), (0, "0"), (1e30, "1e+30"), ("many", "'many'")]
)
def test_a_litellm_context_length_that_is_no_number_of_tokens_leaves_the_entry_out(tmp_path, value, shown):
    """Before: Infinity, -1, 0, 1e30 or text were read as "no limit" (no context window), silently."""
    catalog, result = build_catalog(litellm_with(tmp_path, **{GROQ: {"max_input_tokens": value}}), "t")
    assert left_out(result, "litellm")[GROQ] == f"context length {shown} is not a positive number of tokens up to 10^10"
    groq = next(o for o in catalog["offerings"] if o["id"] == "gpt-oss-120b@groq")
    assert "litellm" not in groq.get("gateway", {}) and "price: Artificial Analysis" in groq["source"]


def test_litellm_rate_limits_and_cached_prices_that_are_no_numbers_leave_the_entry_out(tmp_path):
    """Before: a rate limit of -5 or 0 was read as none (unlimited capacity), a negative or NaN cached
    price as none (billed at the input price), silently."""
    entries = {
        GROQ: {"rpm": -5},
        "cerebras/gpt-oss-120b": {"tpm": 0},
        "moonshot/kimi-k2.6": {"cache_read_input_token_cost": -1e-7},
        "novita/openai/gpt-oss-120b": {"cache_read_input_token_cost": float("nan")},
    }
    catalog, result = build_catalog(litellm_with(tmp_path, **entries), "t")
    why = left_out(result, "litellm")
    assert why[GROQ] == "rpm -5 is not a positive number of requests a minute"
    assert why["cerebras/gpt-oss-120b"] == "tpm 0 is not a positive number of tokens a minute"
    assert why["moonshot/kimi-k2.6"] == "no usable cached-input price (found -1e-07)"
    assert why["novita/openai/gpt-oss-120b"] == "no usable cached-input price (found nan)"
    gateways = {o.get("gateway", {}).get("litellm") for o in catalog["offerings"]}
    assert not gateways & {GROQ, "cerebras/gpt-oss-120b", "moonshot/kimi-k2.6", "novita/openai/gpt-oss-120b"}


def test_every_litellm_entry_is_imported_or_listed(tmp_path):
    """Before: entries of other modes (embeddings, images...), entries with no mode, litellm's
    sample_spec and entries that are not objects were skipped without a word."""
    entries = {
        "acme/embed": {"mode": "embedding", "input_cost_per_token": 1e-7, "output_cost_per_token": 0},
        "acme/nomode": {"input_cost_per_token": 1e-7, "output_cost_per_token": 1e-7},
        "sample_spec": {"mode": "one of: chat, embedding", "input_cost_per_token": 0, "output_cost_per_token": 0},
        "acme/list": [1, 2],
    }
    sources = litellm_with(tmp_path, **entries)
    catalog, result = build_catalog(sources, "t")
    why = left_out(result, "litellm")
    assert why["acme/embed"] == "mode 'embedding', not chat: the planner prices chat calls"
    assert why["acme/nomode"] == "no mode: not known to be a chat model"
    assert why["sample_spec"] == "litellm's sample entry, which documents the fields: not a model"
    assert why["acme/list"] == "not a model entry (found a list)"
    table = json.loads(sources[1][1].read_text())
    sources_text = " ".join(o["source"] for o in catalog["offerings"])
    for key in table:
        assert key in why or f"litellm '{key}'" in sources_text, key


def test_the_left_out_csv_beside_the_catalog_lists_them(tmp_path):
    sources = litellm_with(tmp_path, **{GROQ: {"max_input_tokens": -1}, "acme/embed": {"mode": "embedding"}})
    out = tmp_path / "cat.yaml"
    args = ["catalog", "import", "aa", str(sources[0][1]), f"litellm:{sources[1][1]}", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO((tmp_path / "cat.left-out.csv").read_text())))
    assert ["litellm", GROQ, "context length -1 is not a positive number of tokens up to 10^10"] in rows
    assert ["litellm", "acme/embed", "mode 'embedding', not chat: the planner prices chat calls"] in rows
    assert "left out: 1 from litellm: context length -1 is not a positive number of tokens" in result.stderr


# ----------------------------------------------------------------------------- OpenRouter


def openrouter_with(tmp_path, **fields) -> list:
    router = json.loads((SMALL / "openrouter_small.json").read_text())
    model = next(m for m in router["data"] if m["id"] == "openai/gpt-oss-120b")
    for key, value in fields.items():
        if key == "input_cache_read":
            model["pricing"][key] = value
        else:
            model[key] = value
    path = tmp_path / "router.json"
    path.write_text(json.dumps(router))
    return [("aa", SMALL / "aa_small.csv"), ("openrouter", path)]


@pytest.mark.parametrize("value, shown", [(-1, "-1"), (1e30, "1e+30"), (float("inf"), "inf"), ("long", "'long'")])
def test_an_openrouter_context_length_that_is_no_number_of_tokens_leaves_the_model_out(tmp_path, value, shown):
    """Before: -1 and 1e30 were read as "no limit": the offering imported with no context window."""
    catalog, result = build_catalog(openrouter_with(tmp_path, context_length=value), "t")
    why = left_out(result, "openrouter")
    assert why["openai/gpt-oss-120b"] == f"context length {shown} is not a positive number of tokens up to 10^10"
    assert "openai/gpt-oss-120b@openrouter" not in {o["id"] for o in catalog["offerings"]}


def test_an_openrouter_cached_price_that_is_no_price_leaves_the_model_out(tmp_path):
    catalog, result = build_catalog(openrouter_with(tmp_path, input_cache_read="-1"), "t")
    assert left_out(result, "openrouter")["openai/gpt-oss-120b"] == "no usable cached-input price (found '-1')"
    assert "openai/gpt-oss-120b@openrouter" not in {o["id"] for o in catalog["offerings"]}


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("context_length", -1, "context length -1 is not a positive number of tokens up to 10^10"),
        ("context_length", 1e30, "context length 1e+30 is not a positive number of tokens up to 10^10"),
        ("discount", 5, "discount 5 is not a fraction from 0 to 1"),
        ("discount", -0.5, "discount -0.5 is not a fraction from 0 to 1"),
        ("input_cache_read", "-0.1", "no usable cached-input price (found '-0.1')"),
    ],
)
def test_an_openrouter_endpoint_with_a_figure_out_of_range_is_left_out(tmp_path, field, value, words):
    """Before: a context of -1 or 1e30 was no limit, a discount of 5 or -0.5 was clamped to 1 or 0 (a
    price invented), a negative cached price was dropped, silently."""
    data = json.loads((FETCHED / "openrouter" / "endpoints" / "openai" / "gpt-oss-120b.json").read_text())
    ep = next(e for e in data["data"]["endpoints"] if e["tag"] == "cerebras")
    if field == "context_length":
        ep[field] = value
    else:
        ep["pricing"][field] = value
    path = tmp_path / "gpt-oss-120b.json"
    path.write_text(json.dumps(data))
    catalog, result = build_catalog([("openrouter", path), ("aa", FETCHED / "aa" / "llms_models.json")], "t")
    assert left_out(result, "openrouter")["openai/gpt-oss-120b @ cerebras"] == words
    ids = {o["id"] for o in catalog["offerings"]}
    assert "openai/gpt-oss-120b@openrouter:cerebras" not in ids and "openai/gpt-oss-120b@openrouter:groq" in ids


# ----------------------------------------------------------------------------- Artificial Analysis


def aa_with(tmp_path, edit) -> list:
    rows = list(csv.reader(io.StringIO((SMALL / "aa_small.csv").read_text(encoding="utf-8"))))
    edit(rows)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path = tmp_path / "aa.csv"
    path.write_text(buf.getvalue(), encoding="utf-8")
    return rows


def _groq_row(rows) -> int:
    host, model = rows[0].index("host_name"), rows[0].index("model_name")
    return next(i for i, r in enumerate(rows) if i and f"{r[host]} / {r[model]}" == AA_GROQ)


@pytest.mark.parametrize(
    "value, shown", [("-1", "-1"), ("0", "0"), ("inf", "inf"), ("lots", "'lots'"), ("1e30", "1e+30")]
)
def test_an_aa_context_window_that_is_no_number_of_tokens_leaves_the_row_out(tmp_path, value, shown):
    """Before: the row imported with no context window (or the model's, for the row's own column)."""

    def edit(rows):
        rows[_groq_row(rows)][rows[0].index("context_window_if_different_to_model")] = value

    aa_with(tmp_path, edit)
    catalog, result = build_catalog([("aa", tmp_path / "aa.csv")], "t")
    assert left_out(result, "aa")[AA_GROQ] == f"context length {shown} is not a positive number of tokens up to 10^10"
    assert "gpt-oss-120b@groq" not in {o["id"] for o in catalog["offerings"]}


def test_a_one_field_aa_row_is_listed(tmp_path):
    aa_with(tmp_path, lambda rows: rows.append(["Groq"]))
    _, result = build_catalog([("aa", tmp_path / "aa.csv")], "t")
    short = [(n, r) for n, r in left_out(result, "aa").items() if n.startswith("row ")]
    assert short == [
        (f"row {len((tmp_path / 'aa.csv').read_text().splitlines())}", "short row: no host_name or model_name")
    ]


@pytest.mark.parametrize("values, words", [(["-1"], "not all numbers from 0"), ([""], "incomplete")])
def test_aa_percentiles_that_are_no_measurement_are_said(tmp_path, values, words):
    """Before: a negative or missing percentile among measured ones dropped the row's percentiles
    without a word (the row is judged at its medians, as when none are measured)."""

    def edit(rows):
        rows[_groq_row(rows)][rows[0].index("p05_output_speed")] = values[0]

    aa_with(tmp_path, edit)
    catalog, result = build_catalog([("aa", tmp_path / "aa.csv")], "t")
    reason = left_out(result, "aa")[AA_GROQ]
    assert reason.startswith(f"output speed percentiles {words}") and reason.endswith(": judged at the median")
    groq = next(o for o in catalog["offerings"] if o["id"] == "gpt-oss-120b@groq")
    assert "output_tps" not in groq["speed"].get("percentiles", {})


@pytest.mark.parametrize("meta", ["[]", "3", '{"scrape_date": 7}', '"x"'])
def test_a_scrape_metadata_file_of_another_shape_gives_no_date_not_a_crash(tmp_path, meta):
    from planner.market.provenance import aa_as_of

    (tmp_path / "aa_scrape_meta.json").write_text(meta)
    assert aa_as_of(tmp_path / "aa.csv") is None
