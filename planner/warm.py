"""What a solve of variant inputs (a what-if scenario) can take from a solved base, matched by value.

A scenario usually edits a few offerings of the same files. Then:
- the pair table's columns of the options it leaves alone are the base's (every figure of a pair
  depends on its workload and its option only), so only the changed options' columns are
  recomputed;
- pruning is decided per group of options (a workload, or a workload and vendor), so groups that
  no changed option touches keep the base's candidates;
- the base's routing is a good guess of the scenario's optimal columns: the LP is solved by
  sifting from it (solver.solve_sifted), which certifies the whole LP's optimum.

Each is keyed on values: the workloads compared field by field, offerings by content, the routing
by (workload id, offering id, mode). Nothing depends on which Python objects are shared.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .load import Inputs
from .lp import LinearProgram
from .pairs import Pairs, build_options, build_pairs, changed_options, repriced_pairs
from .plan import Plan
from .prune import candidates
from .schema import Catalog, WorkloadSet
from .timing import log


@dataclass(frozen=True)
class WarmStart:
    """A solved base: its files, pair table, pruning and routing."""

    workloads: WorkloadSet
    catalog: Catalog
    pairs: Pairs
    candidates: np.ndarray  # W x O bool, pruning's answer for the base
    routing: tuple[tuple[str, str, str], ...]  # (workload id, offering id, mode) of every allocation

    @classmethod
    def of(cls, inputs: Inputs, pairs: Pairs, cand: np.ndarray, plan: Plan) -> WarmStart:
        routing = tuple((w.id, a.offering, a.mode) for w in plan.workloads for a in w.allocations)
        return cls(inputs.workloads, inputs.catalog, pairs, cand, routing)

    def pairs_for(self, inputs: Inputs) -> tuple[Pairs, np.ndarray | None]:
        """The scenario's pair table, and which of its options differ from the base's (None when it
        was built afresh: other workloads, or offerings added, removed or reordered)."""
        if inputs.workloads == self.workloads:
            opts = build_options(inputs.catalog)
            changed = changed_options(self.catalog, inputs.catalog, opts)
            if changed is not None:
                log.debug(
                    "pairs: %d of %d options recomputed, the others taken from the start",
                    int(changed.sum()),
                    len(changed),
                )
                return repriced_pairs(self.pairs, inputs.workloads, inputs.catalog, opts, changed), changed
        log.debug("pairs: built afresh (the workloads or the offerings' layout differ from the start's)")
        return build_pairs(inputs.workloads, inputs.catalog), None

    def candidates_for(self, inputs: Inputs, pairs: Pairs, changed: np.ndarray | None) -> np.ndarray:
        """Pruning of the scenario's pairs, reusing the base's decisions for groups no change touches."""
        reuse = None if changed is None else (self.candidates, self.pairs.eligible, changed)
        return candidates(inputs.workloads, inputs.catalog, pairs, reuse=reuse)

    def columns(self, pairs: Pairs, lp: LinearProgram) -> np.ndarray:
        """Per LP column, whether the base routed that (workload, option) pair."""
        return routed_pairs(self.routing, pairs)[lp.var_w, lp.var_o]


def routed_pairs(routing, pairs: Pairs) -> np.ndarray:
    """W x O bool: the pairs a routing allocates, matched by workload id, offering id and mode."""
    out = np.zeros(pairs.shape, dtype=bool)
    opts = pairs.options
    option = {key: o for o, key in enumerate(zip(opts.offering_id, opts.mode))}
    row = {wid: w for w, wid in enumerate(pairs.workloads.ids)}
    for wid, offering, mode in routing:
        w, o = row.get(wid), option.get((offering, mode))
        if w is not None and o is not None:
            out[w, o] = True
    return out
