"""Edits of validated inputs, as scenarios and contract overlays write them (SPEC section 6):
offerings matched by glob on id, model, vendor, host or tier get fields set ("900"), scaled ("*0.8")
or shifted ("+5", "-5"); offerings are removed or added; workloads and the policy change the same
way. A match that selects nothing, or a field that does not exist, is an input error, never a
silent no-op. Each change can be recorded (what an overlay's plan says it changed)."""

from __future__ import annotations

import copy
import fnmatch
import re
import types
import typing
from typing import Any

from pydantic import BaseModel

from planner.core.errors import InputError
from planner.model.schema import CatalogEdit, Match, Offering, Workload

_OP = re.compile(r"^\s*([*+-])\s*([0-9.eE+-]+)\s*$")

Change = tuple[str, str, Any, Any]  # (offering id, field path, before, after)


def apply_catalog_edits(cat: dict, edits: list[CatalogEdit], file: str, loc: str = "catalog") -> list[Change]:
    """Apply catalog edits in order to a catalog's plain data (changed in place); the changes made,
    removals as (id, "removed", None, None) and additions as (id, "added", None, None)."""
    changes: list[Change] = []
    for i, edit in enumerate(edits):
        at = f"{loc}[{i}]"
        if edit.set is not None:
            hits = [o for o in cat["offerings"] if matches(o, edit.match)]
            if not hits:
                raise InputError.single(file, f"{at}.match", f"matches no offering ({describe(edit.match)})")
            changes += set_fields(hits, edit.set, Offering, file, at, "offering")
        elif edit.remove is not None:
            keep = [o for o in cat["offerings"] if not matches(o, edit.remove)]
            if len(keep) == len(cat["offerings"]):
                raise InputError.single(file, f"{at}.remove", f"matches no offering ({describe(edit.remove)})")
            if not keep:
                raise InputError.single(file, f"{at}.remove", "would remove every offering")
            gone = {o["id"] for o in keep}
            changes += [(o["id"], "removed", None, None) for o in cat["offerings"] if o["id"] not in gone]
            cat["offerings"] = keep
        else:
            added = copy.deepcopy(edit.add)
            cat["offerings"].extend(added)
            changes += [(str(o.get("id")), "added", None, None) for o in added if isinstance(o, dict)]
    return changes


def set_fields(
    targets: list[dict], edits: dict[str, Any], model: type[BaseModel], file: str, loc: str, what: str
) -> list[Change]:
    """Apply every `path: value` of one edit to each matched object (offering, workload or policy);
    the changes, as (id, path, before, after)."""
    changes = []
    for path, value in edits.items():
        for obj in targets:
            label = f"{what} '{obj['id']}'" if "id" in obj else what
            before, after = apply_path(obj, path, value, model, file, f"{loc}.set.{path}", label)
            changes.append((str(obj.get("id", what)), path, before, after))
            if model is Offering:
                changes += carry_percentiles(obj, path, value, before, after)
    return changes


def carry_percentiles(offering: dict, path: str, value: Any, before: Any, after: Any) -> list[Change]:
    """A median speed figure that an edit moves takes its measured percentiles and its figures at other
    prompt lengths (speed.by_input) along, so that they stay the same measurement: "*k" scales each,
    "+k"/"-k" shifts each (a first-token time not below 0), a number scales each by new / old (shifts,
    from an old value of 0). Each change is recorded as its own (an overlay's plan lists it)."""
    parts = path.split(".")
    if len(parts) != 2 or parts[0] != "speed" or parts[1] not in ("output_tps", "ttft_s"):
        return []
    if not isinstance(before, (int, float)) or not isinstance(after, (int, float)) or before == after:
        return []
    op = _OP.match(value) if isinstance(value, str) else None

    def move(x: float) -> float:
        if op is not None and op.group(1) == "*":
            moved = x * float(op.group(2))
        elif op is not None or before == 0:
            moved = x + (after - before)
        else:
            moved = x * (after / before)
        return max(0.0, moved) if parts[1] == "ttft_s" else moved

    speed = offering.get("speed") or {}
    changes: list[Change] = []
    points = (speed.get("percentiles") or {}).get(parts[1])
    if points:
        old = copy.deepcopy(points)
        moved = {k: move(v) for k, v in points.items()}
        speed["percentiles"][parts[1]] = moved
        changes.append((str(offering.get("id")), f"speed.percentiles.{parts[1]}", old, moved))
    lengths = speed.get("by_input")
    if isinstance(lengths, dict) and any(isinstance(v, dict) and v.get(parts[1]) is not None for v in lengths.values()):
        old = copy.deepcopy(lengths)
        for at in lengths.values():
            if isinstance(at, dict) and isinstance(at.get(parts[1]), (int, float)):
                at[parts[1]] = move(at[parts[1]])
        changes.append((str(offering.get("id")), "speed.by_input", old, copy.deepcopy(lengths)))
    return changes


def matches(offering: dict, match: Match) -> bool:
    values = {
        "id": offering["id"],
        "model": offering["model"],
        "vendor": offering["vendor"],
        "host": offering.get("host") or offering["vendor"],
        "tier": offering["tier"],
    }
    return all(
        fnmatch.fnmatchcase(values[k], pattern) for k, pattern in match.model_dump().items() if pattern is not None
    )


def describe(match: BaseModel) -> str:
    return ", ".join(f"{k} '{v}'" for k, v in match.model_dump().items() if v is not None) or "everything"


def apply_path(
    obj: dict, path: str, value: Any, model: type[BaseModel], file: str, loc: str, what: str
) -> tuple[Any, Any]:
    """Set, scale or shift the field at a dotted path, checking the path against the schema; the
    value before and after."""
    parts = path.split(".")
    tp: Any = model
    target = obj
    for k, part in enumerate(parts):
        tp = unwrap(tp)
        last = k == len(parts) - 1
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            if part not in tp.model_fields:
                raise InputError.single(
                    file, loc, f"no field '{part}' in {tp.__name__}; expected one of: {', '.join(tp.model_fields)}"
                )
            next_tp = tp.model_fields[part].annotation
        elif typing.get_origin(tp) is dict:
            next_tp = typing.get_args(tp)[1]
        elif _named_items(tp) is not None and isinstance(target, list):
            # a list of named items (price_tiers, modes) is entered by an item's name: price_tiers.batch.price.input
            item = next((x for x in target if isinstance(x, dict) and x.get("name") == part), None)
            if item is None or last:
                names = ", ".join(str(x.get("name")) for x in target if isinstance(x, dict)) or "none"
                raise InputError.single(
                    file,
                    loc,
                    f"no '{part}' in '{'.'.join(parts[:k])}' of {what}; expected one of: {names}"
                    if item is None
                    else f"'{'.'.join(parts)}' is a whole item; set one of its fields",
                )
            target, tp = item, _named_items(tp)
            continue
        else:
            raise InputError.single(file, loc, f"'{'.'.join(parts[:k])}' has no field '{part}'")
        if last:
            before = copy.deepcopy(target.get(part))
            target[part] = new_value(before, value, file, loc, what)
            if model is Workload and parts[0] == "latency" and part in ("budget_s", "threshold") and value is not None:
                target["threshold" if part == "budget_s" else "budget_s"] = None
            return before, target[part]
        if target.get(part) is None:
            target[part] = {}
        target = target[part]
        tp = next_tp


def new_value(current: Any, value: Any, file: str, loc: str, what: str) -> Any:
    if isinstance(value, str):
        m = _OP.match(value)
        if m:
            op, number = m.group(1), float(m.group(2))
            if current is None:
                raise InputError.single(file, loc, f"'{value}' needs a current value, but it is not set for {what}")
            if isinstance(current, bool) or not isinstance(current, (int, float)):
                raise InputError.single(file, loc, f"'{value}' needs a number, found {current!r} for {what}")
            result = current * number if op == "*" else current + number if op == "+" else current - number
            return int(result) if isinstance(current, int) and float(result).is_integer() else result
    return value


def unwrap(tp: Any) -> Any:
    """Optional[X] -> X; Annotated[X, ...] -> X."""
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            tp = args[0] if len(args) == 1 else tp
            if len(args) != 1:
                return tp
        else:
            return tp


def _named_items(tp: Any) -> type[BaseModel] | None:
    """The item model of a list of named items (list[PriceTier], list[Mode]), else None."""
    if typing.get_origin(tp) is not list:
        return None
    (item,) = typing.get_args(tp) or (None,)
    named = isinstance(item, type) and issubclass(item, BaseModel) and "name" in item.model_fields
    return item if named else None
