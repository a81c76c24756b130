"""The package as a user installs it: a wheel built from the sources, installed in a fresh virtual
environment, solving files that lie outside the repository. Offline: the wheel is built with the build
backend installed here (no build isolation), installed without its dependencies, and the fresh
environment borrows this one's installed dependencies through a .pth file. Skipped when pip or
setuptools >= 77 is missing; `-m "not wheel"` leaves it out."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from planner.model import schemas

ROOT = Path(__file__).resolve().parent.parent


def _backend() -> str | None:
    """Why the wheel cannot be built here without the network, or None."""
    if importlib.util.find_spec("pip") is None:
        return "pip is not installed"
    try:
        version = metadata.version("setuptools")
    except metadata.PackageNotFoundError:
        return "setuptools is not installed"
    if int(version.split(".")[0]) < 77:
        return f"setuptools {version} cannot build this pyproject (needs >= 77)"
    return None


pytestmark = [pytest.mark.wheel, pytest.mark.skipif(_backend() is not None, reason=str(_backend()))]


def _run(args: list, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env |= {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", "PIP_NO_INDEX": "1"}
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_wheel_installs_in_a_fresh_environment_and_solves(tmp_path):
    # the sources a release is built from, copied (the build writes build/ and *.egg-info where it runs)
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "planner", src / "planner", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", tmp_path / "dist", src], src)
    (wheel,) = (tmp_path / "dist").glob("planner-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"planner/py.typed", "planner/__main__.py", "planner/outputs/report/templates/plan.html.j2"} <= names
    assert {"planner/traffic/sql/aggregate.sql", "planner/outputs/report/templates/replay.html.j2"} <= names
    assert {f"planner/serve/page/page.{x}" for x in ("html", "js", "css")} <= names  # the live review's page
    for kind in schemas.KINDS:
        data = zipfile.ZipFile(wheel).read(f"planner/model/schemas/{schemas.file_name(kind)}")
        assert data == (ROOT / "schemas" / schemas.file_name(kind)).read_bytes()

    # a fresh environment with the wheel alone; then this environment's dependencies on its path
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp_path)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", wheel], tmp_path)
    site = _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp_path).stdout.strip()
    deps = sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})
    (Path(site) / "_planner_test_deps.pth").write_text("\n".join(deps) + "\n")

    # the user's files, outside the repository
    work = tmp_path / "work"
    (work / "workloads").mkdir(parents=True)
    (work / "catalogs").mkdir()
    shutil.copy(ROOT / "workloads" / "support.yaml", work / "workloads" / "support.yaml")
    shutil.copy(ROOT / "catalogs" / "2026-q3.yaml", work / "catalogs" / "2026-q3.yaml")

    where = _run([python, "-c", "import planner; print(planner.__file__)"], work).stdout.strip()
    assert Path(where).is_relative_to(venv), where  # the wheel's copy, not the checkout's
    assert _run([python, "-m", "planner", "--version"], work).stdout.strip().endswith("0.1.0")
    _run([python, "-m", "planner.model.schemas", "--check"], work)  # the installed schemas are the models'
    done = _run([venv / "bin" / "planner", "solve", "workloads/support.yaml", "--out", "out"], work)
    assert "support" in done.stdout
    plan = json.loads((work / "out" / "support.plan.json").read_text())
    assert plan["status"] == "optimal" and plan["inputs"]["catalog"] == "2026-q3" and plan["total_cost"] > 0
    assert (work / "out" / "support.html").read_text().startswith("<!doctype html>")
    # the gateway lists ship in the package: an export needs no --sources (support's Cerebras tiers have no
    # litellm id, hence --allow-unknown; the ids it does write were checked against the shipped lists)
    assert "planner/market/data/gateway_lists.json" in names
    export = ["export", "out/support.plan.json", "--to", "litellm", "--allow-unknown", "--out", "out/litellm.yaml"]
    done = _run([venv / "bin" / "planner", *export], work)
    assert "moonshot/kimi-k2.6" in (work / "out" / "litellm.yaml").read_text() and "kimi-fast" in done.stderr
    # the aggregation query ships as package data: from-logs reads it from the installed copy
    shutil.copy(ROOT / "tests" / "data" / "logs" / "calls.csv", work / "calls.csv")
    mapping = ["--map", "ts=time", "--map", "prompt=input", "--map", "completion=output"]
    logged = ["workloads", "from-logs", "calls.csv", "--format", "csv", *mapping, "--group-by", "agent"]
    _run([venv / "bin" / "planner", *logged, "--out", "workloads/logged.yaml"], work)
    assert (work / "workloads" / "logged.planner.distribution.csv").exists()
