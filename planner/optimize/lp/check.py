"""What a solver's answer is read with: its tolerances, the shares read from a model's columns and
cleaned of solver noise, and every row the plan claims to meet checked on them."""

from __future__ import annotations

import numpy as np

from planner.optimize.lp.problem import LinearProgram

SHARE_EPS = 1e-9  # allocations below this share are dropped
FEAS_TOL = 1e-6  # tolerance of the self-check on every row (scaled units)
TIED_DJ = 1e-9  # reduced costs and duals up to this (scaled cost, total >= 1) count as zero
MIP_GAP = 1e-9  # the relative gap an integer plan is proven optimal to
CONTRACT_GAP = 1e-6  # ... and one with commitments or switches (SPEC v1.6)


def clean_shares(lp: LinearProgram, share: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
    """Drop dust, renormalise each workload to exactly one, round away solver noise.

    cols: the share columns `share` holds values of (ascending), every other column zero: only those
    are cleaned, and the shares of every column come back (the same figures, as zeros add nothing)."""
    var_w = lp.var_w if cols is None else lp.var_w[cols]
    share = np.clip(share, 0.0, 1.0)
    share[share < SHARE_EPS] = 0.0
    size = lp.workload_count
    totals = np.bincount(var_w, share, minlength=size) if len(var_w) else np.zeros(size)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.round(np.where(totals[var_w] > 0, share / totals[var_w], 0.0), 12)
    if cols is None:
        return share
    out = np.zeros(len(lp.var_w))
    out[cols] = share
    return out


def check_rows(
    lp: LinearProgram,
    share: np.ndarray,
    slack: np.ndarray | None = None,
    activities: tuple[np.ndarray, np.ndarray] | None = None,
    extra: np.ndarray | None = None,
) -> list[str]:
    """Every row the plan claims to meet, checked on the cleaned shares: a list of violations.

    The tolerance is relative to the row's gross activity (sum of |coefficient x share|), the size
    that rounding in the solver's answer scales with: a spend-share row whose terms cancel can
    carry terms a thousand times its limit when the optimum is far above the scaling bound."""
    bad = []
    acts, grosses = lp.activities(share, extra) if activities is None else activities
    if lp.rows:
        sense, rhs = lp.senses
        give = np.zeros(len(lp.rows)) if slack is None else np.asarray(slack, dtype=float)
        tol = FEAS_TOL * np.maximum.reduce([np.ones(len(rhs)), np.abs(rhs), np.abs(give), grosses])
        over = (
            ((sense == 0) & (acts > rhs + give + tol))
            | ((sense == 1) & (acts < rhs - give - tol))
            | ((sense == 2) & (np.abs(acts - rhs) > tol))
        )
        for i in np.flatnonzero(over).tolist():
            row, act = lp.rows[i], float(acts[i])
            limit = row.rhs + give[i] if row.sense == "<=" else row.rhs - give[i] if row.sense == ">=" else row.rhs
            op = {"<=": ">", ">=": "<", "==": "!="}[row.sense]
            bad.append(f"{row.name}: {act:.9g} {op} {limit:.9g}")
    for w, cols, k in lp.max_options:
        if int((share[cols] > 0).sum()) > k:
            bad.append(f"max_options:{w}: more than {k} options")
    return bad


def apply_binaries(lp: LinearProgram, values, n: int, *, is_mip: bool) -> np.ndarray:
    """Shares from values laid out as [shares..., extras..., binaries of each max_options group...]."""
    share = np.array(values[:n])
    if is_mip and lp.max_options:
        y = n + len(lp.extras)
        for _, cols, _ in lp.max_options:
            on = np.array(values[y : y + len(cols)]) > 0.5
            share[cols] = np.where(on, share[cols], 0.0)
            y += len(cols)
    return share
