"""The CBC backend: PulpModel, the SolverModel (backends.py) over a PuLP problem built from the LP's
rows, solved by the CBC that PuLP bundles."""

from __future__ import annotations

import time
import warnings

import numpy as np

from planner.core.timing import OutOfTime, run_limit
from planner.optimize.lp import CONTRACT_GAP, MIP_GAP, LinearProgram, apply_binaries


def _cbc(*, mip: bool, time_limit: float | None = None, gap: float = MIP_GAP):
    import pulp

    with warnings.catch_warnings():  # deprecated only in PuLP 4, which pyproject excludes
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(msg=False, mip=mip, timeLimit=time_limit, gapRel=gap if mip else None)


class PulpModel:
    """A SolverModel over a PuLP problem (expressions from lists of (variable, coefficient) pairs), solved
    by the CBC that PuLP bundles."""

    def __init__(self, lp: LinearProgram, *, integer: bool, elastic: bool):
        import pulp

        self._pulp = pulp
        self.lp = lp
        self.n = n = len(lp.var_w)
        prob = pulp.LpProblem("planner", pulp.LpMinimize)
        self.x = [prob.add_variable(f"x{j}", lowBound=0.0, upBound=1.0) for j in range(n)]
        ex = lp.extras
        self.e = [
            prob.add_variable(
                f"e_{k}",
                lowBound=float(ex.lower[k]),
                upBound=float(ex.upper[k]),
                cat=pulp.LpInteger if integer and ex.integer[k] else pulp.LpContinuous,
            )
            for k in range(len(ex))
        ]
        self.cols = self.x + self.e  # every column the LP's rows name: shares, then extras
        self.constraints = []
        self._slacks: dict[int, pulp.LpVariable] = {}
        senses = {"<=": pulp.LpConstraintLE, ">=": pulp.LpConstraintGE, "==": pulp.LpConstraintEQ}
        for i, row in enumerate(lp.rows):
            terms = [(self.cols[j], float(c)) for j, c in zip(row.cols.tolist(), row.coefs.tolist())]
            if elastic and row.relax_weight is not None:
                s = prob.add_variable(f"s{i}", lowBound=0)
                self._slacks[i] = s
                terms.append((s, -1.0 if row.sense == "<=" else 1.0))
            con = pulp.LpConstraint(pulp.LpAffineExpression(terms), senses[row.sense], f"r{i}", float(row.rhs))
            prob.addConstraint(con)
            self.constraints.append(con)
        self.binaries = []
        if integer and lp.max_options:
            for g, (_, cols, k) in enumerate(lp.max_options):
                ys = [prob.add_variable(f"y{g}_{j}", 0, 1, cat=pulp.LpBinary) for j in cols]
                self.binaries.append(ys)
                for j, y in zip(cols, ys):
                    prob.addConstraint(
                        pulp.LpConstraint(
                            pulp.LpAffineExpression([(self.x[j], 1.0), (y, -1.0)]),
                            pulp.LpConstraintLE,
                            f"link{g}_{j}",
                            0.0,
                        )
                    )
                prob.addConstraint(
                    pulp.LpConstraint(
                        pulp.LpAffineExpression([(y, 1.0) for y in ys]),
                        pulp.LpConstraintLE,
                        f"max_options{g}",
                        float(k),
                    )
                )
        self.prob = prob
        self.is_mip = bool(self.binaries) or (integer and bool(ex.integer.any()))
        self._added: list = []
        self.status = "Not solved"
        self.seconds = 0.0
        self.time_limit: float | None = None

    def bound_shares(self, lower: np.ndarray, upper: np.ndarray) -> None:
        for v, lo, hi in zip(
            self.cols, np.asarray(lower, dtype=float).tolist(), np.asarray(upper, dtype=float).tolist()
        ):
            v.lowBound, v.upBound = lo, hi

    def set_costs(self, shares: np.ndarray, slacks: np.ndarray | None = None) -> None:
        terms = list(zip(self.cols, np.asarray(shares, dtype=float).tolist()))
        if slacks is not None:
            terms += [(s, float(c)) for s, c in zip(self._slack_list(), slacks)]
        self.prob.setObjective(self._pulp.LpAffineExpression(terms))

    def _slack_list(self) -> list:
        return [self._slacks[i] for i in sorted(self._slacks)]

    def add_cap(self, coefs: np.ndarray, upper: float, *, on_slacks: bool = False) -> int:
        cols = self._slack_list() if on_slacks else self.cols
        con = self._pulp.LpConstraint(
            self._pulp.LpAffineExpression(list(zip(cols, np.asarray(coefs).tolist()))),
            self._pulp.LpConstraintLE,
            f"cap{len(self._added)}",
            float(upper),
        )
        self.prob.addConstraint(con)
        self._added.append(con)
        return len(self._added) - 1

    def loosen(self, handle: int, upper: float) -> None:
        self._added[handle].constant = -float(upper)

    def run(self) -> bool:
        started = time.perf_counter()
        gap = MIP_GAP if self.lp.max_options or not len(self.lp.extras) else CONTRACT_GAP
        limit, cut = run_limit(self.time_limit)
        self.prob.solve(_cbc(mip=self.is_mip, time_limit=limit, gap=gap))
        self.seconds += time.perf_counter() - started
        self.status = self._pulp.LpStatus[self.prob.status]
        stopped = self.prob.sol_status == self._pulp.LpSolutionIntegerFeasible or self.status not in (
            "Optimal",
            "Infeasible",
        )
        if cut and stopped:
            raise OutOfTime  # (CBC through PuLP does not say whether its time limit stopped it)
        if self.is_mip and self.time_limit is not None and self.prob.sol_status == self._pulp.LpSolutionIntegerFeasible:
            self.status = "Time limit"  # a feasible plan, not proven optimal
            return True
        return self.status == "Optimal"

    def extras(self) -> np.ndarray:
        return np.array([v.varValue or 0.0 for v in self.e])

    def limit_time(self, seconds: float) -> None:
        self.time_limit = seconds

    def gap(self) -> float | None:
        """CBC through PuLP does not report the gap it stopped at: None (unknown) unless proven optimal."""
        if not self.is_mip:
            return None
        return 0.0 if self.status == "Optimal" else None

    def objective(self) -> float:
        return float(self._pulp.value(self.prob.objective) or 0.0)

    def shares(self) -> np.ndarray:
        values = [v.varValue or 0.0 for v in self.cols] + [y.varValue or 0.0 for ys in self.binaries for y in ys]
        return apply_binaries(self.lp, values, self.n, is_mip=self.is_mip)

    def slacks(self) -> np.ndarray:
        out = np.zeros(len(self.lp.rows))
        for i, s in self._slacks.items():
            out[i] = max(0.0, s.varValue or 0.0)
        return out

    def slack_values(self) -> np.ndarray:
        return np.array([s.varValue or 0.0 for s in self._slack_list()])

    def duals(self) -> tuple[dict[int, float], np.ndarray] | None:
        if self.is_mip:
            return None
        pi = {i: float(c.pi) for i, c in enumerate(self.constraints) if c.pi is not None}
        return pi, np.array([v.dj if v.dj is not None else 0.0 for v in self.x], dtype=float)

    def size(self) -> tuple[int, int]:
        return self.prob.numVariables(), self.prob.numConstraints()
