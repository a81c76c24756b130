"""What a solve of variant inputs (a what-if scenario) can take from a solved base, matched by value.

A scenario usually edits a few offerings of the same files. Then:
- the pair table's columns of the options it leaves alone are the base's (every figure of a pair
  depends on its workload and its option only), so only the changed options' columns are
  recomputed;
- pruning is decided per group of options (a workload, or a workload and vendor), so groups that
  no changed option touches keep the base's candidates;
- the base's routing is a good guess of the scenario's optimal columns: the LP is solved by
  sifting from it (resolve.solve_sifted), which certifies the whole LP's optimum;
- a rejected pair whose option the edit leaves alone gets the base's record for that pair: its
  reasons and figures depend on its workload and its option only;
- a workload whose allocation entries (option and share, bit for bit) are the base's, on options
  the edit leaves alone, with the same eligible count and, when it loops, the same compounding
  options, and without break-even entries, gets the base's workload record (with its own
  rejections): every figure of it is computed from those alone.

Records taken from the base are shared by its plan and the scenario's: plan records are never
changed once made.

Each is keyed on values: the workloads compared field by field, their sample tasks (distributions)
by content, offerings by content, the routing by (workload id, offering id, mode). Nothing depends
on which Python objects are shared.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from planner.core.records import trusted
from planner.core.timing import log
from planner.model.distribution import Distribution
from planner.model.load import Inputs
from planner.model.schema import Catalog, WorkloadSet
from planner.optimize.lp import LinearProgram
from planner.optimize.options import build_options
from planner.optimize.pairs import Pairs, build_pairs, build_workloads, changed_options, repriced_pairs
from planner.optimize.prune import candidates
from planner.plan.assemble import largest
from planner.plan.model import Plan, Rejection, WorkloadPlan
from planner.review.insight import standard_options


@dataclass(frozen=True, eq=False)
class WarmStart:
    """A solved base: its files, pair table, pruning and routing."""

    workloads: WorkloadSet
    catalog: Catalog
    pairs: Pairs
    candidates: np.ndarray  # W x O bool, pruning's answer for the base
    routing: tuple[tuple[str, str, str], ...]  # (workload id, offering id, mode) of every allocation
    rejections: tuple[Rejection, ...] = ()  # the base plan's rejection records ...
    rejected_at: np.ndarray | None = None  # ... and, W x O, where each pair's is among them (-1: none)
    records: tuple[WorkloadPlan, ...] = ()  # the base plan's workload records (without lists of others) ...
    entries: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # ... its allocations (w, o, share) ...
    compounding: tuple[np.ndarray, np.ndarray] | None = None  # ... and per workload its main and standard option
    distributions: dict[str, Distribution] = field(default_factory=dict)  # the workloads' sample tasks

    @classmethod
    def of(cls, inputs: Inputs, pairs: Pairs, cand: np.ndarray, plan: Plan) -> WarmStart:
        """The start a solve of `inputs` leaves: its pair table, pruning and plan (solve.solve_base)."""
        routing = _routing(plan)
        option = _option_index(pairs)
        records = [(w, option[r.offering, r.mode], r) for w, wp in enumerate(plan.workloads) for r in wp.rejected]
        rejected_at = np.full(pairs.shape, -1)
        if records:
            rw, ro, _ = zip(*records)
            rejected_at[list(rw), list(ro)] = np.arange(len(records))
        allocated = [
            (w, option[a.offering, a.mode], a.share) for w, wp in enumerate(plan.workloads) for a in wp.allocations
        ]
        aw, ao, ash = (np.array(x) for x in zip(*allocated)) if allocated else (np.zeros(0, int),) * 2 + (np.zeros(0),)
        main = largest(pairs.shape[0], aw, ao, ash)
        return cls(
            inputs.workloads,
            inputs.catalog,
            pairs,
            cand,
            routing,
            tuple(r for *_, r in records),
            rejected_at,
            tuple(trusted(WorkloadPlan, {**w.__dict__, "rejected": [], "break_even": []}) for w in plan.workloads),
            (aw, ao, ash),
            (main, standard_options(pairs)),
            dict(inputs.distributions),
        )

    def pairs_for(self, inputs: Inputs) -> tuple[Pairs, np.ndarray | None]:
        """The scenario's pair table, and which of its options differ from the base's (None when it
        was built afresh: other workloads, or offerings added, removed or reordered)."""
        same = inputs.workloads == self.workloads and inputs.distributions == self.distributions  # samples by value
        if same and self._same_floors(inputs):
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
        return build_pairs(inputs.workloads, inputs.catalog, distributions=inputs.distributions), None

    def _same_floors(self, inputs: Inputs) -> bool:
        """Floors stated as a model's score read the catalog: a scenario that changes that score changes them."""
        wa, now = self.pairs.workloads, build_workloads(inputs.workloads, inputs.catalog, inputs.distributions)
        return np.array_equal(wa.cap_min, now.cap_min, equal_nan=True) and np.array_equal(
            wa.cap_mean_min, now.cap_mean_min, equal_nan=True
        )

    def candidates_for(self, inputs: Inputs, pairs: Pairs, changed: np.ndarray | None) -> np.ndarray:
        """Pruning of the scenario's pairs, reusing the base's decisions for groups no change touches."""
        reuse = None if changed is None else (self.candidates, self.pairs.eligible, changed)
        return candidates(inputs.workloads, inputs.catalog, pairs, reuse=reuse)

    def known_rejections(self, changed: np.ndarray | None):
        """For a scenario whose pairs are the base's but for the options `changed` (pairs_for): a lookup
        (rw, ro) -> the base's record of each rejected pair whose option is unchanged, else None."""
        if changed is None or self.rejected_at is None:
            return None
        at, records = self.rejected_at, self.rejections

        def known(rw: np.ndarray, ro: np.ndarray) -> list[Rejection | None]:
            return [None if k < 0 else records[k] for k in np.where(changed[ro], -1, at[rw, ro]).tolist()]

        return known

    def known_records(
        self,
        pairs: Pairs,
        changed: np.ndarray | None,
        lp: LinearProgram,
        share: np.ndarray,
        main: np.ndarray,
        standard: np.ndarray,
        break_even: dict[int, list],
    ) -> dict[int, WorkloadPlan]:
        """For a scenario whose pairs are the base's but for the options `changed` (pairs_for), solved to
        `share`: the base's record (without its rejections and break-even entries) of each workload it
        would make equal; a workload with break-even entries in this plan is made afresh."""
        if changed is None or self.entries is None or self.compounding is None:
            return {}
        W, O = pairs.shape
        used = np.flatnonzero(share > 0)
        now = (lp.var_w[used], lp.var_o[used], share[used])
        fresh = np.zeros(W, dtype=bool)
        for (aw, ao, a_s), (bw, bo, b_s) in ((now, self.entries), (self.entries, now)):
            key_a, key_b = aw * O + ao, bw * O + bo  # (ascending: workload, then option order)
            if len(key_b) == 0:
                fresh[aw] = True
                continue
            at = np.minimum(np.searchsorted(key_b, key_a), len(key_b) - 1)
            fresh[aw[(key_b[at] != key_a) | (b_s[at] != a_s)]] = True  # an entry without its twin in the other
        fresh[now[0][changed[now[1]]]] = True
        fresh |= (pairs.eligible_count != self.pairs.eligible_count) | (pairs.eligible_count == 0)
        base_main, base_standard = self.compounding
        multi = pairs.workloads.turns > 1
        fresh |= multi & (main != base_main)
        fresh |= multi & ((standard != base_standard) | ((standard >= 0) & changed[np.maximum(standard, 0)]))
        fresh[list(break_even)] = True
        return {w: self.records[w] for w in np.flatnonzero(~fresh).tolist()}

    def columns(self, pairs: Pairs, lp: LinearProgram) -> np.ndarray:
        """Per LP column, whether the base routed that (workload, option) pair."""
        return routed_pairs(self.routing, pairs)[lp.var_w, lp.var_o]


def routed_pairs(routing, pairs: Pairs) -> np.ndarray:
    """W x O bool: the pairs a routing allocates, matched by workload id, offering id and mode."""
    out = np.zeros(pairs.shape, dtype=bool)
    option = _option_index(pairs)
    row = {wid: w for w, wid in enumerate(pairs.workloads.ids)}
    for wid, offering, mode in routing:
        w, o = row.get(wid), option.get((offering, mode))
        if w is not None and o is not None:
            out[w, o] = True
    return out


def _routing(plan: Plan) -> tuple[tuple[str, str, str], ...]:
    return tuple((w.id, a.offering, a.mode) for w in plan.workloads for a in w.allocations)


def _option_index(pairs: Pairs) -> dict[tuple[str, str], int]:
    """(offering id, mode) -> option index."""
    return {key: o for o, key in enumerate(zip(pairs.options.offering_id, pairs.options.mode))}
