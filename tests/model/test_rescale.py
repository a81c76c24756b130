"""The rescale detector (planner.model.rescale): on the real Artificial Analysis scrapes and on cases made
by hand. The scrapes (catalogs/sources/PROVENANCE.md): an excerpt of 2026-05-04 (36 models' scores as
published), the 2026-06-19 one (the shipped catalog) and the 2025-05-31 one (its index on another scale)."""

import csv
import random

import pytest
from conftest import ROOT

from planner.model.rescale import find_rescale, matched, model_scores, rounding_noise
from planner.model.schema import Catalog

SOURCES = ROOT / "catalogs" / "sources"
COLUMNS = {
    "overall": "model_intelligence_index",
    "gpqa": "model_gpqa",
    "mmlu_pro": "model_mmlu_pro",
    "livecodebench": "model_livecodebench",
}


def may_scores() -> dict[str, dict[str, float]]:
    """Metric -> model -> score of the 2026-05-04 excerpt, as the importer reads them (a fraction x100)."""
    out: dict[str, dict[str, float]] = {}
    with open(SOURCES / "aa_scores_2026-05-04_excerpt.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            for metric, column in COLUMNS.items():
                if r[column]:
                    x = float(r[column])
                    out.setdefault(metric, {})[r["model_name"]] = x if metric == "overall" else round(100 * x, 4)
    return out


@pytest.fixture(scope="module")
def june() -> dict[str, dict[str, float]]:
    """Metric -> model -> score of the 2026-06-19 scrape, read from the table (every model it scores,
    whatever the importer keeps), a model scored two ways left out, as model_scores does."""
    seen: dict[str, dict[str, set[float]]] = {}
    with open(SOURCES / "aa_providers_leaderboard.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            for metric, column in COLUMNS.items():
                if r[column]:
                    x = float(r[column])
                    score = x if metric == "overall" else round(100 * x, 4)
                    seen.setdefault(metric, {}).setdefault(r["model_name"].strip(), set()).add(score)
    return {m: {k: next(iter(v)) for k, v in models.items() if len(v) == 1} for m, models in seen.items()}


def test_the_may_to_june_index_is_a_rescale_though_not_by_one_factor(june):
    may = may_scores()
    pairs = matched(may["overall"], june["overall"])
    assert len(pairs) == 28  # 32 of the excerpt's models have an index; 4 are not in the June scrape
    assert ("gpt-oss-120B (low)", 24.47, 17.704908301045) in pairs  # names matched regardless of letter case
    assert all(a < b for _, b, a in pairs)  # every shared model down
    r = find_rescale("overall", pairs, rounding=0.01)
    assert r is not None and not r.declared
    assert (r.factor, r.scores, r.within, r.low, r.high) == pytest.approx(
        (0.744934, 28, 17, 0.48155, 0.861435), abs=1e-5
    )
    assert r.low < 0.85 * r.factor  # the v1.2 test (the middle 80% within 15%) refused it
    assert len(r.differs) == 11  # the weaker models lost more: Gemma 3 4B x0.178, Llama 3.2 11B x0.382 ...
    assert r.line() == (
        "capability.overall rescaled x0.745 (28 models, 17 within 15% of it, middle 80% of ratios 0.482-0.861; "
        "not declared; 11 scores differ from it)"
    )


def test_the_may_to_june_benchmarks_moved_by_rounding_only(june):
    may = may_scores()
    for metric in ("gpqa", "mmlu_pro", "livecodebench"):
        pairs = matched(may[metric], june[metric])
        assert len(pairs) >= 20
        assert rounding_noise(pairs, 0.1) == sum(1 for _, b, a in pairs if a != b) == len(pairs)
        assert find_rescale(metric, pairs, rounding=0.1) is None
    assert rounding_noise(matched(may["gpqa"], june["gpqa"]), 0.0001) == 0  # read as 0.0001: all changes


def test_the_2025_index_against_2026_has_no_common_factor(june):
    """Every shared model is down (x0.12 to x0.43), but the ratios are scattered: no rescale, each score a
    change (the 2025 index is another composition of benchmarks, not the 2026 one times a factor)."""
    seen: dict[str, set[float]] = {}
    with open(SOURCES / "aa_provider_performance_2025-05-31.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            if r["intelligence_index"] != "N/A":
                seen.setdefault(r["model_name_scraped"].strip(), set()).add(float(r["intelligence_index"]))
    old = {m: next(iter(s)) for m, s in seen.items() if len(s) == 1}  # a model scored two ways: left out
    pairs = matched(old, june["overall"])
    assert len(pairs) == 46 and all(a < b for _, b, a in pairs)
    ratios = sorted(a / b for _, b, a in pairs)
    assert ratios[0] == pytest.approx(0.1219, abs=1e-4) and ratios[-1] == pytest.approx(0.4343, abs=1e-4)
    assert find_rescale("overall", pairs) is None
    factor = (ratios[22] + ratios[23]) / 2
    assert factor == pytest.approx(0.2084, abs=1e-4)
    assert sum(1 for x in ratios if abs(x - factor) <= 0.15 * factor) == 15  # under half of 46


def _pairs(ratios: list[float], seed: int = 27) -> list[tuple[str, float, float]]:
    rng = random.Random(seed)
    out = []
    for i, ratio in enumerate(ratios):
        before = round(rng.uniform(10, 70), 2)
        out.append((f"m{i}", before, round(before * ratio, 4)))
    return out


def test_a_rescale_is_found_though_a_fifth_of_the_models_really_changed():
    rng = random.Random(8)
    moved = [0.8 * (1 + rng.uniform(-0.03, 0.03)) for _ in range(40)]
    changed = [rng.choice([rng.uniform(0.4, 0.6), rng.uniform(1.05, 1.5)]) for _ in range(10)]  # up or far down
    r = find_rescale("overall", _pairs(moved + changed), rounding=0.01)
    assert r is not None and r.factor == pytest.approx(0.8, abs=0.01) and r.scores == 50
    assert r.within >= 40 and set(r.differs) == {f"m{i}" for i in range(40, 50)}


def test_scattered_ratios_are_no_rescale():
    rng = random.Random(9)
    down = [rng.uniform(0.3, 1.0) for _ in range(50)]  # every score down, but by anything from 0% to 70%
    assert find_rescale("overall", _pairs(down)) is None
    both = [rng.uniform(0.6, 1.4) for _ in range(50)]
    assert find_rescale("overall", _pairs(both)) is None
    half = [0.75] * 25 + [1.0] * 25  # half moved together, half did not: the median sits between them
    assert find_rescale("overall", _pairs(half)) is None


def test_a_model_counts_once_whatever_its_hosts_and_modes():
    def catalog(*offerings):
        return Catalog.model_validate({"catalog": "c", "offerings": list(offerings)})

    def offering(oid, model, score, modes=()):
        return {
            "id": oid,
            "model": model,
            "vendor": "v",
            "capability": {"overall": score},
            "price": {"input": 1.0, "output": 1.0},
            "speed": {"output_tps": 100.0, "ttft_s": 0.5},
            "modes": list(modes),
        }

    high = {"name": "high", "model": "M (high)", "capability": {"overall": 60.0}}
    bare = {"name": "low", "capability": {"overall": 40.0}}  # no model of its own: it would be M's
    scores = model_scores(
        catalog(
            offering("m@a", "M", 50.0, [high]),
            offering("m@b", "M", 50.0, [high]),
            offering("n@a", "N", 30.0),
            offering("n@b", "N", 31.0),  # N scored two ways: left out
            offering("k@a", "K", 20.0, [bare]),  # K scored 20 and 40: left out
        )
    )
    assert scores == {"overall": {"M": 50.0, "M (high)": 60.0}}
