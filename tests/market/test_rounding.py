"""The step a scrape publishes its scores at, read from the table's text (planner.market.sources.aa
published_step), declared as the catalog's `metrics[m].rounding`, and what `catalog diff` makes of it.

aa_2026-05-04_rows.csv: seven real rows of the 2026-05-04 Artificial Analysis scrape, 14 of its columns as
written there (catalogs/sources/PROVENANCE.md): the index to 2 decimals, the benchmarks as fractions to 3.
The 2026-06-19 scrape (the shipped catalog) writes both with 13 to 16 digits."""

import csv

import pytest
from conftest import DATA, ROOT

from planner.market.catalog_import import build_catalog
from planner.market.diff import diff_catalogs
from planner.market.sources.aa import published_step
from planner.model.load import load_catalog
from planner.model.schema import Catalog

MAY_ROWS = DATA / "sources" / "aa_2026-05-04_rows.csv"
EXCERPT = ROOT / "catalogs" / "sources" / "aa_scores_2026-05-04_excerpt.csv"
JUNE = ROOT / "catalogs" / "sources" / "aa_providers_leaderboard.csv"


def _column(path, name) -> list[str]:
    with open(path, newline="", encoding="utf-8") as fh:
        return [r[name] for r in csv.DictReader(fh)]


def test_the_step_is_read_from_the_digits_the_source_writes():
    index = _column(EXCERPT, "model_intelligence_index")
    assert "6.3" in index and "24.47" in index and "" in index  # 6.30 with its trailing zero dropped
    assert published_step(index) == 0.01
    assert published_step(_column(EXCERPT, "model_gpqa"), percent=True) == pytest.approx(0.1)  # 0.001 of a fraction
    assert published_step(["0.79", "0.7", "0.1"], percent=True) == pytest.approx(1.0)  # no value shows 3 decimals
    june = published_step(_column(JUNE, "model_intelligence_index"))
    assert june < 1e-9  # the June scrape writes every digit of the float
    assert published_step(["", "N/A", "$undefined"]) is None
    assert published_step(["0.688"], percent=False) == 0.001  # not a fraction: the metric's own units


def test_a_scrape_published_to_two_and_three_decimals_declares_that_rounding():
    catalog, _ = build_catalog([("aa", MAY_ROWS)], "may")
    rounding = {m: d["rounding"] for m, d in catalog["metrics"].items()}
    assert rounding == {"overall": 0.01, "gpqa": 0.1, "mmlu_pro": 0.1, "livecodebench": 0.1}
    shipped = load_catalog(ROOT / "catalogs" / "aa-2026-06.yaml")  # every digit: the importer's 4 decimals
    assert {m: d.rounding for m, d in shipped.metrics.items()} == dict.fromkeys(rounding, 0.0001)


def test_the_benchmarks_moved_by_rounding_only_between_the_two_scrapes():
    """The seven offerings in both catalogs: each benchmark score of May, published to 3 decimals of a
    fraction, lies within half that step of June's 15-digit one, unless the offering's model changed
    (its default is now another effort). Rounding read as 0.0001 listed every one as a change."""
    may = Catalog.model_validate(build_catalog([("aa", MAY_ROWS)], "may")[0])
    june = load_catalog(ROOT / "catalogs" / "aa-2026-06.yaml")
    june = june.model_copy(update={"offerings": [o for o in june.offerings if o.id in {p.id for p in may.offerings}]})
    assert len(june.offerings) == 7
    rows = diff_catalogs(may, june)
    rounded = {r["field"]: r["note"] for r in rows if r["change"] == "rounded"}
    assert rounded == {
        f"capability.{m}": f"capability.{m}: 5 scores moved by less than half the published step 0.1: rounding, "
        "not listed"
        for m in ("gpqa", "livecodebench", "mmlu_pro")
    }
    models = {r["offering"]: (r["before"], r["after"]) for r in rows if r["field"] == "model"}
    assert models == {
        "gpt-oss-20b@google-vertex": ("gpt-oss-20B (high)", "gpt-oss-20B (low)"),
        "deepseek-v3.2@novita": ("DeepSeek V3.2 (Reasoning)", "DeepSeek V3.2 (Non-reasoning)"),
    }
    benchmarks = {r["offering"] for r in rows if r["change"] == "changed" and r["field"] in rounded}
    assert benchmarks == set(models)  # only where the offering now serves another model
    undeclared = may.model_copy(update={"metrics": {}})  # as the importer declared it before: every digit counts
    listed = [r for r in diff_catalogs(undeclared, june) if r["field"] in rounded and r["change"] == "changed"]
    assert len(listed) == 21  # 7 offerings x 3 benchmarks
