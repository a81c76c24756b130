"""Whether a model thinks before it answers, from its name alone: for an Artificial Analysis table that
lacks the `model_reasoning_model` column (an older scrape) and for the API's models, which carry no such
field. The rule is small and explicit (SPEC "Rescales and rounding"): an effort qualifier decides; else
the word Thinking or Reasoning in the name; else the reviewed list below."""

from __future__ import annotations

import re

from planner.market.names import split_effort, thinks

# Models that Artificial Analysis marks as reasoning models (`model_reasoning_model` True) in its
# providers table of 2026-06-19 (catalogs/sources/aa_providers_leaderboard.csv) although their names
# carry no effort qualifier and no Thinking or Reasoning: every such name in that table, reviewed by
# tests/market/test_reasoning.py against the file. Without the column, "o3" and "Gemini 3.1 Pro Preview"
# would otherwise import as models that do not think.
REASONING_MODELS = frozenset(
    name.lower()
    for name in (
        "DeepSeek R1 (Jan '25)",
        "DeepSeek R1 0528 (May '25)",
        "DeepSeek R1 Distill Llama 70B",
        "GLM-4.5-Air",
        "Gemini 2.5 Pro",
        "Gemini 3.1 Flash-Lite",
        "Gemini 3.1 Pro Preview",
        "Grok 4",
        "Kimi K2.6",
        "LFM2.5-8B-A1B",
        "Magistral Medium 1.2",
        "Magistral Small 1.2",
        "MiMo-V2-Pro",
        "MiniMax M1 80k",
        "MiniMax-M2",
        "MiniMax-M2.1",
        "MiniMax-M2.5",
        "MiniMax-M2.7",
        "MiniMax-M3",
        "Mistral Medium 3.5",
        "QwQ 32B",
        "Qwen3.6 Max Preview",
        "Qwen3.6 Plus",
        "Qwen3.7 Max",
        "Qwen3.7 Plus",
        "Ring-2.6-1T",
        "Seed-OSS-36B-Instruct",
        "Step 3.5 Flash",
        "o1",
        "o1-preview",
        "o3",
        "o3-mini",
        "o3-pro",
    )
)

_THINKING_WORD = re.compile(r"(?<![\w-])(thinking|reasoning)\b", re.IGNORECASE)  # not "Non-reasoning"


def reasoning_by_name(model: str) -> bool:
    """Whether a model named `model` is a reasoning model, read from its name: as its words say
    (said_in_name), else whether the name is in REASONING_MODELS ("o3", "Gemini 3.1 Pro Preview"),
    letter case and runs of spaces aside."""
    said = said_in_name(model)
    return said if said is not None else " ".join(model.lower().split()) in REASONING_MODELS


def said_in_name(model: str) -> bool | None:
    """What a model's name says of its reasoning, or None when it says nothing: its effort qualifier when
    it has one ("(high)", "(Reasoning, Max Effort)" think, "(Non-reasoning)" does not); else True for the
    word Thinking or Reasoning in the name ("Kimi K2 Thinking", "Claude 3.7 Sonnet Thinking")."""
    qualifier = split_effort(model)[1]
    if qualifier is not None:
        return thinks(qualifier)
    return True if _THINKING_WORD.search(model) else None
