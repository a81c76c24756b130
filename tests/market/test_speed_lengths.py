"""Speeds by prompt length on the real files (SPEC "Speeds by prompt length (v1.8, issue 27)"): the
Artificial Analysis table measures each endpoint at 1k, 10k and 100k input tokens; the catalog keeps all
three, and a workload is judged at its own input tokens per call."""

import csv
import math

import pytest
from conftest import ROOT, workload, workloads_of

from planner.model.load import load_catalog
from planner.optimize.pairs import build_pairs

AA = ROOT / "catalogs" / "sources" / "aa_providers_leaderboard.csv"
CATALOG = ROOT / "catalogs" / "aa-2026-06.yaml"


def aa_table() -> list[dict]:
    with open(AA, newline="") as fh:
        return list(csv.DictReader(fh))


def number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def test_the_table_columns_are_the_1k_10k_and_100k_workloads():
    """What SPEC states of the mapping, checked on the data: the medians the catalog has always read
    (median_*) are perf_long_* on every row; the first token comes later from perf_medium_* to perf_long_*
    to perf_100k_* on most rows and output speed falls; every row measured at 100k has a context window of
    at least 100k tokens; the percentiles (p05..p95) bracket the 10k medians on every row and miss the 1k
    ones on most."""
    rows = aa_table()
    assert len(rows) == 837
    assert all(r["median_ttft"] == r["perf_long_median_ttft"] for r in rows)
    assert all(r["median_output_speed"] == r["perf_long_median_output_speed"] for r in rows)
    ttft = [[number(r[f"perf_{k}_median_ttft"]) for k in ("medium", "long", "100k")] for r in rows]
    tps = [[number(r[f"perf_{k}_median_output_speed"]) for k in ("medium", "long", "100k")] for r in rows]
    assert sum(a < b for a, b, _ in ttft) == 772  # of 837
    with_100k = [(t, s, r) for t, s, r in zip(ttft, tps, rows) if t[2] is not None]
    assert len(with_100k) == 764 and sum(t[1] < t[2] for t, _, _ in with_100k) == 704
    assert sum(a > b for a, b, _ in tps) == 580 and sum(s[1] > s[2] for _, s, _ in with_100k) == 466
    window = lambda r: number(r["context_window_if_different_to_model"]) or number(r["model_context_window_tokens"])
    assert all(window(r) >= 100_000 for _, _, r in with_100k)
    within = lambda r, col: number(r["p05_ttft"]) <= number(r[col]) <= number(r["p95_ttft"])
    assert all(within(r, "perf_long_median_ttft") for r in rows)
    assert sum(not within(r, "perf_medium_median_ttft") for r in rows) == 562


def test_glm_47_on_cerebras_keeps_all_three_lengths():
    """glm-4.7@cerebras (GLM-4.7 non-reasoning): 0.27 s to the first token at 1k input tokens, 0.62 s at
    10k (its ttft_s, as before), 4.66 s at 100k."""
    glm = next(o for o in load_catalog(CATALOG).offerings if o.id == "glm-4.7@cerebras")
    assert glm.model == "GLM-4.7 (Non-reasoning)"
    speed = glm.speed
    assert (speed.input_tokens, speed.ttft_s, speed.output_tps) == (10000, 0.6191, 998.456)
    assert speed.by_input[1000].ttft_s == 0.2733 and speed.by_input[1000].output_tps == 1005.159
    assert speed.by_input[100000].ttft_s == 4.6588 and speed.by_input[100000].output_tps == 668.404
    assert "by prompt length: speed and first token at 1,000, 10,000 and 100,000 input tokens" in glm.source
    reasoning = next(m for m in glm.modes if m.name == "reasoning")  # a mode keeps its own row's lengths
    assert reasoning.speed.by_input[1000].ttft_s == 0.2984


CASES = [
    (1000, 0.2733, 1005.159),  # the 1k measurement itself
    # 3,000 tokens, log10(3) = 0.4771213 of the way from 1k to 10k in log(tokens):
    # 0.2733 + 0.4771213 x (0.6191 - 0.2733) = 0.4383 s; 1005.159 + 0.4771213 x (998.456 - 1005.159)
    (3000, 0.4382885, 1001.961),
    (10000, 0.6191, 998.456),
    (500, 0.2733, 1005.159),  # below 1k: the 1k figures
    (250000, 4.6588, 668.404),  # beyond 100k: the 100k figures
]


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """One workload per case (500 output tokens a call) on the real catalog, and glm-4.7@cerebras's option."""
    import yaml

    from planner.model.load import load_inputs

    ws = workloads_of(*(workload(f"w{k}", inp=inp, out=500) for k, (inp, _, _) in enumerate(CASES)))
    path = tmp_path_factory.mktemp("lengths") / "w.yaml"
    path.write_text(yaml.safe_dump({**ws, "catalog": str(CATALOG)}))
    inputs = load_inputs(path)
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    o = next(i for i, oid in enumerate(pairs.options.offering_id) if oid == "glm-4.7@cerebras")
    assert pairs.options.mode[o] == "default"
    return pairs, o


@pytest.mark.parametrize("k", range(len(CASES)))
def test_a_workload_is_judged_at_its_own_input_tokens(judged, k):
    pairs, o = judged
    _, ttft, tps = CASES[k]
    assert pairs.latency_s[k, o] == pytest.approx(ttft + 500 / tps, rel=1e-6)


def test_every_aa_offering_states_its_length_and_none_is_filled():
    """Every Artificial Analysis speed is stated at 10,000 input tokens; a length the table leaves empty
    (100k on 73 rows) is not in the catalog, and no by-length figure is made up: each is a table cell."""
    rows = {(r["host_name"], r["model_name"]): r for r in aa_table()}
    catalog = load_catalog(CATALOG)
    aa = [o for o in catalog.offerings if o.source and o.source.startswith("Artificial Analysis")]
    assert len(aa) > 500 and all(o.speed.input_tokens == 10000 for o in aa)
    cells = {
        round(number(r[c]), 4)
        for r in rows.values()
        for c in ("perf_medium_median_ttft", "perf_100k_median_ttft")
        if r[c]
    }
    for o in aa:
        for speed in [o.speed] + [m.speed for m in o.modes if m.speed is not None]:
            for at in (speed.by_input or {}).values():
                assert at.ttft_s is None or at.ttft_s in cells
    short = [o for o in aa if 100000 not in (o.speed.by_input or {})]
    assert short and all(1000 in o.speed.by_input for o in short)
    assert not any(
        math.isnan(x)
        for o in aa
        for at in (o.speed.by_input or {}).values()
        for x in (at.ttft_s or 0, at.output_tps or 0)
    )


SOURCES = ROOT / "tests" / "data" / "sources"


def _rewrite(tmp_path, source, change):
    """A copy of an Artificial Analysis table with change(row) applied to every row."""
    with open(source, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        fields, rows = reader.fieldnames, list(reader)
    for r in rows:
        change(r)
    path = tmp_path / "aa.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_the_reference_length_is_the_one_whose_medians_are_read(tmp_path):
    """A scrape whose medians are the 1k workload's gets input_tokens 1000 and the 10k and 100k figures
    in by_input; a scrape whose medians match no one length's imports no lengths and says why once."""
    from planner.market.sources.aa import read_aa

    def medium(r):
        r["median_output_speed"], r["median_ttft"] = r["perf_medium_median_output_speed"], r["perf_medium_median_ttft"]
        r["ttft_input_time"] = r["median_ttft"]

    rows = read_aa(_rewrite(tmp_path, SOURCES / "aa_small.csv", medium), [])
    assert {r.input_tokens for r in rows} == {1000}
    assert all(sorted(r.ttft_by_input) in ([10000], [10000, 100000]) for r in rows)

    def neither(r):
        r["median_ttft"] = str(float(r["median_ttft"]) + 0.001)

    left: list = []
    rows = read_aa(_rewrite(tmp_path, SOURCES / "aa_small.csv", neither), left)
    assert all(r.input_tokens is None and r.tps_by_input is None for r in rows)
    (note,) = [x for x in left if x[1] == "columns perf_*_median_*"]
    assert "the length they were measured at is unknown" in note[2]


def test_an_older_scrape_without_the_length_columns_says_what_it_lacks():
    from planner.market.sources.aa import read_aa

    left: list = []
    rows = read_aa(SOURCES / "aa_old_columns.csv", left)
    why = {n: r for s, n, r in left if s == "aa"}
    assert (
        why["column perf_medium_median_ttft"]
        == "missing from this scrape: no time to first token at 1,000 input tokens"
    )
    assert (
        why["column perf_100k_median_output_speed"]
        == "missing from this scrape: no output speed at 100,000 input tokens"
    )
    assert all(r.input_tokens is None and r.tps_by_input is None and r.ttft_by_input is None for r in rows)


def test_a_cell_out_of_range_is_left_out_and_listed_and_an_empty_one_is_not_measured(tmp_path):
    from planner.market.sources.aa import read_aa

    def spoil(r):
        if r["host_name"] == "Groq":
            r["perf_100k_median_output_speed"], r["perf_medium_median_ttft"] = "-3", ""

    left: list = []
    rows = read_aa(_rewrite(tmp_path, SOURCES / "aa_small.csv", spoil), left)
    groq = [r for r in rows if r.host == "Groq"]
    assert groq and all(100000 not in r.tps_by_input and 1000 not in (r.ttft_by_input or {}) for r in groq)
    assert all(100000 in r.ttft_by_input and 1000 in r.tps_by_input for r in groq)  # the other figures stay
    listed = [x for x in left if x[1].startswith("Groq / ")]
    assert len(listed) == len(groq) and all(
        "output speed at 100,000 input tokens -3 is out of range" in x[2] for x in listed
    )


def test_an_aggregator_takes_the_slowest_host_at_each_length_every_host_measures():
    """OpenRouter may route to any of its hosts: at each prompt length the aggregate offering takes the
    lowest output speed and the longest first token among them, each possibly from another host; a length
    one host did not measure is left out (the slowest there is unknown)."""
    from pathlib import Path

    from planner.market.merge import Entry
    from planner.market.openrouter_offerings import _slowest_lengths
    from planner.market.sources.records import AARow

    def entry(host, tps_by, ttft_by, at=10000):
        row = AARow(host, "M", 1.0, 1.0, None, 100.0, 0.5, None, {"overall": 50.0}, False, 2, input_tokens=at)
        row.tps_by_input, row.ttft_by_input = tps_by, ttft_by
        return Entry(row, Path("aa.csv"), host.lower(), "", "M", "default", {}, "", None, "", None, {}, False, [])

    pool = [
        entry("A", {1000: 120.0, 100000: 60.0}, {1000: 0.2, 100000: 4.0}),
        entry("B", {1000: 110.0, 100000: 70.0}, {1000: 0.3}),
    ]
    at, tps, ttft, text = _slowest_lengths(pool)
    assert (at, tps, ttft) == (10000, {1000: 110.0, 100000: 60.0}, {1000: 0.3})
    assert text.startswith(
        "at 1,000 input tokens output speed B, first token B; at 100,000 input tokens output speed A"
    )
    assert _slowest_lengths([pool[0], entry("C", {1000: 1.0}, None, at=1000)])[:3] == (None, None, None)
