"""The edit files (SPEC section 6): a what-if scenario's edits of the catalog, the workloads and the
policy, and a contract overlay's edits, denied companies and commitments over a public catalog."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from planner.model.schema.catalog import Commitment
from planner.model.schema.common import Name, OfferingId, Strict


class Match(Strict):
    """Offerings to select: glob patterns on these fields, all of which must match."""

    id: str | None = Field(None, description="glob on the offering's id, e.g. sol-*")
    model: str | None = Field(None, description="glob on the model")
    vendor: str | None = Field(None, description="glob on the vendor")
    host: str | None = Field(None, description="glob on the host")
    tier: str | None = Field(None, description="glob on the tier")


SetValue = float | int | str | bool | list[Name] | None  # a list: a field such as regions


class CatalogEdit(Strict):
    """One catalog edit: match + set, remove, or add."""

    match: Match | None = Field(None, description="the offerings to change (with set)")
    set: dict[str, SetValue] | None = Field(
        None,
        description='field path -> value: a number sets it, "*k" scales, "+k"/"-k" shifts, null clears; '
        'e.g. {price.output: "*0.8"}',
    )
    remove: Match | None = Field(None, description="remove the offerings this matches")
    add: list[dict[str, Any]] | None = Field(None, description="offerings to add, each a full catalog offering")

    @model_validator(mode="after")
    def _shape(self) -> CatalogEdit:
        kinds = [k for k in ("set", "remove", "add") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("each catalog edit is one of: match+set, remove, add")
        if self.set is not None and self.match is None:
            raise ValueError("'set' needs a 'match'")
        if self.match is not None and self.set is None:
            raise ValueError("'match' needs a 'set'")
        return self


class WorkloadMatch(Strict):
    """Workloads to select."""

    id: str | None = Field(None, description="glob on the workload's id; absent: every workload")


class WorkloadEdit(Strict):
    """Change the matched workloads' fields."""

    match: WorkloadMatch = Field(description="the workloads to change")
    set: dict[str, SetValue] = Field(
        description='field path -> value: a number sets it, "*k" scales, "+k"/"-k" shifts, null clears; '
        'e.g. {tasks: "*1.5", latency.budget_s: 5}'
    )


class PolicyEdit(Strict):
    """Change the policy's fields."""

    set: dict[str, Any] = Field(description='policy field -> value, e.g. {budget: 40000} or {budget: "*0.9"}')


class Scenario(Strict):
    """A what-if scenario (SPEC section 6): edits to the catalog, the workloads and the policy."""

    name: OfferingId = Field(description="the scenario's name, in plan file names: letters, digits and . _ - @ / :")
    description: str | None = Field(None, description="free text, shown in reports")
    catalog: list[CatalogEdit] = Field([], description="catalog edits: match + set, remove, or add")
    workloads: list[WorkloadEdit] = Field([], description="workload edits: match + set")
    policy: PolicyEdit | None = Field(None, description="policy edit: set")


class Overlay(Strict):
    """A company's own terms over a public catalog: negotiated prices, private capacity, the regions
    its hosts serve it from and the companies it does not use, as catalog edits (SPEC v1.4)."""

    name: OfferingId
    description: str | None = None
    source: Name | None = Field(None, description="where its figures come from: a contract, a quote")
    catalog: list[CatalogEdit] = []
    deny: list[Name] = Field([], description="companies not used: what each bills or serves is removed")
    commitments: list[Commitment] = Field(
        [],
        description="contracts on offer to this company (reserved throughput, committed spend), added to the catalog's",
    )

    @model_validator(mode="after")
    def _not_empty(self) -> Overlay:
        if not self.catalog and not self.deny and not self.commitments:
            raise ValueError(
                "an overlay edits the catalog ('catalog'), denies companies ('deny') or adds commitments "
                "('commitments')"
            )
        return self
