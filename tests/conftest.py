"""Shared fixtures: the tiny catalog and workloads under tests/data, varied per test."""

from __future__ import annotations

import copy
import json
import logging
import random
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
import yaml

from planner.model.distribution import Distribution
from planner.model.load import Inputs, check_workloads, validate
from planner.model.schema import Catalog, WorkloadSet
from planner.optimize.pairs import build_pairs
from planner.optimize.prune import candidates
from planner.pipeline.solve import solve_inputs
from planner.pipeline.warm import WarmStart

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent


def load_dict(name: str) -> dict:
    return yaml.safe_load((DATA / name).read_text())


def make_inputs(ws: dict, catalog: dict, samples: dict | None = None) -> Inputs:
    """samples: per distribution file a workload names, its sample tasks as (weight, calls, input,
    output, reasoning, cached_input) rows (the files' contents, without the files)."""
    wset = validate(WorkloadSet, ws, "workloads.yaml")
    check_workloads(wset, "workloads.yaml")
    distributions = {
        w.id: Distribution(w.distribution, *np.array(samples[w.distribution], dtype=float).T)
        for w in wset.workloads
        if w.distribution is not None
    }
    return Inputs(wset, validate(Catalog, catalog, "catalog.yaml"), "workloads.yaml", "catalog.yaml", (), distributions)


def solve_dicts(ws: dict, catalog: dict, solver: str = "cbc", prune: bool = True, samples: dict | None = None):
    return solve_inputs(make_inputs(ws, catalog, samples), solver, prune=prune)


def plan_bytes(plan) -> dict:
    """A plan file's content with the solver's seconds zeroed: what two solves of one problem share."""
    data = json.loads(plan.to_json())
    data["solver"]["seconds"] = 0
    return data


class _Messages(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def planner_log():
    """The messages logged on the "planner" logger (DEBUG and up) while the block runs, as a list.
    For property tests: pytest's caplog is one fixture shared by every example of a test."""
    log = logging.getLogger("planner")
    handler, level = _Messages(), log.level
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    try:
        yield handler.messages
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


def routing_start(inputs: Inputs, base_plan):
    """A WarmStart of the inputs' own pair table and pruning, with another plan's routing: a solve of
    the inputs from it sifts from that routing and reuses nothing else."""
    ws, catalog = inputs.workloads, inputs.catalog
    pairs = build_pairs(ws, catalog, distributions=inputs.distributions)
    routing = tuple((w.id, a.offering, a.mode) for w in base_plan.workloads for a in w.allocations)
    return WarmStart(ws, catalog, pairs, candidates(ws, catalog, pairs), routing, distributions=inputs.distributions)


def offering(
    oid: str,
    vendor: str = "v",
    price_in: float = 1.0,
    price_out: float = 1.0,
    tps: float = 100.0,
    ttft: float = 0.0,
    capability: float = 80.0,
    **extra,
) -> dict:
    """A catalog offering with round numbers, for hand-computed cases."""
    return {
        "id": oid,
        "model": oid,
        "vendor": vendor,
        "capability": capability,
        "price": {"input": price_in, "output": price_out},
        "speed": {"output_tps": tps, "ttft_s": ttft},
        **extra,
    }


def workload(wid: str, tasks: float = 1000.0, inp: float = 1000.0, out: float = 1000.0, **extra) -> dict:
    return {"id": wid, "tasks": tasks, "tokens": {"input": inp, "output": out}, **extra}


def catalog_of(*offerings: dict) -> dict:
    return {"catalog": "t", "as_of": "2026-01-01", "offerings": list(offerings)}


def workloads_of(*workloads: dict, **top) -> dict:
    return {"name": "t", "period": "month", "workloads": list(workloads), **top}


def two_vendors() -> Inputs:
    """Vendor a's fast and standard lanes and vendor b's cheap, less capable one; a chat workload
    with a floor and a budget, and a five-turn agent (the scenario, comparison and frontier cases)."""
    cat = catalog_of(
        offering("a-fast", vendor="a", price_in=4, price_out=4, tps=1000) | {"tier": "fast"},
        offering("a-std", vendor="a", price_in=2, price_out=2, tps=50),
        offering("b-cheap", vendor="b", price_in=1, price_out=1, tps=50, capability=60),
    )
    ws = workloads_of(
        workload("chat", latency={"budget_s": 30}, capability={"min": 70}),
        workload("agent", turns=5, latency={"threshold": "attentive"}),
    )
    return make_inputs(ws, cat)


@pytest.fixture
def tiny_catalog() -> dict:
    return copy.deepcopy(load_dict("tiny-catalog.yaml"))


@pytest.fixture
def tiny_workloads() -> dict:
    return copy.deepcopy(load_dict("tiny-workloads.yaml"))


@pytest.fixture
def write_yaml(tmp_path):
    def write(name: str, data) -> Path:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(data, sort_keys=False) if not isinstance(data, str) else data)
        return path

    return write


def rescaled(data: dict, factor: float = 0.75, share: float = 1.0, noise: float = 0.03, seed: int = 15) -> dict:
    """A catalog as the next scrape would give it after a rescale: every `overall` score (of the first
    `share` of the offerings, modes included) times factor with a per-model noise of up to +-noise,
    and three output prices raised 20%."""
    new = copy.deepcopy(data)
    rng = random.Random(seed)
    per_model: dict[str, float] = {}
    for o in new["offerings"][: int(len(new["offerings"]) * share)]:
        jitter = per_model.setdefault(o["model"], rng.uniform(-noise, noise))
        o["capability"]["overall"] = round(o["capability"]["overall"] * factor * (1 + jitter), 3)
        for m in o.get("modes", []):  # a rescale moves every score, the modes' too
            if "overall" in (m.get("capability") or {}):
                j = per_model.setdefault(m.get("model") or o["model"], rng.uniform(-noise, noise))
                m["capability"]["overall"] = round(m["capability"]["overall"] * factor * (1 + j), 3)
    for o in new["offerings"][:3]:
        o["price"]["output"] = round(o["price"]["output"] * 1.2, 6)
    new["as_of"] = "2026-07-01"
    return new


def write_files(tmp_path, offerings, workloads, commitments=None, policy=None) -> Path:
    """A catalog (cat.yaml) and a workloads file (w.yaml, named w) in tmp_path; the workloads file's path."""
    cat = {"catalog": "t", "offerings": offerings}
    if commitments is not None:
        cat["commitments"] = commitments
    (tmp_path / "cat.yaml").write_text(yaml.safe_dump(cat, sort_keys=False))
    ws = {"name": "w", "catalog": "cat.yaml", "workloads": workloads}
    if policy:
        ws["policy"] = policy
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(ws, sort_keys=False))
    return tmp_path / "w.yaml"


MAY_EXCERPT = ROOT / "catalogs" / "sources" / "aa_scores_2026-05-04_excerpt.csv"
MAY_COLUMNS = {
    "overall": "model_intelligence_index",
    "gpqa": "model_gpqa",
    "mmlu_pro": "model_mmlu_pro",
    "livecodebench": "model_livecodebench",
}


def may_and_june(june: dict) -> tuple[dict, dict]:
    """Two catalogs with the real scores of two scrapes (issue 27): the June catalog's offerings whose
    model (and each kept mode's) the 2026-05-04 excerpt scores, as May published them (its names, a
    benchmark fraction x100 as the importer reads it, its published steps as `rounding`), and the same
    offerings as June has them. Prices and speeds are June's on both sides: only the scores differ."""
    import csv

    from planner.market.sources.aa import published_step

    with open(MAY_EXCERPT, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    by_name = {" ".join(r["model_name"].lower().split()): r for r in rows if r["model_intelligence_index"]}

    def scores(r: dict) -> dict:
        return {
            m: float(r[c]) if m == "overall" else round(100 * float(r[c]), 4) for m, c in MAY_COLUMNS.items() if r[c]
        }

    may = copy.deepcopy(june)
    may["offerings"], may["as_of"] = [], "2026-05-04"
    for o in june["offerings"]:
        r = by_name.get(" ".join(o["model"].lower().split()))
        if r is None:
            continue
        o = {**copy.deepcopy(o), "model": r["model_name"], "capability": scores(r)}
        modes = []
        for m in o.pop("modes", []):
            rm = by_name.get(" ".join((m.get("model") or "").lower().split()))
            if rm is not None:
                modes.append({**m, "model": rm["model_name"], "capability": scores(rm)})
        may["offerings"].append({**o, "modes": modes} if modes else o)
    for m, c in MAY_COLUMNS.items():
        may["metrics"][m]["rounding"] = published_step([r[c] for r in rows], percent=m != "overall")
    kept = {o["id"] for o in may["offerings"]}
    return may, {**june, "offerings": [o for o in june["offerings"] if o["id"] in kept]}
