"""A capability metric put on another scale between two catalogs (or two plans): found from the scores
both carry, or declared by a new `metrics[m].scale` label. `planner catalog diff` and `planner compare`
both ask this module, over the same population (the models both sides score, `model_scores`), so they
call the same change a rescale with the same factor.

A rescale is reported once (metric, factor, matched models, how many move with it, spread of the ratios)
instead of one capability change per offering; a score that moved far from the common factor is still a
change of its own ("differs from the rescale")."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel

if TYPE_CHECKING:
    from planner.model.schema import Catalog

MIN_SCORES = 5  # matched models (score before > 0) needed to call a change a rescale from the scores alone
SAME_DIRECTION = 0.75  # at least this share of them moves the way the median ratio does
MOVING_TOGETHER = 0.5  # at least this share of the ratios lie within TOLERANCE of the median ratio
TOLERANCE = 0.15  # how close to the factor a ratio moves "with" the rescale; past it, a score differs
MIN_MOVE = 0.02  # the median ratio is off 1 by more than this (and by more than the rounding)


class Rescale(BaseModel):
    """One metric on a new scale: after ~= factor x before for most of the models both sides score."""

    metric: str
    factor: float | None  # the median ratio after / before (None: declared, no score on both sides)
    scores: int  # matched models with a score before > 0: the ratios the factor is the median of
    low: float | None  # the middle 80% of the ratios: 10th percentile
    high: float | None  # ... and 90th percentile
    declared: bool  # the scale labels differ
    scale_before: str | None = None
    scale_after: str | None = None
    differs: list[str] = []  # keys (offerings, options) whose score moved far from the factor
    within: int | None = None  # of the `scores` ratios, those within TOLERANCE of the factor

    @property
    def moves(self) -> bool:
        """The scores moved by the factor (off 1 by more than MIN_MOVE). Only then does the rescale
        stand for the metric's per-offering changes; a declared rescale whose scores did not move on the
        whole leaves them listed as changes."""
        return self.factor is not None and abs(self.factor - 1) > MIN_MOVE

    def line(self) -> str:
        """The rescale in one line, as the terminal, CSV and the reports show it, e.g. "capability.overall
        rescaled x0.745 (28 models, 17 within 15% of it, middle 80% of ratios 0.482-0.861; not declared;
        11 scores differ from it)"."""
        if self.factor is None:
            parts = ["no score on both sides"]
        else:
            together = "" if self.within is None else f", {self.within} within {TOLERANCE:.0%} of it"
            parts = [f"{self.scores} models{together}, middle 80% of ratios {self.low:.3g}-{self.high:.3g}"]
        if self.declared:
            parts.append(f"declared: scale '{self.scale_before}' -> '{self.scale_after}'")
        else:
            parts.append("not declared")
        if self.differs:
            n = len(self.differs)
            parts.append(f"{n} score differs from it" if n == 1 else f"{n} scores differ from it")
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


def model_scores(catalog: Catalog) -> dict[str, dict[str, float]]:
    """Metric -> model -> score: each model the catalog scores, once (an offering's `model` with its
    scores; a mode's own `model` with the scores the mode states). The population a rescale is found
    from: a source scores a model, not a host, so a model sold by fifteen hosts counts once. A model
    the catalog scores differently in one metric (two offerings disagree) is left out of that metric."""
    seen: dict[str, dict[str, set[float]]] = {}
    for o in catalog.offerings:
        named = [(o.model, o.capability)] + [(m.model or o.model, m.capability) for m in o.modes if m.capability]
        for model, caps in named:
            for metric, score in caps.items():
                if math.isfinite(score):
                    seen.setdefault(metric, {}).setdefault(model, set()).add(float(score))
    return {
        metric: {model: next(iter(s)) for model, s in sorted(models.items()) if len(s) == 1}
        for metric, models in sorted(seen.items())
    }


def matched(before: dict[str, float] | None, after: dict[str, float] | None) -> list[tuple[str, float, float]]:
    """(model, before, after) for each model both sides score (one metric's model_scores), matched by
    name regardless of letter case and runs of spaces (a source writes "gpt-oss-120B (low)" one month
    and "gpt-oss-120b (low)" the next); a name that stands for two scores on one side is left out."""
    if not before or not after:
        return []
    later: dict[str, float | None] = {}
    for name, score in after.items():
        key = _key(name)
        later[key] = score if later.get(key, score) == score else None
    earlier: dict[str, tuple[str, float] | None] = {}
    for name, score in before.items():
        key = _key(name)
        earlier[key] = (name, score) if key not in earlier or earlier[key] == (name, score) else None
    return [(v[0], v[1], later[k]) for k, v in earlier.items() if v is not None and later.get(k) is not None]


def _key(name: str) -> str:
    return " ".join(name.lower().split())


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
    """The rescale of `metric` between two sides, or None. scores: (key, before, after) for each model
    (or score) of the metric both sides carry, each key once; scores that are not finite are left out.

    Declared: both sides label the metric's scale and the labels differ. Found from the scores, over
    those above zero before: at least MIN_SCORES of them; the median ratio after/before (the factor) is
    off 1 by more than MIN_MOVE and moves the median score by more than the rounding; at least
    SAME_DIRECTION of them move the factor's way (by at least half the rounding); and at least
    MOVING_TOGETHER of the ratios lie within TOLERANCE of the factor. The last two let some models
    really change (a new release under an old name, a re-run benchmark) while the rest move together;
    ratios scattered widely (no common factor) fail the last."""
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
    within = int(np.sum(np.abs(ratio - factor) <= TOLERANCE * factor))
    if not declared:
        step = rounding or 0.0
        moved = np.abs(after - before) >= step / 2 if rounding else after != before
        same = np.sum(moved & ((ratio < 1) if factor < 1 else (ratio > 1)))
        if (
            len(rows) < MIN_SCORES
            or abs(factor - 1) <= MIN_MOVE
            or abs(factor - 1) * float(np.median(before)) <= step
            or same < SAME_DIRECTION * len(rows)
            or within < MOVING_TOGETHER * len(rows)
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
        within=within,
    )
    differs = [k for k, b, a in every if found.differs_at(b, a, rounding)]
    return found.model_copy(update={"differs": differs})


def score_changes(
    metric: str,
    scores: list[tuple[str, float, float]],
    rounding: float | None = None,
    scale_before: str | None = None,
    scale_after: str | None = None,
    models: list[tuple[str, float, float]] | None = None,
) -> tuple[Rescale | None, dict[str, str | None]]:
    """The metric's rescale between two sides (find_rescale over `models`, the models both sides score,
    or over `scores` when not given) and the scores to list as changes, key -> note: under a rescale
    that moves the scores only those that differ from it (with a note saying how), else every score
    that changed by half the rounding or more."""
    found = find_rescale(metric, scores if models is None else models, rounding, scale_before, scale_after)
    if found is not None and models is not None:  # differs: judged score by score, as listed
        found = found.model_copy(update={"differs": [k for k, b, a in scores if found.differs_at(b, a, rounding)]})
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


def rounding_noise(scores: list[tuple[str, float, float]], rounding: float | None) -> int:
    """How many of the scores changed, but by less than half the rounding: the source's rounding, not a
    change (a score published to 0.001 one day and to 15 digits the next)."""
    return sum(1 for _, b, a in scores if a != b and below_rounding(b, a, rounding))
