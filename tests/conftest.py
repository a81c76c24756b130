"""Shared fixtures: the tiny catalog and workloads under tests/data, varied per test."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from planner.load import Inputs, check_workloads, validate
from planner.schema import Catalog, WorkloadSet
from planner.solve import solve_inputs

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent


def load_dict(name: str) -> dict:
    return yaml.safe_load((DATA / name).read_text())


def make_inputs(ws: dict, catalog: dict) -> Inputs:
    wset = validate(WorkloadSet, ws, "workloads.yaml")
    check_workloads(wset, "workloads.yaml")
    return Inputs(wset, validate(Catalog, catalog, "catalog.yaml"), "workloads.yaml", "catalog.yaml")


def solve_dicts(ws: dict, catalog: dict, solver: str = "cbc", prune: bool = True):
    return solve_inputs(make_inputs(ws, catalog), solver, prune=prune)


def offering(oid: str, vendor: str = "v", price_in: float = 1.0, price_out: float = 1.0, tps: float = 100.0,
             ttft: float = 0.0, capability: float = 80.0, **extra) -> dict:
    """A catalog offering with round numbers, for hand-computed cases."""
    return {"id": oid, "model": oid, "vendor": vendor, "capability": capability,
            "price": {"input": price_in, "output": price_out},
            "speed": {"output_tps": tps, "ttft_s": ttft}, **extra}


def workload(wid: str, tasks: float = 1000.0, inp: float = 1000.0, out: float = 1000.0, **extra) -> dict:
    return {"id": wid, "tasks": tasks, "tokens": {"input": inp, "output": out}, **extra}


def catalog_of(*offerings: dict) -> dict:
    return {"catalog": "t", "as_of": "2026-01-01", "offerings": list(offerings)}


def workloads_of(*workloads: dict, **top) -> dict:
    return {"name": "t", "period": "month", "workloads": list(workloads), **top}


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
