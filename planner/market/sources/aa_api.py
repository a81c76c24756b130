"""The Artificial Analysis API's saved JSON (GET /api/v2/data/llms/models): one row per model, which rates
models (its scores) and is never an offering, as it names no host."""

from __future__ import annotations

from pathlib import Path

from planner.core.errors import InputError
from planner.market.reasoning import reasoning_by_name
from planner.market.sources.figures import num
from planner.market.sources.records import AARow

# The Artificial Analysis API's evaluation fields for each catalog metric (GET /api/v2/data/llms/models).
API_METRICS = {
    "overall": "artificial_analysis_intelligence_index",
    "gpqa": "gpqa",
    "mmlu_pro": "mmlu_pro",
    "livecodebench": "livecodebench",
}
API_PER_MODEL = (
    "per model, not per host: the Artificial Analysis API gives one speed and price per model and names no "
    "host they stand for, so it is no offering (its scores still rate OpenRouter endpoints of the model)"
)


def read_aa_api(path: Path, data, left: list | None = None) -> list[AARow]:
    """A saved Artificial Analysis API response (`GET /api/v2/data/llms/models`): one row per model, with
    its scores, median output speed, median first-token time and the thinking between the first token
    and the first answer token. The API names no host (a model's figures are its creator's API or a median
    over hosts, and the response does not say which), so each row is `per_model`: its scores rate models,
    it is never an offering. A reasoning model whose first answer token comes with its first token (a host
    that does not stream thinking) has its thinking hidden in that time: unknown, not 0."""
    left = [] if left is None else left
    models = data.get("data") if isinstance(data, dict) else None
    if not isinstance(models, list):
        raise InputError.single(
            str(path),
            "data",
            'expected an Artificial Analysis API response (GET /api/v2/data/llms/models): {"data": [...]}',
        )
    rows = []
    for i, m in enumerate(models):
        name = m.get("name") if isinstance(m, dict) else None
        if not isinstance(name, str) or not name.strip():
            left.append(("aa", f"data[{i}]", "not a model entry with a name"))
            continue
        evaluations = m.get("evaluations") if isinstance(m.get("evaluations"), dict) else {}
        caps = {}
        for metric, key in API_METRICS.items():
            x = num(evaluations.get(key))
            if x is not None:
                caps[metric] = round(x if metric == "overall" or x > 1 else 100 * x, 4)
        pricing = m.get("pricing") if isinstance(m.get("pricing"), dict) else {}
        creator = m.get("model_creator") if isinstance(m.get("model_creator"), dict) else {}
        first = num(m.get("median_time_to_first_token_seconds"))
        answer = num(m.get("median_time_to_first_answer_token"))
        reasoning = reasoning_by_name(name)
        thinking = None if first is None or answer is None else max(0.0, answer - first)
        if reasoning and thinking == 0:
            thinking = None  # hidden in the first-token time, with nothing to tell it from the input time
        rows.append(
            AARow(
                "",
                name.strip(),
                num(pricing.get("price_1m_input_tokens")),
                num(pricing.get("price_1m_output_tokens")),
                None,
                num(m.get("median_output_tokens_per_second")),
                first,
                None,
                caps,
                False,
                i,
                str(creator.get("name") or "").strip() or None,
                reasoning,
                thinking,
                per_model=True,
            )
        )
        left.append(("aa", name.strip(), API_PER_MODEL))
    return rows
