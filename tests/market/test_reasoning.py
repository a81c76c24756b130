"""Reasoning read from a model's name where the scrape has no `model_reasoning_model` column
(planner.market.reasoning), checked against the column of the 2026-06-19 scrape that has it.

aa_no_reasoning_column.csv: six rows of catalogs/sources/aa_providers_leaderboard.csv (lines 68, 134, 451,
527, 689, 732), 13 of its columns copied as written, the reasoning column left out."""

import csv

import pytest
from conftest import DATA, ROOT

from planner.market.catalog_import import build_catalog
from planner.market.names import split_effort, thinks
from planner.market.reasoning import REASONING_MODELS, reasoning_by_name, said_in_name

JUNE = ROOT / "catalogs" / "sources" / "aa_providers_leaderboard.csv"
NO_COLUMN = DATA / "sources" / "aa_no_reasoning_column.csv"


def _june() -> dict[str, bool]:
    with open(JUNE, newline="", encoding="utf-8") as fh:
        return {r["model_name"].strip(): r["model_reasoning_model"] == "True" for r in csv.DictReader(fh)}


@pytest.mark.parametrize(
    "name, reasoning",
    [
        ("o3", True),
        ("Gemini 3.1 Pro Preview", True),
        ("gemini 3.1  pro preview", True),  # letter case and spaces aside
        ("Kimi K2 Thinking", True),
        ("Qwen3 Max Thinking (Preview)", True),  # a qualifier that is no effort: the word decides
        ("Nemotron 3 Nano Omni 30B A3B Reasoning", True),
        ("DeepSeek V4 Flash (Reasoning, High Effort)", True),
        ("gpt-oss-120b (high)", True),
        ("GLM-5 (Non-reasoning)", False),
        ("GPT-5.4 mini (Non-Reasoning)", False),
        ("Kimi K2.6 (Non-reasoning)", False),  # listed, but its qualifier says otherwise
        ("GPT-4.1", False),
        ("o4", False),  # not listed: the rule guesses no family
    ],
)
def test_a_name_says_whether_the_model_thinks(name, reasoning):
    assert reasoning_by_name(name) is reasoning


def test_the_reviewed_list_is_what_the_column_says_and_the_name_does_not():
    june = _june()
    unnamed = {n.lower() for n, r in june.items() if r and said_in_name(n) is None}
    assert unnamed == REASONING_MODELS and len(REASONING_MODELS) == 33
    assert not any(said_in_name(n) is None and n.lower() in REASONING_MODELS for n, r in june.items() if not r)
    differ = sorted(n for n, r in june.items() if reasoning_by_name(n) != r)
    # Artificial Analysis marks its minimal-effort GPT-5 rows as non-reasoning; "minimal" is an effort
    # qualifier, so the name rule (as before) calls them reasoning.
    assert differ == ["GPT-5 (minimal)", "GPT-5 mini (minimal)", "GPT-5 nano (minimal)", "Gemini 3.5 Flash (minimal)"]


def test_o3_and_gemini_3_1_pro_preview_import_as_reasoning_from_a_scrape_without_the_column():
    assert not thinks(split_effort("o3")[1]) and not thinks(split_effort("Gemini 3.1 Pro Preview")[1])  # the old rule
    catalog, result = build_catalog([("aa", NO_COLUMN)], "older", include=frozenset({"preview"}))
    why = {n: r for _, n, r in result.left_out}
    assert "reviewed list of reasoning models" in why["column model_reasoning_model"]
    offerings = {o["id"]: o for o in catalog["offerings"]}
    assert set(offerings) == {
        "o3@openai",
        "gemini-3.1-pro-preview@google",
        "gpt-4.1@openai",
        "gemini-2.5-flash@google",
        "kimi-k2-thinking@novita",
        "glm-5@baseten",
    }
    thinking = {k for k, o in offerings.items() if "thinking" in o}
    assert thinking == {"o3@openai", "gemini-3.1-pro-preview@google", "kimi-k2-thinking@novita"}
    # o3 and Gemini stream no thinking on these hosts (ttft_reasoning_time 0): their first-token time
    # holds it, split by the host's non-reasoning row (GPT-4.1, Gemini 2.5 Flash (Non-reasoning))
    o3, gpt41 = offerings["o3@openai"], offerings["gpt-4.1@openai"]
    assert o3["speed"]["ttft_s"] == gpt41["speed"]["ttft_s"]
    assert o3["speed"]["ttft_s"] + o3["thinking"]["seconds"] == pytest.approx(7.87813367249964, abs=0.002)
    assert {"thinking.seconds", "thinking.tokens"} <= set(o3["estimated"])
