"""Small array helpers over the LP's columns, which come sorted by workload (np.nonzero's order)."""

from __future__ import annotations

import numpy as np


def workload_starts(var_w: np.ndarray) -> np.ndarray:
    """Where each workload's columns start: var_w is sorted, so they are one run."""
    return np.r_[0, np.flatnonzero(np.diff(var_w)) + 1]


def per_workload(reduce: np.ufunc, values: np.ndarray, var_w: np.ndarray) -> np.ndarray:
    """reduce (np.minimum, np.maximum) over each workload's columns, given back per column."""
    starts = workload_starts(var_w)
    return np.repeat(reduce.reduceat(values, starts), np.diff(np.r_[starts, len(var_w)]))


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """sum(a x b) by numpy's own summation: np.dot hands long vectors to BLAS, whose result depends on
    the machine (its kernels and thread count, so plans would too) and whose threads spin on after."""
    return float(np.sum(np.multiply(a, b)))
