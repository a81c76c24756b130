"""What every input model shares: the strict base model (unknown keys refused, no coercion, field
titles the keys themselves), the field types (ids, names, scores, shares, periods), a capability
written as a bare score, and the check for duplicate ids."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

ID_PATTERN = r"^[A-Za-z0-9._\-@/:]+$"

OfferingId = Annotated[str, StringConstraints(pattern=ID_PATTERN, min_length=1, max_length=200)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=500)]
Score = Annotated[float, Field(ge=0, le=100)]
Share = Annotated[float, Field(ge=0, le=1)]

MINUTES_PER_PERIOD = {"day": 1440, "week": 10080, "month": 43200, "quarter": 129600, "year": 525600}
Period = Literal["day", "week", "month", "quarter", "year"]


class Strict(BaseModel):
    # Field titles are the keys themselves: an editor's hover shows `output_tps`, not "Output Tps".
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        allow_inf_nan=False,
        field_title_generator=lambda name, info: name,
    )


# What a capability field accepts as written in a file (the JSON Schemas say so): a bare score or scores by metric.
CapabilityInput = Score | dict[str, Score]


def _capability_dict(value: Any) -> Any:
    """A bare number means {overall: number}."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {"overall": float(value)}
    return value


def _check_unique(ids: list[str], what: str) -> None:
    first: dict[str, int] = {}
    for i, x in enumerate(ids):
        if x in first:
            raise ValueError(f"duplicate {what} '{x}' at positions {first[x]} and {i}")
        first[x] = i
