"""Pydantic models of the planner's input files (SPEC sections 1, 2 and 6).

Units: money in the catalog's currency, prices per 1,000,000 tokens, time in seconds,
speeds in tokens per second, volumes per period. Every model forbids unknown keys and
validates strictly (no silent string-to-number coercion). Upper bounds are plausibility
limits far beyond any real figure (a billion tokens per call, $1M per 1M tokens...): past
them a number is a typo, and the LP's coefficients would span more orders of magnitude than
a solver's tolerances can carry.

One module per kind of file: catalog.py (SPEC 1), workloads.py (SPEC 2), scenario.py (the
what-if scenarios and contract overlays of SPEC 6), over common.py (the strict base model and
the field types they share). Every name is imported from here: `from planner.model.schema import
Catalog`.
"""

from planner.model.schema.catalog import (
    BATCH_WINDOW_S,
    MAX_UNITS,
    PRICE_TIERS,
    Capacity,
    Catalog,
    Commitment,
    CommitmentUnit,
    LongContext,
    Metric,
    Mode,
    Offering,
    PercentileKey,
    Price,
    PriceTier,
    Speed,
    SpeedAt,
    SpeedPercentiles,
    Thinking,
)
from planner.model.schema.common import (
    ID_PATTERN,
    MINUTES_PER_PERIOD,
    CapabilityInput,
    Name,
    OfferingId,
    Period,
    Score,
    Share,
    Strict,
    _check_unique,
)
from planner.model.schema.scenario import (
    CatalogEdit,
    Match,
    Overlay,
    PolicyEdit,
    Scenario,
    SetValue,
    WorkloadEdit,
    WorkloadMatch,
)
from planner.model.schema.workloads import (
    DEFAULT_THRESHOLDS,
    CapabilityRule,
    Latency,
    Policy,
    RelativeFloor,
    Tokens,
    VendorRule,
    Workload,
    WorkloadSet,
    floor_value,
)

__all__ = [
    "BATCH_WINDOW_S",
    "DEFAULT_THRESHOLDS",
    "ID_PATTERN",
    "MAX_UNITS",
    "MINUTES_PER_PERIOD",
    "PRICE_TIERS",
    "Capacity",
    "CapabilityInput",
    "CapabilityRule",
    "Catalog",
    "CatalogEdit",
    "Commitment",
    "CommitmentUnit",
    "Latency",
    "LongContext",
    "Match",
    "Metric",
    "Mode",
    "Name",
    "Offering",
    "OfferingId",
    "Overlay",
    "PercentileKey",
    "Period",
    "Policy",
    "PolicyEdit",
    "Price",
    "PriceTier",
    "RelativeFloor",
    "Scenario",
    "Score",
    "SetValue",
    "Share",
    "Speed",
    "SpeedAt",
    "SpeedPercentiles",
    "Strict",
    "Thinking",
    "Tokens",
    "VendorRule",
    "Workload",
    "WorkloadEdit",
    "WorkloadMatch",
    "WorkloadSet",
    "_check_unique",
    "floor_value",
]
