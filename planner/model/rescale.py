"""A capability metric put on another scale between two catalogs (or two plans): found from the scores
both carry, or declared by a new `metrics[m].scale` label. `planner catalog diff` and `planner compare`
both ask this module, so they call the same change a rescale.

A rescale is reported once (metric, factor, matched scores, spread of the ratios) instead of one
capability change per offering; a score that moved far from the common factor is still a change of
its own ("differs from the rescale")."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from pydantic import BaseModel

MIN_SCORES = 5  # matched scores (before > 0) needed to call a change a rescale from the scores alone
SAME_DIRECTION = 0.9  # at least this share of them moves the way the median ratio does
TOLERANCE = 0.15  # the middle 80% of ratios lie within this of the median ratio; past it, a score differs
MIN_MOVE = 0.02  # the median ratio is off 1 by more than this (and by more than the rounding)


class Rescale(BaseModel):
    """One metric on a new scale: after ~= factor x before for the scores both sides carry."""

    metric: str
    factor: float | None  # the median ratio after / before (None: declared, no score on both sides)
    scores: int  # matched scores with a score before > 0: the ratios the factor is the median of
    low: float | None  # the middle 80% of the ratios: 10th percentile
    high: float | None  # ... and 90th percentile
    declared: bool  # the scale labels differ
    scale_before: str | None = None
    scale_after: str | None = None
    differs: list[str] = []  # keys (offerings, options) whose score moved far from the factor

    @property
    def moves(self) -> bool:
        """The scores moved by the factor (off 1 by more than MIN_MOVE). Only then does the rescale
        stand for the metric's per-offering changes; a declared rescale whose scores did not move on the
        whole leaves them listed as changes."""
        return self.factor is not None and abs(self.factor - 1) > MIN_MOVE

    def line(self) -> str:
        """The rescale in one line, as the terminal, CSV and the reports show it, e.g. "capability.overall
        rescaled x0.75 (717 scores, middle 80% of ratios 0.71-0.79; not declared)"."""
        if self.factor is None:
            parts = ["no score on both sides"]
        else:
            parts = [f"{self.scores} scores, middle 80% of ratios {self.low:.3g}-{self.high:.3g}"]
        if self.declared:
            parts.append(f"declared: scale '{self.scale_before}' -> '{self.scale_after}'")
        else:
            parts.append("not declared")
        if self.differs:
            parts.append(f"{len(self.differs)} differ from it")
        factor = "" if self.factor is None else f" x{self.factor:.3g}"
        line = f"capability.{self.metric} rescaled{factor} ({'; '.join(parts)})"
        if self.factor is not None and not self.moves:
            line += ", but its scores did not move on the whole: their changes are listed"
        return line

    def differs_at(self, before: float, after: float, rounding: float | None = None) -> bool:
        """Under a rescale that moves the scores: a score further than TOLERANCE of factor x before (and
        further than the rounding, for scores near zero) is a change of its own, even when the score
        itself did not change."""
        if not self.moves:
            return False
        expected = self.factor * before
        return abs(after - expected) > max(TOLERANCE * expected, rounding or 0.0)


def rounding_of(*declared: float | None) -> float | None:
    """The coarser of the roundings the two sides declare (None: neither declares one)."""
    steps = [r for r in declared if r]
    return max(steps) if steps else None


def below_rounding(before: float, after: float, rounding: float | None) -> bool:
    """A capability change smaller than half the source's rounding step is no change."""
    return rounding is not None and abs(after - before) < rounding / 2


def find_rescale(
    metric: str,
    scores: Iterable[tuple[str, float, float]],
    rounding: float | None = None,
    scale_before: str | None = None,
    scale_after: str | None = None,
) -> Rescale | None:
    """The rescale of `metric` between two sides, or None. scores: (key, before, after) for every score
    of the metric both sides carry (each key once; scores that are not finite numbers are left out).

    Declared: both sides label the metric's scale and the labels differ. Found from the scores: at
    least MIN_SCORES scores above zero before; the median ratio after/before is off 1 by more than
    MIN_MOVE and moves the median score by more than the rounding; at least SAME_DIRECTION of the
    scores move that way (by at least half the rounding); and the middle 80% of the ratios (10th to
    90th percentile) lie within TOLERANCE of the median ratio."""
    every = [(k, float(b), float(a)) for k, b, a in scores if math.isfinite(b) and math.isfinite(a)]
    rows = [r for r in every if r[1] > 0]
    declared = scale_before is not None and scale_after is not None and scale_before != scale_after
    if not declared and 2 * sum(1 for _, b, a in rows if a != b) < len(rows):
        return None  # most scores the same: the median ratio is 1 (a what-if scenario's usual case)
    if not rows:
        if not declared:
            return None
        return Rescale(metric=metric, factor=None, scores=0, low=None, high=None, declared=True,
                       scale_before=scale_before, scale_after=scale_after)  # fmt: skip
    before = np.array([b for _, b, _ in rows])
    after = np.array([a for _, _, a in rows])
    ratio = after / before
    factor = float(np.median(ratio))
    low, high = (float(x) for x in np.quantile(ratio, [0.1, 0.9]))
    if not declared:
        step = rounding or 0.0
        moved = np.abs(after - before) >= step / 2 if rounding else after != before
        same = np.sum(moved & ((ratio < 1) if factor < 1 else (ratio > 1)))
        if (
            len(rows) < MIN_SCORES
            or abs(factor - 1) <= MIN_MOVE
            or abs(factor - 1) * float(np.median(before)) <= step
            or same < SAME_DIRECTION * len(rows)
            or low < factor * (1 - TOLERANCE)
            or high > factor * (1 + TOLERANCE)
        ):
            return None
    found = Rescale(
        metric=metric,
        factor=round(factor, 6),
        scores=len(rows),
        low=round(low, 6),
        high=round(high, 6),
        declared=declared,
        scale_before=scale_before,
        scale_after=scale_after,
    )
    differs = [k for k, b, a in every if found.differs_at(b, a, rounding)]
    return found.model_copy(update={"differs": differs})


def score_changes(
    metric: str,
    scores: list[tuple[str, float, float]],
    rounding: float | None = None,
    scale_before: str | None = None,
    scale_after: str | None = None,
) -> tuple[Rescale | None, dict[str, str | None]]:
    """The metric's rescale between two sides (find_rescale, or None) and the scores to list as
    changes, key -> note: under a rescale that moves the scores only those that differ from it (with
    a note saying how), else every score that changed by half the rounding or more."""
    found = find_rescale(metric, scores, rounding, scale_before, scale_after)
    if found is not None and found.moves:
        differs = set(found.differs)
        return found, {
            k: f"differs from the rescale: x{a / b:.3g} against x{found.factor:.3g}"
            if b
            else f"differs from the rescale (x{found.factor:.3g})"
            for k, b, a in scores
            if k in differs
        }
    return found, {k: None for k, b, a in scores if a != b and not below_rounding(b, a, rounding)}
