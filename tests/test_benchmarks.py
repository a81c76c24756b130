"""The benchmark scripts still run (make bench, make bench-logs): on tiny sizes, in make test-deep. A
refactor broke `benchmarks/bench.py` once without any test noticing (issue 26)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.bench


@pytest.mark.parametrize(
    "script, args",
    [
        ("bench.py", ["--sizes", "60x12"]),
        ("logs_bench.py", ["--rows", "20000"]),
        ("serve_bench.py", ["--sizes", "60x12", "--changes", "5", "--no-real"]),
    ],
)
def test_a_benchmark_runs_on_a_tiny_size(script, args):
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
