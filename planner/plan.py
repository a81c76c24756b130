"""The Plan object and its JSON form (SPEC section 5).

Reports, exports and comparisons read only this object, never solver internals. The models
ignore unknown keys on reading, so a newer plan file still loads.
"""

from __future__ import annotations

import json
import operator
import os
import tempfile
from pathlib import Path
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import InputError

PLAN_VERSION = 1


class PlanModel(BaseModel):
    model_config = ConfigDict(extra="ignore")


def trusted(cls: type[BaseModel], values: dict[str, Any]) -> Any:
    """An instance of `cls` from values the planner computed itself: every field, in declaration
    order, already of its declared type (nested models as instances). What pydantic's model_construct
    does, without its per-field loop: a large plan has thousands of these, and validating them cost
    more than solving. Tests check that such plans equal their validated JSON round trip."""
    obj = _new(cls)
    _set(obj, "__dict__", values)
    _set(obj, "__pydantic_fields_set__", set(values))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


_new, _set = object.__new__, object.__setattr__


class Inputs(PlanModel):
    workloads_file: str
    catalog_file: str
    catalog: str
    as_of: Optional[str] = None
    scenario: Optional[str] = None


class SolverInfo(PlanModel):
    name: str
    status: str
    seconds: float
    variables: int
    constraints: int
    integer: bool


class LatencySummary(PlanModel):
    mean: float
    max: float


class Allocation(PlanModel):
    offering: str
    mode: str
    share: float
    tasks: float
    cost_per_task: float
    cost: float
    latency_s: float
    capability: Optional[float]
    vendor: str
    host: str
    tier: str
    model: str = ""
    within_budget: bool = True


class Rejection(PlanModel):
    offering: str
    mode: str
    reasons: list[str]
    cost_per_task: Optional[float] = None
    latency_s: Optional[float] = None
    capability: Optional[float] = None


class NearMiss(PlanModel):
    offering: str
    mode: str
    latency_s: float
    capability: Optional[float]
    cost_per_task: float


class Diagnosis(PlanModel):
    summary: str
    fastest_meeting_floor: Optional[NearMiss] = None  # the budget it would need: its latency_s
    most_capable_within_budget: Optional[NearMiss] = None


class BreakEven(PlanModel):
    """How far an offering's prices (input and output together) would have to move for w."""

    offering: str
    mode: str
    used: bool
    cost_per_task: float
    break_even_cost_per_task: Optional[float]  # None: no price change wins it
    price_change: Optional[float]  # fraction: -0.2 = a 20% cut wins it; +0.1 = used until +10%


class Compounding(PlanModel):
    """Task latency against agent turns, for the chosen option and the cheapest standard-tier one."""

    turns: list[int]
    chosen: str
    chosen_latency_s: list[float]
    standard: Optional[str] = None
    standard_latency_s: Optional[list[float]] = None


class BaselineChoice(PlanModel):
    workload: str
    option: Optional[str]
    cost: float
    misses: list[str]


class Baseline(PlanModel):
    """What the same workloads would cost on a simple rule people compare with."""

    key: str
    label: str
    total_cost: float
    misses: int  # workloads whose budget, floor or other rule the rule breaks
    choices: list[BaselineChoice]


class VendorOutage(PlanModel):
    """The plan without one vendor: its cost and the workloads left with no eligible option."""

    vendor: str
    spend: float
    feasible: bool  # the remaining workloads can still be planned within every limit
    cost_without: Optional[float]  # total cost of the remaining workloads' plan
    change: Optional[float]  # cost_without minus the plan's cost of those same workloads
    lost_workloads: list[str]


class WorkloadPlan(PlanModel):
    id: str
    status: str
    description: Optional[str] = None
    tasks: float
    turns: int = 1
    budget_s: Optional[float]
    threshold: Optional[str]
    metric: str = "overall"
    capability_min: Optional[float] = None
    cost: float
    cost_per_task: Optional[float]
    latency_s: Optional[LatencySummary]
    within_budget_share: Optional[float]
    within_budget_share_required: float = 1.0
    capability_mean: Optional[float]
    peak_tasks_per_minute: float = 0.0
    peak_assumed: bool = False
    eligible: int = 0
    allocations: list[Allocation]
    rejected: list[Rejection]
    break_even: list[BreakEven] = []
    tool_latency_s: float = 0.0
    streaming: bool = False
    compounding: Optional[Compounding] = None
    diagnosis: Optional[Diagnosis] = None


class OfferingUse(PlanModel):
    id: str
    vendor: str = ""
    host: str = ""
    tier: str = ""
    spend: float
    tasks: float
    peak_tpm: float
    tokens_per_minute: Optional[float]
    peak_rpm: float = 0.0
    requests_per_minute: Optional[float] = None
    utilization: Optional[float]
    source: Optional[str] = None
    price_input: Optional[float] = None  # per 1M tokens
    price_output: Optional[float] = None
    output_tps: Optional[float] = None
    ttft_s: Optional[float] = None


class VendorSpend(PlanModel):
    vendor: str
    spend: float
    share: float
    cap: Optional[float] = None


class Binding(PlanModel):
    constraint: str
    shadow_price: Optional[float]
    limit: Optional[float] = None
    unit: str = ""
    meaning: str = ""


class Relaxation(PlanModel):
    constraint: str
    limit: float
    needed: float
    by: float
    unit: str = ""
    meaning: str = ""


class OfferingInfo(PlanModel):
    """What an export needs of every offering the plan names (allocated or a runner-up)."""

    model: str
    vendor: str
    host: str
    tier: str
    price_input: float
    price_output: float
    gateway: dict[str, str] = {}


class Plan(PlanModel):
    plan_version: int = PLAN_VERSION
    status: str
    name: str
    period: str
    currency: str
    inputs: Inputs
    solver: SolverInfo
    total_cost: float
    workloads: list[WorkloadPlan]
    offerings: list[OfferingUse]
    vendors: list[VendorSpend]
    binding: list[Binding]
    relaxation: list[Relaxation]
    diagnosis: list[str] = []
    baselines: list[Baseline] = []
    resilience: list[VendorOutage] = []
    thresholds: dict[str, Optional[float]] = {}
    assumptions: list[str] = []
    sources: dict[str, str] = {}
    offering_info: dict[str, OfferingInfo] = {}

    def to_json(self) -> str:
        """The plan file's text: pydantic's serializer (Rust), 2-space indent, stable field order (without
        its type-check warnings, a fifth of its time: every field was validated when the plan was built)."""
        return self.model_dump_json(indent=2, warnings=False) + "\n"

    def workload(self, wid: str) -> WorkloadPlan:
        return next(w for w in self.workloads if w.id == wid)


class Fragments:
    """The plan-file text of records that the plans of a what-if batch share with their base, so that
    each scenario's file serializes only what its edit changed (to_json's output, byte for byte).

    heads: workload records as a scenario plan carries them but with no rejections (what solve reuses
    of the base), and per workload its rejection records. The fragments keep these records alive, so
    an object of a plan with the id of one of them is that very object: a workload is written from
    here only when its fields other than `rejected` are the very objects of a head's, a rejection
    list when it holds the very records of one; anything else is serialized afresh.
    """

    def __init__(self, heads: list[WorkloadPlan], rejected: list[list[Rejection]]):
        self._keep = (heads, rejected)
        self._heads = {id(h.allocations): (h, *_split(t)) for h, t in zip(heads, _texts(WorkloadPlan, heads, 2))}
        records = [r for row in rejected for r in row]
        self._rejections = dict(zip(map(id, records), _texts(Rejection, records, 4)))
        self._blocks = {tuple(map(id, row)): _block([self._rejections[id(r)] for r in row]) for row in rejected}

    def plan_json(self, plan: Plan) -> str:
        """plan.to_json(), from the fragments where the plan's records are the base's: a workload
        whose record is a head's (but for its rejections) is written from the head's text and its
        rejection records' texts; any other workload is serialized whole."""
        slots: list[Optional[tuple[str, Union[str, list], str]]] = []
        fresh: list[WorkloadPlan] = []
        fresh_rejections: list[Rejection] = []
        texts = self._rejections
        for w in plan.workloads:
            head = self._heads.get(id(w.allocations))
            if head is None or not _same_head(w, head[0]):
                slots.append(None)
                fresh.append(w)
                continue
            block = self._blocks.get(tuple(map(id, w.rejected)))
            if block is None:
                block = [texts.get(i) for i in map(id, w.rejected)]
                if None in block:
                    fresh_rejections += [r for r, t in zip(w.rejected, block) if t is None]
            slots.append((head[1], block, head[2]))
        new_workloads = iter(_texts(WorkloadPlan, fresh, 2))
        new_rejections = iter(_texts(Rejection, fresh_rejections, 4))
        parts = []
        for slot in slots:
            if slot is None:
                parts += (",\n    {", next(new_workloads), "\n    }")
                continue
            before, block, after = slot
            if not isinstance(block, str):
                block = _block([next(new_rejections) if t is None else t for t in block])
            parts += (",\n    ", before, block, after)
        skeleton = plan.model_copy(update={"workloads": []}).to_json()
        if not parts:
            return skeleton
        parts[0] = parts[0][1:]  # (no comma before the first)
        at = skeleton.index(_NO_WORKLOADS) + len(_NO_WORKLOADS) - 1  # (the first: the plan's own key)
        return "".join([skeleton[:at], *parts, "\n  ", skeleton[at:]])


_NO_WORKLOADS = '\n  "workloads": []'  # the plan's own key (indent 2)
_NO_REJECTIONS = '\n      "rejected": []'  # a workload's own key, as placed in a plan (indent 6)
_AT_4 = "\n        "  # a rejection record's indent in a plan
_BETWEEN_4 = _AT_4 + "}," + _AT_4 + "{"


def _split(inner: str) -> tuple[str, str]:
    """A workload's text (from its inside, `_texts`) around its empty rejection list: from '{' up to
    and with '[', and from ']' on to '}'."""
    at = inner.index(_NO_REJECTIONS) + len(_NO_REJECTIONS) - 1
    return "{" + inner[:at], inner[at:] + "\n    }"


def _block(items: list[str]) -> str:
    """A rejection list's inside, from its records' insides (depth 4)."""
    return _AT_4 + "{" + _BETWEEN_4.join(items) + _AT_4 + "}\n      " if items else ""


def _same_head(record: WorkloadPlan, head: WorkloadPlan) -> bool:
    """Every field but `rejected` the very object of the head's (C-level loops: a thousand a plan)."""
    mine, its = list(record.__dict__.values()), list(head.__dict__.values())
    if len(mine) != len(its):
        return False
    mine[_REJECTED] = its[_REJECTED]
    return all(map(operator.is_, mine, its))


def _texts(model: type[PlanModel], items: list, depth: int) -> list[str]:
    """Each item's text between its braces as it stands at `depth` (2 spaces a level) inside a plan
    file, from one call of the serializer: the items are written nested in depth - 1 lists, which
    puts them at that depth."""
    if not items:
        return []
    adapter = _ADAPTERS.get((model, depth))
    if adapter is None:
        from pydantic import TypeAdapter

        tp: Any = model
        for _ in range(depth):
            tp = list[tp]
        adapter = _ADAPTERS[model, depth] = TypeAdapter(tp)
    for _ in range(depth - 1):
        items = [items]
    text = adapter.dump_json(items, indent=2, warnings=False).decode()
    pad = "\n" + "  " * depth
    first = text.index(pad + "{") + len(pad) + 1  # just after the first item's '{'
    return text[first:text.rindex(pad + "}")].split(pad + "}," + pad + "{")


_ADAPTERS: dict[tuple[type, int], Any] = {}


def read_plan(path: str | Path) -> Plan:
    path = Path(path)
    if not path.exists():
        raise InputError.single(str(path), "", "file not found")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError.single(str(path), "", f"not valid JSON: {exc.msg}", exc.lineno, exc.colno)
    except (UnicodeDecodeError, OSError) as exc:
        raise InputError.single(str(path), "", f"cannot be read: {exc}")
    if not isinstance(data, dict) or "plan_version" not in data:
        raise InputError.single(str(path), "plan_version", "not a planner plan file (no plan_version)")
    if data.get("plan_version") != PLAN_VERSION:
        raise InputError.single(str(path), "plan_version",
                                f"unsupported plan version {data.get('plan_version')!r}, expected {PLAN_VERSION}")
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise InputError.single(str(path), loc, err["msg"]) from None


def stage(path: str | Path, content: str | bytes, tag: str = "") -> str:
    """Write content to a hidden temporary file beside `path` (with a new file's permissions) and
    return its name; os.replace(it, path) then puts it in place at once."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = "wb" if isinstance(content, bytes) else "w"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{tag}", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as fh:
            fh.write(content)
    except BaseException:
        discard(tmp)
        raise
    return tmp


def discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def write_atomic(path: str | Path, content: str | bytes) -> None:
    """Write to a temporary file beside the target, then rename: the old file or the whole new one."""
    tmp = stage(path, content)
    try:
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_all(files: dict[Path, Any]) -> None:
    """Write several outputs so that none is half-written: render all first, then rename each."""
    for path, content in files.items():
        try:
            write_atomic(path, content)
        except OSError as exc:
            raise InputError.single(str(path), "--out", f"cannot be written: {exc.strerror or exc}") from None


_REJECTED = list(WorkloadPlan.model_fields).index("rejected")
