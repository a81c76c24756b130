"""One identity per endpoint (planner.market.identity): which litellm entry an Artificial Analysis row is, by
explicit rules, on the issue's cases in the real files, and what is not sold today (deprecated, preview)."""

import csv
from functools import cache

import pytest
from conftest import ROOT

from planner.market.identity import Alias, LitellmIndex, match_litellm, strict_name
from planner.market.sources.records import AARow, Price
from planner.model.load import load_catalog

CATALOGS = ROOT / "catalogs"


@cache
def shipped():
    return {o.id: o for o in load_catalog(CATALOGS / "aa-2026-06.yaml").offerings}


@cache
def rows(name: str) -> list[dict]:
    with open(CATALOGS / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_a_reasoning_row_is_priced_by_litellms_thinking_entry_not_the_instruct_one():
    o = shipped()["qwen3-vl-235b-a22b@alibaba"]
    assert (o.price.input, o.price.output) == (0.4, 4.0)
    assert o.gateway["litellm"] == "dashscope/qwen3-vl-235b-a22b-thinking"
    assert "'dashscope/qwen3-vl-235b-a22b-thinking'" in o.source


def test_an_alias_that_moved_to_a_newer_model_prices_nothing():
    medium = shipped()["mistral-medium@mistral"]  # the 2023 model: Artificial Analysis's own price
    assert (medium.price.input, medium.price.output) == (2.75, 8.1)
    assert "litellm" not in medium.gateway and medium.context_window != 262144
    three = shipped()["mistral-medium-3@mistral"]  # litellm's mistral-medium-3 entries describe Medium 3.5
    assert (three.price.input, three.price.output) == (0.4, 2.0)
    said = {r["offering"]: r["note"] for r in rows("aa-2026-06.identities.csv")}
    assert said["mistral-medium@mistral"].startswith("refused litellm 'mistral/mistral-medium-latest'")
    assert "262,144" in said["mistral-medium-3@mistral"]


def test_a_dated_release_is_priced_by_its_dated_snapshot():
    may = shipped()["gpt-4o-may-24@openai"]
    assert (may.price.input, may.price.output) == (5.0, 15.0)
    assert may.gateway["litellm"] == "openai/gpt-4o-2024-05-13"
    left = {r["name"]: r["reason"] for r in rows("aa-2026-06.left-out.csv") if r["source"] == "litellm"}
    assert "gpt-4o-2024-05-13" not in left  # used, so not "no Artificial Analysis row"


def test_a_deprecated_endpoint_is_left_out_with_its_date():
    assert "kimi-k2-thinking@microsoft" not in shipped()
    why = {r["name"]: r["reason"] for r in rows("aa-2026-06.left-out.csv") if r["source"] == "aa"}
    assert why["Microsoft Azure / Kimi K2 Thinking"].startswith(
        "deprecated: litellm 'azure_ai/kimi-k2-thinking' gives a deprecation date of 2026-03-29, on or before "
        "the catalog's date 2026-06-19"
    )
    assert why["Google (AI Studio) / Gemini 3.1 Pro Preview"].startswith("a preview model")


def test_every_offering_from_a_table_row_is_in_the_identity_report():
    report = rows("aa-2026-06.identities.csv")
    from_rows = {r["offering"] for r in report if r["source"] == "aa"}
    measured = {i for i, o in shipped().items() if o.vendor != "openrouter"}
    assert measured <= from_rows
    rules = {r["rule"] for r in report if r["litellm"]}
    assert rules <= {"alias table", "release date", "host model id", "name"}
    assert all(r["note"] for r in report if r["source"] == "aa" and not r["litellm"] and r["rule"])


def _row(model: str, host: str = "Mistral", **kw) -> AARow:
    return AARow(host, model, 1.0, 2.0, None, 100.0, 0.5, kw.pop("context", 128000), {"overall": 30.0}, False, 2, **kw)


def _price(key: str, provider: str = "mistral", inp: float = 1.0, context: int = 128000) -> Price:
    return Price(key, provider, key, inp, 2 * inp, None, context)


def test_candidates_that_differ_are_ambiguous_never_the_shortest_key():
    index = LitellmIndex([_price("mistral/small-x"), _price("mistral/small-x-latest", inp=3.0)])
    got = match_litellm(_row("Small X"), index)
    assert got.price is None and got.note.startswith("ambiguous: litellm entries 'mistral/small-x'")
    same = LitellmIndex([_price("mistral/small-x"), _price("mistral/small-x-latest")])
    assert match_litellm(_row("Small X"), same).price.key == "mistral/small-x"  # one price under two keys


def test_rules_apply_in_order_and_words_are_kept():
    index = LitellmIndex(
        [_price("mistral/m-1-instruct"), _price("mistral/m-1-2025-01-02", inp=5.0), _price("mistral/m-1")]
    )
    assert match_litellm(_row("M 1", host_model="m-1", released="2025-01-02"), index).rule == "release date"
    assert match_litellm(_row("M 1", host_model="m-1"), index).price.key == "mistral/m-1"
    assert match_litellm(_row("M 1 (Reasoning)"), index).price.key == "mistral/m-1"  # the effort is no name word
    assert strict_name("Qwen3 VL 235B A22B Instruct") == "qwen3-vl-235b-a22b-instruct"
    assert match_litellm(_row("M 2"), index).price is None


def test_the_alias_table_decides_first(monkeypatch):
    import planner.market.identity as identity

    table = {"Mistral / M 1": Alias(None, "reviewed: another model"), "Mistral / M 2": Alias("mistral/m-1", "same")}
    monkeypatch.setattr(identity, "aliases", lambda: table)
    index = LitellmIndex([_price("mistral/m-1")])
    assert (
        match_litellm(_row("M 1", host_model="m-1"), index).note
        == "alias table: no litellm entry (reviewed: another model)"
    )
    assert match_litellm(_row("M 2"), index).rule == "alias table"


@pytest.mark.parametrize("ratio, used", [(1.4, True), (2.0, False)])
def test_a_latest_alias_whose_context_moved_is_refused(ratio, used):
    index = LitellmIndex([_price("mistral/m-latest", context=int(128000 * ratio))])
    got = match_litellm(_row("M", host_model="m-latest"), index)
    assert (got.price is not None) == used


def test_an_aggregator_offering_counts_for_the_companies_behind_it():
    nano = shipped()["openai/gpt-5.4-nano@openrouter"]
    assert (nano.vendor, nano.host, nano.served_by) == ("openrouter", "openrouter", ["openai"])
    assert nano.companies == ("openrouter", "openai") and nano.down_without("openai")
    several = next(o for o in shipped().values() if len(o.served_by) > 1)
    assert not several.down_without(several.served_by[0])  # OpenRouter routes around one of several hosts
    assert several.down_without("openrouter")


def test_one_endpoint_is_one_offering_with_one_limit():
    flash = shipped()["gemini-3.5-flash@google"]  # Artificial Analysis's "Google" and "Google AI Studio" rows
    assert [m.name for m in flash.modes] == ["medium", "high"] and flash.model == "Gemini 3.5 Flash (minimal)"
    assert "gemini-3.5-flash@google-ai-studio" not in shipped()
    limited = [o.gateway["litellm"] for o in shipped().values() if o.capacity and "litellm" in o.gateway]
    assert len(limited) == len(set(limited))  # no two offerings hold one litellm entry's rate limit twice
